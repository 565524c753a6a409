"""Context files: which `AGENTS.md`-like files reach the prompt, in which order (Pi 0.85.0).

`load_project_context_files(listing, cwd=..., agent_dir=...)` is Pi's
`loadProjectContextFiles`: the agent directory's file first, then one file per directory
from the filesystem root down to `cwd`. `find_git_paths` and `shadowed_context_file`
decide the linked-worktree rule. Context files are never gated by project trust.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any, Final

from ctxspec.reference._utf16 import js_trim
from ctxspec.reference.tree import Listing, join, normalize, parent, strip_bom

__all__ = [
    "CONTEXT_FILE_NAMES",
    "ContextFile",
    "GitPaths",
    "find_git_paths",
    "load_context_file_from_dir",
    "load_project_context_files",
    "shadowed_context_file",
]

# CTX-1: per directory, the first of these that is a regular file (links followed) wins
CONTEXT_FILE_NAMES: Final = (
    "AGENTS.override.md",
    "AGENTS.md",
    "AGENTS.MD",
    "CLAUDE.md",
    "CLAUDE.MD",
)
GITDIR_PREFIX: Final = "gitdir: "


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextFile:
    """One context file: its path (as found, links not resolved) and its text."""

    path: str
    content: str

    def to_pi(self) -> dict[str, Any]:
        return {"path": self.path, "content": self.content}


@dataclass(frozen=True, slots=True, kw_only=True)
class GitPaths:
    """The nearest git checkout above a directory: its root and its common git dir."""

    repo_dir: str
    common_git_dir: str
    head_path: str


def load_context_file_from_dir(listing: Listing, directory: str) -> ContextFile | None:
    """The directory's context file: the first candidate that is a readable regular file.

    A candidate that is a directory, a dangling link, a link loop or unreadable is passed
    over for the next name. Content is UTF-8 (U+FFFD for invalid bytes), BOM stripped.
    """
    for name in CONTEXT_FILE_NAMES:
        path = join(directory, name)
        # CTX-1: a directory named like a candidate does not count; nor does a broken link
        if not listing.is_file(path):
            continue
        text = listing.read_text(path)
        if text is None:  # CTX-1: unreadable: Pi warns on stderr and tries the next name
            continue
        return ContextFile(path=path, content=strip_bom(text))
    return None


def find_git_paths(listing: Listing, cwd: str) -> GitPaths | None:
    """The nearest `.git` at or above `cwd`, as Pi reads it (no git process).

    A `.git` directory needs a `HEAD`. A `.git` file starting `gitdir: ` (after JS's
    `trim()`, which drops a BOM) names the git
    dir (relative to the file's directory), which needs a `HEAD`; its `commondir`, if
    any, names the common git dir (relative to the git dir). A `.git` file of any other
    text is passed over and the walk goes on upwards. Anything unreadable ends the walk.
    """
    for directory in listing.walk_up(cwd):
        git = join(directory, ".git")
        if not listing.exists(git):
            continue
        if listing.is_dir(git):
            head = join(git, "HEAD")
            return (
                GitPaths(repo_dir=directory, common_git_dir=git, head_path=head)
                if (listing.exists(head))
                else None
            )
        text = listing.read_text(git)
        if text is None:
            return None
        # JS trim(): a BOM goes, U+001C-U+001F and U+0085 stay (unlike str.strip)
        text = js_trim(text)
        if not text.startswith(GITDIR_PREFIX):
            continue
        git_dir = _resolve(directory, js_trim(text[len(GITDIR_PREFIX) :]))
        head = join(git_dir, "HEAD")
        if not listing.exists(head):
            return None
        common_file = join(git_dir, "commondir")
        common = git_dir
        if listing.exists(common_file):
            common_text = listing.read_text(common_file)
            if common_text is None:
                return None
            common = _resolve(git_dir, js_trim(common_text))
        return GitPaths(repo_dir=directory, common_git_dir=common, head_path=head)
    return None


def shadowed_context_file(listing: Listing, cwd: str) -> str | None:
    """CTX-3: the main checkout's file that a nested linked worktree's own file hides.

    Only when the worktree root lies strictly under the main checkout, whose `.git` is
    the common git dir, and the worktree root has a context file: then the main root's
    file of the same name (compared by realpath) is skipped. None otherwise.
    """
    git = find_git_paths(listing, cwd)
    if git is None:
        return None
    common = listing.canonical(git.common_git_dir)
    worktree_root = listing.canonical(git.repo_dir)
    main_root = parent(common)
    if not worktree_root.startswith(main_root.rstrip("/") + "/"):
        return None  # an ordinary checkout, or a sibling worktree
    if listing.canonical(join(main_root, ".git")) != common:
        return None  # a bare layout or a submodule: no checked-out main root
    own = load_context_file_from_dir(listing, worktree_root)
    return None if own is None else join(main_root, posixpath.basename(own.path))


def load_project_context_files(
    listing: Listing, *, cwd: str, agent_dir: str
) -> tuple[ContextFile, ...]:
    """Pi's `loadProjectContextFiles({cwd, agentDir})` over a listing.

    >>> tree = Listing.from_wire({"a/AGENTS.md": "G", "w/AGENTS.md": "W", "w/r/CLAUDE.md": "R"})
    >>> [f.path for f in load_project_context_files(tree, cwd="/w/r", agent_dir="/a")]
    ['/a/AGENTS.md', '/w/AGENTS.md', '/w/r/CLAUDE.md']
    """
    cwd, agent_dir = normalize(cwd), normalize(agent_dir)
    found: list[ContextFile] = []
    seen: set[str] = set()
    # CTX-2: the agent directory's own file first; the agent directory is not walked
    global_file = load_context_file_from_dir(listing, agent_dir)
    if global_file is not None:
        found.append(global_file)
        seen.add(global_file.path)
    shadowed = shadowed_context_file(listing, cwd)
    ancestors: list[ContextFile] = []
    # CTX-2: cwd up to the filesystem root (past any git root), then ancestors first
    for directory in listing.walk_up(cwd):
        file = load_context_file_from_dir(listing, directory)
        if file is None or file.path in seen:
            continue
        if shadowed is not None and listing.canonical(file.path) == shadowed:
            continue
        ancestors.insert(0, file)
        seen.add(file.path)
    return (*found, *ancestors)


def _resolve(base: str, path: str) -> str:
    return normalize(path) if path.startswith("/") else join(base, path)
