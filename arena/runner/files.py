"""A bot's files on disk: the content hash, clean copies, and removing any tree a bot made.

A bot is untrusted, and so is the folder it was submitted from. Copies are made without ever
following a link out of the bot's folder: a symlink must point inside it (it is kept, as a
relative link), and device files, FIFOs, sockets and hard links to other files are refused.
Copies are read-only (files 0444 or 0555, folders 0555).

`remove_tree` removes whatever a bot can leave behind — very deep or wide trees, symlinks
(never followed), odd names, folders without write or search permission — with a constant
number of open descriptors and no recursion.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

# Not part of a bot's content: caches and version control.
IGNORED_NAMES = frozenset({"__pycache__", ".git", ".DS_Store", ".hg", ".svn"})
IGNORED_SUFFIXES = (".pyc", ".pyo")
MAX_FILES = 20_000
MAX_BYTES = 512 << 20
_CHUNK = 1 << 16


class BotFilesError(ValueError):
    """A bot folder that cannot be copied safely; the message is one line for a user."""


def ignored(name: str) -> bool:
    return name in IGNORED_NAMES or name.endswith(IGNORED_SUFFIXES)


@dataclass(frozen=True)
class Entry:
    """One item of a bot: a regular file or a symlink, by its path relative to the bot."""

    relative: str           # POSIX path relative to the bot's folder ("" parts never)
    kind: str               # "file" | "link"
    executable: bool = False
    size: int = 0
    target: str = ""        # for links: the relative target


def scan(path: str | os.PathLike) -> tuple[Path, list[Entry]]:
    """The entries of the bot at ``path`` (a file or a folder), sorted, checked to be safe.

    Raises `BotFilesError` naming the first unsafe entry: a symlink leaving the folder, a
    device file, FIFO or socket, a hard link, or a folder beyond the size caps.
    """
    top = Path(os.path.abspath(path))
    try:
        info = os.stat(top)  # the top itself may be a link the user named on purpose
    except OSError as error:
        raise BotFilesError(f"cannot read {path}: {error.strerror}") from None
    if stat.S_ISREG(info.st_mode):
        return top, [_file_entry(top, top.name, info)]
    if not stat.S_ISDIR(info.st_mode):
        raise BotFilesError(f"{path} is not a regular file or a folder")
    root = Path(os.path.realpath(top))
    entries: list[Entry] = []
    total = 0
    for folder, dirs, names in os.walk(root, followlinks=False, onerror=_walk_error):
        dirs[:] = sorted(d for d in dirs if not ignored(d))
        for name in sorted(names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]):
            if ignored(name):
                continue
            full = os.path.join(folder, name)
            relative = os.path.relpath(full, root).replace(os.sep, "/")
            info = os.lstat(full)
            if stat.S_ISLNK(info.st_mode):
                entries.append(_link_entry(root, full, relative))
            elif stat.S_ISREG(info.st_mode):
                entries.append(_file_entry(Path(full), relative, info))
                total += info.st_size
            elif not stat.S_ISDIR(info.st_mode):
                raise BotFilesError(f"{relative} in {path} is a {_kind(info.st_mode)}; a bot may hold only "
                                    "regular files, folders and links inside its folder")
            if len(entries) > MAX_FILES:
                raise BotFilesError(f"{path} has more than {MAX_FILES} files")
            if total > MAX_BYTES:
                raise BotFilesError(f"{path} holds more than {MAX_BYTES >> 20} MiB")
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
    return root, sorted(entries, key=lambda e: e.relative)


def _walk_error(error: OSError) -> None:
    raise BotFilesError(f"cannot read {error.filename}: {error.strerror}")


def _kind(mode: int) -> str:
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device file"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def _file_entry(full: Path, relative: str, info: os.stat_result) -> Entry:
    if info.st_nlink > 1:
        # A hard link may name a file the submitter could not otherwise give us (say, one only
        # root can read): copying it would make a readable copy. Copy the file instead.
        raise BotFilesError(f"{relative} is a hard link ({info.st_nlink} names for one file); "
                            "replace it by a copy of the file")
    return Entry(relative, "file", bool(info.st_mode & stat.S_IXUSR), info.st_size)


def _link_entry(root: Path, full: str, relative: str) -> Entry:
    target = os.readlink(full)
    resolved = os.path.realpath(full)
    if resolved != str(root) and not resolved.startswith(str(root) + os.sep):
        raise BotFilesError(f"{relative} is a symlink to {target}, outside the bot's folder; "
                            "a bot may link only to its own files")
    if not os.path.exists(resolved):
        raise BotFilesError(f"{relative} is a symlink to {target}, which does not exist")
    kept = os.path.relpath(resolved, os.path.dirname(os.path.join(root, relative)))
    return Entry(relative, "link", target=kept.replace(os.sep, "/"))


def content_hash(path: str | os.PathLike) -> str:
    """sha256 over the bot's entries: names, executable bits, sizes, contents, link targets."""
    root, entries = scan(path)
    return _hash(root, entries, None)


def _header(entry: Entry) -> bytes:
    """What the content hash covers of an entry, before a file's bytes."""
    if entry.kind == "link":
        return f"{entry.relative}\0l\0{entry.target}\0".encode()
    return f"{entry.relative}\0{'x' if entry.executable else '-'}\0{entry.size}\0".encode()


def listing_hash(entries: list[Entry], contents: list[bytes]) -> str:
    """The content hash of a bot given as sorted entries and its files' bytes, in order (a
    bundle received from another machine), without writing anything."""
    digest = hashlib.sha256()
    files_bytes = iter(contents)
    for entry in entries:
        digest.update(_header(entry))
        if entry.kind == "file":
            digest.update(next(files_bytes))
    return digest.hexdigest()


def _hash(root: Path, entries: list[Entry], copy_to: Path | None) -> str:
    digest = hashlib.sha256()
    single = root.is_file()
    for entry in entries:
        source = root if single else root / entry.relative
        digest.update(_header(entry))
        if entry.kind == "link":
            if copy_to is not None:
                target = copy_to / entry.relative
                target.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(entry.target, target)
            continue
        out = None
        if copy_to is not None:
            target = copy_to / entry.relative
            target.parent.mkdir(parents=True, exist_ok=True)
            out = open(target, "xb")
        try:
            with open(source, "rb") as handle:
                for chunk in iter(lambda: handle.read(_CHUNK), b""):
                    digest.update(chunk)
                    if out is not None:
                        out.write(chunk)
        finally:
            if out is not None:
                out.close()
                os.chmod(target, 0o555 if entry.executable else 0o444)
    return digest.hexdigest()


def copy_bot(path: str | os.PathLike, destination: str | os.PathLike) -> str:
    """Copy the bot at ``path`` into the new folder ``destination``; returns its content hash.

    A file bot becomes ``destination/<its name>``; a folder bot's contents become
    ``destination``'s. The copy is read-only and readable by everyone (bots run as users of
    their own); hashing and copying read each file once, so the hash is of what was copied.
    """
    root, entries = scan(path)
    destination = Path(destination)
    destination.mkdir(mode=0o755)
    try:
        digest = _hash(root, entries, destination)
        seal(destination)
    except BaseException:
        remove_tree(destination)
        raise
    return digest


def seal(folder: Path) -> None:
    """Make every folder under ``folder`` read-only and walkable by everyone (deepest first)."""
    for current, dirs, _ in os.walk(folder, topdown=False):
        os.chmod(current, 0o555)


def unseal(folder: Path) -> None:
    """Let the owner write into a sealed folder again (to remove or build into it)."""
    for current, dirs, names in os.walk(folder):
        os.chmod(current, 0o755)


def remove_tree(path: str | os.PathLike) -> None:
    """Remove ``path`` and everything under it, never following a symlink; missing is fine.

    Walks down with one open folder at a time (``openat``), so depth costs memory for the
    names only, never recursion or descriptors; a folder without permissions is opened up
    first (the bot that made it is gone by then).
    """
    path = os.fspath(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(path)
        return
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    names: list[str] = []  # the path from ``path`` down to the open folder
    fd = _open_folder(path, flags, None)
    try:
        while True:
            child = _empty_or_first_subfolder(fd)
            if child is not None:
                try:
                    next_fd = _open_folder(child, flags, fd)
                except FileNotFoundError:
                    continue
                os.close(fd)
                fd, names = next_fd, names + [child]
                continue
            if not names:
                break
            parent = os.open("..", flags, dir_fd=fd)
            os.close(fd)
            fd = parent
            _retry_with_write(lambda: os.rmdir(names[-1], dir_fd=fd), fd)
            names.pop()
    finally:
        os.close(fd)
    parent_dir = os.path.dirname(os.path.abspath(path)) or "/"
    try:
        os.rmdir(path)
    except PermissionError:
        os.chmod(parent_dir, os.stat(parent_dir).st_mode | stat.S_IWUSR | stat.S_IXUSR)
        os.rmdir(path)


def _open_folder(name: str, flags: int, dir_fd: int | None) -> int:
    try:
        return os.open(name, flags, dir_fd=dir_fd)
    except PermissionError:
        os.chmod(name, 0o700, dir_fd=dir_fd)  # a folder the bot made unreadable
        return os.open(name, flags, dir_fd=dir_fd)


def _empty_or_first_subfolder(fd: int) -> str | None:
    """Unlink every non-folder in the open folder; return a subfolder's name, if any is left."""
    with os.scandir(fd) as listing:
        entries = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in listing]
    for name, is_folder in entries:
        if is_folder:
            return name
        _retry_with_write(lambda: os.unlink(name, dir_fd=fd), fd)
    return None


def _retry_with_write(operation, fd: int) -> None:
    try:
        operation()
    except FileNotFoundError:
        pass
    except PermissionError:
        os.fchmod(fd, 0o700)  # a read-only folder: its owner may make it writable again
        operation()
    except OSError as error:
        if error.errno != errno.ENOENT:
            raise
