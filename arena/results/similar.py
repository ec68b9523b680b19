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

By behaviour (`arena similar`'s default): every bot is put through one fixed set of recorded
requests in the sandbox (`arena.runner.replayset`) and two bots' *agreement* is the share of
the requests both answered where they chose the same action. A pair is listed when it agrees
at least ``threshold`` of the time *and* disagrees at most a quarter as often as the field's
median pair (`FAR_BELOW`), so a field of look-alike bots does not list every pair.
"""

from __future__ import annotations

import ctypes
import hashlib
import itertools
import os
import re
import signal
import statistics
from dataclasses import dataclass
from pathlib import Path

from arena.results.humans import is_human

K = 8                       # tokens per run
W = 4                       # runs per winnowing window
THRESHOLD = 0.5
AGREEMENT = 0.9             # a listed pair agrees on at least this share of the requests ...
FAR_BELOW = 0.25            # ... and disagrees at most this share as often as the median pair
MIN_COMMON = 0.5            # ... on at least this share of the set answered by both
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


def game_bots(store, game: str) -> dict[str, dict]:
    """The latest version of each bot of the game that is not withdrawn: 'name vN' -> version."""
    latest: dict[str, dict] = {}
    for version in store.bot_versions(game, include_withdrawn=False):
        if not is_human(version):  # a person has no program to compare
            latest[version["name"]] = version  # versions come in order: the last is the latest
    return {f"{name} v{v['version']}": v for name, v in latest.items()}


def game_sources(store, game: str) -> dict[str, str]:
    """The latest version of each bot of the game that is not withdrawn: 'name vN' -> source."""
    return {label: source_of(store.bot_path(v)) for label, v in game_bots(store, game).items()}


# ---- by behaviour ---------------------------------------------------------------------------

@dataclass
class Agreement:
    first: str
    second: str
    rate: float     # same action / requests both answered
    common: int     # requests both answered


@dataclass
class Field:
    """Every pair's agreement, the baseline, and the pairs listed as near-copies."""

    pairs: list[Agreement]
    listed: list[Agreement]
    median: float
    p95: float


def agreement(a: list, b: list) -> Agreement:
    both = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
    same = sum(1 for x, y in both if x == y)
    return Agreement("", "", same / len(both) if both else 0.0, len(both))


def agreeing_pairs(decisions: dict[str, list], threshold: float = AGREEMENT) -> Field:
    """Each pair's agreement over the requests both answered; the pairs far above the field."""
    size = max((len(d) for d in decisions.values()), default=0)
    pairs = []
    for a, b in itertools.combinations(sorted(decisions), 2):
        pair = agreement(decisions[a], decisions[b])
        pair.first, pair.second = a, b
        if pair.common >= max(1, MIN_COMMON * size):
            pairs.append(pair)
    rates = sorted(p.rate for p in pairs)
    median = statistics.median(rates) if rates else 0.0
    p95 = rates[min(len(rates) - 1, int(0.95 * len(rates)))] if rates else 0.0
    listed = sorted((p for p in pairs if p.rate >= threshold and 1 - p.rate <= FAR_BELOW * (1 - median)),
                    key=lambda p: (-p.rate, p.first, p.second))
    return Field(pairs, listed, median, p95)


def replay_field(store, game: str, size: int, workers: int = 1, seed: int | None = None, progress=None) -> dict:
    """Every bot of the game (latest versions, none withdrawn) put through one replay set:
    'name vN' -> `arena.runner.replayset.Replay`. ``progress(done, total, label, replay)`` is
    called as each bot finishes."""
    from arena.runner.replayset import SEED, replay, replay_set

    requests = replay_set(game, size, SEED if seed is None else seed)
    jobs = [(label, str(store.bot_path(v)), v["stored_hash"] or v["content_hash"])
            for label, v in game_bots(store, game).items()]
    replays: dict = {}

    def finished(label, result):
        replays[label] = result
        if progress is not None:
            progress(len(replays), len(jobs), label, result)

    if workers <= 1 or len(jobs) <= 1:
        for label, path, digest in jobs:
            finished(label, replay(path, requests, digest))
        return replays
    import multiprocess

    with multiprocess.get_context("fork").Pool(min(workers, len(jobs)), _set_requests,
                                               (requests, os.getpid())) as pool:
        for label, result in pool.imap_unordered(_replay_job, jobs):
            finished(label, result)
    return replays  # on Ctrl-C the pool's exit ends its workers; their bots die with them


_REQUESTS = None  # the replay set, in a worker of `replay_field`


def _set_requests(requests, parent: int) -> None:
    """A worker: the replay set; Ctrl-C is the parent's to act on (as in a tournament's worker),
    SIGTERM ends it, and it dies with the parent (its bots die with it: PR_SET_PDEATHSIG)."""
    global _REQUESTS
    _REQUESTS = requests
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.set_wakeup_fd(-1)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)


def _replay_job(job):
    from arena.runner.replayset import replay

    label, path, digest = job
    return label, replay(path, _REQUESTS, digest)
