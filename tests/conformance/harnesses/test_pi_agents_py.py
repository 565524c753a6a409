"""The PyPI port pi-agents-py 0.58.3 as an implementation: its venv, hello, a call."""

from __future__ import annotations

from ctxspec.conformance.harnesses import pi_agents_py
from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.named import parse_named

SPEC = "pi-agents-py@0.58.3"  # the `impl` fixture (conftest.py) starts it


class TestPiAgentsPy:
    """Install, handshake and answers of the port's adapter."""

    def test_name_resolves_to_this_module(self) -> None:
        """`pi-agents-py@0.58.3` names the family whose installer is this module."""
        spec = parse_named(SPEC)
        assert spec is not None
        assert spec.family.module == pi_agents_py.__name__
        assert spec.version == "0.58.3"

    def test_requirements_pin_the_port_and_its_loose_dependencies(self) -> None:
        """The venv gets the exact port and the dependency versions the run was made with."""
        pins = pi_agents_py.requirements("0.58.3")
        assert pins[0] == "pi-agents-py==0.58.3"
        assert all("==" in pin for pin in pins)
        assert {"httpx", "jsonschema", "pyyaml"} <= {pin.split("==")[0] for pin in pins}

    def test_hello_lists_the_ops(self, impl: Implementation) -> None:
        """hello names the port and lists only the ops its API answers."""
        impl.call("format.size", {"bytes": 1})  # starts it
        hello = impl.hello
        assert hello["implementation"]["name"] == "pi-agents-py"
        assert hello["implementation"]["version"] == "0.58.3"
        ops = set(hello["ops"])
        assert {"truncate.head", "truncate.tail", "tool.bash", "skills.load"} <= ops
        assert not ops & {"stream.tail", "session.context", "prompt.build", "context.discover"}

    def test_one_call_answers(self, impl: Implementation) -> None:
        """truncate.tail answers with the port's result in Pi's camelCase shape."""
        reply = impl.call("truncate.tail", {"content": "a\nb\nc", "maxLines": 2})
        assert reply.error is None
        assert reply.result == {
            "content": "b\nc",
            "truncated": True,
            "truncatedBy": "lines",
            "totalLines": 3,
            "totalBytes": 5,
            "outputLines": 2,
            "outputBytes": 3,
            "lastLinePartial": False,
            "firstLineExceedsLimit": False,
            "maxLines": 2,
            "maxBytes": 51200,
        }

    def test_a_tool_runs_on_the_virtual_tree(self, impl: Implementation) -> None:
        """tool.read lays the tree out and answers with virtual paths."""
        reply = impl.call("tool.read", {"tree": {"w/a.txt": "hi"}, "cwd": "/w", "path": "b.txt"})
        assert reply.error is None
        assert reply.result == {"isError": False, "text": "File not found: /w/b.txt"}

    def test_unexpressible_input_is_unsupported(self, impl: Implementation) -> None:
        """A threshold from messages needs an estimate of a context the port does not have."""
        args = {"messages": [], "contextWindow": 100}
        reply = impl.call("compaction.should", args)
        assert reply.error is not None
        assert reply.error.type == "unsupported"
