"""Five Towers (Kasper Lapp, "5 Torens"): the rules as ``docs/games/five-towers.md`` gives them.

This module owns the card game for 2-5 players: the deck, the market, the bidding, building
towers (with the failed-build rollback), clean-up, the single reshuffle, the end and the
scoring. It does no I/O; cards leave it as ``[colour, value]`` pairs.

Where the original rules are silent we decided; each decision is on the docs page and
marked ``[decision] <title>:`` where this module makes it:

* **Shuffled reshuffle**, **When the reshuffle happens**, **Mid-reveal run-out**, **Empty
  reshuffle**: the shared discard pile is shuffled (seeded) when a card must be revealed from
  the empty draw pile on the first pass (so the last market's leftovers are in it), also in
  the middle of a reveal; an empty reshuffle with an empty market ends the game.
* **Rollback bid**, **Bidding continues after a rollback**, **No bid standing**: after a
  failed build the winner bids lower than the failed bid and higher than the others, or
  passes; seats that never had their chance then bid; with no bid standing any amount from 0.
* **Order as given**, **No buildable choice**, **Bid of 0**: cards are placed in the listed
  order (a failing order is a rollback); with nothing buildable the rollback is automatic; a
  winning 0 takes no cards but may tear down.
* **Who keeps the start**: everyone passed, or the start player won with 0.
* **Tallest bonus on top of the doubling**, **Face-down discards**: scoring and what a seat
  sees of the personal discard piles.

Actions: ``{"type": "bid", "amount": n}``, ``{"type": "pass"}`` and
``{"type": "build", "cards": [[colour, value], ...], "teardown": colour | None}`` with the
cards in placement order (the teardown happens first). A build naming cards that are not in
the market, the wrong number of cards, or an impossible teardown is an ``IllegalAction``; a
well-formed build that cannot be placed is the rules' failed build (rollback), not illegal.
"""

from __future__ import annotations

import itertools
import random

from arena.games.base import Game, GameState, IllegalAction, refuse_unknown_keys, shown

# ---------------------------------------------------------------------------- components
COLOURS = ("candy", "scary", "tree", "scrap", "sand")
COLOUR_INDEX = {name: index for index, name in enumerate(COLOURS)}
VALUES = range(16)
# 4-5 players add one more copy of these values in every colour (8 and 9 are never doubled).
EXTRA_VALUES = (0, 2, 5, 7, 10, 12)
MARKET_SIZE = 5
MAX_BID = 5
CAP = 0  # a 0 is the tower top: nothing goes on it and it can never be torn down
WILD_BASE = 8  # any card may be placed on an 8
WILD_CARD = 9  # a 9 may be placed on any card except a 0
EMPTY = -1  # the "top" of a colour without a tower

# The actions, with their keys. Bots are untrusted: an action with another key, or a value of
# the wrong JSON type (2.0 or true for an integer), is refused with a reason, never guessed.
ACTION_FORMS = {
    "bid": (("type", "amount"), '{"type": "bid", "amount": n}'),
    "pass": (("type",), '{"type": "pass"}'),
    "build": (("type", "cards", "teardown"),
              '{"type": "build", "cards": [[colour, value], ...], "teardown": null or colour}'),
}

# Phases (the "phase" of an observation).
BID = "bid"  # the normal bidding, the start player opens
BUILD = "build"  # the winner chooses cards, a teardown and the placement order
REBID = "rebid"  # after a failed build: the winner bids lower or passes
OVER = "over"

# A card is one int inside the engine: colour * 16 + value (cheap to hash, sort and count).


def card_code(colour: int, value: int) -> int:
    return colour * 16 + value


def card_json(code: int) -> list:
    return [COLOURS[code >> 4], code & 15]


def deck_for(players: int) -> list[int]:
    """80 cards for 2-3 players; 110 (the extra 0, 2, 5, 7, 10, 12 per colour) for 4-5."""
    deck = [card_code(c, v) for c in range(len(COLOURS)) for v in VALUES]
    if players >= 4:
        deck += [card_code(c, v) for c in range(len(COLOURS)) for v in EXTRA_VALUES]
    return deck


# ---------------------------------------------------------------------------- placement
def can_place(top: int, value: int) -> bool:
    """May a card of ``value`` go on a tower whose top is ``top`` (``EMPTY``: no tower yet)?"""
    if top == EMPTY:
        return True  # any value starts a tower, 0 and 9 included
    if top == CAP:
        return False
    return top == WILD_BASE or value == WILD_CARD or value < top


_MOST: dict[tuple[int, tuple[int, ...]], int] = {}


def most_fitting(top: int, values: tuple[int, ...]) -> int:
    """The largest number of ``values`` (sorted) that can be placed on ``top``, in some order.

    Every smaller number fits too (drop the last card placed), so this one number says which
    counts of a colour's market cards can be built. Memoised across states; the recursion
    shares its sub-results between the many market sets that contain them.
    """
    key = (top, values)
    most = _MOST.get(key)
    if most is None:
        most = 0
        for index, value in enumerate(values):
            if (index == 0 or values[index - 1] != value) and can_place(top, value):
                most = max(most, 1 + most_fitting(value, values[:index] + values[index + 1:]))
                if most == len(values):
                    break
        _MOST[key] = most
    return most


_FITTING: dict[tuple[int, tuple[int, ...], int], tuple[tuple[int, ...], ...]] = {}


def fitting_orders(top: int, values: tuple[int, ...], n: int) -> tuple[tuple[int, ...], ...]:
    """Every distinct placement order, on ``top``, of ``n`` of ``values`` (sorted).

    Grown card by card from the cards that fit, so impossible orders are never built.
    A pure function of its arguments, memoised across states: the build enumeration asks
    the same few questions over and over.
    """
    key = (top, values, n)
    orders = _FITTING.get(key)
    if orders is None:
        if n == 0:
            orders = ((),)
        else:
            found = []
            for index, value in enumerate(values):
                if (index == 0 or values[index - 1] != value) and can_place(top, value):
                    rest = values[:index] + values[index + 1:]
                    found.extend((value,) + order for order in fitting_orders(value, rest, n - 1))
            orders = tuple(found)
        _FITTING[key] = orders
    return orders


def placement_orders(top: int, values: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every distinct order in which all of ``values`` (sorted) can be placed on ``top``."""
    return fitting_orders(top, values, len(values))


def score_of(towers: list[list[int]], torn_down: int) -> int:
    """Tower points (doubled under a 0), the tallest tower bonus, minus the teardown penalty.

    [decision] Tallest bonus on top of the doubling: a capped tallest tower scores 3 a card.
    Equally tall towers give the bonus once."""
    points = tallest = 0
    for tower in towers:
        height = len(tower)
        if height:
            points += 2 * height if tower[-1] == CAP else height
            if height > tallest:
                tallest = height
    return points + tallest - torn_down * (torn_down + 1) // 2


# ---------------------------------------------------------------------------- the game
class FiveTowers(Game):
    name = "five-towers"
    title = "Five Towers"
    description = "Bid for market cards and build five strictly descending towers (2-5 players)."
    player_counts = (2, 3, 4, 5)
    options = ()

    def create_state(self, players: int, seed: int, options: dict) -> "FiveTowersState":
        return FiveTowersState(players, seed)


class FiveTowersState(GameState):
    """One match. The draw pile's top is the end of ``self.draw``."""

    def __init__(self, players: int, seed: int):
        self.players = players
        self.seed = seed
        self.rng = random.Random(seed)
        self.deck_size = len(deck_for(players))
        self.draw = deck_for(players)
        self.rng.shuffle(self.draw)
        self.discard: list[int] = []  # the shared discard pile, oldest first
        self.market: list[int] = []
        self.towers = [[[] for _ in COLOURS] for _ in range(players)]  # bottom -> top values
        self.torn = [[] for _ in range(players)]  # personal discard piles (face down)
        self.pass_number = 1  # 2 once the discard pile has been reshuffled
        self.last_round = False  # the draw pile ran out for the second time this round
        self.round = 0
        self.start_player = 0  # seat 0 is the first start player
        self.phase = BID
        self.current: int | None = 0
        self.over = False
        self.new_round()

    # ------------------------------------------------------------------ 1. market
    def new_round(self) -> None:
        self.reveal_market()
        if not self.market:
            # [decision] Empty reshuffle: an empty market after the reshuffle ends the game
            # at once; there is no round to play.
            self.end_game()
            return
        self.round += 1
        n = self.players
        self.bids: list[int | None] = [None] * n
        self.high: tuple[int | None, int | None] = (None, None)  # (amount, seat) of the highest bid
        self.passed = [False] * n
        self.to_bid = [(self.start_player + i) % n for i in range(1, n)]
        self.history: list[dict] = []
        self.opening = True  # the start player must bid; it may not pass
        self.winner: int | None = None
        self.take = 0
        self.failed_bid: int | None = None
        self.phase = BID
        self.current = self.start_player
        self._builds = None
        self._outlines: dict[int, list] = {}
        self._market_colours: dict[int, tuple[int, ...]] | None = None

    def reveal_market(self) -> None:
        market = self.market
        while len(market) < MARKET_SIZE:
            if not self.draw:
                # [decision] When the reshuffle happens: when a card must be revealed from the
                # empty pile, so the first pass's last leftovers are shuffled in too.
                # [decision] Mid-reveal run-out: the market is completed from the new pile.
                if self.pass_number == 1:
                    self.reshuffle()
                if not self.draw:
                    break
            market.append(self.draw.pop())
        if self.pass_number == 2 and not self.draw:
            self.last_round = True

    def reshuffle(self) -> None:
        """The draw pile ran out the first time: the shuffled discard pile replaces it."""
        # [decision] Shuffled reshuffle: the original rules only say the discard pile is played
        # through again; it is shuffled with the match's seeded RNG.
        self.draw = self.discard
        self.discard = []
        self.rng.shuffle(self.draw)
        self.pass_number = 2

    # ------------------------------------------------------------------ 2. bidding
    def max_bid(self) -> int:
        return min(MAX_BID, len(self.market))

    def high_bid(self) -> tuple[int | None, int | None]:
        """(amount, seat) of the highest standing bid, or (None, None)."""
        return self.high

    def update_high_bid(self) -> None:
        best = best_seat = None
        for seat, amount in enumerate(self.bids):
            if amount is not None and (best is None or amount > best):
                best, best_seat = amount, seat
        self.high = (best, best_seat)

    def bid_range(self) -> range:
        """The amounts the current seat may bid now."""
        if self.phase == REBID:
            # [decision] Rollback bid: lower than the failed bid, higher than every other
            # standing bid (or pass).
            others = max((a for s, a in enumerate(self.bids) if a is not None and s != self.current), default=-1)
            return range(others + 1, self.failed_bid)
        high = self.high[0]
        # [decision] No bid standing: (only after a start player's rollback pass) bids start at 0.
        return range(0 if high is None else high + 1, min(MAX_BID, len(self.market)) + 1)

    def bid(self, amount: int) -> None:
        seat = self.current
        self.bids[seat] = amount
        self.high = (amount, seat)  # a legal bid is always above every other standing bid
        self.history.append({"seat": seat, "type": "bid", "amount": amount})
        self.opening = False
        self.continue_bidding()

    def pass_turn(self) -> None:
        seat = self.current
        self.bids[seat] = None
        if self.high[1] == seat:  # only a rolled-back winner passes while holding the high bid
            self.update_high_bid()
        self.passed[seat] = True
        self.history.append({"seat": seat, "type": "pass"})
        self.continue_bidding()

    def continue_bidding(self) -> None:
        """Next seat in clockwise order; stop at the maximum bid or when all had their chance."""
        high = self.high[0]
        if (high is None or high < min(MAX_BID, len(self.market))) and self.to_bid:
            self.phase = BID
            self.current = self.to_bid.pop(0)
        else:
            self.end_bidding()

    def end_bidding(self) -> None:
        high, seat = self.high_bid()
        if seat is None:  # everyone passed (only after a rollback)
            self.clean_up(None, 0)
            return
        # [decision] Bid of 0: a winning 0 takes no cards but still builds (a teardown only).
        self.winner, self.take = seat, high
        self.phase = BUILD
        self.current = seat
        self._builds = None
        if not self.any_build():
            # [decision] No buildable choice: there is nothing to choose, so the rollback is
            # automatic (the history says so).
            self.roll_back(automatic=True)

    # ------------------------------------------------------------------ 3. building
    def tops(self, seat: int) -> list[int]:
        return [tower[-1] if tower else EMPTY for tower in self.towers[seat]]

    def teardown_options(self, seat: int) -> list[int]:
        """Colours whose top card may be torn down: a tower with a top that is not a 0."""
        return [c for c, tower in enumerate(self.towers[seat]) if tower and tower[-1] != CAP]

    def selections(self) -> list[tuple[int, ...]]:
        """Every distinct multiset of ``take`` market cards (identical cards are one choice)."""
        return sorted(set(tuple(sorted(choice)) for choice in itertools.combinations(self.market, self.take)))

    def build_plans(self, selection: tuple[int, ...], seat: int):
        """For one selection: [(teardown colour or None, [(colour, orders), ...])] that can be built."""
        groups: dict[int, list[int]] = {}
        for code in selection:
            groups.setdefault(code >> 4, []).append(code & 15)
        towers = self.towers[seat]
        tops = [tower[-1] if tower else EMPTY for tower in towers]
        plain = []
        for colour, values in groups.items():
            orders = placement_orders(tops[colour], tuple(values))
            if not orders:
                plain = None
                break
            plain.append((colour, orders))
        plans = []
        for teardown in [None] + self.teardown_options(seat):
            if teardown is None or teardown not in groups:
                if plain is not None:
                    plans.append((teardown, plain))
                continue
            tower = towers[teardown]
            lowered = tower[-2] if len(tower) > 1 else EMPTY
            parts = []
            for colour, values in groups.items():
                orders = placement_orders(lowered if colour == teardown else tops[colour], tuple(values))
                if not orders:
                    break
                parts.append((colour, orders))
            else:
                plans.append((teardown, parts))
        return plans

    def any_build(self) -> bool:
        """Can the winner build some choice of ``take`` market cards (teardown allowed)?"""
        return any(total >= self.take for _, _, _, total in self.outline(self.winner))

    def market_colours(self) -> dict[int, tuple[int, ...]]:
        """Colour -> its market values, sorted (the market does not change during bidding)."""
        if self._market_colours is None:
            values = self._market_colours = {}
            for code in sorted(self.market):
                values[code >> 4] = values.get(code >> 4, ()) + (code & 15,)
        return self._market_colours

    def outline(self, seat: int) -> list[tuple[int | None, list[int], list[int], int]]:
        """What ``seat`` could build this round, per teardown, without listing selections.

        One entry per teardown that matters: (teardown colour or None, the top of each market
        colour's tower, how many of each market colour's cards fit at most, their sum).
        Colours are independent and every smaller number fits too, so any take up to the sum
        can be built: that answers the frequent "nothing fits" question cheaply. A teardown
        of a colour that is not in the market changes nothing here and shares the first
        entry. Towers and market do not change during the bidding, so a round computes this
        at most once per seat.
        """
        outline = self._outlines.get(seat)
        if outline is None:
            towers = self.towers[seat]
            items = self.market_colours().items()
            tops = []
            plain = []
            for colour, values in items:
                tower = towers[colour]
                top = tower[-1] if tower else EMPTY
                tops.append(top)
                plain.append(most_fitting(top, values))
            total = sum(plain)
            outline = [(None, tops, plain, total)]
            for index, (colour, values) in enumerate(items):
                tower = towers[colour]
                if tower and tower[-1] != CAP:
                    lowered = tower[-2] if len(tower) > 1 else EMPTY
                    most = list(plain)
                    most[index] = most_fitting(lowered, values)
                    lowered_tops = list(tops)
                    lowered_tops[index] = lowered
                    outline.append((colour, lowered_tops, most, total - plain[index] + most[index]))
            self._outlines[seat] = outline
        return outline

    @staticmethod
    def build_action(teardown: int | None, chosen: list[tuple[int, tuple[int, ...]]]) -> dict:
        """The canonical build action: colours in ``COLOURS`` order, each in placement order."""
        cards = []
        for colour, order in sorted(chosen):
            name = COLOURS[colour]
            cards.extend([name, value] for value in order)
        return {"type": "build", "cards": cards, "teardown": None if teardown is None else COLOURS[teardown]}

    def legal_builds(self) -> list[dict]:
        if self._builds is None:
            actions = []
            for selection in self.selections():
                for teardown, parts in self.build_plans(selection, self.winner):
                    colours = [colour for colour, _ in parts]
                    for orders in itertools.product(*(orders for _, orders in parts)):
                        actions.append(self.build_action(teardown, list(zip(colours, orders))))
            self._builds = actions
        return self._builds

    def random_build(self, rng: random.Random) -> dict:
        """A buildable build, drawn without listing them all (the fast path of random play).

        Draws a teardown among those that leave ``take`` cards buildable, then colour by
        colour a number of cards that keeps the total reachable, then cards and an order that
        fit. Every step only offers what can be completed, so it never misses; the result
        is the canonical form of a listed build (not drawn uniformly from the list).
        """
        take = self.take
        outline = self.outline(self.winner)
        items = list(self.market_colours().items())
        options = [(colour, tops, most) for colour, tops, most, total in outline[1:] if total >= take]
        _, tops, plain, total = outline[0]
        if total >= take:
            in_market = self._market_colours
            options += [(colour, tops, plain) for colour in [None] + self.teardown_options(self.winner)
                        if colour not in in_market]
        teardown, tops, most = options[int(rng.random() * len(options))]
        chosen = []
        left = take
        rest = sum(most)
        for index, (colour, values) in enumerate(items):
            rest -= most[index]
            low = max(0, left - rest)  # what the later colours cannot take must be taken here
            n = low + int(rng.random() * (min(left, most[index]) - low + 1))
            if n:
                orders = fitting_orders(tops[index], values, n)
                chosen.append((colour, orders[int(rng.random() * len(orders))]))
                left -= n
        return self.build_action(teardown, chosen)

    def build(self, cards: list[int], teardown: int | None) -> None:
        """Tear down, then place ``cards`` in order; an impossible placement is rolled back."""
        # [decision] Order as given: the listed order is the placement order; if it fails, the
        # build fails, even if another order of the same cards would have worked.
        seat = self.winner
        tops = self.tops(seat)
        towers = self.towers[seat]
        if teardown is not None:
            tower = towers[teardown]
            tops[teardown] = tower[-2] if len(tower) > 1 else EMPTY
        for code in cards:
            colour, value = code >> 4, code & 15
            if not can_place(tops[colour], value):
                self.roll_back(automatic=False)
                return
            tops[colour] = value
        if teardown is not None:
            self.torn[seat].append(card_code(teardown, towers[teardown].pop()))
        for code in cards:
            towers[code >> 4].append(code & 15)
            self.market.remove(code)
        self.history.append({"seat": seat, "type": "build", "cards": [card_json(c) for c in cards],
                             "teardown": None if teardown is None else COLOURS[teardown]})
        self.clean_up(seat, self.take)

    # ------------------------------------------------------------------ 4. failed build
    def roll_back(self, automatic: bool) -> None:
        """Nothing was changed (builds are checked before they touch the state); re-bid or pass.

        ``to_bid`` is kept: [decision] Bidding continues after a rollback: seats that never had
        their chance (bidding stopped at the maximum) bid after the winner's new bid or pass.
        """
        self.history.append({"seat": self.winner, "type": "rollback", "bid": self.take, "automatic": automatic})
        self.failed_bid = self.take
        self.phase = REBID
        self.current = self.winner
        self._builds = None

    # ------------------------------------------------------------------ 5. clean-up
    def clean_up(self, winner: int | None, winning_bid: int) -> None:
        self.discard.extend(self.market)
        self.market = []
        # The exception: nobody won, or the start player won with its bid of 0 (all others passed).
        # [decision] Who keeps the start: only these two; another seat's winning 0 passes it on.
        keeps_start = winner is None or (winner == self.start_player and winning_bid == 0)
        if not keeps_start:
            self.start_player = (self.start_player + 1) % self.players
        if self.last_round:
            self.end_game()
        else:
            self.new_round()

    def end_game(self) -> None:
        self.over = True
        self.phase = OVER
        self.current = None

    # ------------------------------------------------------------------ interface
    def current_seat(self) -> int | None:
        return self.current

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> list[float]:
        return [score_of(self.towers[s], len(self.torn[s])) for s in range(self.players)]

    def legal_actions(self) -> list:
        if self.over:
            return []
        if self.phase == BUILD:
            return list(self.legal_builds())
        actions = [{"type": "bid", "amount": amount} for amount in self.bid_range()]
        if not self.opening:
            actions.append({"type": "pass"})
        return actions

    def random_action(self, rng: random.Random) -> dict:
        if self.phase == BUILD:
            return self.random_build(rng)
        amounts = self.bid_range()
        choices = len(amounts) + (0 if self.opening else 1)
        pick = int(rng.random() * choices)
        if pick == len(amounts):
            return {"type": "pass"}
        return {"type": "bid", "amount": amounts[pick]}

    def apply(self, action) -> None:
        """Check the action completely, then carry it out; a refusal changes nothing."""
        if self.over:
            raise IllegalAction("the game is over; no more actions are accepted")
        if not isinstance(action, dict):
            raise IllegalAction(f'an action must be an object with a "type", not {shown(action)}')
        kind = action.get("type")
        if self.phase == BUILD:
            if kind != "build":
                raise IllegalAction(f'you won the bidding with {self.take}: send a "build" action, not {shown(kind)}')
            self.check_keys(action, kind)
            self.build(*self.parse_build(action))
            return
        if kind == "bid":
            self.check_keys(action, kind)
            amount = action.get("amount")
            allowed = self.bid_range()
            if isinstance(amount, float):
                whole = f" (write {amount:.0f})" if amount.is_integer() else ""
                raise IllegalAction(f"a bid amount is a JSON integer{whole}, not {shown(amount)}")
            if not isinstance(amount, int) or isinstance(amount, bool) or amount not in allowed:
                raise IllegalAction(f"bid amount {shown(amount)} is not allowed now; {self.describe_bids(allowed)}")
            self.bid(amount)
        elif kind == "pass":
            self.check_keys(action, kind)
            if self.opening:
                raise IllegalAction("the start player must open the bidding with a bid from 0 to "
                                    f"{self.max_bid()}; it may not pass")
            self.pass_turn()
        else:
            raise IllegalAction(f"action type {shown(kind)} is not allowed in the {self.phase} phase; "
                                'send {"type": "bid", "amount": n} or {"type": "pass"}')

    @staticmethod
    def check_keys(action: dict, kind: str) -> None:
        keys, form = ACTION_FORMS[kind]
        refuse_unknown_keys(action, keys, form)

    def describe_bids(self, allowed: range) -> str:
        if not allowed:
            return "no bid is possible, you must pass"
        span = f"{allowed.start}" if len(allowed) == 1 else f"{allowed.start} to {allowed.stop - 1}"
        if self.phase == REBID:
            return f"after your failed build of {self.failed_bid} you may bid {span} or pass"
        return f"you may bid {span}" + ("" if self.opening else " or pass")

    def parse_build(self, action: dict) -> tuple[list[int], int | None]:
        """Check a build's form, cards and teardown; placement is checked by ``build``."""
        cards = action.get("cards")
        if not isinstance(cards, list):
            raise IllegalAction('a build needs "cards": a list of [colour, value] pairs in placement order, '
                                f"not {shown(cards)}")
        codes = []
        for card in cards:
            if (not isinstance(card, list) or len(card) != 2 or not isinstance(card[0], str)
                    or card[0] not in COLOUR_INDEX
                    or not isinstance(card[1], int) or isinstance(card[1], bool) or not 0 <= card[1] <= 15):
                raise IllegalAction(f"{shown(card)} is not a card; a card is [colour, value] with colour one of "
                                    f"{', '.join(COLOURS)} and value a JSON integer from 0 to 15")
            codes.append(card_code(COLOUR_INDEX[card[0]], card[1]))
        if len(codes) != self.take:
            raise IllegalAction(f"you won with a bid of {self.take}, so take exactly {self.take} market "
                                f"cards; you listed {len(codes)}")
        remaining = list(self.market)
        for code in codes:
            if code in remaining:
                remaining.remove(code)
                continue
            market = ", ".join(f"[{COLOURS[c >> 4]}, {c & 15}]" for c in self.market)
            raise IllegalAction(f"{card_json(code)} is not in the market (or listed more often than it is "
                                f"there); the market is {market}")
        teardown = action.get("teardown")  # a missing key means no teardown
        if teardown is None:
            return codes, None
        if not isinstance(teardown, str) or teardown not in COLOUR_INDEX:
            raise IllegalAction(f'"teardown" must be null or one of {", ".join(COLOURS)}, not {shown(teardown)}')
        colour = COLOUR_INDEX[teardown]
        tower = self.towers[self.winner][colour]
        if not tower:
            raise IllegalAction(f"you have no {teardown} tower to tear down; use null for no teardown")
        if tower[-1] == CAP:
            raise IllegalAction(f"the top of your {teardown} tower is a 0, which can never be torn down")
        return codes, colour

    # ------------------------------------------------------------------ what a seat sees
    def observation(self, seat: int) -> dict:
        high, holder = self.high_bid()
        return {
            "game": "five-towers",
            "seat": seat,
            "players": self.players,
            "current_seat": self.current,
            "phase": self.phase,
            "round": self.round,
            "pass": self.pass_number,
            "last_round": self.last_round,
            "start_player": self.start_player,
            "market": [card_json(c) for c in self.market],
            "max_bid": self.max_bid(),
            "bids": list(self.bids),
            "passed": list(self.passed),
            "to_bid": list(self.to_bid),
            "high_bid": high,
            "high_bidder": holder,
            "take": self.take if self.phase == BUILD else None,
            "failed_bid": self.failed_bid if self.phase == REBID else None,
            "history": [dict(event) for event in self.history],
            "towers": [{COLOURS[c]: list(tower) for c, tower in enumerate(towers)} for towers in self.towers],
            "torn_down": [len(pile) for pile in self.torn],  # [decision] Face-down discards: counts
            "discard_pile": [card_json(c) for c in self.discard],
            "draw_pile_size": len(self.draw),
            "deck_size": self.deck_size,
            "scores": self.scores(),
        }

    def snapshot(self) -> dict:
        """Everything, the draw pile order and the torn-down cards included.

        The RNG is only used for the set-up shuffle and the one reshuffle, so ``seed`` and
        ``pass`` determine its state.
        """
        state = self.observation(self.current if self.current is not None else 0)
        del state["seat"]
        state.update({
            "seed": self.seed,
            "draw_pile": [card_json(c) for c in self.draw],
            "torn_down_cards": [[card_json(c) for c in pile] for pile in self.torn],
            "winner": self.winner,
            "opening": self.opening,
            "over": self.over,
        })
        return state
