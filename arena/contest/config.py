"""A contest's settings (`ContestConfig`): the game, the running ladder, limits, rules, the
deadline. Checked here, before anything is stored; a mistake is one line naming the key."""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field, fields

LADDER_FORMATS = ("ladder",)

# key -> (minimum, maximum) for the whole-number limits
LIMIT_RANGES = {
    "upload_bytes": (1024, 1 << 30),
    "unpacked_bytes": (1024, 4 << 30),
    "files_per_upload": (1, 100_000),
    "submissions_per_day": (1, 10_000),
    "test_matches_per_hour": (0, 10_000),
    "test_opponents_max": (1, 63),
    "test_repeats_max": (1, 20),
    "ladder_batch": (1, 10_000),
    "workers": (1, 256),
}


class ContestError(Exception):
    """A bad contest setting or request; the message is one line."""


@dataclass
class ContestConfig:
    """Everything a contest is set up with (stored as JSON in ``contests.config``)."""

    game: str
    players: int | None = None                # default: the game's smallest player count
    options: dict = field(default_factory=dict)   # the game's options, for every match
    ladder_format: str = "ladder"             # the running ladder (only "ladder" for now)
    ladder_batch: int = 16                    # groups the ladder plans per step
    duplicate: bool = False                   # the ladder plays each deal in every seating
    limits: dict = field(default_factory=dict)  # per-match limits (arena.runner.match.Limits fields)
    upload_bytes: int = 10 << 20              # largest upload (the file or the zip as sent)
    unpacked_bytes: int = 50 << 20            # a zip's total size once unpacked
    files_per_upload: int = 1000              # files in a zip
    submissions_per_day: int = 20             # uploads per entrant in any 24 hours
    test_matches_per_hour: int = 10           # test-match requests per entrant in any hour
    test_opponents_max: int = 7               # opponents one test match may name (with more players)
    test_repeats_max: int = 3                 # matches one test request may ask for
    deadline: str | None = None               # ISO 8601 in UTC ("2026-12-20T18:00:00Z"): submissions close
    public_replays: bool = False              # may everyone see full views of finished matches
    workers: int | None = None                # match workers of the runner (default: one per core)
    link_base: str = "http://127.0.0.1:8000"  # sign-in links are LINK_BASE/signin/TOKEN

    def deadline_at(self) -> dt.datetime | None:
        return parse_deadline(self.deadline) if self.deadline else None


KEYS = tuple(f.name for f in fields(ContestConfig))


def parse_deadline(text: str) -> dt.datetime:
    """An aware UTC datetime from ISO 8601 (a time without a zone is taken as UTC)."""
    try:
        when = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        raise ContestError(f"deadline must be a date and time like 2026-12-20T18:00:00Z, not {text!r}") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return when.astimezone(dt.timezone.utc)


def check(config: ContestConfig) -> ContestConfig:
    """``config`` with the game's defaults filled in, or `ContestError` naming the bad key."""
    from arena.games import GameError, get_game

    for key, kind, name in (("game", str, "a string"), ("options", dict, "a table"), ("limits", dict, "a table"),
                            ("link_base", str, "a string"), ("ladder_format", str, "a string")):
        if not isinstance(getattr(config, key), kind):
            raise ContestError(f"{key} must be {name}, not {getattr(config, key)!r}")
    if isinstance(config.deadline, dt.datetime):  # a TOML date-time written without quotes
        config.deadline = config.deadline.isoformat()
    if config.deadline is not None and not isinstance(config.deadline, str):
        raise ContestError(f"deadline must be a date and time like 2026-12-20T18:00:00Z, not {config.deadline!r}")
    if config.players is not None and (isinstance(config.players, bool) or not isinstance(config.players, int)):
        raise ContestError(f"players must be a whole number, not {config.players!r}")
    try:
        game = get_game(config.game)
    except GameError as error:
        raise ContestError(str(error)) from None
    players = config.players or min(game.player_counts)
    if players not in game.player_counts:
        raise ContestError(f"players must be one of {sorted(game.player_counts)} for {config.game}, not {players}")
    try:
        options = game.validate(players, config.options)
    except GameError as error:
        raise ContestError(f"options: {error}") from None
    if config.ladder_format not in LADDER_FORMATS:
        raise ContestError(f"ladder_format must be one of {', '.join(LADDER_FORMATS)}, not {config.ladder_format!r}")
    for key, (low, high) in LIMIT_RANGES.items():
        value = getattr(config, key)
        if value is None and key == "workers":
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ContestError(f"{key} must be a whole number from {low} to {high}, not {value!r}")
    for key in ("duplicate", "public_replays"):
        if not isinstance(getattr(config, key), bool):
            raise ContestError(f"{key} must be true or false, not {getattr(config, key)!r}")
    if config.deadline is not None:
        config.deadline = parse_deadline(config.deadline).strftime("%Y-%m-%dT%H:%M:%SZ")
    if not isinstance(config.link_base, str) or not config.link_base.startswith(("http://", "https://")):
        raise ContestError(f"link_base must start with http:// or https://, not {config.link_base!r}")
    config.link_base = config.link_base.rstrip("/")
    from arena.tournament.config import TournamentError, check_limits

    try:
        check_limits(config.limits)
    except TournamentError as error:
        raise ContestError(str(error)) from None
    config.players, config.options = players, options
    return config


def as_json(config: ContestConfig) -> dict:
    return asdict(config)


def from_json(data: dict) -> ContestConfig:
    """A stored configuration (keys this arena does not know are ignored: a newer one wrote them)."""
    return ContestConfig(**{k: v for k, v in data.items() if k in KEYS})
