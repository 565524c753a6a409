"""`agent.instructions` for Qwen Code: the context files of its first request's system prompt.

The tree is laid out in a temp directory (`kit/tree.py`; `cwd` made when the tree has
nothing in it), Qwen Code is run once in `cwd` with HOME = `home` (`run.py`) against the
scripted model, which ends the turn at once, and the answer is read from the `system`
message of that one request: each file Qwen Code loaded is a block `--- Context from:
<path relative to cwd> ---\\n<text>\\n--- End of Context from: <path> ---`, the blocks
joined by a blank line, in the order sent; the answer is that run of blocks with the temp
root taken out. No block answers `""`.

One block is Qwen Code's own, not the tree's: 0.24.4 writes `~/.qwen/output-language.md`
(its output-language rule, "auto") on every start and loads it as context after the
project's files. It is left out of the answer unless the tree itself holds that file.

- `budget`: no setting is driven (null only).
- `trust`: written where Qwen Code keeps the user's decision, `~/.qwen/trustedFolders.json`
  (`{"<cwd>": "TRUST_FOLDER" | "DO_NOT_TRUST"}`, the folder the trust dialog records),
  added to the tree's own file if it has one. Folder trust itself stays as a user has it
  by default, off (`security.folderTrust.enabled` false), so the decision gates nothing
  unless the tree's settings.json turns it on. Null: nothing written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Unsupported
from ctxspec.conformance.harnesses.kit.model_script import Request, Text, Turn, Usage
from ctxspec.conformance.harnesses.kit.tree import laid_out, real_path, virtualize
from ctxspec.conformance.harnesses.qwen_code.run import QwenFailed, qwen, qwen_dir, scripted

__all__ = ["instructions"]

_PROMPT: Final = "ctxspec"
_BLOCK: Final = re.compile(
    r"--- Context from: (?P<path>[^\n]*?) ---\n(?P<text>.*?)\n"
    r"--- End of Context from: (?P=path) ---",
    re.DOTALL,
)
_OWN: Final = (".qwen", "output-language.md")
_TRUST: Final = {"trusted": "TRUST_FOLDER", "untrusted": "DO_NOT_TRUST"}


def _reply(_request: Request) -> Turn:
    return Turn((Text("done"),), Usage(input_tokens=1))


def _virtual(args: Args, name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str) or not value.startswith("/"):
        raise InvalidInput(name, "must be a virtual absolute path (/...)")
    return value


def _system(body: Any) -> str:
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in messages or []:
        if isinstance(message, dict) and message.get("role") == "system":
            content = message.get("content")
            if isinstance(content, list):
                content = "".join(
                    part.get("text", "") for part in content if isinstance(part, dict)
                )
            if isinstance(content, str):
                return content
    raise RuntimeError("Qwen Code's first request has no system message")


def _record_trust(home: Path, folder: Path, level: str) -> None:
    """Add the decision to `~/.qwen/trustedFolders.json` (a file that is no JSON object:
    unsupported, its bytes are the tree's)."""
    path = qwen_dir(home) / "trustedFolders.json"
    try:
        before = json.loads(path.read_text()) if path.is_file() else {}
    except (OSError, ValueError):
        before = None
    if not isinstance(before, dict):
        raise Unsupported(f"{path.name} of the tree is no JSON object: a decision is not added")
    before[str(folder)] = level
    path.write_text(json.dumps(before, indent=2) + "\n")


def instructions(args: Args) -> dict[str, str]:
    """The context files Qwen Code puts in its first request's system prompt."""
    cwd, home = _virtual(args, "cwd"), _virtual(args, "home")
    trust = args.get("trust")
    if trust is not None and trust not in _TRUST:
        raise InvalidInput("trust", "must be 'trusted', 'untrusted' or null")
    if args.get("budget") is not None:
        raise Unsupported("no instruction budget setting of Qwen Code is driven")
    with laid_out(args.get("tree"), prefix="ctxspec-qwen-") as root:
        start, user = Path(real_path(root, cwd)), Path(real_path(root, home))
        if start.exists() and not start.is_dir():
            raise InvalidInput("cwd", f"{cwd} is a file of the tree, not a directory")
        start.mkdir(parents=True, exist_ok=True)
        user.mkdir(parents=True, exist_ok=True)
        if trust is not None:
            _record_trust(user, start, _TRUST[trust])
        own = user.joinpath(*_OWN)
        tree_has_own = own.exists()
        with scripted(_reply) as model:
            try:
                qwen(_PROMPT, model, cwd=start, home=user)
            except QwenFailed as error:
                model.check()
                raise RuntimeError(str(virtualize(str(error), root))) from None
            model.check()
        bodies = model.bodies
        if not bodies:
            raise RuntimeError("Qwen Code sent no request")
        system = _system(bodies[0])
        kept = [
            block.group(0)
            for block in _BLOCK.finditer(system)
            if tree_has_own or (start / block.group("path")).resolve() != own.resolve()
        ]
        return {"text": virtualize("\n\n".join(kept), root)}
