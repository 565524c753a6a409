"""The sdist and the wheel as a user gets them: built once per test session (`python -m
build`), installed into fresh venvs outside the checkout, and the suite run from there.

`nox -s dist` builds both, runs `twine check --strict` and then these tests on the files it
built (`CTXSPEC_DIST` names their folder); `nox -s tests` leaves them out (marker `dist`).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from paths import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.dist]

DIST_ENV = "CTXSPEC_DIST"  # a folder holding one sdist and one wheel built from this checkout
TIMEOUT = 900  # an sdist build, or a whole `ctxspec conform` on a loaded two-core machine

# the wheel's packages, each a folder of the checkout (setup.py's map)
FOLDERS = ("reference", "fastengine", "conformance", "corpora", "benchmarks")
# the fast engine's C passes (setup.py's Extensions), each optional
C_PASSES = ("_speedups", "_sessions", "_tokens", "_parse", "_json")
# what the sdist must carry besides the packages' files: for the wheel built from it, and
# the changelog (MANIFEST.in) that docs/versioning.md points a port author to
SDIST_NEEDS = (
    "setup.py",
    "pyproject.toml",
    "README.md",
    "LICENSE",
    "CHANGELOG.md",
    "fastengine/_capi.h",
    *(f"fastengine/{name}.c" for name in C_PASSES),
)
# a project with its own packages named like the checkout's folders (issue 33's report)
OWN_PACKAGE = 'raise ImportError("the project\'s own")\n'


@dataclass(frozen=True)
class Dist:
    sdist: Path
    wheel: Path


def _build(out: Path) -> None:
    """`python -m build` from the checkout: the sdist, then the wheel built from it."""
    pytest.importorskip("build", reason="needs the dist dependency group (build, twine)")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def _found(folder: Path) -> Dist:
    sdists, wheels = sorted(folder.glob("ctxspec-*.tar.gz")), sorted(folder.glob("ctxspec-*.whl"))
    assert len(sdists) == len(wheels) == 1, f"{folder}: want one sdist and one wheel"
    return Dist(sdists[0], wheels[0])


@pytest.fixture(scope="session", autouse=True)
def outside_the_checkout(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The venvs and the project live where a user's would: not in this checkout, whose
    .gitignore ripgrep would apply to the grep cases' files (TMPDIR under .nox/, say)."""
    base = tmp_path_factory.getbasetemp().resolve()
    if base.is_relative_to(ROOT.resolve()):
        pytest.fail(f"the temporary folder {base} is inside the checkout: set TMPDIR elsewhere")


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    """One sdist and one wheel per test session: the ones $CTXSPEC_DIST names, or built once
    under the session's temporary folder, which pytest-xdist's workers share (a lock file
    makes the first one build and the others wait)."""
    given = os.environ.get(DIST_ENV)
    if given:
        return _found(Path(given).resolve())
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if "PYTEST_XDIST_WORKER" in os.environ else base
    out = shared / "ctxspec-dist"
    with (shared / "ctxspec-dist.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not out.exists():
            building = shared / "ctxspec-dist.partial"
            _build(building)
            building.rename(out)
    return _found(out)


class Venv:
    """A fresh virtual environment outside the checkout, with ctxspec installed in it."""

    def __init__(self, where: Path) -> None:
        venv.create(where, with_pip=True, clear=True)
        scripts = where / ("Scripts" if os.name == "nt" else "bin")
        self.python = scripts / "python"
        self.scripts = scripts

    def install(self, target: Path, **env: str) -> None:
        # ripgrep from source would need crates.io: its wheel or a plain failure (noxfile.py)
        self.run_checked(
            [str(self.python), "-m", "pip", "install", "--quiet", "--only-binary", "ripgrep",
             str(target)],
            cwd=target.parent, env=env,
        )  # fmt: skip

    def run(self, argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
        """A command with this venv's scripts first on PATH and nothing of the checkout's
        on the import path."""
        environ = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
        environ["PATH"] = os.pathsep.join([str(self.scripts), environ.get("PATH", "")])
        environ.update(env)
        return subprocess.run(
            argv, cwd=cwd, env=environ, capture_output=True, text=True, timeout=TIMEOUT,
            check=False,
        )  # fmt: skip

    def run_checked(self, argv: list[str], cwd: Path, env: dict[str, str]) -> str:
        done = self.run(argv, cwd, **env)
        assert done.returncode == 0, " ".join(argv) + "\n" + done.stdout[-4000:] + done.stderr
        return done.stdout

    def conform(self, cwd: Path, *args: str, module: bool = False) -> str:
        """`ctxspec conform` (or `python -m ctxspec conform`), which must be green."""
        command = [str(self.python), "-m", "ctxspec"] if module else [str(self.scripts / "ctxspec")]
        out = self.run_checked([*command, "conform", *args], cwd=cwd, env={})
        assert " passed" in out.splitlines()[-1], out[-2000:]
        return out

    def c_passes(self, cwd: Path) -> list[str]:
        """The fast engine's C passes this install can import."""
        probe = (
            "from ctxspec.fastengine._native import native\n"
            f"print(*[m for m in {C_PASSES!r} if native(m, '__name__')])\n"
        )
        return self.run_checked([str(self.python), "-c", probe], cwd=cwd, env={}).split()


def _wheel_names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def _sdist_names(sdist: Path) -> list[str]:
    with tarfile.open(sdist) as archive:
        return [name.split("/", 1)[1] for name in archive.getnames() if "/" in name]


def test_the_wheel_installs_one_import_name(dist: Dist) -> None:
    names = _wheel_names(dist.wheel)
    with zipfile.ZipFile(dist.wheel) as archive:
        info = next(n for n in names if n.endswith(".dist-info/top_level.txt"))
        assert archive.read(info).decode().split() == ["ctxspec"]
    strays = [n for n in names if not n.startswith(("ctxspec/", "ctxspec-"))]
    assert strays == [], "every file of the wheel is under ctxspec/ or its dist-info"
    assert {n.split("/")[1] for n in names if n.count("/") > 1 and n.startswith("ctxspec/")} >= {
        *FOLDERS
    }


@pytest.mark.skipif(
    shutil.which("cc") is None, reason="no C compiler to build the wheel's C passes"
)
def test_the_wheel_carries_the_compiled_fast_engine(dist: Dist) -> None:
    """Built where a C compiler is (CI, cibuildwheel), the wheel has every C pass."""
    names = _wheel_names(dist.wheel)
    built = {n.rsplit("/", 1)[1].split(".", 1)[0] for n in names if n.endswith((".so", ".pyd"))}
    assert built == set(C_PASSES)


def test_the_sdist_carries_what_the_wheel_needs(dist: Dist) -> None:
    in_sdist = set(_sdist_names(dist.sdist))
    assert set(SDIST_NEEDS) <= in_sdist
    # every file the wheel ships under ctxspec/<folder>/ comes from <folder>/ in the sdist
    shipped = {
        name.removeprefix("ctxspec/")
        for name in _wheel_names(dist.wheel)
        if name.startswith("ctxspec/") and not name.endswith((".so", ".pyd"))
    }
    missing = sorted(
        name for name in shipped if name not in in_sdist and f"ctxspec/{name}" not in in_sdist
    )
    assert missing == []


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's project with packages of its own named `reference` and `benchmarks`."""
    root = tmp_path_factory.mktemp("project")
    for name in ("reference", "benchmarks"):
        (root / name).mkdir()
        (root / name / "__init__.py").write_text(OWN_PACKAGE)
    return root


@pytest.fixture(scope="module")
def wheel_venv(dist: Dist, tmp_path_factory: pytest.TempPathFactory) -> Venv:
    env = Venv(tmp_path_factory.mktemp("wheel-venv"))
    env.install(dist.wheel)
    return env


def test_the_wheel_runs_in_a_project_with_its_own_reference(
    wheel_venv: Venv, project: Path
) -> None:
    wheel_venv.conform(project)
    # `python -m` puts the project first on the import path: its reference/ must not shadow
    wheel_venv.conform(project, module=True)
    assert wheel_venv.c_passes(project) == list(C_PASSES)


@pytest.fixture(scope="module")
def sdist_venv(dist: Dist, tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """The sdist installed where no C compiler runs (CC=false): setup.py's Extensions are
    optional, so the install goes on and the fast engine takes its Python paths."""
    env = Venv(tmp_path_factory.mktemp("sdist-venv"))
    env.install(dist.sdist, CC="false", CXX="false")
    return env


def test_the_sdist_installs_without_a_c_compiler_and_passes(
    sdist_venv: Venv, tmp_path: Path
) -> None:
    assert sdist_venv.c_passes(tmp_path) == []
    sdist_venv.conform(tmp_path)
    sdist_venv.conform(tmp_path, "--impl", "fastengine")
