"""TrueSkill updates from match results: free-for-all ranks, draws, teams."""

from __future__ import annotations

import pytest

from arena.results.ratings import MU, SIGMA, conservative, rate


def test_a_new_bot_starts_at_the_default_rating():
    (winner, loser) = rate([None, None], [1, 2])
    assert winner[0] > MU > loser[0]
    assert winner[1] < SIGMA and loser[1] < SIGMA


def test_a_tie_between_equals_leaves_their_means_equal():
    (a, b) = rate([None, None], [1, 1])
    assert a[0] == pytest.approx(MU) and b[0] == pytest.approx(MU)
    assert a[1] < SIGMA


def test_free_for_all_orders_gains_by_rank():
    after = rate([(25.0, 8.0)] * 4, [2, 1, 4, 3])
    mus = [mu for mu, _ in after]
    assert mus[1] > mus[0] > mus[3] > mus[2]


def test_shared_ranks_are_draws():
    after = rate([(25.0, 8.0)] * 3, [1, 1, 3])
    assert after[0] == pytest.approx(after[1], abs=0.05)  # TrueSkill's message passing is approximate
    assert after[0][0] > after[2][0]


def test_teammates_are_one_rating_group():
    after = rate([(25.0, 8.0), (25.0, 8.0), (25.0, 8.0), (25.0, 8.0)], [1, 2, 1, 2], teams=[[0, 2], [1, 3]])
    assert after[0] == pytest.approx(after[2])
    assert after[1] == pytest.approx(after[3])
    assert after[0][0] > 25 > after[1][0]


def test_uneven_teams_of_a_three_player_match():
    after = rate([(25.0, 8.0)] * 3, [2, 1, 1], teams=[[0], [1, 2]])
    assert after[0][0] < 25 < after[1][0]


def test_beating_a_strong_bot_gains_more_than_beating_a_weak_one():
    upset = rate([(20.0, 3.0), (30.0, 3.0)], [1, 2])[0][0] - 20.0
    expected = rate([(20.0, 3.0), (10.0, 3.0)], [1, 2])[0][0] - 20.0
    assert upset > expected


def test_conservative_skill_is_mu_minus_three_sigma():
    assert conservative(25.0, 2.0) == 19.0


def test_rating_count_must_match_rank_count():
    with pytest.raises(ValueError):
        rate([None], [1, 2])
