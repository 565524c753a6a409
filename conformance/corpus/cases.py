"""Loading, expanding and linting the corpus's case files.

Every case reaches the suite through `load_cases()`: one YAML file per behaviour under
`corpora/cases/<boundary>/`, checked against `corpora/case.schema.json`, with file-level
defaults (`op`, `rule`, `level`) applied and string builders expanded. Problems are
`CorpusError`s naming the file and the case.

Builders (so a 300 KB line, a lone surrogate or a 30,000-token session stays readable in
YAML) are `ctxspec.conformance.corpus.builders`: `$repeat`, `$concat`, `$codeUnits`,
`$lines`, `$session`,
`$slice`, `$messages`, `$jsonl`, `$base64`. Renamed ids are `ctxspec.conformance.corpus.aliases`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib.resources.abc import Traversable
from typing import Any, Final, Literal

import jsonschema
import yaml

from ctxspec.conformance.corpus import cache as corpus_cache
from ctxspec.conformance.corpus.builders import expand
from ctxspec.conformance.errors import CorpusError
from ctxspec.conformance.judging.universal import CHECKS
from ctxspec.conformance.protocol import first_problem, validate_args
from ctxspec.corpora import cases_root

__all__ = [
    "BOUNDARIES",
    "LEVELS",
    "Case",
    "corpus_digest",
    "expand",
    "lint",
    "load_cases",
    "load_cases_from",
    "rule_index",
    "same_input",
]

Level = Literal["compat", "invariant"]
# compat: what Pi 0.85.0 does; invariant: what any sound engine does (Pi may break it)
LEVELS: Final = ("compat", "invariant")

# boundary slug -> what it checks (the five of DESIGN.md, plus the tool results around them)
BOUNDARIES: Final = {
    "multibyte_cuts": "1. multibyte cuts: bytes vs code units at a truncation cut",
    "instruction_ordering": "2. instruction ordering: the order instructions reach the prompt",
    "trust_denial": "3. trust denial: what an untrusted project can still load",
    "compaction_threshold": "4. compaction threshold: usage vs estimate, the kept boundary",
    "lca_navigation": "5. LCA navigation: moving between sibling leaves",
    "tool_results": "tool results: read, bash, grep texts and notices",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    """One golden case, defaults applied and builders expanded."""

    id: str
    boundary: str
    op: str
    rule: str
    level: Level
    why: str
    behaviour: str
    args: dict[str, Any] = field(repr=False)
    expect_result: Any = field(default=None, repr=False)
    expect_error: str | None = None
    expect_holds: tuple[str, ...] | None = None  # agent.* cases: the universal checks to pass
    status: str = "active"
    source: str = ""

    @property
    def expects_error(self) -> bool:
        return self.expect_error is not None


@cache
def _file_schema() -> dict[str, Any]:
    text = cases_root().joinpath("..", "case.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _file_validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(_file_schema())


def _case_files(root: Traversable) -> Iterator[tuple[str, Traversable]]:
    for boundary in sorted(root.iterdir(), key=lambda t: t.name):
        if not boundary.is_dir():
            continue
        for file in sorted(boundary.iterdir(), key=lambda t: t.name):
            if file.name.endswith(".yaml"):
                yield f"{boundary.name}/{file.name}", file


def _parse(name: str, file: Traversable) -> list[Case]:
    try:
        data = yaml.safe_load(file.read_text("utf-8"))
    except yaml.YAMLError as error:
        raise CorpusError(f"{name}: not valid YAML: {error}") from None
    problem = first_problem(_file_validator(), data)
    if problem is not None:
        raise CorpusError(f"{name}: {problem}")
    folder = name.split("/", 1)[0]
    if data["boundary"] != folder:
        raise CorpusError(f"{name}: boundary {data['boundary']!r} but the file is under {folder}/")
    cases = []
    for index, raw in enumerate(data["cases"]):
        where = f"{name}: case {raw['id']}"
        op = raw.get("op", data.get("op"))
        rule = raw.get("rule", data.get("rule"))
        if op is None or rule is None:
            raise CorpusError(f"{where}: no op or rule (give one per case or per file)")
        args = expand(raw["args"], where)
        problem_text = validate_args(op, args)
        if problem_text is not None:
            raise CorpusError(f"{where}: {problem_text}")
        expect = raw["expect"]
        cases.append(
            Case(
                id=raw["id"],
                boundary=data["boundary"],
                op=op,
                rule=rule,
                level=raw.get("level", data.get("level", "compat")),
                why=raw["why"],
                behaviour=data["behaviour"],
                args=args,
                expect_result=expand(expect.get("result"), where),
                expect_error=expect.get("error"),
                expect_holds=tuple(expect["holds"]) if "holds" in expect else None,
                status=raw.get("status", "active"),
                source=f"{name}#{index + 1}",
            )
        )
    return cases


@cache
def load_cases() -> tuple[Case, ...]:
    """Every case of the corpus, in file order. Raises `CorpusError` on a broken file.

    Parsed once per corpus and code, then read back by every process (`corpus_cache`).
    """
    root = cases_root()
    return corpus_cache.load(root.joinpath(".."), lambda: load_cases_from(root), _are_cases)


def same_input(case: Case) -> tuple[Case, ...]:
    """The other active cases that send the very request `case` sends (its op and args).

    Two such cases can expect opposite answers only at two levels: an invariant Pi breaks
    and the compat case pinning what Pi does instead (`unknown-leaf-invalid-input` and
    `unknown-leaf-id-falls-back-to-last-entry`); reports show each beside the other.
    """
    return tuple(c for c in _by_request().get(_request_key(case), ()) if c.id != case.id)


def _request_key(case: Case) -> str:
    text = json.dumps([case.op, case.args], sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@cache
def _by_request() -> dict[str, tuple[Case, ...]]:
    groups: dict[str, list[Case]] = {}
    for case in load_cases():
        if case.status == "active":
            groups.setdefault(_request_key(case), []).append(case)
    return {key: tuple(group) for key, group in groups.items() if len(group) > 1}


def _are_cases(value: object) -> bool:
    return isinstance(value, tuple) and all(isinstance(case, Case) for case in value)


def load_cases_from(root: Traversable) -> tuple[Case, ...]:
    """Every case under `root` (a folder laid out as `corpora/cases/`: `<boundary>/*.yaml`),
    e.g. cases `ctxspec fuzz --write-cases` wrote outside the corpus."""
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for name, file in _case_files(root):
        for case in _parse(name, file):
            if case.id in seen:
                raise CorpusError(f"{name}: case id {case.id!r} is already used in {seen[case.id]}")
            seen[case.id] = case.source
            cases.append(case)
    return tuple(cases)


@cache
def corpus_digest() -> str:
    """sha256 over every case file (name and bytes) and the session generator its `$session`
    builders run: the case data's identity in reports."""
    digest = hashlib.sha256()
    for name, file in _case_files(cases_root()):
        digest.update(name.encode() + b"\0" + file.read_bytes() + b"\0")
    generator = cases_root().joinpath("..", "generators", "sessions.py")
    digest.update(b"generators/sessions.py\0" + generator.read_bytes() + b"\0")
    return digest.hexdigest()


@cache
def rule_index() -> dict[str, str]:
    """Rule id -> its one-line statement, read from the table in corpora/README.md."""
    text = cases_root().joinpath("..", "README.md").read_text("utf-8")
    rules = {}
    for match in re.finditer(r"^\|\s*`?([A-Z]+-\d+)`?\s*\|\s*([^|]+?)\s*\|", text, re.MULTILINE):
        rules[match.group(1)] = match.group(2)
    return rules


def _holds_problems(case: Case, where: str) -> list[str]:
    """An agent.* case names the universal checks of its op, and is an invariant."""
    agent_op = case.op.startswith("agent.")
    if case.expect_holds is None:
        return [f"{where}: an agent.* case expects `holds: [checks]`"] if agent_op else []
    known = CHECKS.get(case.op, {})
    problems = [f"{where}: `holds` is for agent.* ops, not {case.op}"] if not agent_op else []
    problems += [f"{where}: {case.op} has no check {name!r} (it has {', '.join(known)})"
                 for name in case.expect_holds if name not in known]  # fmt: skip
    if case.level != "invariant":
        problems.append(f"{where}: an agent.* case is an invariant (level: invariant)")
    return problems


_SHOULD = re.compile(r"\bshould\b", re.IGNORECASE)


def lint(cases: Iterable[Case]) -> list[str]:
    """Problems of style and coverage a schema cannot see; empty when the corpus is clean."""
    problems = []
    rules = rule_index()
    behaviours: dict[str, str] = {}
    for case in cases:
        where = f"{case.source} ({case.id})"
        for label, text in (("why", case.why), ("behaviour", case.behaviour)):
            if "\n" in text.strip():
                problems.append(f"{where}: {label} must be one line")
            if _SHOULD.search(text):
                problems.append(f"{where}: {label} says 'should'; state what happens")
        if case.rule not in rules:
            problems.append(f"{where}: rule {case.rule} is not in the index of corpora/README.md")
        if case.level == "compat" and case.expects_error and case.expect_error == "invalid_input":
            problems.append(f"{where}: an invalid_input expectation is an invariant, not Pi compat")
        problems += _holds_problems(case, where)
        file = case.source.split("#", 1)[0]
        if behaviours.setdefault(case.behaviour, file) != file:
            problems.append(f"{where}: behaviour text repeats {behaviours[case.behaviour]}")
    return problems
