"""The exact SPRT: its likelihood ratio, its behaviour on streaks, its real error rates on
synthetic pair outcomes, and how an SPRT tournament scores its pairs (harness errors left
out, finer scores with more players)."""

from __future__ import annotations

import numpy as np
import pytest

from arena.results import gsprt as sprt, statistics
from arena.results.sprt_simulation import games_with_mean, simulate, wins_or_ties
from arena.tournament.plans import Sprt, Stored

S0, S1 = sprt.elo_to_score(0), sprt.elo_to_score(10)


def test_59_tied_pairs_accept_nothing_and_102_accept_h0():
    assert statistics.sprt_decision([0.5] * 59, 0, 10, 0.05, 0.05)[0] is None
    assert statistics.sprt_decision([0.5] * 101, 0, 10, 0.05, 0.05)[0] is None
    assert statistics.sprt_decision([0.5] * 150, 0, 10, 0.05, 0.05)[:2] == ("H0", 102)


def test_a_streak_of_won_or_lost_pairs_needs_about_a_hundred_pairs_for_a_verdict():
    assert statistics.sprt_decision([1.0] * 20, 0, 10, 0.05, 0.05)[0] is None
    assert statistics.sprt_decision([1.0] * 200, 0, 10, 0.05, 0.05)[:2] == ("H1", 104)
    assert statistics.sprt_decision([0.0] * 200, 0, 10, 0.05, 0.05)[:2] == ("H0", 101)


@pytest.mark.parametrize("counts,expected", [([3, 10, 50, 12, 5], 0.31768356161109845),
                                             ([0, 0, 59, 0, 0], -1.7146476370782036),
                                             ([7, 20, 30, 25, 9], 0.3066816645745658)])
def test_the_llr_of_pentanomial_counts_is_the_one_fishtest_computes(counts, expected):
    # The expected values are fishtest's LLRcalc.LLR_logistic(0, 10, counts).
    value = sprt.llr_counts(np.array(counts), np.array(sprt.pair_values(2)), S0, S1)
    assert value == pytest.approx(expected, abs=1e-9)


def test_the_llr_after_each_pair_is_the_llr_of_that_prefix():
    rng = np.random.default_rng(3)
    scores = list(rng.choice(sprt.pair_values(2), size=300, p=[0.1, 0.2, 0.35, 0.25, 0.1]))
    prefixes = sprt.llr_prefixes(scores, 0, 10)
    for n in (1, 17, 150, 300):
        assert prefixes[n - 1] == pytest.approx(statistics.llr(scores[:n], 0, 10), abs=1e-9)


def test_with_more_players_a_pair_can_score_in_eighths_and_shares_of_tied_ranks():
    assert sprt.pair_values(5) == [k / 8 for k in range(9)]
    assert list(sprt.support([0.5, 7 / 12], 4)) == pytest.approx(sorted(set(sprt.pair_values(4)) | {7 / 12}))


MIXES = {  # pair-score distribution of a given mean; simulated tests (the short tie mixes get more)
    "independent games": (lambda score: games_with_mean(score, draw=0.0), 1000),
    "games with 50% draws": (lambda score: games_with_mean(score, draw=0.5), 1000),
    "90% tied pairs": (lambda score: wins_or_ties(score, ties=0.9), 1500),
    "97% tied pairs": (lambda score: wins_or_ties(score, ties=0.97), 2000),
}


@pytest.mark.parametrize("mix", MIXES)
@pytest.mark.parametrize("truth", ["H0", "H1"])
def test_simulated_error_rates_are_within_one_and_a_half_points_of_alpha_and_beta(mix, truth):
    # At the true score of H0 a verdict of H1 is an error (rate α), and the other way round.
    # (bench/sprt_errors.py runs 20,000 tests of each: the rates are 3.9-5.5 %.)
    make, tests = MIXES[mix]
    outcome = simulate(make(S0 if truth == "H0" else S1), 0, 10, 0.05, 0.05, tests, seed=list(MIXES).index(mix))
    assert outcome.unfinished == 0
    wrong = outcome.accepted_h1 if truth == "H0" else outcome.accepted_h0
    assert abs(wrong / outcome.tests - 0.05) <= 0.015, (mix, truth, outcome)


# ---- an SPRT tournament's pairs ----------------------------------------------------------------

def test_skipping_pairs_far_from_the_bounds_gives_the_same_simulated_tests():
    for distribution in (games_with_mean(S1, draw=0.3), wins_or_ties(S0, ties=0.9)):
        assert simulate(distribution, 0, 10, 0.05, 0.05, 100, seed=4) == \
            simulate(distribution, 0, 10, 0.05, 0.05, 100, seed=4, skip=False)


def rows_of(deal: int, matches: list[list[tuple[int, int]]], players: int) -> list[statistics.SeatRow]:
    """Seat rows of finished matches on one deal: each match a list of (version, rank)."""
    rows = []
    for number, match in enumerate(matches):
        for seat, (version, rank) in enumerate(match):
            row = statistics.SeatRow(deal * 10 + number, deal * 2 + number, deal, deal, seat, version, rank, 0.0, "ok",
                                     players)
            row.points = statistics.points(rank, players, sum(1 for _, other in match if other == rank))
            rows.append(row)
    return rows


def stored_with(rows, pending=(), errors=()) -> Stored:
    entries = [{"position": p, "bot_version_id": p, "withdrawn": 0} for p in range(5)]
    return Stored({"config": {}}, entries, rows, 0, 0, 0, set(pending), set(errors))


def two_player_plan() -> Sprt:
    return Sprt(2, 1, None, None, 0, 10, 0.05, 0.05, 0)


def test_a_pair_with_a_harness_error_is_left_out_and_later_pairs_still_count():
    won = [[(0, 1), (1, 2)], [(1, 2), (0, 1)]]
    rows = rows_of(0, won, 2) + rows_of(1, won[:1], 2) + rows_of(2, won, 2)   # deal 1: one match failed
    assert two_player_plan().pairs(stored_with(rows, errors={1})) == [1.0, 1.0]


def test_pairs_count_in_deal_order_up_to_the_first_pair_still_being_played():
    won = [[(0, 1), (1, 2)], [(1, 2), (0, 1)]]
    rows = rows_of(0, won, 2) + rows_of(2, won, 2)
    assert two_player_plan().pairs(stored_with(rows, pending={1})) == [1.0]


def test_a_two_player_pair_scores_the_new_versions_mean_points_over_both_seat_orders():
    split = [[(0, 1), (1, 2)], [(1, 1), (0, 2)]]
    drawn_and_won = [[(0, 1), (1, 1)], [(1, 2), (0, 1)]]
    rows = rows_of(0, split, 2) + rows_of(1, drawn_and_won, 2)
    assert two_player_plan().pairs(stored_with(rows)) == [0.5, 0.75]


def test_a_four_player_pair_scores_half_plus_half_the_difference_of_the_two_versions_points():
    plan = Sprt(4, 1, None, None, 0, 10, 0.05, 0.05, 3)
    # new (0) places 2nd where old (1) places 4th, the same field (2, 3, 4) in the same seats
    rows = rows_of(0, [[(0, 2), (2, 1), (3, 3), (4, 4)], [(1, 4), (2, 1), (3, 2), (4, 3)]], 4)
    assert plan.pairs(stored_with(rows)) == [pytest.approx(0.5 + (2 / 3 - 0) / 2)]


def new_wins_some_fail(spec, bots=None):
    """A stand-in match: the bot named 'new' wins; every seventh deal's first match is lost by
    the harness (an error, not a bot's fault)."""
    from types import SimpleNamespace

    from synthetic import result

    if spec.seed % 7 == 0 and "new" in spec.bots[0]:
        raise OSError("worker lost")
    scores = [1.0 if "new" in path else 0.0 for path in spec.bots]
    return SimpleNamespace(to_dict=lambda: result(scores, game=spec.game))


def test_an_sprt_with_harness_errors_goes_on_counting_later_pairs_and_reaches_a_verdict(tmp_path):
    from arena.results.store import Store
    from arena.tournament import TournamentConfig, create, run
    from botmaker import write_bot

    bots = [write_bot(tmp_path / "src", "new"), write_bot(tmp_path / "src", "old")]
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, format="sprt", elo0=0, elo1=10,
                                                       batch=16, max_matches=2000, seed=1))
        summary = run(store, tournament_id, workers=1, play=new_wins_some_fail)
        state = store.tournament(tournament_id)["format_state"]
    assert summary.errors > 0
    assert state["verdict"] == "H1" and state["pairs"] == 104  # the streak's count: no pair after an error lost
    assert summary.played + summary.errors < 2000
