"""Mixed tool-output logs: test-runner lines, stack traces, diagnostics, CJK/Cyrillic/emoji.

`mixed_log(size, seed)` returns exactly `size` bytes of valid UTF-8 text (the last
character is padded with ASCII so the size is exact); the same arguments always give the
same bytes, so benchmark inputs are reproducible without storing them.
"""

from __future__ import annotations

import random

__all__ = ["minified_line", "mixed_log"]

_LINES = (
    "PASS tests/unit/test_{n}.py::test_case_{n} (0.{n:03d}s)",
    "FAIL tests/integration/test_api.py::test_retry[{n}] - AssertionError: expected 200, got 503",
    '  File "/srv/app/handlers/{n}.py", line {n}, in handle',
    "src/parser.rs:{n}:17: error[E0308]: mismatched types: expected `u32`, found `usize`",
    "警告: 模块 {n} 已弃用，请改用新的接口 — 详细信息见文档",
    "Предупреждение: соединение {n} закрыто удалённой стороной",
    "🙂 deploy step {n} finished ✅ — 🚀 next: verify 🔍",
    "[{n:06d}] INFO request id=ab{n:x} path=/api/v1/items?page={n} status=200 bytes={n}",
)


def mixed_log(size: int, seed: int = 0) -> bytes:
    rng = random.Random(seed)
    parts: list[bytes] = []
    total = 0
    while total < size:
        line = rng.choice(_LINES).format(n=rng.randrange(100000)).encode() + b"\n"
        parts.append(line)
        total += len(line)
    data = b"".join(parts)[:size]
    # never end inside a multibyte character: replace a cut character's bytes with ASCII
    end = len(data)
    while end > 0 and data[end - 1] & 0xC0 == 0x80:
        end -= 1
    if end > 0 and data[end - 1] >= 0xC0:
        end -= 1
    return data[:end] + b"." * (len(data) - end)


def minified_line(size: int, seed: int = 0) -> str:
    """One line of minified-JavaScript-like text with some astral characters, `size` chars."""
    rng = random.Random(seed)
    tokens = (
        "function(a,b){return a+b}",
        'var x="🙂";',
        "if(e)throw new Error('𝄞')",
        "const t=[1,2,3].map(n=>n*2);",
        "/*é*/",
    )
    parts: list[str] = []
    length = 0
    while length < size:
        token = rng.choice(tokens)
        parts.append(token)
        length += len(token)
    return "".join(parts)[:size]
