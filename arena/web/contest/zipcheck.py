"""The web's look at an uploaded zip before it goes into the inbox: its directory only (names,
links, sizes, entry count), with the core's rules (`arena.contest.uploads`), so a bad zip is
refused on the page at once and never stored. Nothing is unpacked here; the runner unpacks
(and checks again, counting the bytes actually written)."""

from __future__ import annotations

import zipfile

from arena.contest.uploads import UploadRefused, _checked_members


def check_zip(file, unpacked_bytes: int, files: int) -> None:
    """`UploadRefused` when the zip in the binary ``file`` would be refused."""
    try:
        with zipfile.ZipFile(file) as archive:
            _checked_members(archive, unpacked_bytes, files)
    except zipfile.BadZipFile as error:
        raise UploadRefused(f"this is not a zip file, or a damaged one ({error})") from None
