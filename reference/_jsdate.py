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

from reference.errors import InvalidInput

__all__ = ["js_date_ms"]

_ISO: Final = re.compile(
    r"(?P<y>\d{4}|[+-]\d{6})(?:-(?P<mo>\d\d)(?:-(?P<d>\d\d))?)?"
    r"(?:T(?P<h>\d\d):(?P<mi>\d\d)(?::(?P<s>\d\d)(?:\.(?P<f>\d+))?)?(?P<z>Z|[+-]\d\d:\d\d)?)?"
)
_MAX_MS: Final = 8.64e15


def js_date_ms(value: Any) -> float | int | None:
    """Milliseconds since the epoch, None for an invalid date (JS `NaN`).

    >>> js_date_ms("2026-01-02T03:04:05.678Z"), js_date_ms("2026-01-02"), js_date_ms(None)
    (1767323045678, 1767312000000, None)
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
    year = int(match["y"])
    month, day = int(match["mo"] or 1), int(match["d"] or 1)
    hour, minute, second = int(match["h"] or 0), int(match["mi"] or 0), int(match["s"] or 0)
    millis = int((match["f"] or "0")[:3].ljust(3, "0"))
    if not (1 <= month <= 12 and hour <= 24 and minute <= 59 and second <= 59):
        return None
    if hour == 24 and (minute or second or millis):
        return None
    if day < 1 or day > _days_in_month(year, month):
        return None
    days = _days_from_civil(year, month, day)
    ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
    zone = match["z"]
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        ms -= sign * (int(zone[1:3]) * 60 + int(zone[4:6])) * 60_000
    if abs(ms) > _MAX_MS:
        return None
    return ms


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (any year)."""
    y = year - (1 if month <= 2 else 0)
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    mp = (month + 9) % 12
    doy = (153 * mp + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468
