"""`new Date(value).getTime()` for the timestamps of session entries.

Entries carry ISO 8601 strings; their projected messages carry milliseconds since the
epoch. Only the ECMAScript date-time string format is accepted (plus numbers, as
`new Date(n)` takes them); V8's looser fallback formats and local-time forms (no
offset: the answer depends on the machine's time zone) raise `InvalidInput`.
An absent timestamp gives None, as `NaN` is written `null` in JSON.
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

from ctxspec.reference.errors import InvalidInput

__all__ = ["js_date_ms"]

# the ECMAScript date-time string format; its digits are ASCII (re.ASCII: Python's `\d`
# would take any Unicode digit, `٢٠٢٦`, which V8 reads as no date)
_ISO: Final = re.compile(
    r"(?P<y>\d{4}|[+-]\d{6})(?:-(?P<mo>\d\d)(?:-(?P<d>\d\d))?)?"
    r"(?:T(?P<h>\d\d):(?P<mi>\d\d)(?::(?P<s>\d\d)(?:\.(?P<f>\d+))?)?(?P<z>Z|[+-]\d\d:\d\d)?)?",
    re.ASCII,
)
_MAX_MS: Final = 8.64e15


def js_date_ms(value: Any) -> float | int | None:
    """Milliseconds since the epoch, None for an invalid date (JS `NaN`).

    >>> js_date_ms("2026-01-02T03:04:05.678Z"), js_date_ms("2026-01-02"), js_date_ms(None)
    (1767323045678, 1767312000000, None)
    >>> js_date_ms("-000000-01-01T00:00:00Z") is None, js_date_ms("2026-02-30T00:00:00Z")
    (True, 1772409600000)
    """
    if value is None:
        return None  # new Date(undefined) is an invalid date
    if isinstance(value, bool | int | float):
        number = float(value)
        if math.isnan(number) or abs(number) > _MAX_MS:
            return None
        return int(number)
    if not isinstance(value, str):
        raise InvalidInput("timestamp", "must be an ISO 8601 string")
    match = _ISO.fullmatch(value)
    if match is None:
        raise InvalidInput("timestamp", f"{value!r} is not an ECMAScript date-time string")
    if match["h"] is not None and match["z"] is None:
        raise InvalidInput("timestamp", f"{value!r} has no offset (local time)")
    if match["y"] == "-000000":
        # the spec's one invalid year (minus zero): NaN, but a date-only form falls to
        # V8's fallback parser, which reads it in local time
        if match["h"] is None:
            raise InvalidInput("timestamp", f"{value!r} is read by V8's fallback parser")
        return None
    year = int(match["y"])
    month, day = int(match["mo"] or 1), int(match["d"] or 1)
    hour, minute, second = int(match["h"] or 0), int(match["mi"] or 0), int(match["s"] or 0)
    millis = int((match["f"] or "0")[:3].ljust(3, "0"))
    zone = match["z"] or "Z"
    offset = (0, 0) if zone == "Z" else (int(zone[1:3]), int(zone[4:6]))
    # V8 checks each field's range alone: any month has days 1-31 (2026-02-30 is
    # March 2nd), 24:00 only on the hour, an offset up to 23:59
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour <= 24 and minute <= 59 and second <= 59):
        return None
    if hour == 24 and (minute or second or millis):
        return None
    if offset[0] > 23 or offset[1] > 59:
        return None
    days = _days_from_civil(year, month, 1) + day - 1
    ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
    if zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        ms -= sign * (offset[0] * 60 + offset[1]) * 60_000
    if abs(ms) > _MAX_MS:
        return None
    return ms


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (any year)."""
    y = year - (1 if month <= 2 else 0)
    era = y // 400  # floor division (the C original's `(y - 399) / 400` truncates)
    yoe = y - era * 400
    mp = (month + 9) % 12
    doy = (153 * mp + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468
