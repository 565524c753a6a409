"""`agent.instructions` for opencode: the instruction files in its first main-loop request.

The tree is laid out in a temp directory (`kit/tree.py`; `cwd` made when the tree has
nothing in it), and `opencode run --auto` is started in `cwd` with HOME = `home` against
the scripted model (`run.py`), which answers the title request with a title and the main
loop's first request with a text that ends the turn. opencode puts each instruction file
it loads into that request's system prompt as `Instructions from: <path>` followed by the
file's text; the answer is the system text from the first such block to its end (the
instruction part comes after opencode's own prompt and environment), with the temp root
taken out. No such block answers `""`.

- `budget`: opencode has no instruction budget setting: unsupported unless null.
- `trust`: opencode has no trust store (nothing gates a project's files): a recorded
  decision cannot be written; unsupported unless null.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Final

from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Unsupported
from ctxspec.conformance.harnesses.kit.model_script import Request, Turn, Usage
from ctxspec.conformance.harnesses.kit.tree import laid_out, real_path, virtualize
from ctxspec.conformance.harnesses.opencode.run import (
    OpencodeFailed,
    is_title,
    opencode_run,
    scripted,
    system_text,
)

__all__ = ["HEADING", "instructions"]

HEADING: Final = "Instructions from: "
_PROMPT: Final = "ctxspec"
_SKILLS: Final = "\nSkills provide specialized instructions"  # opencode's section after them


def _make_repositories(root: Path) -> None:
    """Each empty `.git/` of the tree made a repository (`git init`): opencode asks git for
    the project's root, and git takes an empty `.git` folder for no repository."""
    for marker in sorted(root.rglob(".git")):
        if marker.is_dir() and not marker.is_symlink() and not any(marker.iterdir()):
            marker.rmdir()
            subprocess.run(
                ["git", "init", "-q", str(marker.parent)],
                check=True,
                capture_output=True,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root)},
            )


def _reply(request: Request) -> Turn:
    title = is_title(request)
    return Turn.say("ctxspec" if title else "done", usage=Usage(input_tokens=1))


def instructions(args: Args) -> dict[str, str]:
    """The instruction text opencode puts in its first main-loop request, for this tree."""
    cwd, home = _virtual(args, "cwd"), _virtual(args, "home")
    if args.get("trust") is not None:
        raise Unsupported("opencode has no trust store: no decision can be recorded")
    if args.get("budget") is not None:
        raise Unsupported("opencode has no instruction budget setting")
    with laid_out(args.get("tree"), prefix="ctxspec-opencode-") as root:
        start, user = Path(real_path(root, cwd)), Path(real_path(root, home))
        if start.exists() and not start.is_dir():
            raise InvalidInput("cwd", f"{cwd} is a file of the tree, not a directory")
        start.mkdir(parents=True, exist_ok=True)
        _make_repositories(root)
        with scripted(_reply) as model:
            try:
                opencode_run(model, _PROMPT, cwd=start, home=user)
            except OpencodeFailed as error:
                raise RuntimeError(str(virtualize(str(error), root))) from None
        main = [request for request in model.model_requests() if not is_title(request)]
        if not main:
            raise RuntimeError("opencode made no main-loop request")
        system = system_text(main[0].body)
        at = system.find(HEADING)
        if at < 0:
            return {"text": ""}
        end = system.rfind(_SKILLS)
        text = system[at:end] if end > at else system[at:]
        return {"text": virtualize(text, root)}


def _virtual(args: Args, name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str) or not value.startswith("/"):
        raise InvalidInput(name, "must be a virtual absolute path (/...)")
    return value
