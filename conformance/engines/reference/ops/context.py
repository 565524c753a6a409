"""context.discover, trust.resolve, skills.load, skills.format, prompt.build.

File-system ops build a `ctxspec.reference.tree.Listing` straight from the wire tree (no temp
directory): the reference reads the same virtual paths the case names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ctxspec.conformance.engines.reference.ops import Handler
from ctxspec.reference import discovery, prompt, resources, skills, trust
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.tree import Listing


def _listing(args: Mapping[str, Any]) -> Listing:
    listing = Listing.from_wire(args.get("tree") or {})
    stored = args.get("trustStore")
    if stored is not None:
        data = (json.dumps(dict(stored), indent=2) + "\n").encode()
        listing = listing.with_file(trust.trust_store_path(args["agentDir"]), data)
    return listing


def _skill(raw: Mapping[str, Any]) -> skills.Skill:
    path = str(raw["filePath"])
    return skills.Skill(
        name=str(raw["name"]),
        description=str(raw["description"]),
        file_path=path,
        base_dir=str(raw.get("baseDir") or path.rsplit("/", 1)[0]),
        disable_model_invocation=raw.get("disableModelInvocation") is True,
    )


def _skills(raw: Sequence[Mapping[str, Any]] | None) -> tuple[skills.Skill, ...]:
    return tuple(_skill(s) for s in raw or ())


def discover(args: Mapping[str, Any]) -> dict[str, Any]:
    files = discovery.load_project_context_files(
        _listing(args), cwd=args["cwd"], agent_dir=args["agentDir"]
    )
    return {"agentsFiles": [f.to_pi() for f in files]}


def _trust_prompt_answer(args: Mapping[str, Any]) -> trust.TrustPromptAnswer | None:
    answer = args.get("trustPrompt")
    if answer is None:
        return None
    pick = answer.get("pick") if isinstance(answer, Mapping) else False
    if pick is not None and not isinstance(pick, str):
        raise InvalidInput("trustPrompt.pick", "must be an option's label or null")
    return trust.TrustPromptAnswer(pick=pick)


def resolve_trust(args: Mapping[str, Any]) -> dict[str, Any]:
    try:
        resolution = trust.resolve_project_trusted(
            _listing(args),
            cwd=args["cwd"],
            agent_dir=args["agentDir"],
            home=args["home"],
            trust_override=args.get("trustOverride"),
            default_project_trust=args.get("defaultProjectTrust"),
            ui=_trust_prompt_answer(args),
        )
    except trust.InvalidTrustStore as error:
        return {"thrown": error.message}
    shown = resolution.prompt is not None
    if shown and Listing.from_wire(args.get("tree") or {}).canonical(args["cwd"]).count("/") < 2:
        # the Pi adapter lays the tree out under a temp root: `/`'s parent cannot be shown
        raise InvalidInput(
            "trustPrompt",
            "the prompt would offer the tree root's parent; use a cwd two levels deep",
        )
    return resolution.to_pi()


def load_skills(args: Mapping[str, Any]) -> dict[str, Any]:
    include = args.get("includeDefaults")
    return skills.load_skills(
        _listing(args),
        cwd=args["cwd"],
        agent_dir=args["agentDir"],
        skill_paths=tuple(args.get("skillPaths") or ()),
        include_defaults=True if include is None else bool(include),
        home=args.get("home"),
    ).to_pi(extended=args.get("extended") is True)


def build_prompt(args: Mapping[str, Any]) -> str:
    if not isinstance(args.get("cwd"), str):
        raise InvalidInput("cwd", "must be a string")
    return prompt.build_system_prompt(
        cwd=args["cwd"],
        custom_prompt=args.get("customPrompt"),
        selected_tools=args.get("selectedTools"),
        tool_snippets=args.get("toolSnippets"),
        prompt_guidelines=args.get("promptGuidelines"),
        append_system_prompt=args.get("appendSystemPrompt"),
        context_files=tuple(
            discovery.ContextFile(path=f["path"], content=f["content"])
            for f in args.get("contextFiles") or ()
        ),
        skills=_skills(args.get("skills")),
    )


def load_resources(args: Mapping[str, Any]) -> dict[str, Any]:
    trusted = args.get("projectTrusted")
    include = args.get("include") or ()
    unknown = [part for part in include if part not in resources.INCLUDE_PARTS]
    if unknown:
        raise InvalidInput(
            "include", f"{unknown[0]!r} is none of {', '.join(resources.INCLUDE_PARTS)}"
        )
    return resources.load_resources(
        _listing(args),
        cwd=args["cwd"],
        agent_dir=args["agentDir"],
        home=args["home"],
        project_trusted=True if trusted is None else bool(trusted),
        additional_skill_paths=tuple(args.get("additionalSkillPaths") or ()),
        additional_prompt_template_paths=tuple(args.get("additionalPromptTemplatePaths") or ()),
        additional_theme_paths=tuple(args.get("additionalThemePaths") or ()),
        additional_extension_paths=tuple(args.get("additionalExtensionPaths") or ()),
        no_skills=bool(args.get("noSkills")),
        no_prompt_templates=bool(args.get("noPromptTemplates")),
        no_themes=bool(args.get("noThemes")),
        no_extensions=bool(args.get("noExtensions")),
        no_context_files=bool(args.get("noContextFiles")),
        system_prompt=args.get("systemPrompt"),
        append_system_prompt=args.get("appendSystemPrompt"),
    ).to_pi(extended=args.get("extended") is True, include=include)


HANDLERS: Final[dict[str, Handler]] = {
    "context.discover": discover,
    "trust.resolve": resolve_trust,
    "skills.load": load_skills,
    # SKILL-6: only an absent (or null) tool defaults to read; "" names bash, as in Pi
    "skills.format": lambda a: skills.format_skills_for_prompt(
        _skills(a["skills"]), "read" if a.get("fileReadTool") is None else a["fileReadTool"]
    ),
    "prompt.build": build_prompt,
    "resources.load": load_resources,
}
