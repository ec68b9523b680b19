"""Stored match logs read back exactly (`arena.results.matchread.unpack`): orjson where it
reads the same as the standard library, the standard library where it would not."""

from __future__ import annotations

import json
import zlib

import pytest

from arena.results.matchread import unpack


@pytest.mark.parametrize("value", [2 ** 64, -(2 ** 63) - 1, -(10 ** 18) * 9 - 9, 10 ** 30])
def test_an_integer_beyond_64_bits_in_a_log_is_read_back_exactly(value):
    log = [{"event": "start", "seed": 9044735297054665364}, {"event": "action", "action": {"bid": value}}]
    read = unpack(zlib.compress(json.dumps(log).encode()))
    assert read == log and type(read[1]["action"]["bid"]) is int


def test_a_log_with_a_63_bit_seed_and_a_nan_is_read_as_the_standard_library_reads_it():
    text = json.dumps([{"event": "start", "seed": 2 ** 63 - 1}, {"debug": float("nan"), "text": "\ud800"}])
    read = unpack(zlib.compress(text.encode("utf-8", "surrogatepass")))
    assert json.dumps(read) == text
