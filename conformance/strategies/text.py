"""Hypothesis strategies for the inputs that break context engines (one place for all)."""

from __future__ import annotations

from hypothesis import strategies as st

from ctxspec.reference import _utf8

__all__ = ["hard_text", "limits_near", "line_limit", "texts"]

# characters chosen for their encodings: 1, 2, 3 and 4 UTF-8 bytes; lone surrogates; BOM;
# U+FFFD (what a bad cut decodes to); CR for CRLF; NUL; and the separator itself
HARD_CHARACTERS = (
    "a",
    "Z",
    " ",
    "\n",
    "\r",
    "\t",
    "\x00",
    "é",
    "ж",  # 2 bytes
    "€",
    "中",
    "\ufeff",
    "\ufffd",  # 3 bytes
    "🙂",
    "𝄞",  # 4 bytes, 2 code units
    "\ud83d",
    "\ude42",  # lone surrogates (3 bytes each as Node counts them)
)

hard_text = st.lists(
    st.one_of(st.sampled_from(HARD_CHARACTERS), st.sampled_from(["\r\n", "\n\n", "🙂🙂"])),
    max_size=60,
).map("".join)

texts = st.one_of(hard_text, st.text(max_size=80), st.text(alphabet="ab\n", max_size=40))


@st.composite
def limits_near(draw: st.DrawFn, text: str) -> int:
    """A byte limit near an interesting size of `text`: its total, a line's, N-1/N/N+1."""
    sizes = [_utf8.byte_length(text)] + [_utf8.byte_length(line) for line in text.split("\n")]
    anchor = draw(st.sampled_from(sizes))
    return max(0, anchor + draw(st.integers(-3, 3)))


line_limit = st.integers(min_value=0, max_value=12)
