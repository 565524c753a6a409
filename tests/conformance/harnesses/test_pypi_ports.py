"""What every PyPI port's install gives (`transport.pyvenv.PypiPort`): a venv that holds
exactly the pinned packages, installed once and launched with only the venv on its path."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from ctxspec.conformance.harnesses import pi_agent_harness_lc, pi_agents_py
from ctxspec.conformance.transport.cache import cache_root
from ctxspec.conformance.transport.pyrun import PYRUN

PORTS = [
    pytest.param(pi_agents_py, "0.58.3", id="pi-agents-py@0.58.3"),
    pytest.param(pi_agent_harness_lc, "0.6.0", id="pi-agent-harness-lc@0.6.0"),
]


def _normalized(pins: list[str]) -> set[str]:
    """`Name_X==1.0` as PEP 503 names it: `name-x==1.0`."""
    return {
        re.sub(r"[-_.]+", "-", pin.split("==")[0]).lower() + "==" + pin.split("==")[1]
        for pin in pins
    }


@pytest.mark.parametrize("port, version", PORTS)
def test_every_package_in_the_venv_is_pinned(port: ModuleType, version: str) -> None:
    """The venv holds exactly the pinned packages: no dependency floats, so a verdict stays."""
    python = Path(port.install(version, quiet=True).argv[0])
    frozen = subprocess.run(
        [python, "-I", "-m", "pip", "freeze", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert _normalized(frozen) == _normalized(port.requirements(version))


@pytest.mark.parametrize("port, version", PORTS)
def test_install_is_cached(port: ModuleType, version: str) -> None:
    """A second install returns the same venv python from the cache and the adapter."""
    first = port.install(version, quiet=True)
    second = port.install(version, quiet=True)
    assert first.argv == second.argv
    python, *flags, launcher, script = first.argv
    name = {"0.58.3": "pi-agents-py-0.58.3", "0.6.0": "pi-agent-harness-lc-0.6.0"}[version]
    minor = f"py{sys.version_info.major}.{sys.version_info.minor}"  # one venv per Python
    assert Path(python).is_relative_to(cache_root() / "impls" / f"{name}-{minor}")
    assert flags == ["-I", "-B"]  # only the venv: no PYTHONPATH, no user site
    assert (Path(launcher), Path(script)) == (PYRUN, port.ADAPTER)
