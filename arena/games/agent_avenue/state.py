"""One Agent Avenue match in progress: set-up, the three phases of a turn (play, recruit,
check), catching, deck exhaustion and the team variant.

The Black Market (advanced game) lives in ``black_market.py`` and what a seat may see in
``observation.py``; this module owns the turn and the end of the game.

Terms used throughout: a *side* (0 or 1) is what moves a spy and owns a play area: a player
in the 2-player game, a team in the team variant. Side 0's home is space 0, side 1's space 7.
"""

from __future__ import annotations

import random

from arena.games.base import GameState, IllegalAction, refuse_unknown_keys, shown
from arena.games.agent_avenue.black_market import EFFECT_PHASES, TAKE, BlackMarketRules
from arena.games.agent_avenue.cards import (
    AGENT_DECK, AGENTS, BLACK_MARKET, CATCH_DISTANCE, CODEBREAKER, DAREDEVIL,
    DISCARDS_PER_PLAYER, DISCARDS_PER_TEAMMATE, HAND_SIZE, HOMES, LEADER_OF_THE_PACK,
    LOSING_DAREDEVILS, MASTERPLAN, MOVES, MASTERPLAN_NAMES, OFFER_SIZE, SECURITY_SYSTEM, STREET,
    WINNING_CODEBREAKERS, DOUBLE_TROUBLE, MIND_CONTROL, SECRET_RECRUIT, SPYCATION,
)
from arena.games.agent_avenue.observation import observe, snapshot

# Phases: who decides what.
PLAY = "play"  # a player alone: discard-and-redraw, then both cards at once
PLAY_FACE_UP = "play_face_up"  # a team of two: the opener's card
PLAY_FACE_DOWN = "play_face_down"  # ... then the teammate's card
CHOOSE = "choose"  # the opponent picks the face-up or the face-down card
OVER = "over"

FACE_UP = "face_up"
FACE_DOWN = "face_down"

# The action types each phase accepts (an effect phase accepts the action named like it).
ALLOWED = {
    PLAY: ("discard", "play"),
    PLAY_FACE_UP: ("discard", "play_face_up"),
    PLAY_FACE_DOWN: ("discard", "play_face_down"),
    CHOOSE: ("choose",),
    TAKE: ("take",),
}

# Every action's keys and shape. Bots are untrusted: an action with another key is refused
# with a reason (a misspelt key must not be ignored), and so is a value of the wrong type.
ACTION_FORMS = {
    "discard": (("type", "card"), '{"type": "discard", "card": agent}'),
    "play": (("type", "face_up", "face_down"), '{"type": "play", "face_up": agent, "face_down": agent}'),
    "play_face_up": (("type", "card"), '{"type": "play_face_up", "card": agent}'),
    "play_face_down": (("type", "card"), '{"type": "play_face_down", "card": agent}'),
    "choose": (("type", "take"), '{"type": "choose", "take": "face_up" or "face_down"}'),
    "take": (("type", "card"), '{"type": "take", "card": black market card}'),
    SECRET_RECRUIT: (("type", "agent"), '{"type": "secret_recruit", "agent": agent}'),
    DOUBLE_TROUBLE: (("type", "agent"), '{"type": "double_trouble", "agent": agent}'),
    MIND_CONTROL: (("type", "agent"), '{"type": "mind_control", "agent": agent}'),
    SPYCATION: (("type", "agent", "recruit"), '{"type": "spycation", "agent": agent, "recruit": true or false}'),
}

# Movement indexed by copies in play (1, 2, 3 = "3 or more"); index 0 unused.
MOVE_TABLE = {name: (0,) + values for name, values in MOVES.items()}


def team_seats(players: int) -> list[list[int]]:
    """Seats alternate between the sides: 2p [[0], [1]], 3p [[0, 2], [1]], 4p [[0, 2], [1, 3]]."""
    # [decision] Three players: seat 1 plays alone against seats 0 and 2; seat 0 starts.
    return [[seat for seat in range(players) if seat % 2 == side] for side in (0, 1)]


class AgentAvenueState(BlackMarketRules, GameState):
    """A match. Mutable; ``apply`` validates completely before it changes anything."""

    def __init__(self, players: int, seed: int, advanced: bool):
        self.players = players
        self.seed = seed
        self.advanced = advanced
        self.rng = random.Random(seed)
        self.sides = team_seats(players)
        self.side_of = [seat % 2 for seat in range(players)]
        self.team_game = players > 2
        self.set_up()

    # --- Set-up -----------------------------------------------------------------------

    def set_up(self) -> None:
        """Shuffle, deal 4 each, spies at home, the Black Market offer; seat 0 starts."""
        self.deck = list(AGENT_DECK)  # the draw pile; its top is the END of the list
        self.rng.shuffle(self.deck)
        self.hands = [[self.deck.pop() for _ in range(HAND_SIZE)] for _ in range(self.players)]
        self.discards_left = [
            DISCARDS_PER_PLAYER if len(self.sides[self.side_of[seat]]) == 1 else DISCARDS_PER_TEAMMATE
            for seat in range(self.players)
        ]
        self.discarded = [[] for _ in range(self.players)]  # face down, seen by nobody
        self.totals = [0, 0]  # each spy's signed movement since the start
        self.areas = [dict.fromkeys(AGENTS, 0), dict.fromkeys(AGENTS, 0)]
        self.owned = [[], []]  # ongoing Black Market cards in front of each side
        self.bm_pile: list[str] = []
        self.bm_offer: list[str] = []
        self.bm_discard: list[str] = []
        if self.advanced:
            self.bm_pile = list(BLACK_MARKET)
            self.rng.shuffle(self.bm_pile)
            self.bm_offer = [self.bm_pile.pop() for _ in range(OFFER_SIZE)]
        self.queue: list[int] = []  # sides still to take a Black Market card this turn
        self.pending = None  # (card, side, seat) of an instant effect awaiting a choice
        self.turns = [0, 0]  # turns each side has completed (drives who opens and chooses)
        self.turn_number = 0
        self.face_up = self.face_down = None
        self.face_up_seat = self.face_down_seat = None
        self.last_play = None
        self.winner = None
        self.end_reason = None
        self.start_turn(0)

    def start_turn(self, side: int) -> None:
        """Name the opener (and the teammate), the opponent's chooser, and the phase."""
        self.active = side
        members = self.sides[side]
        others = self.sides[1 - side]
        # [decision] Opener: teammates alternate as the opener from one team turn to the next.
        # [decision] Chooser: the opposing side's choice is made by its next opener.
        self.opener = members[self.turns[side] % len(members)]
        self.chooser = others[self.turns[1 - side] % len(others)]
        if len(members) == 2:
            self.partner = members[0] if self.opener == members[1] else members[1]
            # [decision] Last card: the last-card rule is for teams of two only.
            if len(self.deck) == 1:  # the last card goes to the face-up player
                self.hands[self.opener].append(self.deck.pop())
            self.phase = PLAY_FACE_UP
        else:
            self.partner = None
            self.phase = PLAY
        self.to_move = self.opener

    # --- The interface ----------------------------------------------------------------

    def current_seat(self) -> int | None:
        return self.to_move

    def is_over(self) -> bool:
        return self.phase == OVER

    def teams(self) -> list[list[int]] | None:
        return [list(members) for members in self.sides] if self.team_game else None

    def scores(self) -> list[float]:
        if self.winner is None:
            return [0.0] * self.players
        return [1.0 if self.side_of[seat] == self.winner else 0.0 for seat in range(self.players)]

    def ranks(self) -> list[int]:
        """Exactly one winning side: its seats rank 1, every other seat ranks 2."""
        if self.winner is None:
            return [1] * self.players
        return [1 if self.side_of[seat] == self.winner else 2 for seat in range(self.players)]

    def observation(self, seat: int) -> dict:
        return observe(self, seat)

    def snapshot(self) -> dict:
        return snapshot(self)

    def legal_actions(self) -> list:
        phase = self.phase
        if phase == PLAY:
            return self.discard_actions() + self.pair_actions()
        if phase == CHOOSE:
            return [{"type": "choose", "take": FACE_UP}, {"type": "choose", "take": FACE_DOWN}]
        if phase == PLAY_FACE_UP:
            names = sorted(set(self.hands[self.to_move]))
            return self.discard_actions() + [{"type": "play_face_up", "card": name} for name in names]
        if phase == PLAY_FACE_DOWN:
            return self.discard_actions() + [
                {"type": "play_face_down", "card": name} for name in self.face_down_options()]
        if phase == TAKE:
            return [{"type": "take", "card": card} for card in self.bm_offer]
        if phase in EFFECT_PHASES:
            return self.effect_actions()
        return []

    def apply(self, action) -> None:
        phase = self.phase
        if phase == OVER:
            raise IllegalAction("the game is over; no more actions are accepted")
        if not isinstance(action, dict):
            raise IllegalAction(f'an action must be a JSON object with a "type" key, not {shown(action)}')
        kind = action.get("type")
        allowed = ALLOWED[phase] if phase in ALLOWED else (phase,)
        if kind not in allowed:
            wanted = " or ".join(f'"{name}"' for name in allowed)
            raise IllegalAction(f'in phase "{phase}" the action type must be {wanted}, not {shown(kind)}')
        refuse_unknown_keys(action, *ACTION_FORMS[kind])
        if kind == "discard":
            self.discard_and_redraw(action)
        elif kind == "play":
            self.play_two_cards(action)
        elif kind == "choose":
            self.recruit(action)
        elif kind == "play_face_up":
            self.play_face_up(action)
        elif kind == "play_face_down":
            self.play_face_down(action)
        elif kind == "take":
            self.take_black_market_card(action)
        else:
            self.resolve_effect_choice(action)

    # --- Phase 1: play ----------------------------------------------------------------

    def discard_actions(self) -> list:
        seat = self.to_move
        if not self.discards_left[seat] or not self.deck:
            return []
        return [{"type": "discard", "card": name} for name in sorted(set(self.hands[seat]))]

    def pair_actions(self) -> list:
        hand = self.hands[self.to_move]
        names = sorted(set(hand))
        if len(names) == 1:  # the whole hand has one name: two of it may be played
            return [{"type": "play", "face_up": names[0], "face_down": names[0]}] if len(hand) >= 2 else []
        return [{"type": "play", "face_up": up, "face_down": down}
                for up in names for down in names if up != down]

    def face_down_options(self) -> list[str]:
        """The teammate's card must differ from the face-up one unless the hand is all that name."""
        hand = self.hands[self.to_move]
        names = sorted(set(hand))
        if names == [self.face_up]:
            return names
        return [name for name in names if name != self.face_up]

    def discard_and_redraw(self, action: dict) -> None:
        seat = self.to_move
        card = action.get("card")
        hand = self.hands[seat]
        if not self.discards_left[seat]:
            raise IllegalAction("you have used all your discard-and-redraws for this game; play your cards")
        if not self.deck:
            raise IllegalAction("the draw pile is empty, so you cannot discard and redraw; play your cards")
        if card not in hand:
            raise IllegalAction(f"discard needs a card from your hand {sorted(hand)}, not {shown(card)}")
        hand.remove(card)
        # [decision] Discards: they leave the game face down; the draw pile is never reshuffled.
        self.discarded[seat].append(card)
        hand.append(self.deck.pop())
        self.discards_left[seat] -= 1

    def play_two_cards(self, action: dict) -> None:
        """Face up and face down, different names unless every card in hand has one name."""
        seat = self.to_move
        hand = self.hands[seat]
        up = action.get("face_up")
        down = action.get("face_down")
        if up not in hand or down not in hand:
            raise IllegalAction(f"face_up and face_down must be agent names from your hand {sorted(hand)}, "
                                f"not {shown(up)} and {shown(down)}")
        if up == down:
            if hand.count(up) < 2:
                raise IllegalAction(f"you hold only one {up}; play two different cards")
            if any(card != up for card in hand):
                raise IllegalAction("the two cards must have different names unless every card in your "
                                    f"hand has the same name; your hand is {sorted(hand)}")
        hand.remove(up)
        hand.remove(down)
        self.face_up, self.face_down = up, down
        self.face_up_seat = self.face_down_seat = seat
        self.refill(seat)
        self.phase = CHOOSE
        self.to_move = self.chooser

    def play_face_up(self, action: dict) -> None:
        seat = self.to_move
        hand = self.hands[seat]
        card = action.get("card")
        if card not in hand:
            raise IllegalAction(f"play_face_up needs a card from your hand {sorted(hand)}, not {shown(card)}")
        hand.remove(card)
        self.face_up = card
        self.face_up_seat = seat
        self.phase = PLAY_FACE_DOWN
        self.to_move = self.partner

    def play_face_down(self, action: dict) -> None:
        seat = self.to_move
        hand = self.hands[seat]
        card = action.get("card")
        if card not in hand:
            raise IllegalAction(f"play_face_down needs a card from your hand {sorted(hand)}, not {shown(card)}")
        if card == self.face_up and any(other != card for other in hand):
            raise IllegalAction(f"your face-down card must not be a {card} like the face-up card, unless "
                                f"every card in your hand is one; your hand is {sorted(hand)}")
        hand.remove(card)
        self.face_down = card
        self.face_down_seat = seat
        # [decision] Team refill: with too few cards left, the face-up player draws first.
        self.refill(self.opener)
        self.refill(seat)
        self.phase = CHOOSE
        self.to_move = self.chooser

    def refill(self, seat: int) -> None:
        """Draw back up to 4 while the draw pile lasts; a hand above 4 draws nothing."""
        hand = self.hands[seat]
        deck = self.deck
        while len(hand) < HAND_SIZE and deck:
            hand.append(deck.pop())

    # --- Phase 2: recruit -------------------------------------------------------------

    def recruit(self, action: dict) -> None:
        """The chooser's side takes one played card, the active side the other; both spies move."""
        take = action.get("take")
        if take != FACE_UP and take != FACE_DOWN:
            raise IllegalAction(f'choose needs "take": "face_up" or "face_down", not {shown(take)}')
        active = self.active
        other = 1 - active
        up, down = self.face_up, self.face_down
        chooser_card, active_card = (up, down) if take == FACE_UP else (down, up)
        self.last_play = {"team": active, "face_up": up, "face_down": down, "face_up_seat": self.face_up_seat,
                          "face_down_seat": self.face_down_seat, "chooser": self.chooser, "taken": take}
        self.face_up = self.face_down = self.face_up_seat = self.face_down_seat = None
        # Both moves happen at the same time: each value is fixed before either spy moves.
        active_steps = self.recruit_steps(active, active_card)
        other_steps = self.recruit_steps(other, chooser_card)
        active_landed = self.move_spy(active, active_steps)
        other_landed = self.move_spy(other, other_steps)
        queue = self.queue = []
        if active_landed:  # the active side takes and resolves first
            queue.append(active)
        if other_landed:
            queue.append(other)
        self.continue_turn()

    def recruit_steps(self, side: int, name: str) -> int:
        """Put ``name`` in the side's play area; its value counts the copies now in play."""
        area = self.areas[side]
        count = area[name] + 1
        area[name] = count
        steps = MOVE_TABLE[name][count if count < 3 else 3]
        if self.advanced and self.owned[side]:
            steps = self.modified_steps(side, name, steps)
        return steps

    def move_spy(self, side: int, steps: int) -> bool:
        """Move a spy; True when a move (not a stay) ends exactly on a Black Market corner."""
        if not steps:
            return False
        total = self.totals[side] + steps
        if self.advanced:
            total = self.after_getaway_car(side, total)
            self.totals[side] = total
            return self.on_corner(side)
        self.totals[side] = total
        return False

    def position(self, side: int) -> int:
        return (HOMES[side] + self.totals[side]) % STREET

    def continue_turn(self) -> None:
        """Hand out pending Black Market takes (active side first, chains first); then check."""
        queue = self.queue
        while queue:
            if not self.bm_offer:  # [decision] Empty offer: nothing is taken
                queue.pop(0)
                continue
            self.phase = TAKE  # [decision] Taking is a decision: even with one card on offer
            self.to_move = self.taker(queue[0])
            return
        self.check_phase()

    def taker(self, side: int) -> int:
        # [decision] Black Market taker: in a team, the face-up player takes for the active
        # side and the chooser for the other side; hand effects use that player's hand.
        return self.opener if side == self.active else self.chooser

    # --- Phase 3: check ---------------------------------------------------------------

    def check_phase(self) -> None:
        active = self.active
        other = 1 - active
        lead = self.totals[active] - self.totals[other]
        wins_a, losses_a = self.conditions(active, lead >= CATCH_DISTANCE)
        wins_b, losses_b = self.conditions(other, -lead >= CATCH_DISTANCE)
        if not (wins_a or losses_a or wins_b or losses_b):
            self.end_turn()
            return
        # [decision] Catch ends the game: any result ends it, so the lead never wraps around.
        # Both win, both lose, or one side both wins and loses: the active side wins.
        if (wins_b or losses_a) and not wins_a and not losses_b:
            winner = other
        else:
            winner = active
        reasons = [f"team {active} {text}" for text in wins_a + losses_a]
        reasons += [f"team {other} {text}" for text in wins_b + losses_b]
        if (wins_a and wins_b) or (losses_a and losses_b) or (wins_a and losses_a) or (wins_b and losses_b):
            reasons.append("so the active team wins the tie")
        self.finish(winner, "; ".join(reasons))

    def conditions(self, side: int, caught: bool) -> tuple[list[str], list[str]]:
        """The side's met win conditions and loss conditions, as short phrases."""
        area = self.areas[side]
        wins: list[str] = []
        losses: list[str] = []
        if caught:
            wins.append("caught the other spy")
        if area[CODEBREAKER] >= WINNING_CODEBREAKERS:
            wins.append("has 3 codebreakers in play")
        owned = self.owned[side]
        if area[DAREDEVIL] >= LOSING_DAREDEVILS:
            if LEADER_OF_THE_PACK in owned:
                wins.append("has 3 daredevils in play and the Leader of the Pack")
            else:
                losses.append("has 3 daredevils in play")
        if owned:
            if SECURITY_SYSTEM in owned and self.position(1 - side) == HOMES[side]:
                wins.append("has the Security System and the other spy is on its home")
            if MASTERPLAN in owned and sum(1 for count in area.values() if count) >= MASTERPLAN_NAMES:
                wins.append("has the Masterplan and 7 different agents in play")
        return wins, losses

    def end_turn(self) -> None:
        """No result: the other side plays next, unless the cards have run out."""
        active = self.active
        other = 1 - active
        self.turns[active] += 1
        self.turn_number += 1
        if not self.deck and not self.can_play(other):
            lead = self.totals[active] - self.totals[other]
            winner = other if lead < 0 else active
            closer = "at equal distance the active team" if lead == 0 else f"team {winner}, fewer spaces behind,"
            self.finish(winner, f"the draw pile is empty and team {other} cannot play; {closer} wins")
            return
        self.start_turn(other)

    def can_play(self, side: int) -> bool:
        """A player alone needs 2 cards; in a team of two, each teammate needs 1."""
        # [decision] Team exhaustion: a teammate without cards ends the game (the team rule);
        # a player alone must play two cards, so fewer than 2 ends it.
        members = self.sides[side]
        if len(members) == 1:
            return len(self.hands[members[0]]) >= 2
        return all(self.hands[seat] for seat in members)

    def finish(self, winner: int, reason: str) -> None:
        self.winner = winner
        self.end_reason = reason
        self.phase = OVER
        self.to_move = None
        self.queue = []
        self.pending = None

