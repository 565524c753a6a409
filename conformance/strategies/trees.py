"""Small random file trees for the context ops: instructions, trust and resources.

`context_trees()` draws `{"tree", "cwd", "agentDir", "home"}`: a cwd one to four
directories under `/ws`, context-file candidates at random levels (several names per
directory, so the per-directory choice is exercised), sometimes a `.git` at a random
level, an agentDir file, and gated resources (`.pi/skills`, `.pi/prompts`,
`.pi/SYSTEM.md`, `.agents/skills` at a random level) beside user ones. `trust_stores(cwd)`
draws `true`/`false`/`null` decisions for random directories on the path. Trees stay at
a handful of files: the Pi adapter writes each one to disk.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ctxspec.reference.discovery import CONTEXT_FILE_NAMES

__all__ = ["GATED_MARK", "context_trees", "trust_stores"]

# content of every gated resource carries this, so a test can spot one in any result
GATED_MARK = "GATED"
_DIR_NAMES = st.sampled_from(("a", "b", "repo"))


def _skill(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n"


def _levels(cwd: str) -> list[str]:
    """`/ws`, ..., `cwd` (the directories the walk and the trust lookup visit below `/`)."""
    parts = cwd.strip("/").split("/")
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


@st.composite
def context_trees(draw: st.DrawFn) -> dict[str, Any]:
    """A tree with a cwd, agentDir `/agent` and home `/home`, at most about ten files."""
    depth = draw(st.integers(min_value=1, max_value=4), label="depth")
    names = draw(st.lists(_DIR_NAMES, min_size=depth, max_size=depth), label="dirs")
    cwd = "/ws/" + "/".join(names)
    levels = _levels(cwd)
    tree: dict[str, Any] = {}

    def put(path: str, content: Any) -> None:
        tree[path.lstrip("/")] = content

    for level in draw(st.lists(st.sampled_from(levels), max_size=3, unique=True), label="ctx"):
        chosen = draw(
            st.lists(st.sampled_from(CONTEXT_FILE_NAMES), min_size=1, max_size=2, unique=True)
        )
        for name in chosen:
            put(f"{level}/{name}", f"{name} at {level}\n")
    if draw(st.booleans(), label="agent file"):
        put("/agent/AGENTS.md", "agent rules\n")
    if draw(st.booleans(), label="git"):
        put(draw(st.sampled_from(levels)) + "/.git/HEAD", "ref: refs/heads/main\n")
    gated = draw(
        st.sets(st.sampled_from(("skills", "prompts", "system", "agents", "settings"))),
        label="gated",
    )
    if "skills" in gated:
        put(f"{cwd}/.pi/skills/ps/SKILL.md", _skill("ps", GATED_MARK))
    if "prompts" in gated:
        put(f"{cwd}/.pi/prompts/pp.md", f"{GATED_MARK}\n")
    if "system" in gated:
        put(f"{cwd}/.pi/SYSTEM.md", f"{GATED_MARK} system\n")
    if "agents" in gated:
        level = draw(st.sampled_from(levels), label="agents level")
        put(f"{level}/.agents/skills/as/SKILL.md", _skill("as", GATED_MARK))
    if "settings" in gated:
        put(f"{cwd}/.pi/settings.json", '{"skills": ["../gs"]}\n')
        put(f"{cwd}/gs/gs/SKILL.md", _skill("gs", GATED_MARK))
    user = draw(st.sets(st.sampled_from(("skill", "home", "system"))), label="user")
    if "skill" in user:
        put("/agent/skills/ps/SKILL.md", _skill("ps", "user"))
    if "home" in user:
        put("/home/.agents/skills/hs/SKILL.md", _skill("hs", "home"))
    if "system" in user:
        put("/agent/SYSTEM.md", "user system\n")
    return {"tree": tree, "cwd": cwd, "agentDir": "/agent", "home": "/home"}


def trust_stores(cwd: str) -> st.SearchStrategy[dict[str, bool | None]]:
    """Stored decisions for random directories from `/ws` down to `cwd`."""
    return st.dictionaries(
        st.sampled_from(_levels(cwd)), st.sampled_from((True, False, None)), max_size=3
    )
