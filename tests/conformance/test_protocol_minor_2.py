"""Protocol 1.2: resources.load's included parts, path forms, trust keys, cacheRetention.

Each addition is optional: without the argument that asks, the answer keeps its v1.1
shape; with it, the answer carries the new part and validates against the schemas."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from ctxspec.conformance.engines.reference import handle
from ctxspec.conformance.protocol import validate_args, validate_result

SKILL = "---\nname: {name}\ndescription: d\n---\n"
THEME = '{"name": "t", "colors": {"muted": 1, "text": "", "thinkingXhigh": 3, "selectedBg": 2}}'
BASE = {"cwd": "/ws", "agentDir": "/agent", "home": "/home"}
STAMP = "2026-01-01T00:00:00.000Z"


def _call(op: str, args: dict[str, Any]) -> Any:
    assert validate_args(op, args) is None
    reply = handle(op, args)
    assert reply.error is None, reply.error
    validate_result(op, reply.result)
    return reply.result


class TestResourcesInclude:
    """`include` adds themes, extension paths and prompt content, and only then."""

    TREE: ClassVar[dict[str, str]] = {
        "agent/themes/t.json": THEME,
        "agent/extensions/e.ts": "x",
        "agent/prompts/p.md": "---\ndescription: d\n---\nbody\n",
    }

    def test_without_include_the_v11_shape(self) -> None:
        result = _call("resources.load", {"tree": self.TREE, **BASE})
        assert not {"themes", "themeDiagnostics", "extensionPaths", "extensionErrors"} & set(result)
        assert "content" not in result["prompts"][0]

    def test_each_part_when_asked(self) -> None:
        args = {"tree": self.TREE, **BASE, "include": ["themes", "extensions", "promptContent"]}
        result = _call("resources.load", args)
        assert result["themes"] == [{"name": "t", "sourcePath": "/agent/themes/t.json"}]
        assert result["extensionPaths"] == ["/agent/extensions/e.ts"]
        assert result["extensionErrors"] == []
        assert result["prompts"][0]["content"] == "body"

    def test_no_flags_keep_explicit_paths(self) -> None:
        args = {
            "tree": {**self.TREE, "x/u.json": THEME.replace('"t"', '"u"'), "x/f.ts": "x"},
            **BASE,
            "include": ["themes", "extensions"],
            "noThemes": True,
            "noExtensions": True,
            "additionalThemePaths": ["/x/u.json"],
            "additionalExtensionPaths": ["/x/f.ts"],
        }
        result = _call("resources.load", args)
        assert [t["name"] for t in result["themes"]] == ["u"]
        assert result["extensionPaths"] == ["/x/f.ts"]

    def test_unknown_part_is_invalid_input(self) -> None:
        reply = handle("resources.load", {"tree": {}, **BASE, "include": ["colours"]})
        assert reply.error is not None and reply.error.field == "include"

    @pytest.mark.parametrize("source", ["npm:pkg", "git:github.com/a/b", "https://x.test/p"])
    def test_package_source_is_invalid_input(self, source: str) -> None:
        reply = handle("resources.load", {"tree": {}, **BASE, "additionalExtensionPaths": [source]})
        assert reply.error is not None and reply.error.field == "additionalExtensionPaths"


class TestPathForms:
    """Explicit paths are trimmed and resolved against cwd or home (PATH-1)."""

    def test_relative_and_padded_skill_paths(self) -> None:
        tree = {"ws/s/a/SKILL.md": SKILL.format(name="a"), "x/b/SKILL.md": SKILL.format(name="b")}
        args = {"tree": tree, **BASE, "skillPaths": [" s ", "\t/x/b\n"], "includeDefaults": False}
        result = _call("skills.load", args)
        assert [s["filePath"] for s in result["skills"]] == ["/ws/s/a/SKILL.md", "/x/b/SKILL.md"]

    def test_file_url_is_invalid_input(self) -> None:
        reply = handle("skills.load", {"tree": {}, **BASE, "skillPaths": ["file:///etc"]})
        assert reply.error is not None and reply.error.field == "skillPaths"


def test_trust_keys_are_strings() -> None:
    """TRUST-8: a relative or unnormalised key decides nothing; `/` decides for all."""
    tree = {"ws/repo/.pi/skills/s/SKILL.md": SKILL.format(name="s")}
    args = {"tree": tree, "cwd": "/ws/repo", "agentDir": "/agent", "home": "/home"}
    odd = _call("trust.resolve", {**args, "trustStore": {"ws/repo": True, "/ws//repo": True}})
    assert odd["stored"] is None and odd["trusted"] is False
    root = _call("trust.resolve", {**args, "trustStore": {"/": True}})
    assert root["stored"] == {"path": "/", "decision": True}


@pytest.mark.parametrize("op", ["session.navigate", "branch.summarize"])
def test_summary_request_cache_retention_when_extended(op: str) -> None:
    """LCA-8: with extended the request carries cacheRetention "none"; without, not."""
    entries = [
        {"type": "message", "id": "u1", "parentId": None, "timestamp": STAMP,
         "message": {"role": "user", "content": "a", "timestamp": 1}},
        {"type": "message", "id": "uA", "parentId": "u1", "timestamp": STAMP,
         "message": {"role": "user", "content": "b", "timestamp": 2}},
        {"type": "message", "id": "uB", "parentId": "u1", "timestamp": STAMP,
         "message": {"role": "user", "content": "c", "timestamp": 3}},
    ]  # fmt: skip
    args: dict[str, Any] = {"entries": entries, "model": {"reply": {"text": "s"}}}
    if op == "session.navigate":
        args |= {"leafId": "uA", "targetId": "uB", "summarize": True, "timestamp": STAMP}
    plain = _call(op, args)["request"]
    extended = _call(op, {**args, "extended": True})["request"]
    assert "cacheRetention" not in plain
    assert extended == {**plain, "cacheRetention": "none"}
