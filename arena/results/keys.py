"""Secret keys behind every deal and every bot seed, so that no bot can recover a deal.

A match's deal (the game engine's seed) and the seed each bot is sent are keyed hashes
(HMAC-SHA256) of a secret that bots never see. A tournament's secret is made from this
machine's key and the tournament's seed, and stored with the tournament (so `resume` and a
database moved to another machine replay exactly); a lone match's from the key and its
``--seed``. The same seed on the same machine — or anywhere with the same ``ARENA_SECRET`` —
gives the same deals, so results stay reproducible; a published tournament seed tells a bot
nothing, because it does not have the key.

The machine key is ``ARENA_SECRET`` when set (any text), else 32 random bytes made once in
``$XDG_CONFIG_HOME/arena/secret`` (default ``~/.config/arena/secret``, mode 0600).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from arena import settings

KEY_VARIABLE = "ARENA_SECRET"
_process_key: bytes | None = None


def key_file() -> Path:
    return Path(settings.config_home()) / "arena" / "secret"


def machine_key() -> bytes:
    """This machine's key (see the module docstring); made on first use."""
    global _process_key
    given = settings.value(KEY_VARIABLE)
    if given:
        return hashlib.sha256(given.encode("utf-8", "surrogateescape")).digest()
    path = key_file()
    try:
        return _read_key(path)
    except OSError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        key = secrets.token_bytes(32)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(key.hex() + "\n")
        return key
    except FileExistsError:
        return _read_key(path)  # made by another process a moment ago
    except OSError:
        # No place for a key (a read-only home): a key for this process only. Deals stay
        # secret; they are just not the same in the next run.
        if _process_key is None:
            _process_key = secrets.token_bytes(32)
        return _process_key


def _read_key(path: Path) -> bytes:
    """The key in ``path``: 64 hexadecimal digits (OSError when it cannot be read)."""
    text = path.read_text(errors="replace").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != 32:
        raise settings.SettingError(f"{path} must hold this machine's key, 64 hexadecimal digits, and holds"
                                    f" something else; remove it (a new key is made) or set {KEY_VARIABLE}")
    return key


def secret_for(kind: str, seed: int) -> str:
    """The secret (hex) of a tournament or a lone match with this ``seed``."""
    return hmac.new(machine_key(), f"arena-{kind}:{seed}".encode(), hashlib.sha256).hexdigest()


def keyed_seed(secret: str, *labels: object) -> int:
    """A 63-bit seed from the secret and labels, e.g. ``keyed_seed(s, "deal", 17)``."""
    message = ":".join(map(str, labels)).encode()
    digest = hmac.new(bytes.fromhex(secret), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def deal_seed(secret: str, deal: int) -> int:
    """The game engine's seed for deal number ``deal``."""
    return keyed_seed(secret, "deal", deal)


def bot_seeds(secret: str, deal: int, players: int) -> list[int]:
    """The seeds sent to the bots of a match on deal ``deal``, one per seat: independent of the
    deal's own seed, and the same for every match of a duplicate set (they follow the seat)."""
    return [keyed_seed(secret, "bot", deal, seat) for seat in range(players)]
