"""A person plays bots through the page, in Debian's Chromium (Playwright): a whole match of
each game clicked through to the end, then the stored, rated result checked; the page gets
only its own seat's view; a refused action shows the engine's reason and the person tries
again. The bots are real processes in the sandbox; the server is `create_app` with a
`PlayHost`, as `arena play` and `arena serve` run it.

Screenshots at 390, 768 and 1440 px go to the test's tmp folder (and, with
ARENA_SCREENSHOTS=DIR, to DIR as play-WIDTH.png)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from arena.results.store import Store
from arena.results.submit import register
from arena.tournament.humanplay import PlayHost, prepare
from arena.web import data
from arena.web.app import create_app
from arena.web.replay import Replay
from browsing import WAIT_MS, serving
from waiting import PATIENCE

REPO = Path(__file__).resolve().parents[2]
BOTS = REPO / "bots"
OVER = "['over', 'failed'].includes(document.getElementById('play').dataset.state)"


@pytest.fixture(scope="module")
def play_db(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("playdb")
    os.chmod(root, 0o755)
    path = root / "arena.db"
    with Store(path) as store:
        register(store, BOTS / "random.py", "five-towers", "random")
        register(store, BOTS / "five_towers_heuristic.py", "five-towers", "heuristic")
    return path


@pytest.fixture(scope="module")
def host(play_db):
    host = PlayHost(play_db, think_s=60, bank_s=0)
    yield host
    host.close()


@pytest.fixture(scope="module")
def server(play_db, host):
    with serving(create_app(str(play_db), play=host)) as url:
        yield url


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.errors = []
    page.views = []  # every view of the seat the page was sent
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("console", lambda message: page.errors.append(message.text) if message.type == "error" else None)

    def keep(response):
        if "/api/play/" in response.url and response.request.method == "GET" and response.ok:
            page.views.append(response.json())
    page.on("response", keep)
    yield page
    context.close()


def play_to_the_end(page) -> int:
    """Click a legal action (a different one each step) until the match is over; returns how many."""
    clicks = 0
    while True:
        page.wait_for_function(f"() => {OVER} || (document.getElementById('play').dataset.state === 'deciding'"
                               " && !document.getElementById('play').dataset.sending)")
        if page.evaluate(f"() => {OVER}"):
            return clicks
        step = page.get_attribute("#play", "data-step")
        buttons = page.locator("#p-actions button.play-action[data-index]")
        if buttons.count():
            buttons.nth(int(step) % buttons.count()).click()
        else:  # many legal actions: a list to choose from
            options = page.locator("#p-choice option").count()
            assert options, (page.errors, page.inner_html("#p-actions"))
            page.select_option("#p-choice", index=int(step) % options)
            page.click("#p-choose")
        clicks += 1
        page.wait_for_function(f"() => {OVER} || document.getElementById('play').dataset.step !== '{step}'")


def stored(play_db: Path, match_id: int) -> dict:
    with Store(play_db) as store:
        match = store.match(match_id)
        seats = store.query("SELECT s.seat, s.status, s.rank, s.decisions, v.language, b.name, m.rating_seq"
                            " FROM match_seats s JOIN bot_versions v ON v.id = s.bot_version_id"
                            " JOIN bots b ON b.id = v.bot_id JOIN matches m ON m.id = s.match_id"
                            " WHERE s.match_id = ? ORDER BY s.seat", [match_id])
        ratings = {row["name"]: row["matches"] for row in store.query(
            "SELECT b.name, r.matches FROM ratings r JOIN bot_versions v ON v.id = r.bot_version_id"
            " JOIN bots b ON b.id = v.bot_id WHERE r.game = ?", [match["game"]])}
    return {"match": match, "seats": seats, "ratings": ratings}


def assert_only_own_seat_was_sent(views: list[dict], log: list[dict], seat: int) -> None:
    """Every view the page got is this seat's request as logged (its own observation), or the end."""
    sent = {e["step"]: e["message"] for e in log if e["event"] == "request" and e["seat"] == seat}
    requests = [view["request"] for view in views if view["request"] is not None]
    assert requests, "the page never got a request"
    for view in views:
        assert set(view) == {"version", "request", "time_left_ms", "end", "problem", "done", "match_id"}
    for request in requests:
        assert request["seat"] == seat
        assert request == sent[request["step"]]


@pytest.mark.parametrize("game,opponents,seat", [
    ("five-towers", ["heuristic"], 1),
    ("agent-avenue", [str(BOTS / "agent_avenue_heuristic.py")], 0),
    ("fifth-avenue", [str(BOTS / "fifth_avenue_heuristic.py"), str(BOTS / "random.py")], 2),
])
def test_a_whole_match_played_through_the_page_is_stored_and_rated(play_db, host, server, page, game, opponents,
                                                                   seat):
    with Store(play_db) as store:
        match = prepare(store, game, opponents, "ada", seat=seat, seed=11, think_s=60, bank_s=0)
    host.add(match.start())
    page.goto(f"{server}/play/{match.token}")
    clicks = play_to_the_end(page)
    page.wait_for_selector("#p-replay")  # the result is stored
    assert page.get_attribute("#play", "data-state") == "over"
    facts = stored(play_db, match.match_id)
    assert facts["match"]["status"] == "finished" and facts["seats"][0]["rating_seq"] is not None
    person = facts["seats"][seat]
    assert (person["name"], person["language"], person["status"]) == ("ada", "human", "ok")
    assert person["decisions"] == clicks
    assert facts["ratings"]["ada"] >= 1
    assert page.inner_text(f"[data-testid=final-rank-{seat}]") == str(person["rank"])
    assert_only_own_seat_was_sent(page.views, facts["match"]["log"], seat)
    with Store(play_db) as store:
        check = Replay(data.match(store, match.match_id, with_log=True)).summary(check=True)["verification"]
    assert check["ok"] and check["done"], check  # its replay is the engine's, as for any match
    assert page.errors == []


def test_a_refused_action_shows_the_engines_reason_and_the_person_tries_again(play_db, host, server, page):
    with Store(play_db) as store:
        match = prepare(store, "five-towers", ["random"], "bea", seat=0, seed=12, think_s=60, bank_s=0)
    host.add(match.start())
    page.goto(f"{server}/play/{match.token}")
    page.wait_for_function("() => document.getElementById('play').dataset.state === 'deciding'")
    page.click("#p-typed summary")
    page.fill("#p-typed-text", '{"type": "build", "card": 99, "tower": 7}')
    page.click("#p-typed-form button")
    page.wait_for_selector("#p-message.bad")
    message = page.inner_text("#p-message")
    assert "try again" in message and "not allowed" in message
    assert page.get_attribute("#play", "data-state") == "deciding"
    play_to_the_end(page)
    page.wait_for_selector("#p-replay")  # the result is stored (the page says so only then)
    facts = stored(play_db, match.match_id)
    assert facts["seats"][0]["status"] == "ok"  # a refused action is no failure


def test_a_person_starts_a_match_from_the_play_page_and_it_shows_at_three_widths(play_db, server, page, tmp_path):
    page.goto(f"{server}/play")
    form = page.locator("section[data-game=five-towers] form")
    form.locator("input[name=name]").fill("cy")
    form.locator("input[name=vs][value=random]").check()
    form.locator("select[name=seat]").select_option("0")
    form.locator("button[type=submit]").click()
    page.wait_for_function("() => document.getElementById('play').dataset.state === 'deciding'")
    assert "/play/" in page.url
    shown = page.inner_text("#p-clock")
    assert re.fullmatch(r"\d+:\d\d", shown), shown
    page.wait_for_function(f"() => document.getElementById('p-clock').textContent !== '{shown}'")  # counting down
    saved = os.environ.get("ARENA_SCREENSHOTS")
    for width in (390, 768, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{overflow} px of horizontal overflow at {width} px"
        shot = tmp_path / f"play-{width}.png"
        page.screenshot(path=str(shot), full_page=True)
        if saved:
            shutil.copy(shot, Path(saved) / shot.name)
    play_to_the_end(page)
    page.wait_for_selector("#p-replay")


def test_a_post_from_another_site_cannot_start_a_match(server, play_db):
    import urllib.error
    import urllib.request

    request = urllib.request.Request(f"{server}/play", data=b"game=five-towers&vs=random&name=mallory",
                                     headers={"Origin": "http://evil.example",
                                              "Content-Type": "application/x-www-form-urlencoded"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=PATIENCE)
    assert refused.value.code == 403
    with Store(play_db) as store:
        assert store.bot_versions("five-towers", "mallory") == []


def test_the_view_json_is_the_seats_request_only(play_db, host):
    """Without a browser: what a page is sent while a bot holds cards is only the person's seat."""
    with Store(play_db) as store:
        match = prepare(store, "agent-avenue", [str(BOTS / "random.py")], "dee", seat=1, seed=13,
                        think_s=60, bank_s=0)
    host.add(match.start())
    view = match.view(0, wait_s=PATIENCE)
    while view["request"] is None:
        view = match.view(view["version"], wait_s=PATIENCE)
    match.leave()
    match.thread.join(PATIENCE)
    log = stored(play_db, match.match_id)["match"]["log"]
    assert_only_own_seat_was_sent([view], log, 1)


def test_the_game_page_leaves_people_out_with_humans_0(play_db, host):
    from starlette.testclient import TestClient

    with Store(play_db) as store:
        match = prepare(store, "five-towers", ["random"], "eli", seat=0, seed=14, think_s=0.2, bank_s=0)
    host.add(match.start())
    match.thread.join(PATIENCE)
    with TestClient(create_app(str(play_db))) as client:
        everyone = {e["bot"] for e in client.get("/api/games/five-towers/leaderboard").json()["entries"]}
        bots = {e["bot"] for e in client.get("/api/games/five-towers/leaderboard?humans=0").json()["entries"]}
        board = client.get("/games/five-towers?humans=0").text.split("<h2>Tournaments")[0]  # the leaderboard
        assert client.get("/play").status_code == 404  # no play host: no play pages
    assert "eli" in everyone and "eli" not in bots and "random" in bots
    assert "eli" not in board and "random" in board and "bots only" in board
