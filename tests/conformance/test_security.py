"""Security of the suite itself: what a case, an answer or an interruption can make it do.

- Confinement: a case's tree and paths cannot make an adapter read or write outside the
  temp dir it lays the tree out in (`..`, absolute paths, links out, writes through links),
  in the Python tree code and in the Pi adapter alike; errors carry virtual paths.
- Temp files: every implementation process gets a private, unpredictable TMPDIR that is
  removed with it, also when `ctxspec conform` is stopped by SIGTERM or Ctrl-C.
- The install cache: an install killed outright is redone (its leftovers removed), two
  processes installing at once build once, a file deleted under node_modules is found.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from processes import alive

from ctxspec.conformance.corpus.cases import load_cases
from ctxspec.conformance.harnesses import pi as pi_adapter
from ctxspec.conformance.harnesses.kit.tree import real_path, validate_tree
from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.processes import RUN_VARIABLE
from ctxspec.conformance.transport.resolve import open_implementation
from ctxspec.conformance.transport.wire import WireImplementation
from ctxspec.reference.errors import InvalidInput

Fake = Callable[..., list[str]]
ESCAPES = {
    "dotdot path": {"w/a.txt": "a", "../ctxspec-escape.txt": "x"},
    "link out by ..": {"w/a.txt": "a", "w/out": {"symlink": "../../../../../../etc"}},
    "absolute link": {"w/a.txt": "a", "w/out": {"symlink": "/etc"}},
    "dotdot after a link": {"w/d/a": "a", "w/s": {"symlink": "d"}, "w/l": {"symlink": "s/../.."}},
    "write through a link": {"w/d/": {}, "w/l": {"symlink": "d"}, "w/l/b.txt": "x"},
    "entry under a file": {"w/a.txt": "a", "w/a.txt/b": "x"},
}


@pytest.fixture(scope="module", params=["reference", "pi@0.85.0"])
def impl(request: pytest.FixtureRequest) -> Iterator[Implementation]:
    implementation = open_implementation(request.param)
    yield implementation
    implementation.close()


class TestConfinement:
    """Nothing in a case reaches outside the adapter's temp dir (rule WIRE-1)."""

    @pytest.mark.parametrize("tree", ESCAPES.values(), ids=ESCAPES.keys())
    def test_python_tree_refuses_escapes(self, tree: dict[str, Any]) -> None:
        """Each way out is InvalidInput naming the tree."""
        with pytest.raises(InvalidInput) as caught:
            validate_tree(tree)
        assert caught.value.field == "tree"

    def test_links_inside_the_tree_are_kept(self) -> None:
        """A link whose leading `..` stay inside the tree is an ordinary entry."""
        tree = {"w/a.txt": "a", "w/d/l": {"symlink": "../a.txt"}, "x/y/z": {"symlink": "../.."}}
        assert validate_tree(tree) == tree

    def test_dotdot_in_a_path_argument_stops_at_the_root(self) -> None:
        assert real_path(Path("/r"), "/w/../../../etc/passwd") == "/r/etc/passwd"
        assert real_path(Path("/r"), "/..") == "/r"

    @pytest.mark.parametrize("tree", ESCAPES.values(), ids=ESCAPES.keys())
    def test_adapters_refuse_escapes_alike(
        self, impl: Implementation, tree: dict[str, Any]
    ) -> None:
        """The reference and the Pi adapter answer invalid_input (field tree), writing nothing."""
        reply = impl.call("tool.read", {"tree": tree, "cwd": "/w", "path": "out/passwd"})
        assert reply.error is not None, reply
        assert (reply.error.type, reply.error.field) == ("invalid_input", "tree")
        if isinstance(impl, WireImplementation) and impl._child is not None:
            # the tree's root is made in the child's TMPDIR: `../` would have landed there
            assert not (Path(impl._child.tmpdir) / "ctxspec-escape.txt").exists()

    def test_read_cannot_climb_out(self, impl: Implementation) -> None:
        """`/w/../../etc/passwd` is the tree's /etc/passwd: missing, named virtually."""
        args = {"tree": {"w/a.txt": "a"}, "cwd": "/w", "path": "/w/../../../etc/passwd"}
        reply = impl.call("tool.read", args)
        assert reply.result == {
            "isError": True,
            "text": "<ENOENT /etc/passwd>",
        }

    def test_error_messages_carry_virtual_paths(self, impl: Implementation) -> None:
        """A thrown error names the case's path, never the temp root, and holds no stack."""
        case = next(c for c in load_cases() if c.id == "corrupt-store-not-json")
        reply = impl.call(case.op, case.args)
        assert reply.error is not None and reply.error.type == "invalid_input", reply
        assert reply.error.field == "trustStore"
        assert "/agent/trust.json" in reply.error.message
        assert "ctxspec-tree-" not in reply.error.message and "\n    at " not in reply.error.message

    def test_virtual_path_under_the_temp_dir_is_not_rewritten(self) -> None:
        """A case's path that lies under the adapter's TMPDIR is named as the case wrote it."""
        install = pi_adapter.ensure_installed(quiet=True)
        impl = WireImplementation(install.argv)
        try:
            child = impl._ensure_started()[0]
            case = next(c for c in load_cases() if c.id == "corrupt-store-not-json")
            # the case's agent dir moved to a virtual path that starts with the real TMPDIR
            agent = child.tmpdir + "/agent"
            tree = {
                agent.lstrip("/") + k.removeprefix("agent") if k.startswith("agent/") else k: v
                for k, v in case.args["tree"].items()
            }
            args = {**case.args, "tree": tree, "agentDir": agent}
            answer = child.request(case.op, args, 30)
        finally:
            impl.close()
        message = answer["error"]["message"]
        assert f"{agent}/trust.json" in message and "<tmp>" not in message, message

    def test_pi_adapter_rewrites_only_its_own_temp_dir(self) -> None:
        """The Pi adapter's error text shows its own temp dir as <tmp>, and /tmp/... as is."""
        install = pi_adapter.ensure_installed(quiet=True)
        errors = Path(pi_adapter.__file__).parent.parent / "kit" / "errors.mjs"
        script = textwrap.dedent(f"""
            import {{ ownTmp, wireError }} from {json.dumps(errors.as_uri())};
            import {{ tmpdir }} from "node:os";
            const error = new Error(`${{ownTmp}}/pi-bash-1.log and /tmp/ws/AGENTS.md`);
            const wire = wireError(error, []);
            console.log(JSON.stringify({{ own: ownTmp, tmp: tmpdir(), wire }}));
        """)
        completed = subprocess.run(
            [str(install.node), "--input-type=module", "-e", script],
            capture_output=True,
            text=True,
            env={**os.environ, "TMPDIR": "/tmp"},
            check=True,
        )
        shown = json.loads(completed.stdout)
        assert shown["tmp"] == shown["own"] and Path(shown["own"]).parent == Path("/tmp").resolve()
        assert shown["wire"]["message"] == "<tmp>/pi-bash-1.log and /tmp/ws/AGENTS.md"
        assert not Path(shown["own"]).exists()  # removed when the adapter's process exits

    def test_pi_stack_goes_to_detail(self) -> None:
        """An internal error of the Pi adapter: the message alone, the JS stack in detail."""
        install = pi_adapter.ensure_installed(quiet=True)
        impl = WireImplementation(install.argv)
        try:
            child = impl._ensure_started()[0]
            answer = child.request("session.context", {"entries": [None]}, 30)
        finally:
            impl.close()
        error = answer["error"]
        assert error["type"] == "internal"
        assert "\n" not in error["message"] and "at " in error["detail"]
        assert str(install.package_dir) not in error["message"]


# every adapter ctxspec ships: the reference, Pi's, the fork's, each PyPI port's and the agents'
ADAPTERS = ["reference", "pi@0.85.0", "oh-my-pi@18.3.4", "pi-agents-py@0.58.3"]
ADAPTERS += ["pi-agent-harness-lc@0.6.0", "gemini-cli@0.61.0"]
TREE_OPS: tuple[str, ...] = ("tool.read", "tool.grep", "skills.load", "context.discover")
TREE_OPS += ("resources.load", "agent.instructions")


@pytest.fixture(scope="module", params=ADAPTERS)
def adapter(request: pytest.FixtureRequest) -> Iterator[Implementation]:
    implementation = open_implementation(request.param)
    yield implementation
    implementation.close()


class TestEveryAdapterConfines:
    """Each shipped adapter lays trees out with the one shared tree code (`tree.py`, or its
    twin `pi/tree.mjs`), so the confinement cases and these tests apply to every one."""

    @pytest.mark.parametrize("tree", ESCAPES.values(), ids=ESCAPES.keys())
    def test_an_escaping_tree_is_refused(self, adapter: Implementation, tree: Any) -> None:
        """On an op that lays the tree out (any listed op, for an adapter with none), a way
        out is invalid_input naming `tree`; nothing is written beside the temp dir."""
        op = next((op for op in TREE_OPS if op in adapter.ops), min(adapter.ops))
        args = {"tree": tree, "cwd": "/w", "path": "out/hostname", "agentDir": "/agent"}
        reply = adapter.call(op, {**args, "includeDefaults": False, "skillPaths": ["/w/out"]})
        assert reply.error is not None, (op, reply)
        assert (reply.error.type, reply.error.field) == ("invalid_input", "tree"), reply
        if isinstance(adapter, WireImplementation) and adapter._child is not None:
            assert not (Path(adapter._child.tmpdir) / "ctxspec-escape.txt").exists()

    def test_dotdot_in_a_read_path_stays_in_the_tree(self, adapter: Implementation) -> None:
        """`/w/../../x.txt` is the tree's /x.txt, where the adapter reads at all."""
        if "tool.read" not in adapter.ops:
            pytest.skip(f"{adapter.name} lists no tool.read")
        args = {"tree": {"w/a.txt": "a", "x.txt": "in"}, "cwd": "/w", "path": "/w/../../x.txt"}
        assert adapter.call("tool.read", args).result == {"isError": False, "text": "in"}


@pytest.mark.slow
class TestTempFiles:
    """Each implementation process has a private TMPDIR, removed with it."""

    def test_private_tmpdir_is_unpredictable_and_removed(self, fake: Fake, tmp_path: Path) -> None:
        """0700, random, inside the run dir; after close, it and the fake's litter are gone."""
        os.environ["FAKE_STATE"] = str(tmp_path / "state")
        try:
            impls = [WireImplementation(fake("litter")) for _ in range(2)]
            for impl in impls:
                impl.call("truncate.head", {"content": "a"})
        finally:
            del os.environ["FAKE_STATE"]
        dirs = [Path(impl._child.tmpdir) for impl in impls if impl._child is not None]
        assert len(set(dirs)) == 2
        for folder in dirs:
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700
            assert folder.parent.name.startswith("ctxspec-run-")
        litter = (tmp_path / "state.litter").read_text().split()
        assert len(litter) == 4 and all(Path(p).exists() for p in litter)
        assert all(Path(p).parent in dirs for p in litter)
        for impl in impls:
            impl.close()
        assert not any(folder.exists() for folder in dirs)
        assert not any(Path(p).exists() for p in litter)  # the mode-0 subdir too

    @pytest.mark.timeout(400)
    @pytest.mark.parametrize(
        ("how", "workers"), [("SIGTERM", "0"), ("SIGTERM", "2"), ("SIGINT", "0")]
    )
    def test_interrupted_run_leaves_nothing(
        self, fake: Fake, tmp_path: Path, how: str, workers: str
    ) -> None:
        """A run stopped mid-request ends, kills its fakes (SIGTERM ignored) and removes all."""
        state = tmp_path / "state"
        command = shlex.join(fake("litter", "hang", "ignore-term"))
        argv = [sys.executable, "-c", _SIGINT_DEFAULT, "-m", "ctxspec", "conform"]
        argv += ["--impl", command, "--timeout", "300", "-n", workers, "-k", "test_case"]
        run = subprocess.Popen(
            argv,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=tmp_path,
            env=dict(os.environ, FAKE_STATE=str(state)),
        )
        litter = state.with_suffix(".litter")
        wanted = 4 if workers == "2" else 2
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and (
            not litter.exists() or len(litter.read_text().split()) < wanted
        ):
            time.sleep(0.2)
        paths = [Path(p) for p in litter.read_text().split()]
        fakes = _processes_with(str(state))
        assert fakes, "the fake never ran"
        run_dirs = {p.parent.parent for p in paths}
        run.send_signal(getattr(signal, how))
        code = run.wait(timeout=180)  # a bound that holds on a loaded 2-core machine
        assert code != 0
        assert not any(alive(pid) for pid in fakes)
        assert not any(p.exists() for p in paths)
        assert not any(d.exists() for d in run_dirs)


# A test run started in the background (`cmd &` in a script) passes SIGINT on ignored,
# and a process that inherits it ignored rightly keeps ignoring it: the run under test is
# exec'd with SIGINT at its default, as a terminal's Ctrl-C would find it.
_SIGINT_DEFAULT: Final = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


def _processes_with(marker: str) -> list[int]:
    """Live processes whose environment mentions `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
            except OSError:
                continue
            if marker.encode() in environ and RUN_VARIABLE.encode() in environ:
                found.append(int(entry))
    return found


INSTALLER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from ctxspec.conformance.transport.cache import ensure

    def build(work):
        with open(sys.argv[1], "a") as log:
            log.write(f"{os.getpid()} {work}\\n")
        time.sleep(float(sys.argv[2]))
        (work / "ok.txt").write_text("y")

    print(ensure("thing", "k1", build))
    """
)


def _installer(tmp_path: Path, log: Path, seconds: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", INSTALLER, str(log), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ, CTXSPEC_CACHE=str(tmp_path)),
    )


@pytest.mark.timeout(240)
class TestCache:
    """Installs across processes: killed, concurrent, damaged."""

    def test_install_killed_outright_is_redone(self, tmp_path: Path) -> None:
        """SIGKILL mid-build leaves a side dir, never a used install; the next run cleans it."""
        log = tmp_path / "builds.log"
        first = _installer(tmp_path, log, 60)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not log.exists():
            time.sleep(0.05)
        first.kill()
        first.communicate()
        impls = tmp_path / "impls"
        assert not (impls / "thing").exists()
        assert [p.name.startswith(".thing.building-") for p in impls.iterdir() if p.is_dir()] == [
            True
        ]
        second = _installer(tmp_path, log, 0)
        out, _ = second.communicate(timeout=60)
        assert Path(out.strip()) == impls / "thing" and (impls / "thing" / "ok.txt").exists()
        assert [p.name for p in impls.iterdir() if p.is_dir()] == ["thing"]

    def test_concurrent_processes_build_once(self, tmp_path: Path) -> None:
        """Three processes asking at once: one builds, the others wait and use its install."""
        log = tmp_path / "builds.log"
        runs = [_installer(tmp_path, log, 1) for _ in range(3)]
        outs = {run.communicate(timeout=120)[0].strip() for run in runs}
        assert len(log.read_text().splitlines()) == 1
        assert outs == {str(tmp_path / "impls" / "thing")}

    def test_pi_check_finds_a_deleted_file_under_node_modules(self, tmp_path: Path) -> None:
        """The Pi install's check names a package whose files were deleted, so it is rebuilt."""
        package = pi_adapter.package_name("0.85.0")
        lock = {"packages": {"": {}, f"node_modules/{package}": {}, "node_modules/dep": {}}}
        (tmp_path / "package-lock.json").write_text(json.dumps(lock))
        for path in (f"node_modules/{package}", "node_modules/dep"):
            (tmp_path / path).mkdir(parents=True)
            (tmp_path / path / "package.json").write_text('{"version": "0.85.0"}')
        problem = pi_adapter.HARNESS.problem
        assert problem(tmp_path, "0.85.0") is None
        (tmp_path / "node_modules/dep/package.json").unlink()
        assert problem(tmp_path, "0.85.0") == "node_modules/dep/package.json is missing"
