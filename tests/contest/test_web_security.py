"""The contest server keeps each entrant's private things private and refuses forged requests:
real database, real runner and bots, real sign-in through the form (Starlette's TestClient)."""

from __future__ import annotations

import io
import os
import zipfile

import pytest
from starlette.testclient import TestClient

from arena.contest.inbox import folder_for
from arena.web.contest.guard import AttemptLimiter
from contestkit import zipped
from webkit import csrf_of, played_site, sign_in

PRIVATE_OF_BOB = ("BOB-STDERR", "BOB-DEBUG", "BOB-SOURCE", "BOB-REFUSED", "broken.py")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return played_site(tmp_path_factory.mktemp("contestweb"), upload_bytes=32 << 20)


@pytest.fixture
def ada(site):
    with TestClient(site.app()) as client:
        assert sign_in(client, site.tokens["ada"]).status_code == 303
        yield client


@pytest.fixture
def anyone(site):
    with TestClient(site.app()) as client:
        yield client


def pages_of(client, site) -> str:
    """Everything a visitor can open about bob and the match ada and bob played."""
    texts = [client.get(path).text for path in ("/", "/entrants/bob", "/bots/bob", "/entrants/ada", "/me")]
    for match in (site.test_match, site.ladder_match):
        texts += [client.get(f"/matches/{match}").text, client.get(f"/api/matches/{match}/replay").text]
        for view in ("seat-0", "seat-1", "full", "snapshot"):
            texts.append(client.get(f"/api/matches/{match}/frames?view={view}").text)
    return "\n".join(texts)


def test_a_signed_in_entrant_sees_their_own_stderr_and_debug_text(ada, site):
    page = ada.get(f"/matches/{site.test_match}").text
    replay = ada.get(f"/api/matches/{site.test_match}/replay").json()
    assert "ADA-STDERR" in page
    assert any(step["debug"] == "ADA-DEBUG" for step in replay["steps"])


def test_a_signed_in_entrant_cannot_see_anothers_stderr_debug_source_or_refusals(ada, site):
    everything = pages_of(ada, site)
    assert [secret for secret in PRIVATE_OF_BOB if secret in everything] == []


def test_a_visitor_sees_no_stderr_no_debug_and_no_full_view(anyone, site):
    everything = pages_of(anyone, site)
    assert [s for s in ("ADA-STDERR", "ADA-DEBUG", *PRIVATE_OF_BOB) if s in everything] == []
    assert anyone.get(f"/api/matches/{site.ladder_match}/frames?view=full").status_code == 403
    assert anyone.get(f"/api/matches/{site.ladder_match}/replay").json()["views"] == ["seat-0", "seat-1"]


def test_a_visitors_match_page_carries_the_first_board_of_the_first_view_it_may_see(anyone, site):
    import json
    import re

    page = anyone.get(f"/matches/{site.ladder_match}").text
    inlined = json.loads(re.search(r'id="viewer-first-chunk">(.*?)</script>', page, re.S).group(1))
    served = anyone.get(f"/api/matches/{site.ladder_match}/frames?view=seat-0&chunk=0").json()["data"]
    assert (inlined["count"], inlined["base"]) == (1, served["base"])


def test_a_visitor_gets_no_replay_of_a_test_match(anyone, site):
    assert anyone.get(f"/api/matches/{site.test_match}/replay").status_code == 403
    assert "shown only to the entrants who played in it" in anyone.get(f"/matches/{site.test_match}").text


def test_full_views_are_public_when_the_contest_says_so(site, tmp_path):
    from arena.contest import records
    from arena.results.store import Store

    with Store(site.db) as store:
        config = records.contest(store, "course")["config"]
        config.public_replays = True
        records.set_config(store, site.contest["id"], config)
    try:
        with TestClient(site.app()) as client:
            frames = client.get(f"/api/matches/{site.ladder_match}/frames?view=full")
            steps = client.get(f"/api/matches/{site.ladder_match}/replay").json()["steps"]
        assert frames.status_code == 200 and all(step["debug"] is None for step in steps)
    finally:
        with Store(site.db) as store:
            config.public_replays = False
            records.set_config(store, site.contest["id"], config)


def test_an_upload_is_always_the_signed_in_entrants_own(ada, site):
    before = len(site.inbox_rows())
    answer = ada.post("/me/upload", data={"csrf": csrf_of(ada, "/me"), "entrant": "bob", "name": "bob"},
                      files={"bot": ("mine.py", b"print('hello')\n")}, follow_redirects=False)
    rows = site.inbox_rows()[before:]
    assert answer.status_code == 303 and [(r["kind"], r["entrant"]) for r in rows] == [("upload", "ada")]


def test_a_test_match_request_is_always_the_signed_in_entrants_own(ada, site):
    before = len(site.inbox_rows())
    ada.post("/me/test", data={"csrf": csrf_of(ada, "/me"), "opponent": "bob", "entrant": "bob"})
    rows = site.inbox_rows()[before:]
    assert [(r["kind"], r["entrant"]) for r in rows] == [("test", "ada")]


def test_nobody_signed_out_can_upload_or_ask_for_matches(anyone, site):
    before = len(site.inbox_rows())
    csrf = csrf_of(anyone, "/signin/no-such-token")  # a signed-out visitor with a valid session token
    upload = anyone.post("/me/upload", data={"csrf": csrf}, files={"bot": ("x.py", b"x")})
    test = anyone.post("/me/test", data={"csrf": csrf, "opponent": "bob"})
    assert (upload.status_code, test.status_code, len(site.inbox_rows())) == (403, 403, before)


def test_an_entrant_cannot_reach_the_organisers_pages(ada, site):
    before = len(site.inbox_rows())
    csrf = csrf_of(ada, "/me")
    answers = [ada.get("/organiser").status_code, ada.get("/organiser/grades.csv").status_code,
               ada.post("/organiser/action", data={"csrf": csrf, "do": "close"}).status_code,
               ada.post("/organiser/entrants", data={"csrf": csrf, "rows": "name,email\nzed,z@example.org"}).status_code]
    assert answers == [403, 403, 403, 403] and len(site.inbox_rows()) == before


@pytest.mark.parametrize("path, form", [
    ("/me/upload", {}), ("/me/test", {"opponent": "bob"}), ("/signout", {}),
])
def test_an_entrants_post_without_the_csrf_token_is_refused(ada, site, path, form):
    before = len(site.inbox_rows())
    files = {"bot": ("x.py", b"x")} if path == "/me/upload" else None
    forged = ada.post(path, data={**form, "csrf": "forged"}, files=files)
    assert forged.status_code == 403 and len(site.inbox_rows()) == before
    assert ada.get("/me", follow_redirects=False).status_code == 303  # still signed in (no sign-out happened)


def test_a_post_from_another_site_is_refused_even_with_the_token(ada, site):
    before = len(site.inbox_rows())
    forged = ada.post("/me/test", data={"csrf": csrf_of(ada, "/me"), "opponent": "bob"},
                      headers={"origin": "https://evil.example"})
    assert forged.status_code == 403 and len(site.inbox_rows()) == before


@pytest.mark.parametrize("form", [{"do": "close"}, {"rows": "name,email\nzed,z@example.org"}])
def test_the_organisers_posts_need_the_csrf_token(site, form):
    with TestClient(site.app()) as organiser:
        sign_in(organiser, site.organiser)
        before = len(site.inbox_rows())
        path = "/organiser/entrants" if "rows" in form else "/organiser/action"
        assert organiser.post(path, data=form).status_code == 403
        assert len(site.inbox_rows()) == before


def test_sign_in_with_a_forged_csrf_token_is_refused(anyone, site):
    anyone.get(f"/signin/{site.tokens['ada']}")
    answer = anyone.post("/signin", data={"token": site.tokens["ada"], "csrf": "forged"}, follow_redirects=False)
    assert answer.status_code == 403 and anyone.get("/me", follow_redirects=False).status_code == 403


def test_sign_in_attempts_are_limited_per_client(site):
    with TestClient(site.app(limiter=AttemptLimiter(limit=3, window=3600))) as client:
        wrong = [sign_in(client, "not-a-token-" + str(n)).status_code for n in range(3)]
        right_but_too_late = sign_in(client, site.tokens["ada"]).status_code
    assert wrong == [403, 403, 403] and right_but_too_late == 429


def test_a_class_signing_in_from_one_address_is_not_held_up(site):
    limiter = AttemptLimiter(limit=3, window=3600)
    answers = []
    for _ in range(4):
        for name in ("ada", "bob", "cy"):
            with TestClient(site.app(limiter=limiter)) as client:
                answers.append(sign_in(client, site.tokens[name]).status_code)
    assert answers == [303] * 12


def test_the_session_cookie_is_httponly_samesite_lax_and_secure_when_asked(site):
    with TestClient(site.app(https_cookies=True), base_url="https://testserver") as client:
        cookie = sign_in(client, site.tokens["ada"]).headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "secure" in cookie


def _bomb() -> bytes:
    """20 MiB of zeros packed into about 20 KiB."""
    return zipped({"bot/bot.py": b"\0" * (20 << 20)})


def _many_files(count: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for number in range(count):
            archive.writestr(f"f{number}", b"")
    return buffer.getvalue()


def _files_under(root) -> set[str]:
    return {os.path.join(folder, name) for folder, _, names in os.walk(root) for name in names}


@pytest.mark.parametrize("kind, archive, says", [
    ("dot-dot", lambda: zipped({"bot/bot.py": "x", "../../evil.py": "x"}), ".."),
    ("absolute", lambda: zipped({"/tmp/evil.py": "x"}), "evil.py"),
    ("link", lambda: zipped({"bot/bot.py": "x", "bot/link": "/etc/passwd"}, {"bot/link": 0o120777}), "link"),
    ("bomb", _bomb, "zip bomb"),
    ("100,000 files", lambda: _many_files(100_000), "100,000 entries"),
])
def test_a_dangerous_zip_is_refused_on_the_page_and_nothing_is_written(ada, site, kind, archive, says):
    root = site.db.parent
    before_files, before_rows = _files_under(root), len(site.inbox_rows())
    answer = ada.post("/me/upload", data={"csrf": csrf_of(ada, "/me")}, files={"bot": ("bot.zip", archive())})
    assert "Refused:" in answer.text and says in answer.text, answer.text[-2000:]
    new = _files_under(root) - before_files
    assert len(site.inbox_rows()) == before_rows
    assert {os.path.basename(path) for path in new} <= {"inbox.sqlite-wal", "inbox.sqlite-shm"}, new
    assert all(path.startswith(str(folder_for(site.db, "course"))) for path in new)


def test_an_upload_over_the_size_limit_is_refused_with_the_limit(ada, site):
    answer = ada.post("/me/upload", data={"csrf": csrf_of(ada, "/me")}, files={"bot": ("big.py", b"#" * (33 << 20))})
    assert "Refused: the upload is larger than the limit of 32 MiB" in answer.text


def test_an_uploaded_name_cannot_inject_markup(ada, site):
    name = '<script>alert(1)</script><img src=x onerror=alert(2)>.py'
    page = ada.post("/me/upload", data={"csrf": csrf_of(ada, "/me")}, files={"bot": (name, b"print(1)\n")}).text
    assert "Received your upload" in page
    assert "<script>alert" not in page and "<img src=x" not in page
