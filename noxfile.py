"""Sessions: tests, conform (per implementation), bench, lint. `nox -l` lists them."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "conform", "lint"]
nox.options.reuse_existing_virtualenvs = True

PYPROJECT = nox.project.load_toml("pyproject.toml")
IMPLEMENTATIONS = ["reference", "pi@0.85.0"]


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


@nox.session
@nox.parametrize("impl", IMPLEMENTATIONS)
def conform(session: nox.Session, impl: str) -> None:
    """The conformance suite against one implementation (the real Pi is installed on first use)."""
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
