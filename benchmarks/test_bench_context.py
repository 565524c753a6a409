"""Context-file discovery and system-prompt assembly on a deep and a wide tree.

The reference walks a `Listing` (built once, outside the timing); the real Pi walks the
same tree laid out on disk, timed inside Node (`pi_context.mjs`), in the same run. Deep:
cwd 200 directories down, an `AGENTS.md` every 10 levels and a `CLAUDE.md` between.
Wide: cwd 10 levels down, every ancestor also holding 500 other files and directories.
"""

from __future__ import annotations

import json
import statistics
import subprocess
from pathlib import Path
from typing import Any

import pytest

from reference.discovery import load_project_context_files
from reference.prompt import build_system_prompt
from reference.tree import Listing

HERE = Path(__file__).resolve().parent
ROUNDS = 20


def deep_tree() -> tuple[dict[str, Any], str]:
    tree: dict[str, Any] = {"agent/AGENTS.md": "global rules\n"}
    path = "ws"
    for depth in range(200):
        path += f"/d{depth}"
        if depth % 10 == 0:
            tree[f"{path}/AGENTS.md"] = f"rules at depth {depth}\n" * 20
        elif depth % 10 == 5:
            tree[f"{path}/CLAUDE.md"] = f"claude rules at depth {depth}\n"
    tree[f"{path}/"] = {}
    return tree, "/" + path


def wide_tree() -> tuple[dict[str, Any], str]:
    tree: dict[str, Any] = {"agent/AGENTS.md": "global rules\n"}
    path = "ws"
    for depth in range(10):
        path += f"/level{depth}"
        tree[f"{path}/AGENTS.md"] = f"rules at level {depth}\n"
        for n in range(250):
            tree[f"{path}/file{n}.txt"] = "x"
            tree[f"{path}/dir{n}/"] = {}
    return tree, "/" + path


TREES = {"deep-200": deep_tree, "wide-10x500": wide_tree}


@pytest.fixture(scope="module", params=sorted(TREES))
def tree_case(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any], str]:
    tree, cwd = TREES[request.param]()
    return request.param, tree, cwd


def test_reference_discovery_and_prompt(benchmark: Any, tree_case: Any) -> None:
    _, tree, cwd = tree_case
    listing = Listing.from_wire(tree)

    def run() -> str:
        files = load_project_context_files(listing, cwd=cwd, agent_dir="/agent")
        return build_system_prompt(cwd=cwd, context_files=files, selected_tools=["read", "bash"])

    prompt = benchmark(run)
    assert "<project_context>" in prompt


def test_pi_discovery_and_prompt(benchmark: Any, tree_case: Any, tmp_path: Path) -> None:
    pi = pytest.importorskip("conformance.harnesses.pi")
    try:
        install = pi.ensure_installed(quiet=True)
    except pi.PiInstallError as error:
        pytest.skip(f"Pi 0.85.0 unavailable: {error}")
    _, tree, cwd = tree_case
    tree_file = tmp_path / "tree.json"
    tree_file.write_text(json.dumps(tree))
    argv = [
        str(install.node),
        str(HERE / "pi_context.mjs"),
        str(install.package_dir),
        str(tree_file),
        cwd,
        "/agent",
        str(ROUNDS),
    ]

    def run() -> dict[str, Any]:
        out = subprocess.run(argv, capture_output=True, check=True)
        loaded: dict[str, Any] = json.loads(out.stdout)
        return loaded

    report = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info["pi_discover_median_ns"] = statistics.median(report["discoverNs"])
    benchmark.extra_info["pi_prompt_median_ns"] = statistics.median(report["promptNs"])
    listing = Listing.from_wire(tree)
    assert report["files"] == len(load_project_context_files(listing, cwd=cwd, agent_dir="/agent"))
