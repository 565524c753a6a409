"""The Node kit hands the implementation a tree's files byte for byte.

A literal trust store or settings file whose paths must become real ones changes only in
those string tokens (`kit/jsontext.mjs`); one with nothing to map is never written. Run
on the Node of the pinned Pi install, as the Pi adapter runs.
"""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT

from ctxspec.conformance.harnesses import pi as pi_adapter
from ctxspec.conformance.harnesses.kit.tree import materialize

KIT = ROOT / "conformance" / "harnesses" / "kit"
ROOT_MARK = "<R>"  # the laid-out root, as the script reports the files

# lays the tree out, maps the store's keys and confines the settings as the Pi adapter
# does, and prints every file's bytes (base64) with the root replaced by <R>
SCRIPT = """
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { materialize, confineSettings, removeTree } from "%(kit)s/tree.mjs";
import { mapObjectKeys } from "%(kit)s/jsontext.mjs";
const tree = JSON.parse(readFileSync(0, "utf8"));
const root = materialize(tree);
const written = {};
const store = root + "/agent/trust.json";
const storeKey = (key) => (key === "/" ? root : key.startsWith("/") ? root + key : key);
if (existsSync(store)) written.store = mapObjectKeys(store, storeKey);
const settings = root + "/agent/settings.json";
if (existsSync(settings)) confineSettings(root, settings, { base: "/agent", home: "/home" });
const files = {};
for (const name of readdirSync(root + "/agent")) {
  const text = readFileSync(root + "/agent/" + name).toString("latin1");
  files[name] = Buffer.from(text.split(root).join("%(mark)s"), "latin1").toString("base64");
}
removeTree(root);
process.stdout.write(JSON.stringify({ written, files }));
"""


@pytest.fixture(scope="module")
def node() -> Path:
    return pi_adapter.ensure_installed(quiet=True).node


def _lay_out(
    node: Path, tmp_path: Path, tree: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, bytes]]:
    script = tmp_path / "layout.mjs"
    script.write_text(SCRIPT % {"kit": KIT.as_posix(), "mark": ROOT_MARK})
    done = subprocess.run(
        [str(node), str(script)], input=json.dumps(tree), capture_output=True, text=True, check=True
    )
    out = json.loads(done.stdout)
    return out["written"], {name: base64.b64decode(data) for name, data in out["files"].items()}


SKILL = "---\nname: s\ndescription: d\n---\n"


def test_a_store_with_no_key_to_map_is_never_written(node: Path, tmp_path: Path) -> None:
    """`bom-in-store-stripped`'s store: Pi is handed its BOM, not a rewritten `{}`."""
    written, files = _lay_out(node, tmp_path, {"agent/trust.json": "\ufeff{}"})
    assert written["store"] is False
    assert files["trust.json"] == b"\xef\xbb\xbf{}"


def test_a_mapped_store_keeps_every_byte_but_the_keys(node: Path, tmp_path: Path) -> None:
    """BOM, spacing, key order, duplicate keys, number spelling and escapes stay."""
    store = '\ufeff{ "/ws" : true,\n  "x": 1.50, "\\/ws":null, "/": false, "~/y": 1e0 }\r\n'
    written, files = _lay_out(node, tmp_path, {"agent/trust.json": store})
    assert written["store"] is True
    assert (
        files["trust.json"]
        == (
            '\ufeff{ "<R>/ws" : true,\n  "x": 1.50, "<R>\\/ws":null, "<R>": false, "~/y": 1e0 }\r\n'
        ).encode()
    )


def test_a_store_that_is_not_json_is_left_as_written(node: Path, tmp_path: Path) -> None:
    written, files = _lay_out(node, tmp_path, {"agent/trust.json": '{"/ws": tru'})
    assert written["store"] is False
    assert files["trust.json"] == b'{"/ws": tru'


def test_invalid_utf8_outside_the_mapped_keys_is_kept(node: Path, tmp_path: Path) -> None:
    raw = b'{"/ws": true, "\xff": null}'
    tree = {"agent/trust.json": {"contentB64": base64.b64encode(raw).decode()}}
    _, files = _lay_out(node, tmp_path, tree)
    assert files["trust.json"] == b'{"<R>/ws": true, "\xff": null}'


def test_settings_change_only_in_the_paths_that_map(node: Path, tmp_path: Path) -> None:
    settings = (
        '\ufeff{"skills": ["/s", "*.md", "rel"],\n'
        ' "packages": [{"source": "/p", "n": 1e0}], "other": ["/z"]}'
    )
    tree = {"agent/settings.json": settings, "agent/plain.json": "\ufeff{}"}
    _, files = _lay_out(node, tmp_path, tree)
    assert (
        files["settings.json"]
        == (
            '\ufeff{"skills": ["<R>/s", "*.md", "rel"],\n'
            ' "packages": [{"source": "<R>/p", "n": 1e0}], "other": ["/z"]}'
        ).encode()
    )
    assert files["plain.json"] == b"\xef\xbb\xbf{}"


def test_a_lone_surrogate_is_written_as_node_writes_it(node: Path, tmp_path: Path) -> None:
    """The Node and Python kits write a text entry to the same bytes."""
    _, files = _lay_out(node, tmp_path, {"agent/a.md": "a\ud800b\U0001f600"})
    materialize({"agent/a.md": "a\ud800b\U0001f600"}, tmp_path)
    node_bytes, python_bytes = files["a.md"], (tmp_path / "agent/a.md").read_bytes()
    assert node_bytes == python_bytes == b"a\xef\xbf\xbdb\xf0\x9f\x98\x80"
