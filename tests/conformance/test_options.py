"""`runner.options.CONFORM_OPTIONS`: `ctxspec conform`'s options and the plugin's pytest
options are one table, so a value given either way reaches the plugin the same."""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from _pytest.config.argparsing import Parser as PytestParser

from ctxspec.cli import main, parser
from ctxspec.conformance.cli import pytest_command
from ctxspec.conformance.runner.options import CONFORM_OPTIONS, PLUGIN, RUNNER, add_options

# a value for each option the plugin reads, and what the plugin then reads
GIVEN: dict[str, list[str]] = {
    "--impl": ["--impl", "fastengine"],
    "--case": ["--case", "a", "--case", "b"],
    "--boundary": ["--boundary", "multibyte_cuts"],
    "--op": ["--op", "truncate.tail"],
    "--expectations": ["--expectations", "none"],
    "--level": ["--level", "invariant"],
    "--agent-profile": ["--agent-profile", "codex"],
    "--json": ["--json", "r.json"],
    "--md": ["--md", "r.md"],
    "--timeout": ["--timeout", "5"],
    "--max-answer-bytes": ["--max-answer-bytes", "1000"],
    "--explore": ["--explore"],
    "--record-requests": ["--record-requests", "q.jsonl"],
    "--debug": ["--debug"],
}


def conform(*argv: str) -> argparse.Namespace:
    return parser().parse_args(["conform", *argv])


def plugin_options(args: list[str]) -> argparse.Namespace:
    """What the plugin reads (`config.getoption`) from pytest arguments `args`."""
    pytest_parser = PytestParser(_ispytest=True)
    add_options(pytest_parser)
    known = pytest_parser.parse_known_args(args)
    del known.file_or_dir  # the suite, and what pytest itself reads
    return known


class TestOneTable:
    """The table's rows, both parsers built from it."""

    def test_every_plugin_row_is_given_here(self) -> None:
        assert {o.flags[0] for o in CONFORM_OPTIONS if o.reaches == PLUGIN} == set(GIVEN)

    def test_the_plugin_declares_exactly_its_rows(self) -> None:
        """`pytest -p ctxspec.conformance.runner.plugin` has each plugin row, by its pytest
        spelling, and nothing else."""
        pytest_parser = PytestParser(_ispytest=True)
        add_options(pytest_parser)
        declared = {name for o in pytest_parser.getgroup("ctxspec").options for name in o.names()}
        assert declared == {o.pytest_flag for o in CONFORM_OPTIONS if o.reaches == PLUGIN}

    @pytest.mark.parametrize("flag", sorted(GIVEN))
    def test_a_value_reaches_the_plugin_as_given(self, flag: str) -> None:
        """`ctxspec conform FLAG VALUE` gives the plugin what `pytest --PYTEST-FLAG VALUE`
        gives it, and every other plugin option keeps its default."""
        option = next(o for o in CONFORM_OPTIONS if o.flags[0] == flag)
        through_cli = plugin_options(pytest_command(conform(*GIVEN[flag])))
        pytest_spelling = [str(option.pytest_flag) if a == flag else a for a in GIVEN[flag]]
        if flag == "--debug":
            pytest_spelling = ["--ctxspec-debug"]
        direct = plugin_options(pytest_spelling)
        assert vars(through_cli) == vars(direct)
        assert vars(direct) != vars(plugin_options([]))

    def test_defaults_are_the_same_on_both_sides(self) -> None:
        assert vars(plugin_options(pytest_command(conform()))) == vars(plugin_options([]))

    def test_defaults_pass_nothing_but_the_presentation(self) -> None:
        args = pytest_command(conform())
        assert args[args.index("ctxspec.conformance.suite") + 1 :] == ["--tb=no", "-rN", "-q"]


class TestSpellings:
    """The pytest spelling of an option is an alias on the command line."""

    @pytest.mark.parametrize(
        ("alias", "dest", "value"),
        [
            ("--results-json", "json", "r.json"),
            ("--summary-md", "md", "r.md"),
            ("--request-timeout", "timeout", 5.0),
            ("--junitxml", "junit", "j.xml"),
            ("--hypothesis-seed", "seed", 3),
            ("--hypothesis-profile", "profile", "explore"),
            ("--ctxspec-debug", "debug", True),
        ],
    )
    def test_alias(self, alias: str, dest: str, value: Any) -> None:
        argv = [alias] if value is True else [alias, str(value)]
        assert getattr(conform(*argv), dest) == value

    def test_runner_rows_never_reach_pytest(self) -> None:
        options = conform("--replay", __file__, "--write-case", "out")
        assert all(o.pytest_flag is None for o in CONFORM_OPTIONS if o.reaches == RUNNER)
        assert "--replay" not in pytest_command(options)

    def test_a_refused_alias_is_named_as_given(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit) as exit_info:
            main(["conform", "--request-timeout", "-1"])
        assert exit_info.value.code == 2
        assert "argument --request-timeout: expected seconds > 0" in capsys.readouterr().err

    def test_one_worker_runs_in_this_process(self) -> None:
        for workers, passed in (("0", []), ("1", []), ("2", ["-n", "2"])):
            args = pytest_command(conform("-n", workers))
            assert args[args.index("-n") :][:2] == passed if passed else "-n" not in args
