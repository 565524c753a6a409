"""The universal checks of a cut tool output, in the agent's declared terms.

The profile's `tool_output.<tool>` declares the unit, the default limit, what survives a
cut (head, tail, or head and tail), the pattern a cut result matches (its groups `head`
and `tail` are the kept text, `omitted`/`total` the counts it states, `path` where the
rest is) and how the rest can be recovered; an agent that wraps every result in a header
declares it as an `envelope` whose group `body` the checks read (the budget counts the
whole result). Every check reads those terms, never Pi's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ctxspec.conformance.judging.compare import Difference
from ctxspec.conformance.judging.universal.units import lone_surrogates, replacements, size

__all__ = ["CHECKS"]

Terms = Mapping[str, Any]


def _violation(check: str, rule: str, actual: str) -> Difference:
    return Difference("$.content", rule, actual, check=check)


def _limit(terms: Terms, args: Mapping[str, Any]) -> float:
    limit = args.get("limit")
    return float(terms["limit"] if limit is None else limit)


def _size(text: str, terms: Terms, unit: str | None = None) -> int:
    return size(text, unit or terms["unit"], terms.get("per_token"))


def _body(terms: Terms, output: str) -> str:
    """The output inside the agent's declared envelope (all of it without one, or where
    the envelope itself was cut)."""
    envelope = terms.get("envelope")
    match = re.fullmatch(envelope, output, re.DOTALL) if envelope else None
    return match["body"] if match is not None else output


def _cut(terms: Terms, output: str) -> re.Match[str] | None:
    return re.fullmatch(terms["pattern"], _body(terms, output), re.DOTALL)


def _number(text: str | None) -> int | None:
    return None if text is None else int(text.replace(",", ""))


def whole_characters(terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    """A cut never splits a character: no lone surrogate, no U+FFFD the input lacked."""
    content, output = args["content"], result["content"]
    found = []
    lone_in, lone_out = len(lone_surrogates(content)), lone_surrogates(output)
    if len(lone_out) > lone_in:
        found.append(_violation(
            "whole-characters",
            f"no lone surrogate the input lacked (the input has {lone_in})",
            f"{len(lone_out)} lone surrogate(s), first at code point {lone_out[0]}",
        ))  # fmt: skip
    if replacements(output) > replacements(content):
        found.append(_violation(
            "whole-characters",
            f"no U+FFFD the input lacked (the input has {replacements(content)})",
            f"{replacements(output)} U+FFFD, first at code point {output.index(chr(0xFFFD))}",
        ))  # fmt: skip
    return found


def unchanged_within_limit(terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    """An output within the limit reaches the model as it came."""
    content, limit = args["content"], _limit(terms, args)
    output = _body(terms, result["content"])
    if _size(content, terms) <= limit and output != content:
        return [_violation(
            "unchanged-within-limit",
            f"{_size(content, terms)} {terms['unit']} is within the limit {limit:g}: unchanged",
            f"changed to {_size(output, terms)} {terms['unit']}",
        )]  # fmt: skip
    return []


def marked(terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    """A changed output carries the declared marker, which says what was dropped (its
    counts right) and how to get it back."""
    content, output = args["content"], result["content"]
    if _body(terms, output) == content:
        return []
    match = _cut(terms, output)
    if match is None:
        return [_violation(
            "marked", "a changed output matches the declared marker pattern",
            "no marker matches the output",
        )]  # fmt: skip
    found = []
    groups = match.groupdict()
    kept = (groups.get("head") or "") + (groups.get("tail") or "")
    unit = terms.get("omitted_unit", terms["unit"])
    stated = {"omitted": _number(groups.get("omitted")), "total": _number(groups.get("total"))}
    true = {"omitted": size(content, unit) - size(kept, unit), "total": size(content, unit)}
    for name, value in stated.items():
        if value is not None and value != true[name]:
            found.append(_violation(
                "marked", f"the marker's {name} count is the true one: {true[name]} {unit}",
                f"the marker says {value}",
            ))  # fmt: skip
    if terms["recover"] == "path" and not (groups.get("path") or "").strip():
        found.append(_violation("marked", "the marker names where the full output is", "no path"))
    return found


def true_cut(terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    """The kept text is a true prefix, suffix, or prefix plus suffix of the output."""
    content, output = args["content"], result["content"]
    match = _cut(terms, output) if _body(terms, output) != content else None
    if match is None:
        return []  # unchanged, or unmarked (`marked` says so)
    groups = match.groupdict()
    head, tail = groups.get("head"), groups.get("tail")
    found = []
    if head is not None and not content.startswith(head):
        found.append(_violation("true-cut", "the head is a prefix of the output", "it is not"))
    if tail is not None and not content.endswith(tail):
        found.append(_violation("true-cut", "the tail is a suffix of the output", "it is not"))
    if len(head or "") + len(tail or "") > len(content):
        found.append(_violation("true-cut", "head and tail do not overlap", "they overlap"))
    return found


def fits_budget(terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    """What reaches the model fits the declared limit, marker included; a limit smaller
    than the marker itself allows the marker alone (nothing kept)."""
    output, limit = result["content"], _limit(terms, args)
    match = _cut(terms, output) if _body(terms, output) != args["content"] else None
    allowed = limit
    if match is not None:
        kept = (match.groupdict().get("head") or "") + (match.groupdict().get("tail") or "")
        allowed = max(limit, _size(output, terms) - _size(kept, terms))
    if _size(output, terms) > allowed:
        return [_violation(
            "fits-budget", f"at most the limit, {limit:g} {terms['unit']}, marker included",
            f"{_size(output, terms)} {terms['unit']}",
        )]  # fmt: skip
    return []


def saved_whole(terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    """A saved full output holds every character that came in."""
    saved = result.get("saved")
    if saved is not None and saved != args["content"]:
        return [_violation(
            "saved-whole",
            f"the saved output is the whole input ({len(args['content'])} code points)",
            f"{len(saved)} code points saved",
        )]  # fmt: skip
    return []


CHECKS = {
    "whole-characters": whole_characters,
    "true-cut": true_cut,
    "marked": marked,
    "fits-budget": fits_budget,
    "unchanged-within-limit": unchanged_within_limit,
    "saved-whole": saved_whole,
}
