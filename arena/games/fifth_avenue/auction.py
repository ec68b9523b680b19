"""One Fifth Avenue auction: who bids in which order, cumulative bids, passes, the winner.

The auction knows nothing of the board: the state tells it, per bidder, which colours that
bidder's first card may have. Bids are cumulative: a raise adds cards one at a time
([decision] Card by card: so that the legal actions stay a short list), kept in front of the
bidder, out of
the hand, and is finished ("done") once the bidder's total exceeds the current highest total.
A bid's first card is coloured; later cards are that colour or black. Counts are kept as
``[fours, fives, sixes]``.
"""

from __future__ import annotations

# Skyscrapers built by the highest card of the winning bid.
BUILD_BY_HIGHEST = {4: 3, 5: 2, 6: 1}


def counts_total(counts) -> int:
    return 4 * counts[0] + 5 * counts[1] + 6 * counts[2]


def counts_to_values(counts) -> list[int]:
    return [4] * counts[0] + [5] * counts[1] + [6] * counts[2]


def values_to_counts(values) -> list[int] | None:
    """Card values -> counts, or None if a value is not 4, 5 or 6."""
    counts = [0, 0, 0]
    for value in values:
        if type(value) is not int or value < 4 or value > 6:
            return None
        counts[value - 4] += 1
    return counts


def alea_draw(stack: list[int]) -> list[int]:
    """Alea's bid cards: turned up from the top (the end of ``stack``) until a value repeats,
    or until the stack is empty ([decision] Alea's short stack: then the cards turned are the
    bid; none: Alea is out). The stack is not changed. With three values a repeat comes by the fourth card at the
    latest, so the sum lies between 8 (4,4) and 21 (4,5,6,6)."""
    seen: list[int] = []
    for card in reversed(stack):
        seen.append(card)
        if seen.count(card) == 2:
            break
    return seen


class Bid:
    """The cards one bidder has put in front of them in this auction."""

    __slots__ = ("colour", "coloured", "black")

    def __init__(self, colour: int):
        self.colour = colour
        self.coloured = [0, 0, 0]
        self.black = [0, 0, 0]

    def total(self) -> int:
        return counts_total(self.coloured) + counts_total(self.black)

    def highest(self) -> int:
        for i in (2, 1, 0):
            if self.coloured[i] or self.black[i]:
                return 4 + i
        return 0

    def skyscrapers(self) -> int:
        return BUILD_BY_HIGHEST.get(self.highest(), 0)


class Auction:
    """Bidding state of one auction. ``bidders`` are owner indices in bidding order (the
    mover first, then clockwise; Alea third in a 2-player game)."""

    __slots__ = ("district", "bidders", "allowed", "passed", "bids", "turn", "leader", "high",
                 "had_empty", "park_colour", "alea_acted", "alea_cards")

    def __init__(self, district: int | None, bidders: list[int], allowed: dict[int, tuple[int, ...]],
                 had_empty: bool):
        self.district = district  # None for Central Park
        self.bidders = bidders
        self.allowed = allowed  # owner index -> colours its first card may have
        self.passed = {b: False for b in bidders}
        self.bids: dict[int, Bid] = {}
        self.turn = 0  # index into bidders of who acts next
        self.leader: int | None = None
        self.high = 0
        self.had_empty = had_empty
        self.park_colour: int | None = None
        self.alea_acted = False
        self.alea_cards: list[int] = []

    def to_act(self) -> int:
        return self.bidders[self.turn]

    def card_options(self, who: int, coloured_hand: list, black_hand: list) -> list[tuple[int, int]]:
        """The cards ``who`` may add next, as (colour index or -1 for black, value): a first
        card of an allowed colour; later cards of the bid's colour or black."""
        bid = self.bids.get(who)
        options = []
        if bid is None:
            for colour in self.allowed.get(who, ()):
                hand = coloured_hand[colour]
                options.extend((colour, 4 + i) for i in range(3) if hand[i])
            return options
        hand = coloured_hand[bid.colour]
        options.extend((bid.colour, 4 + i) for i in range(3) if hand[i])
        options.extend((-1, 4 + i) for i in range(3) if black_hand[i])
        return options

    def can_raise(self, who: int, coloured_hand: list, black_hand: list) -> bool:
        """Whether ``who`` has any legal raise (cheaper than listing them)."""
        bid = self.bids.get(who)
        black = counts_total(black_hand)
        if bid is None:
            for colour in self.allowed.get(who, ()):
                hand = coloured_hand[colour]
                if hand[0] or hand[1] or hand[2]:
                    if counts_total(hand) + black > self.high:
                        return True
            return False
        return bid.total() + counts_total(coloured_hand[bid.colour]) + black > self.high

    def next_turn(self) -> None:
        """Advance to the next bidder who has not passed (the caller checks for the end)."""
        n = len(self.bidders)
        for step in range(1, n + 1):
            index = (self.turn + step) % n
            if not self.passed[self.bidders[index]]:
                self.turn = index
                return
        self.turn = -1

    def over(self) -> bool:
        """Ended: everybody passed, or the next bidder to act is the leader (all others passed).
        [decision] Last bidder decides: a last bidder who has not bid yet still decides (bid or
        pass); nobody wins with an empty bid."""
        if self.turn < 0:
            return True
        return self.leader is not None and self.bidders[self.turn] == self.leader
