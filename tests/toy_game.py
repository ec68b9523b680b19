"""A tiny game for harness tests: each seat in turn takes 1, 2 or 3 points, for `rounds` rounds.

Not registered by default; `conftest.py` registers it as "toy" so harness tests can play
short, exactly predictable matches with real bot processes.
"""

from arena.games.base import Game, GameState, IllegalAction, Option


class ToyState(GameState):
    def __init__(self, players: int, rounds: int):
        self.players = players
        self.rounds = rounds
        self.points = [0] * players
        self.step = 0

    def current_seat(self):
        return None if self.is_over() else self.step % self.players

    def observation(self, seat):
        return {"seat": seat, "points": list(self.points), "step": self.step}

    def legal_actions(self):
        return [{"type": "take", "amount": n} for n in (1, 2, 3)]

    def apply(self, action):
        amount = action.get("amount") if isinstance(action, dict) else None
        if action not in self.legal_actions() or type(amount) is not int:
            raise IllegalAction(f"take 1, 2 or 3 points, e.g. {{\"type\": \"take\", \"amount\": 2}}; got {action!r}")
        self.points[self.current_seat()] += action["amount"]
        self.step += 1

    def is_over(self):
        return self.step >= self.rounds * self.players

    def scores(self):
        return list(self.points)

    def snapshot(self):
        return {"points": list(self.points), "step": self.step}


class Toy(Game):
    name = "toy"
    title = "Toy"
    description = "take 1-3 points a turn (harness tests only)"
    player_counts = (2, 3, 4)
    options = (Option("rounds", "int", 3, "rounds to play", minimum=1, maximum=1000),)

    def create_state(self, players, seed, options):
        return ToyState(players, options["rounds"])
