"""An agent's process, confined: its own environment, HOME and temp dirs, no route out.

Coding agents run project hooks and plugins, and some write outside their home. Every
process of an agent harness (`Launch.confined`, every `NpmHarness`) is started by `wire`
with a `Confinement`:

- **An explicit environment** (`environment`): `PATH` (the caller's: the toolchain),
  `HOME` and the XDG directories in a private home, `TMPDIR`/`TMP`/`TEMP`, `LANG=C.UTF-8`,
  ctxspec's own `CTXSPEC_*` settings, the run's marks and what the harness declares;
  nothing else of the caller's.
- **Private folders**, inside the process's own temp dir in the run dir, removed with it:
  the home, and (in the namespaces) what the agent writes to the system temp dir.
- **Namespaces** where the kernel allows (`probe`): the adapter runs through `jail.py`:
  a network namespace with only loopback (a model server the adapter starts on 127.0.0.1
  is in it too), a private `/tmp`, the caller's HOME read-only; the run dir and ctxspec's
  install cache stay as they are.
- **Without namespaces** the proxy variables point at a closed loopback port (loopback
  excepted), the run reports it is not network-isolated, and what appears in the caller's
  HOME or the system temp dir while the agent runs is reported (not removed: those
  folders are shared, another process may have made it).

What a confined process left behind (`Confinement.finish`) is written to the run's
`confinement.jsonl` (every xdist worker joins the controller's run dir), and `header`
reads it into the results' `confinement` field.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import pwd
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.transport import jail
from ctxspec.conformance.transport.cache import cache_root
from ctxspec.conformance.transport.processes import TMP_VARIABLES, run_dir

__all__ = [
    "DEAD_PROXY",
    "ISOLATED",
    "NOT_ISOLATED",
    "Confinement",
    "environment",
    "header",
    "probe",
]

DEAD_PROXY: Final = "http://127.0.0.1:9"  # the discard port: nothing listens on it
PROXY_VARIABLES: Final = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
LOOPBACK: Final = "127.0.0.1,localhost,::1"
JAIL: Final = Path(jail.__file__)
CAUGHT: Final = "confinement.jsonl"  # in the run dir: one line per thing left behind
HOME_DIR: Final = "home"  # inside the process's temp dir
SYSTEM_TMP_DIR: Final = "system-tmp"  # what the agent wrote to /tmp, in the namespaces
ISOLATED: Final = "network namespace (loopback only), private /tmp, HOME read-only"
NOT_ISOLATED: Final = (
    "not network-isolated: no namespaces on this kernel; HTTP proxies point at a closed "
    "loopback port, and what appears in HOME or the system temp dir is reported"
)
OWN: Final = "CTXSPEC_"  # ctxspec's own settings (CTXSPEC_CODEX_TIMEOUT) pass through
_PROBE_TIMEOUT: Final = 10.0


def _system_temp_dirs() -> list[str]:
    """The system temp dir, and the runner's own where it is another."""
    return list(dict.fromkeys(["/tmp", os.path.realpath(tempfile.gettempdir())]))


def _real_homes() -> list[str]:
    """The caller's HOME and its account's, where they are folders (never `/`)."""
    found = [os.environ.get("HOME", "")]
    with contextlib.suppress(KeyError):
        found.append(pwd.getpwuid(os.getuid()).pw_dir)
    homes = (os.path.realpath(path) for path in found if path)
    return list(dict.fromkeys(path for path in homes if path != "/" and os.path.isdir(path)))


@functools.cache
def probe() -> bool:
    """Whether this kernel gives an unprivileged process the namespaces `jail.py` makes."""
    if not sys.platform.startswith("linux"):
        return False
    spec = json.dumps({"private": [], "readonly": [], "shown": [], "keep": []})
    argv = [sys.executable, "-I", "-S", str(JAIL), spec, "--", jail.CHECK]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_PROBE_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _shown(argv: list[str], env: Mapping[str, str]) -> list[str]:
    """The folders a confined command runs from, kept visible where /tmp is private:
    ctxspec itself, its Python, the absolute paths of `argv` and `env`, the PATH."""
    here = Path(__file__)
    found = [str(here.parents[2]), str(here.resolve().parents[2])]
    found += [sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))]
    found += [value for value in [*argv, *env.values()] if os.path.isabs(value)]
    found += env.get("PATH", "").split(os.pathsep)
    folders = []
    for path in found:
        if os.path.isabs(path) and os.path.exists(path):
            real = os.path.realpath(path)
            folders.append(real if os.path.isdir(real) else os.path.dirname(real))
    return list(dict.fromkeys(folders))


def _outside(paths: list[str], private: list[str]) -> list[str]:
    """`paths` less `/`, the private folders and those holding one (mounted back, they
    would undo it; a HOME of /tmp is private already)."""
    return [
        path
        for path in paths
        if path != os.sep
        and not any(folder == path or folder.startswith(path + os.sep) for folder in private)
    ]


def _kernel_isolates() -> bool:
    """`probe()`, looked up when called (a test stands in for a kernel without namespaces)."""
    return probe()


def environment(declared: Mapping[str, str], home: str, tmpdir: str) -> dict[str, str]:
    """The whole environment of a confined process: the toolchain's PATH, a private home
    and temp dir, `LANG`, then what the harness declares (its HOME never wins)."""
    env = {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8"}
    env |= {name: value for name, value in os.environ.items() if name.startswith(OWN)}
    env |= declared
    env |= {
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
        "XDG_CACHE_HOME": os.path.join(home, ".cache"),
        "XDG_STATE_HOME": os.path.join(home, ".local", "state"),
    }
    env |= dict.fromkeys(TMP_VARIABLES, tmpdir)
    return env


def _entries(folder: str) -> set[str]:
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


@dataclass
class Confinement:
    """One confined process: its environment and argv, and after it, what it left."""

    name: str  # the implementation, for the report
    tmpdir: str  # the process's own temp dir (in the run dir), removed with it
    isolated: bool = field(default_factory=_kernel_isolates)
    _before: dict[str, set[str]] = field(default_factory=dict)
    _skeleton: set[str] = field(default_factory=set)  # folders jail.py makes in the private tmp

    @property
    def home(self) -> str:
        return os.path.join(self.tmpdir, HOME_DIR)

    @property
    def system_tmp(self) -> str:
        return os.path.join(self.tmpdir, SYSTEM_TMP_DIR)

    def __post_init__(self) -> None:
        _caught().touch()  # the run had a confined process: the results say how

    def env(self, declared: Mapping[str, str]) -> dict[str, str]:
        """The process's environment (`environment`), proxies closed where not isolated."""
        os.makedirs(self.home, exist_ok=True)
        env = environment(declared, self.home, self.tmpdir)
        if not self.isolated:
            for name in PROXY_VARIABLES:
                env[name] = env[name.lower()] = DEAD_PROXY
            env["NO_PROXY"] = env["no_proxy"] = LOOPBACK
        return env

    def argv(self, argv: list[str], env: Mapping[str, str]) -> list[str]:
        """`argv`, run through `jail.py` where the kernel allows; remembers what the shared
        folders held before, to tell what the process left there."""
        self._before = {folder: _entries(folder) for folder in self._watched()}
        if not self.isolated:
            return argv
        os.makedirs(self.system_tmp, exist_ok=True)
        private = _system_temp_dirs()
        readonly = _outside(_real_homes(), private)
        keep = [os.path.realpath(run_dir()), os.path.realpath(cache_root())]
        shown = _outside(_shown(argv, env), private)
        for path in [*readonly, *shown, *keep]:  # their mount points, made in the private tmp
            for folder in private:
                inside = os.path.relpath(path, folder)
                if not inside.startswith(os.pardir):
                    parts = inside.split(os.sep)
                    self._skeleton |= {"/".join(parts[: n + 1]) for n in range(len(parts))}
        spec = {
            "private": [[folder, self.system_tmp] for folder in private],
            "readonly": readonly,
            "shown": shown,
            "keep": keep,
        }
        return [sys.executable, "-I", "-S", str(JAIL), json.dumps(spec), "--", *argv]

    def _watched(self) -> list[str]:
        """The shared folders checked after the run (where nothing keeps the agent out)."""
        return [] if self.isolated else [*_system_temp_dirs(), *_real_homes()]

    def finish(self) -> list[str]:
        """What the ended process left outside its folders: each, as a line, also written
        to the run's `confinement.jsonl`. Call before its temp dir is removed."""
        left = [f"/tmp/{name} (in its private /tmp, removed)" for name in self._private_left()]
        for folder, before in self._before.items():
            new = sorted(_entries(folder) - before - {os.path.basename(run_dir())})
            left += [f"{folder}/{name} (reported, not removed)" for name in new]
        if left:
            line = json.dumps({"implementation": self.name, "left": left})
            with _caught().open("a", encoding="utf-8") as file:
                file.write(line + "\n")
        return left

    def _private_left(self, inside: str = "") -> list[str]:
        """What the process wrote to its private /tmp, less the mount points made there."""
        found = []
        for name in sorted(_entries(os.path.join(self.system_tmp, inside))):
            path = f"{inside}/{name}" if inside else name
            if path not in self._skeleton:
                found.append(path)
            elif not os.path.islink(os.path.join(self.system_tmp, path)):
                found += self._private_left(path)
        return found


def _caught() -> Path:
    return Path(run_dir(), CAUGHT)


def header() -> dict[str, Any] | None:
    """The results' `confinement`: how the run's agents were confined and what they left
    behind; None where no process of the run was confined."""
    try:
        lines = _caught().read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    left = dict.fromkeys(item for line in lines for item in json.loads(line)["left"])
    means = ISOLATED if probe() else NOT_ISOLATED
    return {"isolated": probe(), "means": means, "left": list(left)}
