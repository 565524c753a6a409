"""Handlers of the subcommands around installs and expectations: `impl`, `expectations
write` and `changelog` (the parser in `ctxspec.conformance.cli` calls them).

- `impl_command`: `impl list [--json]`, `impl install NAME@VERSION`, `impl lock pi@VERSION`;
- `expectations_command`: `expectations write --impl X [--from results.json]`, a run
  through `suite_run.run_suite` unless its results are given;
- `changelog_command`: `changelog pi@A..pi@B`, its `--data` checked first.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from ctxspec.conformance.cli_args import UsageError, input_file, output_file, read_results, require
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

__all__ = ["changelog_command", "expectations_command", "impl_command", "impl_list"]


def impl_command(options: argparse.Namespace) -> int:
    if options.action == "list" and options.json:
        print(json.dumps(impl_list()))
        return 0
    if options.action == "list":
        for family in FAMILIES.values():
            print(f"{family.name}\t{family.default_version}\t{family.source}")
        print("pi versions with a committed lock: " + " ".join(pi_adapter.locked_versions()))
        return 0
    named = parse_named(options.name or "")
    if named is None:
        families = ", ".join(sorted(FAMILIES))
        expected = f"NAME@VERSION of a family ({families}), e.g. pi@{PI_VERSION}"
        raise UsageError("name", f"expected {expected}, got {options.name or ''!r}")
    try:
        launch = install(named)
    except InstallError as error:
        print(f"ctxspec: {error}", file=sys.stderr)
        return 2
    if options.action == "install":
        print(f"{named.name}: {' '.join(launch.argv)}")
        return 0
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
        return 2
    try:
        source = pi_adapter.ensure_installed(version, quiet=True).root
        target = Path(pi_adapter.__file__).parent / "locks" / version
        target.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            (target / name).write_bytes((source / name).read_bytes())
    except (InstallError, OSError) as error:
        print(f"ctxspec: pi@{version}: {error}", file=sys.stderr)
        return 2
    print(f"pi@{version}: lock written to {target}")
    return 0


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
            return 2
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
    return 1 if counts["unexplained"] else 0


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
        return 2


def _check_changelog_data(path: str) -> None:
    require("--data", input_file, path)
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError("--data", f"cannot read {path!r}: {error}") from None
    if not (isinstance(data, dict) and {"versions", "changes", "runs"} <= data.keys()):
        raise UsageError("--data", f"{path!r} is not the --data of an earlier changelog run")
