"""`ctxspec bench --op OP`: every agent named, a cost curve per op, the report and the gate.

Each `--impl` (any agent family, a Pi release, a command speaking protocol v1) on each
`--op` (`curves.OPS`) gets its curve (`curves.measure_curve`), its exponent and findings
(`scaling.py`); an agent whose harness does not list the op's bench form is said to have
no curve, with the reason. Written as `results.json`, `report.md` and one plot per op
(`agent_report.py`) under `reports/bench-<stamp>/`, the format of `ctxspec bench`'s
other runs; `--compare` gates each curve on the baseline's (`curve_gate.py`),
`--save-baseline` writes this run's curves as the baseline. `python -m
ctxspec.benchmarks.agents RESULTS.json ... --out DIR` merges runs (an agent at a time) into
one report, each curve judged again by today's rules.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxspec.benchmarks import agent_report, curve_gate
from ctxspec.benchmarks.curves import OPS, Curve, curve_from_json, measure_curve, sizes
from ctxspec.benchmarks.run import labels_of
from ctxspec.benchmarks.scaling import findings, fit, noise
from ctxspec.conformance.runner.progress import progress
from ctxspec.conformance.transport.cache import cache_root

__all__ = ["AgentOptions", "bench_agents", "judge", "main", "merge", "run_curves"]

DEFAULT_AGENTS = ("pi@0.85.0",)


@dataclass(frozen=True, slots=True)
class AgentOptions:
    """`ctxspec bench --op`'s options, checked by its parser (`command.py`)."""

    impls: Sequence[str]
    ops: Sequence[str]
    size: int | None  # --size: that one size (a finding's reproducer)
    up_to: int | None  # --up-to: the curve's largest size
    rounds: int
    deadline: float  # seconds one request may take: past it, the curve stops
    budget: float  # seconds one curve may take: a size that would start later is not run
    compare: bool
    baseline: Path
    tolerance: float
    save_baseline: bool
    out: Path
    quiet: bool = False


def run_curves(options: AgentOptions, cache: Path) -> dict[str, Any]:
    """Every curve, fitted and judged: the `results.json` of an agent run."""
    specs = list(options.impls) or list(DEFAULT_AGENTS)
    labels = labels_of(specs)
    plan = {name: sizes(OPS[name], up_to=options.up_to, only=options.size) for name in options.ops}
    total = len(specs) * sum(len(points) for points in plan.values())
    started = time.monotonic()
    curves: dict[str, dict[str, Any]] = {name: {} for name in options.ops}
    hellos: dict[str, Any] = {}
    found: list[dict[str, Any]] = []
    with progress(total, "ctxspec bench", quiet=options.quiet) as step:
        for name, points in plan.items():
            op = OPS[name]
            for spec, label in zip(specs, labels, strict=False):
                curve, hello = measure_curve(
                    spec,
                    op,
                    points,
                    rounds=options.rounds,
                    deadline=options.deadline,
                    budget=options.budget,
                    cache=cache,
                    step=step,
                )
                if hello:
                    hellos[label] = dict(hello)
                curves[name][label] = judged = judge(curve)
                found += judged["findings"]
    return {
        "implementations": labels,
        "hello": hellos,
        "rounds": options.rounds,
        "deadline": options.deadline,
        "budget": options.budget,
        "agents": curves,
        "findings": found,
        "seconds": time.monotonic() - started,
    }


def judge(curve: Curve) -> dict[str, Any]:
    """A curve as `results.json` holds it: its points (each with its noise), its fit and
    its findings, by the rules of `scaling.py`."""
    op = OPS[curve.op]
    fitted = fit(curve)
    shown = curve.to_json()
    for point, raw in zip(curve.points, shown["points"], strict=True):
        raw["noise"] = noise(point)  # below it, a time says nothing of growth
    judged = findings(curve, fitted, op.unit)
    return {
        **shown,
        "unit": op.unit,
        "fit": fitted.to_json(),
        "findings": [f.to_json() for f in judged],
    }


def merge(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Several `ctxspec bench --op` runs as one: every curve (a later run's replaces an
    earlier one's of the same agent and op) judged again by today's rules, the runs' wall
    times added."""
    agents: dict[str, dict[str, Any]] = {}
    labels: list[str] = []
    hello: dict[str, Any] = {}
    for run in runs:
        for op, curves in run["agents"].items():
            for label, raw in curves.items():
                agents.setdefault(op, {})[label] = judge(curve_from_json(raw))
        labels += [label for label in run["implementations"] if label not in labels]
        hello.update(run["hello"])
    first = runs[0]
    return {
        "implementations": labels,
        "hello": hello,
        "rounds": first["rounds"],
        "deadline": first["deadline"],
        "budget": first["budget"],
        "agents": agents,
        "findings": [f for by in agents.values() for c in by.values() for f in c["findings"]],
        "seconds": sum(run["seconds"] for run in runs),
        "runs": len(runs),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m ctxspec.benchmarks.agents RESULTS.json ... --out DIR`: one report of
    several runs' curves (runs of one machine, with the same rounds, deadline and budget)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("results", nargs="+", type=Path, help="results.json of --op runs")
    parser.add_argument("--out", type=Path, required=True, help="the merged report's folder")
    options = parser.parse_args(argv)
    runs = [json.loads(path.read_text()) for path in options.results]
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    print(agent_report.write(merge(runs), options.out, stamp))
    return 0


def _say(text: str) -> None:
    print(f"ctxspec bench: {text}", file=sys.stderr)


def bench_agents(options: AgentOptions) -> int:
    """The whole `ctxspec bench --op` run: measure, report, gate; its exit status."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    out = options.out / f"bench-{stamp}"
    out.mkdir(parents=True, exist_ok=True)
    specs = list(options.impls) or list(DEFAULT_AGENTS)
    _say(f"writing {out} ({', '.join(labels_of(specs))}; {', '.join(options.ops)})")
    # the inputs where a confined agent sees them: the install cache is shown to it
    results = run_curves(options, cache_root() / "bench")
    gate, status = None, 0
    if options.compare:
        regressions, gate = curve_gate.gate(
            results, curve_gate.load(options.baseline), options.tolerance
        )
        print(gate, file=sys.stderr)
        status = 1 if regressions else 0
    if options.save_baseline:
        curve_gate.save(results, options.baseline, stamp)
    for finding in results["findings"]:
        _say(f"finding: {finding['impl']} {finding['op']}: {finding['text']}")
        _say(f"  reproduce: {finding['reproducer']}")
    path = agent_report.write(results, out, stamp, gate=gate)
    print(path)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
