"""Sign-in tokens: `secrets.token_urlsafe` makes them, only their SHA-256 is stored, and a
presented token is checked with `hmac.compare_digest` (constant time)."""

from __future__ import annotations

import hashlib
import hmac
import secrets

TOKEN_BYTES = 32          # 256 bits of randomness; 43 URL-safe characters
MAX_TOKEN_CHARS = 128     # anything longer is not one of ours (checked before hashing)


def new_token() -> tuple[str, str]:
    """A fresh token and the digest to store for it: ``(token, sha256_hex)``."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return token, digest(token)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def matches(token: str | None, stored_digest: str | None) -> bool:
    """Whether ``token`` is the one whose digest was stored (constant time in the digest)."""
    if not token or not stored_digest or len(token) > MAX_TOKEN_CHARS:
        return False
    return hmac.compare_digest(digest(token), stored_digest)


def sign_in_link(base: str, token: str) -> str:
    """The personal link that signs its holder in (``base`` is the contest's ``link_base``)."""
    return f"{base.rstrip('/')}/signin/{token}"
