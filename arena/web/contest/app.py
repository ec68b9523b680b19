"""The contest server's Starlette application: sign-in by link, the entrant's page (uploads,
versions, refusals, test matches, failures), the public leaderboard and replays, and the
organiser's page.

It reads the results database (one read connection per worker thread, as `arena.web.app`)
and writes only the contest's inbox (`arena.contest.inbox`): uploads, test-match requests
and the organiser's actions wait there for the contest runner, the one writer of the results
database. No request waits on a match.

Who sees what (docs/contest.md, "The web server"):

* everyone: the leaderboard, entrants' pages (accepted versions, ratings, matches), finished
  matches with their replay in the players' views (``seat-N``) — never stderr or debug text;
  the full views (``full``, ``snapshot``) too when the contest's ``public_replays`` is on;
* a signed-in entrant, besides: their own submissions (refused ones with the reason, build and
  validation output), failures with stderr, and, in their own matches, their own seat's stderr
  and debug text;
* the organiser: everything, and the actions.

Every POST passes `guard.check_csrf` (the session's token and the Origin); security headers
and the Content-Security-Policy are `arena.web.app`'s.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

import jinja2
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.contest import records, tokens, views
from arena.contest.entrants import EntrantsError, parse as parse_entrants
from arena.contest.inbox import Inbox, InboxRefusal, folder_for
from arena.contest.uploads import UploadRefused, check_zip, is_zip_name
from arena.web import data
from arena.web.app import SecurityHeaders, Stores, display_board
from arena.web.perthread import PerThread
from arena.web.safe import script_safe as _script_safe
from arena.web.templating import STATIC, TEMPLATES, environment
from arena.web.boards import DRAWN
from arena.web.contest import guard, reads
from arena.web.plots import rating_plot
from arena.web.replay import Replay, ReplayCache, ReplayUnavailable

HERE = Path(__file__).resolve().parent
PUBLIC_VIEWS_ALWAYS = "seat-"   # a player's own view: public; the full views only with public_replays
FORM_SLACK = 64 << 10           # what a multipart form adds to its file
ENTRANTS_PER_PAGE = 50          # the organiser's page: entrants per page
LATEST_SHOWN = 20               # the organiser's page: the latest submissions, failures, requests, queued
SUBMISSIONS_PER_PAGE = 100      # /organiser/submissions: per page, newest first
DRAIN_CAP = 256 << 20           # the most of a too-large upload read (and thrown away) before answering


class Inboxes(PerThread):
    """One inbox connection per worker thread (sqlite3 connections stay in their thread)."""

    def __init__(self, folder: Path):
        super().__init__(lambda: Inbox(folder))
        self.folder = folder
        Inbox(folder).close()  # made now (the folder, the file), not in a visitor's request


def _environment() -> jinja2.Environment:
    env = environment()
    env.loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(HERE / "templates")),
                                      jinja2.FileSystemLoader(str(TEMPLATES))])
    env.filters["script_safe"] = lambda text: Markup(_script_safe(text))
    env.filters["pretty"] = lambda value: json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    return env


def create_contest_app(db_path: str, contest_name: str, https_cookies: bool = False,
                       limiter: guard.AttemptLimiter | None = None, replay_cache_size: int = 16) -> Starlette:
    """The contest server over ``db_path`` for the contest ``contest_name`` (a missing
    database or contest is refused now: `StoreError`, `ContestError`)."""
    with data.open_store(db_path) as store:
        contest_id = records.contest(store, contest_name)["id"]
    folder = folder_for(db_path, contest_name)
    stores = Stores(str(db_path))
    inboxes = Inboxes(folder)
    env = _environment()
    replays = ReplayCache(replay_cache_size)
    limiter = limiter or guard.AttemptLimiter()
    fresh_links: dict[str, list[dict]] = {}  # new entrants' links, until the organiser's next page shows them
    links_lock = threading.Lock()

    def current_contest(store) -> dict:
        return records.contest(store, contest_id)

    # ---- who is asking ------------------------------------------------------------------

    def viewer(store, request: Request) -> dict:
        """``{"role": None|"entrant"|"organiser", "entrant": row|None}``; a session whose link
        was re-issued, or whose entrant is gone, counts as signed out."""
        session = request.session
        role = session.get("role")
        if role == "organiser":
            row = store.one("SELECT organiser_sha256 FROM contests WHERE id = ?", [contest_id])
            if row and row["organiser_sha256"] and _same_key(session.get("key"), row["organiser_sha256"]):
                return {"role": "organiser", "entrant": None}
        elif role == "entrant":
            entrant = reads.entrant_by_id(store, contest_id, session.get("entrant_id") or 0)
            if entrant and entrant["token_sha256"] and _same_key(session.get("key"), entrant["token_sha256"]):
                return {"role": "entrant", "entrant": entrant}
        if role:
            for key in ("role", "entrant_id", "key"):
                session.pop(key, None)
        return {"role": None, "entrant": None}

    def page(name: str, request: Request, who: dict, status: int = 200, **context) -> HTMLResponse:
        flash = request.session.pop("flash", None) or []
        html = env.get_template(name).render(request=request, who=who, csrf=guard.csrf_token(request),
                                             contest_name=contest_name, flash=flash, **context)
        return HTMLResponse(html, status_code=status)

    def flash(request: Request, kind: str, text: str) -> None:
        request.session.setdefault("flash", [])
        request.session["flash"] = [*request.session["flash"][-4:], {"kind": kind, "text": text}]

    def back(path: str) -> RedirectResponse:
        return RedirectResponse(path, status_code=303)

    async def posted(request: Request, role: str, **limits) -> tuple:
        """A form posted by the ``role`` (else 403) with its CSRF token: (store, who, form)."""
        store = stores.get()
        who = viewer(store, request)
        form = await request.form(**limits)
        guard.check_csrf(request, form)
        need(who, role)
        return store, who, form

    async def to_inbox(request: Request, page_path: str, add: Callable[[Inbox], Any],
                       said: Callable[[Any], str]) -> RedirectResponse:
        """Hand something to the runner through the inbox (``add``, in a worker thread); back to
        ``page_path`` with ``said(what add returned)`` or the inbox's refusal."""
        try:
            added = await run_in_threadpool(lambda: add(inboxes.get()))
        except InboxRefusal as error:
            flash(request, "error", f"Refused: {error}.")
            return back(page_path)
        flash(request, "ok", said(added))
        return back(page_path)

    def html(function: Callable) -> Callable:
        def endpoint(request: Request):
            store = stores.get()
            who = viewer(store, request)
            try:
                return function(store, request, who)
            except data.NotFound as error:
                return page("error.html", request, who, status=404, title="Not found", message=str(error))
            except HTTPException as error:
                return page("error.html", request, who, status=error.status_code,
                            title="Not allowed" if error.status_code == 403 else "Bad request", message=error.detail)
        return endpoint

    def need(who: dict, role: str) -> None:
        if who["role"] != role:
            raise HTTPException(403, "Sign in with your personal link to see this page." if role == "entrant"
                                else "This page is the organiser's: sign in with the organiser's link.")

    # ---- sign-in ----------------------------------------------------------------------------

    def signin_page(store, request, who):
        token = request.path_params["token"]
        return page("signin.html", request, who, token=token if len(token) <= tokens.MAX_TOKEN_CHARS else "")

    async def signin_post(request: Request):
        form = await request.form(max_files=0, max_fields=4)
        store = stores.get()
        who = viewer(store, request)
        try:
            guard.check_csrf(request, form)
        except HTTPException as error:
            return page("error.html", request, who, status=403, title="Not allowed", message=error.detail)
        if not limiter.allow(guard.client_key(request)):
            return page("error.html", request, who, status=429, title="Too many attempts",
                        message="Too many failed sign-in attempts from your address; wait a minute and try again.")
        token = str(form.get("token") or "")
        entrant = records.entrant_for_token(store, contest_id, token)
        request.session.pop("flash", None)
        if entrant is not None or records.is_organiser(store, contest_id, token):
            request.session["csrf"] = secrets.token_urlsafe(32)  # a new form token with every sign-in
        if entrant is not None:
            request.session.update(role="entrant", entrant_id=entrant["id"], key=tokens.digest(token)[:32])
            return back("/me")
        if records.is_organiser(store, contest_id, token):
            request.session.update(role="organiser", key=tokens.digest(token)[:32])
            request.session.pop("entrant_id", None)
            return back("/organiser")
        limiter.failed(guard.client_key(request))
        return page("error.html", request, who, status=403, title="Not signed in",
                    message="This sign-in link is not valid (mistyped, or replaced by a newer one). Ask the organiser.")

    async def signout(request: Request):
        form = await request.form(max_files=0, max_fields=4)
        guard.check_csrf(request, form)
        request.session.clear()
        return back("/")

    # ---- public pages -----------------------------------------------------------------------

    def index_page(store, request, who):
        contest = current_contest(store)
        final = None
        if contest["final_id"]:
            final = display_board(data.tournament_standings(store, contest["final_id"], "all"))
        return page("contest_index.html", request, who, contest=contest, board=views.leaderboard(store, contest),
                    final=final, progress=reads.ladder_progress(store, contest["ladder_id"]))

    def me_page(store, request, who):
        if who["role"] == "organiser":
            return back("/organiser")
        need(who, "entrant")
        return back(f"/entrants/{quote(who['entrant']['name'], safe='')}")

    def bot_by_id(store, request, who):
        name = reads.bot_name(store, request.path_params["id"])
        if name is None:
            raise data.NotFound(f"no bot {request.path_params['id']}")
        return back(f"/bots/{quote(name, safe='')}")

    def entrant_page(store, request, who):
        contest = current_contest(store)
        name = request.path_params["name"]
        entrant = reads.entrant_by_name(store, contest_id, name)
        if entrant is None:
            raise data.NotFound(f"no entrant {name!r} in this contest")
        own = who["role"] == "entrant" and who["entrant"]["id"] == entrant["id"]
        private = own or who["role"] == "organiser"
        bot = reads.bot_id(store, contest["game"], entrant["name"])
        found = data.bot(store, bot) if bot else None
        history = data.rating_history(store, bot) if bot else []
        played = views.matches(store, contest, entrant["id"])
        submitted = views.submissions(store, contest, entrant["id"])
        for row in submitted:  # the stored copy's path on the server is not the entrant's business
            if isinstance(row["validation"], dict):
                row["validation"].pop("bot", None)
        context = {"contest": contest, "entrant": entrant, "own": own, "private": private, "bot": found,
                   "plot": rating_plot(history) if history else None,
                   "matches": [m for m in played if m["kind"] != "test" or private],
                   "submissions": submitted if private else [s for s in submitted if s["status"] == "accepted"]}
        if private:
            context.update(
                failures=data.bot_failures(store, bot) if bot else [],
                tests=[m for m in played if m["kind"] == "test"],
                requests=views.requests(store, contest, entrant["id"]),
                waiting=views.waiting(inboxes.get(), store, contest, entrant["name"]),
                field=[f["name"] for f in reads.field(store, contest_id)])
        return page("entrant.html", request, who, **context)

    def match_and_access(store, contest, who, match_id: int) -> tuple[dict, dict]:
        """The match (of this contest, else `NotFound`) and what this visitor may see of it:
        ``views`` (None: every view; "seats": the players' views; "none": no replay) and
        ``seats`` (whose stderr and debug text)."""
        entrant_id = who["entrant"]["id"] if who["role"] == "entrant" else None
        level = views.match_access(store, contest, match_id, entrant_id)
        if level is None:
            raise data.NotFound(f"no match {match_id} in this contest")
        found = reads.match(store, match_id)
        if who["role"] == "organiser":
            return found, {"views": None, "seats": {s["seat"] for s in found["seats"]}}
        if level == "own":
            mine = reads.own_seats(store, contest_id, match_id, entrant_id)
            return found, {"views": None, "seats": mine}
        if level == "public":
            return found, {"views": None, "seats": set()}
        # "result": a ladder or final match shows the players' views; a test match only its result.
        test = found.get("tournament_id") is None  # test matches belong to no tournament
        return found, {"views": "none" if test else "seats", "seats": set()}

    def allowed_views(replay: Replay, rule: dict) -> list[str]:
        if rule["views"] is None:
            return replay.views()
        if rule["views"] == "none":
            return []
        return [v for v in replay.views() if v.startswith(PUBLIC_VIEWS_ALWAYS)]

    def replay_of(store, match_id: int):
        try:
            return replays.get(match_id, lambda: Replay(data.match(store, match_id, with_log=True))), None
        except ReplayUnavailable as error:
            return None, str(error)

    def filtered_summary(replay: Replay, rule: dict, check: bool = False) -> dict:
        summary = replay.summary(check=check)
        summary["views"] = allowed_views(replay, rule)
        summary["steps"] = [step if step.get("seat") in rule["seats"] else {**step, "debug": None, "stderr": None}
                            for step in summary["steps"]]
        summary["stderr"] = {when: [text if seat in rule["seats"] else None for seat, text in enumerate(texts)]
                             for when, texts in (summary.get("stderr") or {}).items()}  # only its own seats'
        return summary

    def match_page(store, request, who):
        contest = current_contest(store)
        found, rule = match_and_access(store, contest, who, request.path_params["id"])
        summary = data.match_summary(found)
        viewer_data = first_chunk = reason = None
        if rule["views"] == "none":
            reason = "The replay of a test match is shown only to the entrants who played in it."
        else:
            replay, reason = replay_of(store, found["id"])
        if reason is None:
            # As the plain viewer does: only frame 0 of the first view shown is made here (no
            # step replayed), so the viewer draws its first board from this one response; it
            # fetches the frames (`api_frames`) after that paint. The page costs one log read.
            shown = allowed_views(replay, rule)
            first_chunk = replay.first_frame_bytes(shown[0]).decode()
            viewer_data = {"match": {**summary, "seed": str(summary["seed"])}, "replay": filtered_summary(replay, rule),
                           "source": "api", "drawn": found["game"] in DRAWN and shown[0] == "full"}
        texts = reads.stderr_texts(store, found["id"]) if rule["seats"] else []
        stderr = {seat: texts[seat] if seat < len(texts) else "" for seat in sorted(rule["seats"])}
        return page("contest_match.html", request, who, match=summary, stderr=stderr, viewer=viewer_data,
                    reason=reason, first_chunk=first_chunk)

    def api_endpoint(function: Callable) -> Callable:
        def endpoint(request: Request):
            store = stores.get()
            who = viewer(store, request)
            try:
                contest = current_contest(store)
                found, rule = match_and_access(store, contest, who, request.path_params["id"])
                if rule["views"] == "none":
                    return JSONResponse({"error": "the replay of a test match is its players' only"}, status_code=403)
                replay, reason = replay_of(store, found["id"])
                if replay is None:
                    return JSONResponse({"error": reason}, status_code=409)
                return function(request, replay, rule)
            except data.NotFound as error:
                return JSONResponse({"error": str(error)}, status_code=404)
        return endpoint

    def api_replay(request, replay, rule):
        return JSONResponse({"match_id": replay.match_id, **filtered_summary(replay, rule, check=True)})

    def api_check(request, replay, rule):
        return JSONResponse({"match_id": replay.match_id, "verification": replay.check()})

    def api_frames(request, replay, rule):
        view = request.query_params.get("view", "seat-0")
        if view not in allowed_views(replay, rule):
            return JSONResponse({"error": f"the view {view!r} is not shown here"}, status_code=403)
        try:
            index = int(request.query_params.get("chunk", "0"))
            body = replay.chunk_bytes(view, index)
        except ValueError:
            return JSONResponse({"error": "chunk must be a whole number"}, status_code=400)
        except IndexError as error:
            return JSONResponse({"error": str(error)}, status_code=404)
        return Response(replay.frames_answer(view, index, body), media_type="application/json")

    # ---- the entrant's actions -------------------------------------------------------------

    async def upload(request: Request):
        store = stores.get()
        who = viewer(store, request)
        contest = current_contest(store)
        config = contest["config"]
        length = request.headers.get("content-length")
        if not length or not length.isdigit():
            raise HTTPException(411, "The upload must say its size (Content-Length).")
        if int(length) > config.upload_bytes + FORM_SLACK:
            # Refused unread. The body is drained (up to a cap) so that the browser, still
            # sending, gets the answer rather than a reset connection.
            drained = 0
            async for chunk in request.stream():
                drained += len(chunk)
                if drained > DRAIN_CAP:
                    break
            if who["role"] == "entrant":
                flash(request, "error", f"Refused: the upload is larger than the limit of {_size(config.upload_bytes)}.")
                return back("/me")
            raise HTTPException(413, "The upload is too large.")
        form = await request.form(max_files=1, max_fields=4, max_part_size=64 << 10)
        guard.check_csrf(request, form)
        need(who, "entrant")
        entrant = who["entrant"]
        sent = form.get("bot")
        if sent is None or isinstance(sent, str) or not sent.filename:
            flash(request, "error", "Refused: choose a file (a bot file, or a .zip of its folder) to upload.")
            return back("/me")
        refusal = _closed(contest) or ("you have been withdrawn from the contest" if entrant["withdrawn"] else None)
        if refusal:
            flash(request, "error", f"Refused: {refusal}.")
            return back("/me")
        if is_zip_name(sent.filename):
            try:
                await run_in_threadpool(check_zip, sent.file, config.unpacked_bytes, config.files_per_upload)
            except UploadRefused as error:
                flash(request, "error", f"Refused: {error}.")
                return back("/me")
            sent.file.seek(0)
        return await to_inbox(request, "/me", lambda inbox: inbox.add_upload(
            entrant["name"], sent.filename, sent.file, config.upload_bytes, config.submissions_per_day),
            lambda received: f"Received your upload (number {received.id}); it is built and checked in turn,"
                             " and its outcome appears under Versions.")

    async def request_test(request: Request):
        store, who, form = await posted(request, "entrant", max_files=0, max_fields=80)
        contest = current_contest(store)
        config = contest["config"]
        opponents = [str(name) for name in form.getlist("opponent")]
        known = {f["name"] for f in reads.field(store, contest_id)}
        problem = None
        if who["entrant"]["bot_version_id"] is None:
            problem = "you have no accepted version yet"
        elif not opponents:
            problem = "pick at least one opponent"
        elif contest["players"] == 2 and len(opponents) > config.test_opponents_max:
            problem = f"pick at most {config.test_opponents_max} opponents (one match against each)"
        elif contest["players"] > 2 and len(opponents) != contest["players"] - 1:
            problem = f"pick {contest['players'] - 1} opponents (a {contest['players']}-player match)"
        elif any(name not in known for name in opponents):
            problem = "pick opponents from the list (entrants with an accepted version)"
        try:
            matches = int(form.get("matches") or 1)
        except ValueError:
            matches = 0
        if problem is None and not 1 <= matches <= config.test_repeats_max:
            problem = f"ask for 1 to {config.test_repeats_max} matches"
        if problem is None:
            try:
                await run_in_threadpool(lambda: inboxes.get().add_test_request(
                    who["entrant"]["name"], opponents, matches, config.test_matches_per_hour))
            except InboxRefusal as error:
                problem = str(error)
        if problem:
            flash(request, "error", f"Refused: {problem}.")
        else:
            flash(request, "ok", "Asked for a test match; it is played ahead of the ladder and appears under"
                                 " Test matches within seconds.")
        return back("/me")

    # ---- the organiser ---------------------------------------------------------------------

    def organiser_page(store, request, who):
        # Light however large the contest: one page of entrants, counts, the latest few of each
        # list with links to the whole lists (paged); one withdraw/reinstate form for everyone.
        need(who, "organiser")
        contest = current_contest(store)
        final = None
        if contest["final_id"]:
            final = display_board(data.tournament_standings(store, contest["final_id"], "all"))
        counts = views.entrant_counts(store, contest)
        pages = max(1, -(-counts["entrants"] // ENTRANTS_PER_PAGE))
        number = min(max(_whole(request.query_params.get("page"), 1), 1), pages)
        queue = views.queue(inboxes.get(), store, contest)
        return page("organiser.html", request, who, contest=contest, counts=counts, page_number=number, pages=pages,
                    entrants=views.entrants(store, contest, ENTRANTS_PER_PAGE, (number - 1) * ENTRANTS_PER_PAGE),
                    names=sorted(records.entrant_names(store, contest_id)),
                    submissions=views.all_submissions(store, contest, limit=LATEST_SHOWN),
                    queue=queue, queued=queue["inbox"][:LATEST_SHOWN], failures=views.failures(store, contest, limit=LATEST_SHOWN),
                    requests=reads.requests(store, contest_id, limit=LATEST_SHOWN), final=final,
                    progress=reads.ladder_progress(store, contest["ladder_id"]),
                    issued=fresh_links.pop(request.session.pop("issued", None) or "", None))

    def organiser_submissions(store, request, who):
        need(who, "organiser")
        contest = current_contest(store)
        before = _whole(request.query_params.get("before"), None)
        rows = views.all_submissions(store, contest, limit=SUBMISSIONS_PER_PAGE, before=before)
        older = rows[-1]["id"] if len(rows) == SUBMISSIONS_PER_PAGE else None
        return page("organiser_submissions.html", request, who, contest=contest, submissions=rows, older=older,
                    newest=before is None)

    async def organiser_action(request: Request):
        store, who, form = await posted(request, "organiser", max_files=0, max_fields=8)
        do = str(form.get("do") or "")
        details = {}
        if do in ("withdraw", "reinstate"):
            details["entrant"] = str(form.get("entrant") or "")
            if reads.entrant_by_name(store, contest_id, details["entrant"]) is None:
                flash(request, "error", "Refused: no such entrant.")
                return back("/organiser")
        elif do == "deadline":
            details["deadline"] = str(form.get("deadline") or "").strip() or None
            if details["deadline"]:
                from arena.contest.config import ContestError, parse_deadline

                try:
                    details["deadline"] = parse_deadline(details["deadline"]).strftime("%Y-%m-%dT%H:%M:%SZ")
                except (ContestError, ValueError) as error:
                    flash(request, "error", f"Refused: {error}")
                    return back("/organiser")
        return await to_inbox(request, "/organiser", lambda inbox: inbox.add_action(do, **details),
                              lambda _: f"Sent to the runner: {do} {details.get('entrant') or details.get('deadline') or ''}"
                                        " (the page shows it once it is done).")

    async def organiser_entrants(request: Request):
        store, who, form = await posted(request, "organiser", max_files=1, max_fields=4, max_part_size=4 << 20)
        sent = form.get("csv")
        text = str(form.get("rows") or "")
        if sent is not None and not isinstance(sent, str) and sent.filename:
            text = (await sent.read()).decode("utf-8", "replace")
        try:
            rows = parse_entrants(text, taken=records.entrant_names(store, contest_id))
        except EntrantsError as error:
            flash(request, "error", "Refused: " + "; ".join(error.problems[:5]))
            return back("/organiser")
        issued, sent_rows = [], []
        for row in rows:
            token, digest = tokens.new_token()
            issued.append({"name": row.name, "email": row.email, "link": tokens.sign_in_link(
                current_contest(store)["config"].link_base, token)})
            sent_rows.append({"name": row.name, "email": row.email, "token_sha256": digest})
        try:
            await run_in_threadpool(lambda: inboxes.get().add_action("entrants", rows=sent_rows))
        except InboxRefusal as error:
            flash(request, "error", f"Refused: {error}.")
            return back("/organiser")
        # Shown once, on the next page. Kept here, not in the cookie (200 links would not fit in
        # its 4 KiB); the session holds only the key to them. A restart forgets them: re-issue.
        key = secrets.token_urlsafe(16)
        with links_lock:
            while len(fresh_links) >= 64:
                fresh_links.pop(next(iter(fresh_links)))
            fresh_links[key] = issued
        request.session["issued"] = key
        flash(request, "ok", f"Sent {len(rows)} new entrants to the runner; copy their links below now:"
                             " they are not shown again.")
        return back("/organiser")

    def grades_csv(store, request, who):
        from arena.contest.config import ContestError
        from arena.contest.final import grades_csv as grades_text, standings

        need(who, "organiser")
        try:
            text = grades_text(standings(store, current_contest(store)))
        except ContestError as error:
            raise HTTPException(409, str(error)) from None
        return Response(text, media_type="text/csv; charset=utf-8",
                        headers={"content-disposition": f'attachment; filename="{contest_name}-grades.csv"'})

    routes = [
        Route("/", html(index_page)),
        Route("/signin/{token}", html(signin_page)),
        Route("/signin", signin_post, methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        Route("/me", html(me_page)),
        Route("/me/upload", upload, methods=["POST"]),
        Route("/me/test", request_test, methods=["POST"]),
        Route("/entrants/{name}", html(entrant_page)),
        Route("/bots/{id:int}", html(bot_by_id)),
        Route("/bots/{name}", html(entrant_page)),
        Route("/matches/{id:int}", html(match_page)),
        Route("/api/matches/{id:int}/replay", api_endpoint(api_replay)),
        Route("/api/matches/{id:int}/check", api_endpoint(api_check)),
        Route("/api/matches/{id:int}/frames", api_endpoint(api_frames)),
        Route("/organiser", html(organiser_page)),
        Route("/organiser/action", organiser_action, methods=["POST"]),
        Route("/organiser/entrants", organiser_entrants, methods=["POST"]),
        Route("/organiser/submissions", html(organiser_submissions)),
        Route("/organiser/grades.csv", html(grades_csv)),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]

    async def refused(request: Request, exc: HTTPException):
        status = exc.status_code
        if request.url.path.startswith("/api"):
            return JSONResponse({"error": exc.detail}, status_code=status)
        title = {403: "Not allowed", 404: "Not found", 405: "Not allowed"}.get(status, "Refused")
        who = {"role": None, "entrant": None}
        if "session" in request.scope:
            with contextlib.suppress(Exception):
                who = viewer(stores.get(), request)
        return page("error.html", request, who, status=status, title=title, message=exc.detail)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        stores.close()
        inboxes.close()

    app = Starlette(routes=routes, exception_handlers={HTTPException: refused}, lifespan=lifespan)
    app.add_middleware(SessionMiddleware, secret_key=guard.session_key(folder), session_cookie=guard.SESSION_COOKIE,
                       max_age=guard.SESSION_DAYS * 86400, same_site="lax", https_only=https_cookies)
    app.add_middleware(guard.SameOriginReferrer)
    app.add_middleware(SecurityHeaders)  # outermost: it adds what the inner ones did not set
    app.state.contest_id = contest_id
    app.state.folder = folder
    return app


def _same_key(held, stored_digest: str) -> bool:
    import hmac

    return isinstance(held, str) and hmac.compare_digest(held.encode(), stored_digest[:32].encode())


def _closed(contest: dict) -> str | None:
    """Why uploads are closed now, or None."""
    import datetime as dt

    if contest["closed_at"]:
        return "submissions are closed"
    deadline = contest["config"].deadline_at()
    if deadline is not None and dt.datetime.now(dt.timezone.utc) >= deadline:
        return f"the deadline ({contest['config'].deadline}) has passed"
    return None


def _whole(text: str | None, default):
    """A query parameter as a whole number (``default`` when missing or not a number)."""
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default


def _size(n: int) -> str:
    return f"{n / (1 << 20):.0f} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


__all__ = ["create_contest_app"]
