// Times Pi's session helpers inside Node on one session (process start, parsing the input
// and building the SessionManager / AgentSession excluded).
//   node pi_sessions.mjs <pi-coding-agent package dir> <session.json> <rounds>
//     prints one JSON line: median nanoseconds per helper, and a `check` of the answers;
//   node pi_sessions.mjs <pi-coding-agent package dir> <session.json> --serve
//     prints {"ready": check} and then, for each line `round` read on stdin, one JSON line of
//     nanoseconds per helper for one call of each (so rounds can interleave with another
//     implementation's in the same run); ends at end of input.
// session.json = {entries, leafId, otherLeafId, keepRecentTokens}. The helpers: the session
// context of the chain's end, the estimate of its messages, findCutPoint over all entries,
// prepareCompaction of the chain's path, collectEntriesForBranchSummary from the chain's end to
// the other leaf (on a SessionManager built beforehand), and navigateTree there (no summary)
// on an AgentSession holding that manager, its leaf put back before each round.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

const [packageDir, sessionFile, mode] = process.argv.slice(2);
const load = (relative) => import(pathToFileURL(join(packageDir, "dist", relative)).href);
const here = dirname(fileURLToPath(import.meta.url));
const { hostSession } = await import(
  pathToFileURL(join(here, "..", "conformance", "harnesses", "pi", "host.mjs")).href
);
const compaction = await load("core/compaction/compaction.js");
const branch = await load("core/compaction/branch-summarization.js");
const sessions = await load("core/session-manager.js");
const { entries, leafId, otherLeafId, keepRecentTokens } = JSON.parse(readFileSync(sessionFile, "utf8"));

const settings = { ...compaction.DEFAULT_COMPACTION_SETTINGS, keepRecentTokens };
const manager = sessions.SessionManager.inMemory("/", undefined, structuredClone(entries));
manager.branch(leafId);
const path = manager.getBranch(leafId);
const navigator = sessions.SessionManager.inMemory("/", undefined, structuredClone(entries));
const model = { id: "scripted", provider: "scripted", api: "scripted", reasoning: false,
  contextWindow: 0, maxTokens: 0 };
const host = await hostSession(load, { settings: {}, model, sessionManager: navigator,
  streamFn: async () => { throw new Error("navigation without a summary calls no model"); } });
let context;

const helpers = {
  buildSessionContext: () => (context = sessions.buildSessionContext(entries, leafId)),
  estimateContextTokens: () => compaction.estimateContextTokens(context.messages),
  findCutPoint: () => compaction.findCutPoint(entries, 0, entries.length, keepRecentTokens),
  prepareCompaction: () => compaction.prepareCompaction(path, settings),
  collectEntriesForBranchSummary: () =>
    branch.collectEntriesForBranchSummary(manager, leafId, otherLeafId),
  navigateTree: () => host.session.navigateTree(otherLeafId, { summarize: false }),
};

async function round() {
  const ns = {};
  const answers = {};
  for (const [name, run] of Object.entries(helpers)) {
    navigator.branch(leafId);
    const start = process.hrtime.bigint();
    answers[name] = await run();
    ns[name] = Number(process.hrtime.bigint() - start);
  }
  return [ns, answers];
}

function check(answers) {
  const prepared = answers.prepareCompaction;
  return {
    messages: answers.buildSessionContext.messages.length,
    tokens: answers.estimateContextTokens.tokens,
    firstKept: answers.findCutPoint.firstKeptEntryIndex,
    prepared: prepared ? { firstKeptEntryId: prepared.firstKeptEntryId,
      summarized: prepared.messagesToSummarize.length, tokensBefore: prepared.tokensBefore } : null,
    collected: answers.collectEntriesForBranchSummary.entries.length,
    navigated: { leafId: navigator.getLeafId(), editorText: answers.navigateTree.editorText },
  };
}

if (mode === "--serve") {
  const [, answers] = await round();
  console.log(JSON.stringify({ ready: check(answers) }));
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() !== "round") throw new Error(`unknown request ${JSON.stringify(line)}`);
    const [ns] = await round();
    console.log(JSON.stringify(ns));
  }
} else {
  const all = [];
  let answers;
  for (let n = 0; n < Number(mode); n++) {
    const [ns, last] = await round();
    all.push(ns);
    answers = last;
  }
  const median = (name) => {
    const sorted = all.map((ns) => ns[name]).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  };
  const out = Object.fromEntries(Object.keys(helpers).map((name) => [name, median(name)]));
  console.log(JSON.stringify({ ...out, check: check(answers) }));
}
host.close();
