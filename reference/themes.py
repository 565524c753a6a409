"""Themes: which theme files the resource loader loads, and what it says about the rest
(Pi 0.85.0, `DefaultResourceLoader.loadThemes`, `loadThemeFromPath`).

- `load_themes(listing, paths)`: each path in turn (THEME-1): a missing one is the warning
  `theme path does not exist`; a directory gives its own `*.json` files (dot files too, no
  sub-directories, no ignore files); another file must end `.json`, else `theme path is
  not a json file`. Each file is loaded or gives a warning with the load's message.
- `theme_error(text, path)`: THEME-2, why a theme file does not load (None: it loads),
  as Pi checks it while building the theme's colours, in this order:
  the text is JSON (BOM stripped; else `Failed to parse theme <path>: <SyntaxError>`: V8's
  words are the engine's, not Pi's, written by their kind, `ctxspec.reference.engine`), an object
  with a `colors` key (`Invalid theme "<path>": expected an object with a "colors" map.`),
  the colours with five fallbacks filled in (`scrollbarTrack` from `muted`, `scrollbarThumb` and
  `searchMatchText` from `text`, `thinkingMax` from `thinkingXhigh`, `searchMatchBg`
  from `selectedBg`) each resolved through `vars` (a number, `""` or a `#...` string is
  a value, any other string names a variable: `Variable reference not found: <name>`,
  `Circular variable reference detected: <name>`; other values fail as JavaScript fails,
  `<TypeError>`), then each foreground colour and each background colour a 6-digit hex
  (`Invalid hex color: <value>`).
- `dedupe_themes(themes)`: THEME-3, the first theme of a name wins (a missing or null
  name is `unnamed`; names are compared as JavaScript's `Map` compares keys, so two object
  names never collide); a later one is a `collision` diagnostic.

The theme's `name` is its JSON `name`, whatever its type (None when absent).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ctxspec.reference._jsjson import OBJECT_PROTOTYPE as OBJECT_MEMBERS
from ctxspec.reference._jsjson import js_map_key, js_own_keys, js_parse, js_string
from ctxspec.reference._utf16 import JS_SPACE, code_units
from ctxspec.reference.engine import js_exception
from ctxspec.reference.skills import Diagnostic, SourceInfo
from ctxspec.reference.tree import Listing, join, strip_bom

__all__ = [
    "BACKGROUND_KEYS",
    "COLOR_FALLBACKS",
    "Theme",
    "dedupe_themes",
    "js_string",
    "load_themes",
    "theme_error",
]

# THEME-2: colours a theme may leave out, and the colour each falls back to
COLOR_FALLBACKS: Final = (
    ("scrollbarTrack", "muted"),
    ("scrollbarThumb", "text"),
    ("thinkingMax", "thinkingXhigh"),
    ("searchMatchBg", "selectedBg"),
    ("searchMatchText", "text"),
)
BACKGROUND_KEYS: Final = frozenset(
    {
        "selectedBg",
        "searchMatchBg",
        "userMessageBg",
        "customMessageBg",
        "toolPendingBg",
        "toolSuccessBg",
        "toolErrorBg",
    }
)
# what `name in object` also finds on a plain object and on an array: their prototypes'
OBJECT_PROTOTYPE: Final = frozenset(OBJECT_MEMBERS)
ARRAY_PROTOTYPE: Final = OBJECT_PROTOTYPE | frozenset(
    [
        "length",
        "at",
        "concat",
        "copyWithin",
        "fill",
        "find",
        "findIndex",
        "findLast",
        "findLastIndex",
        "lastIndexOf",
        "pop",
        "push",
        "reverse",
        "shift",
        "unshift",
        "slice",
        "sort",
        "splice",
        "includes",
        "indexOf",
        "join",
        "keys",
        "entries",
        "values",
        "forEach",
        "filter",
        "flat",
        "flatMap",
        "map",
        "every",
        "some",
        "reduce",
        "reduceRight",
        "toReversed",
        "toSorted",
        "toSpliced",
        "with",
    ]
)
_UNDEFINED: Final = object()  # a JavaScript `undefined` (a missing property)
_PROTOTYPE_MEMBER: Final = object()  # a function (or object) found on a prototype


class _ThemeError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True, kw_only=True)
class Theme:
    """A loaded theme: its JSON `name` (any JSON value, None when absent), its file and,
    set by the loader, its `sourceInfo`."""

    name: Any
    source_path: str
    source_info: SourceInfo | None = None

    def to_pi(self, *, extended: bool = False) -> dict[str, Any]:
        wire: dict[str, Any] = {"name": self.name, "sourcePath": self.source_path}
        if extended and self.source_info is not None:
            wire["sourceInfo"] = self.source_info.to_pi()
        return wire


def _spread(value: Any) -> dict[str, Any]:
    """`{...value}`: an object's own entries in JavaScript's order; an array's or a
    string's by index; nothing from a number or a boolean."""
    if isinstance(value, dict):
        return {k: value[k] for k in js_own_keys(value)}
    if isinstance(value, list):
        return {str(i): item for i, item in enumerate(value)}
    if isinstance(value, str):
        units = value.encode("utf-16-le", "surrogatepass")
        chars = [
            units[i : i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(units), 2)
        ]
        return {str(i): c for i, c in enumerate(chars)}
    return {}


def _get(value: Any, key: str) -> Any:
    """`value[key]` for a JSON value (only an object has the colour names)."""
    if value is None:
        raise _ThemeError(js_exception("TypeError"))  # reading `key` of null
    if isinstance(value, dict):
        return value.get(key, _UNDEFINED)
    return _UNDEFINED


def _in(name: str, holder: Any) -> tuple[bool, Any]:
    """`name in holder` and, when true, `holder[name]`."""
    if not isinstance(holder, dict | list):
        raise _ThemeError(js_exception("TypeError"))  # `in` on null or a primitive
    if isinstance(holder, dict):
        if name in holder:
            return True, holder[name]
        return (True, _PROTOTYPE_MEMBER) if name in OBJECT_PROTOTYPE else (False, None)
    if re.fullmatch(r"0|[1-9][0-9]*", name) and int(name) < len(holder):
        return True, holder[int(name)]
    if name == "length":
        return True, len(holder)
    return (True, _PROTOTYPE_MEMBER) if name in ARRAY_PROTOTYPE else (False, None)


def _resolve(value: Any, variables: Any) -> Any:
    """THEME-2: a colour through `vars`: a number, `""` or `#...` is a value; another
    string names a variable, followed until a value."""
    seen: set[str] = set()
    while True:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value
        if not isinstance(value, str):  # undefined, null, a boolean, an object or a list
            raise _ThemeError(js_exception("TypeError"))  # `value.startsWith(...)` fails
        if value == "" or value.startswith("#"):
            return value
        if value in seen:
            raise _ThemeError(f"Circular variable reference detected: {value}")
        found, target = _in(value, variables)
        if not found:
            raise _ThemeError(f"Variable reference not found: {value}")
        seen.add(value)
        value = target


_HEX_PAIR: Final = re.compile(f"[{JS_SPACE}]*[+-]?(?:0[xX][0-9a-fA-F]|(?!0[xX])[0-9a-fA-F])")


def _check_hex(value: Any) -> None:
    """THEME-2: a `#` colour is 6 UTF-16 units after its first `#`, each pair read by
    `parseInt(pair, 16)` (leading spaces, a sign and `0x` allowed, then a hex digit)."""
    if not isinstance(value, str) or not value.startswith("#"):
        return
    cleaned = value.replace("#", "", 1)
    if code_units(cleaned) != 6:
        raise _ThemeError(f"Invalid hex color: {value}")
    units = cleaned.encode("utf-16-le", "surrogatepass")
    for start in (0, 4, 8):
        pair = units[start : start + 4].decode("utf-16-le", "surrogatepass")
        if not _HEX_PAIR.match(pair):
            raise _ThemeError(f"Invalid hex color: {value}")


def _build(theme: Mapping[str, Any]) -> None:
    colors = theme["colors"]
    merged = _spread(colors)
    for key, fallback in COLOR_FALLBACKS:
        own = _get(colors, key)
        merged[key] = _get(colors, fallback) if own is None or own is _UNDEFINED else own
    variables = theme.get("vars", {})
    resolved = {key: _resolve(value, variables) for key, value in merged.items()}
    for key, value in resolved.items():  # foreground colours first
        if key not in BACKGROUND_KEYS:
            _check_hex(value)
    for key, value in resolved.items():
        if key in BACKGROUND_KEYS:
            _check_hex(value)


def theme_error(text: str, path: str) -> str | None:
    """THEME-2: the message a theme file's text fails with, None when it loads.

    >>> colors = '"muted": "#12345", "text": "", "thinkingXhigh": 1, "selectedBg": 2'
    >>> theme_error('{"colors": {' + colors + '}}', "/t.json")
    'Invalid hex color: #12345'
    >>> theme_error('{"colors": {}}', "/t.json")
    '<TypeError>'
    """
    try:
        theme = js_parse(strip_bom(text))
    except ValueError:
        return f"Failed to parse theme {path}: {js_exception('SyntaxError')}"
    if not isinstance(theme, dict) or "colors" not in theme:
        return f'Invalid theme "{path}": expected an object with a "colors" map.'
    try:
        _build(theme)
    except _ThemeError as error:
        return error.message
    return None


def _load_file(listing: Listing, path: str, themes: list[Theme], diags: list[Diagnostic]) -> None:
    text = listing.read_text(path)
    if text is None:
        message = f"EACCES: permission denied, open '{path}'"
        diags.append(Diagnostic(type="warning", message=message, path=path))
        return
    problem = theme_error(text, path)
    if problem is not None:
        diags.append(Diagnostic(type="warning", message=problem, path=path))
        return
    parsed = js_parse(strip_bom(text))
    name = parsed.get("name")
    if isinstance(name, float) and math.isfinite(name) and name.is_integer():
        name = int(name)
    themes.append(Theme(name=name, source_path=path))


def load_themes(listing: Listing, paths: Sequence[str]) -> tuple[list[Theme], list[Diagnostic]]:
    """THEME-1: the loader's `loadThemes(paths, false)` over resolved paths."""
    themes: list[Theme] = []
    diags: list[Diagnostic] = []
    for path in paths:
        if not listing.exists(path):
            diags.append(Diagnostic(type="warning", message="theme path does not exist", path=path))
        elif listing.is_dir(path):
            for name in listing.children(path):
                file = join(path, name)
                if listing.is_file(file) and name.endswith(".json"):
                    _load_file(listing, file, themes, diags)
        elif listing.is_file(path) and path.endswith(".json"):
            _load_file(listing, path, themes, diags)
        else:
            message = "theme path is not a json file"
            diags.append(Diagnostic(type="warning", message=message, path=path))
    return themes, diags


def dedupe_themes(themes: Sequence[Theme]) -> tuple[list[Theme], list[Diagnostic]]:
    """THEME-3: the first theme of a name wins; later ones are collisions."""
    winners: dict[Any, Theme] = {}
    collisions: list[Diagnostic] = []
    for theme in themes:
        name = "unnamed" if theme.name is None else theme.name
        key = js_map_key(name)  # THEME-3: JavaScript's `Map` (an unnamed theme is "unnamed")
        if key in winners:
            collisions.append(
                Diagnostic.of_collision(
                    "theme",
                    name,
                    shown=js_string(name),
                    winner_path=winners[key].source_path,
                    loser_path=theme.source_path,
                )
            )
            continue
        winners[key] = theme
    return list(winners.values()), collisions
