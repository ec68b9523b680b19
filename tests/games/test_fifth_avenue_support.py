"""Helpers for the Fifth Avenue tests: build a match and put it into an exact situation.

(No tests here; the name only keeps the file among the Fifth Avenue test files.)
"""

from __future__ import annotations

from arena.games import get_game
from arena.games.fifth_avenue import board as B

GAME = get_game("fifth-avenue")


def new_state(players: int = 3, seed: int = 1, board: str = "5-plot"):
    return GAME.new_game(players, seed, {"board": board})


def after_setup(players: int = 3, seed: int = 1, board: str = "5-plot"):
    """A state whose skyscraper set-up was played with the first legal placement each time."""
    state = new_state(players, seed, board)
    while state.decision() == "place_skyscraper":
        state.apply(state.legal_actions()[0])
    return state


def empty_board(players: int = 3, seed: int = 1, board: str = "5-plot"):
    """A state at seat 0's first turn with no business and no skyscraper on the board (the
    set-up skyscrapers simply vanish; supplies are untouched)."""
    state = after_setup(players, seed, board)
    for d in range(len(B.DISTRICTS)):
        for p in range(state.plots):
            state.businesses[d][p] = []
            state.owner[d][p] = -1
            state.towers[d][p] = 0
    state._legal = None
    return state


def plot(state, district: str, colour: str) -> tuple[int, int]:
    d = B.DISTRICT_INDEX[district]
    return d, B.plot_index(d, colour, state.plots)


def put(state, district: str, colour: str, businesses=(), owner=None, towers=0):
    """Overwrite one plot: business names, owner (seat, or Alea's index) and skyscraper count."""
    d, p = plot(state, district, colour)
    state.businesses[d][p] = [B.BUSINESS_INDEX[b] for b in businesses]
    state.owner[d][p] = -1 if owner is None else owner
    state.towers[d][p] = towers
    state._legal = None


def hand(state, seat: int, coloured=None, black=()):
    """Replace a seat's hand: ``coloured`` maps colour -> list of values."""
    state.coloured[seat] = [[0, 0, 0] for _ in B.COLOURS]
    for colour, values in (coloured or {}).items():
        for value in values:
            state.coloured[seat][B.COLOUR_INDEX[colour]][value - 4] += 1
    state.black[seat] = [0, 0, 0]
    for value in black:
        state.black[seat][value - 4] += 1
    state._legal = None


def empty_hands(state):
    for seat in range(state.players):
        hand(state, seat)


def at_turn(state, seat: int):
    """Make it the start of ``seat``'s turn."""
    state.steps = [("option", seat)]
    state.active = seat
    state.auction = None
    state._legal = None
    state._advance()


def at_move(state, seat: int):
    """Make it ``seat``'s closing commissioner move (then the turn ends)."""
    state.steps = [("move", seat), ("end_turn", seat)]
    state.active = seat
    state.auction = None
    state._legal = None
    state._advance()


def commissioner(state, name: str, position: str, markers=()):
    c = ("white", "beige").index(name)
    state.commissioners[c] = position
    state.markers[c] = {B.DISTRICT_INDEX[d] for d in markers}
    state._legal = None


def start_round(state, seat: int, name: str = "white", markers=()):
    """Put commissioner ``name`` in Central Park with ``markers`` and let ``seat`` move it home,
    which starts the auction round."""
    commissioner(state, name, B.CENTRAL_PARK, markers)
    at_move(state, seat)
    state.apply({"type": "move", "commissioner": name, "to": B.CITY_HALL})


def add(colour: str, value: int) -> dict:
    return {"type": "add", "colour": colour, "value": value}


DONE = {"type": "done"}


def bid(state, colour: str, coloured=(), black=()):
    """One whole raise: the coloured cards (first), then the black ones, then done."""
    for value in coloured:
        state.apply(add(colour, value))
    for value in black:
        state.apply(add("black", value))
    state.apply(DONE)


PASS = {"type": "pass"}


def types(state) -> set:
    return {action["type"] for action in state.legal_actions()}
