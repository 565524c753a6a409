"""The universal checks: what any sound coding agent does at the five boundaries, judged
in the agent's own declared terms (its profile, `ctxspec.conformance.runner.profiles`).

Each check is a function `(terms, args, result) -> [Difference]` that reads the profile's
terms for its op and returns one `violates:<check>` difference per broken promise (empty
when it holds), so a case's record lists every check its answer breaks. `judge` runs the
checks a case names (`expect: {holds: [...]}`), or all of its op's for a property.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from ctxspec.conformance.judging.compare import Difference
from ctxspec.conformance.judging.universal import compaction, instructions, sessions, tool_output
from ctxspec.conformance.runner.profiles import Profile

__all__ = ["CHECKS", "NotDeclared", "judge"]

Check = Callable[..., list[Difference]]

# op -> check name -> check
CHECKS: Final[Mapping[str, Mapping[str, Check]]] = {
    "agent.tool_output": tool_output.CHECKS,
    "agent.instructions": instructions.CHECKS,
    "agent.compaction": compaction.CHECKS,
    "agent.summary": compaction.SUMMARY_CHECKS,
    "agent.resume": sessions.CHECKS,
}


class NotDeclared(LookupError):
    """The profile declares no terms for what the request asks (e.g. a read tool)."""


def _terms(profile: Profile, op: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
    path = {
        "agent.tool_output": ("tool_output", args.get("tool") or "shell"),
        "agent.instructions": ("instructions",),
        "agent.compaction": ("compaction",),
        "agent.summary": ("summary",),
        "agent.resume": ("sessions",),
    }[op]
    terms = profile.term(*path)
    if op == "agent.summary":
        terms = terms or {}
    if not isinstance(terms, Mapping):
        raise NotDeclared(f"the {profile.name} profile declares no {'.'.join(path)} terms")
    if op == "agent.resume":
        wanted = "fork" if args.get("fork") else "resume"
        if not terms.get(wanted):
            raise NotDeclared(f"the {profile.name} profile declares no sessions.{wanted}")
    return terms


def judge(
    profile: Profile,
    op: str,
    args: Mapping[str, Any],
    result: Any,
    names: Iterable[str] | None = None,
) -> list[Difference]:
    """Every difference of `result` from the checks `names` (all of `op`'s when None)."""
    checks = CHECKS[op]
    terms = _terms(profile, op, args)
    found: list[Difference] = []
    for name in checks if names is None else names:
        check = checks[name]
        if op == "agent.instructions":
            found += check(terms, args, result, trust=profile.term("trust"))
        else:
            found += check(terms, args, result)
    return found
