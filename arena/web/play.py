"""The pages where a person plays bots: ``/play`` (choose a game and opponents) and
``/play/{token}`` (the seat: its board, its legal actions, its clock), with their JSON under
``/api/play/``.

Only added when the server was given a play host (`arena play`, or `arena serve` on a
loopback address or with ``--play``): the host (`arena.tournament.humanplay.PlayHost`, made
by the command) plays and stores the matches; these routes only pass what the person sees
and does, and import neither the runner nor the tournament layer. A match is
reached only by its unguessable token, and its JSON is only ever that seat's own view. Every
POST must come from a page of this server (its Origin), so another site open in the same
browser cannot start matches or act for the person.
"""

from __future__ import annotations

import json
from typing import Callable
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Route

from arena.games import get_game

LONG_POLL_S = 15.0       # a view request waits this long for a change
MAX_ACTION_BYTES = 64 << 10


def _same_origin(request: Request) -> bool:
    """A POST from a page of this server: its Origin says so, or (a form sent under this
    server's no-referrer policy carries ``Origin: null``) the browser's Sec-Fetch-Site does."""
    origin = request.headers.get("origin")
    if origin == f"{request.url.scheme}://{request.headers.get('host', '')}":
        return True
    return origin in (None, "null") and request.headers.get("sec-fetch-site") == "same-origin"


def play_routes(host, store_of: Callable, page: Callable, known_games: Callable) -> list[Route]:
    """The routes over ``host``; ``store_of()`` is the thread's read connection, ``page``
    renders a template, ``known_games(store)`` lists the games with their bots."""

    def refuse(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    def choose_page(request: Request):
        store = store_of()
        return page("play_choose.html", request, games=known_games(store), problem=None)

    async def start(request: Request):
        if not _same_origin(request):
            return refuse(403, "a match is started from this server's own /play page")
        body = await request.body()
        if len(body) > MAX_ACTION_BYTES:
            return refuse(413, "that form is too long")
        # A plain urlencoded form: the standard library reads it (Starlette's form parser
        # would need python-multipart, for nothing this form sends).
        form = parse_qs(body.decode("utf-8", "replace"), max_num_fields=100)
        game = (form.get("game") or [""])[0]
        opponents = [value for value in form.get("vs", []) if value]
        name = (form.get("name") or [""])[0].strip()
        seat_text = (form.get("seat") or [""])[0]
        if seat_text not in ("", "random") and not seat_text.isdigit():
            match, problem = None, f"seat must be a number, not {seat_text[:20]!r}"
        else:
            seat = int(seat_text) if seat_text.isdigit() else None
            match, problem = await _in_thread(host.start, game, opponents, name, seat)
        if match is None:
            games = await _in_thread(lambda: known_games(store_of()))
            return page("play_choose.html", request, status=400, games=games, problem=problem)
        return RedirectResponse(f"/play/{match.token}", status_code=303)

    def seat_page(request: Request):
        match = host.get(request.path_params["token"])
        if match is None:
            return page("error.html", request, status=404, title="Not found",
                        message="no such match is being played here (it ended when the server stopped)")
        about = match.about()
        return page("play.html", request, about=about, token=match.token,
                    drawn=about["game"] in ("five-towers", "agent-avenue", "fifth-avenue"),
                    title=get_game(about["game"]).title)

    def view(request: Request):
        match = host.get(request.path_params["token"])
        if match is None:
            return refuse(404, "no such match")
        since_text = request.query_params.get("since")
        since = int(since_text) if since_text and since_text.isdigit() else None
        return JSONResponse(match.view(since, LONG_POLL_S if since is not None else 0.0))

    async def act(request: Request):
        match = host.get(request.path_params["token"])
        if match is None:
            return refuse(404, "no such match")
        if not _same_origin(request) or request.headers.get("content-type", "").split(";")[0] != "application/json":
            return refuse(403, "actions come from the match's own page (JSON)")
        body = await request.body()
        if len(body) > MAX_ACTION_BYTES:
            return refuse(413, "that action is too long")
        try:
            action = json.loads(body)["action"]
        except (ValueError, KeyError, TypeError):
            return refuse(400, 'send {"action": ...}')
        refusal = await _in_thread(match.submit, action)
        if refusal is not None:
            return JSONResponse({"ok": False, "refused": refusal}, status_code=422)
        return JSONResponse({"ok": True})

    async def leave(request: Request):
        match = host.get(request.path_params["token"])
        if match is None:
            return refuse(404, "no such match")
        if not _same_origin(request):
            return refuse(403, "only the match's own page can leave it")
        match.leave()
        return JSONResponse({"ok": True})

    return [
        Route("/play", choose_page, methods=["GET"]),
        Route("/play", start, methods=["POST"]),
        Route("/play/{token}", seat_page),
        Route("/api/play/{token}", view),
        Route("/api/play/{token}/action", act, methods=["POST"]),
        Route("/api/play/{token}/leave", leave, methods=["POST"]),
    ]


async def _in_thread(function, *args):
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(function, *args)


__all__ = ["play_routes"]
