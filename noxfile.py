"""Sessions: tests, conform (per implementation), bench, lint, docs. `nox -l` lists them.

The default set is what CI runs: ctxspec's tests, the suite against the reference, Pi
0.85.0 (the pin) and Pi 1.6.0 (the newest release), the lint, and the docs site built with
warnings as errors. The long matrices are
sessions of their own, outside the default set: `conform_releases` (every other Pi
release with a shipped expectations file), `conform_ports` (the forks and ports),
`changelog` (the bisection page), `matrix` (the HTML report over all of them) and
`mutants` (mutation testing of reference/, the suite as the killer).
"""

from __future__ import annotations

import re
from pathlib import Path

import nox

nox.options.sessions = ["tests", "conform", "lint", "docs"]
nox.options.reuse_existing_virtualenvs = True

PYPROJECT = nox.project.load_toml("pyproject.toml")
IMPLEMENTATIONS = ["reference", "pi@0.85.0", "pi@1.6.0"]
EXPECTATIONS = Path("conformance/expectations")
RELEASES = sorted(
    (p.stem.removeprefix("pi-") for p in EXPECTATIONS.glob("pi-*.yaml")
     if re.fullmatch(r"pi-\d+\.\d+\.\d+", p.stem)),
    key=lambda v: tuple(int(x) for x in v.split(".")),
)  # fmt: skip
OTHER_RELEASES = [f"pi@{v}" for v in RELEASES if f"pi@{v}" not in IMPLEMENTATIONS]
PORTS = ["oh-my-pi@18.3.4", "pi-agents-py@0.58.3", "pi-agent-harness-lc@0.6.0"]


def install(session: nox.Session, *groups: str) -> None:
    session.install("-U", "pip")
    requirements = [r for g in groups for r in nox.project.dependency_groups(PYPROJECT, g)]
    # ripgrep from source would need crates.io: take its wheel or fail plainly
    session.install("--only-binary", "ripgrep", "-e", ".", *requirements)


@nox.session
def tests(session: nox.Session) -> None:
    """ctxspec's own tests (runner, fakes, corpus, engine), in parallel."""
    install(session, "test")
    session.run("pytest", "-n", "auto", *session.posargs)


def _conform(session: nox.Session, impl: str) -> None:
    install(session, "test")
    out = f"results/{impl.replace('@', '-')}"
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
    )


@nox.session
@nox.parametrize("impl", IMPLEMENTATIONS)
def conform(session: nox.Session, impl: str) -> None:
    """The conformance suite against one implementation (a named one is installed on first use)."""
    _conform(session, impl)


@nox.session(default=False)
@nox.parametrize("impl", OTHER_RELEASES)
def conform_releases(session: nox.Session, impl: str) -> None:
    """Every other Pi release with a shipped expectations file (not in CI's default set)."""
    _conform(session, impl)


@nox.session(default=False)
@nox.parametrize("impl", PORTS)
def conform_ports(session: nox.Session, impl: str) -> None:
    """The forks and ports from npm and PyPI, each in its own cache install."""
    _conform(session, impl)


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
    """The HTML/JSON matrix and badges over the reference, the Pi releases CI runs and the ports."""
    install(session, "test")
    impls = [arg for impl in [*IMPLEMENTATIONS, *PORTS] for arg in ("--impl", impl)]
    session.run("ctxspec", "matrix", *impls, "--out", "reports/matrix", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """The benchmark report with plots (`ctxspec bench`); posargs go to it (sizes, --compare)."""
    install(session, "test", "bench")
    session.run("ctxspec", "bench", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, mypy --strict on the engine and the suite, and the corpus lint."""
    install(session, "lint", "test")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", "reference", "conformance")
    session.run("mypy")
    session.run("ctxspec", "cases", "lint")


@nox.session
def docs(session: nox.Session) -> None:
    """The docs site (mkdocs.yml, docs/): `mkdocs build --strict`, every warning an error."""
    session.install("-U", "pip")
    session.install(*nox.project.dependency_groups(PYPROJECT, "docs"))
    session.run("mkdocs", "build", "--strict", *session.posargs)


@nox.session(default=False)
def mutants(session: nox.Session) -> None:
    """Mutation testing of reference/ with the suite as the killer (mutation/run.py; hours)."""
    install(session, "test", "mutants")
    session.run("python", "mutation/run.py", *session.posargs)
