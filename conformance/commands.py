"""The subcommands around installs, expectations and the corpus: `impl`, `expectations
write`, `changelog` and `cases`, each as its options (`*_arguments`) and its handler
(`*_command`); `ctxspec.conformance.cli` registers them.

- `impl_command`: `impl list [--json]`, `impl install NAME@VERSION`, `impl lock pi@VERSION`;
- `expectations_command`: `expectations write --impl X [--from results.json]`, a run
  through `suite_run.run_suite` unless its results are given;
- `changelog_command`: `changelog pi@A..pi@B`, its `--data` checked first;
- `cases_command`: `cases list|lint|show [ID ...] [--root DIR]`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ctxspec import exits
from ctxspec.cli import UsageError
from ctxspec.conformance.cli_args import (
    impl_spec,
    input_dir,
    input_file,
    output_file,
    pi_range,
    read_results,
    require,
    workers,
)
from ctxspec.conformance.corpus.aliases import lint as lint_aliases
from ctxspec.conformance.corpus.aliases import new_id, warn_renamed
from ctxspec.conformance.corpus.cases import Case, lint, load_cases, load_cases_from, same_input
from ctxspec.conformance.errors import CorpusError
from ctxspec.conformance.harnesses import pi as pi_adapter
from ctxspec.conformance.harnesses.pi import PI_VERSION
from ctxspec.conformance.runner.expectations import default_expectations_file, load_expectations
from ctxspec.conformance.runner.results import slug
from ctxspec.conformance.runner.shipped import shipped_implementations
from ctxspec.conformance.runner.suite_run import run_suite
from ctxspec.conformance.tools.changelog import main_changelog
from ctxspec.conformance.tools.expectations_write import load_changes, write_expectations
from ctxspec.conformance.transport.named import install, parse_named
from ctxspec.conformance.transport.resolve import FAMILIES, PI_NAME, InstallError, canonical_name

__all__ = [
    "cases_arguments",
    "cases_command",
    "changelog_arguments",
    "changelog_command",
    "expectations_arguments",
    "expectations_command",
    "impl_arguments",
    "impl_command",
    "impl_list",
]


def impl_arguments(impl: argparse.ArgumentParser) -> None:
    impl.add_argument("action", choices=("install", "lock", "list"))
    impl.add_argument("name", nargs="?", help="NAME@VERSION, e.g. pi@1.6.0")
    impl.add_argument(
        "--json",
        action="store_true",
        help="list: one JSON object (the shipped implementations, the families, the Pi locks)",
    )


def impl_command(options: argparse.Namespace) -> int:
    if options.action == "list" and options.json:
        print(json.dumps(impl_list()))
        return exits.OK
    if options.action == "list":
        for family in FAMILIES.values():
            print(f"{family.name}\t{family.default_version}\t{family.source}")
        print("pi versions with a committed lock: " + " ".join(pi_adapter.locked_versions()))
        return exits.OK
    named = parse_named(options.name or "")
    if named is None:
        families = ", ".join(sorted(FAMILIES))
        expected = f"NAME@VERSION of a family ({families}), e.g. pi@{PI_VERSION}"
        raise UsageError("name", f"expected {expected}, got {options.name or ''!r}")
    try:
        launch = install(named)
    except InstallError as error:
        print(f"ctxspec: {error}", file=sys.stderr)
        return exits.USAGE
    if options.action == "install":
        print(f"{named.name}: {' '.join(launch.argv)}")
        return exits.OK
    return _lock(named.family.name, named.version)


def impl_list() -> dict[str, Any]:
    """`impl list --json`: the shipped implementations (one per expectations file: the
    matrix workflow's jobs, `runner.shipped`), the families and the Pi versions locked."""
    return {
        "shipped": [
            {"name": name, "slug": slug(name), "family": name.partition("@")[0]}
            for name in shipped_implementations()
        ],
        "families": [
            {"name": f.name, "defaultVersion": f.default_version, "source": f.source}
            for f in FAMILIES.values()
        ],
        "piLocks": pi_adapter.locked_versions(),
    }


def _lock(family: str, version: str) -> int:
    """Copy an installed Pi's resolved manifest and lock into the checkout's locks/."""
    if family != "pi":
        print("ctxspec: `impl lock` is for pi@VERSION", file=sys.stderr)
        return exits.USAGE
    try:
        target = pi_adapter.HARNESS.lock(version)  # NpmHarness: its AnyVersion option
    except (InstallError, OSError) as error:
        print(f"ctxspec: pi@{version}: {error}", file=sys.stderr)
        return exits.USAGE
    print(f"pi@{version}: lock written to {target}")
    return exits.OK


def expectations_arguments(expect: argparse.ArgumentParser) -> None:
    expect.add_argument("action", choices=("write",))
    expect.add_argument(
        "--impl", type=impl_spec, required=True, help="the implementation (pi@1.6.0, a command)"
    )
    expect.add_argument("--from", dest="source", metavar="RESULTS", help="a --json results file")
    expect.add_argument(
        "--file", type=output_file, help="the expectations file (default: the shipped one)"
    )
    expect.add_argument(
        "--changes", type=input_file, help="change catalogue (default: expectations/changes/)"
    )
    expect.add_argument(
        "-n", dest="numprocesses", type=workers, default="auto", help="parallel workers"
    )


def expectations_command(options: argparse.Namespace) -> int:
    impl = canonical_name(options.impl)
    named = parse_named(impl)
    if options.file:
        target = Path(options.file)
    else:
        shipped = default_expectations_file(impl)
        stem = re.sub(r"[^a-z0-9.]+", "-", impl.lower()).strip("-")
        target = Path(shipped) if shipped else Path("conformance/expectations") / f"{stem}.yaml"
    if options.source:
        results = read_results("--from", options.source)
    else:
        # the verdict's fixed examples (the default): the file holds what every run sees
        run = run_suite(impl, jobs=options.numprocesses, expectations="none", capture=False)
        if run.data is None:
            print(
                f"ctxspec: the run of {impl} wrote no results (status {run.status})",
                file=sys.stderr,
            )
            return exits.USAGE
        results = dict(run.data)
    family = named.family.name if named else impl
    try:
        changes = load_changes(family, options.changes)
    except CorpusError as error:
        raise UsageError("--changes" if options.changes else None, str(error)) from None
    baseline = None
    if named is not None and named.family.name == "pi" and named.version != PI_VERSION:
        pinned = load_expectations(default_expectations_file(PI_NAME), PI_NAME)
        label = f"as in {PI_VERSION}"
        baseline = {k: (label, v) for k, v in {**pinned.cases, **pinned.properties}.items()}
    counts = write_expectations(
        target, impl, results, changes, version=named.version if named else None, baseline=baseline
    )
    print(
        f"{target}: {counts['kept']} kept, {counts['explained']} explained by a known change, "
        f"{counts['unexplained']} UNEXPLAINED (write their reasons), {counts['dropped']} dropped"
    )
    return exits.FAILED if counts["unexplained"] else exits.OK


def changelog_arguments(changelog: argparse.ArgumentParser) -> None:
    changelog.add_argument("range", type=pi_range, help="pi@A..pi@B")
    changelog.add_argument(
        "--out", type=output_file, help="write the Markdown page here (default: stdout)"
    )
    changelog.add_argument(
        "-n", dest="numprocesses", type=workers, default=None, help="parallel workers"
    )
    changelog.add_argument("--data", help="save the outcomes as JSON (or read them: --rerender)")
    changelog.add_argument(
        "--rerender", action="store_true", help="write the page from --data, running nothing"
    )


def changelog_command(options: argparse.Namespace) -> int:
    if options.rerender:
        if not options.data:
            raise UsageError("--rerender", "needs --data FILE (written by an earlier run)")
        _check_changelog_data(options.data)
    elif options.data:
        require("--data", output_file, options.data)
    try:
        return main_changelog(
            options.range,
            options.out,
            options.numprocesses or "auto",
            data=options.data,
            rerender=options.rerender,
        )
    except (ValueError, InstallError) as error:
        print(f"ctxspec: {error}", file=sys.stderr)
        return exits.USAGE


def _check_changelog_data(path: str) -> None:
    require("--data", input_file, path)
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError("--data", f"cannot read {path!r}: {error}") from None
    if not (isinstance(data, dict) and {"versions", "changes", "runs"} <= data.keys()):
        raise UsageError("--data", f"{path!r} is not the --data of an earlier changelog run")


def cases_arguments(cases: argparse.ArgumentParser) -> None:
    cases.add_argument("action", choices=("list", "lint", "show"))
    cases.add_argument("ids", nargs="*", metavar="ID", help="show: the cases to print expanded")
    cases.add_argument(
        "--root", type=input_dir, metavar="DIR", help="cases laid out as corpora/cases/ elsewhere"
    )


def cases_command(options: argparse.Namespace) -> int:
    try:
        cases = load_cases_from(Path(options.root)) if options.root else load_cases()
        # the alias table belongs to the shipped corpus
        alias_problems = [] if options.root else lint_aliases(case.id for case in cases)
    except CorpusError as error:
        print(f"ctxspec: broken corpus: {error}", file=sys.stderr)
        return exits.USAGE
    if options.action == "list":
        for case in cases:
            print(f"{case.id}\t{case.boundary}\t{case.op}\t{case.rule}\t{case.level}\t{case.why}")
        return exits.OK
    if options.action == "show":
        return _show_cases(cases, options.ids)
    problems = lint(cases) + alias_problems
    for problem in problems:
        print(problem)
    print(f"{len(cases)} cases, {len(problems)} problems", file=sys.stderr)
    return exits.FAILED if problems else exits.OK


def _expect(case: Case) -> dict[str, Any]:
    if case.expect_holds is not None:
        return {"holds": list(case.expect_holds)}
    return {"error": case.expect_error} if case.expects_error else {"result": case.expect_result}


def _show_cases(cases: Sequence[Case], ids: Sequence[str]) -> int:
    """Print the named cases with their builders expanded, one JSON object a line (what a
    reader in another language needs of a case built by `$session` or `$lines`)."""
    by_id = {case.id: case for case in cases}
    warn_renamed([case_id for case_id in ids if new_id(case_id) != case_id], "cases show")
    ids = [new_id(case_id) for case_id in ids]
    unknown = [case_id for case_id in ids if case_id not in by_id]
    if not ids or unknown:
        named = f"no case with id {', '.join(unknown)}" if unknown else "no case id given"
        print(f"ctxspec: cases show: {named} (see `ctxspec cases list`)", file=sys.stderr)
        return exits.USAGE
    for case_id in ids:
        case = by_id[case_id]
        record: dict[str, Any] = {
            "id": case.id,
            "op": case.op,
            "rule": case.rule,
            "level": case.level,
            "args": case.args,
            "expect": _expect(case),
        }
        twins = same_input(case)  # the same request at another level: which one Pi follows
        if twins:
            record["sameRequest"] = [
                {"id": twin.id, "level": twin.level, "expect": _expect(twin)} for twin in twins
            ]
        print(json.dumps(record))
    return exits.OK
