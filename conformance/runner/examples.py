"""Which examples the properties run: the verdict's shipped set, or an exploration.

The verdict's examples are data: a fixed set per property, drawn once from a seed
derived from `SEED_VERSION` and the property's name (`property_seed`) by
`python -m ctxspec.conformance.tools.examples_write`, shipped in
`conformance/suite/examples/` and replayed without hypothesis drawing anything
(`ctxspec.conformance.runner.fixed_examples`). So the verdict depends on neither the
machine, the clock, the profile, the worker count nor the hypothesis version installed.
Random exploration is `--explore` (or `ctxspec sweep`, `ctxspec fuzz`): hypothesis draws,
at any supported version, under the profiles registered here; what it finds becomes
golden cases. docs/verdict.md says why.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, Final

import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity, settings

from ctxspec.conformance.runner.example_data import EXAMPLES_FOLDER, HYPOTHESIS

# the version the verdict's seeds are derived from: the package's version when the fixed
# examples were introduced, kept as it is so that the examples stay the same
SEED_VERSION: Final = "0.1.0"

__all__ = [
    "EXPLORE_EXAMPLES",
    "EXPLORING_PROFILES",
    "SEED_VERSION",
    "VERDICT_EXAMPLES",
    "example_policy",
    "property_seed",
    "seed_text",
    "without_local_constants",
]

# hypothesis's explain phase reruns a failed property hundreds of times (about 100 per
# argument) to say which arguments vary freely: each run is a request, and against an
# implementation that is always wrong, with large answers, it was most of a run's time.
# The failure and its shrunk example are the same without it; `debug` keeps it. (A
# hypothesis older than the phase has nothing to skip.)
_PHASES: Final = tuple(p for p in Phase if p is not getattr(Phase, "explain", None))

VERDICT_EXAMPLES: Final = 60
EXPLORE_EXAMPLES: Final = 300
settings.register_profile(
    "explore",
    max_examples=EXPLORE_EXAMPLES,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
    phases=_PHASES,
)
# the verdict: the explorer's settings, fewer examples, derandomized; the runs replay the
# shipped examples, and `examples_write` draws them under this profile (with property_seed)
settings.register_profile(
    "verdict",
    parent=settings.get_profile("explore"),
    max_examples=VERDICT_EXAMPLES,
    derandomize=True,
)
settings.register_profile("ci", parent=settings.get_profile("verdict"))  # its old name
settings.register_profile(
    "debug", parent=settings.get_profile("verdict"), verbosity=Verbosity.verbose
)
settings.register_profile("dev", parent=settings.get_profile("explore"))  # its old name
# random examples as many as the verdict's: `ctxspec sweep` runs it under many seeds
settings.register_profile(
    "sweep", parent=settings.get_profile("explore"), max_examples=VERDICT_EXAMPLES
)
EXPLORING_PROFILES: Final = frozenset({"explore", "dev", "sweep"})


def seed_text(name: str = "<property>") -> str:
    """What a property's seed is the sha256 of."""
    return f"ctxspec {SEED_VERSION} examples of {name}"


def property_seed(name: str) -> int:
    """The seed of a property's fixed examples: the seed version and its name, nothing else."""
    digest = hashlib.sha256(seed_text(name).encode()).digest()
    return int.from_bytes(digest[:16], "big")


def example_policy(profile: str, seed: object = None) -> dict[str, Any]:
    """What a run under `profile` draws (`seed`: hypothesis's, when exploring). A verdict's
    policy names the shipped examples, and not the hypothesis installed: it draws nothing."""
    if profile in EXPLORING_PROFILES:
        return {
            "policy": "explore",
            "maxExamples": settings.get_profile(profile).max_examples,
            "seed": seed,  # None: each property drew its own random seed (printed on failure)
            "hypothesis": hypothesis.__version__,
            "statement": "random examples: an exploration, not a verdict",
        }
    return {
        "policy": "fixed",
        "maxExamples": VERDICT_EXAMPLES,
        "seed": f"sha256('{seed_text()}')",
        "hypothesis": HYPOTHESIS,
        "examples": EXAMPLES_FOLDER,
        "statement": "the examples shipped in the package, drawn once by hypothesis "
        f"{HYPOTHESIS}: the same on every machine, run, profile and worker count",
    }


def without_local_constants() -> Callable[[], None]:
    """Draw no constants mined from the modules loaded in this process; returns what sets
    it back.

    Hypothesis (since about 6.131) mixes into its draws the literals of every "local"
    module in `sys.modules` (files outside site-packages and the standard library): which
    ones depends on how ctxspec was installed, on the working directory and on which
    modules a process happened to import, so the same seed would draw other examples
    elsewhere. `examples_write` draws the shipped examples from the seed alone. The hook
    is an internal of hypothesis: on a release without it there is nothing to turn off.
    """
    try:
        from hypothesis.internal.conjecture import providers  # noqa: PLC0415
        from hypothesis.internal.constants_ast import Constants  # noqa: PLC0415
    except ImportError:
        return lambda: None
    original = getattr(providers, "_get_local_constants", None)
    if original is None:
        return lambda: None
    empty = Constants()
    providers._get_local_constants = lambda: empty

    def restore() -> None:
        providers._get_local_constants = original

    return restore
