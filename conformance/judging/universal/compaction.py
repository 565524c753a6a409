"""The universal checks of compaction and its summary, in the agent's declared terms.

The profile's `compaction.trigger` says which count the agent compares (the provider's
usage, its own estimate, or either) and where (a share of the window, or the window less
a reserve); `estimate` how it counts (characters per token); `keep_tail` what share of the
history it keeps verbatim. An estimate is an estimate: within `tolerance` (10 % unless
declared) of the threshold, the decision is not judged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ctxspec.conformance.judging.compare import Difference

__all__ = ["CHECKS", "expected_compact"]

Terms = Mapping[str, Any]


def _threshold(terms: Terms, window: float) -> float:
    trigger = terms["trigger"]
    if "reserve" in trigger:
        return float(window - trigger["reserve"])
    return float(trigger["at"] * window)


def _over(terms: Terms, tokens: float, threshold: float) -> bool:
    trigger = terms["trigger"]
    if trigger.get("strict", "reserve" in trigger):  # a reserve is strict unless declared not
        return tokens > threshold
    return tokens >= threshold


def _estimate(terms: Terms, messages: Sequence[Mapping[str, Any]]) -> float | None:
    estimate = terms.get("estimate")
    if not estimate:
        return None
    return sum(len(m["text"]) for m in messages) / float(estimate["chars_per_token"])


def expected_compact(terms: Terms, args: Mapping[str, Any]) -> bool | None:
    """Whether the declared rule compacts here; None when only an estimate near the
    threshold decides it (not judged)."""
    sources = terms["trigger"]["from"]
    threshold = _threshold(terms, args["window"])
    usage = args.get("usage")
    if "usage" in sources and usage is not None and _over(terms, usage, threshold):
        return True
    if usage is not None and terms["trigger"].get("combine") == "usage-else-estimate":
        sources = [s for s in sources if s != "estimate"]
    estimate = _estimate(terms, args["messages"]) if "estimate" in sources else None
    if estimate is not None:
        tolerance = (terms.get("estimate") or {}).get("tolerance", 0.1) * threshold
        if abs(estimate - threshold) <= tolerance:
            return None
        if _over(terms, estimate, threshold):
            return True
    return False


def _trigger(check: str, terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    expected = expected_compact(terms, args)
    if expected is None or expected == result["compact"]:
        return []
    trigger = terms["trigger"]
    rule = (f"window - {trigger['reserve']:g}" if "reserve" in trigger
            else f"{trigger['at']:g} x window")  # fmt: skip
    threshold = _threshold(terms, args["window"])
    return [Difference(
        "$.compact",
        f"compacts when {' or '.join(trigger['from'])} reaches {rule} = {threshold:g} tokens: "
        f"{'compacts' if expected else 'does not compact'}",
        f"compact: {str(result['compact']).lower()} (usage {args.get('usage')}, "
        f"estimate {_estimate(terms, args['messages'])})",
        check=check,
    )]  # fmt: skip


def trigger_usage(terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    """Compaction triggers at the declared threshold, counted from the provider's usage."""
    return _trigger("trigger-usage", terms, args, result)


def trigger_estimate(terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    """Compaction triggers at the declared threshold, counted by the agent's estimate."""
    return _trigger("trigger-estimate", terms, args, result)


def _weight(message: Mapping[str, Any], unit: str) -> int:
    if unit == "json-chars":
        return len(json.dumps(message, ensure_ascii=False))
    return len(message["text"])


def keeps_declared_tail(terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    """A compaction keeps the tail its rule declares: about `share` of the history, give
    or take the tolerance and one message (the cut lands between messages)."""
    tail, keep = terms.get("keep_tail"), result.get("keep")
    messages = args["messages"]
    if not tail or not result["compact"] or keep is None or not messages:
        return []
    unit = tail.get("unit", "chars")
    weights = [_weight(m, unit) for m in messages]
    total = sum(weights) or 1
    share = sum(weights[int(keep) :]) / total
    slack = tail.get("tolerance", 0.1) + max(weights) / total
    if abs(share - tail["share"]) > slack:
        return [Difference(
            "$.keep",
            f"keeps about {tail['share']:.0%} of the history ({unit}), within {slack:.0%}",
            f"keeps {share:.0%} (from message {keep} of {len(messages)})",
            check="keeps-declared-tail",
        )]  # fmt: skip
    return []


def tool_pair_whole(terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    """The kept tail never starts with a tool result cut off from its call."""
    keep, messages = result.get("keep"), args["messages"]
    if not result["compact"] or keep is None or not 0 <= keep < len(messages):
        return []
    if messages[int(keep)]["role"] == "tool":
        return [Difference("$.keep", "the kept tail starts at a call or a user message",
                           f"it starts at message {keep}, a tool result",
                           check="tool-pair-whole")]  # fmt: skip
    return []


def length_cut_refused(terms: Terms, args: Mapping[str, Any], result: Any) -> list[Difference]:
    """A summary the model stopped at its output limit is not used."""
    if args["stopReason"] == "length" and result["accepted"]:
        return [Difference("$.accepted", "a summary cut at the length limit is refused",
                           "accepted", check="length-cut-refused")]  # fmt: skip
    return []


CHECKS = {
    "trigger-usage": trigger_usage,
    "trigger-estimate": trigger_estimate,
    "keeps-declared-tail": keeps_declared_tail,
    "tool-pair-whole": tool_pair_whole,
}
SUMMARY_CHECKS = {"length-cut-refused": length_cut_refused}
