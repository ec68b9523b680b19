"""Replay frames of a stored match, rebuilt by the engine and checked against the log.

A match log holds every request (with the observation and legal list the bot was sent),
reply and action, but no full states. The frames are rebuilt: the state is created from the
match's ``seed``, ``options`` and player count, and every logged ``action`` event — the
bots' and the harness's fallback decisions alike — is applied in order. Frame *i* is the
state before decision *i*; the last frame is the final state (``len(steps) + 1`` frames).

On the way the replay checks the log: the engine's seat to move, observation and legal list
at each step must equal the logged request where there is one (a fallback step after a
failure has none), the engine must accept every action, and the final scores must equal the
logged end. The outcome is `Replay.verification`; a difference is shown on the match page.

Frames are computed per view on first use (``full``, ``seat-N`` or ``snapshot``, see
`arena.web.boards`) and kept compact: in chunks of `CHUNK` frames, each chunk a full first
frame (``base``) and, for every later frame, the changes from the frame before (``ops``):

* ``[path, value]`` sets the value at ``path`` (a list of keys and indices);
* ``[path]`` deletes the key at ``path``;
* ``[path, items, 1]`` appends ``items`` to the list at ``path``.

A chunk decodes on its own, so the viewer fetches the chunk it shows and the next.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any, Callable, Iterator

import orjson

from arena.games import GameError, IllegalAction, UnknownGame, get_game
from arena.results.timings import clock_of
from arena.text import printable
from arena.web.boards import view_function

CHUNK = 64
MAX_MISMATCHES = 20


class ReplayUnavailable(Exception):
    """The match cannot be replayed (not finished, unknown game, no log)."""


def parse_log(log: list[dict]) -> tuple[list[dict], list[dict], dict | None, dict[int, dict]]:
    """``(steps, start_failures, end, requests)`` from a match log.

    A step is one decision: ``step seat action by debug ms cpu_ms harness_ms bank_ms
    legal_count failure stderr`` (``ms`` the wall time of the bot's reply, ``cpu_ms`` the CPU time
    of all its processes, ``harness_ms`` the harness's own time before the request, each None
    where not recorded; ``failure`` is the seat's ``{status, error}`` when it failed at this
    decision, and the action is then the fallback's; ``stderr`` what the bot wrote to stderr
    during the decision, None where nothing was logged). ``requests`` maps a step to its
    logged request message.
    """
    steps: list[dict] = []
    start_failures: list[dict] = []
    requests: dict[int, dict] = {}
    replies: dict[int, dict] = {}
    failures: dict[int, dict] = {}
    end = None
    for event in log:
        kind = event.get("event")
        if kind == "request":
            requests[event.get("step")] = event.get("message") or {}
        elif kind == "reply":
            replies[event.get("step")] = event
        elif kind == "failure":
            entry = {"seat": event.get("seat"), "status": event.get("status"), "error": event.get("error")}
            if event.get("step") is None:
                start_failures.append(entry)
            else:
                failures[event["step"]] = {**entry, "stderr": event.get("stderr")}
                if "ms" in event:  # it failed waiting for its reply: the times of the wait
                    replies.setdefault(event["step"], {"ms": event.get("ms"), "cpu_ms": event.get("cpu_ms")})
        elif kind == "action":
            number = event.get("step")
            request = requests.get(number) or {}
            reply = replies.get(number) or {}
            failure = failures.get(number)
            legal = request.get("legal")
            steps.append({
                "step": number, "seat": event.get("seat"), "action": event.get("action"),
                "by": event.get("by", "bot"), "debug": event.get("debug"), "ms": reply.get("ms"),
                "cpu_ms": reply.get("cpu_ms"), "harness_ms": reply.get("harness_ms"),
                "bank_ms": (request.get("time") or {}).get("bank_ms"),
                "legal_count": len(legal) if isinstance(legal, list) else None,
                "failure": {"status": failure["status"], "error": failure["error"]} if failure else None,
                "stderr": _shown((failure or {}).get("stderr") or reply.get("stderr")),
            })
        elif kind == "end":
            end = {key: event.get(key) for key in ("scores", "ranks", "statuses", "teams")}
    return steps, start_failures, end, requests


def stderr_outside_decisions(log: list[dict], players: int) -> dict:
    """Per seat, what its bot wrote to stderr before its first request (``start``: with its
    ``ready``, or its start-up failure) and after ``end`` (``after_end``); None where nothing."""
    consoles = {"start": [None] * players, "after_end": [None] * players}
    for event in log:
        seat, kind = event.get("seat"), event.get("event")
        if not isinstance(seat, int) or not 0 <= seat < players or not event.get("stderr"):
            continue
        if kind == "ready" or (kind == "failure" and event.get("step") is None):
            consoles["start"][seat] = _shown(event["stderr"])
        elif kind == "stderr" and event.get("after") == "end":
            consoles["after_end"][seat] = _shown(event["stderr"])
    return consoles


def _shown(text: str | None) -> str | None:
    """A bot's stderr as the viewer shows it: control and invisible characters as escapes."""
    return printable(text) if text else None


def _same(engine: Any, logged: Any) -> bool:
    if engine == logged:
        return True
    # The engine may hand out tuples where the log, after JSON, has lists.
    return json.loads(json.dumps(engine)) == logged


# ---- compact frames -----------------------------------------------------------------------------

def diff(old: Any, new: Any, path: list | None = None, ops: list | None = None) -> list:
    """The ops that turn ``old`` into ``new`` (see the module docstring)."""
    path = [] if path is None else path
    ops = [] if ops is None else ops
    if old is new or (type(old) is type(new) and old == new):
        # Equal parts (compared in C, much faster than walking them) need no op. Python
        # calls 1 and True equal inside containers; JSON frames never swap one for the other.
        return ops
    if isinstance(old, dict) and isinstance(new, dict):
        for key, value in new.items():
            if key in old:
                diff(old[key], value, path + [key], ops)
            else:
                ops.append([path + [key], value])
        for key in old:
            if key not in new:
                ops.append([path + [key]])
        return ops
    if isinstance(old, (list, tuple)) and isinstance(new, (list, tuple)):
        if len(old) == len(new):
            changes: list = []
            for index, (a, b) in enumerate(zip(old, new)):
                diff(a, b, path + [index], changes)
            if len(changes) > 2 and len(changes) * 2 > len(new):
                ops.append([path, new])  # mostly changed: one op is shorter
            else:
                ops.extend(changes)
            return ops
        if len(new) > len(old) and _same_sequence(old, new[:len(old)]):
            ops.append([path, list(new[len(old):]), 1])
            return ops
        ops.append([path, new])
        return ops
    if type(old) is not type(new) or old != new:
        ops.append([path, new])
    return ops


def _same_sequence(a, b) -> bool:
    return len(a) == len(b) and all(not diff(x, y) for x, y in zip(a, b))


def apply_ops(frame: Any, ops: list) -> Any:
    """Apply ops to a frame without changing it (the Python twin of the viewer's decoder)."""
    for op in ops:
        frame = _set(frame, op[0], op)
    return frame


def _set(node: Any, path: list, op: list) -> Any:
    if not path:
        if len(op) == 3:
            return list(node) + list(op[1])
        return op[1]
    copy = list(node) if isinstance(node, list) else dict(node)
    key = path[0]
    if len(path) == 1 and len(op) == 1:
        del copy[key]
    elif len(path) == 1 and len(op) == 2:
        copy[key] = op[1]  # also a key the frame did not have yet
    else:
        copy[key] = _set(node[key], path[1:], op)
    return copy


def encode_chunks(frames: list) -> list[dict]:
    chunks = []
    for start in range(0, len(frames), CHUNK):
        part = frames[start:start + CHUNK]
        chunks.append({"start": start, "count": len(part), "base": part[0],
                       "ops": [diff(a, b) for a, b in zip(part, part[1:])]})
    return chunks


# ---- the replay -----------------------------------------------------------------------------------

def dumps(value: Any) -> bytes:
    """Compact JSON bytes: orjson (several times faster than the standard library, which
    matters for a whole match's frames), or the standard library for what orjson refuses
    (an integer beyond 64 bits)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value, separators=(",", ":")).encode()


def _copy_of(value: Any) -> tuple[bytes, Callable]:
    """``(json, loads)``: the value as JSON and the function that reads it back exactly
    (orjson would read an integer beyond 64 bits, which only the standard library writes,
    as a float)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS), orjson.loads
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value).encode(), json.loads


class _Looks:
    """One state as the views and the check see it: each observation and the snapshot is
    computed by the engine once, as JSON (plain lists and string keys; no frame may share a
    list with the engine's state, which the next action changes). `observation` and
    `snapshot` hand out a fresh copy each time (the full views change what they get);
    `seen_by` hands out one shared copy, never to be changed (a seat's frame, the check)."""

    __slots__ = ("state", "_made", "_shared")

    def __init__(self, state):
        self.state = state
        self._made: dict = {}
        self._shared: dict = {}

    def _json(self, key, make: Callable) -> tuple[bytes, Callable]:
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = _copy_of(make())
        return made

    def observation(self, seat: int) -> Any:
        text, loads = self._json(seat, lambda: self.state.observation(seat))
        return loads(text)

    def snapshot(self) -> Any:
        text, loads = self._json("snapshot", self.state.snapshot)
        return loads(text)

    def seen_by(self, seat: int) -> Any:
        """Seat ``seat``'s observation, shared: read it, never change it."""
        if seat not in self._shared:
            self._shared[seat] = self.observation(seat)
        return self._shared[seat]


class _Pass:
    """One run of the engine through the match, making the frames of one or more views (in
    chunks, as JSON bytes) as far as they have been asked for."""

    def __init__(self, states: Iterator[_Looks], makes: dict[str, Callable]):
        self.states = states
        self.makes = makes
        self.chunks: dict[str, list[bytes]] = {view: [] for view in makes}
        self.done = False
        self.frames = 0

    def advance(self, index: int) -> None:
        """Compute chunks until chunk ``index`` exists or the frames end."""
        while self.frames // CHUNK <= index and not self.done:
            parts: dict[str, list] = {view: [] for view in self.makes}
            count = 0
            for looks in self.states:
                for view, make in self.makes.items():
                    parts[view].append(make(looks))
                count += 1
                if count == CHUNK:
                    break
            else:
                self.done = True
            if count:
                start = self.frames
                for view, part in parts.items():
                    self.chunks[view].append(dumps({"start": start, "count": count, "base": part[0],
                                                    "ops": [diff(a, b) for a, b in zip(part, part[1:])]}))
                self.frames = start + count


class Replay:
    """One stored match, replayable (build it from `arena.web.data.match`).

    Frames are computed lazily, per view and chunk: showing the start of a long match
    replays only its first `CHUNK` steps. The log check runs along with the first view
    computed (`verification` reports how far it got: ``done`` once it reached the end);
    `check` runs it to the end.
    """

    def __init__(self, match: dict):
        self.match_id = match["id"]
        self.clock = clock_of(match)
        self.game_name = match["game"]
        self.players = match["players"]
        self.seed = match["seed"]
        self.options = match.get("options") or {}
        if match.get("status") != "finished":
            raise ReplayUnavailable(f"match {self.match_id} is {match.get('status')}: there is nothing to replay")
        try:
            self.game = get_game(self.game_name)
        except UnknownGame as error:
            raise ReplayUnavailable(str(error)) from None
        self.steps, self.start_failures, self.end, self._requests = parse_log(match.get("log") or [])
        self.stderr = stderr_outside_decisions(match.get("log") or [], self.players)
        self.verification = {"done": False, "ok": None, "checked_steps": 0, "checked_requests": 0,
                             "mismatches": [], "error": None, "complete": None, "scores_match": None}
        self._checker: str | None = None  # the view whose cursor runs the check
        self._cursors: dict[str, _Pass] = {}  # view -> the pass making its frames
        self._lock = threading.Lock()

    @property
    def frame_count(self) -> int:
        """Frames of a complete replay: one before each decision, and the final state. A
        replay the engine cannot finish (see `verification`) has fewer."""
        if self.verification["done"] and self.verification["error"]:
            return min((c.frames for c in self._cursors.values() if c.done), default=len(self.steps) + 1)
        return len(self.steps) + 1

    def views(self) -> list[str]:
        return ["full", *[f"seat-{seat}" for seat in range(self.players)], "snapshot"]

    def _states(self, verify: bool) -> Iterator[_Looks]:
        """The state before each step and after the last; with ``verify``, checking the log
        (with the observations the views already asked the engine for)."""
        report = self.verification
        state = self.game.create_state(self.players, int(self.seed), self.game.validate(self.players, self.options))
        for index, step in enumerate(self.steps):
            looks = _Looks(state)
            yield looks
            if verify:
                self._check(index, step, looks, report)
            try:
                if step["step"] != index:
                    raise GameError(f"the log's step {step['step']} is decision {index}")
                state.apply(step["action"])
            except IllegalAction as error:
                if verify:
                    report["error"] = f"step {index}: the engine refuses the logged action: {error.reason}"
                break
            except GameError as error:
                if verify:
                    report["error"] = f"step {index}: {error}"
                break
        else:
            yield _Looks(state)
            if verify:
                report["complete"] = state.is_over()
                if not report["complete"]:
                    report["error"] = f"the game is not over after the {len(self.steps)} logged decisions"
                if self.end is not None:
                    report["scores_match"] = _same(list(state.scores()), self.end.get("scores"))
        if verify:
            report["complete"] = bool(report["complete"])
            report["ok"] = (report["complete"] and not report["mismatches"] and report["error"] is None
                            and report["scores_match"] is not False)
            report["done"] = True
            self._requests = {}  # checked: the bulk of the log is no longer needed

    def _check(self, index: int, step: dict, looks: _Looks, report: dict) -> None:
        mismatches = report["mismatches"]
        report["checked_steps"] = index + 1
        state = looks.state
        if state.current_seat() != step["seat"]:
            mismatches.append({"step": index, "seat": step["seat"], "field": "seat",
                               "detail": f"the engine has seat {state.current_seat()} to move"})
        request = self._requests.get(step["step"])
        if request is None:
            return
        report["checked_requests"] += 1
        for field, engine in (("observation", lambda: looks.seen_by(step["seat"])),
                              ("legal", state.legal_actions)):
            if field in request and not _same(engine(), request[field]):
                if len(mismatches) < MAX_MISMATCHES:
                    mismatches.append({"step": index, "seat": step["seat"], "field": field,
                                       "detail": f"the replayed {field} differs from the logged request"})

    def _cursor(self, view: str) -> _Pass:
        if view not in self.views():
            raise ValueError(f"unknown view {view!r} for this match (views: {', '.join(self.views())})")
        cursor = self._cursors.get(view)
        if cursor is None:
            cursor = self._start_pass([view])
        return cursor

    def _make(self, view: str) -> Callable[[_Looks], Any]:
        if view.startswith("seat-") and view[5:].isdigit():
            seat = int(view[5:])
            return lambda looks: looks.seen_by(seat)  # a frame is never changed once made
        return view_function(self.game_name, view)

    def _start_pass(self, views: list[str]) -> _Pass:
        """One engine pass making the frames of ``views`` (the first pass also checks the log)."""
        verify = self._checker is None
        if verify:
            self._checker = views[0]
        cursor = _Pass(self._states(verify), {view: self._make(view) for view in views})
        for view in views:
            self._cursors[view] = cursor
        return cursor

    def chunk_bytes(self, view: str, index: int) -> bytes:
        """Chunk ``index`` of a view as JSON (computed on first use)."""
        with self._lock:
            cursor = self._cursor(view)
            cursor.advance(index)
            chunks = cursor.chunks[view]
            if not 0 <= index < len(chunks):
                raise IndexError(f"chunk {index} out of range (0..{len(chunks) - 1})")
            return chunks[index]

    def frames_answer(self, view: str, index: int, chunk: bytes) -> bytes:
        """The frames API's answer (JSON) around chunk ``index`` of ``view`` (its bytes from
        `chunk_bytes`): the match, the chunk's place, the frame count, the check so far."""
        frames = self.frame_count
        head = (f'{{"match_id":{self.match_id},"view":{json.dumps(view)},"chunk":{index},"chunks":{-(-frames // CHUNK)},'
                f'"frame_count":{frames},"verification":{json.dumps(self.verification)},"data":').encode()
        return head + chunk + b"}"

    def first_frame_bytes(self, view: str = "full") -> bytes:
        """Frame 0 of a view, as a chunk of one frame (JSON): what a match page needs for its
        first board, without replaying a step (nor starting the log check)."""
        if view not in self.views():
            raise ValueError(f"unknown view {view!r} for this match")
        state = self.game.create_state(self.players, int(self.seed), self.game.validate(self.players, self.options))
        return dumps({"start": 0, "count": 1, "base": self._make(view)(_Looks(state)), "ops": []})

    def all_chunks(self, views: list[str]) -> dict[str, list[bytes]]:
        """Every chunk of ``views`` as JSON, the views not computed yet in one engine pass
        (each observation asked of the engine once per step), the log check run to the end."""
        with self._lock:
            for view in views:
                if view not in self.views():
                    raise ValueError(f"unknown view {view!r} for this match")
            missing = [view for view in views if view not in self._cursors]
            if missing:
                self._start_pass(missing)
            for view in views:
                self._cursors[view].advance(1 << 30)
            if not self.verification["done"]:
                self._cursors[self._checker].advance(1 << 30)
            return {view: list(self._cursors[view].chunks[view]) for view in views}

    def chunk(self, view: str, index: int) -> dict:
        return json.loads(self.chunk_bytes(view, index))

    def chunk_count(self, view: str = "full") -> int:
        """Chunks of a view; computes the whole view."""
        with self._lock:
            cursor = self._cursor(view)
            cursor.advance(1 << 30)
            return len(cursor.chunks[view])

    def check(self) -> dict:
        """The log check, run to the end if it has not got there yet."""
        with self._lock:
            if not self.verification["done"]:
                self._cursor(self._checker or "full").advance(1 << 30)
        return self.verification

    def frames(self, view: str) -> list:
        """Every frame of a view, decoded (tests)."""
        frames = []
        for index in range(self.chunk_count(view)):
            part = self.chunk(view, index)
            frame = part["base"]
            frames.append(frame)
            for ops in part["ops"]:
                frame = apply_ops(frame, ops)
                frames.append(frame)
        return frames

    def summary(self, check: bool = False) -> dict:
        """What the viewer needs besides frames: steps, failures, end, views, the check (run
        to the end with ``check``; else as far as the frames computed so far go)."""
        if check:
            self.check()
        return {"game": self.game_name, "players": self.players, "clock": self.clock, "steps": self.steps,
                "start_failures": self.start_failures, "end": self.end, "stderr": self.stderr, "views": self.views(),
                "frame_count": self.frame_count, "chunk_size": CHUNK,
                "chunks": -(-self.frame_count // CHUNK), "verification": dict(self.verification)}


class ReplayCache:
    """The replays of recently viewed matches (finished matches never change)."""

    def __init__(self, size: int = 16):
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, build) -> Replay:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        replay = build()
        with self._lock:
            self._items[key] = replay
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return replay
