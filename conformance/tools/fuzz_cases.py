"""The fuzz case writer: each minimal divergence as a case of the corpus format.

`case_for(found, impl, against)` makes one case with the `--against` answer as its
expectation, in the boundary and with the rule the corpus uses most for its op, an id
from a hash of the op and arguments, and a why marked `PLACEHOLDER` for the author to
edit; the case is checked to survive its YAML round trip. `case_yaml` prints several,
`write_cases(dir, ...)` appends them to `DIR/<boundary>/<behaviour>.yaml`, the corpus file
holding most of the op's cases (once each).
"""

from __future__ import annotations

import hashlib
import re
import struct
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from ctxspec.conformance.corpus.cases import BOUNDARIES, expand
from ctxspec.conformance.judging.compare import differences
from ctxspec.conformance.tools.fuzz import PLACEHOLDER, Found, request_key
from ctxspec.corpora import cases_root

__all__ = ["CaseText", "case_for", "case_yaml", "write_cases"]


def _surrogates(text: str) -> bool:
    return any(0xD800 <= ord(char) <= 0xDFFF for char in text)


def _yaml_value(value: Any) -> Any:
    """`value` with strings YAML cannot hold (lone surrogates) as `$codeUnits` builders."""
    if isinstance(value, str) and _surrogates(value):
        data = value.encode("utf-16-le", "surrogatepass")
        return {"$codeUnits": list(struct.unpack(f"<{len(data) // 2}H", data))}
    if isinstance(value, list):
        return [_yaml_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _yaml_value(item) for key, item in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class CaseText:
    id: str
    boundary: str
    rule: str
    text: str  # one YAML list item (`- id: ...`), with comments above it


_CASE_START = re.compile(r"^(\s*)- id:")
_CASE_KEY = re.compile(r"^(\s*)(?:- )?(op|rule): ['\"]?([A-Za-z0-9_.-]+)")


@cache
def _corpus_homes() -> dict[str, tuple[str, str, str]]:
    """op -> (its boundary, its most used rule, the behaviour file of that boundary holding
    most of its cases, without `.yaml`) in the shipped corpus. The case files are scanned,
    not loaded (loading expands and validates 900 cases): a top-level `op:` or `rule:` is a
    file's default, an indented one belongs to the case it is in."""
    boundaries: dict[str, Counter[str]] = {}
    rules: dict[str, Counter[str]] = {}
    files: dict[str, Counter[tuple[str, str]]] = {}
    for folder in cases_root().iterdir():
        if folder.name not in BOUNDARIES:
            continue
        for file in folder.iterdir():
            if not file.name.endswith(".yaml"):
                continue
            defaults: dict[str, str] = {}
            cases: list[dict[str, str]] = []
            for line in file.read_text("utf-8").splitlines():
                if _CASE_START.match(line):
                    cases.append({})
                elif match := _CASE_KEY.match(line):
                    (cases[-1] if match[1] and cases else defaults)[match[2]] = match[3]
            for case in cases:
                op, rule = (
                    case.get("op", defaults.get("op")),
                    case.get("rule", defaults.get("rule")),
                )
                if op and rule:
                    boundaries.setdefault(op, Counter())[folder.name] += 1
                    rules.setdefault(op, Counter())[rule] += 1
                    files.setdefault(op, Counter())[folder.name, file.name[: -len(".yaml")]] += 1
    homes = {}
    for op, counts in boundaries.items():
        boundary = _most_used(counts)
        stems = Counter({stem: n for (b, stem), n in files[op].items() if b == boundary})
        homes[op] = (boundary, _most_used(rules[op]), _most_used(stems))
    return homes


def _most_used(counts: Counter[str]) -> str:
    """The most frequent key; of equals, the first in sorted order (not in file order)."""
    return min(counts.items(), key=lambda item: (-item[1], item[0]))[0]


def case_for(found: Found, impl_name: str, against_name: str) -> CaseText:
    """One minimal divergence as a case of the corpus format, expecting `against`'s answer."""
    boundary, rule, _ = _corpus_homes().get(found.op, ("multibyte_cuts", "TRUNC-1", ""))
    digest = hashlib.sha256((found.op + request_key(found.args)).encode()).hexdigest()[:8]
    case_id = f"fuzz-{re.sub(r'[^a-z0-9]+', '-', found.op)}-{digest}"
    expect = found.expected.expectation()
    case: dict[str, Any] = {
        "id": case_id,
        "why": f"{PLACEHOLDER}: {against_name} and {impl_name} differ at "
        f"{found.signature}; state the behaviour this case pins",
        "op": found.op,
        "rule": rule,
    }
    if expect.get("error") == "invalid_input":
        case["level"] = "invariant"
    case["args"] = _yaml_value(found.args)
    case["expect"] = _yaml_value(expect)
    body = yaml.safe_dump([case], allow_unicode=True, sort_keys=False, width=100)
    loaded = yaml.safe_load(body)[0]
    if differences(found.args, expand(loaded["args"])) or differences(
        expect, expand(loaded["expect"])
    ):  # never happens for JSON values; guard the promise that the case means what it says
        raise ValueError(f"case {case_id} does not survive a YAML round trip")
    notes = [f"# {against_name} vs {impl_name}: {found.signature}"]
    notes += [f"# {line}" for line in found.details.splitlines()[:12]]
    notes.append(f"# {impl_name} answered {found.actual.describe()}")
    return CaseText(case_id, boundary, rule, "\n".join(notes) + "\n" + body)


def case_yaml(found: Sequence[Found], impl_name: str, against_name: str) -> str:
    """A ready-to-paste case file (`behaviour`, `boundary`, `op`, `cases`) per op."""
    by_op: dict[str, list[CaseText]] = {}
    for item in found:
        by_op.setdefault(item.op, []).append(case_for(item, impl_name, against_name))
    return "\n".join(
        _file_head(op, texts[0].boundary) + "".join(t.text for t in texts)
        for op, texts in by_op.items()
    )


def _file_head(op: str, boundary: str) -> str:
    head = {
        "behaviour": f"{PLACEHOLDER}: minimal divergences of {op} found by ctxspec fuzz",
        "boundary": boundary,
        "op": op,
    }
    return "---\n" + yaml.safe_dump(head, sort_keys=False, width=100) + "cases:\n"


def write_cases(
    directory: Path, found: Sequence[Found], impl_name: str, against_name: str
) -> list[Path]:
    """Append each divergence to `directory/<boundary>/<behaviour>.yaml` (a corpus layout):
    the behaviour file of the corpus that holds most of the op's cases (`_corpus_homes`),
    named after the op (`tool-read.yaml`) when the corpus has none, so `DIR` may be
    `corpora/cases` itself. A case whose id the file already holds is not repeated.
    Returns the files written."""
    written: list[Path] = []
    for item in found:
        case = case_for(item, impl_name, against_name)
        if case.boundary not in BOUNDARIES:
            raise ValueError(f"unknown boundary {case.boundary!r}")
        stem = _corpus_homes().get(item.op, ("", "", ""))[2]
        stem = stem or re.sub(r"[^a-z0-9]+", "-", item.op)
        path = directory / case.boundary / f"{stem}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            existing = yaml.safe_load(path.read_text("utf-8")) or {}
            if any(c.get("id") == case.id for c in existing.get("cases", [])):
                continue
            text = path.read_text("utf-8")
            text += "" if text.endswith("\n") else "\n"
        else:
            text = _file_head(item.op, case.boundary).removeprefix("---\n")
        path.write_text(text + _indented(case.text, text), "utf-8")
        if path not in written:
            written.append(path)
    return written


def _indented(case_text: str, file_text: str) -> str:
    """`case_text` shifted to the indentation of the file's `- id:` items (some corpus files
    indent their list under `cases:`), so the appended case stays an item of that list."""
    found = re.search(r"^( *)- id:", file_text, re.MULTILINE)
    pad = found.group(1) if found else ""
    return "".join(pad + line if line.strip() else line for line in case_text.splitlines(True))
