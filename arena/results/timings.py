"""The times of a stored match, read from its log: per decision its wall time, its CPU time
(all the bot's processes) and the harness's own latency before it; per seat their sums; and
the clock that ran. For `arena show`, `arena failures` and the replay viewer.

A log event ``reply`` carries ``ms`` (wall), ``cpu_ms`` (absent without cgroups) and
``harness_ms``; a ``failure`` of a decision that ran out of time carries ``ms`` and
``cpu_ms`` too. Matches stored before the CPU clock have only ``ms``, and ran on the wall
clock.
"""

from __future__ import annotations


def clock_of(match: dict) -> str:
    """The clock a stored match ran on (``wall`` for matches from before there was a choice)."""
    return (match.get("sandbox") or {}).get("clock") or "wall"


def decision_times(log: list[dict]) -> dict[tuple, dict]:
    """(seat, step) -> {"wall_ms", "cpu_ms", "harness_ms"} (None where not recorded)."""
    times = {}
    for event in log:
        if event.get("event") in ("reply", "failure") and event.get("step") is not None:
            key = (event.get("seat"), event.get("step"))
            if event["event"] == "failure" and "ms" not in event:
                continue
            times[key] = {"wall_ms": event.get("ms"), "cpu_ms": event.get("cpu_ms"),
                          "harness_ms": event.get("harness_ms")}
    return times


def seat_totals(log: list[dict], players: int) -> list[dict]:
    """Per seat: its decisions' wall and CPU time in ms (CPU None when not recorded)."""
    totals = [{"wall_ms": 0.0, "cpu_ms": 0.0, "decisions": 0} for _ in range(players)]
    for (seat, _), times in decision_times(log).items():
        if not isinstance(seat, int) or not 0 <= seat < players:
            continue
        total = totals[seat]
        total["decisions"] += 1
        total["wall_ms"] += times["wall_ms"] or 0.0
        if times["cpu_ms"] is None or total["cpu_ms"] is None:
            total["cpu_ms"] = None
        else:
            total["cpu_ms"] += times["cpu_ms"]
    return totals


def _ms(value) -> str:
    return f"{value:,.1f} ms" if value < 10 else f"{value:,.0f} ms"


def describe(times: dict) -> str:
    """``wall 12.3 ms, CPU 11.9 ms, harness 0.1 ms`` (what is recorded of it)."""
    parts = []
    for key, label in (("wall_ms", "wall"), ("cpu_ms", "CPU"), ("harness_ms", "harness")):
        if isinstance(times.get(key), (int, float)):
            parts.append(f"{label} {_ms(times[key])}")
    return ", ".join(parts)


def failure_summary(log: list[dict], seat: int, clock: str) -> str:
    """One line on a failed seat's times: its failing decision and the decisions before it."""
    times = decision_times(log)
    failed = next((e for e in reversed(log) if e.get("event") == "failure" and e.get("seat") == seat), None)
    step = failed.get("step") if failed else None
    parts = [f"clock {clock}"]
    if step is not None and (seat, step) in times:
        parts.append(f"the failing decision (step {step}): {describe(times[(seat, step)])}")
    before = [t for (s, k), t in times.items() if s == seat and k != step]
    if before:
        wall = sum(t["wall_ms"] or 0.0 for t in before)
        cpu = None if any(t["cpu_ms"] is None for t in before) else sum(t["cpu_ms"] for t in before)
        text = f"{len(before)} decision(s) before: wall {_ms(wall)}"
        parts.append(text + (f", CPU {_ms(cpu)}" if cpu is not None else ""))
    return "; ".join(parts)
