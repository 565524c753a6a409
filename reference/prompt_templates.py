"""Prompt templates: loading template files as Pi does (Pi 0.85.0, `prompt-templates.js`).

- `load_prompt_templates(listing, paths, cwd=..., agent_dir=...)`: `loadPromptTemplates`
  with explicit paths only: a missing path adds nothing; a directory gives its own `*.md`
  files (dot files included, no sub-directories, no ignore files); a file must end `.md`.
- `prompt_template(listing, path, info)`: RES-8, one file: named after the file (`.md`
  dropped); its description the front matter's (any truthy value), else the body's first
  non-blank line cut at 60 UTF-16 units with `...`; its `content` the body after the front
  matter; a file whose front matter does not parse is no template.
- `dedupe_prompts(templates)`: RES-6, the first template of a name wins; a later one is a
  collision named after the command (`name "/<name>" collision`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxspec.reference._jsjson import js_truthy
from ctxspec.reference.frontmatter import FrontmatterError, js_trim, parse_frontmatter
from ctxspec.reference.skills import Diagnostic, SourceInfo
from ctxspec.reference.tree import Listing, join

__all__ = ["PromptTemplate", "dedupe_prompts", "load_prompt_templates", "prompt_template"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptTemplate:
    """A prompt template: its name, path, description (a front matter value of any JSON
    type, as Pi keeps it), argument hint, body (`content`) and `sourceInfo`."""

    name: str
    file_path: str
    description: Any = ""
    argument_hint: Any = None
    content: str = ""
    source_info: SourceInfo | None = None

    def to_pi(self, *, extended: bool = False, content: bool = False) -> dict[str, Any]:
        wire: dict[str, Any] = {"name": self.name, "filePath": self.file_path}
        if extended:
            wire["description"] = self.description
            if self.argument_hint is not None:
                wire["argumentHint"] = self.argument_hint
            if self.source_info is not None:
                wire["sourceInfo"] = self.source_info.to_pi()
        if content:
            wire["content"] = self.content
        return wire


def _cut(line: str) -> str:
    units = line.encode("utf-16-le", "surrogatepass")
    if len(units) <= 120:
        return line
    return units[:120].decode("utf-16-le", "surrogatepass") + "..."


def prompt_template(listing: Listing, path: str, info: SourceInfo | None) -> PromptTemplate | None:
    """RES-8: one template file (None when it cannot be read or its front matter fails)."""
    text = listing.read_text(path)
    if text is None:
        return None
    try:
        front, body = parse_frontmatter(text)
    except FrontmatterError:
        return None
    fields: dict[str, Any] = front if isinstance(front, dict) else {}
    description = fields.get("description")
    if not js_truthy(description):
        first = next((line for line in body.split("\n") if js_trim(line)), None)
        description = "" if first is None else _cut(first)
    hint = fields.get("argument-hint")
    return PromptTemplate(
        name=posixpath.basename(path).removesuffix(".md"),
        file_path=path,
        description=description,
        argument_hint=hint if js_truthy(hint) else None,
        content=body,
        source_info=info,
    )


def load_prompt_templates(
    listing: Listing, paths: Sequence[str], *, cwd: str, agent_dir: str
) -> list[PromptTemplate]:
    """`loadPromptTemplates({promptPaths, includeDefaults: false})` over resolved paths,
    each template with the sourceInfo Pi's loader gives it (RES-8): under
    `<agentDir>/prompts` user, under `cwd/.pi/prompts` project, else temporary with the
    file's directory as its base."""
    user_root, project_root = join(agent_dir, "prompts"), join(cwd, ".pi", "prompts")

    def info(path: str) -> SourceInfo:
        for root, scope in ((user_root, "user"), (project_root, "project")):
            if path == root or path.startswith(root + "/"):
                return SourceInfo(path=path, source="local", scope=scope, base_dir=root)
        base = path if listing.is_dir(path) else posixpath.dirname(path)
        return SourceInfo(path=path, source="local", base_dir=base)

    templates: list[PromptTemplate] = []
    for path in paths:
        if not listing.exists(path):
            continue
        files = (
            [join(path, n) for n in listing.children(path) if n.endswith(".md")]
            if listing.is_dir(path)
            else [path]
            if path.endswith(".md")
            else []
        )
        for file in files:
            if listing.is_file(file):
                template = prompt_template(listing, file, info(file))
                if template is not None:
                    templates.append(template)
    return templates


def dedupe_prompts(
    templates: Sequence[PromptTemplate],
) -> tuple[list[PromptTemplate], list[Diagnostic]]:
    """RES-6: the first template of a name wins; later ones are collisions."""
    winners: dict[str, PromptTemplate] = {}
    collisions: list[Diagnostic] = []
    for template in templates:
        winner = winners.get(template.name)
        if winner is None:
            winners[template.name] = template
            continue
        collisions.append(
            Diagnostic.of_collision(
                "prompt",
                template.name,
                shown=f"/{template.name}",
                winner_path=winner.file_path,
                loser_path=template.file_path,
            )
        )
    return list(winners.values()), collisions
