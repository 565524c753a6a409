"""The defaults and limits of every op, as a docs page generated from the reference.

A port author needs the numbers Pi uses when a request leaves an argument out (2000 lines,
51200 bytes, 16384 reserve tokens, ...) and the fixed limits an op applies. They live in
`reference/` as constants; this module names where each one is (`DEFAULTS`, a table of
rows) and reads its value from there, so the page cannot disagree with the oracle and no
number is written twice.

`python -m ctxspec.conformance.tools.defaults_table [--out FILE] [--check]` writes
docs/guide/defaults.md (`--check`: exit 1 when the file differs from what would be
written). tests/conformance/tools/test_defaults_table.py fails on a stale page.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.protocol import OPS
from ctxspec.reference.truncate import format_size

__all__ = ["DEFAULTS", "OUT", "Default", "page", "value_of"]

OUT: Final = Path("docs/guide/defaults.md")


@dataclass(frozen=True, slots=True, kw_only=True)
class Default:
    """One default or limit: the ops it applies to, what it bounds, and where the reference
    keeps it. `source` is `module:NAME`, `module:NAME.attribute` or `module:function(param)`
    (that parameter's default); `shown` turns the value into the page's text."""

    ops: tuple[str, ...]
    what: str
    source: str
    unit: str
    rule: str
    shown: Callable[[Any], str] | None = None


def _bytes(value: Any) -> str:
    return f"`{value}` ({format_size(value)} as notices print it)"


def _share(value: Any) -> str:
    share, _label = value
    return f"floor({share} × reserveTokens)"


SETTINGS_OPS: Final = (
    "compaction.should",
    "compaction.prepare",
    "compaction.compact",
    "session.run",
)
SUMMARY_OPS: Final = ("branch.summarize", "session.navigate")
LINE_OPS: Final = ("truncate.head", "truncate.tail", "stream.tail", "tool.bash")

# Each row: the ops, what the value bounds, where the reference keeps it, the unit, the rule
# (corpora/README.md). A request's absent or null argument takes the value.
DEFAULTS: Final[tuple[Default, ...]] = (
    Default(ops=LINE_OPS, what="`maxLines`", source="ctxspec.reference.truncate:DEFAULT_MAX_LINES",
            unit="lines", rule="TRUNC-2"),
    Default(ops=LINE_OPS, what="`maxBytes`", source="ctxspec.reference.truncate:DEFAULT_MAX_BYTES",
            unit="UTF-8 bytes", rule="TRUNC-2", shown=_bytes),
    Default(ops=("truncate.line",), what="`maxChars`",
            source="ctxspec.reference.truncate:GREP_MAX_LINE_LENGTH", unit="UTF-16 code units",
            rule="TRUNC-7"),
    Default(ops=("truncate.line",), what="the mark after a cut line",
            source="ctxspec.reference.truncate:LINE_TRUNCATION_SUFFIX",
            unit="text", rule="TRUNC-7"),
    Default(ops=("tool.read",), what="lines shown per read (head rule)",
            source="ctxspec.reference.truncate:DEFAULT_MAX_LINES", unit="lines", rule="READ-3"),
    Default(ops=("tool.read",), what="bytes shown per read (head rule)",
            source="ctxspec.reference.truncate:DEFAULT_MAX_BYTES",
            unit="UTF-8 bytes", rule="READ-3",
            shown=_bytes),
    Default(ops=("tool.grep",), what="`limit`", source="ctxspec.reference.grep:DEFAULT_GREP_LIMIT",
            unit="matches", rule="GREP-1"),
    Default(ops=("tool.grep",), what="each printed line cut at",
            source="ctxspec.reference.truncate:GREP_MAX_LINE_LENGTH", unit="UTF-16 code units",
            rule="GREP-2"),
    Default(ops=("tool.grep",), what="the whole output (head rule)",
            source="ctxspec.reference.truncate:DEFAULT_MAX_BYTES",
            unit="UTF-8 bytes", rule="GREP-1",
            shown=_bytes),
    Default(ops=("tokens.estimate", "context.estimate"), what="an image counts as",
            source="ctxspec.reference.tokens:ESTIMATED_IMAGE_CHARS", unit="chars (÷ 4, rounded up)",
            rule="CP-2"),
    Default(ops=SETTINGS_OPS, what="`settings.enabled`",
            source="ctxspec.reference.compaction:DEFAULT_COMPACTION_SETTINGS.enabled", unit="",
            rule="CP-6"),
    Default(ops=SETTINGS_OPS, what="`settings.reserveTokens`",
            source="ctxspec.reference.compaction:DEFAULT_COMPACTION_SETTINGS.reserve_tokens",
            unit="tokens", rule="CP-6"),
    Default(ops=SETTINGS_OPS, what="`settings.keepRecentTokens`",
            source="ctxspec.reference.compaction:DEFAULT_COMPACTION_SETTINGS.keep_recent_tokens",
            unit="tokens", rule="CP-4"),
    Default(ops=("compaction.compact", "session.run"), what="the history summary's `maxTokens`",
            source="ctxspec.reference.summary:SUMMARY_CALLS.reply", unit="tokens", rule="CP-10",
            shown=_share),
    Default(ops=("compaction.compact", "session.run"), what="the turn prefix summary's `maxTokens`",
            source="ctxspec.reference.summary:SUMMARY_CALLS.turnPrefixReply", unit="tokens",
            rule="CP-10", shown=_share),
    Default(ops=("branch.prepare",), what="`tokenBudget`",
            source="ctxspec.reference.branch_summary:prepare_branch_entries(token_budget)",
            unit="tokens", rule="LCA-2"),
    Default(ops=SUMMARY_OPS, what="`reserveTokens`",
            source="ctxspec.reference.branch_summary:DEFAULT_BRANCH_RESERVE_TOKENS", unit="tokens",
            rule="LCA-2"),
    Default(ops=SUMMARY_OPS, what="`model.contextWindow` (absent or 0)",
            source="ctxspec.reference.branch_summary:DEFAULT_CONTEXT_WINDOW", unit="tokens",
            rule="LCA-2"),
    Default(ops=SUMMARY_OPS, what="the summary's `maxTokens` (at most the model's)",
            source="ctxspec.reference.branch_summary:MAX_SUMMARY_TOKENS",
            unit="tokens", rule="LCA-7"),
    Default(ops=("branch.collect", "session.navigate", "session.run"),
            what="the session version entries are migrated to",
            source="ctxspec.reference.migration:CURRENT_SESSION_VERSION", unit="", rule="SS-7"),
    Default(ops=("skills.load",), what="`includeDefaults`",
            source="ctxspec.reference.skills:load_skills(include_defaults)",
            unit="", rule="SKILL-8"),
    Default(ops=("skills.load", "resources.load"), what="a skill name longer than this warns",
            source="ctxspec.reference.skills:MAX_NAME_LENGTH", unit="UTF-16 code units",
            rule="SKILL-3"),
    Default(ops=("skills.load", "resources.load"), what="a description longer than this warns",
            source="ctxspec.reference.skills:MAX_DESCRIPTION_LENGTH", unit="UTF-16 code units",
            rule="SKILL-3"),
    Default(ops=("resources.load",), what="`projectTrusted`",
            source="ctxspec.reference.resources:load_resources(project_trusted)",
            unit="", rule="RES-2"),
    Default(ops=("prompt.build",), what="`selectedTools`",
            source="ctxspec.reference.prompt:DEFAULT_SELECTED_TOOLS",
            unit="tool names", rule="PROMPT-3"),
    Default(ops=("context.discover", "trust.resolve", "skills.load", "resources.load",
                 "tool.read", "tool.grep"),
            what="symbolic links followed in one lookup",
            source="ctxspec.reference.tree:MAX_SYMLINK_HOPS",
            unit="links", rule="READ-5"),
)  # fmt: skip

# Ops whose defaults are not Pi's: each agent declares its own, a bench op mirrors an op.
DEFERRED: Final = {
    "agent.": "each agent's own, as its profile declares them (`conformance/profiles/`)",
    "bench.": "those of the ordinary op each one mirrors",
}


def value_of(source: str) -> Any:
    """The value `source` names in the reference (see `Default`).

    >>> value_of("ctxspec.reference.truncate:DEFAULT_MAX_LINES")
    2000
    >>> value_of("ctxspec.reference.skills:load_skills(include_defaults)")
    True
    """
    module_name, _, path = source.partition(":")
    module = importlib.import_module(module_name)
    if path.endswith(")"):
        function, _, parameter = path[:-1].partition("(")
        default = inspect.signature(getattr(module, function)).parameters[parameter].default
        if default is inspect.Parameter.empty:
            raise ValueError(f"{source}: the parameter has no default")
        return default
    name, *attributes = path.split(".")
    value = getattr(module, name)
    for attribute in attributes:
        value = value[attribute] if isinstance(value, dict) else getattr(value, attribute)
    return value


def _json(value: Any) -> str:
    if isinstance(value, tuple):
        value = list(value)
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def _row(default: Default) -> str:
    value = value_of(default.source)
    shown = default.shown(value) if default.shown is not None else _json(value)
    ops = ", ".join(f"`{op}`" for op in default.ops)
    module, _, name = default.source.partition(":")
    where = f"`{module}.{name}`"
    cells = (ops, default.what, shown, default.unit, default.rule, where)
    return "| " + " | ".join(cells) + " |"


def page() -> str:
    """The page's Markdown text."""
    named = {op for d in DEFAULTS for op in d.ops}
    deferred = {prefix: sorted(op for op in OPS if op.startswith(prefix)) for prefix in DEFERRED}
    elsewhere = {op for ops in deferred.values() for op in ops}
    unknown = named - set(OPS)
    if unknown:
        raise ValueError(f"DEFAULTS names ops protocol v1 lacks: {sorted(unknown)}")
    none = sorted(set(OPS) - named - elsewhere - {"hello"})
    lines = [
        "<!-- Generated by `python -m ctxspec.conformance.tools.defaults_table` from the",
        "     constants of reference/; edit the generator's table, not this page (a test",
        "     compares them). -->",
        "# Defaults and limits",
        "",
        "What each op of [protocol v1](../protocol.md) uses when a request leaves an argument",
        "out (absent or `null`), and the fixed limits it applies, as Pi 0.85.0 does. Each value",
        "is read from the reference (`reference/`, the oracle), never retyped: the last column",
        "names the constant, the rule column its rule in `corpora/README.md`.",
        "",
        "| op | argument or limit | value | unit | rule | in the reference |",
        "|---|---|---|---|---|---|",
        *(_row(d) for d in DEFAULTS),
        "",
        "Ops with no default or limit of their own: " + ", ".join(f"`{op}`" for op in none) + ".",
        *(
            f"The `{prefix}*` ops ({', '.join(f'`{op}`' for op in ops)}) take {DEFERRED[prefix]}."
            for prefix, ops in deferred.items()
        ),
        "",
        "The runner's own bounds (time per request, answer size, what a report shows) are in",
        "[the runner's bounds](../protocol.md#the-runners-bounds).",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ctxspec.conformance.tools.defaults_table",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("--out", type=Path, default=OUT, help=f"the page (default: {OUT})")
    parser.add_argument("--check", action="store_true", help="exit 1 when the page is stale")
    options = parser.parse_args(argv)
    text = page()
    if options.check:
        current = options.out.read_text("utf-8") if options.out.exists() else ""
        if current != text:
            print(f"{options.out} is stale: run python -m ctxspec.conformance.tools.defaults_table")
            return 1
        return 0
    options.out.write_text(text, "utf-8")
    print(f"wrote {options.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
