"""Leaderboards: the queries, and the three stable output formats (table, json, csv).

A game's leaderboard comes straight from the ``ratings`` table (kept current by every rated
match), ordered by the conservative skill μ − 3σ. A tournament's leaderboard lists that
tournament's entries with the rating each had after its last rated match in the tournament,
and the counts (matches, first places, average rank, failures) of that tournament alone, all
kept current in ``tournament_ratings``. A finished tournament's standings are instead the
refit of all its matches at once (`arena.results.refit`): ordered by that rating (a Swiss
with finals: its finalists first, `arena.results.finals`), each entry with its 95 % rating
and rank intervals and its tied band; TrueSkill's μ and σ stay beside.
"""

from __future__ import annotations

import csv
import io
import json

from arena.results.humans import HUMAN, NOT_HUMAN_SQL
from arena.results.ratings import MU, SIGMA, conservative
from arena.text import printable
from arena.results.store import FAILURE_KINDS, Store

FORMATS = ("table", "json", "csv")
CSV_COLUMNS = ["game", "tournament", "rank", "bot", "version", "conservative", "mu", "sigma", "matches",
               "first_places", "average_rank", *[f"failures_{kind}" for kind in FAILURE_KINDS]]
REFIT_COLUMNS = ["band", "rating", "rating_low", "rating_high", "rank_low", "rank_high"]  # finished tournaments


def _entry(row: dict) -> dict:
    matches = row["matches"] or 0
    return {
        "bot": row["bot"], "version": row["version"], "bot_version_id": row["bot_version_id"],
        "conservative": row["mu"] - 3 * row["sigma"], "mu": row["mu"], "sigma": row["sigma"],
        "matches": matches, "first_places": row["first_places"] or 0,
        "average_rank": (row["rank_sum"] / matches) if matches else None,
        "failures": {kind: row[f"failures_{kind}"] or 0 for kind in FAILURE_KINDS},
        **({"person": True} if row.get("language") == HUMAN else {}),  # a person who played (arena play)
    }


def _ranked(entries: list[dict], limit: int | None) -> list[dict]:
    entries.sort(key=lambda e: (-e["conservative"], -e["mu"], e["bot"], e["version"]))
    for number, entry in enumerate(entries, 1):
        entry["rank"] = number
    return entries[:limit] if limit else entries


VERSIONS = ("latest", "all")


def game_leaderboard(store: Store, game: str, limit: int | None = None, versions: str = "latest",
                     humans: bool = True) -> dict:
    """Every rated version of the game's bots (``versions="all"``), or only each bot's latest
    version (its highest version number that is not withdrawn), without withdrawn bots;
    people who played (`arena.results.humans`) too, unless ``humans`` is false."""
    failures = ", ".join(f"r.failures_{kind}" for kind in FAILURE_KINDS)
    only_latest = ("" if versions == "all" else
                   " AND b.withdrawn = 0 AND v.version = (SELECT MAX(w.version) FROM bot_versions w"
                   " WHERE w.bot_id = v.bot_id AND w.withdrawn = 0)")
    no_humans = f" AND {NOT_HUMAN_SQL}"
    sql = (f"SELECT b.name AS bot, v.version, v.language, r.bot_version_id, r.mu, r.sigma, r.matches, r.first_places,"
           f" r.rank_sum, {failures} FROM ratings r JOIN bot_versions v ON v.id = r.bot_version_id"
           f" JOIN bots b ON b.id = v.bot_id WHERE r.game = ?{only_latest}{'' if humans else no_humans}"
           f" ORDER BY r.conservative DESC, r.mu DESC, b.name, v.version")
    params: list = [game]
    if limit:
        sql += " LIMIT ?"
        params.append(limit)
    entries = [_entry(row) for row in store.query(sql, params)]
    return {"game": game, "tournament": None, "versions": versions, "entries": _ranked(entries, limit)}


def tournament_leaderboard(store: Store, tournament_id: int, limit: int | None = None,
                           refit: bool | None = None) -> dict:
    """The tournament's entries; by the refit of all its matches when it is finished (or with
    ``refit=True``), else by TrueSkill."""
    tournament = store.tournament(tournament_id)
    failures = ", ".join(f"r.failures_{kind}" for kind in FAILURE_KINDS)
    rated = {row["bot_version_id"]: row for row in store.query(
        f"SELECT r.bot_version_id, r.mu, r.sigma, r.matches, r.first_places, r.rank_sum, {failures}"
        " FROM tournament_ratings r WHERE r.tournament_id = ?", [tournament_id])}
    entries = []
    for entrant in store.tournament_entries(tournament_id):
        version_id = entrant["bot_version_id"]
        row = rated.get(version_id) or {"mu": MU, "sigma": SIGMA, "matches": 0, "first_places": 0, "rank_sum": 0,
                                        **{f"failures_{k}": 0 for k in FAILURE_KINDS}}
        entries.append(_entry({**row, "bot": entrant["bot"], "version": entrant["version"], "language": entrant["language"],
                               "bot_version_id": version_id}))
    if refit is None:
        refit = tournament["status"] == "finished"
    if refit and tournament.get("matches_finished", 1):
        return {"game": tournament["game"], "tournament": tournament_id, "standings": "refit",
                "entries": _refitted(store, tournament_id, entries, limit)}
    return {"game": tournament["game"], "tournament": tournament_id, "standings": "trueskill",
            "entries": _ranked(entries, limit)}


# The web app shows a finished tournament's standings again and again: refit it once per
# process (the key changes if its matches do, e.g. after `arena tournament retry`).
_REFITS: dict[tuple, list] = {}


def _refitted(store: Store, tournament_id: int, entries: list[dict], limit: int | None) -> list[dict]:
    from arena.results.refit import tournament_refit

    tournament = store.tournament(tournament_id)
    key = (str(store.path.resolve()), tournament_id, tournament.get("created_at"), tournament.get("finished_at"),
           tournament.get("matches_finished"), tournament.get("matches_error"))
    if key not in _REFITS:
        if len(_REFITS) > 64:
            _REFITS.clear()
        from arena.results.finals import finalists_first

        _REFITS[key] = finalists_first(tournament_refit(store, tournament_id), tournament.get("format_state"))
    by_version = {e["bot_version_id"]: e for e in entries}
    ranked = []
    for standing in _REFITS[key]:
        entry = by_version[standing.version]
        entry.update(rank=standing.rank, band=standing.band, rating=standing.rating,
                     rating_interval=list(standing.rating_interval), rank_interval=list(standing.rank_interval))
        ranked.append(entry)
    return ranked[:limit] if limit else ranked


def rated_games(store: Store) -> list[str]:
    """Games that have ratings, registry order first."""
    from arena.games import game_names

    present = {row["game"] for row in store.query("SELECT DISTINCT game FROM ratings")}
    known = [name for name in game_names() if name in present]
    return known + sorted(present - set(known))


# ---- formats --------------------------------------------------------------------------------

def _failures_text(failures: dict) -> str:
    text = " ".join(f"{kind}:{count}" for kind, count in failures.items() if count)
    return text or "-"


def _name(entry: dict) -> str:
    """The bot's name for a table, 24 characters at most; a person's marked as such."""
    name = printable(entry["bot"], False)
    return f"{name[:15]} (person)" if entry.get("person") else name[:24]


def format_table(board: dict) -> str:
    title = f"{board['game']}" + (f" — tournament {board['tournament']}" if board["tournament"] else "")
    if board.get("standings") == "refit":
        return _refit_table(title, board)
    confident = any("rank_interval" in e for e in board["entries"])
    header = (f"{'rank':>4}{'  rank 90%' if confident else ''}  {'bot':<24} {'ver':>3}  {'mu-3sigma':>9} {'mu':>7}"
              f" {'sigma':>6} {'matches':>7} {'firsts':>6} {'avg rank':>8}  failures")
    lines = [title, header]
    for e in board["entries"]:
        average = f"{e['average_rank']:.2f}" if e["average_rank"] is not None else "-"
        interval = ""
        if confident:
            low, high = e.get("rank_interval", (e["rank"], e["rank"]))
            interval = f"  {f'{low}-{high}' if low != high else str(low):>8}"
        lines.append(f"{e['rank']:>4}{interval}  {_name(e):<24} {e['version']:>3}"
                     f"  {e['conservative']:>9.3f} {e['mu']:>7.3f} {e['sigma']:>6.3f} {e['matches']:>7}"
                     f" {e['first_places']:>6} {average:>8}  {_failures_text(e['failures'])}")
    if not board["entries"]:
        lines.append("  (no rated matches yet)")
    return "\n".join(lines)


def _refit_table(title: str, board: dict) -> str:
    lines = [f"{title} — final standings (refit of all matches; 95% intervals; band: tied at 95%)",
             f"{'rank':>4} {'band':>4} {'rank 95%':>8}  {'bot':<24} {'ver':>3}  {'rating':>7} {'rating 95%':>15}"
             f" {'mu':>7} {'sigma':>6} {'matches':>7} {'firsts':>6}  failures"]
    for e in board["entries"]:
        low, high = e["rank_interval"]
        rating_low, rating_high = e["rating_interval"]
        lines.append(f"{e['rank']:>4} {e['band']:>4} {f'{low}-{high}' if low != high else str(low):>8}"
                     f"  {_name(e):<24} {e['version']:>3}  {e['rating']:>+7.0f}"
                     f" {f'{rating_low:+.0f} to {rating_high:+.0f}':>15} {e['mu']:>7.3f} {e['sigma']:>6.3f}"
                     f" {e['matches']:>7} {e['first_places']:>6}  {_failures_text(e['failures'])}")
    return "\n".join(lines)


def _json_board(board: dict) -> dict:
    keys = ("rank", "band", "bot", "version", "rating", "rating_interval", "rank_interval", "conservative", "mu",
            "sigma", "matches", "first_places", "average_rank", "failures", "person")
    return {"game": board["game"], "tournament": board["tournament"],
            **({"standings": board["standings"]} if "standings" in board else {}),
            "entries": [{key: e[key] for key in keys if key in e} for e in board["entries"]]}


def format_json(boards: list[dict], single: bool) -> str:
    data = [_json_board(b) for b in boards]
    return json.dumps(data[0] if single else data, indent=2)


def format_csv(boards: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    refit = any(board.get("standings") == "refit" for board in boards)
    writer.writerow(CSV_COLUMNS + (REFIT_COLUMNS if refit else []))
    for board in boards:
        for e in board["entries"]:
            average = "" if e["average_rank"] is None else f"{e['average_rank']:.6f}"
            extra = []
            if refit:
                extra = [e["band"], f"{e['rating']:.3f}", *(f"{x:.3f}" for x in e["rating_interval"]),
                         *e["rank_interval"]] if "rating" in e else [""] * len(REFIT_COLUMNS)
            writer.writerow([board["game"], board["tournament"] or "", e["rank"], e["bot"], e["version"],
                             f"{e['conservative']:.6f}", f"{e['mu']:.6f}", f"{e['sigma']:.6f}", e["matches"],
                             e["first_places"], average, *[e["failures"][k] for k in FAILURE_KINDS], *extra])
    return out.getvalue().rstrip("\n")


def render(boards: list[dict], fmt: str, single: bool = True) -> str:
    if fmt == "json":
        return format_json(boards, single)
    if fmt == "csv":
        return format_csv(boards)
    return "\n\n".join(format_table(b) for b in boards)


__all__ = ["FORMATS", "conservative", "game_leaderboard", "tournament_leaderboard", "rated_games", "render"]
