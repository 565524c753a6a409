"""Inputs and the independent UTF-8 oracle of the streaming tests (tests/reference/test_stream.py
checks the reference against them, tests/fastengine/test_stream.py the fast engine against
the reference)."""

from __future__ import annotations

import itertools

from hypothesis import strategies as st

__all__ = [
    "BOUNDARY_PIECES",
    "BYTES",
    "CLASSED",
    "ILL_FORMED",
    "PIECES",
    "REPLACEMENT",
    "Whatwg",
    "chunked_classes",
    "large_input",
    "oracle",
    "output",
]

PIECES = st.sampled_from(
    [
        b"a",
        b"\n",
        b"\r\n",
        "é".encode(),
        "中".encode(),
        "🙂".encode(),
        b"\xff",
        b"\xe4\xb8",
        b"\xc3",
    ]
)


@st.composite
def large_input(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    # runs of one piece, so a draw reaches tens of KiB without thousands of draws
    runs = draw(st.lists(st.tuples(PIECES, st.integers(1, 9000)), min_size=1, max_size=12))
    data = b"".join(piece * count for piece, count in runs)
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=6)))
    return data, cuts


class Whatwg:
    """The UTF-8 decoder of the WHATWG Encoding standard, byte by byte as the standard
    writes it (replacement mode, `stream: true`): the independent oracle of both paths."""

    def __init__(self) -> None:
        self.needed = self.seen = 0
        self.lower, self.upper = 0x80, 0xBF
        self.held = bytearray()

    def decode(self, data: bytes) -> bytes:
        out = bytearray()
        for byte in data:
            self._byte(byte, out)
        return bytes(out)

    def _byte(self, byte: int, out: bytearray) -> None:
        if self.needed == 0:
            if byte < 0x80:
                out.append(byte)
            elif 0xC2 <= byte <= 0xDF:
                self.needed = 1
            elif 0xE0 <= byte <= 0xEF:
                self.lower = 0xA0 if byte == 0xE0 else 0x80
                self.upper = 0x9F if byte == 0xED else 0xBF
                self.needed = 2
            elif 0xF0 <= byte <= 0xF4:
                self.lower = 0x90 if byte == 0xF0 else 0x80
                self.upper = 0x8F if byte == 0xF4 else 0xBF
                self.needed = 3
            else:
                out += REPLACEMENT
                return
            if self.needed:
                self.held = bytearray([byte])
            return
        if not self.lower <= byte <= self.upper:
            self.needed = self.seen = 0
            self.lower, self.upper = 0x80, 0xBF
            self.held.clear()
            out += REPLACEMENT
            self._byte(byte, out)  # the byte is read again
            return
        self.lower, self.upper = 0x80, 0xBF
        self.held.append(byte)
        self.seen += 1
        if self.seen == self.needed:
            out += self.held
            self.needed = self.seen = 0
            self.held.clear()


REPLACEMENT = "\ufffd".encode()

# every class of byte a UTF-8 decoder tells apart, at the edges of each range
BOUNDARY_PIECES = [
    b"a",
    b"\n",
    b"\xef\xbb\xbf",  # BOM
    *(b"\xc2\x80", b"\xdf\xbf", b"\xe0\xa0\x80", b"\xe0\xbf\xbf", b"\xe1\x80\x80"),
    *(b"\xec\xbf\xbf", b"\xed\x80\x80", b"\xed\x9f\xbf", b"\xee\x80\x80", b"\xef\xbf\xbf"),
    *(b"\xf0\x90\x80\x80", b"\xf0\xbf\xbf\xbf", b"\xf1\x80\x80\x80", b"\xf3\xbf\xbf\xbf"),
    *(b"\xf4\x80\x80\x80", b"\xf4\x8f\xbf\xbf"),  # well-formed, first and last of each range
    *(b"\xc0\x80", b"\xc1\xbf"),  # overlong 2-byte leads
    *(b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf"),  # overlong
    *(b"\xed\xa0\x80", b"\xed\xbf\xbf"),  # surrogates
    *(b"\xf4\x90\x80\x80", b"\xf4\xbf\xbf\xbf", b"\xf5\x80\x80\x80", b"\xfe", b"\xff"),
    *(b"\x80", b"\xbf"),  # stray continuation bytes
    *(b"\xc3", b"\xe2\x82", b"\xf0\x9f\x99", b"\xed", b"\xed\x9f", b"\xf4\x8f"),  # unfinished
]
CLASSED = st.lists(st.sampled_from(BOUNDARY_PIECES), max_size=24).map(b"".join)
BYTES = st.one_of(
    st.binary(max_size=64),
    st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.lists(PIECES, max_size=30).map(b"".join),
    CLASSED,
)


def oracle(data: bytes, start: int) -> tuple[bytes, int]:
    decoder = Whatwg()
    return decoder.decode(data[start:]), len(decoder.held)


def output(data: bytes, start: int, answer: tuple[bytes | None, int, int, int]) -> bytes:
    decoded, _, pending, _ = answer
    return data[start : len(data) - pending] if decoded is None else decoded


@st.composite
def chunked_classes(draw: st.DrawFn) -> list[bytes]:
    data = draw(CLASSED)
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=8)))
    return [data[a:b] for a, b in itertools.pairwise([0, *cuts, len(data)])]


ILL_FORMED = st.lists(
    st.sampled_from([b"a", b"\n", b"\xff", b"\x80", b"\xe2\x82", b"\xed\xa0\x80", "中".encode()]),
    max_size=120,
).map(b"".join)
