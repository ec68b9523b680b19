"""A person against bots: one match with a human seat, stored and rated like any other.

`prepare` checks everything, registers the person as a bot of language ``human`` (named
after them; no file, never scheduled by a tournament) and stores a one-match tournament
(``config["play"]`` says who sat where); `HumanMatch.start` plays it in a thread — the bots
sandboxed, on their normal clocks, frozen while the person thinks (`arena.runner.match`) —
and commits the result with `Store.record_match`, which rates it. `PlayHost` keeps the
matches people are playing, for the web pages (`arena.web.app`), which reach a match only by
its unguessable token.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path

from arena.games import GameError, get_game
from arena.results import keys
from arena.results.humans import HUMAN
from arena.results.store import Store
from arena.results.submit import SubmitError, check_name
from arena.runner.bots import BotError
from arena.runner.human import HumanSeat, NotYourTurn
from arena.tournament.config import MAX_SEED, TournamentError
from arena.tournament.create import resolve_one
from arena.tournament.formats import ScheduledMatch

DEFAULT_THINK_S = 120          # per decision
DEFAULT_BANK_S = 600           # a bank on top, for the harder decisions
MAX_PLAYING = 4                # matches with a person at once (per host)


@dataclass
class HumanMatch:
    """One stored, pending match with a person in ``seat``."""

    db_path: str
    tournament_id: int
    match_id: int
    game: str
    seat: int
    names: list                # per seat: the bot's (or the person's) name
    spec: object               # the runner's MatchSpec, the human seat a HumanSeat
    human: HumanSeat
    token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    result: dict | None = None
    thread: threading.Thread | None = None
    end_seen: threading.Event = field(default_factory=threading.Event)  # the page got the stored end

    def start(self) -> "HumanMatch":
        self.thread = threading.Thread(target=self._run, name=f"play-{self.match_id}", daemon=True)
        self.thread.start()
        return self

    def done(self) -> bool:
        return self.thread is not None and not self.thread.is_alive()

    # ---- what a page may do (nothing here reaches another seat's information) ----------------

    def view(self, since: int | None = None, wait_s: float = 0.0) -> dict:
        """This seat's view: its waiting request (observation, legal actions, clock) or the end."""
        seen = {**self.human.view(since, wait_s), "done": self.done(), "match_id": self.match_id}
        if seen["done"] and (seen["end"] or seen["problem"]):
            self.end_seen.set()
        return seen

    def submit(self, action) -> str | None:
        """None when the action was taken, else why not (the engine's reason, or not your turn)."""
        try:
            return self.human.submit(action)
        except NotYourTurn as error:
            return str(error)

    def leave(self) -> None:
        self.human.leave()

    def about(self) -> dict:
        """Public facts of the match: the game, the seats' names, which seat is the person's."""
        return {"match_id": self.match_id, "tournament_id": self.tournament_id, "game": self.game,
                "seat": self.seat, "names": self.names, "players": len(self.names), "human": self.human.name}

    def _run(self) -> None:
        from arena.runner.match import play_match

        try:
            result = play_match(self.spec).to_dict()
        except Exception as error:  # the harness could not play it: stored as the match's error
            message = f"{type(error).__name__}: {error}"
            with Store(self.db_path) as store:
                store.record_error(self.match_id, message)
                store.set_tournament_status(self.tournament_id, "finished")
            self.human.fail(f"the match could not be played: {message}")
            return
        try:
            with Store(self.db_path) as store:
                store.record_match(self.match_id, result)
                store.set_tournament_status(self.tournament_id, "finished")
        except Exception as error:  # noqa: BLE001 - shown on the page; the CLI says it too
            self.human.fail(f"the match could not be stored: {type(error).__name__}: {error}")
            return
        del result["log"]
        self.result = result


def human_version(store: Store, game: str, name: str, create: bool = True) -> dict | None:
    """The person's bot version (made on first play, unless not ``create``): a bot named after
    them, language human. A name that is a bot's is refused."""
    try:
        name = check_name(name)
    except SubmitError as error:
        raise TournamentError(str(error)) from None
    versions = store.bot_versions(game, name)
    if any(v["language"] != HUMAN for v in versions):
        raise TournamentError(f"{name!r} is the name of a {game} bot; play under another name (--name)")
    if versions or not create:
        return versions[-1] if versions else None
    version, _ = store.add_bot_version(game, name, HUMAN, HUMAN, "", None, check_copy=False)
    return version


def prepare(store: Store, game: str, opponents: list[str], name: str, seat: int | None = None,
            seed: int | None = None, options: dict | None = None, think_s: float = DEFAULT_THINK_S,
            bank_s: float = DEFAULT_BANK_S, limits: dict | None = None) -> HumanMatch:
    """Check and store a match of ``name`` against ``opponents`` (bot names or paths); the
    person sits in ``seat`` (default: a random one). Not started (`HumanMatch.start`)."""
    import random

    from arena.runner.match import Limits, MatchSpec
    from arena.runner.sandbox import detect

    rules = get_game(game)
    players = len(opponents) + 1
    options = rules.validate(players, options or {})
    if seat is None:
        seat = random.SystemRandom().randrange(players)
    if not 0 <= seat < players:
        raise TournamentError(f"seat must be from 0 to {players - 1} in a {players}-player match, not {seat}")
    if seed is None:
        seed = random.SystemRandom().randrange(MAX_SEED)
    detect()  # refuse now (one line) where bots cannot be sandboxed
    human_version(store, game, name, create=False)  # a name that cannot be the person's is refused first
    bots = [resolve_one(store, game, entry) for entry in opponents]
    person = human_version(store, game, name)
    versions = bots[:seat] + [person] + bots[seat:]
    if len({v["id"] for v in versions}) != players:
        raise TournamentError("each bot may take one seat")
    secret = keys.secret_for("tournament", seed)
    deal = ScheduledMatch(index=0, round=0, seats=tuple(range(players)), deal=0, seed=keys.deal_seed(secret, 0))
    human_limits = {"decision_ms": round(think_s * 1000), "bank_ms": round(bank_s * 1000), "clock": "wall"}
    config = {"game": game, "players": players, "rounds": 1, "seed": seed, "options": options,
              "format": "round-robin", "limits": limits or {}, "bots": [f"{v['name']}@{v['version']}" for v in versions],
              "play": {"human": person["name"], "seat": seat}, "entry_limits": {str(seat): human_limits}}
    names = [v["name"] for v in versions]
    tournament_id = store.create_tournament(
        name=f"{person['name']} plays {', '.join(n for i, n in enumerate(names) if i != seat)}", game=game,
        players=players, rounds=1, seed=seed, options=options, config=config, entries=[v["id"] for v in versions],
        schedule=[deal], secret=secret)
    store.set_tournament_status(tournament_id, "running")
    pending = store.pending_matches(tournament_id)[0]
    human = HumanSeat(person["name"])
    bot_limits = Limits(**(limits or {}))
    seat_paths = list(pending["bots"])
    seat_paths[seat] = human
    hashes = list(pending["hashes"])
    hashes[seat] = None
    spec = MatchSpec(game, seat_paths, pending["seed"], options, bot_limits, bot_seeds=keys.bot_seeds(secret, 0, players),
                     hashes=hashes, seat_limits=[Limits(**{**vars(bot_limits), **human_limits}) if i == seat else None
                                                 for i in range(players)])
    return HumanMatch(str(store.path), tournament_id, pending["id"], game, seat, names, spec, human)


class PlayHost:
    """The matches people are playing through this server, by token (at most `MAX_PLAYING`
    at once: a page cannot start more and burn the machine's CPU)."""

    def __init__(self, db_path: str | Path, think_s: float = DEFAULT_THINK_S, bank_s: float = DEFAULT_BANK_S,
                 limit: int = MAX_PLAYING):
        self.db_path = str(db_path)
        self.think_s, self.bank_s, self.limit = think_s, bank_s, limit
        self._matches: dict[str, HumanMatch] = {}
        self._lock = threading.Lock()

    def add(self, match: HumanMatch) -> HumanMatch:
        with self._lock:
            self._matches[match.token] = match
        return match

    def start(self, game: str, opponents: list[str], name: str, seat: int | None = None,
              seed: int | None = None) -> tuple[HumanMatch | None, str | None]:
        """Store and start a match: (the match, None), or (None, why not) for a request that
        cannot be played. Opponents are names of stored bots only, never a path: a page's
        visitor must not name files on this machine."""
        try:
            for entry in opponents:
                if "/" in entry or "\\" in entry or entry.startswith("."):
                    raise TournamentError(f"{entry!r} is not a bot's name")
            with self._lock:
                if sum(1 for m in self._matches.values() if not m.done()) >= self.limit:
                    raise TournamentError(f"{self.limit} matches are being played here already; try again later")
                with Store(self.db_path) as store:
                    match = prepare(store, game, opponents, name, seat, seed, think_s=self.think_s,
                                    bank_s=self.bank_s)
                self._matches[match.token] = match.start()
        except (TournamentError, GameError, BotError) as error:
            return None, str(error)
        return match, None

    def get(self, token: str) -> HumanMatch | None:
        with self._lock:
            return self._matches.get(token)

    def close(self) -> None:
        """The server stops: every person leaves (their seats time out, the matches end and are stored)."""
        with self._lock:
            matches = list(self._matches.values())
        for match in matches:
            match.human.leave()
        for match in matches:
            if match.thread is not None:
                match.thread.join(30)


__all__ = ["DEFAULT_BANK_S", "DEFAULT_THINK_S", "HUMAN", "HumanMatch", "PlayHost", "human_version", "prepare"]
