"""How a curve grows, and what of it is a finding.

- **The exponent** of a curve (`fit`) is the least-squares slope of log(time) over
  log(size) across the upper half of its points (the larger sizes, where what grows with
  the input outweighs what does not), or, where the agent's work changed kind in that half
  (it began to compact, or to save a cut output: `regime`), across the sizes after the
  change. A point whose time (base taken out) stays within the
  base's noise (`noise`) says nothing of growth and is left out; an upper half with fewer
  than three points above it has no exponent: its curve is flat at these sizes.
- **A finding** (`findings`) is an exponent above `SLOPE_LIMIT` (1.3: more than linear,
  with room for a log factor and a shared machine), or a memory per input byte above
  `MEMORY_LIMIT` (10: ten bytes held for each byte of input, on inputs of at least
  `curves.MEMORY_FLOOR_BYTES`) where the memory over the base is at least
  `MEMORY_FINDING_KIB` (64 MiB): a runtime's heap grows by tens of MiB on its first large
  piece of work whatever its size (Pi's Node grows 19 MiB on a 1 MiB output, 24 MiB on a
  4 MiB one), which is no growth with the input. Each has the command that reproduces it,
  and where the agent's code path and a public issue are known (`KNOWN`), those.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ctxspec.benchmarks.curves import Curve, Point

__all__ = [
    "KNOWN",
    "MEMORY_FINDING_KIB",
    "MEMORY_LIMIT",
    "SLOPE_LIMIT",
    "Finding",
    "Fit",
    "findings",
    "fit",
    "heavy_memory",
    "noise",
    "regime",
]

SLOPE_LIMIT: Final = 1.3
MEMORY_LIMIT: Final = 10.0
MEMORY_FINDING_KIB: Final = 64 << 10
NOISE_FLOOR_SECONDS: Final = 50e-6  # a timer's and a scheduler's grain
BASE_SHARE: Final = 0.05  # a black box's turn moves by this share of itself between runs
MIN_FIT_POINTS: Final = 3

# (family, op) -> (the agent's code path, public issues); what a maintainer reads first.
# The paths are the harnesses' (docs/performance/agents.md, "What each op times").
_PI = "@earendil-works/pi-coding-agent dist/"
KNOWN: Final[dict[tuple[str, str], tuple[str, tuple[str, ...]]]] = {
    ("pi", "agent_tool_output"): (
        f"{_PI}core/tools/bash.js (the bash tool's execute: every chunk into "
        "core/tools/output-accumulator.js, the full output to a temp file)",
        (),
    ),
    ("pi", "agent_instructions"): (
        f"{_PI}core/resource-loader.js loadProjectContextFiles, core/system-prompt.js",
        (),
    ),
    ("pi", "agent_compaction"): (
        f"{_PI}core/compaction/compaction.js estimateContextTokens, shouldCompact, "
        "prepareCompaction",
        (),
    ),
    ("gemini-cli", "agent_tool_output"): (
        "@google/gemini-cli-core ToolExecutor.truncateOutputIfNeeded",
        ("https://github.com/google-gemini/gemini-cli/issues/17037",),
    ),
    ("gemini-cli", "agent_instructions"): (
        "@google/gemini-cli-core MemoryContextManager.refresh (memoryDiscovery.js)",
        (),
    ),
    ("cline", "agent_tool_output"): (
        "@cline/core dist/index.js: a ClineCore session turn (run_commands, "
        "truncateCommandOutput, the MessageBuilder's cut)",
        (),
    ),
    ("cline", "agent_instructions"): (
        "@cline/core dist/index.js createUserInstructionConfigService, formatRulesForSystemPrompt",
        (),
    ),
    ("cline", "agent_compaction"): (
        "@cline/core dist/index.js createContextCompactionPrepareTurn: its loop that drops "
        "messages until the history fits recomputes, for each one dropped, the live tail, "
        "the tool-pair closure and the whole history's estimate",
        (),
    ),
    ("gemini-cli", "agent_compaction"): (
        "@google/gemini-cli-core ChatCompressionService.compress",
        (),
    ),
}


def noise(point: Point) -> float:
    """Below this a point's time cannot be told from the base's: the base's own spread over
    its rounds, a share of the base (a whole CLI turn's jitter), or the timer's grain."""
    base = point.base_seconds or 0.0
    return max(point.spread or 0.0, BASE_SHARE * base, NOISE_FLOOR_SECONDS)


@dataclass(frozen=True, slots=True)
class Fit:
    """A curve's exponent over the sizes it used, or why it has none."""

    exponent: float | None
    used: tuple[int, ...]  # the sizes fitted
    why: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"exponent": self.exponent, "used": list(self.used), "why": self.why}


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The least-squares slope of log(ys) over log(xs)."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    spread = sum((x - mx) ** 2 for x in lx)
    return sum((x - mx) * (y - my) for x, y in zip(lx, ly, strict=True)) / spread


def regime(point: Point) -> tuple[object, ...]:
    """What kind of work the agent did at a point, from its answer: whether it compacted,
    whether it saved a cut output. Where it changes, cost steps: that is no growth."""
    answer = point.answer if isinstance(point.answer, dict) else {}
    return (answer.get("compact"), answer.get("savedBytes") is None)


def fit(curve: Curve) -> Fit:
    """The curve's exponent over the upper half of its measured points, from the last
    change of regime on (`regime`): a compaction that begins at 12,800 messages is a step
    in the curve, not its slope."""
    measured = [p for p in curve.points if p.seconds is not None]
    if len(measured) < MIN_FIT_POINTS:
        return Fit(None, (), f"{len(measured)} sizes measured: too few to fit")
    same = len(measured)
    while same > 0 and regime(measured[same - 1]) == regime(measured[-1]):
        same -= 1
    steady = measured[same:]  # the sizes where the agent did what it does at the largest
    upper = measured[len(measured) // 2 :]
    if same > len(measured) // 2:  # the regime changed in the upper half: fit from there
        upper = steady
    above = [p for p in upper if p.seconds is not None and p.seconds > noise(p)]
    if len(above) < MIN_FIT_POINTS:
        return Fit(
            None,
            (),
            f"flat: {len(upper) - len(above)} of the upper half's {len(upper)} sizes stay "
            "within the base's noise"
            if len(upper) >= MIN_FIT_POINTS
            else f"{len(upper)} sizes in the upper half"
            + (f", after the agent's work changed at {steady[0].size:,}" if same else "")
            + ": too few to fit",
        )
    exponent = slope([p.size for p in above], [p.seconds or 0.0 for p in above])
    return Fit(round(exponent, 3), tuple(p.size for p in above))


def heavy_memory(point: Point) -> bool:
    """More than `MEMORY_LIMIT` bytes per input byte, and `MEMORY_FINDING_KIB` in all, and
    twice what the base's peak moved between its own rounds."""
    per_byte, held = point.memory_per_byte, point.memory_kib or 0
    floor = max(MEMORY_FINDING_KIB, 2 * point.base_peak_spread_kib)
    return per_byte is not None and per_byte > MEMORY_LIMIT and held >= floor


@dataclass(frozen=True, slots=True)
class Finding:
    """Growth a maintainer should look at, and how to see it again."""

    impl: str
    op: str
    kind: str  # time | memory
    text: str
    size: int
    code_path: str | None
    issues: tuple[str, ...]

    @property
    def reproducer(self) -> str:
        return f"ctxspec bench --impl {shlex.quote(self.impl)} --op {self.op} --size {self.size}"

    def to_json(self) -> dict[str, Any]:
        return {
            "impl": self.impl,
            "op": self.op,
            "kind": self.kind,
            "text": self.text,
            "size": self.size,
            "reproducer": self.reproducer,
            "codePath": self.code_path,
            "issues": list(self.issues),
        }


def findings(curve: Curve, fitted: Fit, unit: str) -> list[Finding]:
    """What of `curve` passes a limit: its exponent, its worst memory per input byte."""
    family = curve.impl.partition("@")[0]
    code_path, issues = KNOWN.get((family, curve.op), (None, ()))
    out = []
    if fitted.exponent is not None and fitted.exponent > SLOPE_LIMIT:
        low, high = fitted.used[0], fitted.used[-1]
        out.append(
            Finding(
                curve.impl,
                curve.op,
                "time",
                f"time grows as N^{fitted.exponent:.2f} from {low:,} to {high:,} {unit}",
                high,
                code_path,
                issues,
            )
        )
    heavy = [p for p in curve.points if heavy_memory(p)]
    if heavy:
        worst = max(heavy, key=lambda p: p.memory_per_byte or 0.0)
        out.append(
            Finding(
                curve.impl,
                curve.op,
                "memory",
                f"{worst.memory_per_byte:.1f} bytes of memory per input byte at {worst.size:,} "
                f"{unit} ({(worst.memory_kib or 0) / 1024:,.0f} MiB over the base)",
                worst.size,
                code_path,
                issues,
            )
        )
    return out
