"""The composite GitHub Action for port authors: it parses and does what its docs page says."""

from __future__ import annotations

import re

import yaml
from paths import ROOT


def test_action_declares_the_inputs_the_docs_use() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    inputs = set(action["inputs"])
    assert {"command", "expectations", "args"} <= inputs
    page = (ROOT / "docs" / "guide" / "ci.md").read_text()
    example = page.split("uses: <this repository>@main")[1].split("```")[0]
    used = set(re.findall(r"^\s+([a-z-]+):", example.split("with:")[1], re.M))
    assert used and used <= inputs
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", page, re.M))
    assert documented == inputs, "the page's table of inputs is the action's"
    steps = " ".join(str(step) for step in action["runs"]["steps"])
    for needed in ("ctxspec conform", "--junit", "--json", "ctxspec matrix", "upload-artifact"):
        assert needed in steps
