// tokens.calculate, compaction.last_usage, compaction.turn_start, session.context_entries,
// compaction.file_lists, compaction.format_file_ops: the helpers Pi exports from
// core/compaction/{compaction,utils}.js and core/session-manager.js. A release that lacks
// one of these functions leaves its op out of hello (unsupported).
import { guardedIndex, sessionArgs } from "../../kit/sessions.mjs";
export default async function sessionHelperOps(context) {
  const { load } = context;
  const invalid = (message) => new context.InvalidInput(message);
  const compaction = await load("core/compaction/compaction.js");
  const utils = await load("core/compaction/utils.js");
  const sessions = await load("core/session-manager.js");

  // an absent module's stand-in throws on every export: it has none of these functions
  const has = (module, name) => {
    try {
      return typeof module[name] === "function";
    } catch {
      return false;
    }
  };
  const { entriesOf, leafOf } = sessionArgs((text) => sessions.parseSessionEntries(text));

  const ops = {
    "tokens.calculate": [compaction, "calculateContextTokens", (a) => compaction.calculateContextTokens(a.usage)],
    "compaction.last_usage": [compaction, "getLastAssistantUsage",
      (a) => compaction.getLastAssistantUsage(entriesOf(a)) ?? null],
    "compaction.turn_start": [compaction, "findTurnStartIndex", (a) => {
      const entries = entriesOf(a);
      const start = a.startIndex ?? 0;
      // Pi reads entries[i] for every index it walks: outside the list it throws a TypeError
      if (start < 0) throw invalid("startIndex: must be at least 0");
      if (a.entryIndex >= start && a.entryIndex >= entries.length) {
        throw invalid(`entryIndex: must be below the number of entries (${entries.length})`);
      }
      return compaction.findTurnStartIndex(entries, a.entryIndex, start);
    }],
    "session.context_entries": [sessions, "buildContextEntries", (a) => {
      const entries = entriesOf(a);
      return { entries: sessions.buildContextEntries(entries, leafOf(a), guardedIndex(entries)) };
    }],
    "compaction.file_lists": [utils, "computeFileLists", (a) => utils.computeFileLists({
      read: new Set(a.fileOps.read), written: new Set(a.fileOps.written), edited: new Set(a.fileOps.edited),
    })],
    "compaction.format_file_ops": [utils, "formatFileOperations",
      (a) => utils.formatFileOperations(a.readFiles, a.modifiedFiles)],
  };
  return Object.fromEntries(
    Object.entries(ops).filter(([, [module, name]]) => has(module, name)).map(([op, [, , handler]]) => [op, handler]),
  );
}
