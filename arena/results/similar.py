"""Near-copy detection among submitted bots: which pairs of bots share most of their source.

Each bot's source (a file bot's file; a folder bot's text files, in path order) is reduced to
what survives renaming and reformatting: comments go; every name that is not a keyword
becomes ``V``, every number ``N``, every string ``S``; what is left is the sequence of tokens
(keywords, ``V``, ``N``, ``S``, operators and brackets), whatever the spacing. Each run of
``K`` tokens is hashed and the fingerprints kept are the smallest hash of every window of
``W`` runs (winnowing, as MOSS does): any shared passage of ``K + W − 1`` tokens or more is
sure to share a fingerprint. Two bots' similarity is the Jaccard index of their fingerprint
sets: shared / all. Renaming variables, changing comments, spacing or constants leaves a copy
at or near 1; bots written apart in the same language share little beyond boilerplate (the
protocol loop of a starter kit), which the field's median shows.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

K = 8                       # tokens per run
W = 4                       # runs per winnowing window
THRESHOLD = 0.5
MAX_BYTES = 2_000_000       # of source read per bot
SOURCE_SUFFIXES = {".py", ".js", ".mjs", ".ts", ".c", ".h", ".cc", ".cpp", ".hpp", ".java", ".go", ".rs",
                   ".rb", ".cs", ".kt", ".swift", ".lua", ".php", ".pl", ".sh", ".scala", ".hs", ".ml", ".jl", ""}

KEYWORDS = frozenset("""
and as assert async await break case catch class const continue def default del do elif else enum except
export extends false final finally fn for foreach from func function global go if impl import in interface
is lambda let loop match mod module mut new nil none not null or package pass private protected public raise
return self static struct super switch this throw throws trait true try type typeof use var void while with
yield int float double char bool string long short unsigned auto print println len range
""".split())

_COMMENTS = re.compile(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\''          # Python docstrings (as strings)
    r'|/\*[\s\S]*?\*/'                               # C-style block comments
    r'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|`(?:\\.|[^`\\])*`'   # strings
    r'|(?://|#|--)[^\n]*')                           # line comments
_STRING = "\x01"  # stands for a string literal between the two passes
_TOKENS = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d[\w.]*|==|!=|<=|>=|->|=>|&&|\|\||\+=|-=|\*=|/=|\S")


@dataclass
class Pair:
    first: str
    second: str
    similarity: float


def tokens(source: str) -> list[str]:
    """The source's tokens with comments gone and names, numbers and strings made uniform."""
    def replace(match: re.Match) -> str:
        text = match.group(0)
        return f" {_STRING} " if text[0] in "\"'`" else " "
    result = []
    for token in _TOKENS.findall(_COMMENTS.sub(replace, source)):
        if token == _STRING:
            result.append("S")
        elif token[0].isalpha() or token[0] == "_":
            result.append(token if token.lower() in KEYWORDS else "V")
        elif token[0].isdigit():
            result.append("N")
        else:
            result.append(token)
    return result


def fingerprints(source: str, k: int = K, window: int = W) -> set[int]:
    """Winnowed hashes of the source's k-token runs."""
    sequence = tokens(source)
    if len(sequence) < k:
        return {_hash(" ".join(sequence))} if sequence else set()
    hashes = [_hash(" ".join(sequence[i:i + k])) for i in range(len(sequence) - k + 1)]
    if len(hashes) <= window:
        return {min(hashes)}
    return {min(hashes[i:i + window]) for i in range(len(hashes) - window + 1)}


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def similarity(a: set[int], b: set[int]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def source_of(path: Path) -> str:
    """A bot's source text: its file, or its folder's source files in path order."""
    if path.is_file():
        return path.read_text(errors="replace")[:MAX_BYTES]
    parts, size = [], 0
    for file in sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SOURCE_SUFFIXES):
        try:
            text = file.read_text()
        except (UnicodeDecodeError, OSError):
            continue  # binaries, build products
        parts.append(text)
        size += len(text)
        if size > MAX_BYTES:
            break
    return "\n".join(parts)[:MAX_BYTES]


def similar_pairs(sources: dict[str, str], threshold: float = THRESHOLD) -> tuple[list[Pair], float]:
    """The pairs of named sources at or above ``threshold``, most similar first, and the
    median similarity over all pairs (the field's baseline)."""
    prints = {name: fingerprints(text) for name, text in sources.items()}
    everything = [Pair(a, b, similarity(prints[a], prints[b])) for a, b in itertools.combinations(sorted(prints), 2)]
    baseline = statistics.median(p.similarity for p in everything) if everything else 0.0
    found = sorted((p for p in everything if p.similarity >= threshold), key=lambda p: (-p.similarity, p.first, p.second))
    return found, baseline


def game_sources(store, game: str) -> dict[str, str]:
    """The latest version of each bot of the game that is not withdrawn: 'name vN' -> source."""
    latest: dict[str, dict] = {}
    for version in store.bot_versions(game, include_withdrawn=False):
        latest[version["name"]] = version  # versions come in order: the last is the latest
    return {f"{name} v{v['version']}": source_of(store.bot_path(v)) for name, v in latest.items()}
