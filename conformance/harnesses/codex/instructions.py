"""`agent.instructions` for Codex: the instruction block of `codex debug prompt-input`.

`codex debug prompt-input` ("Render the model-visible prompt input list as JSON") builds
the first request's input list as a session would, without calling a model. The tree is
laid out in a temp directory (`kit/tree.py`; `cwd` made when the tree has nothing in
it), Codex is started in `cwd` with HOME = `home` (`run.py`: CODEX_HOME = `home/.codex`,
where Codex keeps its global `AGENTS.md` and `config.toml`), and the answer is the one
`input_text` that carries the instruction files: the one starting `# AGENTS.md
instructions` (in 0.171.0: `# AGENTS.md instructions for <cwd>`, then the files inside
`<INSTRUCTIONS>` ... `</INSTRUCTIONS>`), with the temp root taken out of it. No such
item (no file loaded) answers `""`.

- `budget`: Codex's own setting `project_doc_max_bytes` (bytes; a usize, so a whole
  number >= 0), given as `-c project_doc_max_bytes=N`; null = Codex's default.
- `trust`: written where Codex keeps the user's decision, `[projects."<path>"]
  trust_level = "trusted" | "untrusted"` in `$CODEX_HOME/config.toml`, appended to the
  tree's own `config.toml` if it has one. `<path>` is the project as Codex's CLI records
  it when the user trusts a directory: the root of the git repository holding `cwd`,
  else `cwd` (codex-rs/tui/src/onboarding/trust_directory.rs, `handle_trust`:
  `resolve_root_git_project_for_trust(cwd).unwrap_or(cwd)`). A `.git` file (a linked
  worktree, which Codex resolves to the main repository) is not laid out that way here
  and is answered unsupported. Null: nothing written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.codex.numbers import whole
from ctxspec.conformance.harnesses.codex.run import CodexFailed, codex, config_file, toml_string
from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Unsupported
from ctxspec.conformance.harnesses.kit.tree import laid_out, real_path, virtualize

__all__ = ["HEADING", "instructions"]

HEADING: Final = "# AGENTS.md instructions"
_PROMPT: Final = "ctxspec"  # the user prompt prompt-input appends after the context
_TRUST: Final = {"trusted": "trusted", "untrusted": "untrusted"}


def instructions(args: Args) -> dict[str, str]:
    """The instruction text Codex puts in its first request, for this tree and setting."""
    cwd, home = _virtual(args, "cwd"), _virtual(args, "home")
    trust = args.get("trust")
    budget = whole(args, "budget", "bytes: project_doc_max_bytes")
    if trust is not None and trust not in _TRUST:
        raise InvalidInput("trust", "must be 'trusted', 'untrusted' or null")
    config = [] if budget is None else [f"project_doc_max_bytes={budget}"]
    with laid_out(args.get("tree"), prefix="ctxspec-codex-") as root:
        start, user = Path(real_path(root, cwd)), Path(real_path(root, home))
        if start.exists() and not start.is_dir():
            raise InvalidInput("cwd", f"{cwd} is a file of the tree, not a directory")
        start.mkdir(parents=True, exist_ok=True)  # Codex starts in it: it must exist
        config_file(user)  # Codex refuses a CODEX_HOME that does not exist
        if trust is not None:
            _record_trust(user, _project(start, root), _TRUST[trust])
        try:
            ran = codex(("debug", "prompt-input"), [_PROMPT], cwd=start, home=user, config=config)
        except CodexFailed as error:
            raise RuntimeError(str(virtualize(str(error), root))) from None
        text = _instruction_text(json.loads(ran.stdout))
        return {"text": virtualize(text, root)}


def _virtual(args: Args, name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str) or not value.startswith("/"):
        raise InvalidInput(name, "must be a virtual absolute path (/...)")
    return value


def _project(start: Path, root: Path) -> Path:
    """The directory Codex's CLI records trust for: the git root above `start`, else `start`."""
    for folder in (start, *start.parents):
        marker = folder / ".git"
        if marker.is_dir():
            return folder
        if marker.exists() or marker.is_symlink():
            raise Unsupported(
                f"{marker} is not a directory: a linked worktree's trust key (its main "
                "repository) is not laid out by this harness"
            )
        if folder == root:
            break
    return start


def _record_trust(home: Path, project: Path, level: str) -> None:
    """Append the decision: a config.toml of the tree keeps every byte it had (CRLF too)."""
    path = config_file(home)
    before = path.read_bytes() if path.exists() else b""
    separator = b"\n" if before and not before.endswith(b"\n") else b""
    entry = f"[projects.{toml_string(str(project))}]\ntrust_level = {toml_string(level)}\n"
    with path.open("ab") as config:
        config.write(separator + entry.encode())


def _instruction_text(items: Any) -> str:
    """The one `input_text` of the prompt that holds the instruction files, or ''."""
    if not isinstance(items, list):
        raise RuntimeError("codex debug prompt-input did not print a JSON list")
    found = [
        part["text"]
        for item in items
        if isinstance(item, dict) and item.get("type") == "message"
        for part in item.get("content") or []
        if isinstance(part, dict)
        and part.get("type") == "input_text"
        and str(part.get("text", "")).startswith(HEADING)
    ]
    if len(found) > 1:
        raise RuntimeError(f"codex debug prompt-input showed {len(found)} instruction blocks")
    return found[0] if found else ""
