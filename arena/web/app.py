"""The Starlette application: HTML pages and the JSON API under ``/api/``, read-only.

`create_app(db_path)` opens the database once to check it (a missing file is refused), then
each worker thread opens its own read connection (`data.open_store`) on first use. Every
response carries a Content-Security-Policy that allows only this server's own scripts and
styles, so even text that slipped past escaping could not run. Endpoints are listed in
`API_ENDPOINTS` (served at ``/api``) and documented in docs/web.md.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Callable
from urllib.parse import quote

from markupsafe import Markup
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.games import game_names, get_game
from arena.results.store import FAILURE_KINDS, StoreError
from arena.web import assets, data
from arena.web.boards import DRAWN
from arena.web.headers import ExtraHeaders
from arena.web.perthread import PerThread
from arena.web.plots import rating_plot
from arena.web.replay import CHUNK, Replay, ReplayCache, ReplayUnavailable
from arena.web.safe import script_safe, visible
from arena.web.templating import STATIC, client_match, environment, number

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self';"
       " base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]

API_ENDPOINTS = [
    ("/api/games", "every game with counts of bots, versions, rated matches and tournaments"),
    ("/api/games/{game}", "one game and its leaderboard (?versions=latest|all, ?limit=N, ?humans=0|1)"),
    ("/api/games/{game}/leaderboard", "the game's leaderboard (?versions=latest|all, ?limit=N, ?humans=0|1)"),
    ("/api/games/{game}/bots", "the game's bots"),
    ("/api/games/{game}/tournaments", "the game's tournaments"),
    ("/api/tournaments", "every tournament with its progress (?game=GAME)"),
    ("/api/tournaments/{id}", "a tournament: progress, entries, standings, head-to-head, failures, errors"),
    ("/api/tournaments/{id}/progress", "status and match counts (what a page polls while it runs)"),
    ("/api/tournaments/{id}/leaderboard", "the tournament's standings (?versions=all|latest)"),
    ("/api/bots/{id}", "a bot with its versions and their ratings"),
    ("/api/bots/{id}/matches", "the bot's played matches, newest first (?limit=N&offset=N)"),
    ("/api/bots/{id}/failures", "the bot's failed seats with the error and the end of its stderr (?limit=N)"),
    ("/api/bots/{id}/rating-history", "per version, the rating after each rated match"),
    ("/api/matches", "played matches, newest first (?tournament=ID, ?game=GAME, ?limit=N&offset=N)"),
    ("/api/matches/{id}", "a match: seats (with stderr), options, seed, times"),
    ("/api/matches/{id}/log", "the match log as stored: every event"),
    ("/api/matches/{id}/replay", "the replay: steps (decision, debug, reply ms), views, frame count, the log check"),
    ("/api/matches/{id}/check", "the check of the log against the engine's replay, run to the end"),
    ("/api/matches/{id}/frames", "frames of a view in chunks (?view=full|seat-N|snapshot&chunk=N or &frame=N)"),
]


@functools.lru_cache(maxsize=None)
def viewer_csp(game: str) -> str:
    """`CSP`, also allowing the replay viewer's inline style and scripts (by their hashes)."""
    style, scripts = assets.viewer(game)
    return (CSP.replace("script-src 'self'", "script-src 'self' " + assets.hashes(scripts))
            .replace("style-src 'self'", "style-src 'self' " + assets.csp_hash(style)))


class SecurityHeaders(ExtraHeaders):
    """ASGI middleware: the security headers on every HTTP response."""

    def __init__(self, app):
        super().__init__(app, SECURITY_HEADERS)


class Stores(PerThread):
    """One read connection per worker thread (sqlite3 connections stay in their thread)."""

    def __init__(self, path: str):
        super().__init__(lambda: data.open_store(path))
        self.path = path


def display_board(board: dict) -> dict:
    """A leaderboard with its rows ready for the template (formatted numbers, the bar)."""
    low, high = board["scale"]
    span = (high - low) or 1.0
    rows = []
    for e in board["entries"]:
        x1 = 2 + 116 * (e["mu"] - 3 * e["sigma"] - low) / span
        x2 = 2 + 116 * (e["mu"] + 3 * e["sigma"] - low) / span
        rows.append({
            "rank": e["rank"], "bot_id": e.get("bot_id"), "name": visible(e["bot"]), "version": e["version"],
            "latest_tag": e.get("latest") and board.get("versions") == "all", "person": bool(e.get("person")),
            "conservative": f"{e['conservative']:.2f}", "mu": f"{e['mu']:.2f}", "sigma": f"{e['sigma']:.2f}",
            "x1": f"{x1:.1f}", "width": f"{max(x2 - x1, 1):.1f}", "xm": f"{2 + 116 * (e['mu'] - low) / span:.1f}",
            "matches": e["matches"], "first_places": e["first_places"], "average_rank": number(e["average_rank"]),
            "failures": [e["failures"][kind] for kind in FAILURE_KINDS]})
        if "rating" in e:  # a finished tournament's refit (arena.results.refit)
            low, high = e["rank_interval"]
            rows[-1].update(band=e["band"], rating=f"{e['rating']:+.0f}",
                            rating_interval="{:+.0f} to {:+.0f}".format(*e["rating_interval"]),
                            rank_interval=str(low) if low == high else f"{low}–{high}")
    return {**board, "rows": rows}


def _int_param(request: Request, name: str, default: int | None, low: int = 0, high: int = 10_000) -> int | None:
    text = request.query_params.get(name)
    if text is None or text == "":
        return default
    try:
        value = int(text)
    except ValueError:
        raise HTTPException(400, f"{name} must be a whole number") from None
    if not low <= value <= high:
        raise HTTPException(400, f"{name} must be from {low} to {high}")
    return value


def _humans(request: Request) -> bool:
    """``?humans=0`` leaves people who played bots out of a game's leaderboard (default: in)."""
    value = request.query_params.get("humans", "1")
    if value not in ("0", "1"):
        raise HTTPException(400, "humans must be 0 or 1")
    return value == "1"


def _versions(request: Request, default: str) -> str:
    value = request.query_params.get("versions", default)
    if value not in ("latest", "all"):
        raise HTTPException(400, "versions must be latest or all")
    return value


def warm_up(env) -> None:
    """Pay now, once per serving process, what a visitor's first request would otherwise wait
    for (a new server's first match page took 50-190 ms, a cached one 3 ms): every template
    compiled (also those only extended, imported or included: base.html, macros.html), the
    game engines imported, the replay viewer's inline style and scripts read and hashed."""
    for name in env.list_templates(extensions=["html"]):
        env.get_template(name)
    for name in game_names():
        try:
            get_game(name)
            viewer_csp(name)
        except Exception:  # noqa: BLE001 - a game that cannot load shows as JSON (or not at all)
            pass


def create_app(db_path: str, replay_cache_size: int = 16, play=None) -> Starlette:
    """The application over the database at ``db_path`` (refused if missing: `StoreError`).
    With ``play`` (an `arena.tournament.humanplay.PlayHost`) people may play bots at /play."""
    data.open_store(db_path).close()  # fail now, not on the first request
    stores = Stores(str(db_path))
    env = environment()
    env.globals["play_enabled"] = play is not None
    replays = ReplayCache(replay_cache_size)
    warm_up(env)

    def page(name: str, request: Request, status: int = 200, headers: dict | None = None, **context) -> HTMLResponse:
        template = env.get_template(name)
        html = template.render(request=request, url=lambda path: path, **context)
        return HTMLResponse(html, status_code=status, headers=headers)

    def replay_of(store, match_id: int) -> tuple[Replay | None, str | None]:
        """The match's replay (cached), or None and why not."""
        try:
            return replays.get(match_id, lambda: Replay(data.match(store, match_id, with_log=True))), None
        except ReplayUnavailable as error:
            return None, str(error)

    def json_endpoint(function: Callable) -> Callable:
        def endpoint(request: Request):
            try:
                return JSONResponse(function(stores.get(), request))
            except data.NotFound as error:
                return JSONResponse({"error": str(error)}, status_code=404)
            except HTTPException as error:
                return JSONResponse({"error": error.detail}, status_code=error.status_code)
        return endpoint

    def html_endpoint(function: Callable) -> Callable:
        def endpoint(request: Request):
            try:
                return function(stores.get(), request)
            except data.NotFound as error:
                return page("error.html", request, status=404, title="Not found", message=str(error))
            except HTTPException as error:
                return page("error.html", request, status=error.status_code, title="Bad request",
                            message=error.detail)
        return endpoint

    # ---- pages ----------------------------------------------------------------------------

    def index_page(store, request):
        games = data.games(store)
        boards = {g["name"]: display_board(data.leaderboard(store, g["name"], "latest", 5))
                  for g in games if g["rated_versions"]}
        return page("index.html", request, games=games, boards=boards,
                    tournaments=data.tournaments(store, limit=10))

    def game_page(store, request):
        game = data.known_game(store, request.path_params["game"])
        versions = _versions(request, "latest")
        board = data.leaderboard(store, game["name"], versions, _int_param(request, "limit", None, 1),
                                 _humans(request))
        return page("game.html", request, game=game, board=display_board(board), versions=versions,
                    tournaments=data.tournaments(store, game["name"], limit=20),
                    bots=data.bots(store, game["name"]))

    def tournaments_page(store, request):
        game = request.query_params.get("game") or None
        return page("tournaments.html", request, tournaments=data.tournaments(store, game), game=game)

    def tournament_page(store, request):
        versions = _versions(request, "all")
        tournament = data.tournament(store, request.path_params["id"], versions)
        tournament["standings"] = display_board(tournament["standings"])
        return page("tournament.html", request, t=tournament, versions=versions)

    def bot_page(store, request):
        bot = data.bot(store, request.path_params["id"])
        history = data.rating_history(store, bot["id"])
        return page("bot.html", request, bot=bot, plot=rating_plot(history),
                    matches=data.bot_matches(store, bot["id"]), failures=data.bot_failures(store, bot["id"]),
                    failure_counts=data.failure_counts(store, bot["id"]))

    def bot_by_name(store, request):
        """`/bots/NAME` and `/games/GAME/bots/NAME`: links by name, to the bot's page by id."""
        name, game = request.path_params["name"], request.path_params.get("game")
        found = data.bots_named(store, name, game)
        if len(found) == 1:
            return RedirectResponse(f"/bots/{found[0]['id']}", status_code=302)
        if not found:
            raise data.NotFound(f"no bot {name!r}" + (f" in {game}" if game else ""))
        choices = ", ".join(f"/games/{row['game']}/bots/{quote(name, safe='')}" for row in found)
        raise data.NotFound(f"{name!r} is a bot of several games; open one of {choices}")

    def match_page(store, request):
        found = data.match(store, request.path_params["id"])
        replay, reason = replay_of(store, found["id"])
        summary = data.match_summary(found)
        viewer = None
        if replay is not None:
            # Only the first frame is computed now (no step replayed): the viewer draws it at
            # once, then fetches the frames, and the check's outcome, after its first paint.
            first_chunk = replay.first_frame_bytes("full").decode()
            viewer = {"match": client_match(summary), "replay": replay.summary(), "source": "api",
                      "drawn": found["game"] in DRAWN}
        stderr = {seat["seat"]: seat.get("stderr") or "" for seat in found["seats"]}
        if viewer is None:
            return page("match.html", request, match=summary, stderr=stderr, viewer=None, reason=reason,
                        first_chunk=None)
        # The viewer's style and scripts inline (arena.web.assets): the first board is drawn
        # as soon as this one response has arrived. The CSP allows exactly them, by hash.
        style, scripts = assets.viewer(found["game"])
        return page("match.html", request, match=summary, stderr=stderr, viewer=viewer, reason=reason,
                    first_chunk=Markup(script_safe(first_chunk)), inline_style=style, inline_scripts=scripts,
                    headers={"content-security-policy": viewer_csp(found["game"])})

    # ---- API ------------------------------------------------------------------------------

    def api_index(store, request):
        return {"endpoints": [{"path": path, "about": about} for path, about in API_ENDPOINTS]}

    def api_games(store, request):
        return {"games": data.games(store)}

    def api_game(store, request):
        game = data.known_game(store, request.path_params["game"])
        versions = _versions(request, "latest")
        return {**game, "leaderboard": data.leaderboard(store, game["name"], versions,
                                                        _int_param(request, "limit", None, 1), _humans(request))}

    def api_leaderboard(store, request):
        return data.leaderboard(store, request.path_params["game"], _versions(request, "latest"),
                                _int_param(request, "limit", None, 1), _humans(request))

    def api_game_bots(store, request):
        return {"game": request.path_params["game"], "bots": data.bots(store, request.path_params["game"])}

    def api_game_tournaments(store, request):
        game = data.known_game(store, request.path_params["game"])
        return {"game": game["name"], "tournaments": data.tournaments(store, game["name"])}

    def api_tournaments(store, request):
        return {"tournaments": data.tournaments(store, request.query_params.get("game") or None)}

    def api_tournament(store, request):
        return data.tournament(store, request.path_params["id"], _versions(request, "all"))

    def api_progress(store, request):
        return data.tournament_progress(store, request.path_params["id"])

    def api_tournament_leaderboard(store, request):
        return data.tournament_standings(store, request.path_params["id"], _versions(request, "all"),
                                         _int_param(request, "limit", None, 1))

    def api_bot(store, request):
        return data.bot(store, request.path_params["id"])

    def api_bot_matches(store, request):
        bot = data.bot(store, request.path_params["id"])
        return {"bot_id": bot["id"], "matches": data.bot_matches(
            store, bot["id"], _int_param(request, "limit", 25, 1, 1000), _int_param(request, "offset", 0))}

    def api_bot_failures(store, request):
        bot = data.bot(store, request.path_params["id"])
        return {"bot_id": bot["id"], "counts": data.failure_counts(store, bot["id"]),
                "failures": data.bot_failures(store, bot["id"], _int_param(request, "limit", 20, 1, 1000))}

    def api_rating_history(store, request):
        bot = data.bot(store, request.path_params["id"])
        return {"bot_id": bot["id"], "versions": data.rating_history(store, bot["id"])}

    def api_matches(store, request):
        return {"matches": data.matches(store, _int_param(request, "tournament", None, 0, 1 << 62),
                                        request.query_params.get("game") or None,
                                        _int_param(request, "limit", 50, 1, 1000), _int_param(request, "offset", 0))}

    def api_match(store, request):
        found = data.match(store, request.path_params["id"])
        summary = data.match_summary(found)
        stderr = {seat["seat"]: seat.get("stderr") or "" for seat in found["seats"]}
        for seat in summary["seats"]:
            seat["stderr"] = stderr.get(seat["seat"], "")
        return summary

    def api_log(store, request):
        found = data.match(store, request.path_params["id"], with_log=True)
        return {"match_id": found["id"], "log": found.get("log") or []}

    def api_replay(store, request):
        replay, reason = replay_of(store, request.path_params["id"])
        if replay is None:
            raise HTTPException(409, reason)
        return {"match_id": replay.match_id, **replay.summary(check=True)}

    def api_check(store, request):
        replay, reason = replay_of(store, request.path_params["id"])
        if replay is None:
            raise HTTPException(409, reason)
        return {"match_id": replay.match_id, "verification": replay.check()}

    def api_frames(request: Request):
        store = stores.get()
        try:
            replay, reason = replay_of(store, request.path_params["id"])
        except data.NotFound as error:
            return JSONResponse({"error": str(error)}, status_code=404)
        if replay is None:
            return JSONResponse({"error": reason}, status_code=409)
        view = request.query_params.get("view", "full")
        if view not in replay.views():
            return JSONResponse({"error": f"unknown view {view!r} (views: {', '.join(replay.views())})"},
                                status_code=400)
        try:
            frame = _int_param(request, "frame", None, 0, 1 << 30)
            index = frame // CHUNK if frame is not None else _int_param(request, "chunk", 0, 0, 1 << 30)
            body = replay.chunk_bytes(view, index)
        except HTTPException as error:
            return JSONResponse({"error": error.detail}, status_code=error.status_code)
        except IndexError as error:
            return JSONResponse({"error": str(error)}, status_code=404)
        return Response(replay.frames_answer(view, index, body), media_type="application/json")

    routes = [
        Route("/", html_endpoint(index_page)),
        Route("/games/{game}", html_endpoint(game_page)),
        Route("/tournaments", html_endpoint(tournaments_page)),
        Route("/tournaments/{id:int}", html_endpoint(tournament_page)),
        Route("/bots/{id:int}", html_endpoint(bot_page)),
        Route("/bots/{name}", html_endpoint(bot_by_name)),
        Route("/games/{game}/bots/{name}", html_endpoint(bot_by_name)),
        Route("/matches/{id:int}", html_endpoint(match_page)),
        Route("/api", json_endpoint(api_index)),
        Route("/api/games", json_endpoint(api_games)),
        Route("/api/games/{game}", json_endpoint(api_game)),
        Route("/api/games/{game}/leaderboard", json_endpoint(api_leaderboard)),
        Route("/api/games/{game}/bots", json_endpoint(api_game_bots)),
        Route("/api/games/{game}/tournaments", json_endpoint(api_game_tournaments)),
        Route("/api/tournaments", json_endpoint(api_tournaments)),
        Route("/api/tournaments/{id:int}", json_endpoint(api_tournament)),
        Route("/api/tournaments/{id:int}/progress", json_endpoint(api_progress)),
        Route("/api/tournaments/{id:int}/leaderboard", json_endpoint(api_tournament_leaderboard)),
        Route("/api/bots/{id:int}", json_endpoint(api_bot)),
        Route("/api/bots/{id:int}/matches", json_endpoint(api_bot_matches)),
        Route("/api/bots/{id:int}/failures", json_endpoint(api_bot_failures)),
        Route("/api/bots/{id:int}/rating-history", json_endpoint(api_rating_history)),
        Route("/api/matches", json_endpoint(api_matches)),
        Route("/api/matches/{id:int}", json_endpoint(api_match)),
        Route("/api/matches/{id:int}/log", json_endpoint(api_log)),
        Route("/api/matches/{id:int}/replay", json_endpoint(api_replay)),
        Route("/api/matches/{id:int}/check", json_endpoint(api_check)),
        Route("/api/matches/{id:int}/frames", api_frames),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    if play is not None:
        from arena.web.play import play_routes

        routes[:0] = play_routes(play, stores.get, page, data.playable_games)

    async def not_found(request: Request, exc: HTTPException):
        if request.url.path.startswith("/api"):
            return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
        return HTMLResponse(env.get_template("error.html").render(
            request=request, title="Not found" if exc.status_code == 404 else "Error", message=exc.detail),
            status_code=exc.status_code)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        if play is not None:
            play.close()  # every person leaves: their matches end and are stored
        stores.close()

    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found}, lifespan=lifespan)
    app.add_middleware(SecurityHeaders)
    app.state.db_path = str(db_path)
    app.state.play = play
    app.state.replays = replays
    return app


__all__ = ["create_app", "StoreError", "API_ENDPOINTS", "CSP"]
