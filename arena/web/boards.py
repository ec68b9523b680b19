"""The views a replay frame can show of a game state.

* ``seat-N``: ``state.observation(N)``, exactly what seat N's bot was sent (or would be).
* ``full``: everything, hidden parts included, taken from ``state.snapshot()`` and written
  in the observation's vocabulary (names, not engine indices), so one drawing routine per
  game shows both: the public fields of an observation, plus every hand, pile and stack the
  snapshot holds. A game without an adapter here shows its snapshot as it is.
* ``snapshot``: ``state.snapshot()`` unchanged (for tools; the viewer offers it as raw JSON).
"""

from __future__ import annotations

from typing import Callable


def _five_towers(state) -> dict:
    # The snapshot is already the observation (of the seat to move) plus the hidden parts.
    view = state.snapshot()
    view["seat"] = None
    return view


def _agent_avenue(state) -> dict:
    snap = state.snapshot()
    view = state.observation(0)
    for key in ("team", "lead", "hand"):
        view.pop(key, None)
    view["seat"] = None
    view["hands"] = [sorted(hand) for hand in snap["hands"]]
    view["deck"] = list(snap["deck"])
    view["discarded"] = [list(cards) for cards in snap["discarded"]]
    if view.get("current_play"):
        view["current_play"]["face_down"] = snap["face_down"]
    if view.get("black_market") is not None:
        view["black_market"]["pile_cards"] = list(snap["bm_pile"])
    return view


def _fifth_avenue(state) -> dict:
    from arena.games.fifth_avenue import board as B
    from arena.games.fifth_avenue.auction import counts_to_values

    snap = state.snapshot()
    view = state.observation(0)
    view.pop("your_black_cards", None)
    view["seat"] = None
    for info, counts in zip(view["players_info"], snap["black"]):
        info["black_cards"] = counts_to_values(counts)
    for index, colour in enumerate(B.COLOURS):
        view["stacks"][colour]["cards"] = list(snap["stacks"][index])
    view["stacks"][B.BLACK]["cards"] = list(snap["black_stack"])
    view["removed"] = [B.BUSINESSES[b] for b in snap["removed"]]
    return view


FULL_VIEWS: dict[str, Callable] = {
    "five-towers": _five_towers,
    "agent-avenue": _agent_avenue,
    "fifth-avenue": _fifth_avenue,
}

# Games with a board drawing in the browser (static/boards-*.js); others show JSON.
DRAWN = tuple(FULL_VIEWS)


def full_view(game: str, state) -> dict:
    adapter = FULL_VIEWS.get(game)
    return adapter(state) if adapter else state.snapshot()


def view_function(game: str, view: str) -> Callable:
    """``state -> dict`` for a view name: ``full``, ``snapshot`` or ``seat-N``."""
    if view == "full":
        return lambda state: full_view(game, state)
    if view == "snapshot":
        return lambda state: state.snapshot()
    if view.startswith("seat-") and view[5:].isdigit():
        seat = int(view[5:])
        return lambda state: state.observation(seat)
    raise ValueError(f"unknown view {view!r} (full, snapshot or seat-N)")
