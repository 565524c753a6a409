"""ctxspec's reference engine: Pi 0.85.0's context rules as pure Python functions.

Every function takes `str`/`bytes`/plain data and returns frozen values whose `to_pi()`
gives Pi's JSON shape. Names are Pi's, in snake_case.
"""

from __future__ import annotations

from reference.discovery import (
    CONTEXT_FILE_NAMES,
    ContextFile,
    find_git_paths,
    load_project_context_files,
)
from reference.errors import InvalidInput
from reference.prompt import DEFAULT_SELECTED_TOOLS, build_system_prompt
from reference.skills import Diagnostic, Skill, SkillsResult, format_skills_for_prompt, load_skills
from reference.tree import Directory, File, Listing, Symlink, strip_bom
from reference.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_LENGTH,
    LINE_TRUNCATION_SUFFIX,
    LineTruncation,
    TruncatedBy,
    TruncationResult,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)
from reference.trust import (
    TRUST_REQUIRING_CONFIG_ENTRIES,
    InvalidTrustStore,
    TrustEntry,
    TrustResolution,
    find_trust_entry,
    has_trust_requiring_project_resources,
    parse_trust_store,
    resolve_project_trusted,
)

__version__ = "0.1.0"

__all__ = [
    "CONTEXT_FILE_NAMES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "DEFAULT_SELECTED_TOOLS",
    "GREP_MAX_LINE_LENGTH",
    "LINE_TRUNCATION_SUFFIX",
    "TRUST_REQUIRING_CONFIG_ENTRIES",
    "ContextFile",
    "Diagnostic",
    "Directory",
    "File",
    "InvalidInput",
    "InvalidTrustStore",
    "LineTruncation",
    "Listing",
    "Skill",
    "SkillsResult",
    "Symlink",
    "TruncatedBy",
    "TruncationResult",
    "TrustEntry",
    "TrustResolution",
    "build_system_prompt",
    "find_git_paths",
    "find_trust_entry",
    "format_size",
    "format_skills_for_prompt",
    "has_trust_requiring_project_resources",
    "load_project_context_files",
    "load_skills",
    "parse_trust_store",
    "resolve_project_trusted",
    "strip_bom",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
]
