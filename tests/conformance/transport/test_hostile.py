"""The runner against hostile implementations: every run ends within its bounds.

Each fault is a mode of the scripted fake (`tests/support/fake_impl.py`). The bounds are held by
the runner's own timeouts and by a `subprocess.run(timeout=...)` guard on whole runs,
never by timing assertions; no test leaves a process behind (checked by pid).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conform import conform, statuses
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import FAKE_IMPL
from processes import alive

from ctxspec.conformance.errors import (
    MESSAGE_CHARS,
    Crashed,
    ProtocolViolation,
    StartupFailed,
    StopAfterTimeout,
    Timeout,
)
from ctxspec.conformance.judging.compare import differences as diff
from ctxspec.conformance.judging.compare import render, render_value, shorten
from ctxspec.conformance.runner.plugin import STARTUP_FAILED_STATUS
from ctxspec.conformance.transport.wire import STDERR_TAIL_BYTES, WireImplementation

pytestmark = pytest.mark.slow  # the faults run whole conform processes

ARGS = {"content": "a\nb\nc", "maxLines": 2}
Fake = Callable[..., list[str]]
GUARD = 120  # seconds a whole `ctxspec conform` run may take before the test fails
MB = 1_000_000
HUGE_WRONG = [sys.executable, str(FAKE_IMPL), "huge-wrong"]


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Where the fake writes the pids of its strays; any still alive at the end are killed."""
    path = tmp_path / "state"
    monkeypatch.setenv("FAKE_STATE", str(path))
    yield path
    for file in (path, path.with_suffix(".grandchild")):
        if file.exists() and alive(pid := int(file.read_text())):
            os.kill(pid, 9)
            pytest.fail(f"process {pid} outlived the runner")


def strays(state: Path) -> list[int]:
    files = (state, state.with_suffix(".grandchild"))
    return [int(file.read_text()) for file in files if file.exists()]


def wire(command: list[str], **options: Any) -> WireImplementation:
    return WireImplementation(command, **{"timeout": 30.0, "startup_timeout": 30.0, **options})


class TestProcessTree:
    """Children that leave the process group are found and killed."""

    def test_setsid_child_holding_stdout_is_a_crash_not_a_hang(
        self, fake: Fake, state: Path
    ) -> None:
        """The child exits, a setsid() child keeps stdout open: Crashed at once, tree killed."""
        impl = wire(fake("setsid-child"))
        with pytest.raises(Crashed, match="exited with status 0"):
            impl.call("truncate.head", ARGS)
        assert len(strays(state)) == 2
        assert not any(alive(pid) for pid in strays(state))
        assert not any(Path(f"/proc/{pid}").exists() for pid in strays(state))  # reaped too
        impl.close()

    def test_setsid_child_of_a_hang_is_killed_on_timeout(self, fake: Fake, state: Path) -> None:
        """A timeout kills the hanging child and its setsid() descendants."""
        impl = wire(fake("setsid-child", "hang"), timeout=1.0)
        with pytest.raises(Timeout):
            impl.call("truncate.head", ARGS)
        assert not any(alive(pid) for pid in strays(state))
        impl.close()

    def test_child_with_an_empty_environment_is_found_by_its_pipes(
        self, fake: Fake, state: Path
    ) -> None:
        """A stray that dropped the runner's token is still found: it holds the child's pipes."""
        impl = wire(fake("setsid-child", "clean-env"))
        with pytest.raises(Crashed):
            impl.call("truncate.head", ARGS)
        assert not any(alive(pid) for pid in strays(state))
        impl.close()

    def test_close_kills_strays_of_a_healthy_child(self, fake: Fake, state: Path) -> None:
        """At the end of a run, strays of a child that answered well are killed too."""
        impl = wire(fake("setsid-child", "answer"))
        assert impl.call("truncate.head", ARGS).result["content"] == "a\nb"
        assert all(alive(pid) for pid in strays(state))
        impl.close()
        assert not any(alive(pid) for pid in strays(state))

    def test_setsid_run_ends_within_its_bound(
        self, tmp_path: Path, fake: Fake, state: Path
    ) -> None:
        """The issue's run: `ctxspec conform` against the setsid() fake ends, every case error."""
        cases = ["tail-cut-inside-4-byte-sequence-after-byte-2"]
        args = ["--impl", shlex.join(fake("setsid-child")), "--timeout", "3", "--case", cases[0]]
        code, output, data = conform(tmp_path, *args, timeout=GUARD)
        assert code == 1, output
        assert statuses(data) == dict.fromkeys(cases, "error")
        assert not any(alive(pid) for pid in strays(state))


class TestAnswerCap:
    """An answer line is bounded in bytes; past the cap it is an error naming the cap."""

    def test_answer_past_the_cap_is_a_protocol_violation(
        self, fake: Fake, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A 2 MB answer against a 1 MB cap is refused, naming the cap and its option."""
        monkeypatch.setenv("FAKE_BYTES", "2000000")
        impl = wire(fake("huge-answer"), max_answer_bytes=1_000_000)
        with pytest.raises(ProtocolViolation, match=r"cap of 1000000 bytes.*--max-answer-bytes"):
            impl.call("truncate.head", ARGS)
        impl.close()

    def test_answer_within_the_cap_arrives_whole(
        self, fake: Fake, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """An answer under the cap, read in many chunks, comes back intact."""
        monkeypatch.setenv("FAKE_BYTES", "900000")
        impl = wire(fake("huge-answer"), max_answer_bytes=1_000_000)
        assert impl.call("truncate.head", ARGS).result == "x" * 900_000
        impl.close()

    def test_a_line_that_never_ends_is_cut_at_the_cap(self, fake: Fake) -> None:
        """Endless bytes without a newline end at the cap, not in memory exhaustion."""
        impl = wire(fake("endless-line"), max_answer_bytes=4_000_000)
        with pytest.raises(ProtocolViolation, match="cap of 4000000 bytes"):
            impl.call("truncate.head", ARGS)
        impl.close()

    def test_the_cap_is_a_plugin_option(self, tmp_path: Path, fake: Fake) -> None:
        """`--max-answer-bytes` reaches the runner; the case is an error naming the cap."""
        case = "tail-cut-inside-4-byte-sequence-after-byte-2"
        args = ["--impl", shlex.join(fake("huge-answer")), "--case", case]
        code, output, data = conform(
            tmp_path, *args, "--", "--max-answer-bytes", "100000", timeout=GUARD
        )
        assert code == 1, output
        assert statuses(data) == {case: "error"}
        assert "cap of 100000 bytes" in output


class TestReportCaps:
    """Nothing an implementation writes reaches a report whole."""

    def test_stderr_tail_is_capped_in_bytes(
        self, fake: Fake, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """10 MB of stderr without a newline leaves 8 KiB in the error, with its size."""
        monkeypatch.setenv("FAKE_BYTES", "10000000")
        impl = wire(fake("stderr-flood"))
        with pytest.raises(Crashed, match="status 4") as caught:
            impl.call("truncate.head", ARGS)
        tail = caught.value.stderr_tail
        assert f"[the last {STDERR_TAIL_BYTES} of 10000000 bytes]" in tail
        assert len(tail) < STDERR_TAIL_BYTES + 100
        impl.close()

    def test_adapter_error_messages_are_capped(self) -> None:
        """A message of a megabyte keeps its head and tail and says how much it left out."""
        error = ProtocolViolation("a" * 500_000 + "b" * 500_000)
        assert len(error.message) < MESSAGE_CHARS + 100
        assert error.message.startswith("a") and error.message.endswith("b")
        assert "of 1000000 chars not shown" in error.message

    def test_rendered_values_are_capped(self) -> None:
        """A huge list, object or string renders small, with head, tail and sizes."""
        rendered = render_value(list(range(1_000_000)))
        assert len(rendered) < 2500
        assert rendered.startswith("[0, 1") and rendered.endswith("999999]")
        assert "items not shown" in rendered
        assert len(render_value({str(i): "v" * 100 for i in range(100_000)})) < 2500
        assert "(5000000 cp" in render_value("z" * 5_000_000)
        assert len(shorten("q" * 10**6, 100)) < 150

    def test_many_differences_are_capped(self) -> None:
        """A result differing everywhere shows the first differences and a count of the rest."""
        text = render(diff(list(range(10_000)), [n + 1 for n in range(10_000)]))
        assert "… and 9950 more differences" in text
        assert len(text.splitlines()) == 51

    def test_huge_wrong_answers_print_little(
        self, tmp_path: Path, fake: Fake, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Wrong answers of 5 MB each, per case, make a report under 1 MB."""
        monkeypatch.setenv("FAKE_BYTES", "5000000")
        cases = ["tail-cut-inside-4-byte-sequence-after-byte-2", "separator-byte-counted"]
        args = ["--impl", shlex.join(fake("huge-wrong")), "--case", cases[0], "--case", cases[1]]
        code, output, data = conform(tmp_path, *args, timeout=GUARD)
        assert code == 1, output[:5000]
        assert statuses(data) == dict.fromkeys(cases, "failed")
        assert len(output) < 1_000_000
        assert "items not shown" in output


EIGHT = [  # truncate cases whose expected content does not start with the fake's "y"
    "tail-cut-inside-4-byte-sequence-after-byte-2",
    "separator-byte-counted",
    "output-bytes-counted-in-utf8",
    "lone-surrogate-counted-as-three-bytes",
    "lone-surrogates-exact-fit-not-truncated",
    "surrogate-pair-counted-as-one-4-byte-char",
    "reversed-surrogates-counted-as-two-lone-surrogates",
    "crlf-carriage-return-counted",
]


def conform_peak(tmp_path: Path, *args: str) -> tuple[int, int, dict[str, Any]]:
    """`ctxspec conform` in a child process: its status, peak RSS (KiB) and JSON results.

    The peak is `wait4`'s: the run's own, or that of a process it reaped (the
    implementation), whichever is higher; nothing else the test process ran counts.
    """
    results = tmp_path / "results.json"
    command = [sys.executable, "-m", "ctxspec", "conform", "--json", str(results)]
    with open(tmp_path / "output.txt", "wb") as output:
        process = subprocess.Popen(
            [*command, *args], stdout=output, stderr=subprocess.STDOUT, cwd=tmp_path
        )
    try:
        _, status, usage = os.wait4(process.pid, 0)
    except BaseException:  # the pytest-timeout guard: the run ends with the test
        process.kill()
        process.wait()
        raise
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    data = json.loads(results.read_text()) if results.exists() else {}
    return process.returncode, usage.ru_maxrss, data


@pytest.fixture(scope="module")
def one_case_peak(tmp_path_factory: pytest.TempPathFactory) -> int:
    """Peak RSS (KiB) of a run of one case answered with 20 MB: the yardstick."""
    args = ["--impl", shlex.join(HUGE_WRONG), "--case", EIGHT[0]]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FAKE_BYTES", str(20 * MB))
        code, peak, data = conform_peak(tmp_path_factory.mktemp("one"), *args)
    assert code == 1 and statuses(data) == {EIGHT[0]: "failed"}
    return peak


class TestRunMemory:
    """The runner holds a few answers at a time, however many cases answer huge."""

    @pytest.mark.timeout(GUARD + 60)
    def test_eight_huge_wrong_cases_peak_as_one(
        self, tmp_path: Path, one_case_peak: int, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """8 cases, each answered with 20 MB of wrong result, peak within 1.5x of one case.

        Before, each failure's traceback kept its answer (about 100 MB parsed) until the
        garbage collector ran, which it hardly did: 8 cases peaked near 1 GB.
        """
        monkeypatch.setenv("FAKE_BYTES", str(20 * MB))
        selection = [arg for case in EIGHT for arg in ("--case", case)]
        code, peak, data = conform_peak(tmp_path, "--impl", shlex.join(HUGE_WRONG), *selection)
        assert code == 1
        assert statuses(data) == dict.fromkeys(EIGHT, "failed")
        one_window = "strings differ in 1 place\n    at char 0"
        assert all(one_window in r["message"] for r in data["records"])
        assert peak < 1.5 * one_case_peak, (peak, one_case_peak)

    @pytest.mark.timeout(GUARD + 60)
    def test_shrinking_a_huge_wrong_property_peaks_as_one_case(
        self, tmp_path: Path, one_case_peak: int, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A property shrunk against 20 MB wrong answers holds no more than one case does.

        Before, hypothesis kept the exception of every failing example it tried, each
        with its answer in the test's frame, and explained the failure with hundreds of
        reruns: many GB and minutes for one property.
        """
        monkeypatch.setenv("FAKE_BYTES", str(20 * MB))
        args = ["--impl", shlex.join(HUGE_WRONG), "--profile", "ci"]
        name = "test_output_within_limits[truncate.head]"
        code, peak, data = conform_peak(tmp_path, *args, "-k", name)
        assert code == 1
        assert statuses(data) == {name: "failed"}
        assert peak < 1.5 * one_case_peak, (peak, one_case_peak)


class TestPropertyTimeout:
    """A timeout inside a property fails it at once: no retries, no shrinking."""

    def test_hang_stops_the_property_at_its_first_timeout(self, fake: Fake) -> None:
        """Hypothesis calls once, times out once, and the property ends on the next call."""
        impl = wire(fake("hang"), timeout=0.5)
        calls: list[str] = []

        @settings(max_examples=50, database=None, deadline=None)
        @given(st.text())
        def prop(text: str) -> None:
            calls.append(text)
            impl.call("truncate.head", {"content": text})

        with pytest.raises(StopAfterTimeout) as caught:
            prop()
        assert isinstance(caught.value.timeout, Timeout)
        assert len(calls) <= 2
        assert impl.restarts == 0  # the hung process was never started again
        impl.close()

    def test_hanging_property_is_one_error(self, tmp_path: Path, fake: Fake) -> None:
        """`ctxspec conform` runs a property against a hang in seconds: one error, no shrink."""
        args = ["--impl", shlex.join(fake("hang")), "--timeout", "1"]
        code, output, data = conform(tmp_path, *args, "-k", "test_head_is_a_prefix", timeout=GUARD)
        assert code == 1, output
        assert statuses(data) == {"test_head_is_a_prefix": "error"}
        # the verdict replays shipped examples (nothing to shrink): the first timeout ends
        # the property, so its report holds that one request and no other was sent
        assert "failing example, 1 request(s)" in output, output
        assert "timeout: no response to 'truncate.head' within 1 s" in output


class TestStartup:
    """An implementation that cannot start stops the run once, with a distinct status."""

    @pytest.mark.parametrize(
        ("mode", "said"),
        [
            ("crash-at-start", "cannot start on purpose"),
            ("bad-hello", 'not the answer to hello: "hello yourself"'),
            ("old-protocol", "speaks protocol 0"),
            ("hello-without-ops", "'ops' is a required property"),
        ],
    )
    def test_broken_start_is_one_error_and_a_distinct_status(
        self, tmp_path: Path, fake: Fake, mode: str, said: str
    ) -> None:
        """The whole corpus selected, yet one error: the command, the cause, the stderr tail."""
        command = shlex.join(fake(mode))
        code, output, data = conform(tmp_path, "--impl", command, timeout=GUARD)
        assert code == STARTUP_FAILED_STATUS, output
        assert output.count("did not start") == 1, output
        assert said in output
        assert f"command: {command}" in output
        assert data["records"] == []
        assert said in data["header"]["startupFailed"]

    def test_missing_command_is_a_startup_failure(self, tmp_path: Path) -> None:
        """A command that does not exist stops the run the same way."""
        code, output, _ = conform(tmp_path, "--impl", "/nonexistent/ctxspec-impl", timeout=GUARD)
        assert code == STARTUP_FAILED_STATUS, output
        assert "cannot run '/nonexistent/ctxspec-impl'" in output

    def test_empty_command_is_refused_before_the_run(self, tmp_path: Path) -> None:
        """An `--impl` that names no command is bad usage: one line naming --impl, status 2."""
        code, output, _ = conform(tmp_path, "--impl", " ", timeout=GUARD)
        assert code == 2, output
        expected = "argument --impl: expected reference, fastengine, NAME@VERSION or a command"
        assert expected in output

    def test_startup_failure_under_xdist(self, tmp_path: Path, fake: Fake) -> None:
        """With workers, the controller checks once, before any worker starts."""
        code, output, _ = conform(
            tmp_path, "--impl", shlex.join(fake("crash-at-start")), "-n", "2", timeout=GUARD
        )
        assert code == STARTUP_FAILED_STATUS, output
        assert output.count("did not start") == 1, output

    def test_wire_startup_failure_carries_the_stderr_tail(self, fake: Fake) -> None:
        """At the wire, a start-up crash is StartupFailed with the child's last words."""
        impl = wire(fake("crash-at-start"))
        with pytest.raises(StartupFailed) as caught:
            impl.call("truncate.head", ARGS)
        assert "cannot start on purpose" in caught.value.stderr_tail


CASE = "tail-cut-inside-4-byte-sequence-after-byte-2"
TWO = ["--case", CASE, "--case", "astral-char-ending-at-500-counted-as-two-units"]

# One row per fault: the fake's modes, its $FAKE_BYTES, the selection, the statuses the
# JSON results report (None: no record, the run stopped at start-up) and the exit code.
FAULTS = [
    ("setsid-child", None, ["--case", CASE], "error", 1),
    ("setsid-child hang", None, ["--case", CASE], "error", 1),
    ("huge-wrong", 20 * MB, ["--case", CASE], "failed", 1),
    ("huge-answer", 20 * MB, ["--case", CASE], "error", 1),
    ("endless-line", None, ["--case", CASE, "--", "--max-answer-bytes", "4000000"], "error", 1),
    ("stderr-flood", 10 * MB, ["--case", CASE], "error", 1),
    ("hang", None, ["-k", "test_head_is_a_prefix"], "error", 1),
    ("crash-at-start", None, [], None, STARTUP_FAILED_STATUS),
    ("bad-hello", None, [], None, STARTUP_FAILED_STATUS),
    ("old-protocol", None, [], None, STARTUP_FAILED_STATUS),
    ("hello-without-ops", None, [], None, STARTUP_FAILED_STATUS),
    ("no-hello-ops", None, TWO, "unsupported", 0),
    ("garbage", None, ["--case", CASE], "error", 1),
    ("non-utf8", None, ["--case", CASE], "error", 1),
    ("wrong-id", None, ["--case", CASE], "error", 1),
    ("duplicate", None, TWO, "passed error", 1),
    ("partial-exit", None, ["--case", CASE], "error", 1),
    ("partial-hang", None, ["--case", CASE], "error", 1),
    ("exit-at-once", None, ["--case", CASE], "error", 1),
    ("ignore-term hang", None, ["--case", CASE], "error", 1),
    ("crash", None, TWO, "error", 1),
]


def survivors(token: str) -> list[int]:
    """Live processes whose environment carries `token`: what the run left behind."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if f"FAKE_MATRIX={token}".encode() in environ.split(b"\0") and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


class TestFaultMatrix:
    """Issue 13's matrix: each fault, a whole `ctxspec conform` run, and its four bounds.

    Status and exit code from the run itself; wall time held by pytest-timeout (a guard,
    never a timing assertion); output under 1 MB; no process of the fake outlives the run.
    """

    @pytest.mark.timeout(GUARD + 60)
    @pytest.mark.parametrize("row", FAULTS, ids=[row[0].replace(" ", "+") for row in FAULTS])
    def test_fault(
        self,
        tmp_path: Path,
        fake: Fake,
        state: Path,
        monkeypatch: pytest.MonkeyPatch,
        row: tuple[str, int | None, list[str], str | None, int],
    ) -> None:
        """The run ends with the row's status and code, prints little, leaves nothing."""
        modes, size, selection, status, code = row
        token = f"{os.getpid()}-{tmp_path.name}"
        monkeypatch.setenv("FAKE_MATRIX", token)
        if size is not None:
            monkeypatch.setenv("FAKE_BYTES", str(size))
        command = shlex.join(fake(*modes.split()))
        got, output, data = conform(
            tmp_path, "--impl", command, "--timeout", "3", *selection, timeout=GUARD
        )
        assert got == code, output[-5000:]
        assert len(output.encode()) < MB
        records = data.get("records", [])
        if status is None:
            assert records == [] and output.count("did not start") == 1, output[-5000:]
        else:
            assert records, output[-5000:]
            assert {record["status"] for record in records} == set(status.split())
        assert survivors(token) == []
        assert not any(alive(pid) for pid in strays(state))
