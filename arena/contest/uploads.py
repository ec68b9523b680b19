"""An upload becomes a bot: a single file as it is, or a zip of a folder unpacked — refusing
anything unsafe, each refusal one clear line (`UploadRefused`).

A zip is checked entry by entry before anything is written (`check_zip`, which the web also
calls on an upload before storing it): at most ``files`` entries; no absolute paths, no ``..``,
no links or special files, no encrypted entries; declared sizes
within ``unpacked_bytes`` in total and no entry packed more than `MAX_RATIO` to one (a zip
bomb). While unpacking, the bytes actually written are counted against the same limits (a
zip's declared sizes may lie). Every file is created fresh (``O_EXCL | O_NOFOLLOW``) inside the
target folder, whose path is checked component by component: nothing is written elsewhere.
"""

from __future__ import annotations

import os
import stat
import unicodedata
import zipfile
from pathlib import Path, PurePosixPath

MAX_NAME = 100
MAX_RATIO = 200          # uncompressed / compressed, per entry larger than RATIO_FLOOR
RATIO_FLOOR = 1 << 20
MAX_DEPTH = 32
CHUNK = 1 << 16


class UploadRefused(Exception):
    """The upload cannot be a bot; the message says why in one line."""


def safe_filename(name: str) -> str:
    """A plain file name from what a browser sent: no folders, no control characters, no
    leading dot, at most `MAX_NAME` characters (a name with nothing left is ``upload``)."""
    base = unicodedata.normalize("NFC", str(name or "")).replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = "".join(c if (c.isalnum() or c in "._-+") else "_" for c in base).lstrip(".")
    if len(cleaned) > MAX_NAME:
        stem, dot, suffix = cleaned.rpartition(".")
        cleaned = (stem[:MAX_NAME - len(suffix) - 1] + "." + suffix) if dot and len(suffix) < 12 else cleaned[:MAX_NAME]
    return cleaned or "upload"


def is_zip_name(name: str) -> bool:
    return name.lower().endswith(".zip")


def unpack(upload: Path, target: Path, unpacked_bytes: int, files: int) -> Path:
    """Put the bot from ``upload`` (a file, or a ``.zip``) into the empty folder ``target``;
    returns the bot's path: the file, or the folder (the zip's single top folder, if it has
    one and nothing beside it)."""
    target.mkdir(parents=True, exist_ok=True)
    target = target.resolve()
    if not is_zip_name(upload.name):
        bot = target / safe_filename(upload.name)
        _copy_file(upload, bot, unpacked_bytes)
        return bot
    if not zipfile.is_zipfile(upload):
        raise UploadRefused(f"{upload.name} is not a zip file (send a single bot file or a zip of its folder)")
    try:
        with zipfile.ZipFile(upload) as archive:
            members = _checked_members(archive, unpacked_bytes, files)
            folder = target / "bot"
            folder.mkdir()
            _extract(archive, members, folder, unpacked_bytes)
    except zipfile.BadZipFile as error:
        raise UploadRefused(f"{upload.name} is a damaged zip file ({error})") from None
    except (NotImplementedError, RuntimeError) as error:  # an unknown compression method, say
        raise UploadRefused(f"{upload.name} cannot be unpacked ({error})") from None
    children = list(folder.iterdir())
    if len(children) == 1 and children[0].is_dir() and not children[0].is_symlink():
        return children[0]
    if not children:
        raise UploadRefused(f"{upload.name} holds no files")
    return folder


def check_zip(file, unpacked_bytes: int, files: int) -> None:
    """`UploadRefused` when the zip in ``file`` (a path or a binary file) would be refused by
    `unpack`'s checks of its directory (names, links, sizes, entry count). Nothing is unpacked;
    `unpack` checks again and also counts the bytes actually written."""
    try:
        with zipfile.ZipFile(file) as archive:
            _checked_members(archive, unpacked_bytes, files)
    except zipfile.BadZipFile as error:
        raise UploadRefused(f"this is not a zip file, or a damaged one ({error})") from None


def _checked_members(archive: zipfile.ZipFile, unpacked_bytes: int, files: int) -> list[tuple[zipfile.ZipInfo, tuple]]:
    infos = archive.infolist()
    if len(infos) > files:
        raise UploadRefused(f"the zip holds {len(infos):,} entries; the limit is {files:,} files")
    total, members, seen = 0, [], set()
    for info in infos:
        parts = _safe_parts(info.filename)
        kind = stat.S_IFMT(info.external_attr >> 16) if info.create_system == 3 else 0
        # Made on Unix, the mode's type bits say what the entry is. No type bits (Python's
        # `writestr(name, data)` writes 0o600 alone) or no Unix mode at all (made on Windows,
        # create_system 0) is a plain file, or a folder when the name ends with "/".
        if kind:
            if stat.S_ISLNK(kind):
                raise UploadRefused(f"the zip holds a link ({_shown(info.filename)}); links are not allowed")
            if not (stat.S_ISREG(kind) or stat.S_ISDIR(kind)):
                raise UploadRefused(f"the zip holds a special file ({_shown(info.filename)}); only files and folders"
                                    " are allowed")
        if info.flag_bits & 0x1:
            raise UploadRefused(f"the zip's entry {_shown(info.filename)} is encrypted")
        if info.is_dir():
            members.append((info, parts))
            continue
        key = tuple(p.casefold() for p in parts)
        if key in seen:
            raise UploadRefused(f"the zip holds {_shown(info.filename)} twice")
        seen.add(key)
        total += info.file_size
        if total > unpacked_bytes:
            raise UploadRefused(f"the zip unpacks to more than the limit of {unpacked_bytes >> 20} MiB")
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise UploadRefused(f"the zip's entry {_shown(info.filename)} is packed more than {MAX_RATIO} to 1"
                                " (a zip bomb?)")
        members.append((info, parts))
    return members


def _safe_parts(name: str) -> tuple[str, ...]:
    if "\0" in name:
        raise UploadRefused("the zip holds a name with a NUL character")
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise UploadRefused(f"the zip holds an absolute path ({_shown(name)})")
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if any(part == ".." for part in parts):
        raise UploadRefused(f"the zip holds a path that leaves its folder ({_shown(name)})")
    parts = tuple(part for part in parts if part not in ("", "."))
    if not parts:
        raise UploadRefused(f"the zip holds an entry without a name ({_shown(name)})")
    if len(parts) > MAX_DEPTH:
        raise UploadRefused(f"the zip's folders nest more than {MAX_DEPTH} deep ({_shown(name)})")
    cleaned = []
    for part in parts:
        part = unicodedata.normalize("NFC", part)
        part = "".join(c if (c.isalnum() or c in "._-+ ") else "_" for c in part)[:255]
        cleaned.append(part)
    return tuple(cleaned)


def _extract(archive: zipfile.ZipFile, members, folder: Path, unpacked_bytes: int) -> None:
    written = 0
    for info, parts in members:
        path = folder.joinpath(*parts)
        _inside(folder, path)
        if info.is_dir():
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        _inside(folder, path.parent.resolve())
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(descriptor, "wb") as out, archive.open(info) as source:
            own = 0
            while chunk := source.read(CHUNK):
                own += len(chunk)
                written += len(chunk)
                if own > info.file_size or written > unpacked_bytes:
                    raise UploadRefused(f"the zip unpacks to more than it declares or than the limit of"
                                        f" {unpacked_bytes >> 20} MiB (a zip bomb?)")
                out.write(chunk)
        mode = info.external_attr >> 16
        if info.create_system == 3 and mode & 0o111:
            os.chmod(path, 0o755)  # an executable bot stays executable


def _inside(folder: Path, path: Path) -> None:
    try:
        path.relative_to(folder)
    except ValueError:
        raise UploadRefused(f"the zip's entry {_shown(str(path))} would be written outside its folder") from None


def _copy_file(source: Path, destination: Path, limit: int) -> None:
    descriptor = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755)
    with os.fdopen(descriptor, "wb") as out, open(source, "rb") as data:
        size = 0
        while chunk := data.read(CHUNK):
            size += len(chunk)
            if size > limit:
                raise UploadRefused(f"the file is larger than the limit of {limit >> 20} MiB")
            out.write(chunk)


def _shown(name: str) -> str:
    from arena.text import printable

    return repr(printable(name, False)[:120])
