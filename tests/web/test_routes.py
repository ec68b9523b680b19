"""The pages and the JSON API through Starlette's TestClient, over the session's real database."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.results.leaderboard import game_leaderboard
from arena.results.store import Store
from arena.web import assets
from arena.web.app import API_ENDPOINTS, CSP, create_app, viewer_csp
from arena.web.data import StoreError, open_store
from webfixtures import EVIL_DEBUG, EVIL_NAME, SECRET

WEB = Path(__file__).resolve().parents[2] / "arena" / "web"
VIEWER_CSPS = {viewer_csp(game) for game in ("five-towers", "agent-avenue", "fifth-avenue", "toy")}  # toy: no board, JSON


@pytest.fixture(scope="module")
def client(web_db):
    with TestClient(create_app(str(web_db.path))) as client:
        yield client


def every_url(web_db) -> list[str]:
    """A page and an API call of every kind, with the ids in the database."""
    with Store(web_db.path) as store:
        bots = [r["id"] for r in store.query("SELECT id FROM bots")]
        tournaments = [r["id"] for r in store.query("SELECT id FROM tournaments")]
        matches = [r["id"] for r in store.query("SELECT id FROM matches WHERE status = 'finished'")]
        games = [r["game"] for r in store.query("SELECT DISTINCT game FROM bots")]
    urls = ["/", "/tournaments", "/api", "/api/games", "/api/tournaments", "/api/matches"]
    for game in games:
        urls += [f"/games/{game}", f"/games/{game}?versions=all", f"/api/games/{game}",
                 f"/api/games/{game}/leaderboard?versions=all", f"/api/games/{game}/bots",
                 f"/api/games/{game}/tournaments"]
    for bot in bots:
        urls += [f"/bots/{bot}", f"/api/bots/{bot}", f"/api/bots/{bot}/matches", f"/api/bots/{bot}/failures",
                 f"/api/bots/{bot}/rating-history"]
    for tournament in tournaments:
        urls += [f"/tournaments/{tournament}", f"/tournaments/{tournament}?versions=latest",
                 f"/api/tournaments/{tournament}", f"/api/tournaments/{tournament}/progress",
                 f"/api/tournaments/{tournament}/leaderboard", f"/api/matches?tournament={tournament}"]
    for match in matches:
        urls += [f"/matches/{match}", f"/api/matches/{match}", f"/api/matches/{match}/replay",
                 f"/api/matches/{match}/log", f"/api/matches/{match}/frames?view=full&chunk=0",
                 f"/api/matches/{match}/frames?view=seat-1&frame=0", f"/api/matches/{match}/frames?view=snapshot"]
    return urls


def test_every_page_and_endpoint_answers_with_the_security_headers_and_never_the_secret(client, web_db):
    assert open_store(web_db.path).one("SELECT secret FROM tournaments LIMIT 1")["secret"].startswith(SECRET)
    urls = every_url(web_db)
    assert len(urls) > 150
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, (url, response.text[:300])
        csp = response.headers["content-security-policy"]
        assert csp == CSP or (url.startswith("/matches/") and csp in VIEWER_CSPS), url
        assert response.headers["x-content-type-options"] == "nosniff"
        kind = "application/json" if url.startswith("/api") else "text/html"
        assert response.headers["content-type"].startswith(kind), url
        assert SECRET not in response.text, url


def test_no_query_selects_every_column_of_a_table():
    for path in WEB.rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"SELECT\s+\*|\bt\.\*", text, re.IGNORECASE), path
        assert "store.tournament(" not in text and "store.tournaments(" not in text, path


def test_the_game_leaderboard_is_the_results_layer_leaderboard(client, web_db):
    body = client.get("/api/games/five-towers/leaderboard?versions=all").json()
    with Store(web_db.path) as store:
        expected = game_leaderboard(store, "five-towers", versions="all")["entries"]
    assert [(e["bot"], e["version"], e["mu"], e["sigma"]) for e in body["entries"]] == [
        (e["bot"], e["version"], e["mu"], e["sigma"]) for e in expected]
    entry = body["entries"][0]
    assert set(entry) >= {"rank", "bot", "version", "conservative", "mu", "sigma", "matches", "first_places",
                          "average_rank", "failures", "latest", "bot_id"}
    assert entry["conservative"] == pytest.approx(entry["mu"] - 3 * entry["sigma"])
    assert set(entry["failures"]) == {"timeout", "crash", "illegal", "protocol", "limit"}


def test_latest_versions_only_or_all_versions(client):
    every = client.get("/api/games/five-towers/leaderboard?versions=all").json()["entries"]
    latest = client.get("/api/games/five-towers/leaderboard").json()["entries"]
    assert sorted(e["version"] for e in every if e["bot"] == "random") == [1, 2]
    assert [e["version"] for e in latest if e["bot"] == "random"] == [2]
    assert [e["rank"] for e in latest] == list(range(1, len(latest) + 1))
    page = client.get("/games/five-towers").text
    assert "Each bot's latest version" in page and 'data-bot="random" data-version="2"' in page
    assert 'data-bot="random" data-version="1"' not in page
    assert 'data-bot="random" data-version="1"' in client.get("/games/five-towers?versions=all").text


def test_failures_are_counted_by_kind(client, web_db):
    evil = web_db.bot_id("five-towers", EVIL_NAME)
    board = client.get("/api/games/five-towers/leaderboard").json()["entries"]
    row = next(e for e in board if e["bot_id"] == evil)
    assert row["failures"]["protocol"] == row["matches"] == 4
    failures = client.get(f"/api/bots/{evil}/failures").json()
    assert failures["counts"]["protocol"] == 4
    first = failures["failures"][0]
    assert first["status"] == "protocol" and "not valid JSON" in first["error"]
    assert "window.__pwned='stderr'" in first["stderr_tail"]


def test_a_bot_page_shows_versions_failures_and_the_rating_history(client, web_db):
    random_id = web_db.bot_id("five-towers", "random")
    bot = client.get(f"/api/bots/{random_id}").json()
    assert [v["version"] for v in bot["versions"]] == [1, 2]
    assert all(v["rating"]["matches"] > 0 for v in bot["versions"])
    assert "path" not in bot["versions"][0] and "source" not in bot["versions"][0]
    history = client.get(f"/api/bots/{random_id}/rating-history").json()["versions"]
    assert [h["version"] for h in history] == [1, 2]
    assert len(history[0]["points"]) == bot["versions"][0]["rating"]["matches"]
    assert history[0]["points"][-1]["mu"] == pytest.approx(bot["versions"][0]["rating"]["mu"])
    page = client.get(f"/bots/{random_id}").text
    assert '<svg id="rating-plot"' in page and page.count('<g class="series"') == 2
    matches = client.get(f"/api/bots/{random_id}/matches?limit=3").json()["matches"]
    assert len(matches) == 3 and matches[0]["id"] > matches[1]["id"]
    assert {s["bot"] for s in matches[0]["seats"]} >= {"random"}


def test_a_tournament_page_has_progress_standings_and_head_to_head(client, web_db):
    tid = web_db.tournaments["five-towers"]
    t = client.get(f"/api/tournaments/{tid}").json()
    assert (t["status"], t["matches_total"], t["matches_finished"], t["matches_pending"]) == ("finished", 6, 6, 0)
    assert len(t["standings"]["entries"]) == 3 and t["standings"]["tournament"] == tid
    assert t["standings"]["standings"] == "refit"  # finished: all its matches refitted at once
    assert {"band", "rating", "rating_interval", "rank_interval"} <= set(t["standings"]["entries"][0])
    cells = t["head_to_head"]["cells"]
    first, second = (str(e["bot_version_id"]) for e in t["head_to_head"]["entries"][:2])
    wins, draws, losses = cells[first][second]
    assert wins + draws + losses == 2  # two matches per pair (both seatings)
    assert cells[second][first] == [losses, draws, wins]
    assert t["seat_statuses"]["protocol"] == 4 and len(t["failures"]) == 4
    assert "secret" not in t and "config" not in t and "runner_pid" not in t
    page = client.get(f"/tournaments/{tid}").text
    assert 'id="head-to-head"' in page and 'id="standings"' in page
    assert ">band</th>" in page and "Final standings: a refit" in page
    live = client.get(f"/api/tournaments/{web_db.tournaments['pending']}/progress").json()
    assert live["matches_pending"] == live["matches_total"] > 0


def test_a_match_page_carries_the_viewer_and_its_first_frame(client, web_db):
    match_id = web_db.match_ids("fifth-avenue")[0]
    page = client.get(f"/matches/{match_id}").text
    client.get(f"/api/matches/{match_id}/check")  # the check of the whole log finishes after the first page
    page = client.get(f"/matches/{match_id}").text
    data = json.loads(re.search(r'<script type="application/json" id="viewer-data">(.*?)</script>', page, re.S)[1])
    first = json.loads(re.search(r'<script type="application/json" id="viewer-first-chunk">(.*?)</script>', page,
                                 re.S)[1])
    assert data["replay"]["verification"]["ok"] and data["drawn"]
    assert data["replay"]["views"] == ["full", "seat-0", "seat-1", "seat-2", "snapshot"]
    assert isinstance(data["match"]["seed"], str)  # 63-bit seeds do not fit a JavaScript number
    assert first["start"] == 0 and first["base"]["game"] == "fifth-avenue"
    assert (WEB / "static" / "board-fifth-avenue.js").read_text() in re.search(r"<script>(.*?)</script>", page, re.S)[1]
    chunk = client.get(f"/api/matches/{match_id}/frames?view=full&chunk=0").json()
    # Only the first frame: the page replays no step before it answers.
    assert first == {"start": 0, "count": 1, "base": chunk["data"]["base"], "ops": []}
    assert chunk["frame_count"] == data["replay"]["frame_count"]


def test_frames_by_frame_number_and_bad_requests(client, web_db):
    match_id = web_db.match_ids("five-towers")[0]
    count = client.get(f"/api/matches/{match_id}/replay").json()["frame_count"]
    assert count > 64
    assert client.get(f"/api/matches/{match_id}/frames?frame=70").json()["data"]["start"] == 64
    assert client.get(f"/api/matches/{match_id}/frames?view=seat-9").status_code == 400
    assert client.get(f"/api/matches/{match_id}/frames?frame={count + 100}").status_code == 404
    assert client.get(f"/api/matches/{match_id}/frames?chunk=x").status_code == 400
    assert client.get("/api/games/five-towers/leaderboard?versions=some").status_code == 400
    assert client.get("/api/games/five-towers/leaderboard?limit=0").status_code == 400


def test_links_by_name_lead_to_the_bot_s_page_and_a_name_of_several_games_says_which(client, web_db):
    heuristic = web_db.bot_id("five-towers", "five_towers_heuristic")
    by_name = client.get("/bots/five_towers_heuristic", follow_redirects=False)
    assert by_name.status_code == 302 and by_name.headers["location"] == f"/bots/{heuristic}"
    random_id = web_db.bot_id("agent-avenue", "random")
    in_game = client.get("/games/agent-avenue/bots/random", follow_redirects=False)
    assert in_game.status_code == 302 and in_game.headers["location"] == f"/bots/{random_id}"
    several = client.get("/bots/random")
    assert several.status_code == 404 and "/games/agent-avenue/bots/random" in several.text
    assert client.get("/bots/nobody").status_code == 404
    assert client.get("/games/five-towers/bots/agent_avenue_heuristic").status_code == 404


def test_unknown_things_are_404s(client, web_db):
    pending = web_db.pending_match()
    for url in ["/matches/99999", "/bots/99999", "/tournaments/99999", "/games/chess", "/nothing/here",
                "/api/matches/99999", "/api/bots/99999/matches", "/api/tournaments/99999/progress",
                "/api/games/chess/leaderboard", "/api/nothing"]:
        response = client.get(url)
        assert response.status_code == 404, url
        if url.startswith("/api"):
            assert "error" in response.json()
    assert client.get(f"/api/matches/{pending}/replay").status_code == 409
    assert "nothing to replay" in client.get(f"/matches/{pending}").text


def test_what_a_bot_wrote_is_escaped_in_every_page(client, web_db):
    evil = web_db.bot_id("five-towers", EVIL_NAME)
    with Store(web_db.path) as store:
        match_id = store.one("SELECT m.id FROM matches m JOIN match_seats s ON s.match_id = m.id JOIN bot_versions v"
                             " ON v.id = s.bot_version_id WHERE v.bot_id = ? ORDER BY m.id LIMIT 1", [evil])["id"]
    for url in ["/", "/games/five-towers", f"/bots/{evil}", f"/matches/{match_id}",
                f"/tournaments/{web_db.tournaments['five-towers']}"]:
        page = client.get(url).text
        assert "<script>window" not in page and "<img src=x" not in page, url
        assert "&lt;script&gt;window.__pwned=&#39;name&#39;&lt;/script&gt;" in page, url
    page = client.get(f"/matches/{match_id}").text
    # the debug text travels as JSON inside <script type="application/json">: no < > & in it
    assert EVIL_DEBUG.replace("<", "\\u003c").replace(">", "\\u003e") in page
    bot_page = client.get(f"/bots/{evil}").text
    assert "\\x1b[2J\\x07" in bot_page and "\x1b" not in bot_page  # control characters made visible
    assert "</pre><script>" not in bot_page


def test_the_web_store_cannot_write_and_reading_changes_nothing(client, web_db):
    digest = hashlib.sha256(Path(web_db.path).read_bytes()).hexdigest()
    for url in every_url(web_db)[:60]:
        client.get(url)
    assert hashlib.sha256(Path(web_db.path).read_bytes()).hexdigest() == digest
    store = open_store(web_db.path)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        store.db.execute("DELETE FROM ratings")
    with pytest.raises(StoreError, match="no database at"):
        open_store(Path(web_db.path).parent / "missing.db")


def test_a_match_page_carries_the_viewer_inline_and_its_csp_allows_exactly_that(client, web_db):
    match_id = web_db.match_ids("agent-avenue")[0]
    response = client.get(f"/matches/{match_id}")
    page, csp = response.text, response.headers["content-security-policy"]
    inline = re.findall(r"<script>(.*?)</script>", page, re.S)
    # one script (the parser lays nothing out between its parts), the viewer's files in their order
    assert inline == ["\n".join((WEB / "static" / name).read_text() for name in assets.viewer_scripts("agent-avenue"))]
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert styles == [(WEB / "static" / "style.css").read_text()]
    assert not re.search(r"<(script|link)[^>]+(src|href)=\"/static/(?!favicon)", page)  # nothing more to fetch first
    allowed = re.findall(r"'sha256-[^']+'", csp)
    assert sorted(allowed) == sorted(assets.csp_hash(text) for text in inline + styles)
    assert "unsafe-inline" not in csp


def test_the_api_index_lists_every_endpoint_documented_in_docs_web(client):
    listed = client.get("/api").json()["endpoints"]
    assert [e["path"] for e in listed] == [path for path, _ in API_ENDPOINTS]
    docs = (Path(__file__).resolve().parents[2] / "docs" / "web.md").read_text()
    for path, _ in API_ENDPOINTS:
        assert f"`GET {path}" in docs, path


def test_the_web_layer_imports_neither_the_runner_nor_the_tournament_layer():
    code = ("import sys, arena.web.app, arena.web.commands, arena.web.export, arena.web.data, arena.web.replay,"
            " arena.web.play;"
            "bad = sorted(m for m in sys.modules if m.startswith(('arena.runner', 'arena.tournament', 'arena.cli')));"
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_swiss_tournament_page_has_its_swiss_standings_and_every_round(tmp_path):
    from arena.tournament import TournamentConfig, create, run

    bots = []
    for name in "abcde":  # copies of the random bot, each its own version
        path = tmp_path / f"{name}.py"
        path.write_text((Path(__file__).resolve().parents[2] / "bots" / "random.py").read_text() + f"# {name}\n")
        path.chmod(0o644)
        bots.append(str(path))
    tmp_path.chmod(0o755)
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="five-towers", bots=bots, format="swiss", rounds=2,
                                                       seed=3))
        run(store, tournament_id, workers=2)
    with TestClient(create_app(str(tmp_path / "arena.db"))) as client:
        data = client.get(f"/api/tournaments/{tournament_id}").json()
        page = client.get(f"/tournaments/{tournament_id}").text
    assert [len(r["byes"]) for r in data["swiss"]["rounds"]] == [1, 1]
    assert [r["place"] for r in data["swiss"]["standings"]] == [1, 2, 3, 4, 5]
    assert 'id="swiss-standings"' in page and page.count("bye: ") == 2
    assert "Format: swiss, 2 rounds of 4 matches: 8 matches in all" in page


def test_a_swiss_with_finals_page_names_its_finals_and_puts_the_finalists_first(tmp_path):
    from arena.tournament import TournamentConfig, create, run

    bots = []
    for name in "abcd":  # copies of the random bot, each its own version
        path = tmp_path / f"{name}.py"
        path.write_text((Path(__file__).resolve().parents[2] / "bots" / "random.py").read_text() + f"# {name}\n")
        path.chmod(0o644)
        bots.append(str(path))
    tmp_path.chmod(0o755)
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="agent-avenue", bots=bots, format="swiss", rounds=1,
                                                       finals=[[2, 2]], seed=3))
        run(store, tournament_id, workers=2)
        finalists = store.tournament(tournament_id)["format_state"]["finals"][0]
    with TestClient(create_app(str(tmp_path / "arena.db"))) as client:
        data = client.get(f"/api/tournaments/{tournament_id}").json()
        page = client.get(f"/tournaments/{tournament_id}").text
    assert ("Format: swiss with finals, 1 rounds of 4 matches, then a round-robin of the top 2 x2 (4 matches):"
            " 8 matches in all") in page
    assert 'id="t-finals"' in page
    assert {e["bot_version_id"] for e in data["standings"]["entries"][:2]} == set(finalists)
