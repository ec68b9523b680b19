"""The entrants' CSV: a header row with ``name`` and ``email`` (in any order, any case), then
one entrant a row. Every bad row is reported with its line number and why; nothing is added
unless every row is good.

A name becomes the entrant's bot name, so it follows the bot-name rules
(`arena.results.submit.check_name`): letters of any script, digits, ``-``, ``_``, ``.``, ``+``.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from arena.results.submit import SubmitError, check_name
from arena.text import printable

MAX_CSV_BYTES = 4 << 20
MAX_EMAIL = 254
EMAIL = re.compile(r"^[^@\s<>\"',;]+@[^@\s<>\"',;]+\.[^@\s<>\"',;]+$")


@dataclass
class EntrantRow:
    line: int
    name: str
    email: str


class EntrantsError(Exception):
    """The CSV cannot be used; ``problems`` holds one line per bad row."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


def check_email(email: str) -> str:
    email = email.strip()
    if not email or len(email) > MAX_EMAIL or not EMAIL.match(email):
        raise ValueError(f"not an e-mail address: {printable(email, False)[:80]!r}")
    return email


def parse(text: str, taken: set[str] = frozenset()) -> list[EntrantRow]:
    """The entrants in a CSV's text; `EntrantsError` lists every bad row. ``taken``: names
    already in the contest (a row repeating one is refused)."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_CSV_BYTES:
        raise EntrantsError([f"the file is larger than {MAX_CSV_BYTES >> 20} MiB"])
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    try:
        header = next(reader)
    except StopIteration:
        raise EntrantsError(["the file is empty: it needs a header row 'name,email' and one row per entrant"]) from None
    except csv.Error as error:
        raise EntrantsError([f"line 1: not CSV ({error})"]) from None
    columns = [column.strip().lower().replace("-", "") for column in header]
    if "name" not in columns or "email" not in columns:
        raise EntrantsError([f"line 1: the header must name the columns 'name' and 'email', not {header!r}"])
    name_at, email_at = columns.index("name"), columns.index("email")
    rows, problems, seen = [], [], {}
    try:
        for fields in reader:
            line = reader.line_num
            if not any(field.strip() for field in fields):
                continue
            if len(fields) <= max(name_at, email_at):
                problems.append(f"line {line}: needs a name and an e-mail, got {len(fields)} field(s)")
                continue
            raw_name, raw_email = fields[name_at].strip(), fields[email_at].strip()
            try:
                name = check_name(raw_name)
            except SubmitError as error:
                problems.append(f"line {line}: {str(error).replace('bot name', 'name')}")
                continue
            try:
                email = check_email(raw_email)
            except ValueError as error:
                problems.append(f"line {line}: {error}")
                continue
            key = name.casefold()
            if key in seen:
                problems.append(f"line {line}: the name {name!r} is already on line {seen[key]}")
                continue
            if name in taken or key in {t.casefold() for t in taken}:
                problems.append(f"line {line}: the contest already has an entrant called {name!r}")
                continue
            seen[key] = line
            rows.append(EntrantRow(line, name, email))
    except csv.Error as error:
        problems.append(f"line {reader.line_num}: not CSV ({error})")
    if problems:
        raise EntrantsError(problems)
    if not rows:
        raise EntrantsError(["no entrants in the file (a header row, then one row per entrant)"])
    return rows
