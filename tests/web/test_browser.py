"""The pages in a real browser: Debian's Chromium driven by Playwright, against `arena serve`'s
app on a loopback port. The boards are compared with the engine's own state at known steps
(replayed here from the stored seed and actions, independently of arena.web.replay).

Screenshots go to the test's tmp folder; with ARENA_SCREENSHOTS=DIR they are also saved there
under stable names (that is how docs/screenshots/ is made).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from arena.games import get_game
from arena.runner.cgroups import cpu_readable as cgroups_cpu_readable
from arena.results.store import Store
from arena.web.export import write_replay
from webfixtures import EVIL_DEBUG, EVIL_DEBUG_2, EVIL_NAME, EVIL_STDERR, play_pending
from waiting import PATIENCE  # noqa: E402
from browsing import WAIT_MS  # noqa: E402

STATIC = Path(__file__).resolve().parents[2] / "arena" / "web" / "static"
# the viewer's own files, as the one inline script of a Five Towers match page (arena.web.assets)
VIEWER_SCRIPTS = {"\n".join((STATIC / name).read_text() for name in ("arena.js", "board-five-towers.js", "replay.js",
                                                                     "match.js"))}


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.errors = []
    page.dialogs = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("console", lambda message: page.errors.append(message.text) if message.type == "error" else None)
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    yield page
    context.close()
    assert not page.errors, page.errors
    assert not page.dialogs, page.dialogs


def shoot(page, tmp_path: Path, name: str, full_page: bool = True) -> Path:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 10_000
    keep = os.environ.get("ARENA_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)
    return path


def engine_at(web_db, match_id: int, step: int):
    """The engine's state before decision ``step`` of a stored match, and the actions."""
    with Store(web_db.path) as store:
        match = store.match(match_id)
    actions = [e["action"] for e in match["log"] if e["event"] == "action"]
    game = get_game(match["game"])
    state = game.create_state(match["players"], int(match["seed"]), game.validate(match["players"], match["options"]))
    for action in actions[:step]:
        state.apply(action)
    return state, actions, match


def until(check, timeout: float = PATIENCE, what: str = "the page") -> None:
    """Poll ``check`` (Python, through locators: the pages' CSP forbids Playwright's
    string-evaluating wait_for_function)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def frame(page) -> int:
    return int(page.locator("#v-board").get_attribute("data-frame"))


def wait_frame(page, number: int, view: str | None = None) -> None:
    selector = f'#v-board[data-frame="{number}"]' + (f'[data-view="{view}"]' if view else "")
    page.wait_for_selector(selector)


def test_the_leaderboard_page(page, server, tmp_path):
    page.goto(server + "/games/five-towers?versions=all")
    rows = page.locator("#leaderboard tbody tr")
    assert rows.count() == 4  # the heuristic, random v1 and v2, the hostile bot
    names = [rows.nth(i).get_attribute("data-bot") for i in range(rows.count())]
    assert names[0] == "five_towers_heuristic" and "random" in names
    assert page.locator("#leaderboard svg.interval").count() == 4
    shoot(page, tmp_path, "leaderboard")
    page.goto(server + "/")
    assert page.locator(".game-card").count() >= 3
    shoot(page, tmp_path, "games")


def test_a_bot_page_with_its_rating_history(page, server, web_db, tmp_path):
    page.goto(f"{server}/bots/{web_db.bot_id('five-towers', 'random')}")
    assert page.locator("#versions tbody tr").count() == 2
    plot = page.locator("svg#rating-plot")
    assert plot.is_visible() and plot.locator("g.series polyline").count() == 4
    assert page.locator("#matches tbody tr").count() > 0
    shoot(page, tmp_path, "bot")


def test_five_towers_replay_steps_plays_and_switches_views(page, server, web_db, tmp_path):
    match_id = web_db.match_ids("five-towers")[0]
    page.goto(f"{server}/matches/{match_id}")
    wait_frame(page, 0, "full")
    page.wait_for_selector('#viewer[data-checked="ok"]')  # the check finishes after the first paint
    assert "logged requests match the replay" in page.locator("#v-check").inner_text()
    page.locator("#viewer").focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    wait_frame(page, 3)
    page.keyboard.press("Shift+ArrowRight")
    wait_frame(page, 13)
    page.keyboard.press("ArrowLeft")
    wait_frame(page, 12)

    page.locator("#v-slider").fill("40")
    wait_frame(page, 40)
    state, actions, match = engine_at(web_db, match_id, 40)
    snap = state.snapshot()
    for seat in range(match["players"]):
        for colour, values in snap["towers"][seat].items():
            shown = page.locator(f'[data-tower="{seat}:{colour}"]').get_attribute("data-values")
            assert shown == ",".join(map(str, values)), (seat, colour)
        assert page.locator(f'[data-testid="score-{seat}"]').inner_text() == f"score {snap['scores'][seat]}"
    market = page.locator('[data-testid="market"] [data-card]')
    assert [market.nth(i).get_attribute("data-card") for i in range(market.count())] == \
        [f"{c}:{v}" for c, v in snap["market"]]
    assert json.loads(page.locator('[data-testid="action"]').inner_text()) == actions[40]
    assert page.locator(".ft-draw [data-card]").count() == len(snap["draw_pile"])  # the full view
    shoot(page, tmp_path, "five-towers")

    with Store(web_db.path) as store:  # a decision a bot made: its times, on the match's clock
        actions_logged = [e for e in store.match(match_id)["log"] if e["event"] == "action"]
    by_bot = next(i for i, event in enumerate(actions_logged) if event["by"] == "bot")
    page.locator("#v-slider").fill(str(by_bot))
    wait_frame(page, by_bot)
    facts = page.locator("#v-decision").inner_text()
    assert "wall " in facts and "harness " in facts and " clock" in facts
    if cgroups_cpu_readable():
        assert "CPU " in facts and "CPU" in page.locator("#v-seats").inner_text()

    page.click("#v-play")
    until(lambda: frame(page) > 41, what="play")
    page.click("#v-play")
    stopped = frame(page)
    page.wait_for_timeout(700)
    assert frame(page) == stopped and page.locator("#viewer").get_attribute("data-playing") == "false"
    page.keyboard.press("Space")  # plays again ...
    until(lambda: frame(page) > stopped, what="play again")
    page.keyboard.press("Space")  # ... and pauses

    page.select_option("#v-view", "seat-1")
    wait_frame(page, frame(page), "seat-1")
    assert page.locator(".ft-draw").count() == 0  # a seat does not see the draw pile's order
    assert page.locator('.ft-seat[data-seat="1"] .tag').inner_text() == "this view"
    page.keyboard.press("End")
    last = int(page.locator("#v-slider").get_attribute("max"))
    wait_frame(page, last)
    assert "The game is over." in page.locator("#v-decision").inner_text()
    page.keyboard.press("Home")
    wait_frame(page, 0)


def test_agent_avenue_board_spies_areas_hands(page, server, web_db, tmp_path):
    match_id = web_db.match_ids("agent-avenue")[0]
    with Store(web_db.path) as store:
        log = store.match(match_id)["log"]
    # a step where the chooser decides: both cards are on offer
    step = [e["step"] for e in log if e["event"] == "request" and e["message"]["observation"]["phase"] == "choose"][1]
    state, actions, match = engine_at(web_db, match_id, step)
    snap = state.snapshot()
    page.goto(f"{server}/matches/{match_id}#step={step}&view=full")
    wait_frame(page, step, "full")
    for team in (0, 1):
        spy = page.locator(f'[data-spy="{team}"]')
        assert int(spy.get_attribute("data-position")) == snap["positions"][team]
        for name, count in snap["play_areas"][team].items():
            chip = page.locator(f'[data-area="{team}"] [data-area-agent="{name}"]')
            assert (int(chip.get_attribute("data-count")) if chip.count() else 0) == count
    for seat in range(match["players"]):
        cards = page.locator(f'[data-hand="{seat}"] [data-agent]')
        assert [cards.nth(i).get_attribute("data-agent") for i in range(cards.count())] == sorted(snap["hands"][seat])
    offer = page.locator(".aa-market [data-bm]")
    assert [offer.nth(i).get_attribute("data-bm") for i in range(min(offer.count(), len(snap["bm_offer"])))] == \
        snap["bm_offer"]
    assert page.locator(".aa-space.corner").count() == 4
    offered = page.locator('[data-testid="current-play"] [data-agent]')
    assert [offered.nth(i).get_attribute("data-agent") for i in range(offered.count())] == \
        [snap["face_up"], snap["face_down"]]  # the full view shows the face-down card
    shoot(page, tmp_path, "agent-avenue")

    page.select_option("#v-view", "seat-0")
    wait_frame(page, step, "seat-0")
    assert page.locator('[data-hand="1"] .back').count() == len(snap["hands"][1])  # hidden from seat 0
    if snap["face_down_seat"] != 0:
        assert page.locator('[data-testid="current-play"] .back').count() == 1
    own = page.locator('[data-hand="0"] [data-agent]')
    assert [own.nth(i).get_attribute("data-agent") for i in range(own.count())] == sorted(snap["hands"][0])


def test_fifth_avenue_board_districts_commissioners_auction(page, server, web_db, tmp_path):
    match_id = web_db.match_ids("fifth-avenue")[0]
    with Store(web_db.path) as store:
        log = store.match(match_id)["log"]
    # a step in the middle of an auction, to see the bids
    steps = [e["step"] for e in log if e["event"] == "request" and e["message"]["observation"]["auction"]]
    step = steps[len(steps) // 2]
    state, actions, match = engine_at(web_db, match_id, step)
    public = state.observation(0)
    page.goto(f"{server}/matches/{match_id}#step={step}")
    wait_frame(page, step, "full")
    for district in public["districts"]:
        for plot in district["plots"]:
            shown = page.locator(f'[data-plot="{district["district"]}:{plot["plot"]}"]')
            owner = "" if plot["owner"] is None else str(plot["owner"])
            assert (shown.get_attribute("data-owner"), shown.get_attribute("data-skyscrapers"),
                    shown.get_attribute("data-businesses")) == (owner, str(plot["skyscrapers"]),
                                                                ",".join(plot["businesses"]))
    for colour, place in public["commissioners"].items():
        group = page.locator(f'[data-district="{place}"], [data-place="{place}"]')
        assert group.locator(f'[data-commissioner="{colour}"]').count() == 1
    bidders = page.locator(".fa-auction [data-bidder]")
    assert bidders.count() == len(public["auction"]["bidders"])
    totals = [page.locator(".fa-auction [data-testid=bid-total]").nth(i).inner_text() for i in range(bidders.count())]
    assert totals == [str(b["total"]) for b in public["auction"]["bidders"]]
    snap = state.snapshot()
    black = page.locator('[data-player="1"] .k-black')
    assert black.count() == sum(snap["black"][1])  # the full view shows every black card
    shoot(page, tmp_path, "fifth-avenue")

    page.select_option("#v-view", "seat-2")
    wait_frame(page, step, "seat-2")
    assert "black (hidden)" in page.locator('[data-player="1"]').inner_text()
    assert page.locator('[data-player="2"] .k-black').count() == sum(snap["black"][2])


def test_a_hostile_bot_cannot_inject_markup_or_script(page, server, web_db, tmp_path):
    evil = web_db.bot_id("five-towers", EVIL_NAME)
    with Store(web_db.path) as store:
        row = store.one("SELECT m.id, s.seat FROM matches m JOIN match_seats s ON s.match_id = m.id JOIN bot_versions v"
                        " ON v.id = s.bot_version_id WHERE v.bot_id = ? ORDER BY m.id LIMIT 1", [evil])
        match_id = row["id"]
        log = store.match(match_id)["log"]
    debug_steps = [e["step"] for e in log if e["event"] == "action" and e["seat"] == row["seat"] and e.get("debug")]
    pages = ["/", "/games/five-towers?versions=all", f"/bots/{evil}",
             f"/tournaments/{web_db.tournaments['five-towers']}", f"/matches/{match_id}#step={debug_steps[0]}"]
    for path in pages:
        page.goto(server + path)
        page.wait_for_load_state("load")
        assert page.evaluate("window.__pwned") is None, path
        assert page.locator("img").count() == 0, path
        inline = page.locator("script:not([src]):not([type='application/json'])").all_text_contents()
        assert set(inline) <= VIEWER_SCRIPTS, path  # only the viewer's own scripts (allowed by hash)
    wait_frame(page, debug_steps[0])
    assert page.locator('[data-testid="debug"]').inner_text() == EVIL_DEBUG
    page.keyboard.press("End")
    page.locator("#v-slider").fill(str(debug_steps[1]))
    wait_frame(page, debug_steps[1])
    shown = page.locator('[data-testid="debug"]').inner_text()
    assert shown == EVIL_DEBUG_2.replace("\x1b", "\\x1b").replace("\u202e", "\\u202e")
    assert EVIL_NAME in page.locator("#v-seats").inner_text()
    failure = page.locator("#seats").inner_text()
    assert "<img src=x onerror=" in failure  # the quoted reply line, as text
    shoot(page, tmp_path, "hostile-bot")
    assert page.evaluate("window.__pwned") is None


def test_a_running_tournament_page_updates_itself(page, server, web_db, tmp_path):
    tournament_id = web_db.tournaments["live"]
    page.goto(f"{server}/tournaments/{tournament_id}")
    assert page.locator("#t-status").inner_text() == "created"
    assert page.locator("#t-done").inner_text() == "0"
    page.evaluate("window.__notReloaded = true")

    def play():
        with Store(web_db.path) as store:
            play_pending(store, tournament_id, workers=1, each=lambda match: time.sleep(0.4))

    thread = threading.Thread(target=play)
    thread.start()
    try:
        until(lambda: page.locator("#t-done").inner_text() != "0", 30, "progress")
        until(lambda: page.locator("#t-status").inner_text() == "finished", 30, "the end")
    finally:
        thread.join(60)
    total = page.locator("#t-total").inner_text()
    assert page.locator("#t-done").inner_text() == total == "4"
    assert page.evaluate("window.__notReloaded") is True
    until(lambda: page.locator("#progress").get_attribute("data-refreshed") == "4", 15, "the last refresh")
    rows = page.locator("#standings tbody tr")
    assert rows.count() == 2 and rows.first.locator("td").nth(6).inner_text() == "4"
    assert rows.first.locator("svg.interval").count() == 1
    assert page.locator("#recent-box tbody tr").count() == 4
    assert page.locator("#head-to-head td.win").inner_text() == "4–0–0"  # greedy beats first
    assert rows.first.get_attribute("data-bot") == "greedy"
    assert "ok 8" in page.locator("#statuses-box").inner_text()
    assert page.locator("#t-started-at").inner_text() != "–"
    shoot(page, tmp_path, "tournament")


def test_the_replay_file_works_without_a_network(browser, web_db, tmp_path):
    match_id = web_db.match_ids("fifth-avenue")[0]
    path = tmp_path / "match.html"
    write_replay(web_db.path, match_id, path)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    requested, errors = [], []
    context.route("**/*", lambda route: (requested.append(route.request.url),
                                         route.continue_() if route.request.url.startswith("file:") else route.abort()))
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(path.as_uri())
    wait_frame(page, 0, "full")
    page.locator("#viewer").focus()
    page.keyboard.press("ArrowRight")
    wait_frame(page, 1)
    page.keyboard.press("End")
    last = int(page.locator("#v-slider").get_attribute("max"))
    wait_frame(page, last)
    page.select_option("#v-view", "seat-1")
    wait_frame(page, last, "seat-1")
    assert page.locator("#v-view option").count() == 4  # full and three seats
    shoot(page, tmp_path, "replay-file")
    context.close()
    assert requested == [path.as_uri()]
    assert not errors, errors


def test_the_viewer_shows_each_seat_s_stderr_of_the_current_decision_as_text(page, server, web_db, tmp_path):
    evil = web_db.bot_id("five-towers", EVIL_NAME)
    with Store(web_db.path) as store:
        row = store.one("SELECT m.id, s.seat FROM matches m JOIN match_seats s ON s.match_id = m.id JOIN bot_versions v"
                        " ON v.id = s.bot_version_id WHERE v.bot_id = ? ORDER BY m.id LIMIT 1", [evil])
        match = store.match(row["id"])
        log = match["log"]
    said = next(e for e in log if e["event"] == "reply" and e["seat"] == row["seat"] and e.get("stderr"))
    page.goto(server + f"/matches/{row['id']}#step={said['step']}")
    wait_frame(page, said["step"])
    console = page.locator(f'[data-testid="console"][data-seat="{row["seat"]}"]')
    assert f"step {said['step']}" in console.locator(".console-head").inner_text()
    assert "current" in console.get_attribute("class")
    shown = console.locator("pre").inner_text()
    assert shown.rstrip("\n") == EVIL_STDERR.replace("\x1b", "\\x1b").replace("\x07", "\\x07")  # text, escaped
    assert page.evaluate("window.__pwned") is None
    assert page.locator('[data-testid="console"]').count() == match["players"]  # one console per seat
    page.keyboard.press("End")
    wait_frame(page, frame(page))
    last = console.locator(".console-head").inner_text()
    assert "step " in last or "after end" in last
    shoot(page, tmp_path, "stderr-consoles")
    for width in (390, 768):
        page.set_viewport_size({"width": width, "height": 900})
        box = console.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"the console runs off a {width} px page"
