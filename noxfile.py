"""Sessions: tests, conform (per implementation), bench, lint, docs. `nox -l` lists them.

The default set is what CI runs: ctxspec's tests, the suite against every implementation
with a shipped expectations file (one `conform` session each: the reference, the fast
engine, every Pi release, the fork, the ports and the other agents, derived from
`conformance/expectations/*.yaml`, so a new file is a new CI session), the tutorial's
example port (`example`), the lint (actionlint too) and the docs site (warnings as errors),
the sdist and the wheel (`dist`), and on Python 3.12 and 3.13 the fast tests and the
engines' conform (`pythons`, skipped where the interpreter is missing).
`conform_releases` (the Pi releases), `conform_ports` (the fork and the ports) and
`conform_agents` (Gemini CLI, Codex, Cline) run a subset of those sessions. Outside the
default set: `changelog` (the bisection page), `matrix` (the HTML report over every
implementation), `bench` and `mutants` (mutation testing of reference/, the suite as
the killer). docs/implementations.md has each conform session's wall time.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import nox

nox.options.sessions = ["tests", "conform", "example", "lint", "docs", "dist", "pythons"]
nox.options.reuse_existing_virtualenvs = True
# the whole CI runs on the interpreter nox runs on (3.11); `pythons` runs the fast tests and
# the engines' conform on the others. A machine without one of them skips its session (this
# one has no 3.12: .ci/debian-python); the GitHub workflow passes --error-on-missing-interpreters
OTHER_PYTHONS = ["3.12", "3.13"]
nox.options.error_on_missing_interpreters = False

PYPROJECT = nox.project.load_toml("pyproject.toml")
EXPECTATIONS = Path("conformance/expectations")


def _shipped() -> list[str]:
    """Every implementation with an expectations file, by the name in it: the reference and
    the fast engine, the Pi releases oldest first, then the forks and ports by name. The
    rule is the package's (`ctxspec impl list --json` reads it too), loaded by its path:
    nox's own interpreter need not have ctxspec installed."""
    spec = importlib.util.spec_from_file_location("shipped", "conformance/runner/shipped.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    names: list[str] = module.shipped_implementations(EXPECTATIONS)
    return names


IMPLEMENTATIONS = _shipped()
RELEASES = [name for name in IMPLEMENTATIONS if name.startswith("pi@")]
ENGINES = [
    "reference",
    "fastengine",
]  # this package's own (ctxspec.conformance.transport.resolve.ENGINES)
# the other coding agents: a family with a profile of its own (conformance/profiles/, Pi's aside)
AGENT_FAMILIES = {p.stem for p in Path("conformance/profiles").glob("*.yaml")} - {"pi"}
AGENTS = [name for name in IMPLEMENTATIONS if name.partition("@")[0] in AGENT_FAMILIES]
PORTS = [name for name in IMPLEMENTATIONS if name not in {*ENGINES, *RELEASES, *AGENTS}]


def install(session: nox.Session, *groups: str) -> None:
    session.install("-U", "pip")
    requirements = [r for g in groups for r in nox.project.dependency_groups(PYPROJECT, g)]
    # ripgrep from source would need crates.io: take its wheel or fail plainly
    session.install("--only-binary", "ripgrep", "-e", ".", *requirements)


@nox.session
def tests(session: nox.Session) -> None:
    """ctxspec's own tests (runner, fakes, corpus, engine), in parallel."""
    install(session, "test")
    # the sdist's and the wheel's tests build and install them: `nox -s dist` runs those
    session.run("pytest", "-n", "auto", "-m", "not dist", *session.posargs)


# What a `conform` session leaves out, by implementation: a pytest `-k` expression and why.
# `ctxspec conform --impl NAME` runs everything; docs/agents.md gives the full verdict.
LEFT_OUT = {
    "opencode@1.18.33": (
        "not test_agent_compaction_trigger",
        "each of the property's 60 examples replays a session through opencode, one 5 to 8 s "
        "run a turn: 27 minutes on its own",
    ),
}


def _conform(session: nox.Session, impl: str, suffix: str = "") -> None:
    install(session)  # ctxspec's own dependencies run the suite; the test group is not needed
    out = f"results/{impl.replace('@', '-')}{suffix}"
    left_out: list[str] = []
    if impl in LEFT_OUT:
        expression, why = LEFT_OUT[impl]
        session.log(f"left out of this session ({expression}): {why}")
        left_out = ["--", "-k", expression]
    session.run(
        "ctxspec",
        "conform",
        "--impl",
        impl,
        "-n",
        "auto",
        "--json",
        f"{out}.json",
        "--junit",
        f"{out}.xml",
        "--md",
        f"{out}.md",
        *session.posargs,
        *left_out,
    )


@nox.session
@nox.parametrize("impl", IMPLEMENTATIONS)
def conform(session: nox.Session, impl: str) -> None:
    """The conformance suite against one implementation (a named one is installed on first use)."""
    _conform(session, impl)


@nox.session(default=False)
@nox.parametrize("impl", RELEASES)
def conform_releases(session: nox.Session, impl: str) -> None:
    """The Pi releases alone (each also a `conform` session)."""
    _conform(session, impl)


@nox.session(default=False)
@nox.parametrize("impl", PORTS)
def conform_ports(session: nox.Session, impl: str) -> None:
    """The fork and the ports alone, each in its own cache install (also `conform` sessions)."""
    _conform(session, impl)


@nox.session(default=False)
@nox.parametrize("impl", AGENTS)
def conform_agents(session: nox.Session, impl: str) -> None:
    """The other coding agents alone, one session each (every family with a profile of its
    own; also `conform` sessions)."""
    _conform(session, impl)


@nox.session
def example(session: nox.Session) -> None:
    """The tutorial's port in Node (examples/node-truncate/, docs/guide/first-implementation.md):
    the suite passes it with no expectations file, and its exercise (a planted bug) goes
    through `ctxspec expectations write` to a file its own run passes."""
    if shutil.which("node") is None:
        session.error("node is not on PATH: the example port needs Node 20 or newer")
    install(session)
    port = "node examples/node-truncate/port.mjs"
    session.run("ctxspec", "conform", "--impl", port, *session.posargs)
    exercise = f"{port} --exercise"
    written = str(Path(session.create_tmp()) / "exercise-expectations.yaml")
    # exit status 1: the entries are written UNEXPLAINED until a person gives the reasons
    session.run("ctxspec", "expectations", "write", "--impl", exercise, "--file", written,
                success_codes=[1])  # fmt: skip
    session.run("ctxspec", "conform", "--impl", exercise, "--expectations", written)


@nox.session(default=False)
def changelog(session: nox.Session) -> None:
    """Rewrite docs/pi-changelog.md by bisection over Pi's releases since the pin."""
    install(session, "test")
    session.run(
        "ctxspec", "changelog", "pi@0.85.0..pi@1.6.0",
        "--out", "docs/pi-changelog.md", "--data", "docs/pi-changelog.json",
    )  # fmt: skip


@nox.session(default=False)
def matrix(session: nox.Session) -> None:
    """The HTML/JSON matrix and badges over every implementation with an expectations file."""
    install(session, "test")
    impls = [arg for impl in IMPLEMENTATIONS for arg in ("--impl", impl)]
    session.run("ctxspec", "matrix", *impls, "--out", "reports/matrix", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """The benchmark report with plots (`ctxspec bench`); posargs go to it (sizes, --compare)."""
    install(session, "test", "bench")
    session.run("ctxspec", "bench", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, mypy --strict on the engines, the suite and the benchmarks (so with the bench
    group: tiktoken's types), the corpus lint, actionlint over .github/workflows/ and
    shellcheck over .ci/."""
    install(session, "lint", "test", "bench")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", "ctxspec", "reference", "fastengine", "conformance")
    session.run("python", "typecheck_tree.py")  # the namespace as mypy must see it
    session.run("mypy")
    session.run("ctxspec", "cases", "lint")
    # the GitHub workflows, which cannot run here (actionlint: expressions, permissions,
    # runners, and their `run:` scripts through shellcheck), and the CI scripts
    session.run("actionlint", *map(str, sorted(Path(".github/workflows").glob("*.yml"))))
    session.run("shellcheck", ".ci/run", ".ci/debian-python")


@nox.session
def docs(session: nox.Session) -> None:
    """The docs site (mkdocs.yml, docs/): `mkdocs build --strict`, every warning an error."""
    session.install("-U", "pip")
    session.install(*nox.project.dependency_groups(PYPROJECT, "docs"))
    session.run("mkdocs", "build", "--strict", *session.posargs)


@nox.session
def dist(session: nox.Session) -> None:
    """The sdist and the wheel (`python -m build`), `twine check --strict` on both (metadata,
    the README as PyPI renders it), then tests/project/test_distribution.py on those files:
    the wheel's one import name, the sdist installed with no C compiler, both green."""
    install(session, "test", "dist")
    out = Path(session.virtualenv.location).resolve() / "dist"
    shutil.rmtree(out, ignore_errors=True)
    session.run("python", "-m", "build", "--outdir", str(out))
    session.run("twine", "check", "--strict", *map(str, sorted(out.iterdir())))
    session.run(
        "pytest", "tests/project/test_distribution.py", "-m", "dist", "-p", "no:randomly",
        *session.posargs, env={"CTXSPEC_DIST": str(out)},
    )  # fmt: skip


@nox.session(python=OTHER_PYTHONS)
def pythons(session: nox.Session) -> None:
    """ctxspec's fast tests and the engines' conform sessions on another Python."""
    install(session, "test")
    session.run("pytest", "-n", "auto", "-m", "not slow")
    for impl in ENGINES:  # posargs go to each `ctxspec conform`
        _conform(session, impl, suffix=f"-py{session.python}")


@nox.session(default=False)
def mutants(session: nox.Session) -> None:
    """Mutation testing of reference/ with the suite as the killer (mutation/run.py; hours)."""
    install(session, "test", "mutants")
    session.run("python", "mutation/run.py", *session.posargs)
