"""Final standings refit from all matches at once: the same for any match order, Bradley–Terry
for two players and Plackett–Luce for more, ties as half wins, bootstrap intervals and bands,
and a finished tournament's leaderboard, table, CSV and JSON built on it."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import synthetic
from arena.results import refit
from arena.results.leaderboard import REFIT_COLUMNS, render, tournament_leaderboard
from arena.results.refit import Seat
from arena.results.store import Store


def simulated(bots: int, matches: int, players: int, seed: int = 0, ties: float = 0.1) -> list[list[Seat]]:
    """Matches among bots of strengths 0, 0.4, 0.8, … (Gumbel noise: Plackett–Luce)."""
    rng = np.random.default_rng(seed)
    result = []
    for _ in range(matches):
        seats = rng.choice(bots, players, replace=False)
        performance = 0.4 * seats + rng.gumbel(size=players)
        ranks = np.empty(players, int)
        ranks[np.argsort(-performance)] = np.arange(1, players + 1)
        if rng.random() < ties:
            ranks[ranks == 2] = 1
        result.append([Seat(int(v), int(r)) for v, r in zip(seats, ranks)])
    return result


@pytest.mark.parametrize("players", [2, 4])
def test_standings_are_identical_for_any_order_of_the_matches(players):
    matches = simulated(6, 150, players)
    first = refit.refit(matches, list(range(6)), samples=40)
    shuffled = matches[:]
    random.Random(1).shuffle(shuffled)
    shuffled = [random.Random(2).sample(match, len(match)) for match in shuffled]  # seats in any order too
    assert refit.refit(shuffled, list(range(6)), samples=40) == first


def test_the_refit_recovers_the_true_order_of_clearly_different_bots():
    standings = refit.refit(simulated(6, 600, 4, ties=0.0), list(range(6)), samples=40)
    assert [s.version for s in standings] == [5, 4, 3, 2, 1, 0]
    assert standings[-1].rating + 300 < standings[0].rating < standings[-1].rating + 400  # truly 347 Elo apart


def test_two_players_are_bradley_terry_with_a_draw_as_half_a_win_each_way():
    import choix

    matches = [[Seat(0, 1), Seat(1, 2)]] * 3 + [[Seat(1, 1), Seat(0, 2)]] + [[Seat(0, 1), Seat(2, 1)]] * 2 + \
        [[Seat(2, 1), Seat(1, 2)]]
    standings = {s.version: s.rating for s in refit.refit(matches, [0, 1, 2], samples=5)}
    reference = 3  # every bot draws one virtual match against a reference bot
    pairs = [(0, 1)] * 6 + [(1, 0)] * 2 + [(0, 2), (2, 0)] * 2 + [(2, 1)] * 2
    pairs += [pair for item in range(3) for pair in ((item, reference), (reference, item))]
    expected = choix.ilsr_pairwise(4, pairs, tol=1e-12, max_iter=1000)[:3] * refit.ELO_PER_NATURAL_LOG
    expected -= expected.mean()
    assert [standings[v] for v in range(3)] == pytest.approx(list(expected), abs=1e-4)


def test_bots_tied_at_a_rank_get_equal_ratings_above_those_they_beat():
    matches = [[Seat(0, 1), Seat(1, 1), Seat(2, 3)]] * 5 + [[Seat(1, 1), Seat(0, 1), Seat(2, 3)]] * 5
    standings = {s.version: s for s in refit.refit(matches, [0, 1, 2], samples=20)}
    assert standings[0].rating == pytest.approx(standings[1].rating, abs=1e-6)
    assert standings[0].rating > standings[2].rating + 200
    assert standings[0].band == standings[1].band == 1 and standings[2].band == 3


def test_teammates_sharing_a_rank_are_not_compared_with_each_other():
    seats = refit.match_events([Seat(0, 1, team=0), Seat(1, 1, team=0), Seat(2, 2, team=1), Seat(3, 2, team=1)])
    assert (0, (0, 1), 0.5) not in seats and (0, (0, 2, 3), 1.0) in seats


def test_the_weighted_resample_fit_agrees_with_choix_on_the_full_data():
    matches = refit.canonical(simulated(8, 200, 3, seed=3))
    index = {v: v for v in range(8)}
    events = refit._events(matches, index)
    by_choix = refit._choix_fit(8, events)
    ours = refit.mm_fit(refit._incidence(8, events), np.array(events.winners), np.array(events.weights), np.zeros(9))
    assert ours - ours[-1] == pytest.approx(by_choix - by_choix[-1], abs=1e-6)


def test_a_sure_winner_ranks_first_in_every_resample_and_equal_bots_share_a_band():
    matches = [[Seat(0, 1), Seat(other, 2)] for other in (1, 2) for _ in range(20)]
    matches += [[Seat(1, 1), Seat(2, 2)], [Seat(2, 1), Seat(1, 2)]] * 10
    standings = refit.refit(matches, [0, 1, 2], samples=100)
    assert (standings[0].version, standings[0].rank_interval, standings[0].band) == (0, (1, 1), 1)
    assert standings[1].band == standings[2].band == 2
    assert standings[1].rank_interval == standings[2].rank_interval == (2, 3)
    assert standings[0].rating_interval[0] < standings[0].rating < standings[0].rating_interval[1]


def test_the_bootstrap_is_reproducible():
    matches = simulated(5, 100, 3, seed=5)
    assert refit.refit(matches, list(range(5)), samples=30) == refit.refit(matches, list(range(5)), samples=30)


# ---- a finished tournament ---------------------------------------------------------------------

def finished_tournament(store: Store, order_seed: int) -> int:
    """A 4-bot round-robin whose results are stored in a shuffled order; bot i scores i."""
    tournament_id = synthetic.tournament(store, bots=4, players=2, rounds=3)
    matches = store.pending_matches(tournament_id)
    random.Random(order_seed).shuffle(matches)
    for match in matches:
        strength = [v % 4 for v in match["versions"]]
        noise = random.Random(match["seed"])
        store.record_match(match["id"], synthetic.result([s + 2.5 * noise.random() for s in strength]))
    store.set_tournament_status(tournament_id, "finished")
    return tournament_id


def test_a_finished_tournament_is_ranked_by_the_refit_whatever_order_its_results_were_stored(tmp_path):
    boards = []
    for seed in (1, 2):
        with Store(tmp_path / f"{seed}.db") as store:
            board = tournament_leaderboard(store, finished_tournament(store, seed))
            boards.append([(e["bot"], e["rank"], e["band"], e["rating"], e["rank_interval"]) for e in board["entries"]])
            assert board["standings"] == "refit"
    assert boards[0] == boards[1]


def test_the_leaderboard_table_csv_and_json_show_refit_ratings_intervals_and_bands(tmp_path):
    with Store(tmp_path / "arena.db") as store:
        board = tournament_leaderboard(store, finished_tournament(store, 1))
    table = render([board], "table")
    assert "final standings (refit" in table and "band" in table.splitlines()[1]
    header, *rows = render([board], "csv").splitlines()
    assert header.split(",")[-len(REFIT_COLUMNS):] == REFIT_COLUMNS and len(rows) == 4
    entry = json.loads(render([board], "json"))["entries"][0]
    assert {"band", "rating", "rating_interval", "rank_interval"} <= set(entry)


def test_an_unfinished_tournament_keeps_the_trueskill_order(tmp_path):
    with Store(tmp_path / "arena.db") as store:
        tournament_id = synthetic.tournament(store, bots=3)
        assert tournament_leaderboard(store, tournament_id)["standings"] == "trueskill"
