"""Agent Avenue (Christian and Laura Kudahl, Nerdlab Games): a 2-player bluffing card game
with a team variant for 3-4 players and an advanced game with the Black Market.

The package reads like the rulebook: ``cards`` (the components), ``state`` (set-up and the
turn), ``black_market`` (the advanced game's cards), ``observation`` (what a seat sees).
The team variant is the game with 3 or 4 players; ``advanced=true`` adds the Black Market.
"""

from __future__ import annotations

from arena.games.base import Game, Option
from arena.games.agent_avenue.state import AgentAvenueState


class AgentAvenue(Game):
    name = "agent-avenue"
    title = "Agent Avenue"
    description = ("Bluffing spy chase: play one card face up, one face down; the opponent picks "
                   "(2 players; 3-4 play the team variant)")
    player_counts = (2, 3, 4)
    options = (
        Option("advanced", "bool", False, "play the advanced game with the Black Market corners"),
    )

    def create_state(self, players: int, seed: int, options: dict) -> AgentAvenueState:
        # [decision] Team variant option: 3 or 4 players is always the team variant (the
        # rules have no other way to play it).
        return AgentAvenueState(players, seed, options["advanced"])


__all__ = ["AgentAvenue", "AgentAvenueState"]
