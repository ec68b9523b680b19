"""Helpers for the Agent Avenue tests: build a match and put it into an exact situation.

(No tests here; the name only keeps the file among the Agent Avenue test files.)
"""

from __future__ import annotations

from collections import Counter

from arena.games import get_game
from arena.games.agent_avenue.cards import AGENT_DECK, AGENTS, BLACK_MARKET

GAME = get_game("agent-avenue")


def new_state(players: int = 2, advanced: bool = False, seed: int = 1):
    return GAME.new_game(players, seed, {"advanced": advanced})


def arrange(state, *, hands=None, deck=None, totals=None, areas=None, offer=None, bm_pile=None,
            owned=None, discards_left=None):
    """Overwrite parts of a fresh state. ``deck`` and ``bm_pile`` are listed top card first;
    ``areas`` gives each side's agents as {name: count}."""
    if hands is not None:
        state.hands = [list(hand) for hand in hands]
    if deck is not None:
        state.deck = list(reversed(deck))
    if totals is not None:
        state.totals = list(totals)
    if areas is not None:
        state.areas = [dict(dict.fromkeys(AGENTS, 0), **counts) for counts in areas]
    if offer is not None:
        state.bm_offer = list(offer)
    if bm_pile is not None:
        state.bm_pile = list(reversed(bm_pile))
    if owned is not None:
        state.owned = [list(cards) for cards in owned]
    if discards_left is not None:
        state.discards_left = list(discards_left)
    return state


def play(state, up: str, down: str) -> None:
    state.apply({"type": "play", "face_up": up, "face_down": down})


def choose(state, take: str) -> None:
    state.apply({"type": "choose", "take": take})


def take(state, card: str) -> None:
    state.apply({"type": "take", "card": card})


def turn(state, up: str, down: str, taken: str) -> None:
    """A 2-player turn: the active player plays, the opponent takes ``taken``."""
    play(state, up, down)
    choose(state, taken)


def agent_cards(state) -> Counter:
    """Every agent card wherever it is (draw pile, hands, discards, play areas, on the table)."""
    cards = Counter(state.deck)
    for hand in state.hands:
        cards.update(hand)
    for discarded in state.discarded:
        cards.update(discarded)
    for area in state.areas:
        cards.update({name: count for name, count in area.items() if count})
    cards.update(card for card in (state.face_up, state.face_down) if card is not None)
    return cards


def black_market_cards(state) -> Counter:
    cards = Counter(state.bm_offer) + Counter(state.bm_pile) + Counter(state.bm_discard)
    for owned in state.owned:
        cards.update(owned)
    return cards


FULL_DECK = Counter(AGENT_DECK)
FULL_BLACK_MARKET = Counter(BLACK_MARKET)
