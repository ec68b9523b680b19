"""Who is asking, and whether a request that changes something may go through.

* The session: Starlette's `SessionMiddleware` keeps ``{"role", "entrant_id", "name", "key",
  "csrf"}`` in a cookie signed with itsdangerous (HttpOnly always, SameSite=Lax, Secure with
  ``--https-cookies``). The signing key is kept in the contest's folder (`session_key`), so a
  restart does not sign everyone out. ``key`` is the first characters of the digest of the
  token signed in with: a re-issued link (a new token) ends the sessions of the old one.
* CSRF: every POST carries the session's ``csrf`` token (compared with `hmac.compare_digest`)
  and, when the browser sends one, an ``Origin`` (else ``Referer``) naming this server.
* Sign-in attempts: at most `SIGN_IN_ATTEMPTS` failed ones per client address in
  `SIGN_IN_WINDOW` seconds (`AttemptLimiter`, in memory: a restart forgets, which only
  helps a guesser for one window; tokens have 256 bits).
"""

from __future__ import annotations

import collections
import hmac
import os
import secrets
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException
from starlette.requests import Request

from arena.web.headers import ExtraHeaders

SIGN_IN_ATTEMPTS = 10
SIGN_IN_WINDOW = 60.0
SESSION_DAYS = 14
SESSION_COOKIE = "arena_contest"


def session_key(folder: Path) -> str:
    """The session-signing key in ``folder/session.key`` (made on first use, mode 0600)."""
    path = Path(folder) / "session.key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    folder.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    temporary = path.with_name(f".session.key.{os.getpid()}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as out:
        out.write(key)
    try:
        os.link(temporary, path)  # the first process to get here wins; others read its key
    except FileExistsError:
        pass
    finally:
        os.unlink(temporary)
    return path.read_text().strip()


def csrf_token(request: Request) -> str:
    """The session's CSRF token (made on first use)."""
    token = request.session.get("csrf")
    if not token:
        token = request.session["csrf"] = secrets.token_urlsafe(32)
    return token


def check_origin(request: Request) -> None:
    """Refuse a POST whose Origin (or, lacking it, Referer) is another site."""
    claimed = request.headers.get("origin") or request.headers.get("referer")
    if claimed is None:
        return  # not a browser's cross-site form (those send Origin); the token still has to match
    parts = urlsplit(claimed)
    host = request.headers.get("host", "")
    if claimed == "null" or parts.netloc.lower() != host.lower():
        raise HTTPException(403, "This form was sent from another site; it was refused.")


def check_csrf(request: Request, form) -> None:
    """The checks every state-changing request passes (`HTTPException` 403 if not)."""
    check_origin(request)
    sent = form.get("csrf") if form is not None else None
    expected = request.session.get("csrf")
    if not isinstance(sent, str) or not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
        raise HTTPException(403, "The form's security token is missing or stale; reload the page and try again.")


class AttemptLimiter:
    """At most ``limit`` failed attempts per key in any ``window`` seconds (a sliding window).

    Only failures count: a class signing in at once from one address (a school's NAT) is not
    held up, while guessing tokens stops after ``limit`` tries a window."""

    def __init__(self, limit: int = SIGN_IN_ATTEMPTS, window: float = SIGN_IN_WINDOW, clock=time.monotonic):
        self.limit = limit
        self.window = window
        self.clock = clock
        self._seen: dict[str, collections.deque] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> collections.deque:
        if len(self._seen) > 100_000:  # many addresses: forget those whose window has passed
            self._seen = {k: q for k, q in self._seen.items() if q and q[-1] > now - self.window}
        times = self._seen.setdefault(key, collections.deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        return times

    def allow(self, key: str) -> bool:
        """False when ``key`` has used up its failed attempts for now."""
        with self._lock:
            return len(self._recent(key, self.clock())) < self.limit

    def failed(self, key: str) -> None:
        """Count a failed attempt."""
        with self._lock:
            now = self.clock()
            self._recent(key, now).append(now)


def client_key(request: Request) -> str:
    """The address the limit counts by (behind a proxy on this machine, uvicorn puts the
    forwarded client's address here)."""
    return request.client.host if request.client else "unknown"


class SameOriginReferrer(ExtraHeaders):
    """ASGI middleware: ``Referrer-Policy: same-origin`` on every response.

    The plain viewer's ``no-referrer`` would make Chromium send ``Origin: null`` with this
    site's own forms, and `check_origin` needs the real origin. ``same-origin`` still sends
    nothing to other sites (a sign-in link's token never leaves in a Referer)."""

    def __init__(self, app):
        super().__init__(app, [(b"referrer-policy", b"same-origin")])
