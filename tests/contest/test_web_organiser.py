"""The organiser's page stays light however many entrants: a page of 50 entrants, counts, the
latest few of each list, one shared withdraw/reinstate form, and the full lists paged."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from arena.contest import records
from arena.results.store import Store
from arena.web.contest.app import ENTRANTS_PER_PAGE, create_contest_app
from contestkit import make_contest, run_until, submissions, upload
from webkit import sign_in

NAMES = tuple(f"s{n:03d}" for n in range(120))


@pytest.fixture(scope="module")
def organiser(tmp_path_factory):
    db, contest, _ = make_contest(tmp_path_factory.mktemp("organiser"), names=NAMES)
    for n in range(3):
        upload(db, "s000", b"print('hi')\n", filename=f"v{n}.py")
    run_until(db, lambda store: len(submissions(store)) == 3)
    with Store(db) as store:
        token = records.reissue_organiser_token(store, contest["id"])
    with TestClient(create_contest_app(str(db), "course")) as client:
        sign_in(client, token)
        yield client


def rows(page: str) -> list[str]:
    return re.findall(r'class="entrant-row" data-name="([^"]+)"', page)


def test_the_organisers_page_shows_one_page_of_entrants_and_pages_to_the_rest(organiser):
    first, third = organiser.get("/organiser").text, organiser.get("/organiser?page=3").text
    assert rows(first) == list(NAMES[:ENTRANTS_PER_PAGE]) and rows(third) == list(NAMES[2 * ENTRANTS_PER_PAGE:])
    assert 'href="/organiser?page=2#entrants"' in first and "page 3 of 3" in third


def test_an_out_of_range_or_bad_page_number_shows_a_page_that_exists(organiser):
    assert rows(organiser.get("/organiser?page=99").text) == list(NAMES[2 * ENTRANTS_PER_PAGE:])
    assert rows(organiser.get("/organiser?page=x").text) == list(NAMES[:ENTRANTS_PER_PAGE])


def test_one_shared_form_withdraws_or_reinstates_any_entrant(organiser):
    page = organiser.get("/organiser").text
    assert page.count('action="/organiser/action"') == 4  # open/close, deadline, final, withdraw/reinstate
    assert len(re.findall(r"<option>s\d{3}</option>", page)) == len(NAMES)


def test_the_submissions_are_counted_and_listed_in_full_on_their_own_page(organiser):
    assert "All 3 submissions" in organiser.get("/organiser").text
    listed = organiser.get("/organiser/submissions").text
    assert [name for name in re.findall(r"<td>(v\d\.py)</td>", listed)] == ["v2.py", "v1.py", "v0.py"]


def test_only_the_organiser_sees_the_submissions_list(organiser):
    with TestClient(organiser.app) as visitor:
        assert visitor.get("/organiser/submissions").status_code == 403
