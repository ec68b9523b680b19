"""A stored log is read back exactly: orjson where it reads the same as the standard library,
the standard library for integers orjson would turn into floats."""

from __future__ import annotations

import json
import zlib

import pytest

from arena.results.matchread import unpack


@pytest.mark.parametrize("number", [3879550220914428443, 2**64 - 1, 2**64, 10**25, -2**63, -2**63 - 1, -10**19])
def test_an_integer_of_any_size_is_read_back_exactly(number):
    value = unpack(zlib.compress(json.dumps([{"seed": number}]).encode()))
    assert value == [{"seed": number}] and type(value[0]["seed"]) is int
