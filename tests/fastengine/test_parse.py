"""The fast engine's parse of a session file keeps what `JSON.parse` does its own way.

`fastengine.session.parse_session_entries` parses the lines as one array with Python's
`json`; the reference parses line by line. On files full of what a faster parser would
get wrong (benchmarks/json_parsers.py): lone surrogates, duplicate keys, numbers past a
double, `-0`, NaN and Infinity (not JSON), and the lines Pi skips, both give the same
entries and skipped lines.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fastengine import session as fast_session
from reference import session

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
    same skipped lines, whichever way the file was parsed."""
    assert repr(fast_session.parse_session_entries(text)) == repr(
        session.parse_session_entries(text)
    )


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
