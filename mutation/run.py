"""Mutation testing of `reference/`, with the conformance suite as the killer.

A suite that cannot tell a wrong engine from a right one is a weak gate. This measures it:
Cosmic Ray (a mutation tool that runs any test command) makes every first-order mutant of
`reference/` (flipped comparisons, swapped operators, ±1 on numbers, `and`/`or`, negated
conditions, loops that never run, ...). A deterministic, per-module sample of them is run
against `ctxspec conform` (the reference in process, stopping at the first failure). A
mutant the suite fails is killed; one it passes survived.

Two kinds of site are left out before the sample is drawn, both found from the AST by a
rule (tested in tests/mutation/), never picked by hand; the report counts them:

- a change inside an annotation is no mutant: every module postpones its annotations
  (`from __future__ import annotations`), so they are strings nobody evaluates;
- a dataclass `slots=True`/`kw_only=True` flipped where nothing can tell
  (`dataclass_flag_spans`) is equivalent by rule.

Any other mutant that cannot be killed because it does not change behaviour is sampled
like the rest and listed in `mutation/equivalent.yaml` with one line of reason, keyed by
module, function, operator and the mutated line's text, so the key survives edits
elsewhere in the file. Those are counted as "equivalent" (their share of the sample is
reported) and left out of the score:

    score = killed / (sampled - equivalent)

The work happens in copies of the committed tree (HEAD) under `.cache/mutation/` (Cosmic Ray mutates
files in place): the checkout is never touched. `--jobs J` runs J copies side by side.

    python mutation/run.py [--per-module N | --all] [--seed S] [--module reference/x.py]
                           [--same-as REPORT_JSON] [--jobs J] [--timeout S] [--report FILE]

This is `nox -s mutants`, outside CI's default set; with no arguments it rewrites
`mutation/REPORT.md` (and `REPORT.json`): 10 mutants per module, seed 0 (about an hour
with `--jobs 2` on two busy cores). `--same-as mutation/REPORT.json` runs the previous
report's mutants again (by `stable_keys`, which survive edits elsewhere in a module), the
seed drawing only where one is gone: the rerun after new cases. Its score is on mutants the
cases were written against; a fresh draw (`--seed`) is the unbiased estimate.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Collection, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENT = ROOT / "mutation" / "equivalent.yaml"
WORKDIR = ROOT / ".cache" / "mutation"
KILLER = [sys.executable, "-m", "ctxspec.conformance.cli", "conform", "--", "-x", "-q"]
KILLER += ["-p", "no:cacheprovider"]


@dataclass(frozen=True)
class Mutant:
    """One first-order mutant, with the key that names it across edits."""

    job_id: str
    module: str
    function: str
    operator: str
    occurrence: int  # Cosmic Ray's index of this operator's sites in the module
    line: int
    text: str  # the mutated line's source, stripped
    in_annotation: bool = False  # never evaluated: every module has postponed annotations
    dataclass_flag: bool = False  # a harmless slots/kw_only flip (dataclass_flag_spans)

    @property
    def left_out(self) -> str:
        """Why a rule on the AST leaves this site out of the sample ("" if it does not)."""
        if self.in_annotation:
            return "annotation"
        if self.dataclass_flag:
            return "dataclass flag"
        return ""

    @property
    def ident(self) -> tuple[str, str, int]:
        """The same mutant in every session made from one tree."""
        return (self.module, self.operator, self.occurrence)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.module, self.function, self.operator, self.text)

    def describe(self) -> str:
        return f"{self.module}:{self.line} {self.function} {self.operator}: {self.text}"


class EquivalentListError(Exception):
    """`mutation/equivalent.yaml` is malformed (the entry is named)."""


def load_equivalents(path: Path = EQUIVALENT) -> dict[tuple[str, str, str, str], str]:
    """The listed equivalent mutants: key -> the one-line reason."""
    if not path.exists():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    if not isinstance(data, list):
        raise EquivalentListError(f"{path.name}: expected a list of entries")
    listed: dict[tuple[str, str, str, str], str] = {}
    for n, entry in enumerate(data):
        fields = ("module", "function", "operator", "line", "reason")
        if not isinstance(entry, dict) or any(not isinstance(entry.get(f), str) for f in fields):
            raise EquivalentListError(f"{path.name}: entry {n} needs string fields {fields}")
        if not entry["reason"].strip():
            raise EquivalentListError(f"{path.name}: entry {n} has no reason")
        key = (entry["module"], entry["function"], entry["operator"], entry["line"].strip())
        listed[key] = entry["reason"].strip()
    return listed


def listed_reason(m: Mutant, equivalents: dict[tuple[str, str, str, str], str]) -> str:
    """Why `m` is listed as equivalent ("" if it is not); a listed field "*" matches any.

    `function: "*"`, `operator: "*"`, `line: "*"` lists every mutant of a module, for code no
    op of the protocol can reach (the suite cannot see it, whatever it does). An operator
    ending in "*" lists a family (`core/ReplaceComparisonOperator_Eq_*`: every flip of `==`).
    """
    for (module, function, operator, line), why in equivalents.items():
        got_module, got_function, got_operator, got_line = m.key
        family = operator.endswith("*") and got_operator.startswith(operator[:-1])
        if (
            module in ("*", got_module)
            and function in ("*", got_function)
            and (operator in ("*", got_operator) or family)
            and line in ("*", got_line)
        ):
            return why
    return ""


def head_commit() -> str:
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()


def copy_tree(dest: Path, commit: str) -> None:
    """The tree of one commit (a score belongs to a commit). `reference/` is pure Python
    (the C passes are the fast engine's, which is not mutated), so nothing is built."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)


def killer_env(tree: Path) -> dict[str, str]:
    """The killer imports `reference`, `conformance` and `corpora` from the copy."""
    env = dict(os.environ, PYTHONPATH=str(tree), CI="true")
    env.pop("PYTEST_ADDOPTS", None)
    return env


def write_config(tree: Path, timeout: float) -> Path:
    config = tree / "cosmic-ray.toml"
    command = " ".join(KILLER)
    config.write_text(
        "[cosmic-ray]\n"
        'module-path = "reference"\n'
        f"timeout = {timeout}\n"
        f"test-command = {json.dumps(command)}\n\n"
        '[cosmic-ray.distributor]\nname = "local"\n',
        encoding="utf-8",
    )
    return config


def cosmic_ray(tree: Path, *args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "cosmic_ray.cli", *args],
        cwd=tree, env=killer_env(tree), check=True,
    )  # fmt: skip


def annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where a module's annotations are, as (start, end) (line, column) positions.

    A mutant inside one (`float | None` made `float >> None`) cannot change behaviour when
    the module postpones its annotations (`from __future__ import annotations`, which
    every module of `reference/` has): they are strings nobody evaluates.
    """
    tree = ast.parse(source)
    if not any(
        isinstance(node, ast.ImportFrom) and node.module == "__future__"
        and any(alias.name == "annotations" for alias in node.names)
        for node in tree.body
    ):  # fmt: skip
        return []
    spans = []
    for node in ast.walk(tree):
        found: list[ast.expr | None] = []
        if isinstance(node, ast.arg):
            found.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
        for expr in filter(None, found):
            end = (expr.end_lineno or expr.lineno, expr.end_col_offset or expr.col_offset)
            spans.append(((expr.lineno, expr.col_offset), end))
    return spans


# the dataclass flags whose flip from True to False only changes how an instance is stored
# or how it may be built: see dataclass_flag_spans
_SLOTS_USES = ("__dict__", "vars(", "weakref")  # anywhere in the module
_SLOTS_USES_IN_CLASS = ("__slots__", "super()")  # in the class itself


def _is_dataclass(decorator: ast.expr) -> bool:
    func = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "dataclass"


def _order_allows_positional(cls: ast.ClassDef) -> bool:
    """No field without a default follows one with a default, none sets its own kw_only."""
    defaulted = False
    for node in cls.body:
        if not isinstance(node, ast.AnnAssign) or "ClassVar" in ast.unparse(node.annotation):
            continue
        value, has_default = node.value, node.value is not None
        if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "field":
            names = {k.arg for k in value.keywords}
            if "kw_only" in names:
                return False
            has_default = bool(names & {"default", "default_factory"})
        if defaulted and not has_default:
            return False
        defaulted = defaulted or has_default
    return True


def dataclass_flag_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where a `True` of `@dataclass(slots=True)` or `(kw_only=True)` can be flipped harmlessly.

    `slots=False` gives each instance a `__dict__` and weak-reference support instead of
    slots: no behaviour changes while the module never names `__dict__`, `vars(` or
    `weakref` and the class never `__slots__` or `super()` (a frozen instance still refuses
    new attributes).
    `kw_only=False` makes the fields positional as well: every call already names them, so
    nothing changes provided the class can still be made (no field without a default after
    one with a default, none with its own `kw_only`) and no class of the module inherits
    from it. Any other case is left to the suite (a class that fails to build is killed).
    """
    tree = ast.parse(source)
    subclassed = {
        base.id for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
        for base in node.bases if isinstance(base, ast.Name)
    }  # fmt: skip
    slots_module_safe = not any(use in source for use in _SLOTS_USES)
    spans = []
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        body = ast.get_source_segment(source, cls) or ""
        slots_safe = slots_module_safe and not any(use in body for use in _SLOTS_USES_IN_CLASS)
        for decorator in cls.decorator_list:
            if not (isinstance(decorator, ast.Call) and _is_dataclass(decorator)):
                continue
            for kw in decorator.keywords:
                if not (isinstance(kw.value, ast.Constant) and kw.value.value is True):
                    continue
                safe = (kw.arg == "slots" and slots_safe) or (
                    kw.arg == "kw_only" and not cls.bases and cls.name not in subclassed
                    and _order_allows_positional(cls)
                )  # fmt: skip
                if safe:
                    c = kw.value
                    spans.append(((c.lineno, c.col_offset), (c.lineno, c.col_offset + 4)))
    return spans


def mutants_of(db: WorkDB, tree: Path) -> list[Mutant]:
    lines: dict[str, list[str]] = {}
    annotations: dict[str, list[tuple[tuple[int, int], tuple[int, int]]]] = {}
    flags: dict[str, list[tuple[tuple[int, int], tuple[int, int]]]] = {}
    found = []
    for item in db.work_items:
        (spec,) = item.mutations
        module = spec.module_path.as_posix()
        if module not in lines:
            text = (tree / module).read_text(encoding="utf-8")
            lines[module], annotations[module] = text.splitlines(), annotation_spans(text)
            flags[module] = dataclass_flag_spans(text)
        line = spec.start_pos[0]
        start, end = tuple(spec.start_pos), tuple(spec.end_pos)
        inside = any(a <= start and end <= b for a, b in annotations[module])
        flag = spec.operator_name == "core/ReplaceTrueWithFalse" and (start, end) in flags[module]
        found.append(
            Mutant(item.job_id, module, spec.definition_name or "<module>",
                   spec.operator_name, spec.occurrence, line, lines[module][line - 1].strip(),
                   inside, flag)
        )  # fmt: skip
    return sorted(found, key=lambda m: (m.module, m.line, m.operator, m.occurrence))


def population(mutants: Iterable[Mutant]) -> tuple[list[Mutant], collections.Counter[str]]:
    """The mutants a sample is drawn from, and how many sites each rule left out.

    Only rules on the AST leave a site out (`Mutant.left_out`); a mutant argued equivalent
    by hand in `mutation/equivalent.yaml` stays in, so the sample shows its share.
    """
    kept, dropped = [], collections.Counter[str]()
    for m in mutants:
        if m.left_out:
            dropped[m.left_out] += 1
        else:
            kept.append(m)
    return kept, dropped


StableKey = tuple[str, str, str, str, int]


def stable_keys(mutants: Iterable[Mutant]) -> dict[str, StableKey]:
    """Each mutant's key that survives edits elsewhere in its module, by job id: `Mutant.key`
    and its rank among the mutants of that key (a line with two `+` has two)."""
    seen: collections.Counter[tuple[str, str, str, str]] = collections.Counter()
    keys = {}
    for m in sorted(mutants, key=lambda m: (m.module, m.line, m.operator, m.occurrence)):
        keys[m.job_id] = (*m.key, seen[m.key])
        seen[m.key] += 1
    return keys


def sample(
    mutants: Sequence[Mutant], per_module: int | None, seed: int,
    again: Collection[StableKey] = frozenset(),
) -> list[Mutant]:  # fmt: skip
    """`per_module` mutants of each module (all of them with None), the same for one seed.

    `mutants` is the population (see `population`): nothing a rule leaves out is drawn.
    `again` (`--same-as`: a previous report's mutants) are taken first, those of them the
    code still has (an edited line's mutants are gone); the seed draws the rest. With none,
    the draw is the seed's alone.
    """
    if per_module is None:
        return list(mutants)
    keys = stable_keys(mutants)
    by_module: dict[str, list[Mutant]] = collections.defaultdict(list)
    for m in mutants:
        by_module[m.module].append(m)
    chosen = []
    for module in sorted(by_module):
        rng = random.Random(f"{seed}:{module}")
        pool = by_module[module]
        kept = [m for m in pool if keys[m.job_id] in again][:per_module]
        rest = [m for m in pool if m not in kept]
        chosen += kept + rng.sample(rest, min(per_module - len(kept), len(rest)))
    return chosen


def previous_sample(report: Path) -> set[StableKey]:
    """The stable keys of the mutants a previous `REPORT.json` sampled."""
    records = json.loads(report.read_text(encoding="utf-8"))["mutants"]
    return {tuple(r["key"]) for r in records if "key" in r}


def skip(db: WorkDB, mutants: Iterable[Mutant], why: str) -> None:
    # one transaction: a commit per mutant takes minutes over thousands of them
    result = WorkResult(worker_outcome=WorkerOutcome.SKIPPED, output=why)
    db.set_multiple_results([m.job_id for m in mutants], result)


def run_shard(
    shard: int, chosen: Sequence[Mutant], commit: str, timeout: float
) -> dict[str, WorkResult]:
    """One copy of the tree, one Cosmic Ray session over `chosen`; the results by job id."""
    tree = WORKDIR / f"tree-{shard}"
    copy_tree(tree, commit)
    config = write_config(tree, timeout)
    session = WORKDIR / f"session-{shard}.sqlite"
    session.unlink(missing_ok=True)
    cosmic_ray(tree, "init", str(config), str(session))
    with use_db(str(session)) as db:
        everything = mutants_of(db, tree)  # annotation sites included: they are skipped too
        wanted = {m.ident for m in chosen}
        skip(db, [m for m in everything if m.ident not in wanted], "not sampled")
    cosmic_ray(tree, "exec", str(config), str(session))
    return collect(shard, chosen)


def collect(shard: int, chosen: Sequence[Mutant]) -> dict[str, WorkResult]:
    """The results a shard's session holds so far, by the job ids of `chosen`."""
    session = WORKDIR / f"session-{shard}.sqlite"
    if not session.exists():
        return {}
    with use_db(str(session), WorkDB.Mode.open) as db:
        job_of = {m.ident: m.job_id for m in mutants_of(db, WORKDIR / f"tree-{shard}")}
        results = {j: r for j, r in db.results if r.worker_outcome != WorkerOutcome.SKIPPED}
    return {m.job_id: results[job_of[m.ident]] for m in chosen if job_of.get(m.ident) in results}


def outcome(result: WorkResult | None) -> str:
    if result is None or result.worker_outcome == WorkerOutcome.SKIPPED:
        return "not run"
    if result.worker_outcome != WorkerOutcome.NORMAL:
        return "error"
    if result.test_outcome == TestOutcome.SURVIVED:
        return "survived"
    if result.output and "timeout" in result.output.lower():
        return "timeout"
    return "killed" if result.test_outcome == TestOutcome.KILLED else "incompetent"


RULES = {  # what each rule of `Mutant.left_out` leaves out, as the report words it
    "annotation": "inside an annotation (no mutant: never evaluated)",
    "dataclass flag": "a dataclass slots/kw_only flip where nothing can tell (equivalent by rule)",
}


def report(  # noqa: PLR0917 (one call site, every argument named by its role)
    chosen: Sequence[Mutant], results: dict[str, WorkResult],
    equivalents: dict[tuple[str, str, str, str], str], seed: int, per_module: int | None,
    commit: str, *, pool: Sequence[Mutant] = (), dropped: collections.Counter[str] | None = None,
    modules: Sequence[str] = (), seconds: int | None = None, same_as: tuple[str, int] | None = None,
) -> tuple[str, dict[str, Any]]:  # fmt: skip
    """The Markdown table per module and the JSON of every mutant's outcome.

    `pool` is the population the sample was drawn from, `dropped` what the rules left out
    before, `modules` every module mutated (one with no mutant still gets its row),
    `same_as` the previous report the sample took first and how many of its mutants it took.
    """
    dropped = dropped or collections.Counter()
    rows: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for module in modules:
        rows[module] = collections.Counter()
    made = collections.Counter(m.module for m in pool)
    survivors, records, same = [], [], []
    keys = stable_keys(pool or chosen)
    for m in chosen:
        why = listed_reason(m, equivalents)
        status = "equivalent" if why else outcome(results.get(m.job_id))
        rows[m.module][status] += 1
        records.append({
            "mutant": m.describe(), "key": list(keys[m.job_id]), "status": status,
            **({"why": why} if why else {}),
        })  # fmt: skip
        if status == "survived":
            survivors.append(m)
        elif why:
            same.append(f"- `{m.describe()}`: {why}")
    total: collections.Counter[str] = collections.Counter()
    for counts in rows.values():
        total.update(counts)

    def score(c: collections.Counter[str]) -> str:
        # timeouts and incompetent mutants (the suite could not run) count as killed
        dead = c["killed"] + c["timeout"] + c["incompetent"]
        live = dead + c["survived"]
        return f"{100 * dead / live:.1f}%" if live else "–"

    n_sampled = sum(total.values())
    share = f"{100 * total['equivalent'] / n_sampled:.1f}%" if n_sampled else "–"
    sampled = f"{per_module} per module" if per_module else "every mutant"
    if same_as is not None:
        sampled += f"; {same_as[1]} of them the mutants of the previous {same_as[0]}"
    took = f"; {seconds} s" if seconds is not None else ""
    out = [
        f"Mutants of `reference/` at {commit[:12]} ({sampled}, seed {seed}), "
        f"killed by `ctxspec conform`{took}.",
        "",
        f"The sample is drawn from {len(pool)} mutants in {len(rows)} modules. Left out "
        "before it, by a rule on the AST (`mutation/run.py`), never by hand:",
        "",
        *(f"- {dropped[rule]} sites {RULES[rule]}" for rule in RULES),
        "",
        f"Argued equivalent in `mutation/equivalent.yaml`: {total['equivalent']} of "
        f"{n_sampled} sampled ({share}). Score: **{score(total)}** of the rest killed.",
        "",
        "| module | mutants | sampled | killed | timeout | survived | equivalent | score |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for module in sorted(rows):
        c = rows[module]
        out.append(
            f"| `{module}` | {made[module]} | {sum(c.values())} | "
            f"{c['killed'] + c['incompetent']} | {c['timeout']} | {c['survived']} | "
            f"{c['equivalent']} | {score(c)} |"
        )
    out.append(
        f"| **all** | {len(pool)} | {n_sampled} | {total['killed'] + total['incompetent']} | "
        f"{total['timeout']} | {total['survived']} | {total['equivalent']} | "
        f"**{score(total)}** |"
    )
    if survivors:
        out += ["", "Survivors:", ""] + [f"- `{m.describe()}`" for m in survivors]
    if same:
        out += ["", "Equivalent (left out of the score), with the reason:", "", *same]
    summary = {
        "commit": commit,
        "seed": seed,
        "perModule": per_module,
        **({"sameAs": {"report": same_as[0], "carried": same_as[1]}} if same_as else {}),
        "population": len(pool),
        "leftOut": dict(dropped),
        "sampled": n_sampled,
        "equivalent": total["equivalent"],
        "equivalentShare": share,
        "score": score(total),
        "seconds": seconds,
        "mutants": records,
    }
    return "\n".join(out) + "\n", summary


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--per-module", type=int, default=10, help="mutants per module (10)")
    size.add_argument("--all", action="store_true", help="every mutant (days of CPU)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--same-as", type=Path, metavar="REPORT_JSON",
        help="take a previous report's mutants first (those the code still has), then draw",
    )  # fmt: skip
    parser.add_argument("--module", action="append", help="only these modules (reference/x.py)")
    parser.add_argument("--jobs", type=int, default=1, help="copies run side by side")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant")
    parser.add_argument("--report", type=Path, default=ROOT / "mutation" / "REPORT.md")
    parser.add_argument(
        "--report-only", action="store_true",
        help="report what the last run's sessions hold so far (same --per-module/--seed)",
    )  # fmt: skip
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    per_module = None if args.all else args.per_module

    equivalents = load_equivalents()
    WORKDIR.mkdir(parents=True, exist_ok=True)
    # the mutants are listed once, from a copy, to take the sample every shard shares
    listing = WORKDIR / "listing"
    session = WORKDIR / "listing.sqlite"
    if args.report_only:
        commit = (WORKDIR / "commit").read_text(encoding="utf-8").strip()
    else:
        commit = head_commit()
        (WORKDIR / "commit").write_text(commit, encoding="utf-8")
        copy_tree(listing, commit)
        session.unlink(missing_ok=True)
        cosmic_ray(listing, "init", str(write_config(listing, args.timeout)), str(session))
    with use_db(str(session), WorkDB.Mode.open) as db:
        mutants = mutants_of(db, listing)
    # a killer that fails on the unmutated tree would "kill" every mutant
    baseline = subprocess.run(
        KILLER, cwd=listing, env=killer_env(listing), capture_output=True, check=False
    ) if not args.report_only else None  # fmt: skip
    if baseline is not None and baseline.returncode != 0:
        tail = baseline.stdout.decode("utf-8", "replace")[-2000:]
        print(f"the suite fails on the unmutated tree (exit {baseline.returncode}):\n{tail}")
        return 2
    found = (listing / "reference").rglob("*.py")
    modules = sorted(path.relative_to(listing).as_posix() for path in found)
    if args.module:
        mutants = [m for m in mutants if m.module in args.module]
        modules = [m for m in modules if m in args.module]
    pool, dropped = population(mutants)
    again = previous_sample(args.same_as) if args.same_as else set()
    chosen = sample(pool, per_module, args.seed, again)
    keys = stable_keys(pool)
    carried = sum(1 for m in chosen if keys[m.job_id] in again)
    runnable = [m for m in chosen if not listed_reason(m, equivalents)]
    listed = len(chosen) - len(runnable)
    print(f"{len(pool)} mutants ({dict(dropped)} left out by rule), {len(chosen)} sampled "
          f"({carried} from {args.same_as}), {listed} listed equivalent")  # fmt: skip

    started = time.monotonic()
    shards = [runnable[i :: args.jobs] for i in range(args.jobs)]
    results: dict[str, WorkResult] = {}
    if args.report_only:
        # a mutant's result is in the session that ran it; which one depends on the list of
        # equivalents of that run, so every session is asked about every mutant
        for n in range(args.jobs):
            results.update(collect(n, runnable))
    else:
        with ThreadPoolExecutor(args.jobs) as executor:
            runs = [
                executor.submit(run_shard, n, p, commit, args.timeout) for n, p in enumerate(shards)
            ]
            for run in runs:
                results.update(run.result())
    seconds = None if args.report_only else round(time.monotonic() - started)
    text, summary = report(
        chosen, results, equivalents, args.seed, per_module, commit,
        pool=pool, dropped=dropped, modules=modules, seconds=seconds,
        same_as=(args.same_as.name, carried) if args.same_as else None,
    )  # fmt: skip
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(text, encoding="utf-8")
    args.report.with_suffix(".json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(text)
    print(f"report: {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
