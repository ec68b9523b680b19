"""Pages by name and the links `arena bots` prints for a contest's bots."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from arena.entry import main as entry
from arena.results.store import Store
from arena.web.contest.app import create_contest_app
from contestkit import GOOD_BOT, make_contest, run_until, submissions, upload


@pytest.fixture(scope="module")
def accepted(tmp_path_factory):
    db, contest, tokens = make_contest(tmp_path_factory.mktemp("pages"), link_base="https://contest.example.org/")
    upload(db, "ada", GOOD_BOT)
    run_until(db, lambda store: bool(submissions(store)))
    return db


def test_arena_bots_prints_each_contest_bots_link_from_the_contests_link_base(accepted, capsys):
    with pytest.raises(SystemExit):
        entry(["--db", str(accepted), "bots"])
    [line] = [line for line in capsys.readouterr().out.splitlines() if " ada " in line]
    assert line.endswith("  https://contest.example.org/bots/ada")


@pytest.mark.parametrize("path", ["/bots/ada", "/entrants/ada"])
def test_an_entrants_page_is_found_by_name(accepted, path):
    with TestClient(create_contest_app(str(accepted), "course")) as client:
        page = client.get(path)
    assert page.status_code == 200 and '<h1 id="entrant-name">ada' in page.text


def test_a_bot_link_by_number_leads_to_the_page_by_name(accepted):
    with Store(accepted, readonly=True) as store:
        bot = store.one("SELECT id FROM bots WHERE name = 'ada'")["id"]
    with TestClient(create_contest_app(str(accepted), "course")) as client:
        answer = client.get(f"/bots/{bot}", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/bots/ada"


def test_an_unknown_name_is_a_404_page(accepted):
    with TestClient(create_contest_app(str(accepted), "course")) as client:
        answer = client.get("/entrants/nobody")
    assert answer.status_code == 404 and "no entrant &#39;nobody&#39; in this contest" in answer.text


def test_the_organiser_sees_the_links_of_200_new_entrants_once(accepted):
    from arena.contest import records
    from webkit import csrf_of, sign_in

    with Store(accepted) as store:
        organiser = records.reissue_organiser_token(store, records.contest(store, "course")["id"])
    rows = "name,email\n" + "".join(f"student{n:03d},s{n}@example.org\n" for n in range(200))
    with TestClient(create_contest_app(str(accepted), "course")) as client:
        sign_in(client, organiser)
        shown = client.post("/organiser/entrants", data={"csrf": csrf_of(client, "/organiser"), "rows": rows}).text
        again = client.get("/organiser").text
    assert shown.count("https://contest.example.org/signin/") == 200
    assert "/signin/" not in again


def test_the_leaderboard_lists_each_entrants_current_version(accepted):
    with TestClient(create_contest_app(str(accepted), "course")) as client:
        page = client.get("/").text
    assert '<tr data-bot="ada">' in page and 'href="/bots/ada"' in page
