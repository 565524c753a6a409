"""The PyPI port pi-agent-harness-lc 0.6.0 as an implementation: its venv, hello, a call."""

from __future__ import annotations

from ctxspec.conformance.harnesses import pi_agent_harness_lc
from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.named import parse_named

SPEC = "pi-agent-harness-lc@0.6.0"  # the `impl` fixture (conftest.py) starts it


class TestPiAgentHarnessLc:
    """Install, handshake and one answer of the port's adapter."""

    def test_name_resolves_to_this_module(self) -> None:
        """`pi-agent-harness-lc@0.6.0` names the family whose installer is this module."""
        spec = parse_named(SPEC)
        assert spec is not None
        assert spec.family.module == pi_agent_harness_lc.__name__
        assert spec.version == "0.6.0"

    def test_requirements_pin_the_port_and_its_loose_dependencies(self) -> None:
        """The venv gets the exact port and core, and the versions the run was made with."""
        pins = pi_agent_harness_lc.requirements("0.6.0")
        assert pins[:2] == ["pi-agent-harness-lc==0.6.0", "pi-agent-core-lc==0.6.0"]
        assert all("==" in pin for pin in pins)
        assert any(pin.startswith("langchain-core==") for pin in pins)

    def test_hello_lists_the_ops(self, impl: Implementation) -> None:
        """hello names the port and lists only the ops its API answers."""
        impl.call("compaction.should", {"contextTokens": 0, "contextWindow": 1})  # starts it
        hello = impl.hello
        assert hello["implementation"]["name"] == "pi-agent-harness-lc"
        assert hello["implementation"]["version"] == "0.6.0"
        ops = set(hello["ops"])
        assert {"session.context", "session.navigate", "tokens.estimate", "prompt.build"} <= ops
        assert not ops & {"truncate.head", "compaction.cut_point", "session.run"}

    def test_one_call_answers(self, impl: Implementation) -> None:
        """compaction.should answers with the port's own threshold test."""
        reply = impl.call("compaction.should", {"contextTokens": 1000, "contextWindow": 1200})
        assert reply.error is None
        assert reply.result == {"shouldCompact": True, "contextTokens": 1000}

    def test_unexpressible_input_is_unsupported(self, impl: Implementation) -> None:
        """A skills block for the bash read tool is an input the port cannot express."""
        skill = {"name": "a", "description": "d", "filePath": "/s/a/SKILL.md"}
        reply = impl.call("skills.format", {"skills": [skill], "fileReadTool": "bash"})
        assert reply.error is not None
        assert reply.error.type == "unsupported"
