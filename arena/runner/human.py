"""A seat played by a person: its decisions come from a page instead of a bot process.

`HumanSeat` is the meeting point of two threads. The match (`arena.runner.match`) hands it
each request for its seat and waits, with every bot frozen, until the person's action is
accepted or the seat's clock runs out; the page (`arena.web`, through
`arena.tournament.humanplay`) reads what the person may see and sends actions. An action the
engine refuses goes back to the page with the engine's reason and the person tries again,
on the same clock. The page only ever gets what the match gives this seat: its own requests
(its observation and legal actions) and the end of the match — nothing of any other seat.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

TIMEOUT_WORDS = "no action in time"


class NotYourTurn(Exception):
    """An action came while the match was not waiting for this seat."""


class HumanSeat:
    """One person's seat in one match (see the module docstring). ``name`` is the name the
    person is stored under (a bot of language ``human``)."""

    def __init__(self, name: str):
        self.name = name
        self._changed = threading.Condition()
        self.version = 0                      # counts changes; the page waits for the next one
        self._request: dict | None = None     # the request waiting for the person
        self._deadline: float | None = None   # monotonic; when the person's time runs out
        self._offer: tuple[int, Any] | None = None   # (ticket, action) the page sent
        self._verdicts: dict[int, str | None] = {}   # ticket -> refusal (None: accepted)
        self._tickets = 0
        self._left = False
        self.ended: dict | None = None        # the end of the match as this seat sees it
        self.problem: str | None = None       # the match could not be played (shown on the page)

    def __str__(self) -> str:
        return f"human:{self.name}"

    # ---- the match's side -------------------------------------------------------------------

    def decide(self, request: dict, attempt: Callable[[Any], str | None], deadline: float) -> bool:
        """Show ``request`` to the person and wait for an action that ``attempt`` accepts
        (it returns None, or the engine's reason for refusing it). False when ``deadline``
        (monotonic) passes first, or the person left."""
        with self._changed:
            self._request, self._deadline = request, deadline
            self._bump()
            try:
                while True:
                    while self._offer is None and not self._left and time.monotonic() < deadline:
                        self._changed.wait(max(0.0, deadline - time.monotonic()))
                    if self._offer is None:
                        return False
                    ticket, action = self._offer
                    self._offer = None
                    refusal = attempt(action)
                    self._verdicts[ticket] = refusal
                    self._bump()
                    if refusal is None:
                        return True
            finally:
                self._request = self._deadline = self._offer = None
                self._bump()

    def finish(self, end: dict) -> None:
        """The match is over: ``end`` is this seat's end message (and its last observation)."""
        with self._changed:
            self.ended = end
            self._bump()

    def fail(self, problem: str) -> None:
        """The match could not be played or stored."""
        with self._changed:
            self.problem = problem
            self._bump()

    # ---- the page's side --------------------------------------------------------------------

    def view(self, since: int | None = None, wait_s: float = 0.0) -> dict:
        """What the page shows: the waiting request (this seat's observation and legal
        actions) and the time left, or the end. With ``since``, wait up to ``wait_s`` for a
        change after that version first."""
        with self._changed:
            if since is not None and since == self.version:
                self._changed.wait_for(lambda: self.version != since, timeout=wait_s)
            left_ms = None if self._deadline is None else max(0, round((self._deadline - time.monotonic()) * 1000))
            return {"version": self.version, "request": self._request, "time_left_ms": left_ms,
                    "end": self.ended, "problem": self.problem}

    def submit(self, action: Any, wait_s: float = 30.0) -> str | None:
        """Offer an action; returns None when it was taken, else the engine's reason for
        refusing it. `NotYourTurn` when the match is not waiting for this seat."""
        with self._changed:
            if self._request is None or self._offer is not None:
                raise NotYourTurn("it is not your turn")
            self._tickets += 1
            ticket = self._tickets
            self._offer = (ticket, action)
            self._changed.notify_all()
            if not self._changed.wait_for(lambda: ticket in self._verdicts or self._request is None, timeout=wait_s):
                raise NotYourTurn("the match did not answer")
            if ticket not in self._verdicts:  # the clock ran out before the action was looked at
                raise NotYourTurn("your time ran out")
            return self._verdicts.pop(ticket)

    def leave(self) -> None:
        """The person gave up: the match goes on without waiting (as after a timeout)."""
        with self._changed:
            self._left = True
            self._bump()

    def _bump(self) -> None:
        self.version += 1
        self._changed.notify_all()


def is_human(seat: object) -> bool:
    return isinstance(seat, HumanSeat)


__all__ = ["HumanSeat", "NotYourTurn", "TIMEOUT_WORDS", "is_human"]
