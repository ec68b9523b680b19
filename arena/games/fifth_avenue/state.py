"""The Fifth Avenue rules: set-up, the four turn options, commissioner moves, auction rounds,
building stops, the end and final scoring.

A turn is a queue of steps (``self.steps``; the first is the current one). Steps that need a
choice wait for the deciding seat's action; steps with no choice (Alea's bid, a forced pass, a
forced building stop, taking the only possible pair of cards) run automatically in
``_advance``. Owner indices are seats; in a 2-player game the virtual bidder Alea is owner
index 2 and never a seat.
"""

from __future__ import annotations

import random

from arena.games.base import GameState, IllegalAction, ranks_from_scores, shown
from arena.games.fifth_avenue import board as B
from arena.games.fifth_avenue import scoring
from arena.games.fifth_avenue.auction import Auction, Bid, alea_draw, values_to_counts
from arena.games.fifth_avenue.observation import auction_summary, observe, snapshot

COMMISSIONERS = ("white", "beige")
# [decision] Turn limit: a safety stop, the game also ends (scored normally) after this many
# turns. Normal games take 10-60 turns; this only stops bots that never place a business
# from stalling a match forever.
MAX_TURNS = 400


class FifthAvenueState(GameState):
    """One Fifth Avenue match in progress."""

    def __init__(self, players: int, seed: int, options: dict):
        self.players = players
        self.board = options.get("board", "5-plot")
        self.plots = B.plot_count(self.board)
        self.neighbours = B.ring_neighbours(self.plots)
        self.rng = random.Random(seed)
        self.alea = 2 if players == 2 else None
        self.owners = players + (1 if self.alea is not None else 0)
        # The board, per district index: businesses per plot, owner per plot, skyscrapers per plot.
        self.businesses = [[[] for _ in range(self.plots)] for _ in B.DISTRICTS]
        self.owner = [[-1] * self.plots for _ in B.DISTRICTS]
        self.towers = [[0] * self.plots for _ in B.DISTRICTS]
        self.closed = [False] * len(B.DISTRICTS)
        self.commissioners = [B.CITY_HALL, B.CITY_HALL]
        self.markers: list[set[int]] = [set(), set()]
        self.supply_row: list[list[int]] = []
        self.below_park: list[int] = []
        self.removed: list[int] = []  # the unseen businesses: hidden from everybody
        self.park = [0] * self.owners
        self.scores_ = [0] * players
        self.own_supply = [B.SKYSCRAPERS_OWN] * players
        self.general = [B.SKYSCRAPERS_GENERAL] * players
        if self.alea is not None:
            self.own_supply.append(B.ALEA_SKYSCRAPERS)
            self.general.append(0)
        self.gone = [0] * self.owners  # skyscrapers that left the game in building stops
        self.stopped_businesses: list[int] = []  # businesses that left the game in building stops
        self.coloured = [[[0, 0, 0] for _ in B.COLOURS] for _ in range(players)]
        self.black = [[0, 0, 0] for _ in range(players)]
        self.stacks: list[list[int]] = []  # per colour, the top card is the last element
        self.black_stack: list[int] = []  # face down; the top card is the last element
        self.businesses_placed = 0
        self.stops = 0
        self.turn_number = 0
        self.active = 0
        self.option: str | None = None
        self.steps: list[tuple] = []
        self.auction: Auction | None = None
        # The public record of every finished auction, and per seat how many had finished at
        # its latest decision: each seat is shown the ones that ended since (see observation).
        self.auction_log: list[dict] = []
        self.decided_at = [0] * players
        self.over = False
        self.end_reason: str | None = None
        self.revealed: list[int] | None = None
        self._legal: list | None = None
        self.set_up()
        self._advance()

    # ------------------------------------------------------------------ set-up

    def set_up(self) -> None:
        rng = self.rng
        tiles = [b for b in range(len(B.BUSINESSES)) for _ in range(B.BUSINESS_COUNT)]
        rng.shuffle(tiles)
        self.place_starting_businesses(tiles[:7])
        row = tiles[7:27]
        start = 0
        for size in B.SET_SIZES:
            self.supply_row.append(row[start:start + size])
            start += size
        self.removed = tiles[27:]
        for colour in range(len(B.COLOURS)):
            stack = list(B.CARD_VALUES_COLOURED)
            rng.shuffle(stack)
            self.stacks.append(stack)
        self.black_stack = list(B.CARD_VALUES_BLACK)
        rng.shuffle(self.black_stack)
        for seat in range(self.players):
            for colour in range(len(B.COLOURS)):
                self.coloured[seat][colour][self.stacks[colour].pop() - 4] += 1
            for _ in range(B.START_BLACK):
                self.black[seat][self.black_stack.pop() - 4] += 1
        # Snake order: seat 0, counter-clockwise to seat 1, seat 1 again, clockwise to seat 0.
        # [decision] Seat 0 starts: seat 0 then takes the first turn.
        # [decision] Alea's set-up: Alea places no set-up skyscrapers.
        n = self.players
        order = [0] + list(range(n - 1, 0, -1)) + list(range(1, n)) + [0]
        self.steps = [("place_start", seat) for seat in order] + [("option", 0)]

    def place_starting_businesses(self, tiles: list[int]) -> None:
        """One business per district: on the plain plot (6-plot board), else on a random plot
        such that every colour is used at least once and none more than twice."""
        if self.plots == 6:
            for d, tile in enumerate(tiles):
                self.businesses[d][B.PLAIN_PLOT].append(tile)
            return
        colours = list(range(len(B.COLOURS))) + self.rng.sample(range(len(B.COLOURS)), 2)
        self.rng.shuffle(colours)
        for d, (tile, colour) in enumerate(zip(tiles, colours)):
            self.businesses[d][B.colour_plot(d, colour)].append(tile)

    # ------------------------------------------------------------------ interface

    def current_seat(self) -> int | None:
        if self.over:
            return None
        step = self.steps[0]
        if step[0] == "auction":
            auction = self.auction
            if auction.district is None and auction.park_colour is None:
                return step[2]
            return auction.to_act()
        return step[1]

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> list[float]:
        return list(self.scores_)

    def cards_in_hand(self, seat: int) -> int:
        return sum(map(sum, self.coloured[seat])) + sum(self.black[seat])

    def ranks(self) -> list[int]:
        """Most points; tie: most building cards in hand; still tied: shared rank."""
        return ranks_from_scores(self.scores_, [self.cards_in_hand(s) for s in range(self.players)])

    def decision(self) -> str | None:
        """The kind of decision the current seat faces."""
        if self.over:
            return None
        kind = self.steps[0][0]
        if kind == "auction":
            auction = self.auction
            if auction.district is None and auction.park_colour is None:
                return "park_colour"
            return "bid"
        return {"place_start": "place_skyscraper", "option": "option", "cards": "take_cards",
                "move": "move", "stop_choice": "build_or_stop"}[kind]

    def observation(self, seat: int) -> dict:
        return observe(self, seat)

    def snapshot(self) -> dict:
        return snapshot(self)

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list:
        if self._legal is None:
            self._legal = self._list_actions()
        return self._legal

    def _list_actions(self) -> list:
        if self.over:
            return []
        kind = self.steps[0][0]
        if kind == "place_start":
            return [{"type": "place_skyscraper", "district": B.DISTRICTS[d], "plot": B.plot_name(d, p)}
                    for d, p in self.start_plots(self.steps[0][1])]
        if kind == "option":
            return self.option_actions()
        if kind == "cards":
            return [{"type": "take_cards", "colours": [B.COLOURS[a], B.COLOURS[b]]} for a, b in self.card_pairs()]
        if kind == "move":
            return [{"type": "move", "commissioner": COMMISSIONERS[c], "to": target}
                    for c, target in self.commissioner_moves()]
        if kind == "stop_choice":
            return [{"type": "build"}, {"type": "building_stop"}]
        auction = self.auction
        if auction.district is None and auction.park_colour is None:
            return [{"type": "park_colour", "colour": colour} for colour in B.COLOURS]
        who = auction.to_act()
        actions = [{"type": "pass"}]
        for colour, value in auction.card_options(who, self.coloured[who], self.black[who]):
            actions.append({"type": "add", "colour": B.COLOURS[colour] if colour >= 0 else B.BLACK,
                            "value": value})
        bid = auction.bids.get(who)
        if bid is not None and bid.total() > auction.high:
            actions.append({"type": "done"})
        return actions

    def start_plots(self, seat: int) -> list[tuple[int, int]]:
        """Empty coloured plots in districts where ``seat`` owns no plot yet.

        [decision] Starting plots: never a plot holding a business.
        [decision] Plain plot: never the 6-plot board's plain plot (it takes businesses only,
        is never a bid colour and never counts as an empty plot)."""
        result = []
        for d in range(len(B.DISTRICTS)):
            owner = self.owner[d]
            if seat in owner:
                continue
            businesses = self.businesses[d]
            for p in range(5):
                if owner[p] < 0 and not businesses[p]:
                    result.append((d, p))
        return result

    def option_actions(self) -> list:
        actions = [{"type": "take_skyscrapers"}, {"type": "draw_black"}]
        row = self.current_set()
        if row is not None:
            plots = self.business_plots()
            for kind in sorted(set(row)):
                name = B.BUSINESSES[kind]
                for d, p in plots:
                    actions.append({"type": "place_business", "business": name,
                                    "district": B.DISTRICTS[d], "plot": B.plot_name(d, p)})
        for d in self.scorable_districts():
            actions.append({"type": "score_district", "district": B.DISTRICTS[d]})
        return actions

    def current_set(self) -> list[int] | None:
        """The leftmost non-empty set of the supply row."""
        for row in self.supply_row:
            if row:
                return row
        return None

    def business_plots(self) -> list[tuple[int, int]]:
        """Plots of open districts that are empty or hold exactly one business.

        [decision] Stopped district: it receives no more businesses (nor option D or auctions)."""
        result = []
        for d in range(len(B.DISTRICTS)):
            if self.closed[d]:
                continue
            owner = self.owner[d]
            for p, tiles in enumerate(self.businesses[d]):
                if owner[p] < 0 and len(tiles) < 2:
                    result.append((d, p))
        return result

    def scorable_districts(self) -> list[int]:
        """Open districts holding a commissioner (City Hall and Central Park never count;
        nor a stopped district, see Stopped district)."""
        result = []
        for position in self.commissioners:
            d = B.DISTRICT_INDEX.get(position)
            if d is not None and not self.closed[d] and d not in result:
                result.append(d)
        return sorted(result)

    def card_pairs(self) -> list[tuple[int, ...]]:
        """The colour pairs that may be taken: two different non-empty stacks; with fewer than
        two non-empty stacks, whatever exists ([decision] Fewer than two stacks: one card or
        none, without a decision)."""
        available = [c for c in range(len(B.COLOURS)) if self.stacks[c]]
        if len(available) < 2:
            return [tuple(available)]
        return [(a, b) for i, a in enumerate(available) for b in available[i + 1:]]

    def commissioner_moves(self) -> list[tuple[int, str]]:
        closed = {B.DISTRICTS[d] for d in range(len(B.DISTRICTS)) if self.closed[d]}
        return [(c, target) for c in (0, 1) for target in B.destinations(self.commissioners[c], closed)]

    # ------------------------------------------------------------------ applying actions

    def apply(self, action) -> None:
        if self.over:
            raise IllegalAction("the game is over; no more actions are accepted")
        if not isinstance(action, dict) or "type" not in action:
            raise IllegalAction('an action must be a JSON object with a "type", e.g. {"type": "pass"}')
        seat = self.current_seat()
        finished = len(self.auction_log)
        kind = self.steps[0][0]
        if kind == "auction" and self.decision() == "bid":
            self.apply_bid(action)
        else:
            legal = self.legal_actions()
            if kind == "cards" and action.get("type") == "take_cards" and isinstance(action.get("colours"), list):
                # Either order of the two colours is accepted (the list has one); any other key
                # stays, so that the action is refused like every other malformed one.
                action = {**action, "colours": sorted(action["colours"], key=_colour_order)}
            if action not in legal:
                raise IllegalAction(self.explain_illegal(action))
            action = legal[legal.index(action)]  # the listed form (a JSON 4.0 equals 4)
            getattr(self, "do_" + action["type"])(action)
        self.decided_at[seat] = finished  # auctions ending from here on are news to this seat
        self._legal = None
        self._advance()

    def explain_keys(self, action: dict) -> str | None:
        """Why an action of a listed type has the wrong keys, or None if its keys are right."""
        kind = action.get("type")
        same = [a for a in self.legal_actions() if a["type"] == kind]
        if not same:
            return None
        keys = list(same[0])
        extra = [key for key in action if key not in keys]
        missing = [key for key in keys if key not in action]
        if not extra and not missing:
            return None
        wrong = f"unexpected key {shown(extra[0])}" if extra else f"missing key {shown(missing[0])}"
        return f"{wrong} in a {shown(kind)} action; its keys are {', '.join(map(shown, keys))}, e.g. {shown(same[0], 200)}"

    def explain_illegal(self, action: dict) -> str:
        """A reason a bot author can act on: what was wrong, and what is allowed."""
        decision = self.decision()
        legal = self.legal_actions()
        kind = action.get("type")
        types = sorted({a["type"] for a in legal})
        if kind not in types:
            return (f"{shown(kind)} is not an action for the decision {decision!r} now; allowed action types: "
                    f"{', '.join(types)}")
        keys = self.explain_keys(action)
        if keys:
            return keys
        if kind == "place_business":
            row = [B.BUSINESSES[b] for b in self.current_set() or []]
            if action.get("business") not in row:
                return f"the business must come from the leftmost non-empty set, which holds {row}"
            return ("a business goes on a plot of an open district that holds no skyscraper and at most "
                    f"one business; {shown(action.get('district'))}/{shown(action.get('plot'))} is not such a plot")
        if kind == "move":
            targets = [f"{a['commissioner']}->{a['to']}" for a in legal]
            return f"a commissioner moves one step along an arrow; possible moves: {', '.join(targets)}"
        if kind == "score_district":
            return f"only a district holding a commissioner can be scored: {[a['district'] for a in legal if a['type'] == kind]}"
        if kind == "place_skyscraper":
            return ("a starting skyscraper goes on an empty coloured plot in a district where you own no "
                    "plot yet; pick one of the listed legal actions")
        if kind == "take_cards":
            return f"take the top cards of two different non-empty colour stacks; possible: {[a['colours'] for a in legal]}"
        return f"{shown(action)} is not legal now; pick one of the listed legal actions for the decision {decision!r}"

    def do_place_skyscraper(self, action: dict) -> None:
        seat = self.steps.pop(0)[1]
        d = B.DISTRICT_INDEX[action["district"]]
        p = B.plot_index(d, action["plot"], self.plots)
        self.owner[d][p] = seat
        self.towers[d][p] = 1

    def do_take_skyscrapers(self, action: dict) -> None:
        seat = self.begin_turn("take_skyscrapers")
        taken = min(3, self.general[seat])
        self.general[seat] -= taken
        self.own_supply[seat] += taken
        self.steps[0:0] = [("cards", seat), ("move", seat), ("end_turn", seat)]

    def do_place_business(self, action: dict) -> None:
        seat = self.begin_turn("place_business")
        d = B.DISTRICT_INDEX[action["district"]]
        p = B.plot_index(d, action["plot"], self.plots)
        index = next(i for i, row in enumerate(self.supply_row) if row)
        row = self.supply_row[index]
        row.remove(B.BUSINESS_INDEX[action["business"]])
        if len(row) == 1:  # the second-to-last tile was taken: the last goes below the park
            self.below_park.append(row.pop())
        self.businesses[d][p].append(B.BUSINESS_INDEX[action["business"]])
        self.businesses_placed += 1
        self.spread_bonus()
        if index == len(self.supply_row) - 1:
            self.end_game("last set")
            return
        self.steps[0:0] = [("cards", seat), ("move", seat), ("end_turn", seat)]

    def do_draw_black(self, action: dict) -> None:
        seat = self.begin_turn("draw_black")
        self.draw_black(seat, 1)
        self.steps[0:0] = [("move", seat), ("cards", seat), ("move", seat), ("end_turn", seat)]

    def do_score_district(self, action: dict) -> None:
        seat = self.begin_turn("score_district")
        d = B.DISTRICT_INDEX[action["district"]]
        self.score_district(d)
        self.draw_black(seat, 2)
        # Every player with no skyscraper there takes 1, the scorer too (the official example:
        # a scorer absent from the district takes 3). [decision] Option D order: drawn in
        # clockwise order from the scorer.
        for step in range(self.players):
            other = (seat + step) % self.players
            if other not in self.owner[d]:
                self.draw_black(other, 1)
        self.steps[0:0] = [("move", seat), ("end_turn", seat)]

    def begin_turn(self, option: str) -> int:
        seat = self.steps.pop(0)[1]
        self.option = option
        self.turn_number += 1
        return seat

    def do_take_cards(self, action: dict) -> None:
        seat = self.steps.pop(0)[1]
        self.take_cards(seat, [B.COLOUR_INDEX[c] for c in action["colours"]])

    def do_move(self, action: dict) -> None:
        seat = self.steps.pop(0)[1]
        c = COMMISSIONERS.index(action["commissioner"])
        self.move_commissioner(seat, c, action["to"])

    def do_park_colour(self, action: dict) -> None:
        # [decision] Park colour: the opener's colour is a decision of its own before the
        # bidding; the opener may then pass like anybody.
        self.auction.park_colour = B.COLOUR_INDEX[action["colour"]]
        for bidder in self.auction.bidders:
            self.auction.allowed[bidder] = (self.auction.park_colour,)

    def do_build(self, action: dict) -> None:
        _, winner, d, p, count = self.steps.pop(0)
        self.record_result("built", p, self.build(winner, d, p, count))

    def do_building_stop(self, action: dict) -> None:
        _, winner, d, p, _ = self.steps.pop(0)
        self.record_result("building_stop", p)
        self.building_stop(d, winner)

    def apply_bid(self, action: dict) -> None:
        auction = self.auction
        who = auction.to_act()
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalAction(self.explain_bid(action))
        action = legal[legal.index(action)]  # the listed form: a JSON value 4.0 is used as 4
        kind = action["type"]
        if kind == "pass":
            self.withdraw(who)
        elif kind == "done":
            self.finish_raise(who)
        else:
            colour = -1 if action["colour"] == B.BLACK else B.COLOUR_INDEX[action["colour"]]
            self.add_card(who, colour, action["value"])

    def explain_bid(self, action: dict) -> str:
        auction = self.auction
        who = auction.to_act()
        kind = action.get("type")
        bid = auction.bids.get(who)
        keys = self.explain_keys(action)
        if keys:
            return keys
        if kind == "done":
            total = 0 if bid is None else bid.total()
            return (f"you cannot finish your raise: your total {total} does not exceed the highest bid "
                    f"{auction.high}; add cards or pass")
        if kind != "add":
            return ('in an auction the actions are {"type": "add", "colour": ..., "value": ...}, '
                    f'{{"type": "done"}} and {{"type": "pass"}}, not {shown(kind)}')
        colour, value = action.get("colour"), action.get("value")
        if bid is None:
            allowed = [B.COLOURS[c] for c in auction.allowed.get(who, ())]
            if colour not in allowed:
                return (f"your first card in this auction must be coloured, of one of: "
                        f"{', '.join(allowed) or 'none'}; not {shown(colour)}")
        elif colour not in (B.BLACK, B.COLOURS[bid.colour]):
            return (f"your bid in this auction is {B.COLOURS[bid.colour]}: add {B.COLOURS[bid.colour]} "
                    f"or black cards only, not {shown(colour)}")
        return f"you hold no {shown(colour)} card of value {shown(value)}; pick one of the listed legal actions"

    # ------------------------------------------------------------------ rule steps

    def _advance(self) -> None:
        """Run automatic steps until a seat must decide or the game is over."""
        while not self.over:
            step = self.steps[0]
            kind = step[0]
            if kind in ("place_start", "option", "move", "stop_choice"):
                return
            if kind == "cards":
                pairs = self.card_pairs()
                if len(pairs) > 1:
                    return
                self.steps.pop(0)
                self.take_cards(step[1], list(pairs[0]))
            elif kind == "auction_round":
                self.steps.pop(0)
                self.start_auction_round(step[1], step[2])
            elif kind == "auction":
                if self.auction is None:
                    self.open_auction(step[1], step[2])
                auction = self.auction
                if auction.district is None and auction.park_colour is None:
                    return
                if auction.over():
                    self.close_auction()
                    continue
                who = auction.to_act()
                if who == self.alea:
                    self.alea_acts()
                elif not auction.can_raise(who, self.coloured[who], self.black[who]):
                    # [decision] Automatic pass: only a pass is possible (no raise can exceed
                    # the highest bid), so it is made for the seat.
                    self.withdraw(who)
                else:
                    return
            elif kind == "round_end":
                self.steps.pop(0)
                self.markers[step[1]].clear()
            elif kind == "end_turn":
                self.steps.pop(0)
                if self.turn_number >= MAX_TURNS:
                    self.end_game("turn limit")
                    return
                self.active = (step[1] + 1) % self.players
                self.option = None
                self.steps.insert(0, ("option", self.active))
            else:
                raise AssertionError(kind)

    def draw_black(self, seat: int, count: int) -> None:
        """Take cards from the top of the black stack ([decision] Empty black stack: an empty
        stack gives nothing; the turn goes on)."""
        for _ in range(count):
            if not self.black_stack:
                return
            self.black[seat][self.black_stack.pop() - 4] += 1

    def take_cards(self, seat: int, colours: list[int]) -> None:
        for colour in colours:
            self.coloured[seat][colour][self.stacks[colour].pop() - 4] += 1

    def spread_bonus(self) -> None:
        """After the 3rd, 6th and 9th business: points for skyscrapers in 3 / 4 / 5 districts.
        [decision] Spread count: only businesses placed in the game count, not the 7 starting
        ones."""
        bonus = scoring.SPREAD_BONUS.get(self.businesses_placed)
        if bonus is None:
            return
        needed, points = bonus
        counts = scoring.districts_with_skyscrapers(self.owner, self.closed, self.owners)
        for seat in range(self.players):
            if counts[seat] >= needed:
                self.scores_[seat] += points

    def district_points(self, d: int) -> list[int]:
        return scoring.district_scores(self.businesses[d], self.owner[d], self.towers[d],
                                       self.neighbours, self.owners)

    def score_district(self, d: int) -> None:
        points = self.district_points(d)
        for seat in range(self.players):  # [decision] Alea scores nothing: seats only
            self.scores_[seat] += points[seat]

    def move_commissioner(self, seat: int, c: int, target: str) -> None:
        """One step along an arrow; leaving an open district leaves a marker. Moving from
        Central Park back to City Hall starts an auction round."""
        position = self.commissioners[c]
        d = B.DISTRICT_INDEX.get(position)
        if d is not None and not self.closed[d]:
            self.markers[c].add(d)
        self.commissioners[c] = target
        if position == B.CENTRAL_PARK:
            self.steps.insert(0, ("auction_round", c, seat))

    def start_auction_round(self, c: int, mover: int) -> None:
        """One auction per district with a marker of colour ``c`` (column order), then Central Park."""
        # A stopped district holds no auction (see Stopped district; its markers are gone too).
        queue = [("auction", d, mover) for d in range(len(B.DISTRICTS))
                 if d in self.markers[c] and not self.closed[d]]
        queue.append(("auction", None, mover))
        queue.append(("round_end", c))
        self.steps[0:0] = queue

    def bidding_order(self, mover: int) -> list[int]:
        order = [(mover + i) % self.players for i in range(self.players)]
        if self.alea is not None:
            order.append(self.alea)  # Alea acts third
        return order

    def open_auction(self, d: int | None, mover: int) -> None:
        bidders = self.bidding_order(mover)
        if d is None:
            auction = Auction(None, bidders, {}, True)
        else:
            allowed, had_empty = self.first_card_colours(d)
            auction = Auction(d, bidders, allowed, had_empty)
            # [decision] Alea skips: auctions where it has no plot and no empty plot exists.
            if self.alea is not None and self.alea not in self.owner[d] and not had_empty:
                auction.passed[self.alea] = True
        self.auction = auction

    def first_card_colours(self, d: int) -> tuple[dict[int, tuple[int, ...]], bool]:
        """Per owner index, the colours its first card may have in district ``d``: its own plot's
        colour; else an empty plot's; else (no empty plot) a plot with businesses. Plus whether
        the district has an empty (coloured) plot (the 6-plot board's plain plot never counts as
        empty and is never a bid colour, see Plain plot)."""
        owner = self.owner[d]
        businesses = self.businesses[d]
        colours = B.PLOT_COLOUR[B.DISTRICTS[d]]
        empty = tuple(sorted(colours[p] for p in range(5) if owner[p] < 0 and not businesses[p]))
        with_businesses = tuple(sorted(colours[p] for p in range(5) if businesses[p]))
        fallback = empty if empty else with_businesses
        allowed = {}
        for who in range(self.owners):
            if who in owner:
                allowed[who] = (colours[owner.index(who)],)
            else:
                allowed[who] = fallback
        return allowed, bool(empty)

    def add_card(self, who: int, colour: int, value: int) -> None:
        """Put one card in front of the bidder (colour -1 is black)."""
        auction = self.auction
        bid = auction.bids.get(who)
        if bid is None:
            bid = auction.bids[who] = Bid(colour)
        if colour < 0:
            self.black[who][value - 4] -= 1
            bid.black[value - 4] += 1
        else:
            self.coloured[who][colour][value - 4] -= 1
            bid.coloured[value - 4] += 1

    def finish_raise(self, who: int) -> None:
        """The raise is done: the bidder's total is the new highest bid."""
        auction = self.auction
        auction.high = auction.bids[who].total()
        if self.alea is not None and auction.leader == self.alea:
            auction.passed[self.alea] = True  # Alea's one bid is overbid: it is out at once
            auction.bids.pop(self.alea)
        auction.leader = who
        auction.next_turn()

    def withdraw(self, who: int) -> None:
        """A pass: final for this auction; the bidder takes their cards back."""
        auction = self.auction
        auction.passed[who] = True
        bid = auction.bids.pop(who, None)
        if bid is not None and who != self.alea:
            hand = self.coloured[who][bid.colour]
            for i in range(3):
                hand[i] += bid.coloured[i]
                self.black[who][i] += bid.black[i]
        auction.next_turn()

    def alea_acts(self) -> None:
        """Alea acts once per auction: turn up black cards until a value repeats; the sum is its
        fixed bid. The cards go to the bottom of the black stack at once. If the sum does not
        beat the top bid, Alea is out; else it leads until a player overbids it (then it is out,
        see ``finish_raise``), so it never acts twice."""
        auction = self.auction
        auction.alea_acted = True
        seen = alea_draw(self.black_stack)
        del self.black_stack[len(self.black_stack) - len(seen):]
        self.black_stack[0:0] = seen  # in the order turned, the first lowest (see Discard order)
        auction.alea_cards = seen
        total = sum(seen)
        if not seen or total <= auction.high:
            self.withdraw(self.alea)
            return
        bid = Bid(-1)
        bid.black = values_to_counts(seen)
        auction.bids[self.alea] = bid
        auction.high = total
        auction.leader = self.alea
        auction.next_turn()

    def close_auction(self) -> None:
        """The winner discards the bid cards under their stacks ([decision] Discard order: the 6s
        lowest, then the 5s, then the 4s; Alea's turned cards in the order turned) and builds (or
        stops). What happened stays public in
        the auction log, which shows it to every seat."""
        auction = self.auction
        self.auction = None
        self.steps.pop(0)
        self.auction_log.append(auction_summary(self, auction, len(self.auction_log) + 1))
        winner = auction.leader
        if winner is None:
            return
        bid = auction.bids[winner]
        count = bid.skyscrapers()
        if winner != self.alea:
            for i in range(3):
                self.stacks[bid.colour][0:0] = [4 + i] * bid.coloured[i]
                self.black_stack[0:0] = [4 + i] * bid.black[i]
        d = auction.district
        if d is None:
            built = 0
            if winner != self.alea:  # [decision] Alea in Central Park: a win builds nothing
                built = min(count, self.own_supply[winner])
                self.own_supply[winner] -= built
                self.park[winner] += built
            self.record_result("park", None, built)
            return
        if winner == self.alea:
            p = self.alea_plot(d)
            self.record_result("built", p, self.build(winner, d, p, count))
            return
        p = B.colour_plot(d, bid.colour)
        if auction.had_empty:
            self.record_result("built", p, self.build(winner, d, p, count))
        elif self.owner[d][p] == winner:
            self.record_result("build_or_stop", p)  # completed by do_build / do_building_stop
            self.steps.insert(0, ("stop_choice", winner, d, p, count))
        else:
            self.record_result("building_stop", p)
            self.building_stop(d, winner)

    def record_result(self, result: str, plot: int | None, built: int = 0) -> None:
        """What the last auction's winner did: the end of its public record."""
        summary = self.auction_log[-1]
        summary["result"] = result
        summary["plot"] = None if plot is None else B.plot_name(B.DISTRICT_INDEX[summary["district"]], plot)
        summary["skyscrapers"] = built

    def alea_plot(self, d: int) -> int:
        """[decision] Alea builds: on its own plot, else on a random empty plot (seeded RNG); it
        never declares a building stop."""
        owner = self.owner[d]
        if self.alea in owner:
            return owner.index(self.alea)
        empty = [p for p in range(5) if owner[p] < 0 and not self.businesses[d][p]]
        return self.rng.choice(empty)

    def build(self, who: int, d: int, plot: int, count: int) -> int:
        """Build from the own supply; returns how many ([decision] Short own supply: fewer if it
        is short, none if it is empty; the bid cards are spent all the same)."""
        built = min(count, self.own_supply[who])
        if built:
            self.own_supply[who] -= built
            self.owner[d][plot] = who
            self.towers[d][plot] += built
        return built

    def building_stop(self, d: int, declarer: int) -> None:
        """Final scoring of the district; everything there leaves the game; it is closed."""
        points = scoring.building_stop_scores(self.businesses[d], self.owner[d], self.towers[d],
                                              self.neighbours, self.owners, declarer)
        for seat in range(self.players):
            self.scores_[seat] += points[seat]
        for p in range(self.plots):
            who = self.owner[d][p]
            if who >= 0:
                self.gone[who] += self.towers[d][p]
            self.owner[d][p] = -1
            self.towers[d][p] = 0
            self.stopped_businesses.extend(self.businesses[d][p])
            self.businesses[d][p] = []
        self.closed[d] = True
        for markers in self.markers:
            markers.discard(d)  # back to City Hall, no auction
        self.stops += 1
        if self.stops == 2:
            self.end_game("second building stop")

    def end_game(self, reason: str) -> None:
        """Every open district is scored once more; then Central Park by 3 revealed tiles."""
        self.over = True
        self.end_reason = reason
        self.steps = []
        self.auction = None
        for d in range(len(B.DISTRICTS)):
            if not self.closed[d]:
                self.score_district(d)
        tiles = list(self.below_park)
        self.rng.shuffle(tiles)
        self.revealed = tiles[:scoring.PARK_REVEAL]
        per = scoring.park_points_per_skyscraper(self.revealed)
        for seat in range(self.players):
            self.scores_[seat] += per * self.park[seat]


def _colour_order(name) -> int:
    return B.COLOUR_INDEX.get(name, 99) if isinstance(name, str) else 99
