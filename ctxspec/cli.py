"""The `ctxspec` command line: its parser, the registry of its subcommands, and `main`.

The core knows no subcommand. Each subpackage that has commands lists them as `COMMANDS`,
a tuple of `Command`, in one module named in `COMMAND_MODULES`; the parser is built from
those, in that order, and nothing else is imported (`ctxspec --version` and `--help` are
as cheap as the registering modules are). A subpackage imports this module for `Command`
and `UsageError`; this module imports a subpackage only through `COMMAND_MODULES`.

Bad input to ctxspec is the caller's fault. It gets one line on stderr that names the
argument and what was expected, and exit status `exits.USAGE`, before anything runs;
never a traceback:

    ctxspec conform: error: argument --timeout: expected seconds > 0, got '-5'

`Parser` makes argparse's own errors that one line; a command raises `UsageError` for
the checks that need more than one value, and `main` prints it the same way. Every
status is in `ctxspec.exits`, and `ctxspec COMMAND --help` ends with the command's.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, NoReturn

import ctxspec
from ctxspec import exits

__all__ = ["COMMAND_MODULES", "Command", "Parser", "UsageError", "main", "parser", "registered"]

# the modules whose COMMANDS make the command line, in the order `ctxspec --help` lists them
COMMAND_MODULES: Final = ("ctxspec.conformance.cli", "ctxspec.benchmarks.command")
_LINK: Final = re.compile(r"\[([^\]]+)\]\([^)]+\)")  # a Markdown link, in --help its text


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    """One subcommand: its `name`, the one-line `help` of `ctxspec --help`, a
    `description` for its own `--help`, `arguments` (adds its options to its parser), and
    `run` (takes the parsed options, returns an exit status of `ctxspec.exits`).
    `exit_rows` names its rows of the exit table when they are not its name alone
    (`conform` and `conform --replay`; `expectations write`)."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str = ""
    exit_rows: tuple[str, ...] = ()


def _one_line(text: str) -> str:
    """`text` with its lines joined by ` | ` (a YAML error spans several)."""
    return " | ".join(line.strip() for line in str(text).splitlines() if line.strip())


class UsageError(Exception):
    """Bad input to ctxspec: `argument` (`--case`, or None) and what was expected."""

    def __init__(self, argument: str | None, message: str) -> None:
        super().__init__(_one_line(message))
        self.argument = argument

    def __str__(self) -> str:
        text = str(self.args[0])
        return f"argument {self.argument}: {text}" if self.argument else text


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(exits.USAGE, f"{self.prog}: error: {_one_line(message)}\n")


def registered() -> tuple[Command, ...]:
    """The commands of every module in `COMMAND_MODULES`, in order (`TypeError`: a
    module whose `COMMANDS` is not a tuple of `Command`, or two commands of one name)."""
    found: list[Command] = []
    for name in COMMAND_MODULES:
        commands = getattr(importlib.import_module(name), "COMMANDS", None)
        if not (isinstance(commands, tuple) and all(isinstance(c, Command) for c in commands)):
            raise TypeError(f"{name}.COMMANDS must be a tuple of ctxspec.cli.Command")
        found += commands
    names = [command.name for command in found]
    if len(set(names)) != len(names):
        raise TypeError(f"two commands of COMMAND_MODULES share a name: {sorted(names)}")
    return tuple(found)


def _epilog(command: Command) -> str:
    """The command's rows of the exit table, for the end of its `--help`."""
    lines = ["exit status (docs/guide/exit-statuses.md):"]
    for name in command.exit_rows or (command.name,):
        lines += [f"  {name}:"] if name != command.name else []
        lines += [
            textwrap.fill(
                _LINK.sub(_link_text, meaning),
                width=88,
                initial_indent=f"  {status} ",
                subsequent_indent="    ",
            )
            for status, meaning in exits.statuses(name).items()
        ]
    return "\n".join(lines) if len(lines) > 1 else ""


def _link_text(match: re.Match[str]) -> str:
    return match[1]


def parser(commands: Iterable[Command] | None = None) -> argparse.ArgumentParser:
    """The whole command line: `--version`, and a subparser per command."""
    top = Parser(
        prog="ctxspec",
        description="The conformance suite, reference engine and benchmark harness for the "
        "context layer of coding agents.",
        epilog="exit statuses: docs/guide/exit-statuses.md (`python -m ctxspec.exits --markdown`)",
    )
    top.add_argument("--version", action="version", version=f"ctxspec {ctxspec.__version__}")
    subparsers = top.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in registered() if commands is None else commands:
        each = subparsers.add_parser(
            command.name,
            help=command.help,
            description=textwrap.fill(command.description or command.help, 88),
            epilog=_epilog(command),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        command.arguments(each)
        each.set_defaults(run=command.run)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; its exit status (`ctxspec.exits`)."""
    options = parser().parse_args(argv)
    try:
        code: int = options.run(options)
        sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
    except UsageError as error:
        print(f"ctxspec {options.command}: error: {error}", file=sys.stderr)
        return exits.USAGE
    except BrokenPipeError:  # `ctxspec cases list | head`: the reader left, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return exits.FAILED
    return code


if __name__ == "__main__":
    sys.exit(main())
