"""JavaScript numbers: `String(n)`, `n.toFixed(d)`, and `+` on doubles (`js_add`).

`formatSize` prints `${bytes}B` and `(bytes / 1024).toFixed(1)`. Python's `str` and
`format(x, ".1f")` differ from JavaScript in two ways that reach the output: the
exponent thresholds of `String(n)` (`1e21`, `1e-7`) and `toFixed`'s tie-breaking, which
rounds an exact half *up* (`(1.25).toFixed(1) == "1.3"`; Python gives `"1.2"`).

A JavaScript number is a double: `JSON.parse` rounds an integer past 2**53 to the nearest
one, and `+` rounds each sum, where Python's ints add exactly (`js_add`).
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Final

__all__ = ["as_js_numbers", "js_add", "js_number_to_string", "js_to_fixed"]

_SAFE: Final = 2**53  # past it, not every integer is a double


def as_js_numbers(value: Any) -> Any:
    """A parsed JSON value as `JSON.parse` gives it: every integer past 2**53 rounded to
    its double (`9007199254740993` is `9007199254740992`), the rest unchanged.

    >>> as_js_numbers({"n": [2**53 + 1, 7, True]})
    {'n': [9007199254740992.0, 7, True]}
    """
    if isinstance(value, dict):
        return {key: as_js_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_js_numbers(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _SAFE:
        return float(value)
    return value


def js_number_to_string(value: float) -> str:
    """`String(value)` for a JavaScript number.

    >>> [js_number_to_string(x) for x in (0, -1, 1.5, 1e21, 1e-7, 123456789.0)]
    ['0', '-1', '1.5', '1e+21', '1e-7', '123456789']
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    if value < 0:
        return "-" + js_number_to_string(-value)
    # repr gives the shortest round-trip digits, as ECMAScript's Number::toString does
    _, digit_tuple, exponent_of_last = Decimal(repr(float(value))).normalize().as_tuple()
    assert isinstance(exponent_of_last, int)
    digits = "".join(map(str, digit_tuple))
    point = len(digits) + exponent_of_last  # ECMAScript's n: where the decimal point goes
    k = len(digits)
    if k <= point <= 21:
        return digits + "0" * (point - k)
    if 0 < point <= 21:
        return digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return "0." + "0" * (-point) + digits
    exponent = point - 1
    sign = "+" if exponent >= 0 else "-"
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{head}e{sign}{abs(exponent)}"


def js_to_fixed(value: float, digits: int) -> str:
    """`value.toFixed(digits)`: exact binary value, ties rounded up, `String()` past 1e21.

    >>> js_to_fixed(1.25, 1), js_to_fixed(0.05, 1), js_to_fixed(-0.04, 1)
    ('1.3', '0.1', '-0.0')
    """
    if not math.isfinite(value) or abs(value) >= 1e21:
        return js_number_to_string(value)
    exact = Decimal(value)  # the double's exact binary value, as the spec requires
    rounded = abs(exact).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    text = f"{rounded:.{digits}f}"
    return "-" + text if value < 0 else text


def js_add(first: float, *more: float) -> float:
    """`first + more[0] + ...` on JavaScript numbers: each a double, added left to right
    with IEEE rounding; an integral finite sum comes back as an int.

    >>> js_add(2**53, 1, 1), js_add(3, 4), js_add(0.1, 0.2), js_add(10**400, 1)
    (9007199254740992, 7, 0.30000000000000004, inf)
    """
    total = _double(first)
    for number in more:
        total += _double(number)
    return int(total) if total.is_integer() else total


def _double(number: float) -> float:
    """The double JSON.parse makes of a number (an int past the doubles is infinite)."""
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf
