"""What a build leaves: its folder leaves the build's sandbox as a tar stream, and `unpack`
writes it into a new folder on the host — at most ``cap`` bytes of stream, nothing outside the
folder and nothing through a link.

The stream is the untrusted build's work, so it is read as hostile: every path is opened one
component at a time beneath the folder with ``O_NOFOLLOW`` (a link the stream made can never
redirect a later entry), files are created exclusively, and only regular files, folders and
symlinks whose target stays inside the folder are accepted (hard links are sent as files).
"""

from __future__ import annotations

import os
import posixpath
import tarfile
from pathlib import Path

from arena.runner.files import MAX_FILES

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_CHUNK = 1 << 16


class OutputTooLarge(Exception):
    """The stream went over its cap."""


class BadOutput(Exception):
    """The stream holds something that cannot be stored (the message names it)."""


class _Capped:
    """A reader that counts what it gives and refuses to give more than ``cap`` bytes."""

    def __init__(self, raw, cap: int):
        self.raw, self.cap, self.count = raw, cap, 0

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size if size is not None and size >= 0 else _CHUNK)
        self.count += len(data)
        if self.count > self.cap:
            raise OutputTooLarge(f"more than {self.cap} bytes")
        return data


def unpack(stream, destination: Path, cap: int) -> int:
    """Write the tar ``stream`` into the new folder ``destination``; returns the stream's size.

    Raises `OutputTooLarge` past ``cap`` bytes, `BadOutput` for anything that cannot be stored."""
    capped = _Capped(stream, cap)
    destination.mkdir(mode=0o755)
    root = os.open(destination, _DIR_FLAGS)
    entries = 0
    try:
        try:
            archive = tarfile.open(fileobj=capped, mode="r|")
        except tarfile.TarError as error:
            raise BadOutput(f"its output is not a tar stream ({error})") from None
        with archive:
            try:
                for member in archive:
                    entries += 1
                    if entries > MAX_FILES + 1:
                        raise BadOutput(f"it left more than {MAX_FILES} files")
                    _write(archive, member, root)
            except tarfile.TarError as error:
                raise BadOutput(f"its output is not a tar stream ({error})") from None
        while capped.read(_CHUNK):  # the end-of-archive padding
            pass
    finally:
        os.close(root)
    return capped.count


def _parts(name: str) -> list[str]:
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if name.startswith("/") or ".." in parts or any("\0" in part for part in parts):
        raise BadOutput(f"a path outside its folder: {name!r}")
    return parts


def _write(archive: tarfile.TarFile, member: tarfile.TarInfo, root: int) -> None:
    parts = _parts(member.name)
    if not parts:
        if member.isdir():
            return  # the folder itself
        raise BadOutput(f"a file without a name: {member.name!r}")
    parent = _open_parent(root, parts[:-1])
    try:
        name = parts[-1]
        if member.isdir():
            try:
                os.mkdir(name, 0o755, dir_fd=parent)
            except FileExistsError:
                os.close(os.open(name, _DIR_FLAGS, dir_fd=parent))  # a folder, not a link to one
        elif member.isreg():
            source = archive.extractfile(member)
            mode = 0o755 if member.mode & 0o100 else 0o644
            try:
                fd = os.open(name, _FILE_FLAGS, mode, dir_fd=parent)
            except FileExistsError:
                raise BadOutput(f"{member.name!r} twice") from None
            with os.fdopen(fd, "wb") as target:
                while chunk := source.read(_CHUNK):
                    target.write(chunk)
        elif member.issym():
            target = member.linkname
            inside = posixpath.normpath(posixpath.join(*parts[:-1], target)) if parts[:-1] else posixpath.normpath(target)
            if target.startswith("/") or inside == ".." or inside.startswith("../"):
                raise BadOutput(f"a symlink out of its folder: {member.name!r} -> {target!r}")
            os.symlink(target, name, dir_fd=parent)
        else:
            raise BadOutput(f"not a file, folder or symlink: {member.name!r}")
    except OSError as error:
        raise BadOutput(f"cannot write {member.name!r}: {error.strerror}") from None
    finally:
        if parent != root:
            os.close(parent)


def _open_parent(root: int, parts: list[str]) -> int:
    """The folder ``parts`` beneath ``root``, made where missing, never through a link."""
    fd = root
    try:
        for part in parts:
            try:
                os.mkdir(part, 0o755, dir_fd=fd)
            except FileExistsError:
                pass
            following = os.open(part, _DIR_FLAGS, dir_fd=fd)
            if fd != root:
                os.close(fd)
            fd = following
    except OSError as error:
        if fd != root:
            os.close(fd)
        raise BadOutput(f"cannot make the folder {'/'.join(parts)!r}: {error.strerror}") from None
    return fd
