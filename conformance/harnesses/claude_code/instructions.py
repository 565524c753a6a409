"""`agent.instructions` for Claude Code: the instruction files in its first request.

The tree is laid out in a temp directory (`kit/tree.py`; `cwd` made when the tree has
nothing in it), and `claude -p` is started in `cwd` with HOME = `home` against the
scripted model (`run.py`), which answers the one request with a text that ends the turn.
Claude Code puts every instruction file it loads into the first user message, as one
`<system-reminder>` block whose sections read `Contents of <path> (<kind>):` followed by
the file's text; the answer is that block from its first `Contents of ` to the closing
`</system-reminder>`, with the temp root taken out. No such block answers `""`.

- `trust`: written the way Claude Code stores the dialog's answer, `~/.claude.json`
  `projects["<cwd>"].hasTrustDialogAccepted` (`true` for trusted, `false` for untrusted;
  null: no entry). Claude Code records no refusal ("No, exit" ends the start and writes
  nothing), so for untrusted it is started interactively instead, in a pseudo-terminal
  (`run.claude_dialog`): its trust dialog asks and is refused (Esc), and the answer is the
  instruction part of whatever request reached the model (none: `""`). Trusted and
  undecided run `-p`, where the dialog is skipped (`claude --help`).
- `budget`: Claude Code has no instruction budget setting: unsupported unless null.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.claude_code.run import (
    ClaudeFailed,
    claude_dialog,
    claude_run,
    scripted,
    seed_state,
)
from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Unsupported
from ctxspec.conformance.harnesses.kit.model_script import Turn, Usage
from ctxspec.conformance.harnesses.kit.tree import laid_out, real_path, virtualize

__all__ = ["HEADING", "instructions", "memory_block"]

HEADING: Final = "Contents of "
_OPENING: Final = "<system-reminder>\nCodebase and user instructions are shown below."
_CLOSING: Final = "</system-reminder>"
_PROMPT: Final = "ctxspec"
_TRUST: Final = {"trusted": True, "untrusted": False}


def memory_block(body: Any) -> str:
    """The instruction part of a request's first user message: from the first `Contents
    of ` of its instructions reminder to the reminder's end; "" when it has none."""
    messages = body.get("messages") if isinstance(body, dict) else None
    first = messages[0] if messages else None
    content = first.get("content") if isinstance(first, dict) else None
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
    for block in blocks:
        text = block.get("text") if isinstance(block, dict) else None
        if isinstance(text, str) and text.startswith(_OPENING):
            at, end = text.find(HEADING), text.rfind(_CLOSING)
            if at < 0:
                return ""
            return text[at:end].rstrip("\n") if end > at else text[at:]
    return ""


def instructions(args: Args) -> dict[str, str]:
    """The instruction text Claude Code puts in its first request, for this tree."""
    cwd, home = _virtual(args, "cwd"), _virtual(args, "home")
    trust = args.get("trust")
    if trust is not None and trust not in _TRUST:
        raise InvalidInput("trust", "must be trusted, untrusted or null")
    if args.get("budget") is not None:
        raise Unsupported("Claude Code has no instruction budget setting")
    with laid_out(args.get("tree"), prefix="ctxspec-claude-") as root:
        start, user = Path(real_path(root, cwd)), Path(real_path(root, home))
        if start.exists() and not start.is_dir():
            raise InvalidInput("cwd", f"{cwd} is a file of the tree, not a directory")
        start.mkdir(parents=True, exist_ok=True)
        if trust is not None:
            seed_state(user, {str(start): {"hasTrustDialogAccepted": _TRUST[trust]}})
        with scripted([Turn.say("done", usage=Usage(input_tokens=1))]) as model:
            try:
                if trust == "untrusted":
                    claude_dialog(model, _PROMPT, cwd=start, home=user)
                else:
                    claude_run(model, _PROMPT, cwd=start, home=user)
            except ClaudeFailed as error:
                raise RuntimeError(str(virtualize(str(error), root))) from None
        if not model.bodies:
            if trust == "untrusted":
                return {"text": ""}  # refused at the dialog: nothing reached the model
            raise RuntimeError("Claude Code made no model request")
        return {"text": virtualize(memory_block(model.bodies[0]), root)}


def _virtual(args: Args, name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str) or not value.startswith("/"):
        raise InvalidInput(name, "must be a virtual absolute path (/...)")
    return value
