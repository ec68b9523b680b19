"""Both journeys of the contest server in a real browser (Debian's Chromium via Playwright),
against the real command `arena serve --contest` (the web app and its runner process):

* an entrant signs in with the link, uploads a bot whose build fails, reads why, uploads a
  fixed one, asks for a test match, opens its replay and reads its own stderr;
* the organiser signs in, adds an entrant, closes submissions, starts the final and downloads
  the grades.
"""

from __future__ import annotations

import csv
import io
import os
import time
from pathlib import Path

import pytest

from botmaker import READY, TEMPLATE
from browsing import WAIT_MS, chromium
from contestkit import GOOD_BOT, make_contest, upload, zipped
from waiting import PATIENCE
from webkit import Server

from arena.contest import records
from arena.results.store import Store


LOUD_BOT = TEMPLATE.format(on_start=" " * 8 + READY, on_request=(
    " " * 8 + 'sys.stderr.write("ADA-STDERR thinking\\n"); sys.stderr.flush()\n'
    + " " * 8 + 'reply({"type": "action", "index": 0, "debug": "ADA-DEBUG"})'))


def bot_zip(build: str) -> bytes:
    return zipped({"adabot/bot.toml": f'command = "python bot.py"\nbuild = "{build}"\n', "adabot/bot.py": LOUD_BOT})


@pytest.fixture(scope="module")
def contest_server(tmp_path_factory):
    """`arena serve --contest course` on a free loopback port; bob and cy have accepted bots."""
    root = tmp_path_factory.mktemp("contestserver")
    os.chmod(root, 0o755)
    db, contest, tokens = make_contest(root, names=("ada", "bob", "cy"))
    with Store(db) as store:
        organiser = records.reissue_organiser_token(store, contest["id"])
    upload(db, "bob", GOOD_BOT)
    upload(db, "cy", GOOD_BOT + b"# cy\n")
    server = Server(db, root)
    yield {"url": server.url, "tokens": tokens, "organiser": organiser, "db": db}
    server.stop()


@pytest.fixture(scope="module")
def browser():
    with chromium() as instance:
        yield instance


@pytest.fixture
def page(browser, tmp_path):
    context = browser.new_context(viewport={"width": 1300, "height": 900}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    yield page
    context.close()
    assert not page.errors, page.errors


def reload_until(page, selector: str) -> None:
    """Reload the page until ``selector`` is on it (the runner works in its own process)."""
    deadline = time.monotonic() + PATIENCE
    while page.locator(selector).count() == 0:
        assert time.monotonic() < deadline, f"{selector} never appeared on {page.url}"
        time.sleep(0.3)
        page.reload()


def test_an_entrant_fixes_a_failing_build_and_reads_a_test_matchs_replay_and_stderr(contest_server, page):
    url = contest_server["url"]
    page.goto(f"{url}/signin/{contest_server['tokens']['ada']}")
    page.click("#signin")
    page.wait_for_url(f"{url}/entrants/ada")

    page.set_input_files("#bot-file", files=[{"name": "adabot.zip", "mimeType": "application/zip",
                                               "buffer": bot_zip("echo bot.py line 3: missing semicolon >&2; exit 1")}])
    page.click("#upload-button")
    assert "Received your upload" in page.locator(".flash-ok").inner_text()
    reload_until(page, ".submission-refused")
    refused = page.locator(".submission-refused").first
    why = refused.locator(".reason").inner_text()
    assert "the build of adabot failed" in why and "missing semicolon" in why

    page.set_input_files("#bot-file", files=[{"name": "adabot.zip", "mimeType": "application/zip",
                                               "buffer": bot_zip("echo built")}])
    page.click("#upload-button")
    reload_until(page, ".submission-accepted")
    reload_until(page, "#opponents option[value=bob]")

    page.select_option("#opponents", ["bob"])
    page.click("#test-button")
    assert "Asked for a test match" in page.locator(".flash-ok").inner_text()
    reload_until(page, "#tests a")
    page.locator("#tests a").first.click()
    reload_until(page, "#viewer")  # listed as soon as it is planned; replayable once played
    page.wait_for_selector("#viewer #v-seats tr")
    page.click("#v-last")
    stderr = page.locator("pre.stderr").first.inner_text()
    assert "ADA-STDERR thinking" in stderr


def test_the_organiser_adds_an_entrant_closes_submissions_runs_the_final_and_downloads_grades(
        contest_server, page, tmp_path):
    url = contest_server["url"]
    page.goto(f"{url}/signin/{contest_server['organiser']}")
    page.click("#signin")
    page.wait_for_url(f"{url}/organiser")

    page.fill("#entrant-rows", "name,email\nzed,zed@example.org\n")
    page.click("#add-entrants")
    assert f"{'/signin/'}" in page.locator("#issued").inner_text() and "zed" in page.locator("#issued").inner_text()
    reload_until(page, ".entrant-row[data-name=zed]")

    page.click("#close-button")
    reload_until(page, "#closed")
    page.click("#final-button")
    reload_until(page, "#grades-link")

    deadline = time.monotonic() + PATIENCE
    while page.request.get(f"{url}/organiser/grades.csv").status != 200:  # the final is played meanwhile
        assert time.monotonic() < deadline, "the final did not finish"
        time.sleep(0.5)
    with page.expect_download() as waiting:
        page.click("#grades-link")
    text = Path(waiting.value.path()).read_text()
    rows = list(csv.DictReader(io.StringIO(text)))
    with Store(contest_server["db"], readonly=True) as store:  # bob and cy, and ada if her journey ran first
        finalists = {r["name"] for r in store.query("SELECT name FROM contest_entrants WHERE bot_version_id IS NOT NULL")}
    assert {row["name"] for row in rows} == {"ada", "bob", "cy", "zed"}
    assert {row["name"] for row in rows if row["rank"]} == finalists and {"bob", "cy"} <= finalists
