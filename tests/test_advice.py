"""`arena tournament plan`: exact match counts before a run, and the staged advice."""

from __future__ import annotations

from click.testing import CliRunner

from arena.cli import main
from arena.tournament.advice import plan_text, staged


def test_the_staged_plan_for_200_bots_costs_under_a_tenth_of_a_round_robin():
    plan = staged(200)
    assert (plan.swiss_rounds, plan.finalists, plan.last, plan.last_rounds) == (8, 30, 16, 6)
    assert (plan.swiss_matches, plan.final_matches, plan.last_matches, plan.total) == (1600, 870, 1440, 3910)
    assert plan.total <= 39800 / 10


def test_a_small_field_is_advised_a_round_robin_and_more_players_get_only_counts():
    assert "advice: the round-robin" in plan_text(40)
    assert "no measured recommendation" in plan_text(100, players=4)


def test_tournament_plan_prints_the_round_robin_count_and_the_advice():
    result = CliRunner().invoke(main, ["tournament", "plan", "--bots", "200"])
    assert result.exit_code == 0, result.output
    assert "round-robin, 1 round: 39800 matches (398 a bot)" in result.output
    assert "3910 matches, 9.8 % of the round-robin's" in result.output
