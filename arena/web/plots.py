"""The rating-history plot, drawn on the server as inline SVG (no image service, no script).

`rating_plot` turns `arena.web.data.rating_history` into numbers for the ``plot.html``
template: per bot version a line of μ, a band of μ ± 3σ and a line of μ − 3σ over the
bot's rated matches (x = the n-th rated match of the bot, all versions on one axis, in
rating order), plus axis ticks. Long histories are thinned to `MAX_POINTS` per version.
"""

from __future__ import annotations

import math

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 28
MAX_POINTS = 400
PALETTE = ("#2b6cb0", "#c05621", "#2f855a", "#9b2c2c", "#6b46c1", "#b7791f", "#2c7a7b", "#97266d")


def _thin(points: list, limit: int) -> list:
    if len(points) <= limit:
        return points
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    span = high - low
    if span <= 0:
        return [low]
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    ticks = []
    value = first
    while value <= high + 1e-9:
        ticks.append(round(value, 6))
        value += step
    return ticks


def rating_plot(history: list[dict]) -> dict | None:
    """Template data for the plot, or None when the bot has no rated match."""
    series = []
    x = 0
    for number, entry in enumerate(history):
        rows = []
        if entry["start"] is not None:
            rows.append((x, entry["start"]["mu"], entry["start"]["sigma"], None))
        for point in entry["points"]:
            x += 1
            rows.append((x, point["mu"], point["sigma"], point["match_id"]))
        series.append({"version": entry["version"], "colour": PALETTE[number % len(PALETTE)],
                       "rows": _thin(rows, MAX_POINTS), "matches": len(entry["points"])})
    if x == 0:
        return None
    low = min(mu - 3 * sigma for s in series for _, mu, sigma, _ in s["rows"])
    high = max(mu + 3 * sigma for s in series for _, mu, sigma, _ in s["rows"])
    pad = max(1.0, (high - low) * 0.05)
    low, high = low - pad, high + pad
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(value: float) -> float:
        return round(LEFT + inner_w * value / max(x, 1), 1)

    def py(value: float) -> float:
        return round(TOP + inner_h * (high - value) / (high - low), 1)

    for s in series:
        rows = s["rows"]
        s["mu_points"] = " ".join(f"{px(r[0])},{py(r[1])}" for r in rows)
        s["conservative_points"] = " ".join(f"{px(r[0])},{py(r[1] - 3 * r[2])}" for r in rows)
        upper = [f"{px(r[0])},{py(r[1] + 3 * r[2])}" for r in rows]
        lower = [f"{px(r[0])},{py(r[1] - 3 * r[2])}" for r in reversed(rows)]
        s["band_points"] = " ".join(upper + lower)
        last = rows[-1]
        s["last"] = {"x": px(last[0]), "y": py(last[1]), "mu": last[1], "sigma": last[2],
                     "conservative": last[1] - 3 * last[2]}
        del s["rows"]
    y_ticks = [{"value": v, "y": py(v)} for v in _ticks(low, high)]
    x_ticks = [{"value": v, "x": px(v)} for v in _ticks(0, x, 6) if float(v).is_integer()]
    return {"width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT, "top": TOP,
            "bottom": HEIGHT - BOTTOM, "series": series, "y_ticks": y_ticks, "x_ticks": x_ticks, "matches": x}
