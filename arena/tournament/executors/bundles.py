"""Bot copies that travel to other machines by content hash, and the cache that keeps them there.

A *bundle* is one bot copy as plain data: its file or folder name, its entries (path, kind,
executable bit, size, link target — what `arena.runner.files.content_hash` covers) and the
files' bytes, compressed. The coordinator packs a copy from its bot store once per run; a
worker that does not have that version unpacks it into its cache, computes the content hash of
what it unpacked and refuses it unless it equals the hash the match was scheduled with (a
damaged or tampered transfer never plays). Unpacking writes only inside a private scratch
folder: every path is checked to stay inside the copy, links must point inside it.

The cache (``ARENA_BOT_CACHE``, default ``<tmp>/arena-bot-cache-<uid>``) holds each version
under its hash, ``<hash>/<name>``, read-only, shared by the worker processes of one machine
(a copy is unpacked in a scratch folder and renamed into place, so two processes adding the
same version at once keep one). A cached copy is hashed again before a process first uses it.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import threading
import zlib
from pathlib import Path, PurePosixPath

from arena import settings
from arena.runner import files

FORMAT = 1
CACHE_VARIABLE = "ARENA_BOT_CACHE"
_HASH = re.compile(r"^[0-9a-f]{64}$")
_COMPRESSION = 3


class BundleRefused(ValueError):
    """A bundle that cannot be used (damaged, wrong hash, unsafe path); one line naming the bot."""


# ---- packing (the coordinator) ------------------------------------------------------------------

def pack(path: str | os.PathLike) -> dict:
    """The bot copy at ``path`` (a file or a folder) as a bundle."""
    root, entries = files.scan(path)
    single = root.is_file()
    chunks = []
    listing = []
    for entry in entries:
        if entry.kind == "link":
            listing.append([entry.relative, "link", False, 0, entry.target])
            continue
        data = (root if single else root / entry.relative).read_bytes()
        if len(data) != entry.size:
            raise files.BotFilesError(f"{entry.relative} in {path} changed while it was read")
        chunks.append(data)
        listing.append([entry.relative, "file", entry.executable, entry.size, ""])
    return {"format": FORMAT, "name": Path(path).name, "folder": not single, "entries": listing,
            "data": zlib.compress(b"".join(chunks), _COMPRESSION)}


def bundle_size(bundle: dict) -> int:
    return len(bundle.get("data", b""))


# ---- unpacking (a worker) -----------------------------------------------------------------------

def _label(bundle, expected: str) -> str:
    name = bundle.get("name") if isinstance(bundle, dict) else None
    shown = name if isinstance(name, str) and _safe_name(name) else "?"
    return f"bot {shown} (sha256 {expected[:12]})"


def _safe_name(name: str) -> bool:
    return bool(name) and name not in (".", "..") and "/" not in name and "\0" not in name and len(name) <= 255


def _safe_relative(relative: str) -> bool:
    if not isinstance(relative, str) or not relative or "\0" in relative or relative.startswith("/"):
        return False
    parts = relative.split("/")
    return all(part not in ("", ".", "..") for part in parts)


def _link_stays_inside(relative: str, target: str) -> bool:
    if not isinstance(target, str) or not target or target.startswith("/") or "\0" in target:
        return False
    depth = len(PurePosixPath(relative).parts) - 1  # folders above the link, inside the copy
    for part in PurePosixPath(target).parts:
        if part == "..":
            depth -= 1
            if depth < 0:
                return False
        elif part != ".":
            depth += 1
    return True


def unpack(bundle: dict, expected: str, destination: Path) -> str:
    """Write the bundle's copy as ``destination`` (which must not exist); return its content hash.

    Raises `BundleRefused` when the bundle is malformed, unsafe, or its content hash is not
    ``expected`` (nothing is left behind then)."""
    label = _label(bundle, expected)
    try:
        if not isinstance(bundle, dict) or bundle.get("format") != FORMAT:
            raise BundleRefused("not a bot bundle arena can read")
        name, entries, folder = bundle.get("name"), bundle.get("entries"), bundle.get("folder")
        if not isinstance(name, str) or not _safe_name(name) or not isinstance(entries, list):
            raise BundleRefused("its name or entries are malformed")
        try:
            data = zlib.decompress(bundle.get("data", b""))
        except (zlib.error, TypeError) as error:
            raise BundleRefused(f"its data does not decompress ({error})") from None
        sizes = 0
        for entry in entries:
            if not (isinstance(entry, list) and len(entry) == 5):
                raise BundleRefused("an entry is malformed")
            relative, kind, _, size, target = entry
            if not _safe_relative(relative) or kind not in ("file", "link"):
                raise BundleRefused(f"entry {relative!r} is not a safe path in the copy")
            if kind == "link" and not _link_stays_inside(relative, target):
                raise BundleRefused(f"link {relative} points outside the copy")
            if kind == "file":
                if not isinstance(size, int) or size < 0:
                    raise BundleRefused(f"entry {relative} has a bad size")
                sizes += size
        if sizes != len(data):
            raise BundleRefused(f"its data has {len(data)} bytes, its entries say {sizes}")
        if not folder and (len(entries) != 1 or entries[0][1] != "file" or entries[0][0] != name):
            raise BundleRefused("a file bot's bundle must hold exactly that file")
        _write(entries, data, destination, folder)
        try:
            digest = files.content_hash(destination)
        except files.BotFilesError as error:
            raise BundleRefused(f"the unpacked copy is unusable ({error})") from None
        if digest != expected:
            raise BundleRefused(f"the copy received has sha256 {digest[:12]}, the match expects"
                                f" {expected[:12]}: a damaged transfer, refused")
        return digest
    except BundleRefused as refusal:
        _remove(destination)
        raise BundleRefused(f"{label}: {refusal}") from None
    except OSError as error:
        _remove(destination)
        raise BundleRefused(f"{label}: cannot unpack it ({error})") from None


def _write(entries: list, data: bytes, destination: Path, folder: bool) -> None:
    if not folder:
        destination.write_bytes(data)
        os.chmod(destination, 0o555 if entries[0][2] else 0o444)
        return
    destination.mkdir(mode=0o755)
    offset = 0
    for relative, kind, executable, size, target in entries:
        path = destination.joinpath(*relative.split("/"))
        path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        if kind == "link":
            os.symlink(target, path)
            continue
        with open(path, "xb") as handle:
            handle.write(data[offset:offset + size])
        offset += size
        os.chmod(path, 0o555 if executable else 0o444)
    files.seal(destination)


def _remove(path: Path) -> None:
    try:
        files.remove_tree(path)
    except OSError:
        pass


# ---- the worker's cache -------------------------------------------------------------------------

class BotCache:
    """Bot copies on this machine by content hash (see the module docstring). Thread-safe."""

    def __init__(self, folder: str | os.PathLike | None = None):
        self.folder = _cache_folder(folder)
        self._lock = threading.Lock()
        self._verified: dict[tuple[str, str], Path] = {}   # checked by this process

    def hashes(self) -> list[str]:
        """The versions held here (by their folder names; each is checked again before use)."""
        try:
            return sorted(name for name in os.listdir(self.folder) if _HASH.match(name))
        except OSError:
            return []

    def path(self, digest: str, name: str, bundle: dict | None = None) -> Path | None:
        """The cached copy of version ``digest`` named ``name``; unpacked from ``bundle`` first
        when it is not here (or not intact). None when it is not here and no bundle came."""
        if not _HASH.match(digest or "") or not _safe_name(name):
            raise BundleRefused(f"bot {name!r}: not a content hash or a file name arena accepts")
        with self._lock:
            known = self._verified.get((digest, name))
            if known is not None and known.exists():
                return known
            final = self.folder / digest / name
            if _intact(final, digest):
                self._verified[(digest, name)] = final
                return final
            if bundle is None:
                return None
            if bundle.get("name") != name:
                raise BundleRefused(f"{_label(bundle, digest)}: sent as {bundle.get('name')!r}, wanted {name!r}")
            scratch = Path(tempfile.mkdtemp(prefix=".incoming-", dir=self.folder))
            try:
                unpack(bundle, digest, scratch / name)
                holder = self.folder / digest
                holder.mkdir(mode=0o755, exist_ok=True)
                if final.exists() or final.is_symlink():
                    _remove(final)  # a damaged copy (it failed the check above)
                os.rename(scratch / name, final)
            except OSError:
                if not _intact(final, digest):  # not another process's copy, a moment ago
                    raise
            finally:
                _remove(scratch)
            self._verified[(digest, name)] = final
            return final


def _intact(path: Path, digest: str) -> bool:
    if not (path.exists() or path.is_symlink()):
        return False
    try:
        return files.content_hash(path) == digest
    except files.BotFilesError:
        return False


def _cache_folder(folder) -> Path:
    """The cache folder: made private to this user; one that someone else could write is refused."""
    try:
        given = settings.bot_cache()
    except settings.SettingError as error:
        raise BundleRefused(str(error)) from None
    chosen = folder or given or os.path.join(tempfile.gettempdir(), f"arena-bot-cache-{os.geteuid()}")
    path = Path(chosen)
    path.mkdir(mode=0o755, parents=True, exist_ok=True)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise BundleRefused(f"the bot cache {path} is not a folder of this user that only it can write;"
                            f" remove it or set {CACHE_VARIABLE} to another folder")
    return path
