"""The Node kit writes an engine's words by their kind, as the reference writes them.

`kit/engine.mjs` rewrites what Pi passes on from Node and V8 (PROTOCOL.md, "An engine's
words"); `ctxspec.reference.engine` gives the same forms. Run on the Node of the pinned Pi install,
whose own messages (a real spawn refusal) are checked as well as written-out ones.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest
from paths import ROOT

from ctxspec.conformance.harnesses import pi as pi_adapter
from ctxspec.reference.engine import js_exception, nul_refused, system_error

KIT = ROOT / "conformance" / "harnesses" / "kit"

# reads [[text, params], ...] (a text of null: spawn rg with params.args and take Node's
# refusal) and prints the portable form of each
SCRIPT = """
import { readFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { portable } from "%(kit)s/engine.mjs";
const refusal = (args) => {
  try { spawn("rg", args); } catch (error) { return error.message; }
  return "spawned";
};
const asked = JSON.parse(readFileSync(0, "utf8"));
const out = asked.map(([text, params]) =>
  portable(text ?? refusal(params.args), params.values ?? {}));
process.stdout.write(JSON.stringify(out));
"""

PREFIX = "Failed to read trust store /agent/trust.json: "
CASES: list[tuple[Any, dict[str, Any], str]] = [
    ("ENOENT: no such file or directory, access '/w/x'", {}, system_error("ENOENT", "/w/x")),
    ("ELOOP: too many symbolic links encountered, access '/w/l'", {}, "<ELOOP /w/l>"),
    ("EISDIR: illegal operation on a directory, read", {}, system_error("EISDIR")),
    (PREFIX + "EISDIR: illegal operation on a directory, read", {}, PREFIX + "<EISDIR>"),
    (PREFIX + "EACCES: permission denied, open '/a/b'", {}, PREFIX + "<EACCES /a/b>"),
    (
        PREFIX + "Unexpected token 'x', \"x: 1\" is not valid JSON",
        {},
        PREFIX + js_exception("SyntaxError"),
    ),
    (PREFIX + "Expected property name or '}' in JSON at position 1", {}, PREFIX + "<SyntaxError>"),
    (
        "Failed to parse theme /a: b.json: SyntaxError: Unexpected end of JSON input",
        {},
        "Failed to parse theme /a: b.json: <SyntaxError>",
    ),
    ("Cannot read properties of null (reading 'muted')", {}, js_exception("TypeError")),
    ("Cannot use 'in' operator to search for 'x' in 5", {}, "<TypeError>"),
    ("value.startsWith is not a function", {}, "<TypeError>"),
    ('The "string" argument must be of type string. Received undefined', {}, "<TypeError>"),
    # Node's own refusals, from a real spawn: the parameter named by the value refused
    (None, {"args": ["--", "a\x00b"], "values": {"pattern": "a\x00b"}}, nul_refused("pattern")),
    (
        None,
        {
            "args": ["--glob", "*\x00", "--", "a\x00b"],
            "values": {"glob": "*\x00", "pattern": "a\x00b"},
        },
        nul_refused("glob"),
    ),
    (
        None,
        {
            "args": ["--", "x\n" + "y" * 130 + "\x00"],
            "values": {"glob": "\x00", "pattern": "x\n" + "y" * 130 + "\x00"},
        },
        nul_refused("pattern"),
    ),
    # Pi's own words stay
    ("Path not found: /w/a\x00", {"path": "/w/a\x00"}, "Path not found: /w/a\x00"),
    ("Variable reference not found: a", {}, "Variable reference not found: a"),
    ("Invalid trust store /agent/trust.json: expected an object", {}, None),
    ("ENOENT", {}, "ENOENT"),
]


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    node = pi_adapter.ensure_installed(quiet=True).node
    script = tmp_path_factory.mktemp("engine") / "engine.mjs"
    script.write_text(SCRIPT % {"kit": KIT.as_posix()})
    asked = json.dumps([[text, params] for text, params, _ in CASES])
    done = subprocess.run(
        [str(node), str(script)], input=asked, capture_output=True, text=True, check=True
    )
    return list(json.loads(done.stdout))


@pytest.mark.parametrize("index", range(len(CASES)))
def test_portable_form(answers: list[Any], index: int) -> None:
    text, _, expected = CASES[index]
    assert answers[index] == (text if expected is None else expected)
