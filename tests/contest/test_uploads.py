"""Uploads: a zip of a folder becomes a bot; every unsafe or oversized upload is refused with a
clear message and nothing is written outside its folder."""

from __future__ import annotations

import io
import zipfile

import pytest

from arena.contest.uploads import UploadRefused, safe_filename, unpack
from contestkit import GOOD_BOT, zipped

LIMITS = dict(unpacked_bytes=1 << 20, files=100)


def refused(tmp_path, data: bytes, name: str = "bot.zip", **limits) -> str:
    upload = tmp_path / name
    upload.write_bytes(data)
    target = tmp_path / "target"
    with pytest.raises(UploadRefused) as refusal:
        unpack(upload, target, **{**LIMITS, **limits})
    outside = sorted(p.name for p in tmp_path.iterdir())
    assert outside == sorted([name, "target"]), f"something was written beside the target: {outside}"
    return str(refusal.value)


def test_a_zip_of_a_folder_unpacks_to_that_folder(tmp_path):
    upload = tmp_path / "mine.zip"
    upload.write_bytes(zipped({"mybot/bot.toml": 'command = "python3 bot.py"\n', "mybot/bot.py": GOOD_BOT,
                               "mybot/lib/helper.py": "X = 1\n"}))
    bot = unpack(upload, tmp_path / "target", **LIMITS)
    assert bot.name == "mybot" and (bot / "lib" / "helper.py").read_text() == "X = 1\n"


def test_a_path_that_climbs_out_is_refused(tmp_path):
    assert "leaves its folder" in refused(tmp_path, zipped({"../../evil.py": "x"}))


def test_an_absolute_path_is_refused(tmp_path):
    assert "absolute path" in refused(tmp_path, zipped({"/etc/evil": "x"}))


def test_a_link_is_refused(tmp_path):
    assert "link" in refused(tmp_path, zipped({"bot.py": "/etc/passwd"}, modes={"bot.py": 0o120777}))


def test_a_special_file_is_refused(tmp_path):
    assert "special file" in refused(tmp_path, zipped({"fifo": ""}, modes={"fifo": 0o010644}))


def _zip_with(*entries: tuple[zipfile.ZipInfo | str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name_or_info, content in entries:
            archive.writestr(name_or_info, content)
    return buffer.getvalue()


def test_a_zip_written_by_python_writestr_without_file_type_bits_unpacks(tmp_path):
    upload = tmp_path / "mine.zip"
    upload.write_bytes(_zip_with(("mybot/bot.toml", 'command = "python3 bot.py"\n'), ("mybot/bot.py", GOOD_BOT)))
    with zipfile.ZipFile(upload) as archive:
        assert {info.external_attr >> 16 for info in archive.infolist()} == {0o600}, "writestr's mode changed"
    bot = unpack(upload, tmp_path / "target", **LIMITS)
    assert (bot / "bot.py").read_bytes() == GOOD_BOT


def test_a_zip_made_on_windows_without_a_unix_mode_unpacks(tmp_path):
    def windows(name: str) -> zipfile.ZipInfo:
        info = zipfile.ZipInfo(name)
        info.create_system, info.external_attr = 0, 0x20 if not name.endswith("/") else 0x10  # MS-DOS archive/dir
        return info

    upload = tmp_path / "mine.zip"
    upload.write_bytes(_zip_with((windows("mybot/"), ""), (windows("mybot/bot.py"), GOOD_BOT)))
    bot = unpack(upload, tmp_path / "target", **LIMITS)
    assert bot.name == "mybot" and (bot / "bot.py").read_bytes() == GOOD_BOT


@pytest.mark.parametrize("kind", [0o020644, 0o060644, 0o140644], ids=["character-device", "block-device", "socket"])
def test_a_device_or_socket_is_refused(tmp_path, kind):
    assert "special file" in refused(tmp_path, zipped({"bot.py": "x"}, modes={"bot.py": kind}))


def test_the_web_precheck_refuses_what_unpack_refuses(tmp_path):
    from arena.contest.uploads import check_zip

    check_zip(io.BytesIO(_zip_with(("bot.py", GOOD_BOT))), **LIMITS)
    with pytest.raises(UploadRefused, match="link"):
        check_zip(io.BytesIO(zipped({"bot.py": "/etc/passwd"}, modes={"bot.py": 0o120777})), **LIMITS)
    with pytest.raises(UploadRefused, match="not a zip"):
        check_zip(io.BytesIO(b"not a zip"), **LIMITS)


def test_a_zip_bomb_is_refused_before_it_is_unpacked(tmp_path):
    assert "zip bomb" in refused(tmp_path, zipped({"zeros": b"\0" * (8 << 20)}), unpacked_bytes=64 << 20)


def test_more_than_the_unpacked_limit_is_refused(tmp_path):
    assert "unpacks to more than" in refused(tmp_path, zipped({"a": b"x" * 600_000, "b": bytes(range(256)) * 2400}))


def test_a_zip_that_lies_about_its_sizes_is_stopped_while_unpacking(tmp_path):
    data = bytearray(zipped({"a.txt": b"y" * 5000}))
    # Say 10 bytes in the central directory and in the local header: more comes out.
    archive = zipfile.ZipFile(io.BytesIO(bytes(data)))
    info = archive.infolist()[0]
    local = info.header_offset
    data[local + 22:local + 26] = (10).to_bytes(4, "little")
    central = bytes(data).rindex(b"PK\x01\x02")
    data[central + 24:central + 28] = (10).to_bytes(4, "little")
    message = refused(tmp_path, bytes(data))
    assert "more than it declares" in message or "damaged" in message


def test_100000_files_are_refused_before_any_is_written(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for number in range(100_001):
            archive.writestr(f"f{number}", b"")
    assert "100,001 entries" in refused(tmp_path, buffer.getvalue(), files=100_000)


def test_a_file_named_zip_that_is_not_one_is_refused(tmp_path):
    assert "not a zip file" in refused(tmp_path, b"hello")


def test_uploaded_names_are_sanitised():
    assert safe_filename("../../etc/<script>alert(1)</script>.py") == "script_.py"
    assert safe_filename("C:\\Users\\me\\bot.py") == "bot.py"
    assert safe_filename(".hidden") == "hidden" and safe_filename("") == "upload"
