"""`arena tournament plan`: exact match counts before a run, and the advised Swiss with finals."""

from __future__ import annotations

from click.testing import CliRunner

from arena.cli import main
from arena.tournament.advice import MEASURED, plan_text, recommended


def test_the_advised_swiss_with_finals_for_200_bots_costs_under_a_tenth_of_a_round_robin():
    plan = recommended(200)
    assert (plan.rounds, plan.finals) == (8, [(30, 1), (16, 6)])
    assert (plan.swiss_matches, plan.final_matches, plan.total) == (1600, [870, 1440], 3910)
    assert plan.total <= 39800 / 10


def test_a_smaller_field_gets_smaller_finals():
    plan = recommended(100)
    assert (plan.rounds, plan.finals, plan.total) == (7, [(20, 1), (11, 6)], 700 + 380 + 660)


def test_a_small_field_is_advised_a_round_robin_and_more_players_get_only_counts():
    assert "advice: the round-robin" in plan_text(40)
    assert "no measured recommendation" in plan_text(100, players=4)


def test_tournament_plan_prints_the_round_robin_count_and_one_tournament_to_run():
    result = CliRunner().invoke(main, ["tournament", "plan", "--bots", "200", "--game", "five-towers"])
    assert result.exit_code == 0, result.output
    assert "round-robin, 1 round: 39800 matches (398 a bot)" in result.output
    assert "3910 matches, 9.8 % of the round-robin's" in result.output
    assert ("arena tournament run --game five-towers --format swiss --rounds 8 --finals 30x1,16x6 --duplicate"
            in result.output)
    assert 'finals = [[30, 1], [16, 6]], duplicate = true' in result.output


def test_the_plan_gives_each_game_s_measured_figures_and_says_how_they_were_measured():
    text = plan_text(200)
    for game in ("five-towers", "agent-avenue", "fifth-avenue"):
        measured = MEASURED[game]
        assert f"{game}, measured at {measured.bots} bots ({measured.how})" in text
    only = plan_text(200, game="agent-avenue")
    assert "agent-avenue, measured" in only and "five-towers" not in only


def test_tournament_plan_refuses_an_unknown_game_in_one_line():
    result = CliRunner().invoke(main, ["tournament", "plan", "--bots", "200", "--game", "chess"])
    assert result.exit_code != 0 and "unknown game 'chess'" in result.output
