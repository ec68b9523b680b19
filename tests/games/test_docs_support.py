"""Helpers for the docs tests of every game page (no tests here; the name only keeps the file
among the game test files).

A game page is the complete rules reference for a bot author, who has the repository and
nothing else: it may name no file outside the repository. And every decision (a point the
original rules leave open) is titled on the page, ``**[decision] Title.** text``, and marked
``[decision] Title: text`` in the engine's code where the engine makes it.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "games"

PAGE_DECISION = re.compile(r"\*\*\[decision\] ([A-Z][\w' -]*)\.\*\*")
CODE_DECISION = re.compile(r"\[decision\] ([A-Z][\w' -]*):")

# Words that point a reader at material that is not in the repository.
FORBIDDEN = ("shared/", "rules file", "/work/", "brief/")
EXTENSIONS = ("py", "md", "toml", "txt", "json", "js", "sh", "cfg", "ini", "yaml", "yml")


def page_text(name: str) -> str:
    return (DOCS / f"{name}.md").read_text()


def named_paths(text: str) -> list[tuple[str, bool]]:
    """Every file or folder the text names: (name, relative to the page?). Markdown links are
    relative to the page; paths in backticks or plain text to the repository root."""
    found: list[tuple[str, bool]] = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if not re.match(r"[a-z]+:|#", target):
            found.append((target.split("#")[0], True))
    for token in re.findall(r"`([^`\s]+)`", text):
        if re.fullmatch(r"[\w.~/-]+", token) and ("/" in token or re.search(rf"\.({'|'.join(EXTENSIONS)})$", token)):
            found.append((token, False))
    for token in re.findall(r"(?<![\w/.`-])((?:~|\.{1,2})?/?[\w.-]+(?:/[\w.-]+)+/?)", text):
        if token.startswith(("/", "~", ".")) or re.search(rf"\.({'|'.join(EXTENSIONS)})$", token):
            found.append((token, False))
    return found


def paths_outside_the_repository(name: str) -> list[str]:
    """The names a page mentions that a user of the repository does not have."""
    page = DOCS / f"{name}.md"
    missing = []
    for token, relative_to_page in named_paths(page.read_text()):
        if token.startswith(("/", "~")):
            missing.append(token)
            continue
        base = page.parent if relative_to_page or token.startswith(".") else ROOT
        target = (base / token).resolve()
        if "/" not in token.rstrip("/"):  # a bare file name: somewhere in the repository
            exists = any(path for path in ROOT.rglob(token) if ".venv" not in path.parts)
        else:
            exists = target.exists() and ROOT in target.parents
        if not exists:
            missing.append(token)
    return missing


def forbidden_words(name: str) -> list[str]:
    text = page_text(name).lower()
    return [word for word in FORBIDDEN if word in text]


def page_decisions(text: str) -> dict[str, str]:
    """Title -> the decision's text on the page (up to the next list item or blank line)."""
    decisions = {}
    for match in PAGE_DECISION.finditer(text):
        rest = text[match.end():]
        end = re.search(r"\n\s*\n|\n[-*] |\n\|", rest)
        decisions.setdefault(match.group(1), rest[:end.start() if end else len(rest)])
    return decisions


def code_decisions(folder_or_file: Path) -> set[str]:
    files = [folder_or_file] if folder_or_file.is_file() else sorted(folder_or_file.glob("*.py"))
    titles: set[str] = set()
    for path in files:
        titles |= set(CODE_DECISION.findall(path.read_text()))
    return titles


def check_decisions(name: str, engine: Path, decisions: dict[str, tuple[str, ...]]) -> None:
    """The page titles exactly the verified ``decisions``, each with its key phrases in its
    text, and the engine marks exactly these titles."""
    on_page = page_decisions(page_text(name))
    assert set(on_page) == set(decisions), (sorted(set(decisions) - set(on_page)), sorted(set(on_page) - set(decisions)))
    for title, phrases in decisions.items():
        text = " ".join(on_page[title].split()).lower()
        for phrase in phrases:
            assert phrase.lower() in text, (title, phrase)
    in_code = code_decisions(engine)
    assert in_code == set(decisions), (sorted(set(decisions) - in_code), sorted(in_code - set(decisions)))
