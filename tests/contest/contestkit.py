"""Helpers for the contest tests: a contest of the toy game in a temporary database, bots as
bytes to upload, a zip of a folder, and a runner run until a condition holds."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from arena.contest import records
from arena.contest.config import ContestConfig
from arena.contest.entrants import parse
from arena.contest.inbox import Inbox, folder_for
from arena.contest.runner import ContestRunner
from arena.results.store import Store
from botmaker import TEMPLATE, FIRST_LEGAL, READY

GOOD_BOT = TEMPLATE.format(on_start=" " * 8 + READY, on_request=" " * 8 + FIRST_LEGAL).encode()
CRASHING_BOT = TEMPLATE.format(on_start=" " * 8 + READY, on_request=" " * 8 + 'sys.exit("I give up")').encode()


def make_contest(tmp_path: Path, names=("ada", "bob", "cy"), **settings) -> tuple[Path, dict, dict]:
    """A contest 'course' of the toy game with entrants ``names``; returns (db, contest, tokens by name)."""
    db = tmp_path / "arena.db"
    with Store(db) as store:
        contest, _ = records.create_contest(store, "course", ContestConfig(game="toy", workers=1, **settings))
        csv_text = "name,email\n" + "".join(f"{n},{n}@example.org\n" for n in names)
        issued = records.add_entrants(store, contest["id"], parse(csv_text))
    return db, contest, {row["name"]: row["token"] for row in issued}


def inbox(db: Path) -> Inbox:
    return Inbox(folder_for(db, "course"))


def upload(db: Path, entrant: str, data: bytes, filename: str = "bot.py", **limits) -> int:
    with inbox(db) as box:
        return box.add_upload(entrant, filename, data, limits.get("max_bytes", 1 << 20),
                              limits.get("per_day", 100)).id


def zipped(files: dict[str, bytes | str], modes: dict[str, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = ((modes or {}).get(name, 0o100644)) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, content)
    return buffer.getvalue()


def run_until(db: Path, condition, workers: int = 1) -> ContestRunner:
    """Run the contest's runner in this process until ``condition(store)`` is true."""
    runner = ContestRunner(db, "course", workers=workers)
    with Store(db, readonly=True, live=True) as reader:
        runner.run(until=lambda: condition(reader))
    return runner


def submissions(store: Store) -> list[dict]:
    return store.query("SELECT e.name, s.status, s.reason, s.inbox_id, s.bot_version_id FROM contest_submissions s"
                       " JOIN contest_entrants e ON e.id = s.entrant_id ORDER BY s.inbox_id")
