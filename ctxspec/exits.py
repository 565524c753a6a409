"""Every exit status of every `ctxspec` subcommand, in one table (`EXITS`).

A CI script branches on these numbers, so each has one name and one meaning across the
command line, and the per-command rows say what it means for that command. The
subcommands return the named constants (`OK`, `FAILED`, `USAGE`, `ERRORS`,
`REFERENCE_DIFFERS`, `STARTUP_FAILED`); `ctxspec X --help` lists X's statuses from here;
and docs/guide/exit-statuses.md is generated from it:

    python -m ctxspec.exits --markdown > docs/guide/exit-statuses.md
    python -m ctxspec.exits --check     # exit 1 when the committed page differs

`tests/project/test_exits.py` runs the check, and checks that each command named here is
one the command line registers.

- `statuses(command)`: status -> meaning for one subcommand (`fuzz`, `conform`, ...).
- `commands()`: the commands the table names.
- `markdown()`: the page.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = [
    "ERRORS",
    "EXITS",
    "FAILED",
    "OK",
    "PAGE",
    "REFERENCE_DIFFERS",
    "STARTUP_FAILED",
    "USAGE",
    "Exit",
    "commands",
    "markdown",
    "statuses",
]

PAGE: Final = Path("docs/guide/exit-statuses.md")

OK: Final = 0
FAILED: Final = 1
USAGE: Final = 2  # argparse's own status for bad usage
ERRORS: Final = 3  # pytest's INTERNAL_ERROR for `conform`
REFERENCE_DIFFERS: Final = 4
STARTUP_FAILED: Final = 6  # distinct from pytest's 0-5: nothing was run


@dataclass(frozen=True, slots=True, kw_only=True)
class Exit:
    """One exit status: its number, its constant's name, what it means on every command
    that uses it (`meaning`), and what it means on each (`commands`: command -> text;
    `conform --replay` is written as its own command)."""

    status: int
    name: str
    meaning: str
    commands: Mapping[str, str]


EXITS: Final = (
    Exit(
        status=OK,
        name="OK",
        meaning="done, and nothing found wrong",
        commands={
            "conform": "nothing failed, errored or passed unexpectedly (*unsupported* ops "
            "and `failed-as-pi` cases, which the pinned Pi fails too, are no failures: "
            "[levels](../results.md#levels-what-pi-itself-fails))",
            "conform --replay": "every answer is the reference's",
            "smoke": "every listed op answered in shape (a result of an allowed type, or a "
            "typed error; an op not asked does not count)",
            "fuzz": "no divergence, no error",
            "sweep": "nothing new to pin",
            "expectations write": "the file is written, every entry explained",
            "cases": "listed, shown, or linted without a problem",
            "bench": "the report is written (with `--compare`: no regression)",
            "impl": "done",
            "changelog": "the page is written",
            "matrix": "the matrix is written (an implementation that fails is in it, not "
            "in the status)",
        },
    ),
    Exit(
        status=FAILED,
        name="FAILED",
        meaning="done, and something found wrong; also a reader that closed the output "
        "pipe early (`head` after `ctxspec cases list`), quietly",
        commands={
            "conform": "a case or property failed, errored or passed unexpectedly (with "
            "`--level invariant`, a case the pinned Pi fails too counts)",
            "conform --replay": "an answer differs from the reference's, or was no answer "
            "within the protocol: the failure reproduced",
            "smoke": "a listed op broke the protocol: a protocol violation, a timeout or "
            "a crash ([Smoke test](smoke.md))",
            "fuzz": "divergences found",
            "sweep": "new cases (written with `--write-cases`)",
            "expectations write": "entries written as `UNEXPLAINED: ...`, until a person "
            "writes their reasons",
            "cases": "`cases lint` found problems",
            "bench": "`--compare`: an instruction count rose, or a ratio fell, past its "
            "tolerance ([Performance](../performance/index.md))",
        },
    ),
    Exit(
        status=USAGE,
        name="USAGE",
        meaning="bad usage: an argument ctxspec refuses, in one line on stderr before "
        "anything runs ([the command line](../cli.md)); also an install that failed and a "
        "broken corpus",
        commands={
            "conform": "bad usage, a selection that matches no case or property, an "
            "expectations or agent-profile file that cannot be read, an install that failed, "
            "a broken corpus, or a run interrupted (Ctrl-C, SIGTERM); pytest's own usage "
            "status 4 (a pytest option after `--` that pytest refuses) and its 'nothing "
            "selected' 5 are reported as 2",
            "conform --replay": "bad usage, or a file that holds no requests",
            "smoke": "bad usage, a broken corpus, or an implementation that could not be installed",
            "fuzz": "bad usage, an unknown op, or an implementation that could not be installed",
            "sweep": "bad usage (a `--json`, `--record` or `--write-cases` path that cannot "
            "be written), or an install that failed",
            "expectations write": "bad usage, or a run that wrote no results",
            "cases": "bad usage, a broken corpus, or `cases show` of an unknown id",
            "bench": "bad usage, the bench dependency group missing, or `--compare` without "
            "valgrind",
            "impl": "bad usage, or an install or lock that failed",
            "changelog": "bad usage, or an install that failed",
            "matrix": "bad usage (neither `--impl` nor `--from`, a `--from` that is no "
            "results file)",
        },
    ),
    Exit(
        status=ERRORS,
        name="ERRORS",
        meaning="no verdict: something broke that is not a wrong answer",
        commands={
            "conform": "an internal error of pytest or ctxspec: a bug, please report it",
            "fuzz": "no divergence, but requests that crashed, timed out or broke the protocol",
            "sweep": "a seed's `conform` run broke",
        },
    ),
    Exit(
        status=REFERENCE_DIFFERS,
        name="REFERENCE_DIFFERS",
        meaning="the reference answers otherwise than the oracle it is checked against",
        commands={"sweep": "the reference differs from the oracle (`--against`)"},
    ),
    Exit(
        status=STARTUP_FAILED,
        name="STARTUP_FAILED",
        meaning="the implementation did not start (no process, or a broken `hello`): one "
        "error with the command, the cause and its stderr tail, and nothing run",
        commands={
            "conform": "the implementation did not start (it could not be run, or its "
            "`hello` was invalid: not the first line on stdout, another protocol, or an op "
            "the suite does not know): one error on stderr, no case run, nothing of "
            "pytest's printed, with or without `-n`",
            "conform --replay": "the implementation did not start",
            "smoke": "the implementation did not start (no process, or a broken handshake)",
            "fuzz": "an implementation did not start",
        },
    ),
)


def statuses(command: str) -> dict[int, str]:
    """What each status means for `command` (`fuzz`, `conform --replay`, ...), in order."""
    return {row.status: row.commands[command] for row in EXITS if command in row.commands}


def commands() -> tuple[str, ...]:
    """Every command the table names, in the order it first names them."""
    return tuple(dict.fromkeys(name for row in EXITS for name in row.commands))


def markdown() -> str:
    """docs/guide/exit-statuses.md: the statuses, then each command's."""
    lines = [
        "<!-- Generated by `python -m ctxspec.exits --markdown` from the table EXITS in",
        "     ctxspec/exits.py; edit the table, not this page (a test compares them). -->",
        "# Exit statuses",
        "",
        "Every `ctxspec` subcommand exits with one of these statuses, each with one meaning",
        "across the command line. `ctxspec COMMAND --help` lists the command's own.",
        "",
        "| status | name | meaning | used by |",
        "|---|---|---|---|",
        *(
            f"| {row.status} | `{row.name}` | {row.meaning} | "
            f"{', '.join(f'`{name}`' for name in row.commands)} |"
            for row in EXITS
        ),
        "",
        "## By command",
    ]
    for command in commands():
        lines += ["", f"### `ctxspec {command}`", "", "| status | meaning |", "|---|---|"]
        lines += [f"| {status} | {text} |" for status, text in statuses(command).items()]
    lines += [
        "",
        "How the runner behaves when an implementation hangs, crashes or floods its output,",
        "and the status each fault ends in: [misbehaving implementations](misbehaving.md).",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ctxspec.exits", description=__doc__.split("\n\n")[0]
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--markdown", action="store_true", help="print the docs page")
    action.add_argument(
        "--check", action="store_true", help=f"exit 1 when {PAGE} differs from the page"
    )
    parser.add_argument("--page", type=Path, default=PAGE, help=f"with --check (default {PAGE})")
    options = parser.parse_args(argv)
    if options.markdown:
        sys.stdout.write(markdown())
        return OK
    current = options.page.read_text("utf-8") if options.page.is_file() else ""
    if current != markdown():
        print(f"{options.page} is stale: python -m ctxspec.exits --markdown > {options.page}")
        return FAILED
    return OK


if __name__ == "__main__":
    sys.exit(main())
