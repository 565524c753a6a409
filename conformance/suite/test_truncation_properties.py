"""Properties of head/tail/line truncation and formatSize, for any implementation.

Invariants need no oracle (corpora/README.md lists them); the differential tests compare
the implementation under test with the reference engine on the same generated input.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxspec.conformance.judging.check import result_of
from ctxspec.conformance.strategies.text import limits_near, line_limit, texts
from ctxspec.conformance.suite.differential import same_as_reference
from ctxspec.conformance.transport.base import Implementation
from ctxspec.reference import _utf8
from ctxspec.reference._utf16 import canonical, code_units, has_surrogates

B1 = "multibyte_cuts"
TRUNCATE_OPS = ("truncate.head", "truncate.tail")


def _call(impl: Implementation, op: str, args: dict[str, Any]) -> Any:
    return result_of(impl, op, args)


def _lone_surrogates(text: str) -> bool:
    return has_surrogates(canonical(text))


@pytest.mark.ctxspec_property(boundary=B1, op="truncate.*", rule="TRUNC-6")
@pytest.mark.parametrize("op", TRUNCATE_OPS)
@given(data=st.data(), content=texts, max_lines=line_limit)
def test_output_within_limits(
    impl: Implementation, op: str, data: st.DataObject, content: str, max_lines: int
) -> None:
    """Output never exceeds either limit, and outputBytes is the size of the content."""
    max_bytes = data.draw(limits_near(content), label="maxBytes")
    result = _call(impl, op, {"content": content, "maxLines": max_lines, "maxBytes": max_bytes})
    assert result["outputBytes"] <= max_bytes or not result["truncated"]
    assert result["outputLines"] <= max_lines or not result["truncated"]
    if result["truncated"]:
        assert _utf8.byte_length(result["content"]) == result["outputBytes"]


@pytest.mark.ctxspec_property(boundary=B1, op="truncate.*", rule="TRUNC-1")
@pytest.mark.parametrize("op", TRUNCATE_OPS)
@given(data=st.data(), content=texts, max_lines=line_limit)
def test_totals_count_the_whole_input(
    impl: Implementation, op: str, data: st.DataObject, content: str, max_lines: int
) -> None:
    """totalLines counts "\\n"-separated lines (a final one opens none); totalBytes all bytes."""
    max_bytes = data.draw(limits_near(content), label="maxBytes")
    result = _call(impl, op, {"content": content, "maxLines": max_lines, "maxBytes": max_bytes})
    lines = content.count("\n") + (0 if content.endswith("\n") or content == "" else 1)
    assert result["totalLines"] == lines
    assert result["totalBytes"] == _utf8.byte_length(canonical(content))


@pytest.mark.ctxspec_property(boundary=B1, op="truncate.head", rule="TRUNC-6")
@given(data=st.data(), content=texts, max_lines=line_limit)
def test_head_is_a_prefix(
    impl: Implementation, data: st.DataObject, content: str, max_lines: int
) -> None:
    """The head's content is a prefix of the input."""
    max_bytes = data.draw(limits_near(content), label="maxBytes")
    args = {"content": content, "maxLines": max_lines, "maxBytes": max_bytes}
    result = _call(impl, "truncate.head", args)
    assert canonical(content).startswith(result["content"])


@pytest.mark.ctxspec_property(boundary=B1, op="truncate.tail", rule="TRUNC-4")
@given(data=st.data(), content=texts, max_lines=line_limit)
def test_tail_is_a_suffix_cut_at_a_character(
    impl: Implementation, data: st.DataObject, content: str, max_lines: int
) -> None:
    """The tail's content is a suffix of the input (modulo the final newline), cut at a
    character boundary: a partial line is valid UTF-8 and adds no U+FFFD."""
    max_bytes = data.draw(limits_near(content), label="maxBytes")
    args = {"content": content, "maxLines": max_lines, "maxBytes": max_bytes}
    result = _call(impl, "truncate.tail", args)
    text = canonical(content)
    if result["lastLinePartial"]:
        result["content"].encode("utf-8")  # strict: no lone surrogate survives a byte cut
    if _lone_surrogates(text):
        return
    assert text.endswith(result["content"]) or text.removesuffix("\n").endswith(result["content"])


@pytest.mark.ctxspec_property(boundary=B1, op="truncate.*", rule="TRUNC-2")
@pytest.mark.parametrize("op", TRUNCATE_OPS)
@given(data=st.data(), content=texts, max_lines=line_limit)
def test_truncating_twice_changes_nothing(
    impl: Implementation, op: str, data: st.DataObject, content: str, max_lines: int
) -> None:
    """The output, truncated again with the same limits, comes back unchanged."""
    max_bytes = data.draw(limits_near(content), label="maxBytes")
    limits = {"maxLines": max_lines, "maxBytes": max_bytes}
    once = _call(impl, op, {"content": content, **limits})
    twice = _call(impl, op, {"content": once["content"], **limits})
    assert twice["content"] == once["content"]
    assert twice["truncated"] is False


@pytest.mark.ctxspec_property(boundary=B1, op="truncate.line", rule="TRUNC-7")
@given(line=texts, max_chars=st.integers(0, 90))
def test_line_cut_counts_code_units(impl: Implementation, line: str, max_chars: int) -> None:
    """A cut line is exactly max_chars code units plus the marker; a short one is untouched."""
    result = _call(impl, "truncate.line", {"line": line, "maxChars": max_chars})
    text = canonical(line)
    if code_units(text) <= max_chars:
        assert result == {"text": text, "wasTruncated": False}
    else:
        assert result["wasTruncated"] is True
        assert result["text"].endswith("... [truncated]")
        assert code_units(result["text"]) == max_chars + len("... [truncated]")


numbers = st.one_of(
    st.none(), st.integers(-2, 70), st.floats(-2, 70, allow_nan=False).map(lambda x: round(x, 1))
)


@pytest.mark.ctxspec_property(boundary=B1, op="truncate.*", rule="TRUNC-9")
@pytest.mark.parametrize("op", TRUNCATE_OPS)
@given(content=texts, max_lines=numbers, max_bytes=numbers)
def test_truncate_matches_reference(
    impl: Implementation, op: str, content: str, max_lines: Any, max_bytes: Any
) -> None:
    """Differential: head/tail equal the reference, any limits (fractional, negative, null)."""
    same_as_reference(impl, op, {"content": content, "maxLines": max_lines, "maxBytes": max_bytes})


@pytest.mark.ctxspec_property(boundary=B1, op="truncate.line", rule="TRUNC-7")
@given(line=texts, max_chars=numbers)
def test_truncate_line_matches_reference(impl: Implementation, line: str, max_chars: Any) -> None:
    """Differential: truncateLine equals the reference."""
    same_as_reference(impl, "truncate.line", {"line": line, "maxChars": max_chars})


@pytest.mark.ctxspec_property(boundary=B1, op="format.size", rule="TRUNC-8")
@given(
    size=st.one_of(
        st.integers(-5, 2**53),
        st.floats(-1e6, 1e22, allow_nan=False),
        st.integers(0, 4096).map(lambda n: n * 1024 // 8),
    )
)
def test_format_size_matches_reference(impl: Implementation, size: float) -> None:
    """Differential: formatSize equals the reference (toFixed ties, exponents, fractions)."""
    same_as_reference(impl, "format.size", {"bytes": size})
