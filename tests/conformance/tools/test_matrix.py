"""`ctxspec matrix`: matrix.json, the HTML page (checked in a real browser) and badges."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from paths import FAKE_IMPL

from ctxspec.conformance.corpus.cases import load_cases
from ctxspec.conformance.tools.matrix import (
    build_matrix,
    render_html,
    run_matrix,
    slug,
    write_matrix,
)

pytestmark = pytest.mark.slow  # the matrix runs conform per implementation

CASES = [c.id for c in load_cases() if c.op == "truncate.tail" and c.expect_error is None][:3]


def fake(*modes: str) -> str:
    return shlex.join([sys.executable, str(FAKE_IMPL), *modes])


@pytest.fixture(scope="module")
def matrix_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A matrix over the reference, a wrong fake and one that cannot start, on 3 cases."""
    out = tmp_path_factory.mktemp("matrix")
    select = [arg for case in CASES for arg in ("--case", case)]
    impls = ["reference", fake("wrong"), fake("no-hello-ops"), "/nonexistent/ctxspec-impl"]
    results = run_matrix(impls, out, timeout=10, extra=select)
    write_matrix(build_matrix(results), out)
    return out


def test_matrix_json_counts_each_implementation(matrix_dir: Path) -> None:
    matrix = json.loads((matrix_dir / "matrix.json").read_text())
    by_name = {impl["name"]: impl for impl in matrix["implementations"]}
    reference = by_name["reference"]
    assert reference["counts"]["passed"] == len(CASES) and reference["passes"]
    wrong = by_name[fake("wrong")]
    assert wrong["counts"]["failed"] >= 1 and not wrong["passes"]
    assert len(wrong["listed"]) == wrong["counts"]["failed"]
    assert all(r["status"] == "failed" and "truncatedBy" in r["message"] for r in wrong["listed"])
    assert by_name[fake("no-hello-ops")]["counts"]["unsupported"] == len(CASES)
    broken = by_name["/nonexistent/ctxspec-impl"]
    assert broken["runError"] or broken["counts"]["error"], broken
    assert set(matrix["cases"]) == set(CASES)
    assert matrix["cases"][CASES[0]]["statuses"][slug("reference")] == "passed"
    assert matrix["suite"]["protocol"] == 1


def test_badges_are_svg_and_say_the_verdict(matrix_dir: Path) -> None:
    badges = {p.stem: ET.parse(p).getroot() for p in (matrix_dir / "badges").glob("*.svg")}
    assert len(badges) == 4
    texts = {name: " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
             for name, root in badges.items()}  # fmt: skip
    assert texts["reference"] == f"ctxspec {len(CASES)}/{len(CASES)} ok"
    assert "failing" in texts[slug(fake("wrong"))]


def test_invisible_characters_are_escaped_as_in_the_text_report() -> None:
    message = 'expected "a\u200bb", actual "\ud83d" <script>x</script>'
    results: list[dict[str, Any]] = [
        {
            "header": {"implementation": "p"},
            "records": [
                {"id": "c1", "kind": "case", "boundary": "b", "op": "o", "status": "failed",
                 "message": message},
            ],
        }
    ]  # fmt: skip
    page = render_html(build_matrix(results))
    assert "a\\u200bb" in page and "\\ud83d" in page
    assert "\u200b" not in page and "<script>x" not in page


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(
    _chromium() is None, reason="no headless Chromium (Debian: apt-get install chromium)"
)
def test_page_renders_in_a_browser_and_opens_the_linked_case(
    matrix_dir: Path, tmp_path: Path
) -> None:
    """Chromium loads the page; a case link's fragment opens that case and shows its diff."""
    wrong = slug(fake("wrong"))
    listed = json.loads((matrix_dir / "matrix.json").read_text())["implementations"][1]["listed"]
    case = listed[0]["id"]
    url = (matrix_dir / "index.html").as_uri() + f"#case-{wrong}-{case}"
    command = [
        str(_chromium()), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", url,
    ]  # fmt: skip
    dom = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout
    assert f'data-revealed="case-{wrong}-{case}"' in dom  # the page's script ran
    before, after = dom.split(f'id="case-{wrong}-{case}"', 1)
    tag = before.rsplit("<details", 1)[1] + after.split(">", 1)[0]
    assert "open" in tag  # the linked case is open
    section = dom.split(f'id="case-{wrong}-{case}"')[1].split("</details>")[0]
    assert "truncatedBy" in section  # its diff is there
    assert "<table" in dom and "reference" in dom
