"""The match log: every request and reply in order, and reproducible from the seed."""

from pathlib import Path

from arena.runner.match import MatchSpec, play_match, strip_timing

BOTS = Path(__file__).resolve().parents[1] / "bots"


def five_towers(seed, bots=(BOTS / "random.py", BOTS / "random.py", BOTS / "random.py")):
    return play_match(MatchSpec("five-towers", [str(b) for b in bots], seed=seed))


def test_same_seed_and_deterministic_bots_give_the_same_log():
    first, second = five_towers(11), five_towers(11)
    assert strip_timing(first.log) == strip_timing(second.log)
    assert first.scores == second.scores


def test_another_seed_gives_another_match():
    assert strip_timing(five_towers(11).log) != strip_timing(five_towers(12).log)


def test_log_has_a_reply_and_an_action_for_every_request(test_bot):
    result = play_match(MatchSpec("toy", [test_bot("greedy.py"), str(BOTS / "random.py")], seed=3))
    kinds = [event["event"] for event in result.log]
    assert kinds[:4] == ["start", "start", "ready", "ready"]
    assert kinds[4:-1] == ["request", "reply", "action"] * 6
    assert kinds[-1] == "end"
    assert result.log[6]["debug"] == "max"


def test_fallback_actions_are_logged_as_such(tmp_path, test_bot):
    from botmaker import write_bot

    crasher = write_bot(tmp_path, "crasher", on_start="sys.exit(1)")
    result = play_match(MatchSpec("toy", [crasher, test_bot("greedy.py")], seed=3))
    fallbacks = [e for e in result.log if e["event"] == "action" and e["by"] == "fallback"]
    assert [e["seat"] for e in fallbacks] == [0, 0, 0]


def test_team_ranks_are_ranks_of_teams(tmp_path):
    from botmaker import write_bot

    bot = write_bot(tmp_path, "first_legal")
    result = play_match(MatchSpec("agent-avenue", [bot] * 4, seed=5))
    assert result.teams == [[0, 2], [1, 3]]
    assert sorted(result.ranks) == [1, 1, 2, 2]
    assert result.ranks[0] == result.ranks[2] and result.ranks[1] == result.ranks[3]


def test_a_failed_teammate_puts_the_whole_team_last(tmp_path):
    from botmaker import write_bot

    good, crasher = write_bot(tmp_path, "good"), write_bot(tmp_path, "crasher", on_start="sys.exit(1)")
    result = play_match(MatchSpec("agent-avenue", [good, good, crasher, good], seed=5))
    assert result.ranks == [2, 1, 2, 1]
