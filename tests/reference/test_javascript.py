"""The reference's JavaScript helpers (`_utf16`, `_jsjson`, `_jsnum`, `_jsdate`) against
what JavaScript answers, and the places the protocol keeps out of the corpus where
Python's own idiom answered otherwise (issue 32, item 10; docs/fidelity.md)."""

from __future__ import annotations

import json
import math
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ctxspec.conformance.harnesses import pi as pi_adapter
from ctxspec.reference._jsdate import js_date_ms
from ctxspec.reference._jsjson import (
    js_assign,
    js_join,
    js_parse,
    js_property,
    js_string,
    js_stringify,
    js_to_number,
    js_truthy,
)
from ctxspec.reference._jsnum import js_add, js_number_to_string
from ctxspec.reference._jsregex import canonical_unit
from ctxspec.reference._utf16 import JS_SPACE, js_trim, utf16_key
from ctxspec.reference.compaction import CompactionSettings, should_compact
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.tokens import calculate_context_tokens


class TestStrings:
    """`trim()` and `sort()` on JavaScript strings."""

    @pytest.mark.parametrize(
        ("text", "trimmed"),
        [
            ("\ufeffx\ufeff", "x"),
            ("\x1cx\x85", "\x1cx\x85"),
            ("\u2028 x\u3000", "x"),
            ("\u180ex", "\u180ex"),
        ],
    )
    def test_trim_strips_javascript_whitespace_only(self, text: str, trimmed: str) -> None:
        """U+FEFF is whitespace to JS, U+001C-U+001F and U+0085 are not (unlike str.strip)."""
        assert js_trim(text) == trimmed

    def test_whitespace_set_is_ecmascripts(self) -> None:
        """JS_SPACE is WhiteSpace and LineTerminator: 25 code points, U+180E not among them."""
        assert len(JS_SPACE) == 25 and "\u180e" not in JS_SPACE

    def test_sort_key_orders_by_code_units(self) -> None:
        """An astral character (D83D ...) sorts before U+FF01, as JavaScript's sort() puts it."""
        assert sorted(["\uff01", "\U0001f642", "a"], key=utf16_key) == ["a", "\U0001f642", "\uff01"]


class TestJsonValues:
    """JSON values as JavaScript reads, prints and looks them up."""

    @pytest.mark.parametrize(
        ("value", "truthy"),
        [
            ([], True),
            ({}, True),
            ("", False),
            (0, False),
            (-0.0, False),
            (math.nan, False),
            ("0", True),
        ],
    )
    def test_truthiness(self, value: Any, truthy: bool) -> None:
        """`if (value)`: an empty list or object is true, NaN false."""
        assert js_truthy(value) is truthy

    def test_string_and_join(self) -> None:
        """String() and join(): null joins as "", numbers print as JavaScript prints them."""
        assert js_string([1.0, None, [2, 3]]) == "1,,2,3"
        assert js_join(["a", None, 1e-7, True], "-") == "a--1e-7-true"

    @pytest.mark.parametrize(
        ("text", "number"),
        [
            (" 12 ", 12.0),
            ("0x1f", 31.0),
            ("1e3", 1000.0),
            ("", 0.0),
            ("\u0662", math.nan),
            ("-0x1", math.nan),
            ("1_0", math.nan),
        ],
    )
    def test_number_reads_ascii_digits(self, text: str, number: float) -> None:
        """Number(): ASCII digits only (Python's float takes `٢`), hex unsigned."""
        found = js_to_number(text)
        assert found == number or (math.isnan(found) and math.isnan(number))

    def test_property_finds_object_prototype(self) -> None:
        """obj[key] finds Object.prototype's members; an own key shadows them."""
        assert js_property({}, "constructor") == "function Object() { [native code] }"
        assert js_property({}, "__proto__") == "[object Object]"
        assert js_property({"toString": "x"}, "toString") == "x"
        assert js_property({}, "name") is None

    def test_assignment_of_proto_adds_no_key(self) -> None:
        """obj["__proto__"] = v sets the prototype: the object gains no key."""
        obj: dict[str, Any] = {}
        js_assign(obj, "__proto__", None)
        js_assign(obj, "a", True)
        assert obj == {"a": True}

    def test_parse_refuses_nan(self) -> None:
        """JSON.parse refuses NaN and Infinity, which Python's json reads."""
        for text in ("NaN", "[Infinity]", '{"a": -Infinity}'):
            with pytest.raises(ValueError):
                js_parse(text)

    def test_stringify_indented_writes_index_keys_first(self) -> None:
        """JSON.stringify(value, null, 2): array-index keys first, lone surrogates escaped."""
        assert js_stringify({"b": True, "10": None, "9": [1]}, 2) == (
            '{\n  "9": [\n    1\n  ],\n  "10": null,\n  "b": true\n}'
        )
        assert js_stringify({"x\ud800": {}}, 2) == '{\n  "x\\ud800": {}\n}'


class TestNumbers:
    """Arithmetic on JavaScript numbers, which are doubles."""

    def test_sums_round_past_2_pow_53(self) -> None:
        """Each + rounds to a double: 2**53 + 1 + 1 stays 2**53."""
        assert js_add(2**53, 1, 1) == 2**53
        assert (
            calculate_context_tokens({"input": 2**53, "output": 1, "cacheRead": 1, "cacheWrite": 0})
            == 2**53
        )

    def test_truthy_total_tokens_is_not_summed(self) -> None:
        """totalTokens [] is truthy: Pi returns it as it is, so the reference refuses it
        (outside the protocol's numbers) instead of adding the parts."""
        with pytest.raises(InvalidInput):
            calculate_context_tokens(
                {"totalTokens": [], "input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0}
            )

    def test_enabled_read_with_javascript_truthiness(self) -> None:
        """`!settings.enabled`: enabled [] is true (the protocol's schema admits only booleans)."""
        settings = CompactionSettings(enabled=[], reserve_tokens=100)  # type: ignore[arg-type]
        assert should_compact(301, 400, settings)


class TestDates:
    """`new Date(value).getTime()` for the ECMAScript date-time format."""

    def test_non_ascii_digits_are_no_iso_date(self) -> None:
        """Python's \\d takes `٢٠٢٦`; V8 reads no date in it (refused: V8's fallback decides)."""
        with pytest.raises(InvalidInput):
            js_date_ms("\u0662\u0660\u0662\u0666-01-02T00:00:00Z")

    def test_minus_zero_year(self) -> None:
        """-000000 is NaN with a time; date-only, V8's fallback reads it in local time (refused)."""
        assert js_date_ms("-000000-01-01T00:00:00Z") is None
        with pytest.raises(InvalidInput):
            js_date_ms("-000000-01-01")

    def test_day_31_of_any_month_and_negative_years(self) -> None:
        """Days 1-31 in every month roll over; years before 0 count whole eras back."""
        assert js_date_ms("2026-02-30T00:00:00Z") == js_date_ms("2026-03-02T00:00:00Z")
        assert js_date_ms("-000001-01-01T00:00:00Z") == -62198755200000


@pytest.fixture(scope="module")
def node() -> Path:
    return pi_adapter.ensure_installed(quiet=True).node


def _date_strings(draw: random.Random, count: int) -> list[str]:
    out = []
    for _ in range(count):
        year = draw.choice([draw.randint(-300000, 300000), draw.randint(-500, 3000), 0, -1])
        text = f"{year:04d}" if 0 <= year <= 9999 and draw.random() < 0.6 else f"{year:+07d}"
        text += f"-{draw.randint(0, 13):02d}-{draw.randint(0, 32):02d}"
        if draw.random() < 0.8:
            hour, minute, second = (
                draw.randint(0, 25),
                draw.choice([0, 59, 60]),
                draw.randint(0, 60),
            )
            text += f"T{hour:02d}:{minute:02d}:{second:02d}"
            if draw.random() < 0.5:
                text += "." + "".join(draw.choice("0123456789") for _ in range(draw.randint(1, 5)))
            text += draw.choice(["Z", f"+{draw.randint(0, 24):02d}:{draw.randint(0, 60):02d}"])
        out.append(text)
    return [t for t in out if not t.startswith("-000000")]


def test_helpers_answer_as_node(node: Path, tmp_path: Path) -> None:
    """600 drawn dates (seed 32), numbers and objects give Node's own answers."""
    draw = random.Random(32)
    dates = _date_strings(draw, 600)
    numbers = [
        " 12 ",
        "0x1F",
        "0b101",
        "0o17",
        ".5",
        "5.",
        "1e400",
        "-Infinity",
        "\u0662",
        "\ufeff7\u2028",
        "1_0",
        "",
        "+0x1",
        "00012",
    ]
    objects: list[Any] = [{"b": 1, "10": [True, None], "9": "é\ud800"}, [], {}, [{"2": 1, "1": {}}]]
    script = tmp_path / "js.cjs"
    script.write_text(
        "const [dates, numbers, objects] = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
        "const time = (d) => new Date(d).getTime();\n"
        "console.log(JSON.stringify([\n"
        "  dates.map((d) => (Number.isNaN(time(d)) ? null : time(d))),\n"
        "  numbers.map((n) => String(Number(n))),\n"
        "  objects.map((o) => [JSON.stringify(o), JSON.stringify(o, null, 2), String(o)]),\n"
        "]));\n"
    )
    completed = subprocess.run(
        [str(node), str(script)],
        input=json.dumps([dates, numbers, objects]),
        capture_output=True,
        text=True,
        check=True,
        env={"TZ": "UTC"},
    )
    want_dates, want_numbers, want_objects = json.loads(completed.stdout)
    for text, want in zip(dates, want_dates, strict=True):
        assert js_date_ms(text) == want, text
    for text, want in zip(numbers, want_numbers, strict=True):
        assert js_number_to_string(js_to_number(text)) == want, text
    for value, (compact, indented, string) in zip(objects, want_objects, strict=True):
        assert (js_stringify(value), js_stringify(value, 2), js_string(value)) == (
            compact,
            indented,
            string,
        )


def test_canonicalize_answers_as_node(node: Path, tmp_path: Path) -> None:
    """Every BMP code unit canonicalises (regex `i` without `u`) as Node 22 does it."""
    script = tmp_path / "canonical.cjs"
    script.write_text(
        "const out = [];\n"
        "for (let c = 0; c < 0x10000; c++) {\n"
        "  const ch = String.fromCharCode(c), up = ch.toUpperCase();\n"
        "  const keep = up.length !== 1 || (c >= 128 && up.charCodeAt(0) < 128);\n"
        "  out.push(keep ? c : up.charCodeAt(0));\n"
        "}\n"
        "console.log(JSON.stringify(out));\n"
    )
    completed = subprocess.run([str(node), str(script)], capture_output=True, text=True, check=True)
    want = json.loads(completed.stdout)
    differing = [c for c in range(0x10000) if ord(canonical_unit(chr(c))) != want[c]]
    assert differing == []
