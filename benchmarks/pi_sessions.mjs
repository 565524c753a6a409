// Times Pi's session helpers inside Node on one session (process start and parsing the
// input excluded):  node pi_sessions.mjs <pi-coding-agent package dir> <session.json> <rounds>
// session.json = {entries, leafId, otherLeafId, keepRecentTokens}; prints one JSON line of
// median nanoseconds per function.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, sessionFile, roundsText] = process.argv.slice(2);
const load = (relative) => import(pathToFileURL(join(packageDir, "dist", relative)).href);
const compaction = await load("core/compaction/compaction.js");
const branch = await load("core/compaction/branch-summarization.js");
const sessions = await load("core/session-manager.js");
const { entries, leafId, otherLeafId, keepRecentTokens } = JSON.parse(readFileSync(sessionFile, "utf8"));

function median(run) {
  const ns = [];
  let result;
  for (let round = 0; round < Number(roundsText); round++) {
    const start = process.hrtime.bigint();
    result = run();
    ns.push(Number(process.hrtime.bigint() - start));
  }
  ns.sort((a, b) => a - b);
  return [ns[Math.floor(ns.length / 2)], result];
}

const [contextNs, context] = median(() => sessions.buildSessionContext(entries, leafId));
const [estimateNs, estimate] = median(() => compaction.estimateContextTokens(context.messages));
const [cutNs, cut] = median(() => compaction.findCutPoint(entries, 0, entries.length, keepRecentTokens));
const manager = sessions.SessionManager.inMemory("/", undefined, structuredClone(entries));
const [lcaNs, lca] = median(() => branch.collectEntriesForBranchSummary(manager, leafId, otherLeafId));
console.log(JSON.stringify({
  buildSessionContext: contextNs, estimateContextTokens: estimateNs, findCutPoint: cutNs,
  collectEntriesForBranchSummary: lcaNs,
  check: { messages: context.messages.length, tokens: estimate.tokens,
           firstKept: cut.firstKeptEntryIndex, collected: lca.entries.length },
}));
