"""Entrants from a CSV (every bad row named), and sign-in tokens: random, stored only as a
hash, checked in constant time; links are reissued, not recovered."""

from __future__ import annotations

import pytest

from arena.contest import records, tokens
from arena.contest.entrants import EntrantsError, parse
from arena.results.store import Store
from contestkit import make_contest


def test_every_bad_row_is_reported_with_its_line():
    text = ("Email,Name\nada@example.org,ada\nnot-an-address,bob\ncy@example.org,c<y>\n"
            "dee@example.org,ada\n,\nx@example.org\n")
    with pytest.raises(EntrantsError) as error:
        parse(text)
    problems = error.value.problems
    assert problems[0].startswith("line 3: not an e-mail address")
    assert problems[1].startswith("line 4: bad name 'c<y>': '<' is not allowed")
    assert problems[2] == "line 5: the name 'ada' is already on line 2"
    assert problems[3] == "line 7: needs a name and an e-mail, got 1 field(s)"


def test_a_csv_without_the_columns_is_refused():
    with pytest.raises(EntrantsError, match="must name the columns 'name' and 'email'"):
        parse("student,address\nada,ada@example.org\n")


def test_only_the_tokens_hash_is_stored_and_a_token_signs_in_its_entrant_only(tmp_path):
    db, contest, issued = make_contest(tmp_path)
    with Store(db, readonly=True) as store:
        stored = {r["name"]: r["token_sha256"] for r in store.query("SELECT name, token_sha256 FROM contest_entrants")}
        dump = "\n".join(store.db.conn.iterdump())
        assert all(token not in dump for token in issued.values())
        assert stored["ada"] == tokens.digest(issued["ada"])
        assert records.entrant_for_token(store, contest["id"], issued["bob"])["name"] == "bob"
        assert records.entrant_for_token(store, contest["id"], issued["bob"][:-1] + "x") is None
        assert records.entrant_for_token(store, contest["id"], "") is None
        assert not records.is_organiser(store, contest["id"], issued["ada"])


def test_reissued_links_replace_the_old_ones(tmp_path):
    db, contest, issued = make_contest(tmp_path)
    with Store(db) as store:
        [fresh] = records.reissue_tokens(store, contest["id"], ["ada"])
        assert records.entrant_for_token(store, contest["id"], issued["ada"]) is None
        assert records.entrant_for_token(store, contest["id"], fresh["token"])["name"] == "ada"
        assert records.entrant_for_token(store, contest["id"], issued["bob"])["name"] == "bob"


def test_entrants_sent_through_the_inbox_are_added_with_their_digests_only(tmp_path):
    from contestkit import inbox, run_until

    db, contest, _ = make_contest(tmp_path)
    token, digest = tokens.new_token()
    with inbox(db) as box:
        box.add_entrants([{"name": "dee", "email": "dee@example.org", "token_sha256": digest}])
        box.add_entrants([{"name": "eve", "email": "eve@example.org", "token_sha256": digest},
                          {"name": "ada", "email": "ada@example.org", "token_sha256": digest}])
    run_until(db, lambda s: s.one("SELECT COUNT(*) AS n FROM contest_requests")["n"] == 2)
    with Store(db, readonly=True) as store:
        assert records.entrant_for_token(store, contest["id"], token)["name"] == "dee"
        outcomes = [r["outcome"] for r in store.query("SELECT outcome FROM contest_requests ORDER BY inbox_id")]
        assert "eve" not in records.entrant_names(store, contest["id"])  # all or none
    assert outcomes == ["1 entrant(s) added: dee",
                        "not done: line 3: the contest already has an entrant called 'ada'"]
