"""Tournament configuration: the keys, their types and sane ranges, from flags or a TOML file.

Every value is checked here, before anything is stored, played or sent to a bot; a mistake
is one line naming the key, what it must be and what it was.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields
from dataclasses import field as dataclass_field

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

MAX_SEED = (1 << 63) - 1
MAX_MATCHES = 2_000_000
MAX_WORKERS = 256
FORMATS = ("round-robin", "gauntlet", "swiss", "ladder", "sprt")
RESTART = ("auto", "always")
CLOCKS = ("cpu", "wall")  # arena.runner.clock.CLOCKS

# limit -> (type, minimum, maximum, unit for messages)
LIMIT_RANGES = {
    "start_ms": (int, 1, 600_000, "ms"),
    "decision_ms": (int, 1, 600_000, "ms"),
    "bank_ms": (int, 0, 3_600_000, "ms"),
    "max_line_bytes": (int, 1024, 64 << 20, "bytes"),
    "max_output_bytes": (int, 1024, 1 << 30, "bytes"),
    "memory_mb": (int, 16, 65_536, "MiB"),
    "cpu_seconds": (int, 1, 86_400, "s"),
    "processes": (int, 1, 4096, ""),
    "disk_mb": (int, 1, 16_384, "MiB"),
    "cpus": (float, 0.01, 256.0, "cores"),
}


class TournamentError(Exception):
    """A bad tournament configuration or request; the message is one line."""


@dataclass
class TournamentConfig:
    game: str
    bots: list                      # entries: bot names ("name" or "name@2"), paths, or tables
    players: int | None = None      # default: the game's smallest player count
    rounds: int = 1
    finals: list = dataclass_field(default_factory=list)   # swiss: [[finalists, rounds], ...] round-robin finals
    options: dict = dataclass_field(default_factory=dict)
    seed: int | None = None         # default: a random seed, stored and printed
    name: str | None = None
    workers: int | None = None      # default: one per core
    limits: dict = dataclass_field(default_factory=dict)   # overrides of arena.runner.match.Limits fields
    clock: str | None = None        # "cpu" | "wall" (default: cpu wherever cgroups can read it)
    skip_unavailable: bool = False  # leave out missing games and bot files (the demo uses it)
    restart: str = "auto"           # "always": a fresh process per match even for reusable bots
    format: str = "round-robin"     # round-robin | gauntlet | swiss | ladder | sprt
    candidates: list = dataclass_field(default_factory=list)   # gauntlet: entries that play the field
    field: list = dataclass_field(default_factory=list)        # sprt with more than 2 players: the other seats
    duplicate: bool = False         # play each deal in every seating of its group (a duplicate set)
    keep_bots: int | None = None    # live bot processes per worker (protocol v2 reuse)
    executor: str = "local"         # local | dask
    scheduler: str | None = None    # the Dask scheduler's address
    batch: int | None = None        # ladder and sprt: groups planned per step
    max_matches: int | None = None  # ladder and sprt: stop after this many matches
    until_stable: bool = False      # ladder: stop when the top is settled (see `top`, `sigma_bound`)
    top: int = 3                    # ladder: how many leading places must stay in order
    stable_batches: int = 5         # ladder: for this many batches in a row
    sigma_bound: float = 1.5        # ladder: and every sigma must be under this
    elo0: float = 0.0               # sprt: H0, the new version is at most this much better
    elo1: float = 10.0              # sprt: H1, the new version is at least this much better
    alpha: float = 0.05             # sprt: false positive rate
    beta: float = 0.05              # sprt: false negative rate


CONFIG_KEYS = tuple(f.name for f in fields(TournamentConfig))
_TYPES = {"game": str, "players": int, "rounds": int, "options": dict, "seed": int, "name": str, "workers": int,
          "limits": dict, "skip_unavailable": bool, "restart": str, "format": str, "candidates": list,
          "field": list, "duplicate": bool, "keep_bots": int, "executor": str, "scheduler": str, "bots": list,
          "batch": int, "max_matches": int, "until_stable": bool, "top": int, "stable_batches": int,
          "sigma_bound": float, "elo0": float, "elo1": float, "alpha": float, "beta": float, "clock": str,
          "finals": list}
_TYPE_NAMES = {str: "a string", int: "a whole number", dict: "a table", bool: "true or false", list: "a list",
               float: "a number"}


def _type_name(value) -> str:
    return {str: "a string", int: "a number", float: "a number", bool: "a boolean", list: "a list",
            dict: "a table", type(None): "nothing"}.get(type(value), type(value).__name__)


def check_value(key: str, value, where: str = "") -> None:
    """Refuse a value of the wrong type or outside its range (``where`` prefixes the message)."""
    expected = _TYPES.get(key)
    if value is None and key in ("players", "seed", "name", "workers", "keep_bots", "scheduler", "batch",
                                 "max_matches", "clock"):
        return
    if expected is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise TournamentError(f"{where}{key} must be a number, not {_type_name(value)} ({value!r})")
    elif expected is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TournamentError(f"{where}{key} must be a whole number, not {_type_name(value)} ({value!r})")
    elif expected is not None and not isinstance(value, expected):
        raise TournamentError(f"{where}{key} must be {_TYPE_NAMES[expected]}, not {_type_name(value)} ({value!r})")
    ranges = {"players": (1, 64), "rounds": (1, MAX_MATCHES), "seed": (0, MAX_SEED), "workers": (1, MAX_WORKERS),
              "keep_bots": (0, 1024), "batch": (1, 10_000), "max_matches": (1, MAX_MATCHES), "top": (1, 1000),
              "stable_batches": (1, 10_000), "sigma_bound": (0.01, 100.0), "elo0": (-2000.0, 2000.0),
              "elo1": (-2000.0, 2000.0), "alpha": (1e-6, 0.5), "beta": (1e-6, 0.5)}
    if key in ranges:
        low, high = ranges[key]
        if not low <= value <= high:
            raise TournamentError(f"{where}{key} must be from {low} to {high}, not {value}")
    if key == "restart" and value not in RESTART:
        raise TournamentError(f"{where}restart must be \"auto\" or \"always\", not {value!r}")
    if key == "format" and value not in FORMATS:
        raise TournamentError(f"{where}format must be one of {', '.join(FORMATS)}, not {value!r}")
    if key == "clock" and value not in CLOCKS:
        raise TournamentError(f"{where}clock must be \"cpu\" or \"wall\", not {value!r}")
    if key == "executor" and value not in ("local", "dask"):
        raise TournamentError(f"{where}executor must be \"local\" or \"dask\", not {value!r}")
    if key == "name" and (not value.strip() or len(value) > 200):
        raise TournamentError(f"{where}name must be 1 to 200 characters")
    if key == "game" and not value:
        raise TournamentError(f"{where}game may not be empty")
    if key == "limits":
        check_limits(value, where)
    if key == "finals":
        check_finals(value, where)
    if key in ("bots", "candidates", "field"):
        for entry in value:
            check_entry(entry, where)


FINALS_FORM = "finals are [[finalists, rounds], ...] with fewer finalists each time, e.g. [[30, 1], [16, 6]]"


def check_finals(finals: list, where: str = "") -> None:
    """Swiss finals: pairs [finalists, rounds], each final smaller than the one before."""
    previous = None
    for final in finals:
        if (not isinstance(final, (list, tuple)) or len(final) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in final)):
            raise TournamentError(f"{where}{FINALS_FORM}, not {final!r}")
        finalists, rounds = final
        if not 2 <= finalists <= 10_000 or not 1 <= rounds <= 1000:
            raise TournamentError(f"{where}a final has 2 to 10000 finalists and 1 to 1000 rounds, not {final!r}")
        if previous is not None and finalists >= previous:
            raise TournamentError(f"{where}{FINALS_FORM}: {finalists} finalists after {previous}")
        previous = finalists


def parse_finals(text: str) -> list[list[int]]:
    """``30x1,16x6`` (the command line's form) -> [[30, 1], [16, 6]]."""
    finals = []
    for part in (p.strip() for p in text.split(",")):
        finalists, sep, rounds = part.partition("x")
        if not sep or not finalists.strip().isdigit() or not rounds.strip().isdigit():
            raise TournamentError(f"--finals must look like 30x1,16x6 (FINALISTSxROUNDS, ...), not {text!r}")
        finals.append([int(finalists), int(rounds)])
    check_finals(finals)
    return finals


def check_limits(limits: dict, where: str = "") -> None:
    for name, value in limits.items():
        if name == "clock":
            raise TournamentError(f"{where}the clock is the same for every bot: give it as the tournament's"
                                  f" 'clock' key (clock = {value!r}), not as a limit")
        if name not in LIMIT_RANGES:
            raise TournamentError(f"{where}unknown limit {name!r} (known: {', '.join(LIMIT_RANGES)})")
        kind, low, high, unit = LIMIT_RANGES[name]
        if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
            raise TournamentError(f"{where}limit {name} must be {'a number' if kind is float else 'a whole number'},"
                                  f" not {_type_name(value)} ({value!r})")
        if not low <= value <= high:
            raise TournamentError(f"{where}limit {name} must be from {low} to {high}{' ' + unit if unit else ''},"
                                  f" not {value}")


ENTRY_KEYS = ("path", "name", "limits")


def check_entry(entry, where: str = "") -> None:
    if isinstance(entry, str):
        if not entry.strip():
            raise TournamentError(f"{where}a bot entry may not be empty")
        if "\0" in entry:
            raise TournamentError(f"{where}a bot entry may not contain a NUL character")
        return
    if isinstance(entry, dict):
        unknown = sorted(set(entry) - set(ENTRY_KEYS))
        if unknown:
            raise TournamentError(f"{where}bot entry {entry!r}: unknown key {unknown[0]!r} (known: path, name, limits)")
        if not isinstance(entry.get("path"), str) or not entry["path"].strip():
            raise TournamentError(f"{where}bot entry {entry!r} needs a 'path' (a string)")
        if "name" in entry and not isinstance(entry["name"], str):
            raise TournamentError(f"{where}bot entry {entry!r}: 'name' must be a string")
        if "limits" in entry:
            if not isinstance(entry["limits"], dict):
                raise TournamentError(f"{where}bot entry {entry!r}: 'limits' must be a table")
            check_limits(entry["limits"], f"{where}bot {entry['path']}: ")
        return
    raise TournamentError(f"{where}each bot must be a name, a path or a table with a path, not {_type_name(entry)}"
                          f" ({entry!r})")


def check_config(config: TournamentConfig, where: str = "") -> TournamentConfig:
    for key in CONFIG_KEYS:
        check_value(key, getattr(config, key), where)
    if config.executor == "dask" and not config.scheduler:
        raise TournamentError(f"{where}the dask executor needs a scheduler (--scheduler tcp://HOST:8786)")
    if config.candidates and config.format != "gauntlet":
        raise TournamentError(f"{where}'candidates' are for the gauntlet format (format = \"gauntlet\")")
    if config.format == "gauntlet" and not config.candidates:
        raise TournamentError(f"{where}a gauntlet needs candidates (--candidates or 'candidates = [...]')")
    if config.field and config.format != "sprt":
        raise TournamentError(f"{where}a 'field' is for the sprt format")
    if config.format == "sprt" and len(config.bots) != 2:
        raise TournamentError(f"{where}an SPRT compares two bots (new, old), not {len(config.bots)}")
    if config.format == "sprt" and config.elo1 <= config.elo0:
        raise TournamentError(f"{where}elo1 ({config.elo1:g}) must be above elo0 ({config.elo0:g})")
    if config.finals and config.format != "swiss":
        raise TournamentError(f"{where}finals are for the swiss format (format = \"swiss\")")
    if config.finals and config.players is not None and config.finals[-1][0] < config.players:
        raise TournamentError(f"{where}a final needs at least {config.players} finalists (players per match)")
    if config.until_stable and config.format != "ladder":
        raise TournamentError(f"{where}until_stable is for the ladder format")
    return config


def load_file(path: str | os.PathLike) -> list[TournamentConfig]:
    """The tournaments a TOML file describes, in file order, each checked.

    Top-level keys configure one tournament; with ``[[tournament]]`` tables, each table is a
    tournament and the top-level keys are defaults for all of them. Relative bot paths are
    relative to the current directory (run from the project root).
    """
    try:
        with open(path, "rb") as handle:
            raw = handle.read(16 << 20)
    except FileNotFoundError:
        raise TournamentError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise TournamentError(f"{path} is a folder, not a tournament file") from None
    except OSError as error:
        raise TournamentError(f"cannot read {path}: {error.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TournamentError(f"{path}: not UTF-8 text (byte {error.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TournamentError(f"{path}: not valid TOML ({error})") from None
    tables = data.pop("tournament", None)
    if tables is None:
        tables = [{}]
    elif not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise TournamentError(f"{path}: 'tournament' must be an array of tables ([[tournament]])")
    if not tables:
        raise TournamentError(f"{path}: no tournament in the file")
    configs = []
    for number, table in enumerate(tables, 1):
        merged = {**data, **table}
        where = f"{path}: " if len(tables) == 1 else f"{path}: tournament {number}: "
        unknown = sorted(set(merged) - set(CONFIG_KEYS))
        if unknown:
            close = _close_match(unknown[0], CONFIG_KEYS)
            raise TournamentError(f"{where}unknown key {unknown[0]!r}" + (f" (did you mean {close!r}?)" if close else "")
                                  + f" (known: {', '.join(CONFIG_KEYS)})")
        if "game" not in merged or "bots" not in merged:
            raise TournamentError(f"{where}needs 'game' and 'bots'")
        for key, value in merged.items():
            check_value(key, value, where)
        configs.append(TournamentConfig(**merged))
    return configs


def _close_match(word: str, known) -> str | None:
    import difflib

    found = difflib.get_close_matches(word, known, n=1, cutoff=0.75)
    return found[0] if found else None


def parse_options(pairs: list[str]) -> dict:
    """``key=value`` strings from the command line (values are typed by the game)."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise TournamentError(f"option {pair!r} must look like key=value")
        if key.strip() in options:
            raise TournamentError(f"option {key.strip()!r} is given twice")
        options[key.strip()] = value.strip()
    return options


def as_stored(config: TournamentConfig) -> dict:
    stored = asdict(config)
    stored.pop("skip_unavailable")
    return stored
