"""Fifth Avenue (Wilko Manz, alea 2004): skyscrapers, businesses, commissioners and auctions.

The package: ``board`` (districts, arrows, rings, components), ``auction`` (one auction's
bids), ``scoring`` (district, building-stop, spread and park scoring), ``state`` (the rules)
and ``observation`` (what a seat sees). Rules: docs/games/fifth-avenue.md.
"""

from __future__ import annotations

from arena.games.base import Game, Option
from arena.games.fifth_avenue.board import BOARDS
from arena.games.fifth_avenue.state import FifthAvenueState


class FifthAvenue(Game):
    name = "fifth-avenue"
    title = "Fifth Avenue"
    description = "Build skyscrapers next to businesses in Manhattan; auctions with building cards (2-4 players)"
    player_counts = (2, 3, 4)
    # [decision] Six-plot players: the rules call the 6-plot board best with 4 players; it is
    # allowed with 2, 3 and 4.
    options = (
        Option("board", "choice", "5-plot",
               "5-plot, or the 6-plot variant board (best with 4 players; allowed for 2-4)",
               choices=BOARDS),
    )

    def create_state(self, players: int, seed: int, options: dict) -> FifthAvenueState:
        return FifthAvenueState(players, seed, options)


__all__ = ["FifthAvenue", "FifthAvenueState"]
