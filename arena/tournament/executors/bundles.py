"""Bot copies that travel to other machines by content hash, and the cache that keeps them there.

A *bundle* is one bot copy as plain data: its file or folder name, its entries (path, kind,
executable bit, size, link target — what `arena.runner.files.content_hash` covers) and the
files' bytes, compressed. The coordinator packs a copy from its bot store once per run; a
worker that does not have that version unpacks it into its cache, computes the content hash of
what it unpacked and refuses it unless it equals the hash the match was scheduled with (a
damaged or tampered transfer never plays). The hash of the bundle as received is checked
before anything is written, and unpacking cannot write outside its private scratch folder,
whatever the bundle holds: names are checked, links must resolve inside the copy, and every
file is created through folder descriptors opened one name at a time without following a
link (`unpack`).

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
from pathlib import Path

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

_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_LINK_HOPS = 40  # as the kernel's own limit on links followed in one path


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
    return all(part not in ("", ".", "..") and len(part) <= 255 for part in parts)


def unpack(bundle: dict, expected: str, destination: Path) -> str:
    """Write the bundle's copy as ``destination`` (which must not exist); return its content hash.

    Everything is checked before anything is written: the listing (safe relative names, in
    order, nothing beneath a file or a link, every link resolving inside the copy through the
    copy's own links) and the content hash of the bundle as received, which must be
    ``expected``. Then each file is created through folder descriptors opened one name at a
    time with ``O_NOFOLLOW`` (`_write`): no path is ever resolved through a link, so nothing
    can land outside ``destination`` whatever the bundle holds.

    Raises `BundleRefused` when the bundle is malformed, unsafe, or its content hash is not
    ``expected`` (nothing is left behind then)."""
    label = _label(bundle, expected)
    try:
        entries, contents, folder = _checked(bundle)
        digest = files.listing_hash(entries, contents)
        if digest != expected:
            raise BundleRefused(f"the copy received has sha256 {digest[:12]}, the match expects"
                                f" {expected[:12]}: a damaged transfer, refused")
    except BundleRefused as refusal:
        raise BundleRefused(f"{label}: {refusal}") from None
    try:
        _write(entries, contents, destination, folder)
        try:
            written = files.content_hash(destination)
        except files.BotFilesError as error:
            raise BundleRefused(f"the unpacked copy is unusable ({error})") from None
        if written != expected:
            raise BundleRefused(f"the copy written has sha256 {written[:12]}, not {expected[:12]}")
        return digest
    except BundleRefused as refusal:
        _remove(destination)
        raise BundleRefused(f"{label}: {refusal}") from None
    except OSError as error:
        _remove(destination)
        raise BundleRefused(f"{label}: cannot unpack it ({error.strerror or error})") from None


def _checked(bundle) -> tuple[list[files.Entry], list[bytes], bool]:
    """The bundle's entries and file contents, once every check that needs no disk passed."""
    if not isinstance(bundle, dict) or bundle.get("format") != FORMAT:
        raise BundleRefused("not a bot bundle arena can read")
    name, listing, folder = bundle.get("name"), bundle.get("entries"), bundle.get("folder")
    if not isinstance(name, str) or not _safe_name(name) or not isinstance(listing, list) or \
            not isinstance(folder, bool):
        raise BundleRefused("its name or entries are malformed")
    if len(listing) > files.MAX_FILES:
        raise BundleRefused(f"it has more than {files.MAX_FILES} entries")
    entries = []
    for item in listing:
        if not (isinstance(item, list) and len(item) == 5):
            raise BundleRefused("an entry is malformed")
        relative, kind, executable, size, target = item
        if not _safe_relative(relative):
            raise BundleRefused(f"entry {relative!r} is not a safe path in the copy")
        if kind == "file" and isinstance(size, int) and not isinstance(size, bool) and size >= 0 and \
                isinstance(executable, bool) and target == "":
            entries.append(files.Entry(relative, "file", executable, size))
        elif kind == "link" and isinstance(target, str) and target and "\0" not in target and size == 0:
            entries.append(files.Entry(relative, "link", target=target))
        else:  # hard links, devices, FIFOs... have no kind in a bundle
            raise BundleRefused(f"entry {relative} is not a regular file or a link ({str(kind)[:20]!r})")
    if [e.relative for e in entries] != sorted({e.relative for e in entries}):
        raise BundleRefused("its entries are not in order, or one is listed twice")
    if not folder and (len(entries) != 1 or entries[0].kind != "file" or entries[0].relative != name):
        raise BundleRefused("a file bot's bundle must hold exactly that file")
    _check_tree(entries)
    data = _decompressed(bundle.get("data", b""), sum(e.size for e in entries))
    contents, offset = [], 0
    for entry in entries:
        if entry.kind == "file":
            contents.append(data[offset:offset + entry.size])
            offset += entry.size
    return entries, contents, folder


def _decompressed(data, expected_size: int) -> bytes:
    if expected_size > files.MAX_BYTES:
        raise BundleRefused(f"it holds more than {files.MAX_BYTES >> 20} MiB")
    try:
        inflater = zlib.decompressobj()
        out = inflater.decompress(data, expected_size + 1)  # never more than announced (+1 to see it)
    except (zlib.error, TypeError) as error:
        raise BundleRefused(f"its data does not decompress ({error})") from None
    if len(out) != expected_size or not inflater.eof or inflater.unconsumed_tail:
        raise BundleRefused(f"its data is not the {expected_size} bytes its entries say")
    return out


def _check_tree(entries: list[files.Entry]) -> None:
    """Nothing lies beneath a file or a link, and every link resolves, through the copy's own
    links, to something inside the copy (as `files.scan` demands of a bot folder)."""
    kinds = {e.relative: e.kind for e in entries}
    folders = {"/".join(e.relative.split("/")[:depth]) for e in entries
               for depth in range(1, e.relative.count("/") + 1)}
    for folder in folders:
        if folder in kinds:
            raise BundleRefused(f"entry {folder} is a {kinds[folder]} and a folder at once")
    links = {e.relative: e.target for e in entries if e.kind == "link"}
    for relative, target in links.items():
        resolved = _resolve(relative.split("/")[:-1], target, links, kinds, folders)
        if resolved is None:
            raise BundleRefused(f"link {relative} points outside the copy, or at nothing in it")


def _resolve(start: list[str], target: str, links: dict, kinds: dict, folders: set) -> str | None:
    """Where ``target``, read in the folder ``start``, leads inside the copy (following the
    copy's own links); None when it leaves the copy, loops or names nothing."""
    if target.startswith("/"):
        return None
    resolved, pending, hops = list(start), target.split("/"), 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not resolved:
                return None
            resolved.pop()
            continue
        here = "/".join(resolved + [part])
        if here in links:
            hops += 1
            if hops > _MAX_LINK_HOPS or links[here].startswith("/"):
                return None
            pending = links[here].split("/") + pending
            continue
        if here not in folders and (here not in kinds or pending and any(p not in ("", ".") for p in pending)):
            return None  # nothing there, or a file used as a folder
        resolved.append(part)
    return "/".join(resolved)


def _write(entries: list[files.Entry], contents: list[bytes], destination: Path, folder: bool) -> None:
    """Create the copy under ``destination`` through descriptors only (see `unpack`)."""
    parent = os.open(destination.parent, _FOLDER_FLAGS)
    try:
        if not folder:
            _write_file(parent, destination.name, contents[0], entries[0].executable)
            return
        os.mkdir(destination.name, 0o700, dir_fd=parent)
        opened = {"": os.open(destination.name, _FOLDER_FLAGS, dir_fd=parent)}
        try:
            remaining = iter(contents)
            for entry in entries:
                *folders, name = entry.relative.split("/")
                where = _folder(opened, folders)
                if entry.kind == "link":
                    os.symlink(entry.target, name, dir_fd=where)
                else:
                    _write_file(where, name, next(remaining), entry.executable)
            for fd in opened.values():
                os.fchmod(fd, 0o555)  # sealed: read-only, walkable by the bots' users
        finally:
            for fd in opened.values():
                os.close(fd)
    finally:
        os.close(parent)


def _folder(opened: dict[str, int], parts: list[str]) -> int:
    """The descriptor of the folder ``parts`` in the copy, made one name at a time; a name
    that is a link (or anything but a folder) refuses the bundle (ELOOP / ENOTDIR)."""
    for depth in range(1, len(parts) + 1):
        path = "/".join(parts[:depth])
        if path in opened:
            continue
        above = opened["/".join(parts[:depth - 1])]
        try:
            os.mkdir(parts[depth - 1], 0o700, dir_fd=above)
        except FileExistsError:
            pass
        opened[path] = os.open(parts[depth - 1], _FOLDER_FLAGS, dir_fd=above)
    return opened["/".join(parts)]


def _write_file(folder_fd: int, name: str, data: bytes, executable: bool) -> None:
    fd = os.open(name, _FILE_FLAGS, 0o600, dir_fd=folder_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fchmod(fd, 0o555 if executable else 0o444)
    finally:
        os.close(fd)


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
