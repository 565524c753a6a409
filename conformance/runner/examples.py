"""Which examples the properties draw: the verdict's fixed set, or an exploration.

The verdict's examples are a fixed set per property, drawn from a seed derived from the
suite version and the property's name, never from the clock, the machine, the profile
or the worker count; hypothesis's example database is off, so no earlier run's failure
is replayed. The same implementation then gets the same verdict everywhere. Random
exploration is `--explore` (or `ctxspec sweep`, `ctxspec fuzz`); what it finds becomes
golden cases. docs/verdict.md says why.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis.internal.conjecture import providers
from hypothesis.internal.constants_ast import Constants

# the version the verdict's seeds are derived from: the package's version when the fixed
# examples were introduced, kept as it is so that the examples stay the same
SEED_VERSION: Final = "0.1.0"

__all__ = [
    "EXPLORE_EXAMPLES",
    "EXPLORING_PROFILES",
    "VERDICT_EXAMPLES",
    "example_policy",
    "property_seed",
    "without_local_constants",
]

# hypothesis's explain phase reruns a failed property hundreds of times (about 100 per
# argument) to say which arguments vary freely: each run is a request, and against an
# implementation that is always wrong, with large answers, it was most of a run's time.
# The failure and its shrunk example are the same without it; `debug` keeps it.
_PHASES: Final = tuple(phase for phase in Phase if phase is not Phase.explain)

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
# the verdict: the explorer's settings, with the fixed examples (property_seed) and fewer
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


def property_seed(name: str) -> int:
    """The seed of a property's fixed examples: the suite version and its name, nothing else."""
    digest = hashlib.sha256(f"ctxspec {SEED_VERSION} examples of {name}".encode()).digest()
    return int.from_bytes(digest[:16], "big")


def example_policy(profile: str, seed: object = None) -> dict[str, Any]:
    """What a run under `profile` draws (`seed`: hypothesis's, when exploring)."""
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
        "maxExamples": settings.get_profile(profile).max_examples,
        "seed": f"sha256('ctxspec {SEED_VERSION} examples of <property>')",
        "hypothesis": hypothesis.__version__,
        "statement": "the same examples on every machine, run, profile and worker count",
    }


_NO_CONSTANTS: Final = Constants()


def _no_local_constants() -> Constants:
    return _NO_CONSTANTS


def without_local_constants() -> None:
    """Draw no constants mined from the modules loaded in this process.

    Hypothesis mixes into its draws the literals of every "local" module in
    `sys.modules` (files outside site-packages and the standard library): which ones
    depends on how ctxspec was installed (`pip install -e .` makes its own modules local,
    `pip install .` does not), on the user's working directory and on which modules a run
    happened to import before a property drew, so the same seed would draw other
    examples on another machine. The verdict's examples come from the seed alone.
    (Hypothesis is pinned to one version, whose provider looks the function up by name.)
    """
    providers._get_local_constants = _no_local_constants
