"""The system prompt, byte for byte: Pi 0.85.0's `buildSystemPrompt(options)`.

The prompt is assembled in one fixed order (PROMPT-1):

    base + "\\n\\n" + append + project context + skills + "\\nCurrent working directory: " + cwd

`base` is the custom prompt when one is given (then a final `"\\n"` follows the cwd),
else Pi's default text with its tool list, guidelines and documentation paths (no final
newline). Context files and skills are pasted as given, in the order given: the prompt
resolves no conflict between instructions. The paths of Pi's own documentation are
inputs (`readme_path`, `docs_path`, `examples_path`), as they depend on where Pi is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from ctxspec.reference._jsjson import js_property, js_string, js_truthy
from ctxspec.reference._utf16 import js_trim
from ctxspec.reference.discovery import ContextFile
from ctxspec.reference.skills import Skill, format_skills_for_prompt

__all__ = [
    "DEFAULT_SELECTED_TOOLS",
    "build_project_context",
    "build_system_prompt",
]

DEFAULT_SELECTED_TOOLS: Final = ("read", "bash", "edit", "write")

INTRO: Final = (
    "You are an expert coding assistant operating inside pi, a coding agent harness. "
    "You help users by reading files, executing commands, editing code, and writing new files."
)
CUSTOM_TOOLS_NOTE: Final = (
    "In addition to the tools above, you may have access to other custom tools "
    "depending on the project."
)
# PROMPT-3: the shell guideline, chosen by which shells are selected (and only when
# none of grep, find, ls is)
SHELL_GUIDELINES: Final = {
    (True, False): "Use bash for file operations like ls, rg, find",
    (False, True): "Use PowerShell for file operations like listing, searching, and finding files",
    (
        True,
        True,
    ): "Use bash or PowerShell for file operations like listing, searching, and finding files",
}
FILE_TOOLS: Final = ("grep", "find", "ls")
CLOSING_GUIDELINES: Final = (
    "Be concise in your responses",
    "Show file paths clearly when working with files",
)
DOCS_INTRO: Final = (
    "Pi documentation (read only when the user asks about pi itself, its SDK, extensions, "
    "themes, skills, or TUI):"
)
DOCS_RULES: Final = (
    "- When reading pi docs or examples, resolve docs/... under Additional docs and "
    "examples/... under Examples, not the current working directory",
    "- When asked about: extensions (docs/extensions.md, examples/extensions/), themes "
    "(docs/themes.md), skills (docs/skills.md), prompt templates (docs/prompt-templates.md), "
    "TUI components (docs/tui.md), keybindings (docs/keybindings.md), SDK integrations "
    "(docs/sdk.md), custom providers (docs/custom-provider.md), adding models "
    "(docs/models.md), pi packages (docs/packages.md), environment variables "
    "(docs/environment-variables.md)",
    "- When working on pi topics, read the docs and examples, and follow .md "
    "cross-references before implementing",
    "- Always read pi .md files completely and follow links to related docs (e.g., tui.md "
    "for TUI API details)",
)
CONTEXT_HEADER: Final = "\n\n<project_context>\n\nProject-specific instructions and guidelines:\n\n"
CONTEXT_FOOTER: Final = "</project_context>\n"
CWD_LABEL: Final = "\nCurrent working directory: "


def build_project_context(files: Sequence[ContextFile]) -> str:
    """PROMPT-2: the `<project_context>` block; files as given, raw (nothing escaped).

    >>> block = build_project_context([ContextFile(path="/w/AGENTS.md", content="a & <b>")])
    >>> block.splitlines()[6:9]
    ['<project_instructions path="/w/AGENTS.md">', 'a & <b>', '</project_instructions>']
    """
    if not files:
        return ""
    body = "".join(
        f'<project_instructions path="{f.path}">\n{f.content}\n</project_instructions>\n\n'
        for f in files
    )
    return CONTEXT_HEADER + body + CONTEXT_FOOTER


def _default_base(
    tools: Sequence[str],
    snippets: Mapping[str, str] | None,
    guidelines: Sequence[str],
    *,
    readme_path: str,
    docs_path: str,
    examples_path: str,
) -> str:
    # PROMPT-3: `toolSnippets[name]`, a JS property lookup: a tool named `constructor`
    # or `toString` finds Object.prototype's function, which is listed as its source text
    found = {name: None if snippets is None else js_property(snippets, name) for name in tools}
    listed = [f"- {name}: {js_string(found[name])}" for name in tools if js_truthy(found[name])]
    bullets: list[str] = []

    def add(line: str) -> None:
        if line not in bullets:
            bullets.append(line)

    shells = ("bash" in tools, "powershell" in tools)
    if any(shells) and not any(name in tools for name in FILE_TOOLS):
        add(SHELL_GUIDELINES[shells])
    for item in guidelines:
        # JS trim(): a BOM goes, U+001C-U+001F and U+0085 stay (unlike str.strip)
        if js_trim(item):
            add(js_trim(item))
    for line in CLOSING_GUIDELINES:
        add(line)
    return "\n".join(
        [
            INTRO,
            "",
            "Available tools:",
            "\n".join(listed) or "(none)",
            "",
            CUSTOM_TOOLS_NOTE,
            "",
            "Guidelines:",
            "\n".join(f"- {line}" for line in bullets),
            "",
            DOCS_INTRO,
            f"- Main documentation: {readme_path}",
            f"- Additional docs: {docs_path}",
            f"- Examples: {examples_path} (extensions, custom tools, SDK)",
            *DOCS_RULES,
        ]
    )


def build_system_prompt(
    *,
    cwd: str,
    custom_prompt: str | None = None,
    selected_tools: Sequence[str] | None = None,
    tool_snippets: Mapping[str, str] | None = None,
    prompt_guidelines: Sequence[str] | None = None,
    append_system_prompt: str | None = None,
    context_files: Sequence[ContextFile] = (),
    skills: Sequence[Skill] = (),
    readme_path: str = "/pi/README.md",
    docs_path: str = "/pi/docs",
    examples_path: str = "/pi/examples",
) -> str:
    """Pi's `buildSystemPrompt`; strings in, the prompt out.

    >>> build_system_prompt(custom_prompt="C", cwd="/x")
    'C\\nCurrent working directory: /x\\n'
    """
    tools = tuple(DEFAULT_SELECTED_TOOLS if selected_tools is None else selected_tools)
    # PROMPT-1: backslashes of a Windows cwd are shown as slashes
    shown_cwd = cwd.replace("\\", "/")
    append = f"\n\n{append_system_prompt}" if append_system_prompt else ""
    context = build_project_context(context_files)
    # SKILL-7: the skills block needs a tool that can read it: read, else bash
    reader = "read" if "read" in tools else "bash" if "bash" in tools else None
    skills_block = "" if reader is None or not skills else format_skills_for_prompt(skills, reader)
    if custom_prompt:
        return custom_prompt + append + context + skills_block + CWD_LABEL + shown_cwd + "\n"
    base = _default_base(
        tools,
        tool_snippets,
        prompt_guidelines or (),
        readme_path=readme_path,
        docs_path=docs_path,
        examples_path=examples_path,
    )
    return base + append + context + skills_block + CWD_LABEL + shown_cwd
