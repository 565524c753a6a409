"""Skills: discovery with diagnostics, and the `<available_skills>` block (Pi 0.85.0).

- `load_skills(listing, cwd=..., agent_dir=..., skill_paths=..., include_defaults=...)`:
  Pi's `loadSkills`: `<agentDir>/skills`, then `cwd/.pi/skills`, then the explicit paths;
  the first skill of a name wins (SKILL-5);
- `parse_skill_file(path, text, ...)`: frontmatter (YAML, via PyYAML) and its warnings;
- `format_skills_for_prompt(skills, tool)`: the block the system prompt carries.

Not modelled: `.gitignore`/`.ignore`/`.fdignore` matching inside skill directories, and
the wording of YAML syntax errors (Pi's parser words them differently from PyYAML).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import yaml

from reference.tree import Listing, join, strip_bom

__all__ = [
    "MAX_DESCRIPTION_LENGTH",
    "MAX_NAME_LENGTH",
    "Diagnostic",
    "Skill",
    "SkillsResult",
    "escape_xml",
    "format_skills_for_prompt",
    "load_skills",
    "load_skills_from_dir",
    "parse_skill_file",
]

MAX_NAME_LENGTH: Final = 64
MAX_DESCRIPTION_LENGTH: Final = 1024
SKILL_FILE: Final = "SKILL.md"
_NAME_CHARS: Final = re.compile(r"^[a-z0-9-]+$")
# SKILL-6: the five XML escapes, `&` first
XML_ESCAPES: Final = (
    ("&", "&amp;"),
    ("<", "&lt;"),
    (">", "&gt;"),
    ('"', "&quot;"),
    ("'", "&apos;"),
)
SKILLS_INTRO: Final = (
    "\n\nThe following skills provide specialized instructions for specific tasks.",
)
RELATIVE_PATHS_LINE: Final = (
    "When a skill file references a relative path, resolve it against the skill directory "
    "(parent of SKILL.md / dirname of the path) and use that absolute path in tool commands."
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Skill:
    """A loaded skill (Pi's `Skill`, without `sourceInfo`)."""

    name: str
    description: str
    file_path: str
    base_dir: str
    disable_model_invocation: bool = False

    def to_pi(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "filePath": self.file_path,
            "baseDir": self.base_dir,
            "disableModelInvocation": self.disable_model_invocation,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    """A warning or a name collision met while loading."""

    type: str
    message: str
    path: str
    collision: dict[str, str] | None = None

    def to_pi(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"type": self.type, "message": self.message, "path": self.path}
        if self.collision is not None:
            wire["collision"] = dict(self.collision)
        return wire


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillsResult:
    skills: tuple[Skill, ...]
    diagnostics: tuple[Diagnostic, ...] = field(default=())

    def to_pi(self) -> dict[str, Any]:
        return {
            "skills": [s.to_pi() for s in self.skills],
            "diagnostics": [d.to_pi() for d in self.diagnostics],
        }


def escape_xml(text: str) -> str:
    """`& < > " '` as entities.

    >>> escape_xml("Run & diagnose <tests>")
    'Run &amp; diagnose &lt;tests&gt;'
    """
    for raw, entity in XML_ESCAPES:
        text = text.replace(raw, entity)
    return text


def format_skills_for_prompt(skills: Sequence[Skill], tool: str = "read") -> str:
    """SKILL-6: the `<available_skills>` block; `""` when no skill may be invoked.

    Skills with `disable_model_invocation` are left out. `tool` is `read` or `bash`.
    """
    visible = [s for s in skills if not s.disable_model_invocation]
    if not visible:
        return ""
    how = (
        "Use bash to load a skill's file when the task matches its description."
        if tool == "bash"
        else "Use the read tool to load a skill's file when the task matches its description."
    )
    lines = [*SKILLS_INTRO, how, RELATIVE_PATHS_LINE, "", "<available_skills>"]
    for skill in visible:
        lines += [
            "  <skill>",
            f"    <name>{escape_xml(skill.name)}</name>",
            f"    <description>{escape_xml(skill.description)}</description>",
            f"    <location>{escape_xml(skill.file_path)}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


def _frontmatter(text: str) -> dict[str, Any]:
    """The YAML mapping between a leading `---` line and the next `---` line ({} if none)."""
    normal = text.replace("\r\n", "\n")
    if not normal.startswith("---"):
        return {}
    end = normal.find("\n---", 3)
    if end == -1:
        return {}
    loaded = yaml.safe_load(normal[3:end])
    return loaded if isinstance(loaded, dict) else {}


def parse_skill_file(
    path: str, text: str, *, is_skill_file: bool
) -> tuple[Skill | None, list[Diagnostic]]:
    """One skill file: the skill (None when not loaded) and its warnings (SKILL-2, SKILL-3)."""
    warnings: list[Diagnostic] = []
    try:
        front = _frontmatter(strip_bom(text))
    except yaml.YAMLError as error:
        return None, [Diagnostic(type="warning", message=str(error), path=path)]
    base_dir = posixpath.dirname(path)
    raw_name = front.get("name")
    # SKILL-2: the frontmatter name, else the name of the file's directory
    name = raw_name if isinstance(raw_name, str) else posixpath.basename(base_dir)
    raw_description = front.get("description")
    description = raw_description if isinstance(raw_description, str) else ""

    def warn(message: str) -> None:
        warnings.append(Diagnostic(type="warning", message=message, path=path))

    # SKILL-3: name and description problems warn; the skill still loads
    if len(name) > MAX_NAME_LENGTH:
        warn(f"name exceeds {MAX_NAME_LENGTH} characters ({len(name)})")
    if not _NAME_CHARS.match(name):
        warn("name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
    if name.startswith("-") or name.endswith("-"):
        warn("name must not start or end with a hyphen")
    if "--" in name:
        warn("name must not contain consecutive hyphens")
    if len(description) > MAX_DESCRIPTION_LENGTH:
        warn(f"description exceeds {MAX_DESCRIPTION_LENGTH} characters ({len(description)})")
    if not description.strip():
        # SKILL-4: no description, no skill (a warning only for SKILL.md)
        if is_skill_file:
            warn("description is required")
        return None, warnings
    skill = Skill(
        name=name,
        description=description,
        file_path=path,
        base_dir=base_dir,
        disable_model_invocation=front.get("disable-model-invocation") is True,
    )
    return skill, warnings


def _load_file(
    listing: Listing, path: str, out: list[tuple[Skill, str]], diags: list[Diagnostic]
) -> None:
    text = listing.read_text(path)
    if text is None:
        return
    skill, warnings = parse_skill_file(
        path, text, is_skill_file=posixpath.basename(path) == SKILL_FILE
    )
    diags.extend(warnings)
    if skill is not None:
        out.append((skill, listing.canonical(path)))


def load_skills_from_dir(
    listing: Listing,
    directory: str,
    out: list[tuple[Skill, str]],
    diags: list[Diagnostic],
    *,
    top: bool = True,
) -> None:
    """SKILL-1: a directory with `SKILL.md` is one skill; else its sub-directories are
    searched (names starting with `.` and `node_modules` skipped), and `*.md` files
    directly in the top directory are skills too."""
    own = join(directory, SKILL_FILE)
    if listing.is_file(own):
        _load_file(listing, own, out, diags)
        return
    for name in listing.children(directory):
        if name.startswith(".") or name == "node_modules":
            continue
        path = join(directory, name)
        if listing.is_dir(path):
            load_skills_from_dir(listing, path, out, diags, top=False)
        elif top and name.endswith(".md") and listing.is_file(path):
            _load_file(listing, path, out, diags)


def load_skills(
    listing: Listing,
    *,
    cwd: str,
    agent_dir: str,
    skill_paths: Sequence[str] = (),
    include_defaults: bool = True,
) -> SkillsResult:
    """Pi's `loadSkills`: defaults (user, then project), then explicit paths; first name wins."""
    found: list[tuple[Skill, str]] = []
    diags: list[Diagnostic] = []
    if include_defaults:
        for directory in (join(agent_dir, "skills"), join(cwd, ".pi", "skills")):
            if listing.is_dir(directory):
                load_skills_from_dir(listing, directory, found, diags)
    for path in skill_paths:
        if not listing.exists(path):
            diags.append(Diagnostic(type="warning", message="skill path does not exist", path=path))
        elif listing.is_dir(path):
            load_skills_from_dir(listing, path, found, diags)
        elif path.endswith(".md"):
            _load_file(listing, path, found, diags)
    winners: dict[str, tuple[Skill, str]] = {}
    collisions: list[Diagnostic] = []
    real_seen: set[str] = set()
    for skill, real in found:
        if real in real_seen:
            continue  # SKILL-5: the same file met twice is skipped silently
        real_seen.add(real)
        if skill.name in winners:
            winner = winners[skill.name][0]
            collisions.append(
                Diagnostic(
                    type="collision",
                    message=f'name "{skill.name}" collision',
                    path=skill.file_path,
                    collision={
                        "resourceType": "skill",
                        "name": skill.name,
                        "winnerPath": winner.file_path,
                        "loserPath": skill.file_path,
                    },
                )
            )
            continue
        winners[skill.name] = (skill, real)
    skills = tuple(s for s, _ in winners.values())  # in the order they were loaded
    return SkillsResult(skills=skills, diagnostics=(*diags, *collisions))
