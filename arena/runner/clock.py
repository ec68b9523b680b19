"""The clocks of a match: what a bot is charged for its start-up and for each decision, its
time bank, the wall-time cap, and the words of a timeout. Pure arithmetic on readings the
match hands in (monotonic seconds, the CPU nanoseconds of the bot's cgroup): no processes.

Two clocks (docs/protocol.md, *Time*):

* ``cpu`` — the default wherever bots run in cgroups. A decision is charged the CPU time that
  all the bot's processes used from the request being written to the reply being read. Since
  every bot that is not deciding is frozen, that is the bot's own work: waiting for a core,
  the other matches and the other seats cost it nothing. So that a bot that sleeps or blocks
  cannot hold a match forever, a decision is charged at least
  ``(wall time - WALL_GRACE_S) / WALL_FACTOR``; the wall time of one decision is therefore
  capped at ``WALL_FACTOR × (allowance + bank left) + WALL_GRACE_S``.
* ``wall`` — a decision is charged its wall time. The only clock where the machine has no
  cgroups (nothing can read the CPU time of all of a bot's processes there).

Time charged beyond the per-decision allowance comes out of the bank; a decision charged more
than the allowance plus what is left in the bank (plus `CPU_MARGIN_S` on the CPU clock) times
out. Start-up works the same way with
its own allowance and no bank. Where the CPU time is readable the CPU-time limit of a bot
(``cpu_seconds``, all its processes since their start) is judged the same way, on every clock.

The CPU time of a decision is settled just before the bot's next request (or at the end of
the match), when it has been frozen since another seat's turn or is blocked reading its input:
the kernel adds a running process's time to its group at scheduler ticks, so a reading taken
while the bot may still be on a core (right after its reply) can miss up to a tick. What it
uses after its reply until it is frozen is its own and counts towards that decision. Timeouts
are judged live, from the running count.
"""

from __future__ import annotations

CLOCKS = ("cpu", "wall")
WALL_FACTOR = 10      # the CPU clock's wall-time cap: this many times (allowance + bank left) ...
WALL_GRACE_S = 1.0    # ... plus this (the harness's and the kernel's latencies on a busy machine)
# A decision on the CPU clock times out only this far past its allowance and bank: kernels built
# without IRQ time accounting count the interrupts they serve to whichever process is running
# (measured here: a bot at 95 % of 50 ms charged 8 ms more once in 1,500 decisions under load).
CPU_MARGIN_S = 0.010
MIN_CHECK_S = 0.002   # the shortest wait between two looks at a decision's CPU time


def choose(requested: str | None, cpu_readable: bool) -> str:
    """The clock that runs: ``wall`` when asked for or when no CPU counter exists, else ``cpu``."""
    if requested not in (None, *CLOCKS):
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, not {requested!r}")
    if requested == "wall" or not cpu_readable:
        return "wall"
    return "cpu"


def wall_cap_s(clock: str, allowance_s: float) -> float:
    """The longest wall time a turn with ``allowance_s`` (allowance + bank left) may take."""
    return allowance_s if clock == "wall" else WALL_FACTOR * allowance_s + WALL_GRACE_S


def ms(seconds: float) -> str:
    """``1,210 ms``: a duration for a message."""
    return f"{round(seconds * 1000):,} ms"


class Turn:
    """One timed turn (start-up or a decision): when to look again, and whether it is over.
    (Made for every decision: kept lean.)"""

    __slots__ = ("clock", "cpu_limit_s", "allowance_s", "bank_s", "cpu0", "began", "cpus", "what",
                 "wall_deadline", "first_check")

    def __init__(self, clock: str, allowance_s: float, bank_s: float, cpu0: int | None, began: float,
                 cpus: float, what: str, cpu_limit_s: float | None = None):
        self.clock = clock
        self.cpu_limit_s = cpu_limit_s if cpu0 is not None else None  # of the bot's whole CPU count
        self.allowance_s = allowance_s
        self.bank_s = bank_s
        self.cpu0 = cpu0
        self.began = began
        self.cpus = cpus if cpus > 1.0 else 1.0  # CPU seconds a bot can use per wall second, at most
        self.what = what  # "decision" or "start-up"
        budget = allowance_s + bank_s
        if clock == "wall":
            self.wall_deadline = began + budget
            self.first_check = self.wall_deadline if self.cpu_limit_s is None else self.next_check(None, began)
        else:
            self.wall_deadline = began + WALL_FACTOR * budget + WALL_GRACE_S
            self.first_check = self.next_check(None, began)  # when to look first (`next_check`)

    def used_cpu_s(self, cpu_now: int | None) -> float | None:
        if cpu_now is None or self.cpu0 is None:
            return None
        return max(0, cpu_now - self.cpu0) / 1e9

    def next_check(self, cpu_now: int | None, now: float) -> float:
        """The monotonic time at which the turn could first be over (wake up then and ask
        `over`): the bot cannot use its CPU time faster than its quota of cores allows."""
        left = (float("inf") if self.clock == "wall"
                else self.allowance_s + self.bank_s + CPU_MARGIN_S - (self.used_cpu_s(cpu_now) or 0.0))
        if self.cpu_limit_s is not None:
            left = min(left, self.cpu_limit_s - (cpu_now if cpu_now is not None else self.cpu0) / 1e9)
        if left == float("inf"):
            return self.wall_deadline
        return min(self.wall_deadline, now + max(MIN_CHECK_S, left / self.cpus))

    def over(self, cpu_now: int | None, now: float) -> str | None:
        """None while the turn may go on; else why it is over, in words (see `timeout_words`)."""
        if self.cpu_limit_s is not None and cpu_now is not None and cpu_now / 1e9 > self.cpu_limit_s:
            return (f"used up its CPU time limit: {cpu_now / 1e9:,.1f} s of CPU time in all, the limit is"
                    f" {self.cpu_limit_s:g} s for all its processes together")
        wall = now - self.began
        if self.clock == "wall":
            return self.timeout_words(cpu_now, now) if wall >= self.allowance_s + self.bank_s else None
        used = self.used_cpu_s(cpu_now) or 0.0
        if used > self.allowance_s + self.bank_s + CPU_MARGIN_S or now >= self.wall_deadline:
            return self.timeout_words(cpu_now, now)
        return None

    def timeout_words(self, cpu_now: int | None, now: float) -> str:
        """The limit that passed, what it was made of, and what the bot used, e.g. "its limit
        was 1,150 ms of CPU time (decision limit 1,000 ms + 150 ms left in its time bank); it
        used 1,210 ms, more than 10 ms over (CPU clock)"."""
        wall = now - self.began
        made = (f"decision limit {ms(self.allowance_s)} + {ms(self.bank_s)} left in its time bank"
                if self.what == "decision" else "the start-up limit, which has no bank")
        budget = self.allowance_s + self.bank_s
        if self.clock == "wall":
            return f"its limit was {ms(budget)} of wall time ({made}); it took {ms(wall)} (wall clock)"
        used = self.used_cpu_s(cpu_now) or 0.0
        if used > budget + CPU_MARGIN_S:
            return (f"its limit was {ms(budget)} of CPU time ({made}); it used {ms(used)}, more than"
                    f" {ms(CPU_MARGIN_S)} over (CPU clock)")
        return (f"over the wall-time cap of {ms(wall_cap_s('cpu', budget))} = {WALL_FACTOR} × ({made})"
                f" + {ms(WALL_GRACE_S)}: {ms(wall)} of wall time while using only {ms(used)} of CPU time"
                " (it slept or waited; CPU clock)")

    def charge(self, cpu_s: float | None, wall_s: float) -> float:
        """What the turn costs on this clock."""
        if self.clock == "wall" or cpu_s is None:
            return wall_s
        return max(cpu_s, (wall_s - WALL_GRACE_S) / WALL_FACTOR)


class SeatClock:
    """One seat's clock over a match: its bank, its totals and the turn waiting to be settled."""

    __slots__ = ("clock", "cpu_limit_s", "start_s", "decision_s", "bank_s", "cpus", "charged_s", "cpu_s", "wall_s",
                 "_unsettled", "_request_time")

    def __init__(self, clock: str, start_ms: int, decision_ms: int, bank_ms: int, cpus: float,
                 cpu_limit_s: float | None = None):
        self.clock = clock
        self.cpu_limit_s = cpu_limit_s
        self.start_s = start_ms / 1000
        self.decision_s = decision_ms / 1000
        self.bank_s = bank_ms / 1000
        self.cpus = cpus
        self.charged_s = 0.0           # what the clock charged, all turns (start-up excluded)
        self.cpu_s: float | None = 0.0  # CPU time of its decisions (None: not readable here)
        self.wall_s = 0.0              # wall time of its decisions
        self._unsettled: tuple | None = None  # (turn, wall seconds, the log event to complete)
        self._request_time: dict | None = None  # `for_request`'s answer until the bank changes

    def for_request(self) -> dict:
        """The ``time`` field of a request: the clock, the allowance and the bank, in the
        clock's milliseconds, and the wall-time cap of this decision. (The same dict while the
        bank stays as it is: it is never changed once made.)"""
        if self._request_time is None:
            self._request_time = {"clock": self.clock, "decision_ms": round(self.decision_s * 1000),
                                  "bank_ms": round(self.bank_s * 1000),
                                  "wall_cap_ms": round(wall_cap_s(self.clock, self.decision_s + self.bank_s) * 1000)}
        return self._request_time

    def start_up(self, cpu0: int | None, began: float) -> Turn:
        return Turn(self.clock, self.start_s, 0.0, cpu0, began, self.cpus, "start-up", self.cpu_limit_s)

    def decision(self, cpu0: int | None, began: float) -> Turn:
        return Turn(self.clock, self.decision_s, self.bank_s, cpu0, began, self.cpus, "decision", self.cpu_limit_s)

    def finished(self, turn: Turn, wall_s: float, event: dict) -> None:
        """The turn got its answer; its CPU time is settled later (see the module docstring).
        ``event`` (the log's ready or reply event) then gets its ``cpu_ms``."""
        self._unsettled = (turn, wall_s, event)

    def settle(self, cpu_now: int | None) -> None:
        """Charge the last turn, with the bot frozen since its answer (``cpu_now`` read now)."""
        if self._unsettled is None:
            return
        turn, wall_s, event = self._unsettled
        self._unsettled = None
        if cpu_now is None or turn.cpu0 is None:
            cpu_s = None
        else:
            cpu_s = (cpu_now - turn.cpu0) / 1e9 if cpu_now > turn.cpu0 else 0.0
            event["cpu_ms"] = round(cpu_s * 1000, 3)
        if turn.what == "decision":
            self._charge(turn, cpu_s, wall_s)

    def timed_out(self, turn: Turn, cpu_now: int | None, wall_s: float) -> None:
        """A decision that timed out used its time too."""
        if turn.what == "decision":
            self._charge(turn, turn.used_cpu_s(cpu_now), wall_s)

    def _charge(self, turn: Turn, cpu_s: float | None, wall_s: float) -> None:
        charged = turn.charge(cpu_s, wall_s)
        self.charged_s += charged
        self.wall_s += wall_s
        if cpu_s is None:
            self.cpu_s = None
        elif self.cpu_s is not None:
            self.cpu_s += cpu_s
        if charged > self.decision_s and self.bank_s > 0:
            self.bank_s = max(0.0, self.bank_s - (charged - self.decision_s))
            self._request_time = None
