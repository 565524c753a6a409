"""The pytest plugin behind `ctxspec conform`: implementation, cases, statuses, reports.

Options: `--impl` (reference | pi@0.85.0 | a command), `--expectations FILE`, `--case ID`,
`--boundary NAME`, `--op OP`, `--request-timeout S`, `--max-answer-bytes N`,
`--results-json FILE`, `--summary-md FILE`. Golden cases become test items named by case
id, marked with their boundary; cases and properties listed in the implementation's
expectations file run as strict expected failures. The hooks here collect and run; each
report becomes a record (`ctxspec.conformance.runner.results`: statuses, records, divergence classes
and the terminal, JSON and Markdown renderers), which the controller gathers from the
workers and renders at the end of the run.

Before any test runs, the controller starts a command implementation once and checks its
`hello`: when it cannot start, or its handshake is broken, the run stops with one error
(the command, the failure, the stderr tail) and exit status `STARTUP_FAILED_STATUS` (6,
distinct from pytest's 0-5), instead of an error per case, and no line of pytest's.
Every failure report is capped at `REPORT_CHARS` chars (head and tail kept).
"""

from __future__ import annotations

import difflib
import json
import shlex
import signal
import sys
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import settings

from ctxspec import __version__, exits
from ctxspec.conformance import DATA_VERSION
from ctxspec.conformance.corpus.aliases import RenamedCaseWarning, new_id, renamed_messages
from ctxspec.conformance.corpus.cases import BOUNDARIES, Case, corpus_digest, load_cases
from ctxspec.conformance.errors import (
    AdapterError,
    CorpusError,
    EnvironmentMissing,
    StartupFailed,
    StopAfterTimeout,
)
from ctxspec.conformance.judging.check import CaseMismatch
from ctxspec.conformance.judging.compare import shorten
from ctxspec.conformance.protocol import PROTOCOL_VERSION
from ctxspec.conformance.runner.example_data import REGENERATE, StaleExamples
from ctxspec.conformance.runner.examples import EXPLORING_PROFILES, example_policy
from ctxspec.conformance.runner.expectations import (
    Expectations,
    default_expectations_file,
    load_expectations,
)
from ctxspec.conformance.runner.failing_example import (
    EXAMPLES_DIR,
    Told,
    exchanges_of,
    reading_shapes,
    save_example,
    tell_property,
)
from ctxspec.conformance.runner.fixed_examples import missing_examples, run_examples
from ctxspec.conformance.runner.options import add_options
from ctxspec.conformance.runner.profiles import Profile, profile_for
from ctxspec.conformance.runner.recording import Recording, append_failure, restarting_each_example
from ctxspec.conformance.runner.report_paths import shown_path
from ctxspec.conformance.runner.results import (
    FAILING,
    NOT_APPLICABLE,
    REPORT_CHARS,
    classify,
    describe,
    findings_of,
    markdown,
    policy_line,
    record,
    rerun_command,
    results_document,
    terminal_lines,
)
from ctxspec.conformance.runner.tracebacks import forget_locals, forgetting
from ctxspec.conformance.transport import confine
from ctxspec.conformance.transport.named import ENGINE_NAMES, FAMILIES
from ctxspec.conformance.transport.processes import join_run, run_dir
from ctxspec.conformance.transport.resolve import Implementation, InstallError, open_implementation
from ctxspec.conformance.transport.wire import WireImplementation

PI_VERSION: Final = FAMILIES["pi"].default_version  # the Pi the suite is pinned to
STARTUP_FAILED_STATUS: Final = exits.STARTUP_FAILED  # the implementation did not start
# the statuses of a property whose failing example is told (`failing_example`)
TOLD: Final = FAILING | {"failed-as-pi", "expected-failure"}
PI_FAILS_PREFIX: Final = "pi fails it too: "  # the xfail reason of a case the pinned Pi fails
_expectations_key = pytest.StashKey[Expectations]()
_pi_fails_key = pytest.StashKey[Expectations]()  # what the pinned Pi itself fails
_records_key = pytest.StashKey[list[dict[str, Any]]]()
_hello_key = pytest.StashKey[dict[str, Any]]()
_probed_key = pytest.StashKey[Implementation]()
_startup_failed_key = pytest.StashKey[str]()
_profile_key = pytest.StashKey[str]()  # hypothesis's settings profile
_agent_profile_key = pytest.StashKey[Profile]()  # the agent's declared terms


def _policy(config: pytest.Config) -> dict[str, Any]:
    profile = config.stash.get(_profile_key, "verdict")
    return example_policy(profile, config.getoption("hypothesis_seed", None))


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def _interrupt(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def _interrupt_on_sigterm() -> None:
    """SIGTERM unwinds a run as Ctrl-C does, instead of ending the runner where it stands.

    pytest then tears down its fixtures, so each implementation's process tree is killed
    and its private temp dir removed (`WireImplementation.close`), in every xdist worker
    too, and the reports of what ran are still written.
    """
    main = threading.current_thread() is threading.main_thread()
    if main and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _interrupt)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller hands each worker its run dir, which it sweeps at its exit."""
    node.workerinput["ctxspec_run_dir"] = run_dir()


def pytest_configure(config: pytest.Config) -> None:
    _interrupt_on_sigterm()
    if joined := getattr(config, "workerinput", {}).get("ctxspec_run_dir"):
        join_run(joined)
    for slug, text in BOUNDARIES.items():
        config.addinivalue_line("markers", f"{slug}: boundary {text}")
    config.addinivalue_line(
        "markers", "ctxspec_property(boundary, op, rule, level): a property of the suite"
    )
    profile = config.getoption("hypothesis_profile", None)
    if config.getoption("explore"):
        profile = "explore"
    if profile is None:
        profile = "verdict"  # in CI and on a laptop alike
    settings.load_profile(profile)
    config.stash[_profile_key] = profile
    impl = config.getoption("impl")
    path = config.getoption("expectations") or default_expectations_file(impl)
    if path == "none":  # judge against the corpus alone (the changelog's runs)
        path = None
    try:  # bad input, not a crash of the run: one `ERROR:` line and pytest's usage status
        expectations = load_expectations(path, impl)
        expectations.check_ids(case.id for case in load_cases())
        for message in renamed_messages(expectations, config.getoption("case"), config):
            config.issue_config_time_warning(RenamedCaseWarning(message), stacklevel=2)
    except CorpusError as error:
        raise pytest.UsageError(str(error)) from None
    config.stash[_expectations_key] = expectations
    config.stash[_pi_fails_key] = pi_fails()
    try:
        config.stash[_agent_profile_key] = profile_for(impl, config.getoption("agent_profile"))
    except CorpusError as error:
        raise pytest.UsageError(str(error)) from None
    config.stash[_records_key] = []
    if not hasattr(config, "workerinput"):
        _check_startup(config)  # before xdist's own configure (trylast) decides on workers


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [
        f"ctxspec {__version__}: data {DATA_VERSION}, protocol {PROTOCOL_VERSION}, "
        f"pinned to pi {PI_VERSION}, corpus sha256 {corpus_digest()[:16]}",
        f"implementation under test: {config.getoption('impl')} "
        f"(expectations: {shown_path(config.stash[_expectations_key].source)})",
        policy_line(_policy(config)),
    ]


def pi_fails() -> Expectations:
    """The cases and properties the pinned Pi itself fails, with the reasons: its shipped
    expectations file, one list for every run. Where Pi breaks an invariant, a port that
    answers as Pi does is not failed for it (`failed-as-pi`) unless `--level invariant`."""
    pinned = f"pi@{PI_VERSION}"
    return load_expectations(default_expectations_file(pinned), pinned)


def _gates_invariants(config: pytest.Config) -> bool:
    return str(config.getoption("level", "compat")) == "invariant"


def _pi_mark(config: pytest.Config, reason: str) -> Any:
    """The mark of a test the pinned Pi fails: a non-strict expected failure (a pass is a
    pass), told apart by its reason's prefix; none when the run gates on invariants."""
    if _gates_invariants(config):
        return None
    return pytest.mark.xfail(reason=f"{PI_FAILS_PREFIX}{reason}", strict=False)


def _selected(config: pytest.Config) -> Iterator[Case]:
    wanted_ids = {new_id(case_id) for case_id in config.getoption("case")}
    boundaries = set(config.getoption("boundary"))
    ops = set(config.getoption("op"))
    for case in load_cases():
        if case.status == "withdrawn":
            continue
        if wanted_ids and case.id not in wanted_ids:
            continue
        if boundaries and case.boundary not in boundaries:
            continue
        if ops and case.op not in ops:
            continue
        yield case


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "golden_case" not in metafunc.fixturenames:
        return
    config = metafunc.config
    known = config.stash[_expectations_key].cases
    pi_known = config.stash[_pi_fails_key].cases
    profile = config.stash[_agent_profile_key]
    params = []
    for case in _selected(config):
        marks: list[Any] = [getattr(pytest.mark, case.boundary)]
        why = profile.not_applicable(op=case.op, boundary=case.boundary, name=case.id, kind="case")
        if why is not None:
            marks.append(pytest.mark.skip(reason=f"{NOT_APPLICABLE}: {why}"))
        elif case.id in known:
            marks.append(pytest.mark.xfail(reason=known[case.id], strict=True, raises=CaseMismatch))
        elif case.id in pi_known and (mark := _pi_mark(config, pi_known[case.id])):
            marks.append(mark)
        params.append(pytest.param(case, id=case.id, marks=marks))
    metafunc.parametrize("golden_case", params)


def _listed(names: dict[str, str], item: pytest.Item) -> str | None:
    """The reason an expectations section gives for a property item: listed by its full
    name with the parameter (`test_x[truncate.tail]`, that op alone) or by its bare name
    (every parameter)."""
    bare = item.originalname if isinstance(item, pytest.Function) else item.name
    return names.get(item.name, names.get(bare))


def _check_property_ids(expectations: Expectations, items: list[pytest.Item]) -> None:
    """A listed property must name a property of the suite (or one of its parameters)."""
    known = set()
    for item in items:
        if item.get_closest_marker("ctxspec_property") is not None:
            known.add(item.name)
            known.add(item.originalname if isinstance(item, pytest.Function) else item.name)
    if not known:
        return
    unknown = sorted(set(expectations.properties) - known)
    if unknown:
        hints = []
        for name in unknown:
            near = difflib.get_close_matches(name, sorted(known), n=1)
            hints.append(f"{name!r}" + (f" (did you mean {near[0]!r}?)" if near else ""))
        raise pytest.UsageError(
            f"{expectations.source}: lists properties the suite does not have: " + ", ".join(hints)
        )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    expectations = config.stash[_expectations_key]
    _check_property_ids(expectations, items)
    known = expectations.properties
    pi_known = config.stash[_pi_fails_key].properties
    boundaries = set(config.getoption("boundary"))
    only_cases = bool(config.getoption("case"))
    kept, dropped = [], []
    for item in items:
        marker = item.get_closest_marker("ctxspec_property")
        if marker is None:
            kept.append(item)
            continue
        boundary = marker.kwargs.get("boundary", "")
        if only_cases or (boundaries and boundary not in boundaries):
            dropped.append(item)
            continue
        item.add_marker(getattr(pytest.mark, boundary))
        name = item.originalname if isinstance(item, pytest.Function) else item.name
        why = config.stash[_agent_profile_key].not_applicable(
            op=marker.kwargs.get("op", ""), boundary=boundary, name=name, kind="property"
        )
        if why is not None:
            item.add_marker(pytest.mark.skip(reason=f"{NOT_APPLICABLE}: {why}"))
        _read_shapes(item)
        _forget_failing_examples(item)
        _record_examples(item)
        if why is None and (reason := _listed(known, item)) is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
        elif (
            why is None
            and (reason := _listed(pi_known, item)) is not None
            and (mark := _pi_mark(config, reason)) is not None
        ):
            item.add_marker(mark)
        kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_collection_finish(session: pytest.Session) -> None:
    """A verdict runs the shipped examples: each property selected must have some. (An
    xdist worker cannot stop the run this way: there, each such property is an error.)"""
    config = session.config
    if _verdict(config) and not config.option.collectonly and not hasattr(config, "workerinput"):
        _check_shipped_examples(session.items)


def _verdict(config: pytest.Config) -> bool:
    return config.stash.get(_profile_key, "verdict") not in EXPLORING_PROFILES


def _check_shipped_examples(items: list[pytest.Item]) -> None:
    """`UsageError` naming the properties of `items` without shipped examples."""
    try:
        missing = missing_examples(items)
    except StaleExamples as error:
        raise pytest.UsageError(str(error)) from None
    if missing:
        raise pytest.UsageError(
            f"no shipped examples of {', '.join(missing)}: draw them with `{REGENERATE}`"
        )


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """In a verdict, a property runs on its shipped examples: hypothesis draws nothing."""
    if not _verdict(pyfuncitem.config) or getattr(pyfuncitem.obj, "hypothesis", None) is None:
        return None
    if pyfuncitem.get_closest_marker("ctxspec_property") is None:
        return None
    run_examples(pyfuncitem)
    return True


def _record_examples(item: pytest.Item) -> None:
    """Each example of the property starts with an empty `Recording`."""
    handle = getattr(getattr(item, "obj", None), "hypothesis", None)
    if handle is not None and not getattr(handle.inner_test, "_ctxspec_records", False):
        handle.inner_test = restarting_each_example(handle.inner_test)
        handle.inner_test._ctxspec_records = True


def _read_shapes(item: pytest.Item) -> None:
    """An answer of a shape the property cannot read is a difference, not a crash. (The
    mark is on the handle: a parametrized property's items share it.)"""
    handle = getattr(getattr(item, "obj", None), "hypothesis", None)
    if handle is not None and not getattr(handle, "_ctxspec_shapes", False):
        handle.inner_test = reading_shapes(handle.inner_test)
        handle._ctxspec_shapes = True


def _forget_failing_examples(item: pytest.Item) -> None:
    """A property's failing examples keep no answer while hypothesis shrinks them."""
    handle = getattr(getattr(item, "obj", None), "hypothesis", None)
    if handle is not None and not getattr(handle.inner_test, "_ctxspec_forgets", False):
        handle.inner_test = forgetting(handle.inner_test)
        handle.inner_test._ctxspec_forgets = True


def _open(config: pytest.Config) -> Implementation:
    implementation = open_implementation(
        config.getoption("impl"), timeout=config.getoption("request_timeout")
    )
    if isinstance(implementation, WireImplementation):
        implementation.max_answer_bytes = config.getoption("max_answer_bytes")
    return implementation


@pytest.fixture(scope="session")
def impl(request: pytest.FixtureRequest) -> Generator[Implementation, None, None]:
    """The implementation under test: one per process (so one adapter per xdist worker)."""
    config = request.config
    if _probed_key in config.stash:  # started by the start-up check: go on with it
        implementation = config.stash[_probed_key]
        del config.stash[_probed_key]
    else:
        implementation = _open(config)
    implementation = Recording(implementation)  # a failing property's example is told
    yield implementation
    implementation.close()


@pytest.fixture(scope="session")
def agent_profile(request: pytest.FixtureRequest) -> Profile:
    """The declared terms `agent.*` answers are judged by
    (`ctxspec.conformance.runner.profiles`)."""
    return request.config.stash[_agent_profile_key]


def _stop(config: pytest.Config, command: str, error: str) -> None:
    """The implementation did not start: say so once, in ctxspec's words alone.

    The reports are written and the error printed here; then the run ends at collection
    (`pytest_collection`) with `STARTUP_FAILED_STATUS`, having started no xdist worker and
    printed nothing of pytest's: its terminal reporter, whose lines these would be (a
    `!!! _pytest.outcomes.Exit !!!` banner, a summary), is blocked, and the exit comes
    past the point where pytest itself writes `Exit: ...` to stderr.
    """
    config.stash[_startup_failed_key] = error
    config.stash.setdefault(_started_key, time.time())
    _write_reports(config)
    sys.stderr.write(
        "ctxspec: the implementation under test did not start, so no case was run\n"
        f"  command: {command}\n  {error}\n"
    )
    sys.stderr.flush()
    if hasattr(config.option, "dist"):  # as xdist's own `-n 0`: no worker starts
        config.option.numprocesses, config.option.dist, config.option.tx = 0, "no", []
    config.pluginmanager.set_blocked("terminalreporter")


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """After a failed start (`_stop`), end the run before anything is collected."""
    if _startup_failed_key in session.config.stash:
        pytest.exit("start-up failed", returncode=STARTUP_FAILED_STATUS)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """Each test starts with a clean slate: an earlier test's timeout does not stop it."""
    funcargs = getattr(item, "funcargs", {})
    new_test = getattr(funcargs.get("impl"), "new_test", None)
    if new_test is not None:
        new_test()


def _check_startup(config: pytest.Config) -> None:
    """Start a command implementation once, before any worker; stop the run if it cannot.

    It runs in the controller's `pytest_configure`, before xdist's (trylast) decides to
    start workers, so a stop (`_stop`) starts none and prints the error once on stderr;
    the run exits with `STARTUP_FAILED_STATUS`.
    """
    spec = config.getoption("impl")
    if spec in ENGINE_NAMES or config.option.collectonly or config.option.help:
        return
    try:
        implementation = _open(config)
    except (InstallError, ValueError) as error:
        _stop(config, spec, f"startup failed: {error}")
        return
    if not isinstance(implementation, WireImplementation):
        implementation.close()
        return
    try:
        hello = dict(implementation.hello)
    except StartupFailed as error:
        implementation.close()
        _stop(config, shlex.join(implementation.argv), str(error))
        return
    config.stash[_hello_key] = hello
    if _distributed(config):
        implementation.close()  # xdist: each worker starts its own
    else:
        config.stash[_probed_key] = implementation  # the run goes on with this process


def _distributed(config: pytest.Config) -> bool:
    """Whether xdist will run the tests in workers (its own test, on the options its
    `pytest_cmdline_main` has settled by now)."""
    return getattr(config.option, "dist", "no") != "no" and bool(getattr(config.option, "tx", None))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    described = describe(item)
    if not described:
        return report
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if isinstance(report.longrepr, tuple):  # a skip: no machine path, no pytest wording
            where, line, reason = report.longrepr
            report.longrepr = (shown_path(where) or where, line, reason.removeprefix("Skipped: "))
        status = classify(report, call)
        impl = item.config.getoption("impl")
        excinfo = call.excinfo
        message = None
        pi_reason = _pi_fails_reason(item)
        if pi_reason is not None:
            described = {**described, "piFails": pi_reason}
            status = _as_pi(item, status)
        told = _tell(item, described, status, excinfo)
        if status == "failed-as-pi" and excinfo is not None:
            message = shorten(told.text if told else str(excinfo.value), REPORT_CHARS)
        if status in FAILING:
            if excinfo is not None and isinstance(
                excinfo.value,
                CaseMismatch | AdapterError | StopAfterTimeout | EnvironmentMissing,
            ):
                report.longrepr = str(excinfo.value)
            report.longrepr = _plain(item, told, report.longrepr, excinfo)
            if len(text := str(report.longrepr)) > REPORT_CHARS:
                report.longrepr = shorten(text, REPORT_CHARS)
            if described["kind"] == "case":
                rerun = rerun_command(impl, described["id"])
                report.longrepr = f"{report.longrepr}\n  rerun: {rerun}"
            if pi_reason is not None and status == "failed":
                report.longrepr = f"{report.longrepr}\n  Pi {PI_VERSION} fails it too: {pi_reason}"
            message = str(report.longrepr)
        elif status in {"unsupported", "not-applicable"} and isinstance(report.longrepr, tuple):
            message = str(report.longrepr[2])
        findings = findings_of(excinfo.value if excinfo is not None else None)
        findings = findings or (told.findings if told is not None else None)
        entry = record(
            described, status=status, duration=report.duration, message=message,
            findings=findings, request=_pending_request(excinfo),
        )  # fmt: skip
        if told is not None and status != "expected-failure":
            entry["example"] = told.example
        _done_with_example(item, described, status)
        hello = _hello_once(item)
        if hello:
            report.user_properties.append(("ctxspec_hello", hello))
        report.user_properties.append(("ctxspec", entry))
    if call.excinfo is not None and not item.config.getoption("usepdb"):
        forget_locals(call.excinfo.value)  # rendered: its answer is no longer needed
    return report


def _pending_request(excinfo: pytest.ExceptionInfo[BaseException] | None) -> dict[str, Any] | None:
    """The request an implementation was answering when it broke (`AdapterError.pending`)."""
    error = excinfo.value if excinfo is not None else None
    if isinstance(error, StopAfterTimeout):
        error = error.timeout
    return error.request if isinstance(error, AdapterError) else None


def _done_with_example(item: pytest.Item, described: dict[str, Any], status: str) -> None:
    """Append a failing property's requests to `--record-requests` (the sweep's), then
    forget the example's answers."""
    recording = getattr(item, "funcargs", {}).get("impl")
    if not isinstance(recording, Recording):
        return
    record_to = item.config.getoption("record_requests")
    if record_to and status == "failed" and described["kind"] == "property":
        seed = item.config.getoption("hypothesis_seed", None)
        append_failure(record_to, described["id"], seed, recording.requests)
    recording.clear()


def _tell(
    item: pytest.Item,
    described: dict[str, Any],
    status: str,
    excinfo: pytest.ExceptionInfo[BaseException] | None,
) -> Told | None:
    """A property that failed, told as protocol data
    (`ctxspec.conformance.runner.failing_example`); its example saved under the cwd for
    `conform --replay` when it is to be fixed or pinned."""
    recording = getattr(item, "funcargs", {}).get("impl")
    if (
        described["kind"] != "property"
        or excinfo is None
        or status not in TOLD
        or not isinstance(recording, Recording)
    ):
        return None
    exchanges = exchanges_of(recording)
    file = None
    if exchanges and status != "expected-failure":
        seed = item.config.getoption("hypothesis_seed", None)
        saved = save_example(Path.cwd() / EXAMPLES_DIR, described["id"], seed, exchanges)
        file = (EXAMPLES_DIR / saved.name).as_posix()
    doc = getattr(getattr(item, "obj", None), "__doc__", None)
    impl = item.config.getoption("impl")
    return tell_property(described, doc, excinfo.value, exchanges, impl=impl, file=file)


def _plain(
    item: pytest.Item,
    told: Told | None,
    longrepr: Any,
    excinfo: pytest.ExceptionInfo[BaseException] | None,
) -> Any:
    """A failure's report without Python's traceback, reprs or pytest's wording (with
    `--ctxspec-debug`, pytest's own report follows it): a property's told example, an
    expected failure that passed said so, anything else unforeseen named as ctxspec's bug."""
    debug = item.config.getoption("ctxspec_debug")
    if told is not None:
        return f"{told.text}\n\n{longrepr}" if debug else told.text
    if debug or (isinstance(longrepr, str) and not longrepr.startswith("[XPASS")):
        return longrepr
    if excinfo is None:  # listed in the expectations file, yet it passed
        reason = str(longrepr).split("] ", 1)[-1]
        return f"listed as an expected failure ({reason}), yet it passed: remove it from the list"
    kind = type(excinfo.value).__name__
    return f"ctxspec's own check broke here ({kind}, a bug of ctxspec): `--debug` shows where"


def _pi_fails_reason(item: pytest.Item) -> str | None:
    """Why the pinned Pi fails this test, when it does (its expectations file)."""
    listed = item.config.stash.get(_pi_fails_key, None)
    if listed is None:
        return None
    callspec = getattr(item, "callspec", None)
    case = callspec.params.get("golden_case") if callspec is not None else None
    if isinstance(case, Case):
        return listed.cases.get(case.id)
    return _listed(listed.properties, item)


def _as_pi(item: pytest.Item, status: str) -> str:
    """A test the pinned Pi fails, run as one (`_pi_mark`): its expected failure is
    `failed-as-pi`, its pass a pass."""
    mark = item.get_closest_marker("xfail")
    if mark is None or not str(mark.kwargs.get("reason", "")).startswith(PI_FAILS_PREFIX):
        return status
    return {"expected-failure": "failed-as-pi", "unexpected-pass": "passed"}.get(status, status)


def _hello_once(item: pytest.Item) -> dict[str, Any] | None:
    config = item.config
    if _hello_key in config.stash:
        return None
    fixture_defs = getattr(item, "_fixtureinfo", None)
    if fixture_defs is None or "impl" not in fixture_defs.argnames:
        return None
    try:
        implementation = item.funcargs.get("impl")  # type: ignore[attr-defined]
        hello = dict(implementation.hello) if implementation is not None else None
    except (AdapterError, AttributeError):
        return None
    if hello:
        config.stash[_hello_key] = hello
    return hello


# a status as pytest's progress and its closing line count it: ctxspec's own words, so the
# line reads as the summary table does ("1361 passed, 49 not-applicable, 5 failed-as-pi")
_TEST_STATUS: Final = {
    "passed": ("passed", ".", "PASSED"),
    "failed": ("failed", "F", "FAILED"),
    "error": ("error", "E", "ERROR"),
    "unsupported": ("unsupported", "u", "UNSUPPORTED"),
    "not-applicable": ("not-applicable", "n", "NOT-APPLICABLE"),
    "failed-as-pi": ("failed-as-pi", "p", "FAILED-AS-PI"),
    "expected-failure": ("expected-failure", "x", "EXPECTED-FAILURE"),
    "unexpected-pass": ("unexpected-pass", "X", "UNEXPECTED-PASS"),
}


def pytest_report_teststatus(
    report: pytest.TestReport, config: pytest.Config
) -> tuple[str, str, str] | None:
    """A ctxspec record's status in pytest's progress line and closing line."""
    for key, value in getattr(report, "user_properties", ()):
        if key == "ctxspec" and isinstance(value, dict) and value.get("status") in _TEST_STATUS:
            return _TEST_STATUS[value["status"]]
    return None


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    config = _CONFIG.get("config")
    if config is None or hasattr(config, "workerinput"):
        return  # workers report to the controller, which keeps the records
    for key, value in report.user_properties:
        if key == "ctxspec" and isinstance(value, dict):
            config.stash[_records_key].append(value)
        elif key == "ctxspec_hello" and isinstance(value, dict):
            config.stash.setdefault(_hello_key, value)


_CONFIG: dict[str, pytest.Config] = {}


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    _CONFIG["config"] = session.config
    session.config.stash[_records_key] = []
    session.config.stash.setdefault(_started_key, time.time())


_started_key = pytest.StashKey[float]()


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    records: list[dict[str, Any]] = config.stash.get(_records_key, [])
    if not records or hasattr(config, "workerinput"):
        return
    impl = config.getoption("impl")
    if config.option.tbstyle == "no":  # `ctxspec conform` without --debug: the reports here
        _write_failures(terminalreporter, records)
    terminalreporter.section(f"ctxspec summary: {impl}")
    terminalreporter.write_line(policy_line(_policy(config)))
    for line in terminal_lines(records, impl):
        terminalreporter.write_line(line)


def _write_failures(terminalreporter: Any, records: list[dict[str, Any]]) -> None:
    """Each failing record's report, as `--md` shows it, in place of pytest's tracebacks."""
    failing = sorted(
        (r for r in records if r["status"] in FAILING), key=lambda r: (r["kind"], r["id"])
    )
    if not failing:
        return
    terminalreporter.section(f"ctxspec failures ({len(failing)})")
    for entry in failing:
        terminalreporter.write_sep("_", f"{entry['status']}: {entry['id']}")
        terminalreporter.write_line(str(entry.get("message", "")))


def _header(config: pytest.Config) -> dict[str, Any]:
    return {
        "suite": "ctxspec",
        "suiteVersion": __version__,
        "dataVersion": DATA_VERSION,
        "protocol": PROTOCOL_VERSION,
        "piVersion": PI_VERSION,
        "corpusSha256": corpus_digest(),
        "implementation": config.getoption("impl"),
        "hello": config.stash.get(_hello_key, None),
        "expectations": shown_path(config.stash[_expectations_key].source),
        "profile": shown_path(config.stash[_agent_profile_key].source),
        "examples": _policy(config),
        "python": sys.version.split()[0],
        "startedAt": config.stash.get(_started_key, None),
        "confinement": confine.header(),  # None: no agent of the run was confined
    }


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if hasattr(config, "workerinput"):
        return
    _write_reports(config)


def _write_reports(config: pytest.Config) -> None:
    records: list[dict[str, Any]] = config.stash.get(_records_key, [])
    header = _header(config)
    if _startup_failed_key in config.stash:
        header["startupFailed"] = config.stash[_startup_failed_key]
    if path := config.getoption("results_json"):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        document = results_document(header, records)
        Path(path).write_text(json.dumps(document, indent=1) + "\n")
    if path := config.getoption("summary_md"):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(markdown(header, records))
