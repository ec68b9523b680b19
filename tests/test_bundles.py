"""Bot bundles (the copies sent to Dask workers): a bundle, however made, cannot write outside
the folder it is unpacked in, and a bundle whose hash is wrong writes nothing at all."""

from __future__ import annotations

import hashlib
import os
import stat
import zlib
from pathlib import Path

import pytest

from arena.runner import files
from arena.tournament.executors import bundles


def make_bundle(entries: list, contents: dict[str, bytes] | None = None, name: str = "evil", folder: bool = True) -> dict:
    """A bundle as an attacker would make it: any entries, any bytes."""
    contents = contents or {}
    data = b"".join(contents.get(entry[0], b"") for entry in entries if entry[1] == "file")
    return {"format": bundles.FORMAT, "name": name, "folder": folder, "entries": entries,
            "data": zlib.compress(data)}


def its_hash(bundle: dict) -> str:
    """The hash the bundle itself has (the content hash's format, written out here): as if the
    attacker also chose the hash the match expects."""
    digest = hashlib.sha256()
    data, offset = zlib.decompress(bundle["data"]), 0
    for relative, kind, executable, size, target in bundle["entries"]:
        if kind == "link":
            digest.update(f"{relative}\0l\0{target}\0".encode())
        else:
            digest.update(f"{relative}\0{'x' if executable else '-'}\0{size}\0".encode())
            digest.update(data[offset:offset + size])
            offset += size
    return digest.hexdigest()


@pytest.fixture
def places(tmp_path):
    """A destination four folders down, and a folder outside it that must stay empty."""
    outside = tmp_path / "outside"
    outside.mkdir()
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    return deep / "copy", outside


def nothing_written(destination: Path, outside: Path) -> bool:
    return not destination.exists() and not destination.is_symlink() and list(outside.iterdir()) == [] \
        and list(destination.parent.iterdir()) == []


def test_a_chain_of_its_own_links_cannot_lead_a_file_outside(places):
    destination, outside = places
    # d -> . ; x -> d/d/d/d/../../../../outside  (inside by its text: depth never below 0)
    # then a file under x/: through the links it is <tmp>/outside/pwned.
    payload = b"written outside\n"
    bundle = make_bundle([["d", "link", False, 0, "."],
                          ["x", "link", False, 0, "d/d/d/d/../../../../outside"],
                          ["x/pwned", "file", False, len(payload), ""]], {"x/pwned": payload})
    with pytest.raises(bundles.BundleRefused, match=r"^bot evil "):
        bundles.unpack(bundle, its_hash(bundle), destination)
    assert nothing_written(destination, outside)


def test_a_link_that_leaves_through_another_link_is_refused_before_anything_is_written(places, monkeypatch):
    destination, outside = places
    writes = []
    monkeypatch.setattr(bundles, "_write", lambda *args: writes.append(args))
    bundle = make_bundle([["up", "link", False, 0, "y/y/y/y/../../../../outside"], ["y", "link", False, 0, "."]])
    with pytest.raises(bundles.BundleRefused, match="points outside the copy"):
        bundles.unpack(bundle, its_hash(bundle), destination)
    assert writes == [] and nothing_written(destination, outside)


def test_the_writer_itself_never_follows_a_link(places, monkeypatch):
    """Even with the listing checks switched off, files are created through descriptors
    opened without following links: the bundle is refused and nothing lands outside."""
    destination, outside = places
    monkeypatch.setattr(bundles, "_check_tree", lambda entries: None)
    payload = b"x"
    bundle = make_bundle([["x", "link", False, 0, "../../../../outside"],
                          ["x/pwned", "file", False, 1, ""]], {"x/pwned": payload})
    with pytest.raises(bundles.BundleRefused, match="cannot unpack it"):
        bundles.unpack(bundle, its_hash(bundle), destination)
    assert nothing_written(destination, outside)


@pytest.mark.parametrize("relative", ["../escape.py", "a/../../escape.py", "a/./b.py", "a//b.py", "..", ".",
                                      "/tmp/escape.py", "/etc/passwd", "a/\0b"])
def test_dot_dot_absolute_and_odd_names_are_refused_before_anything_is_written(places, relative):
    destination, outside = places
    bundle = make_bundle([[relative, "file", False, 1, ""]], {relative: b"x"})
    with pytest.raises(bundles.BundleRefused, match="is not a safe path"):
        bundles.unpack(bundle, its_hash(bundle), destination)
    assert nothing_written(destination, outside)


@pytest.mark.parametrize("name", ["../evil", "/tmp/evil", "..", "a/b", ""])
def test_a_bad_bundle_name_is_refused(places, name):
    destination, outside = places
    bundle = make_bundle([["main.py", "file", False, 1, ""]], {"main.py": b"x"}, name=name)
    with pytest.raises(bundles.BundleRefused, match="malformed"):
        bundles.unpack(bundle, "0" * 64, destination)
    assert nothing_written(destination, outside)


@pytest.mark.parametrize("kind", ["hardlink", "device", "char", "block", "fifo", "socket", "dir"])
def test_hard_links_devices_and_other_kinds_are_refused(places, kind):
    destination, outside = places
    bundle = make_bundle([["main.py", "file", False, 1, ""], ["other", kind, False, 0, "main.py"]],
                         {"main.py": b"x"})
    with pytest.raises(bundles.BundleRefused, match="not a regular file or a link"):
        bundles.unpack(bundle, its_hash(bundle), destination)
    assert nothing_written(destination, outside)


def test_an_unpacked_copy_holds_only_regular_files_with_one_name_folders_and_links(tmp_path):
    bot = tmp_path / "bot"
    (bot / "lib").mkdir(parents=True)
    (bot / "main.py").write_text("print(1)\n")
    (bot / "lib" / "x.py").write_text("X = 1\n")
    os.symlink("../main.py", bot / "lib" / "main.py")
    digest = files.content_hash(bot)
    copy = tmp_path / "copy"
    assert bundles.unpack(bundles.pack(bot), digest, copy) == digest
    for folder, names, file_names in os.walk(copy):
        for name in file_names:
            info = os.lstat(os.path.join(folder, name))
            assert stat.S_ISLNK(info.st_mode) or (stat.S_ISREG(info.st_mode) and info.st_nlink == 1)
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o555


def test_a_hash_mismatch_writes_nothing_at_all(places, monkeypatch):
    destination, outside = places
    writes = []
    monkeypatch.setattr(bundles, "_write", lambda *args: writes.append(args))
    bundle = make_bundle([["main.py", "file", False, 5, ""]], {"main.py": b"hello"})
    with pytest.raises(bundles.BundleRefused, match="a damaged transfer, refused"):
        bundles.unpack(bundle, "0" * 64, destination)
    assert writes == [] and nothing_written(destination, outside)


def test_a_decompression_bomb_is_refused_without_inflating_it(places):
    destination, outside = places
    bundle = {**make_bundle([["main.py", "file", False, 10, ""]], {"main.py": b"0123456789"}),
              "data": zlib.compress(b"\0" * (64 << 20))}
    with pytest.raises(bundles.BundleRefused, match="not the 10 bytes"):
        bundles.unpack(bundle, "0" * 64, destination)
    assert nothing_written(destination, outside)


def test_entries_out_of_order_twice_or_beneath_a_file_are_refused(places):
    destination, outside = places
    for entries, contents in (
            ([["b.py", "file", False, 1, ""], ["a.py", "file", False, 1, ""]], {"a.py": b"a", "b.py": b"b"}),
            ([["a.py", "file", False, 1, ""], ["a.py", "file", False, 1, ""]], {"a.py": b"a"}),
            ([["a.py", "file", False, 1, ""], ["a.py/b.py", "file", False, 1, ""]], {"a.py": b"a", "a.py/b.py": b"b"})):
        bundle = make_bundle(entries, contents)
        with pytest.raises(bundles.BundleRefused):
            bundles.unpack(bundle, its_hash(bundle), destination)
        assert nothing_written(destination, outside)
