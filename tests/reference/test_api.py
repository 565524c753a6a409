"""The reference's Python API: defaults, Pi's JSON shape, typed errors on bad input."""

from __future__ import annotations

import pytest

from ctxspec import reference
from ctxspec.reference import InvalidInput, format_size, truncate_head, truncate_line, truncate_tail


class TestTruncationApi:
    """Calling the engine from Python."""

    def test_defaults_are_pis(self) -> None:
        """2000 lines, 50 KiB and 500 code units, echoed in the result."""
        result = truncate_head("x")
        assert (result.max_lines, result.max_bytes) == (2000, 51200)
        assert reference.GREP_MAX_LINE_LENGTH == 500

    def test_to_pi_uses_pis_field_names(self) -> None:
        """to_pi() gives exactly the keys of Pi's TruncationResult."""
        assert list(truncate_tail("a\nb", max_lines=1).to_pi()) == [
            "content",
            "truncated",
            "truncatedBy",
            "totalLines",
            "totalBytes",
            "outputLines",
            "outputBytes",
            "lastLinePartial",
            "firstLineExceedsLimit",
            "maxLines",
            "maxBytes",
        ]
        assert truncate_line("abc", 1).to_pi() == {"text": "a... [truncated]", "wasTruncated": True}

    def test_surrogate_pairs_written_as_two_code_points_are_combined(self) -> None:
        """A pair spelled as two surrogates counts as one astral character (4 bytes)."""
        assert truncate_head("\ud83d\ude42").total_bytes == 4

    @pytest.mark.parametrize(
        ("call", "field"),
        [
            (lambda: truncate_head(b"bytes"), "content"),  # type: ignore[arg-type]
            (lambda: truncate_tail("x", max_bytes=float("inf")), "maxBytes"),
            (lambda: truncate_tail("x", max_lines=True), "maxLines"),
            (lambda: truncate_line(None), "line"),  # type: ignore[arg-type]
            (lambda: truncate_line("x", "5"), "maxChars"),  # type: ignore[arg-type]
            (lambda: format_size("1"), "bytes"),  # type: ignore[arg-type]
            (lambda: truncate_head("", max_bytes=-1), "maxBytes"),
        ],
    )
    def test_bad_input_is_a_typed_error_naming_the_field(self, call: object, field: str) -> None:
        """Input outside the domain raises InvalidInput with the field, never a deep traceback."""
        with pytest.raises(InvalidInput) as caught:
            call()  # type: ignore[operator]
        assert caught.value.field == field

    def test_a_large_single_line_is_cut_in_bytes(self) -> None:
        """A 20 MB line: the tail keeps 51200 bytes of it, the head nothing."""
        line = "é" * 10_000_000
        tail = truncate_tail(line)
        assert (tail.output_bytes, tail.last_line_partial, len(tail.content)) == (
            51200,
            True,
            25600,
        )
        assert truncate_head(line + "\nnext").first_line_exceeds_limit
