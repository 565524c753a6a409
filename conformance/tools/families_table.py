"""The implementation families, as blocks of the docs generated from the code.

A family list typed into a page goes stale the day a family is added (the named
implementations guide once listed 4 of 7). This module reads the families from where
`--impl` resolves them (`transport.resolve.ENGINES`, `transport.named.FAMILIES`), the
shipped expectations files (`conformance/expectations/*.yaml`, by their `implementation:`)
and the shipped profiles (`conformance/profiles/`), and writes them into every page that
holds a block of its markers:

    <!-- families_table: table -->
    ...what this module writes...
    <!-- families_table: end -->

Blocks: `table` (one row per family: kind, default version, how it is installed, the
shipped expectations files, its profile) and `shipped` (one sentence naming every
implementation with an expectations file, as `nox -s conform` runs them).

`python -m ctxspec.conformance.tools.families_table [--check]` rewrites the blocks of
docs/**/*.md and README.md (`--check`: exit 1 when one is stale, naming it).
tests/project/test_families_table.py fails on a stale page.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Final

import yaml

from ctxspec.conformance.runner.profiles import load_profile, profile_names
from ctxspec.conformance.transport.named import FAMILIES
from ctxspec.conformance.transport.resolve import ENGINES

__all__ = [
    "BLOCKS",
    "KINDS",
    "Family",
    "families",
    "main",
    "pages",
    "render",
    "rewrite",
    "shipped",
]

TOOL: Final = "python -m ctxspec.conformance.tools.families_table"
BEGIN: Final = re.compile(r"^<!-- families_table: (?P<block>(?!end -->)[a-z]+) -->$", re.MULTILINE)
END: Final = "<!-- families_table: end -->"

# The kinds, in the order the docs show them, each with what it means. `_kind` says how a
# family's kind follows from the code.
KINDS: Final = (
    ("engine", "this package's own engine, run in-process (`transport/resolve.py`'s `ENGINES`)"),
    ("Pi release", "the real Pi, at any published version"),
    ("fork", "a fork of Pi, from npm, judged by Pi's cases"),
    ("port", "a port of Pi to Python, from PyPI, judged by Pi's cases"),
    ("agent", "another coding agent, judged by the `agent.*` cases in its own terms (its profile)"),
)
PI_PROFILE: Final = "pi"


@dataclass(frozen=True, slots=True, kw_only=True)
class Family:
    """One family as the docs show it."""

    name: str  # what `--impl` takes (`pi`, then `pi@VERSION`)
    kind: str  # one of KINDS
    default: str  # the `--impl` name a bare family name means
    source: str  # where it is installed from
    shipped: tuple[str, ...]  # the implementations with a shipped expectations file
    profile: str  # the profile its `agent.*` answers are judged by


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", name.partition("@")[2]))


def _shipped_names() -> list[str]:
    """The `implementation:` of every shipped expectations file."""
    folder = resources.files("ctxspec.conformance").joinpath("expectations")
    names = []
    for entry in folder.iterdir():
        if entry.name.endswith(".yaml"):
            data = yaml.safe_load(entry.read_text("utf-8")) or {}
            if isinstance(data, dict) and isinstance(data.get("implementation"), str):
                names.append(data["implementation"])
    return names


def _kind(name: str, source: str, profiles: Iterable[str]) -> str:
    """First match wins: the engines nothing installs; the family whose profile is Pi's; a
    family with a profile of its own is another agent; the rest answer Pi's API and are told
    apart by the registry they come from."""
    if name in ENGINES:
        return "engine"
    if name == load_profile(PI_PROFILE).name:
        return "Pi release"
    if name in profiles:
        return "agent"
    registry = source.split(maxsplit=1)[0].lower()
    kinds = {"pypi": "port", "npm": "fork"}
    if registry not in kinds:
        raise ValueError(f"family {name}: its source {source!r} names no registry this table knows")
    return kinds[registry]


def families() -> list[Family]:
    """Every family, the engines first, then in KINDS order, then by name."""
    names = _shipped_names()
    profiles = set(profile_names()) - {PI_PROFILE}

    def shipped_of(family: str, engine: bool) -> tuple[str, ...]:
        own = (n for n in names if (n == family if engine else n.partition("@")[0] == family))
        return tuple(sorted(own, key=_version_key))

    rows = [
        Family(name=name, kind="engine", default=name, source="",
               shipped=shipped_of(name, True), profile=PI_PROFILE)
        for name in ENGINES
    ]  # fmt: skip
    for family in FAMILIES.values():
        kind = _kind(family.name, family.source, profiles)
        rows.append(
            Family(
                name=family.name,
                kind=kind,
                default=f"{family.name}@{family.default_version}",
                source=family.source,
                shipped=shipped_of(family.name, False),
                profile=family.name if kind == "agent" else PI_PROFILE,
            )
        )
    order = [kind for kind, _ in KINDS]
    unknown = sorted(set(names) - {n for row in rows for n in row.shipped})
    if unknown:
        raise ValueError(f"expectations files for no family `--impl` knows: {unknown}")
    return sorted(rows, key=lambda r: (order.index(r.kind), r.kind != "engine" and r.name))


def _source(source: str) -> str:
    registry, _, package = source.partition(" ")
    return f"{registry} `{package}`" if package else "nothing: part of ctxspec"


def _table(rows: Sequence[Family]) -> list[str]:
    lines = [
        "| `--impl` | kind | a bare name means | installed from | expectations files shipped"
        " | profile |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        shipped = ", ".join(f"`{_file(name)}`" for name in row.shipped) or "none"
        cells = (f"`{row.name}`", row.kind, f"`{row.default}`", _source(row.source), shipped,
                 f"`{row.profile}`")  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return [
        *lines,
        "",
        *(f"- *{kind}*: {what};" for kind, what in KINDS[:-1]),
        f"- *{KINDS[-1][0]}*: {KINDS[-1][1]}.",
        "",
        "The expectations files are in `conformance/expectations/`; any other version of a",
        "family runs with none (`ctxspec expectations write` starts one).",
    ]


def _file(name: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", name.lower()).strip("-") + ".yaml"


def _names(items: Sequence[str]) -> str:
    quoted = [f"`{item}`" for item in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def shipped(rows: Sequence[Family]) -> str:
    """One sentence: every implementation with an expectations file, by kind."""
    plural = {"engine": "engines", "Pi release": "Pi releases", "agent": "other agents",
              "port": "ports", "fork": "forks"}  # fmt: skip
    parts = []
    for kind, _ in KINDS:
        names = [name for row in rows if row.kind == kind for name in row.shipped]
        if names:
            label = kind if len(names) == 1 else plural[kind]
            parts.append(f"{len(names)} {label} ({_names(names)})")
    total = sum(len(row.shipped) for row in rows)
    return (
        f"{total} implementations ship an expectations file, so `nox -s conform` runs each: "
        + "; ".join(parts)
        + "."
    )


BLOCKS: Final[Mapping[str, str]] = {
    "table": "one row per family",
    "shipped": "a sentence naming every implementation with an expectations file",
}


def render(block: str, rows: Sequence[Family]) -> str:
    """A block's text, between its markers (blank lines around it, so Markdown reads it)."""
    if block == "table":
        body = _table(rows)
    elif block == "shipped":
        body = [shipped(rows)]
    else:
        raise ValueError(f"no block {block!r}: this tool writes {', '.join(BLOCKS)}")
    return "\n".join(["", "", *body, "", ""])


def rewrite(text: str, rows: Sequence[Family], *, where: str = "the page") -> str:
    """`text` with every block between its markers rewritten."""
    out = []
    position = 0
    for begin in BEGIN.finditer(text):
        end = text.find(END, begin.end())
        if end < 0:
            raise ValueError(f"{where}: `{begin.group(0)}` has no `{END}`")
        out += [text[position : begin.end()], render(begin["block"], rows)]
        position = end
    return "".join([*out, text[position:]])


def pages(root: Path) -> list[Path]:
    """The pages that may hold blocks: docs/**/*.md and README.md."""
    return sorted([*(root / "docs").rglob("*.md"), root / "README.md"])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=TOOL, description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(), help="the checkout (default: .)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a block is stale")
    options = parser.parse_args(argv)
    rows = families()
    stale = []
    for path in pages(options.root):
        text = path.read_text("utf-8")
        if not BEGIN.search(text):
            continue
        new = rewrite(text, rows, where=str(path))
        if new != text:
            stale.append(path)
            if not options.check:
                path.write_text(new, "utf-8")
    for path in stale:
        print(f"{path} is stale: run {TOOL}" if options.check else f"wrote {path}")
    return 1 if stale and options.check else 0


if __name__ == "__main__":
    sys.exit(main())
