"""`ctxspec matrix`: one report over several implementations.

Each implementation runs `ctxspec conform` in a child process (`suite_run.run_suite`;
or its results file is given with `--from`; a progress bar on stderr counts the runs),
and the results become:

- `matrix.json`: the suite's header, per implementation its counts per status, per
  boundary and per op, its divergence classes (`ctxspec.conformance.runner.results`: op, path, kind;
  largest first, with counts and an example case), its failing records, and per case the
  status of each;
- `index.html`: a static page (no external assets) with implementations as columns and
  boundary/op as rows; then each implementation's largest divergence classes, each
  with its count and a link to one example case; a count of failing cases links to their
  list, where each case shows its message with invisible characters escaped as in the
  text report; an expectations file shown by its path in the package or the cwd, else
  its name, never by a path of the machine that ran it;
- `badges/<slug>.svg`: a flat badge per implementation (passed / total, red when the run
  fails, grey when it could not run).

An implementation that cannot be installed or started gets its column with the error,
not a crash of the matrix. Every folder and file the matrix will write is tried before
the first run (`check_outputs`): one that cannot be written is one line naming it, exit
status 2, never a traceback after the runs.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.cli_args import (
    impl_spec,
    output_dir,
    output_file,
    read_results,
    require,
    seconds,
    workers,
)
from ctxspec.conformance.runner.progress import progress
from ctxspec.conformance.runner.report_paths import shown_path
from ctxspec.conformance.runner.results import FAILING, LISTED, STATUSES, divergence_classes, slug
from ctxspec.conformance.runner.suite_run import run_suite
from ctxspec.conformance.transport.resolve import canonical_name

__all__ = [
    "build_matrix",
    "check_outputs",
    "main_matrix",
    "matrix_arguments",
    "matrix_paths",
    "run_matrix",
    "slug",
    "write_matrix",
]

TOP_CLASSES: Final = 10  # classes the page shows per implementation (matrix.json has all)


def run_matrix(
    impls: Sequence[str],
    out: Path,
    *,
    jobs: str | None = None,
    timeout: float | None = None,
    extra: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """Run the suite against each implementation; a results dict (or an error) per one."""
    results = []
    (out / "results").mkdir(parents=True, exist_ok=True)
    with progress(len(impls), "matrix") as step:
        for impl in impls:
            options = [*(["--timeout", str(timeout)] if timeout else []), *extra]
            target = out / "results" / f"{slug(impl)}.json"
            step(advance=0, note=f"running {impl}")
            run = run_suite(impl, jobs=jobs, options=options, json_path=target)
            if run.data is not None and (run.records or run.status == 0):
                results.append({**run.data, "exitStatus": run.status})
            else:  # no results: it could not be installed or started
                results.append(
                    {
                        "header": {"implementation": canonical_name(impl)},
                        "records": [],
                        "exitStatus": run.status,
                        "runError": run.problem(),
                    }
                )
            step(note=f"{impl}: conform exited {run.status}")
    return results


def _counts(records: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    counter = Counter(str(r["status"]) for r in records)
    return {status: counter[status] for status in STATUSES}


def _name(data: Mapping[str, Any]) -> str:
    """An implementation's name in the matrix: its results' header's."""
    return str(data["header"].get("implementation", "?"))


def _slugs(names: Sequence[str]) -> list[str]:
    """Each name's slug, unique in order (a repeat gets `-2`): its key and badge's name."""
    seen: set[str] = set()
    keys = []
    for name in names:
        key = slug(name)
        while key in seen:
            key += "-2"
        seen.add(key)
        keys.append(key)
    return keys


def matrix_paths(
    out: Path, sources: Sequence[Mapping[str, Any]], impls: Sequence[str]
) -> tuple[list[Path], list[Path]]:
    """The folders and the files a matrix over `sources` (results read with `--from`) and
    `impls` (run) writes in `out`, each of which `check_outputs` tries before the run."""
    names = [*(_name(data) for data in sources), *(canonical_name(impl) for impl in impls)]
    folders = [out, out / "badges", *([out / "results"] if impls else [])]
    files = [
        out / "matrix.json",
        out / "index.html",
        *(out / "results" / f"{slug(impl)}.json" for impl in impls),
        *(out / "badges" / f"{key}.svg" for key in _slugs(names)),
    ]
    return folders, files


def check_outputs(out: Path, sources: Sequence[Mapping[str, Any]], impls: Sequence[str]) -> None:
    """Raise `UsageError` (`--out`) unless every folder and file the matrix writes can be
    written: a folder where a file goes (`DIR/index.html/`) is refused before any run,
    not met as a traceback after all of them."""
    folders, files = matrix_paths(out, sources, impls)
    for folder in folders:
        require("--out", output_dir, str(folder))
    for file in files:
        require("--out", output_file, str(file))


def build_matrix(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The matrix (the content of matrix.json) from results files' data."""
    header: Mapping[str, Any] = next((r["header"] for r in results if r.get("records")), {})
    implementations = []
    cases: dict[str, dict[str, Any]] = {}
    names = [_name(data) for data in results]
    for name, key, data in zip(names, _slugs(names), results, strict=True):
        records = list(data.get("records", []))
        hello = data["header"].get("hello") or {}
        by_boundary: dict[str, list[Any]] = {}
        by_op: dict[str, list[Any]] = {}
        for record in records:
            by_boundary.setdefault(record["boundary"], []).append(record)
            by_op.setdefault(f"{record['boundary']} / {record['op']}", []).append(record)
            entry = cases.setdefault(
                record["id"],
                {"boundary": record["boundary"], "op": record["op"], "kind": record["kind"]},
            )
            entry.setdefault("statuses", {})[key] = record["status"]
        counts = _counts(records)
        implementations.append(
            {
                "name": name,
                "slug": key,
                "version": (hello.get("implementation") or {}).get("version"),
                "expectations": shown_path(data["header"].get("expectations")),
                "counts": counts,
                "total": len(records),
                "passes": bool(records) and not any(counts[s] for s in FAILING),
                "runError": data.get("runError"),
                "byBoundary": {b: _counts(rs) for b, rs in sorted(by_boundary.items())},
                "byOp": {op: _counts(rs) for op, rs in sorted(by_op.items())},
                "classes": data.get("classes") or divergence_classes(records),
                "listed": [
                    {
                        k: r.get(k)
                        for k in ("id", "kind", "boundary", "op", "status", "message", "classes")
                    }
                    for r in records
                    if r["status"] in LISTED
                ],
            }
        )
    suite = {
        k: header.get(k)
        for k in ("suiteVersion", "dataVersion", "protocol", "piVersion", "corpusSha256")
    }
    return {"suite": suite, "implementations": implementations, "cases": cases}


def shown(text: str) -> str:
    """`text` for the page: invisible characters and lone surrogates escaped, then HTML."""
    out = []
    for char in text:
        code = ord(char)
        invisible = unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp", "Zs", "Co", "Cn"}
        if 0xD800 <= code <= 0xDFFF or (invisible and char not in "\n "):
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(char)
    return html.escape("".join(out))


_STYLE = """
body{font:14px system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}
.passed{color:#176b2c}.failed,.error,.unexpected-pass{color:#b00020;font-weight:bold}
.unsupported{color:#888}.not-applicable{color:#aaa}.expected-failure{color:#8a5a00}
.failed-as-pi{color:#8a5a00}
.cell a{margin-right:.6em;text-decoration:none}
pre{white-space:pre-wrap;background:#f8f8f8;padding:.5em;max-height:30em;overflow:auto}
details.case{margin:.3em 0}details.case[open]>summary{background:#fff3c4}
.ok{color:#176b2c}.bad{color:#b00020}
"""

# opens (and scrolls to) the case or list a URL fragment names: #case-<slug>-<id>
_SCRIPT = """
function reveal(){
  var id = decodeURIComponent(location.hash.slice(1));
  if(!id) return;
  var target = document.getElementById(id);
  if(!target) return;
  for(var e = target; e; e = e.parentElement){ if(e.tagName === 'DETAILS') e.open = true; }
  target.scrollIntoView();
  document.body.setAttribute('data-revealed', id);
}
window.addEventListener('hashchange', reveal);
window.addEventListener('DOMContentLoaded', reveal);
"""

_SHORT: Final = {
    "passed": "pass",
    "failed": "fail",
    "error": "error",
    "unsupported": "unsup",
    "not-applicable": "n/a",
    "failed-as-pi": "as Pi",
    "expected-failure": "xfail",
    "unexpected-pass": "xpass",
}


def _cell(impl: Mapping[str, Any], counts: Mapping[str, int], anchor: str) -> str:
    parts = []
    for status in STATUSES:
        count = counts.get(status, 0)
        if not count:
            continue
        label = f"{count} {_SHORT[status]}"
        if status in LISTED:
            parts.append(f'<a class="{status}" href="#list-{impl["slug"]}-{anchor}">{label}</a>')
        else:
            parts.append(f'<span class="{status}">{label}</span>')
    return '<td class="cell">' + (" ".join(parts) or "–") + "</td>"


def _anchor(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text)


def render_html(matrix: Mapping[str, Any]) -> str:
    impls = matrix["implementations"]
    suite = matrix["suite"]
    rows = sorted({op for impl in impls for op in impl["byOp"]})
    out = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        "<title>ctxspec matrix</title>",
        f"<style>{_STYLE}</style><script>{_SCRIPT}</script></head><body>",
        "<h1>ctxspec matrix</h1>",
        "<p>ctxspec {suiteVersion}, data {dataVersion}, protocol {protocol}, pinned to Pi "
        "{piVersion}, corpus <code>{corpus}</code></p>".format(
            corpus=str(suite.get("corpusSha256") or "")[:16],
            **{k: html.escape(str(suite.get(k))) for k in suite},
        ),
        "<table id='summary'><tr><th>implementation</th><th>version</th><th>result</th>"
        "<th>counts</th><th>expectations</th></tr>",
    ]
    for impl in impls:
        if impl["runError"]:
            verdict = "<span class='bad'>could not run</span>"
        else:
            verdict = (
                "<span class='ok'>passes</span>"
                if impl["passes"]
                else ("<span class='bad'>fails</span>")
            )
        out.append(
            f"<tr id='impl-{impl['slug']}'><td>{html.escape(impl['name'])}</td>"
            f"<td>{html.escape(str(impl['version']))}</td><td>{verdict}</td>"
            + _cell(impl, impl["counts"], "all")
            + f"<td>{html.escape(str(impl['expectations']))}</td></tr>"
        )
    out.append("</table><h2>By boundary and op</h2><table id='matrix'><tr><th>boundary / op</th>")
    out += [f"<th>{html.escape(impl['name'])}</th>" for impl in impls]
    out.append("</tr>")
    for row in rows:
        out.append(f"<tr><th>{html.escape(row)}</th>")
        out += [_cell(impl, impl["byOp"].get(row, {}), _anchor(row)) for impl in impls]
        out.append("</tr>")
    out.append("</table>")
    out += _classes_html(impls)
    out.append("<h2>Cases by implementation</h2>")
    for impl in impls:
        out.append(f"<h3 id='list-{impl['slug']}-all'>{html.escape(impl['name'])}</h3>")
        if impl["runError"]:
            out.append(f"<pre class='run-error'>{shown(impl['runError'])}</pre>")
            continue
        by_row: dict[str, list[Mapping[str, Any]]] = {}
        for record in impl["listed"]:
            by_row.setdefault(f"{record['boundary']} / {record['op']}", []).append(record)
        if not by_row:
            out.append("<p>nothing failing or expected to fail</p>")
        for row, records in sorted(by_row.items()):
            out.append(
                f"<details id='list-{impl['slug']}-{_anchor(row)}'>"
                f"<summary>{html.escape(row)} ({len(records)})</summary>"
            )
            for record in records:
                case_id = f"case-{impl['slug']}-{_anchor(str(record['id']))}"
                out.append(
                    f"<details class='case' id='{case_id}'><summary>"
                    f"<span class='{record['status']}'>{record['status']}</span> "
                    f"<code>{html.escape(str(record['id']))}</code></summary>"
                    f"<pre>{shown(str(record.get('message') or ''))}</pre></details>"
                )
            out.append("</details>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _classes_html(impls: Sequence[Mapping[str, Any]]) -> list[str]:
    """Per implementation, its largest divergence classes: count, class, one example."""
    out = ["<h2 id='classes'>Divergence classes</h2>"]
    for impl in impls:
        classes = impl.get("classes") or []
        if not classes:
            continue
        out.append(
            f"<h3 id='classes-{impl['slug']}'>{html.escape(impl['name'])}: "
            f"{len(classes)} classes</h3><table class='classes'><tr><th>records</th>"
            "<th>failed</th><th>expected</th><th>op</th><th>path</th><th>kind</th>"
            "<th>example</th></tr>"
        )
        for item in classes[:TOP_CLASSES]:
            example = str(item["example"])
            link = f"#case-{impl['slug']}-{_anchor(example)}"
            out.append(
                f"<tr><td>{item['count']}</td><td>{item['failed']}</td>"
                f"<td>{item['expectedFailures']}</td><td>{html.escape(str(item['op']))}</td>"
                f"<td><code>{shown(str(item['path']))}</code></td><td>{item['kind']}</td>"
                f"<td><a href='{html.escape(link)}'><code>{html.escape(example)}</code></a></td>"
                "</tr>"
            )
        out.append("</table>")
        if len(classes) > TOP_CLASSES:
            out.append(f"<p>… and {len(classes) - TOP_CLASSES} more in matrix.json</p>")
    return out if len(out) > 1 else []


def _text_width(text: str) -> int:
    return 7 * len(text) + 10


def render_badge(impl: Mapping[str, Any]) -> str:
    """A flat SVG badge: `ctxspec | 428/523 passed` (red when the run fails)."""
    counts = impl["counts"]
    if impl["runError"]:
        value, color = "could not run", "#9f9f9f"
    else:
        # a case the pinned Pi fails too does not fail the run (`--level compat`)
        ok = counts["passed"] + counts["expected-failure"] + counts["failed-as-pi"]
        judged = impl["total"] - counts["unsupported"] - counts["not-applicable"]
        value = f"{ok}/{judged} ok" + ("" if impl["passes"] else f", {judged - ok} failing")
        color = "#4c1" if impl["passes"] else "#e05d44"
    label = "ctxspec"
    left, right = _text_width(label), _text_width(value)
    width = left + right
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
        f'aria-label="{label}: {html.escape(value)}"><title>{html.escape(impl["name"])}: '
        f"{html.escape(value)}</title>"
        f'<rect width="{left}" height="20" fill="#555"/>'
        f'<rect x="{left}" width="{right}" height="20" fill="{color}"/>'
        '<g fill="#fff" font-family="Verdana,Geneva,sans-serif" font-size="11">'
        f'<text x="{left / 2}" y="14" text-anchor="middle">{label}</text>'
        f'<text x="{left + right / 2}" y="14" text-anchor="middle">{html.escape(value)}</text>'
        "</g></svg>\n"
    )


def write_matrix(matrix: Mapping[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "matrix.json").write_text(json.dumps(matrix, indent=1, ensure_ascii=True) + "\n")
    (out / "index.html").write_text(render_html(matrix), "utf-8")
    badges = out / "badges"
    badges.mkdir(exist_ok=True)
    for impl in matrix["implementations"]:
        (badges / f"{impl['slug']}.svg").write_text(render_badge(impl), "utf-8")


def main_matrix(options: argparse.Namespace) -> int:
    out = Path(options.out)
    results = [read_results("--from", source) for source in options.sources]
    if not (results or options.impl):
        print("ctxspec: matrix needs --impl or --from", file=sys.stderr)
        return 2
    check_outputs(out, results, options.impl)
    if options.impl:
        results += run_matrix(options.impl, out, jobs=options.numprocesses, timeout=options.timeout)
    matrix = build_matrix(results)
    write_matrix(matrix, out)
    for impl in matrix["implementations"]:
        state = "could not run" if impl["runError"] else ("passes" if impl["passes"] else "fails")
        print(f"{impl['name']}: {state} {impl['counts']}")
        for item in impl["classes"][:5]:
            print(f"  {item['count']:>5}  {item['key']}  (e.g. {item['example']})")
    print(f"ctxspec matrix: {out / 'index.html'}, matrix.json, badges/")
    return 0


def matrix_arguments(matrix: argparse.ArgumentParser) -> None:
    """`ctxspec matrix`'s options (conformance/cli.py registers the command)."""
    matrix.add_argument(
        "--impl", type=impl_spec, action="append", default=[], help="run this one (repeatable)"
    )
    matrix.add_argument(
        "--from", dest="sources", action="append", default=[], metavar="RESULTS",
        help="a results file from `ctxspec conform --json` (repeatable)",
    )  # fmt: skip
    matrix.add_argument("--out", type=output_dir, default="reports/matrix", help="output directory")
    matrix.add_argument(
        "-n", dest="numprocesses", type=workers, default=None, help="parallel workers per run"
    )
    matrix.add_argument("--timeout", type=seconds, default=None, help="seconds per request")
