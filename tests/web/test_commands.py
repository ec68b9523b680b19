"""`arena serve` and `arena replay` as click commands (registered here as a test-only group,
the way arena/cli/play.py does with main.add_command), and the escaping helpers."""

from __future__ import annotations

import html as html_module
import json
import re
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from arena.web.commands import replay_command, serve_command
from arena.web.safe import json_for_script, tail, visible


@click.group()
@click.option("--db", default="results/arena.db")
@click.pass_context
def cli(ctx, db):
    ctx.obj = {"db": db}


cli.add_command(serve_command)
cli.add_command(replay_command)


def test_replay_writes_one_self_contained_file(web_db, tmp_path):
    match_id = web_db.match_ids("agent-avenue")[0]
    out = tmp_path / "match.html"
    result = CliRunner().invoke(replay_command, [str(match_id), "-o", str(out)], obj={"db": str(web_db.path)})
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"wrote {out}: match {match_id}, ") and "replay matches the log" in result.output
    html = out.read_text()
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", html)  # nothing to fetch
    csp = html_module.unescape(re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)[1])
    assert "default-src 'none'" in csp and "'unsafe-inline'" not in csp
    assert csp.count("'sha256-") == 1 + 1  # the style and the one script (the viewer's four files), by hash
    data = json.loads(re.search(r'<script type="application/json" id="viewer-data">(.*?)</script>', html, re.S)[1])
    assert data["source"] == "inline" and set(data["chunks"]) == {"full", "seat-0", "seat-1"}
    assert data["replay"]["views"] == ["full", "seat-0", "seat-1"]


def test_arena_replay_imports_neither_the_server_nor_sqlite_utils_nor_numpy(web_db, tmp_path):
    # Its start-up is most of its time (docs/web.md, Speed): the file needs none of them.
    match_id = web_db.match_ids("fifth-avenue")[0]
    code = ("import sys; from arena.entry import main\n"
            "try: main(sys.argv[1:])\nexcept SystemExit as end: code = end.code\n"
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'starlette', 'uvicorn', 'sqlite_utils', 'numpy'})\n"
            "print(code, heavy)")
    out = subprocess.run([sys.executable, "-c", code, "--db", str(web_db.path), "replay", str(match_id),
                          "-o", str(tmp_path / "m.html")], capture_output=True, text=True)
    assert out.stdout.splitlines()[-1] == "0 []", out.stdout + out.stderr


def test_a_replay_file_written_in_one_engine_pass_equals_the_servers_frames(web_db):
    from arena.web import data
    from arena.web.replay import Replay

    match_id = web_db.match_ids("agent-avenue")[0]
    found = data.match_for_file(web_db.path, match_id)
    one_pass = Replay(found).all_chunks(["full", "seat-0", "seat-1"])
    lazy = Replay(found)
    for view, chunks in one_pass.items():
        assert [json.loads(c) for c in chunks] == [lazy.chunk(view, i) for i in range(lazy.chunk_count(view))]


def test_replay_through_a_group_and_its_errors(web_db, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    match_id = web_db.match_ids("five-towers")[0]
    result = CliRunner().invoke(cli, ["--db", str(web_db.path), "replay", str(match_id)])
    assert result.exit_code == 0 and (tmp_path / f"match-{match_id}.html").exists()
    missing = CliRunner().invoke(cli, ["--db", str(web_db.path), "replay", "99999"])
    assert missing.exit_code == 1 and "Error: no match 99999" in missing.output
    nodb = CliRunner().invoke(cli, ["--db", str(tmp_path / "none.db"), "replay", "1"])
    assert nodb.exit_code == 1 and "no database at" in nodb.output


def test_serve_starts_uvicorn_on_the_app_for_the_database(web_db, tmp_path, monkeypatch):
    import uvicorn

    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: seen.update(app=app, **kwargs))
    result = CliRunner().invoke(cli, ["--db", str(web_db.path), "serve", "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert seen["host"] == "127.0.0.1" and seen["port"] == 8123
    assert seen["app"].state.db_path == str(web_db.path)
    assert (f"serving {web_db.path} (read-only; people play bots at /play, and those matches are stored)"
            f" on http://127.0.0.1:8123/") in result.output
    assert seen["app"].state.play is not None  # on loopback people may play
    without_play = CliRunner().invoke(cli, ["--db", str(web_db.path), "serve", "--no-play"])
    assert f"serving {web_db.path} (read-only) on http://127.0.0.1:8000/" in without_play.output
    own = CliRunner().invoke(serve_command, ["--db", str(web_db.path), "--host", "0.0.0.0"], obj={"db": "elsewhere"})
    assert own.exit_code == 0 and seen["host"] == "0.0.0.0" and seen["app"].state.db_path == str(web_db.path)
    assert f"serving {web_db.path} (read-only) on http://0.0.0.0:8000/" in own.output
    assert seen["app"].state.play is None  # not on a public address, unless asked for
    asked = CliRunner().invoke(serve_command, ["--db", str(web_db.path), "--host", "0.0.0.0", "--play"])
    assert asked.exit_code == 0 and seen["app"].state.play is not None
    nodb = CliRunner().invoke(cli, ["--db", str(tmp_path / "none.db"), "serve"])
    assert nodb.exit_code == 1 and "no database at" in nodb.output


@pytest.mark.parametrize("text", ["</script><script>alert(1)</script>", "<!--", "a & b > c", "\u2028\u2029",
                                  "<img src=x onerror=alert(1)>", "plain"])
def test_json_for_script_is_inert_and_parses_back(text):
    encoded = json_for_script({"debug": text, "list": [text]})
    assert not set("<>&\u2028\u2029") & set(encoded)
    assert json.loads(encoded) == {"debug": text, "list": [text]}


def test_control_characters_are_shown_not_sent():
    assert visible("a\x1b[31mb\x00c\x07") == "a\\x1b[31mb\\x00c\\x07"
    assert visible("tab\tand\nnewline") == "tab\tand\nnewline"
    assert visible("\u202eevil\u200b") == "\\u202eevil\\u200b"
    assert visible(None) == ""
    assert tail("\n".join(str(n) for n in range(100)), lines=3) == "97\n98\n99"
    assert tail("x" * 100, chars=10) == "x" * 10
