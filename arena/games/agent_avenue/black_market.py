"""The Black Market of the advanced game: taking a card from the offer, and the 15 effects.

A mixin of the match state (``AgentAvenueState``): it reads and changes the state's spies,
play areas, hands and piles, and hands control back with ``continue_turn`` once an effect is
fully resolved. The rules it implements:

* A spy whose move (not a stay) ends exactly on a corner takes one offered card; the offer is
  refilled at once, before the card takes effect.
* Ongoing cards stay in front of the side; they change only moves made after they were taken
  (so never the agent recruited the same turn). Instant cards resolve and are discarded.
* An instant recruit moves the spy again; ending exactly on a corner again takes another card
  before anything else (a chain). An effect that cannot be carried out does nothing.
* Removing an agent from play moves no spy. A hand an effect leaves below 4 draws up to 4.
"""

from __future__ import annotations

from arena.games.base import IllegalAction, shown
from arena.games.agent_avenue.cards import (
    CODEBREAKER, CORNERS, DISTRACTION_DEVICE, DOUBLE_AGENT, DOUBLE_TROUBLE, ENFORCER,
    GETAWAY_CAR, GETAWAY_STEPS, HOMES, MIND_CONTROL, ONGOING, OUTPOST, SABOTEUR, SECRET_RECRUIT,
    SENTINEL, SINISTER_TWIN, SMOKE_SCREEN, SPYCATION, STREET, SUPERCOMPUTER, SUPERCOMPUTER_STEPS,
    SURVEILLANCE_STEPS, SURVEILLANCE_TRUCK, WATCHTOWER, WATCHTOWER_STEPS,
)

TAKE = "take"  # phase: a side landed on a corner and picks a card from the offer
# Instant cards whose effect needs a choice; while one waits, the phase is the card's name.
EFFECT_PHASES = (SECRET_RECRUIT, DOUBLE_TROUBLE, SPYCATION, MIND_CONTROL)


class BlackMarketRules:
    """Black Market rules, mixed into the match state."""

    # --- Movement modifiers (ongoing cards) ---------------------------------------------

    def modified_steps(self, side: int, name: str, steps: int) -> int:
        """Recruit-triggered ongoing effects; they apply however the agent is recruited."""
        # [decision] Same turn: these modify only moves made after the card was taken; the
        # check-phase conditions apply in the check phase of the turn the card was taken.
        owned = self.owned[side]
        if name == CODEBREAKER and SUPERCOMPUTER in owned:
            return steps + SUPERCOMPUTER_STEPS
        if name == ENFORCER and WATCHTOWER in owned:
            return steps + WATCHTOWER_STEPS
        if name == SABOTEUR and DISTRACTION_DEVICE in owned:
            return abs(steps)  # forward instead of backward
        if name == DOUBLE_AGENT and SINISTER_TWIN in owned:
            return steps * 2  # twice as far, either way
        return steps

    def after_getaway_car(self, side: int, total: int) -> int:
        """Getaway Car: a move that ends exactly on either home goes 3 further."""
        # [decision] One move: modifiers, the printed value and the getaway car's 3 spaces are a
        # single move; the corner check looks at where it ends (3 or 10: never a corner).
        if GETAWAY_CAR in self.owned[side] and (HOMES[side] + total) % STREET in HOMES:
            return total + GETAWAY_STEPS
        return total

    def on_corner(self, side: int) -> bool:
        return (HOMES[side] + self.totals[side]) % STREET in CORNERS

    # --- Taking a card ------------------------------------------------------------------

    def take_black_market_card(self, action: dict) -> None:
        card = action.get("card")
        if card not in self.bm_offer:
            raise IllegalAction(f"take needs one of the offered Black Market cards {self.bm_offer}, not {shown(card)}")
        side = self.queue.pop(0)
        seat = self.to_move
        self.bm_offer.remove(card)
        if self.bm_pile:  # refill the offer before the card takes effect
            self.bm_offer.append(self.bm_pile.pop())
        if not self.resolve_card(card, side, seat):
            self.continue_turn()

    def resolve_card(self, card: str, side: int, seat: int) -> bool:
        """Carry out a taken card; True when its effect now waits for ``seat``'s choice."""
        if card in ONGOING:
            self.owned[side].append(card)
            return False
        self.bm_discard.append(card)
        if card == SURVEILLANCE_TRUCK:
            self.chain(side, self.move_spy(side, SURVEILLANCE_STEPS))
        elif card == SMOKE_SCREEN:
            if self.deck:  # [decision] Smoke screen: an empty draw pile gives nothing
                self.recruit_agent(side, self.deck.pop())
        elif card == OUTPOST:
            hand = self.hands[seat]
            # [decision] Instant effects: carried out whenever they can be (outpost has no
            # choice to make; the others must pick one of their options if there is any).
            if SENTINEL in hand:
                hand.remove(SENTINEL)
                self.recruit_agent(side, SENTINEL)
                self.refill(seat)
        elif self.effect_options(card, side, seat):
            self.pending = (card, side, seat)
            self.phase = card
            self.to_move = seat
            return True
        return False

    def recruit_agent(self, side: int, name: str) -> None:
        """An instant recruit: into the play area, and the spy moves again by its value."""
        self.chain(side, self.move_spy(side, self.recruit_steps(side, name)))

    def chain(self, side: int, landed: bool) -> None:
        if landed:  # another card, taken before anything else is resolved
            self.queue.insert(0, side)

    # --- Instant effects that need a choice ---------------------------------------------

    def effect_options(self, card: str, side: int, seat: int) -> list[str]:
        """The agent names the effect can be carried out with (empty: it does nothing)."""
        hand = self.hands[seat]
        area = self.areas[side]
        if card == SECRET_RECRUIT:  # an agent whose name the side has none of in play
            return sorted({name for name in hand if not area[name]})
        if card == DOUBLE_TROUBLE:  # two identical agents in hand
            return sorted({name for name in hand if hand.count(name) >= 2})
        if card == SPYCATION:  # one of the side's agents in play
            return sorted(name for name, count in area.items() if count)
        if card == MIND_CONTROL:  # one of the opposing side's agents in play
            return sorted(name for name, count in self.areas[1 - side].items() if count)
        raise AssertionError(card)

    def effect_actions(self) -> list:
        card, side, seat = self.pending
        names = self.effect_options(card, side, seat)
        if card == SPYCATION:
            return [{"type": card, "agent": name, "recruit": recruit}
                    for name in names for recruit in (True, False)]
        return [{"type": card, "agent": name} for name in names]

    def resolve_effect_choice(self, action: dict) -> None:
        card, side, seat = self.pending
        agent = action.get("agent")
        options = self.effect_options(card, side, seat)
        if agent not in options:
            raise IllegalAction(f'{card} needs "agent": one of {options}, not {shown(agent)}')
        recruit_again = action.get("recruit")
        if card == SPYCATION and not isinstance(recruit_again, bool):
            raise IllegalAction(f'spycation needs "recruit": true or false (recruit {agent} again at once '
                                f'or keep it in hand), not {shown(recruit_again)}')
        self.pending = None
        hand = self.hands[seat]
        # [decision] Double trouble: the kept copy is not remembered in later observations.
        if card == SECRET_RECRUIT or card == DOUBLE_TROUBLE:  # double trouble keeps the other copy
            hand.remove(agent)
            self.recruit_agent(side, agent)
            self.refill(seat)
        elif card == SPYCATION:
            self.areas[side][agent] -= 1  # removing an agent moves no spy
            if recruit_again:
                self.recruit_agent(side, agent)
            else:
                hand.append(agent)
        else:  # mind control
            self.areas[1 - side][agent] -= 1
            hand.append(agent)
        self.continue_turn()
