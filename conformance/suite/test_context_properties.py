"""Properties of context-file discovery, trust and resource loading, for any implementation.

Invariants need no oracle (corpora/README.md lists them): context files come ancestors
first, at most one per directory; an untrusted project never gets a gated resource in
front of the model. The differential tests compare the implementation with the reference
engine on the same small random tree (`ctxspec.conformance.strategies.trees`), and for the skill
and prompt ops on the arguments `ctxspec fuzz` draws (`ctxspec.conformance.strategies.ops`).
"""

from __future__ import annotations

import itertools
import posixpath
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxspec.conformance.judging.check import result_of
from ctxspec.conformance.runner.failing_example import json_text
from ctxspec.conformance.strategies.ops import OP_ARGS
from ctxspec.conformance.strategies.trees import GATED_MARK, context_trees, trust_stores
from ctxspec.conformance.suite.differential import per_op, same_as_reference
from ctxspec.conformance.transport.base import Implementation

B2 = "instruction_ordering"
B3 = "trust_denial"


def _call(impl: Implementation, op: str, args: dict[str, Any]) -> Any:
    return result_of(impl, op, args)


def _trust_args(data: st.DataObject, tree: dict[str, Any]) -> dict[str, Any]:
    store = data.draw(trust_stores(tree["cwd"]), label="trustStore")
    default = data.draw(st.sampled_from((None, "always", "never", "ask")), label="default")
    override = data.draw(st.sampled_from((None, None, True, False)), label="override")
    return {**tree, "trustStore": store, "defaultProjectTrust": default, "trustOverride": override}


@pytest.mark.ctxspec_property(boundary=B2, op="context.discover", rule="CTX-2", level="compat")
@given(tree=context_trees())
def test_discovery_matches_reference(impl: Implementation, tree: dict[str, Any]) -> None:
    """context.discover answers what the reference answers on the same tree."""
    same_as_reference(impl, "context.discover", tree)


@pytest.mark.ctxspec_property(boundary=B2, op="context.discover", rule="CTX-2")
@given(tree=context_trees())
def test_ancestors_before_descendants(impl: Implementation, tree: dict[str, Any]) -> None:
    """After the agentDir file, each file's directory is a strict ancestor of the next's,
    and no directory gives two files."""
    files = _call(impl, "context.discover", tree)["agentsFiles"]
    dirs = [posixpath.dirname(f["path"]) for f in files if not f["path"].startswith("/agent/")]
    assert len(dirs) == len(set(dirs)), f"two context files from one directory: {json_text(dirs)}"
    for upper, lower in itertools.pairwise(dirs):
        assert lower.startswith(upper.rstrip("/") + "/"), f"{upper} listed before {lower}"
    assert all(tree["cwd"] == d or tree["cwd"].startswith(d + "/") for d in dirs)


@pytest.mark.ctxspec_property(boundary=B3, op="trust.resolve", rule="TRUST-4", level="compat")
@given(data=st.data(), tree=context_trees())
def test_trust_matches_reference(
    impl: Implementation, data: st.DataObject, tree: dict[str, Any]
) -> None:
    """trust.resolve answers what the reference answers, for random decisions up the path."""
    same_as_reference(impl, "trust.resolve", _trust_args(data, tree))


@pytest.mark.ctxspec_property(boundary=B3, op="resources.load", rule="RES-1", level="compat")
@given(tree=context_trees(), trusted=st.booleans())
def test_resources_match_reference(
    impl: Implementation, tree: dict[str, Any], trusted: bool
) -> None:
    """resources.load answers what the reference answers, trusted or not."""
    same_as_reference(impl, "resources.load", {**tree, "projectTrusted": trusted})


@pytest.mark.ctxspec_property(boundary=B3, op="resources.load", rule="RES-2")
@given(data=st.data(), tree=context_trees())
def test_untrusted_loads_no_gated_kind(
    impl: Implementation, data: st.DataObject, tree: dict[str, Any]
) -> None:
    """When trust.resolve says untrusted, no gated skill, prompt or system text is loaded."""
    resolution = _call(impl, "trust.resolve", _trust_args(data, tree))
    loaded = _call(impl, "resources.load", {**tree, "projectTrusted": resolution["trusted"]})
    if resolution["trusted"]:
        return
    gated = [s["filePath"] for s in loaded["skills"] if "/agent/" not in s["filePath"]]
    gated = [p for p in gated if not p.startswith("/home/.agents/")]
    assert not gated, f"untrusted, yet project skills loaded: {json_text(gated)}"
    assert not loaded["prompts"], f"untrusted, yet prompts loaded: {json_text(loaded['prompts'])}"
    texts = [loaded["systemPrompt"] or "", *loaded["appendSystemPrompt"]]
    assert not any(GATED_MARK in t for t in texts), f"untrusted, yet gated text: {json_text(texts)}"


# op -> (boundary, rule): the skill and prompt ops, each compared with the reference on the
# fuzz strategies' arguments (skill trees with ignore files and sharp front matter, skills
# with sharp fields, every tool selection)
DIFFERENTIAL_OPS: Final = {
    "skills.load": (B2, "SKILL-1"),
    "skills.format": (B2, "SKILL-6"),
    "prompt.build": (B2, "PROMPT-1"),
}


@pytest.mark.parametrize("op", per_op(DIFFERENTIAL_OPS))
@given(data=st.data())
def test_context_op_matches_reference(impl: Implementation, op: str, data: st.DataObject) -> None:
    """Differential: the op answers what the reference answers on drawn arguments."""
    same_as_reference(impl, op, data.draw(OP_ARGS[op], label="args"))
