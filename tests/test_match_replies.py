"""Reply parsing (protocol v1): what a bot's answer line may look like."""

import pytest

from arena.runner.match import ReplyError, parse_ready, parse_reply

LEGAL = [{"type": "take", "amount": 1}, {"type": "take", "amount": 2}]


def test_reply_by_value():
    assert parse_reply(b'{"type": "action", "action": {"type": "take", "amount": 2}}', LEGAL) == (LEGAL[1], None)


def test_reply_by_index():
    assert parse_reply(b'{"type": "action", "index": 1}', LEGAL) == (LEGAL[1], None)


def test_reply_type_may_be_left_out_and_debug_is_returned():
    assert parse_reply(b'{"index": 0, "debug": "why"}', LEGAL) == (LEGAL[0], "why")


@pytest.mark.parametrize("line,reason", [
    (b"take 2", "not valid JSON"),
    (b"\xff\xfe", "not UTF-8"),
    (b"[1, 2]", "must be a JSON object"),
    (b'{"type": "move", "index": 0}', "reply type must be"),
    (b'{"index": 0, "action": {}}', "exactly one of"),
    (b'{}', "exactly one of"),
    (b'{"index": 2}', "from 0 to 1"),
    (b'{"index": -1}', "from 0 to 1"),
    (b'{"index": true}', "from 0 to 1"),
    (b'{"index": 0.0}', "from 0 to 1"),
    (b'{"index": 0, "debug": 5}', "'debug' must be a string"),
])
def test_malformed_reply_is_refused_with_a_reason(line, reason):
    with pytest.raises(ReplyError, match=reason):
        parse_reply(line, LEGAL)


def test_index_needs_a_legal_list():
    with pytest.raises(ReplyError, match="only allowed when the request lists legal actions"):
        parse_reply(b'{"index": 0}', None)


def test_ready_must_say_ready():
    parse_ready(b'{"type": "ready", "name": "x"}')
    with pytest.raises(ReplyError):
        parse_ready(b'{"type": "action"}')


# The fast reader (orjson) must read every line exactly as the standard library does, and refuse
# what it refuses: huge integers stay integers, floats keep their value, deep or surrogate
# lines are refused the same way.
EXACT_LINES = [b'{"index": 1}', b'{"action": {"type": "take", "amount": 123456789012345678901234567890}}',
               b'{"index": 1.0}', b'{"action": {"amount": 2.5e-7}}', b'{"index": -0}', b'{"debug": "\\u00e9"}',
               b'{"a": [[[[[[[[[[1]]]]]]]]]]}', b'{"index": 1, "index": 0}', b' {"index": 0} ', b'[]',
               b'{"index": 1e400}']


@pytest.mark.parametrize("line", EXACT_LINES)
def test_fast_reader_reads_like_the_standard_library(line):
    import json

    from arena.runner.protocol import decode_line
    value = decode_line(line, "reply")
    assert json.dumps(value) == json.dumps(json.loads(line)) and type(value) is type(json.loads(line))


@pytest.mark.parametrize("line,reason", [
    (b"[" * 65 + b"]" * 65, "nested deeper"),
    (b'{"debug": "\\ud800"}', "lone UTF-16 surrogate"),
    (b'{"index": NaN}', "not valid JSON"),
    (b'{"index": 0} {"index": 1}', "not valid JSON"),
])
def test_fast_reader_refuses_what_the_standard_library_refuses(line, reason):
    from arena.runner.protocol import decode_line
    with pytest.raises(ReplyError, match=reason):
        decode_line(line, "reply")
