"""ctxspec's reference engine: Pi 0.85.0's context rules as pure Python functions.

Every function takes `str`/`bytes`/plain data and returns frozen values whose `to_pi()`
gives Pi's JSON shape. Names are Pi's, in snake_case.
"""

from __future__ import annotations

from ctxspec.reference.agent_run import RunModel, RunResult, ScriptedToolResult, run_agent_session
from ctxspec.reference.branch import (
    NavigationResult,
    SummaryRefused,
    collect_entries_for_branch_summary,
    navigate_tree,
)
from ctxspec.reference.branch_summary import (
    BranchSummaryResult,
    ScriptedReply,
    branch_summary_request,
    branch_summary_result,
    prepare_branch_entries,
)
from ctxspec.reference.compaction import (
    DEFAULT_COMPACTION_SETTINGS,
    CompactionPreparation,
    CompactionSettings,
    CutPointResult,
    find_cut_point,
    find_turn_start_index,
    prepare_compaction,
    should_compact,
)
from ctxspec.reference.discovery import (
    CONTEXT_FILE_NAMES,
    ContextFile,
    find_git_paths,
    load_project_context_files,
)
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.file_ops import FileOperations, compute_file_lists, format_file_operations
from ctxspec.reference.grep import (
    DEFAULT_GREP_LIMIT,
    NO_MATCHES,
    GrepMatch,
    context_lines,
    grep_result,
)
from ctxspec.reference.messages import (
    BRANCH_SUMMARY_PREFIX,
    BRANCH_SUMMARY_SUFFIX,
    COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX,
    bash_execution_to_text,
    convert_to_llm,
)
from ctxspec.reference.migration import LoadedSession, load_session, migrate_session_entries
from ctxspec.reference.prompt import DEFAULT_SELECTED_TOOLS, build_system_prompt
from ctxspec.reference.prompt_templates import PromptTemplate
from ctxspec.reference.resources import PROMPT_ROOTS, SKILL_ROOTS, Resources, load_resources
from ctxspec.reference.session import (
    SessionContext,
    build_context_entries,
    build_session_context,
    build_session_path,
    check_tree,
)
from ctxspec.reference.session_file import ParsedSession, SkippedLine, parse_session_entries
from ctxspec.reference.skills import (
    Diagnostic,
    Skill,
    SkillsResult,
    format_skills_for_prompt,
    load_skills,
)
from ctxspec.reference.stream import (
    FINISHED_MESSAGE,
    FinishedAccumulator,
    OutputAccumulator,
    OutputSnapshot,
)
from ctxspec.reference.tokens import (
    ContextUsageEstimate,
    calculate_context_tokens,
    estimate_context_tokens,
    estimate_tokens,
    get_last_assistant_usage,
)
from ctxspec.reference.tool_result import ToolResult
from ctxspec.reference.tools import NO_OUTPUT, bash_result, read_result
from ctxspec.reference.transcript import get_summarization_failure, serialize_conversation
from ctxspec.reference.tree import Directory, File, Listing, Symlink, strip_bom
from ctxspec.reference.truncate import (
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
from ctxspec.reference.trust import (
    TRUST_REQUIRING_CONFIG_ENTRIES,
    InvalidTrustStore,
    TrustEntry,
    TrustResolution,
    find_trust_entry,
    has_trust_requiring_project_resources,
    parse_trust_store,
    resolve_project_trusted,
)

__all__ = [
    "BRANCH_SUMMARY_PREFIX",
    "BRANCH_SUMMARY_SUFFIX",
    "COMPACTION_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_SUFFIX",
    "CONTEXT_FILE_NAMES",
    "DEFAULT_COMPACTION_SETTINGS",
    "DEFAULT_GREP_LIMIT",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "DEFAULT_SELECTED_TOOLS",
    "FINISHED_MESSAGE",
    "GREP_MAX_LINE_LENGTH",
    "LINE_TRUNCATION_SUFFIX",
    "NO_MATCHES",
    "NO_OUTPUT",
    "PROMPT_ROOTS",
    "SKILL_ROOTS",
    "TRUST_REQUIRING_CONFIG_ENTRIES",
    "BranchSummaryResult",
    "CompactionPreparation",
    "CompactionSettings",
    "ContextFile",
    "ContextUsageEstimate",
    "CutPointResult",
    "Diagnostic",
    "Directory",
    "File",
    "FileOperations",
    "FinishedAccumulator",
    "GrepMatch",
    "InvalidInput",
    "InvalidTrustStore",
    "LineTruncation",
    "Listing",
    "LoadedSession",
    "NavigationResult",
    "OutputAccumulator",
    "OutputSnapshot",
    "ParsedSession",
    "PromptTemplate",
    "Resources",
    "RunModel",
    "RunResult",
    "ScriptedReply",
    "ScriptedToolResult",
    "SessionContext",
    "Skill",
    "SkillsResult",
    "SkippedLine",
    "SummaryRefused",
    "Symlink",
    "ToolResult",
    "TruncatedBy",
    "TruncationResult",
    "TrustEntry",
    "TrustResolution",
    "bash_execution_to_text",
    "bash_result",
    "branch_summary_request",
    "branch_summary_result",
    "build_context_entries",
    "build_session_context",
    "build_session_path",
    "build_system_prompt",
    "calculate_context_tokens",
    "check_tree",
    "collect_entries_for_branch_summary",
    "compute_file_lists",
    "context_lines",
    "convert_to_llm",
    "estimate_context_tokens",
    "estimate_tokens",
    "find_cut_point",
    "find_git_paths",
    "find_trust_entry",
    "find_turn_start_index",
    "format_file_operations",
    "format_size",
    "format_skills_for_prompt",
    "get_last_assistant_usage",
    "get_summarization_failure",
    "grep_result",
    "has_trust_requiring_project_resources",
    "load_project_context_files",
    "load_resources",
    "load_session",
    "load_skills",
    "migrate_session_entries",
    "navigate_tree",
    "parse_session_entries",
    "parse_trust_store",
    "prepare_branch_entries",
    "prepare_compaction",
    "read_result",
    "resolve_project_trusted",
    "run_agent_session",
    "serialize_conversation",
    "should_compact",
    "strip_bom",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
]
