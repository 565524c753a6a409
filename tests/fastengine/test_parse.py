"""The fast engine's parse of a session file keeps what `JSON.parse` does its own way.

`ctxspec.fastengine.session.parse_session_entries` parses the lines as one array with Python's
`json`; the reference parses line by line. On files full of what a faster parser would
get wrong (benchmarks/json_parsers.py): lone surrogates, duplicate keys, numbers past a
double, `-0`, NaN and Infinity (not JSON), and the lines Pi skips, both give the same
entries and skipped lines.
"""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ctxspec.fastengine import session as fast_session
from ctxspec.reference import session_file
from ctxspec.reference._utf16 import JS_SPACE

# JSON texts of strings and numbers a parser may read otherwise than JSON.parse
_STRINGS = st.sampled_from(
    [
        r'"\ud800"',  # a lone high surrogate, kept as one code unit
        r'"\udfff x"',
        r'"\udc00\ud83d\ude42"',  # a lone low one, then a pair
        r'"\ud83d"',
        '"\u2028é"',  # raw line and paragraph separators are allowed in JSON strings
        r'"a\u0000b"',
        '""',
    ]
)
_NUMBERS = st.sampled_from(
    [
        "1e400",  # Infinity
        "-1e400",
        "1e-400",  # 0
        "123456789012345678901234567890",
        "18446744073709551616",
        "9007199254740993",
        "-0",
        "-0.0",
        "1.0",
        "1E5",
    ]
)
_NOT_JSON = st.sampled_from(["NaN", "Infinity", "-Infinity"])  # Python's, not JSON: skipped
# lines parseSessionEntries skips (or reads as a value that is no entry)
_ODD_LINES = st.sampled_from(
    [
        '{"a":1,}',
        "{'a':1}",
        '{"a":"x\ty"}',  # a raw tab in a string
        '{"a":1} x',
        '\u00a0{"a":1}',  # a no-break space is no JSON whitespace
        '{"a":',
        "   ",
        "null",
        '"s"',
        "[1,2]",
        '{"a":"\\x"}',
    ]
)
_KEYS = st.sampled_from(["id", "type", "parentId", "n", "s"])  # duplicates of the first ones


@st.composite
def _entry_lines(draw: st.DrawFn, *, clean: bool) -> str:
    """An entry's line whose members repeat keys and hold odd strings and numbers (and,
    unless `clean`, a constant that is no JSON)."""
    members = ['"type":"message"', f'"id":"{draw(st.text("abc", min_size=1, max_size=3))}"']
    values = _STRINGS | _NUMBERS | st.just('{"x":1,"x":[2]}') | st.just("null")
    for _ in range(draw(st.integers(0, 4))):
        value = draw(values if clean else values | _NOT_JSON)
        members.append(f'"{draw(_KEYS)}":{value}')
    order = draw(st.permutations(members))
    return "{" + ",".join(order) + "}"


@st.composite
def _files(draw: st.DrawFn, *, clean: bool = False) -> str:
    """A session file's text; `clean`: every line JSON, so the fast engine parses the file
    at once (a line that is not JSON sends the whole file to the reference's parse)."""
    lines = _entry_lines(clean=clean) if clean else _entry_lines(clean=False) | _ODD_LINES
    end = draw(st.sampled_from(["", "\n"]))
    return draw(st.sampled_from(["\n", "\r\n"])).join(draw(st.lists(lines, max_size=12))) + end


def _same_parse(text: str) -> None:
    """Same entries (repr tells 1 from 1.0, -0.0 from 0.0, and the order of keys) and the
    same skipped lines, whichever way the file was parsed: the one C pass over the lines
    (`_json.lines`) where it takes the file, the lines as one array, line by line."""
    expected = repr(session_file.parse_session_entries(text))
    assert repr(fast_session.parse_session_entries(text)) == expected
    with mock.patch.object(fast_session, "_C_LINES", None):
        assert repr(fast_session.parse_session_entries(text)) == expected


@pytest.mark.skipif(fast_session._C_ARRAY is None, reason="the C pass is not built")
@given(_files(clean=True))
@example('{"type":"message","id":"a","id":"b","n":1e400}\n{"s":"\\ud800","s":-0}\n')
def test_the_file_parsed_at_once_is_the_references(text: str) -> None:
    """Every line JSON: the fast engine's one parse of the whole file."""
    assert fast_session._parse_together(text) is not None
    _same_parse(text)


@given(_files())
@example('{"n":NaN}\n{"n":123456789012345678901234567890}\n{"a":1,}')
def test_the_fast_parse_is_the_references(text: str) -> None:
    """Any lines, those Pi skips among them."""
    _same_parse(text)


# JSON values of every kind json reads, strings of any character (surrogates and control
# characters among them), numbers past a double and ints past 18 digits
_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec=None), max_size=8),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text('aéb\U0001f642"\\\n', max_size=3), children, max_size=4)
    ),
    max_leaves=12,
)
_SPACE = st.sampled_from(["", " ", "\t", "\r", " \r"])
_C_LINES = fast_session._C_LINES


def _by_line(text: str) -> tuple[Any, ...]:
    """json.loads of each line of the trimmed text but the blank ones (what the reference
    parses when every line is JSON)."""
    lines = text.strip(JS_SPACE).split("\n")
    return tuple(json.loads(line) for line in lines if line.strip(JS_SPACE))


@pytest.mark.skipif(_C_LINES is None, reason="the C pass is not built")
@given(st.lists(st.tuples(_VALUES, st.booleans(), _SPACE, _SPACE), max_size=6), st.booleans())
@example([({"a": [-0.0, 1e300, 10**20, '\u00e9\n"\\\u2028']}, True, " ", "\r")], True)
def test_the_one_pass_gives_json_values(lines: list[Any], blank: bool) -> None:
    """Lines json.dumps wrote (escaped or not, spaced, blank lines between): the values of
    json.loads line by line, the same types and digits (repr), the keys shared; None only
    only for a lone surrogate (escaped, json keeps it; raw, a str holding one has no UTF-8)."""
    written = [
        f"{before}{json.dumps(value, ensure_ascii=ascii_only)}{after}"
        for value, ascii_only, before, after in lines
    ]
    text = ("\n\n" if blank else "\n").join(written)
    assert _C_LINES is not None
    found = _C_LINES(text)
    if found is None:
        held = json.dumps([value for value, *_ in lines], ensure_ascii=False)
        assert any(0xD800 <= ord(c) <= 0xDFFF for c in held)
        return
    assert repr(found) == repr(_by_line(text))


# text near JSON: a parse that succeeds must be json's, line by line
_NEAR_JSON = st.lists(
    st.sampled_from(
        [
            *'{}[]:,"\\ \t\r\n0123456789-+.eEtrufalsn\u00e9x',
            *("u00e9", "ud800", "udc00", "NaN", "Infinity", "\u00a0", "\x01", "1e400"),
        ]
    ),
    max_size=40,
).map("".join)


@pytest.mark.skipif(_C_LINES is None, reason="the C pass is not built")
@given(_NEAR_JSON | _files(clean=False))
@example('{"a":1}\n[1,\n2]')  # a value across lines: each line alone is no JSON
@example('{"a":01}')
@example('"a\\u00e9\\/"\n\u00a0\n1')
def test_the_one_pass_takes_only_json(text: str) -> None:
    """Whatever the text, a value the pass gives is json.loads of each line, every line
    JSON; anything else is None (and the general path decides)."""
    assert _C_LINES is not None
    found = _C_LINES(text)
    if found is None:
        return
    assert repr(found) == repr(_by_line(text))
    assert repr(fast_session.parse_session_entries(text)) == repr(
        session_file.parse_session_entries(text)
    )
