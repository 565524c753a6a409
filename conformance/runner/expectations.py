"""Known divergences per implementation: which cases and properties it is known to fail.

One YAML file per implementation under `expectations/` (or any file via
`--expectations`):

    implementation: pi@0.85.0
    cases:
      <case id>: <why it fails>
    properties:
      <test name>: <why it fails>

A listed case runs as an expected failure; if it passes it is reported as an
*unexpected pass*, which fails the run, so the lists stay true. A listed id that the
corpus does not have is a `CorpusError`. A listed id the corpus renamed
(`corpora/aliases.yaml`) applies to the new id; the old ids met are kept in `renamed`,
for the caller to report (the suite: a `RenamedCaseWarning` in pytest's summary).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ctxspec.conformance.corpus.aliases import rename_keys
from ctxspec.conformance.errors import CorpusError

__all__ = ["Expectations", "default_expectations_file", "load_expectations"]


@dataclass(frozen=True, slots=True)
class Expectations:
    implementation: str
    cases: dict[str, str] = field(default_factory=dict)
    properties: dict[str, str] = field(default_factory=dict)
    source: str = "(none)"
    renamed: tuple[str, ...] = ()  # the old ids the file names (`cases` has the new ones)

    def check_ids(self, case_ids: Iterable[str]) -> None:
        unknown = sorted(set(self.cases) - set(case_ids))
        if unknown:
            raise CorpusError(f"{self.source}: lists cases the corpus does not have: {unknown}")


def default_expectations_file(impl: str) -> str | None:
    """The shipped file for a named implementation (`reference`, `pi@0.85.0`), if any."""
    stem = re.sub(r"[^a-z0-9.]+", "-", impl.lower()).strip("-")
    candidate = resources.files("ctxspec.conformance").joinpath("expectations", f"{stem}.yaml")
    return str(candidate) if candidate.is_file() else None


def load_expectations(path: str | None, implementation: str) -> Expectations:
    if path is None:
        return Expectations(implementation=implementation)
    try:
        data: Any = yaml.safe_load(Path(path).read_text("utf-8")) or {}
    except yaml.MarkedYAMLError as error:  # one line: where, and what the parser expected
        mark = error.problem_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = error.problem or error.context
        raise CorpusError(f"{path}{where}: expectations are not YAML: {problem}") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise CorpusError(f"{path}: cannot read expectations: {error}") from None
    if not isinstance(data, dict):
        raise CorpusError(f"{path}: expectations must be a mapping")
    sections = {}
    for key in ("cases", "properties"):
        section = data.get(key) or {}
        if not isinstance(section, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in section.items()
        ):
            raise CorpusError(f"{path}: `{key}` maps ids to a non-empty reason each")
        sections[key] = section
    cases, renamed = rename_keys(sections["cases"])
    return Expectations(
        implementation=str(data.get("implementation", implementation)),
        cases=cases,
        properties=sections["properties"],
        source=path,
        renamed=tuple(renamed),
    )
