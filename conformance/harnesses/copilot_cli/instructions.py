"""`agent.instructions` for Copilot CLI: the custom instructions of its first request.

The tree is laid out in a temp directory (`kit/tree.py`; `cwd` made when the tree has
nothing in it), each empty `.git/` of it made a repository (`git init`: Copilot asks git
for the repository root, and git takes an empty `.git` folder for none), and `copilot -p`
is run once in `cwd` with HOME = `home` (`run.py`) against the scripted model, which ends
the turn at once. Copilot puts each instruction file it loads into the system message of
that request as a `<custom_instruction>\\n<text>\\n</custom_instruction>` block, with no
path; the answer is the system message from the first such block to the end of the last
one, as sent, with the temp root taken out. No block answers `""`.

- `budget`: Copilot CLI has no instruction budget setting: unsupported unless null.
- `trust`: written where Copilot keeps the folders a user trusted for future sessions:
  cwd added to the `trustedFolders` array of `~/.copilot/config.json`, as 1.0.102 writes
  it when "Yes, and remember this folder for future sessions" is chosen in its dialog
  (driven through a pseudo-terminal; the docs, "Configure GitHub Copilot CLI", name the
  array `trusted_folders`, which 1.0.102 reads too), over the tree's own file if it has
  one. `untrusted` writes nothing: Copilot records no refusal (its dialog's "No" ends the
  session); a folder absent from the list is untrusted. Null: nothing written.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Final

from ctxspec.conformance.harnesses.copilot_cli.run import (
    CopilotFailed,
    copilot,
    message_text,
    scripted,
)
from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Unsupported
from ctxspec.conformance.harnesses.kit.model_script import Request, Text, Turn, Usage
from ctxspec.conformance.harnesses.kit.tree import laid_out, real_path, virtualize

__all__ = ["CLOSE", "OPEN", "TRUSTED", "instructions"]

OPEN: Final = "<custom_instruction>"
CLOSE: Final = "</custom_instruction>"
_PROMPT: Final = "ctxspec"
TRUSTED: Final = "trustedFolders"  # config.json's key, as Copilot 1.0.102 writes it


def _reply(_request: Request) -> Turn:
    return Turn((Text("done"),), Usage(input_tokens=1))


def _virtual(args: Args, name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str) or not value.startswith("/"):
        raise InvalidInput(name, "must be a virtual absolute path (/...)")
    return value


def _make_repositories(root: Path) -> None:
    """Each empty `.git/` of the tree made a repository (`git init`)."""
    for marker in sorted(root.rglob(".git")):
        if marker.is_dir() and not marker.is_symlink() and not any(marker.iterdir()):
            marker.rmdir()
            subprocess.run(
                ["git", "init", "-q", str(marker.parent)],
                check=True,
                capture_output=True,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root)},
            )


def system_text(body: object) -> str:
    """The system messages of a Chat Completions body, joined by blank lines."""
    if not isinstance(body, dict):
        return ""
    return "\n\n".join(
        message_text(message.get("content"))
        for message in body.get("messages") or []
        if isinstance(message, dict) and message.get("role") == "system"
    )


def _record_trust(home: Path, folder: Path) -> None:
    """Add `folder` to `trustedFolders` in `~/.copilot/config.json` (a file that is no JSON
    object, its `//` comment lines aside: unsupported, its bytes are the tree's)."""
    path = home / ".copilot" / "config.json"
    try:
        text = path.read_text() if path.is_file() else "{}"
        lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
        before = json.loads("\n".join(lines) or "{}")
    except (OSError, ValueError):
        before = None
    if not isinstance(before, dict):
        raise Unsupported(f"{path.name} of the tree is no JSON object: a decision is not added")
    trusted = before.get(TRUSTED)
    trusted = list(trusted) if isinstance(trusted, list) else []
    before[TRUSTED] = [*trusted, str(folder)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(before, indent=2) + "\n")


def instructions(args: Args) -> dict[str, str]:
    """The custom instructions Copilot CLI puts in its first request, for this tree."""
    cwd, home = _virtual(args, "cwd"), _virtual(args, "home")
    trust = args.get("trust")
    if trust not in (None, "trusted", "untrusted"):
        raise InvalidInput("trust", "must be 'trusted', 'untrusted' or null")
    if args.get("budget") is not None:
        raise Unsupported("Copilot CLI has no instruction budget setting")
    with laid_out(args.get("tree"), prefix="ctxspec-copilot-") as root:
        start, user = Path(real_path(root, cwd)), Path(real_path(root, home))
        if start.exists() and not start.is_dir():
            raise InvalidInput("cwd", f"{cwd} is a file of the tree, not a directory")
        start.mkdir(parents=True, exist_ok=True)
        _make_repositories(root)
        if trust == "trusted":
            _record_trust(user, start)
        tmp = Path(root.parent, f"{root.name}-tmp")  # outside the tree: nothing of it read
        with scripted(_reply) as model:
            try:
                copilot(_PROMPT, model, cwd=start, home=user, tmp=tmp)
            except CopilotFailed as error:
                raise RuntimeError(str(virtualize(str(error), root))) from None
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        if not model.bodies:
            raise RuntimeError("Copilot CLI sent no model request")
        system = system_text(model.bodies[0])
        first, last = system.find(OPEN), system.rfind(CLOSE)
        if first < 0 or last < first:
            return {"text": ""}
        return {"text": virtualize(system[first : last + len(CLOSE)], root)}
