// bench.stream, bench.truncate, bench.session: Pi timing its own functions on a file of
// this machine (PROTOCOL.md, "The bench extension"). Each answers {answer, elapsedNs,
// requestNs}: what Pi's function returned, in the wire shape of the matching ordinary op;
// the nanoseconds (process.hrtime) of that call alone, and of the whole request.
//   bench.stream   OutputAccumulator fed the file in chunkBytes chunks read as it goes,
//                  finish(), snapshot(), closeTempFile(): all timed, reading included; the
//                  temp file is left for the runner to hash and delete (persistedPath)
//   bench.truncate truncateHead / truncateTail of the whole file read as UTF-8 (reading
//                  excluded)
//   bench.session  one helper on the file's entries (reading and parsing excluded; the
//                  SessionManager and, for navigation, the AgentSession made beforehand;
//                  for estimateContextTokens, the leaf's context built beforehand)
//   bench.open     the session file end to end, all timed: SessionManager.open(path) (reading,
//                  parsing, loading), branch(leafId) when given, then buildSessionContext()
//                  or prepareCompaction(getBranch(), settings)
import { closeSync, existsSync, openSync, readFileSync, readSync } from "node:fs";
import { hostSession } from "../host.mjs";

const HELPERS = ["buildSessionContext", "estimateContextTokens", "findCutPoint", "prepareCompaction",
  "collectEntriesForBranchSummary", "navigation"];
const OPEN_HELPERS = ["buildSessionContext", "prepareCompaction"];

// what each op needs of Pi (the adapter leaves an op out of hello when a module is absent)
export const needs = {
  "bench.stream": ["core/tools/output-accumulator.js"],
  "bench.truncate": ["core/tools/truncate.js"],
  "bench.session": ["core/session-manager.js", "core/compaction/compaction.js",
    "core/compaction/branch-summarization.js", "core/compaction/utils.js", "core/sdk.js",
    "core/settings-manager.js", "core/resource-loader.js"],
  "bench.open": ["core/session-manager.js", "core/compaction/compaction.js", "core/compaction/utils.js"],
};

export default async function benchOps(context) {
  const { load, limit } = context;
  const invalid = (message) => new context.InvalidInput(message);
  const output = await load("core/tools/output-accumulator.js");
  const truncate = await load("core/tools/truncate.js");
  const sessions = await load("core/session-manager.js");
  const compaction = await load("core/compaction/compaction.js");
  const branchSummary = await load("core/compaction/branch-summarization.js");
  const utils = await load("core/compaction/utils.js");
  const now = () => process.hrtime.bigint();
  const since = (start) => Number(now() - start);

  function pathOf(a) {
    if (typeof a.path !== "string" || a.path === "") throw invalid("path: must be the path of a file");
    return a.path;
  }
  function readText(a) {
    try {
      return readFileSync(pathOf(a), "utf8");
    } catch (error) {
      if (error.code === "ENOENT") throw invalid(`path: no such file: ${a.path}`);
      throw error;
    }
  }

  async function stream(a) {
    const started = now();
    if (!Number.isInteger(a.chunkBytes) || a.chunkBytes < 1) throw invalid("chunkBytes: must be a positive integer");
    let fd;
    try {
      fd = openSync(pathOf(a), "r");
    } catch (error) {
      if (error.code === "ENOENT") throw invalid(`path: no such file: ${a.path}`);
      throw error;
    }
    const begin = now();
    const accumulator = new output.OutputAccumulator({ maxLines: limit(a.maxLines), maxBytes: limit(a.maxBytes) });
    let snapshot;
    try {
      for (;;) {
        const chunk = Buffer.allocUnsafe(a.chunkBytes); // the accumulator may keep it
        const read = readSync(fd, chunk, 0, a.chunkBytes, null);
        if (read === 0) break;
        accumulator.append(read === a.chunkBytes ? chunk : chunk.subarray(0, read));
      }
      accumulator.finish();
      snapshot = accumulator.snapshot({ persistIfTruncated: a.persistIfTruncated === true });
      await accumulator.closeTempFile();
    } finally {
      closeSync(fd);
    }
    const elapsedNs = since(begin);
    const answer = { content: snapshot.content, truncation: snapshot.truncation,
      persisted: snapshot.fullOutputPath !== undefined, lastLineBytes: accumulator.getLastLineBytes() };
    if (snapshot.fullOutputPath !== undefined) answer.persistedPath = snapshot.fullOutputPath;
    return { answer, elapsedNs, requestNs: since(started) };
  }

  function truncateFile(a) {
    const started = now();
    const run = { head: truncate.truncateHead, tail: truncate.truncateTail }[a.side];
    if (!run) throw invalid("side: must be head or tail");
    const text = readText(a);
    const options = { maxLines: limit(a.maxLines), maxBytes: limit(a.maxBytes) };
    const begin = now();
    const answer = run(text, options);
    const elapsedNs = since(begin);
    return { answer, elapsedNs, requestNs: since(started) };
  }

  // each helper: untimed preparation, then the one timed call, then its answer's wire shape
  const fileOps = (ops) => ({ read: [...ops.read], written: [...ops.written], edited: [...ops.edited] });
  const preparation = (prep) => (prep ? { ...prep, previousSummary: prep.previousSummary ?? null,
    fileOps: fileOps(prep.fileOps), ...utils.computeFileLists(prep.fileOps) } : null);
  const settingsOf = (a) => ({ ...compaction.DEFAULT_COMPACTION_SETTINGS, ...(a.settings ?? {}) });
  function managerOf(entries, a) {
    const sm = sessions.SessionManager.inMemory("/", undefined, entries);
    if ("leafId" in a) {
      if (a.leafId === null) sm.resetLeaf();
      else sm.branch(a.leafId);
    }
    return sm;
  }
  function targetOf(a) {
    if (typeof a.targetId !== "string") throw invalid(`targetId: ${a.helper} needs a targetId`);
    return a.targetId;
  }
  const prepare = {
    buildSessionContext: (entries, a) => ({
      call: () => sessions.buildSessionContext(entries, "leafId" in a ? a.leafId : undefined),
    }),
    estimateContextTokens: (entries, a) => {
      // the messages of the leaf's context, built before the clock starts
      const { messages } = sessions.buildSessionContext(entries, "leafId" in a ? a.leafId : undefined);
      return { call: () => compaction.estimateContextTokens(messages) };
    },
    findCutPoint: (entries, a) => ({
      call: () => compaction.findCutPoint(entries, 0, entries.length,
        a.keepRecentTokens ?? compaction.DEFAULT_COMPACTION_SETTINGS.keepRecentTokens),
    }),
    prepareCompaction: (entries, a) => {
      const settings = settingsOf(a);
      return { call: () => compaction.prepareCompaction(entries, settings), wire: preparation };
    },
    collectEntriesForBranchSummary: (entries, a) => {
      const target = targetOf(a);
      const sm = sessions.SessionManager.inMemory("/", undefined, entries);
      const old = "leafId" in a ? a.leafId : null;
      return { call: () => branchSummary.collectEntriesForBranchSummary(sm, old, target) };
    },
    navigation: async (entries, a) => {
      const target = targetOf(a);
      const sm = managerOf(entries, a);
      const model = { id: "scripted", provider: "scripted", api: "scripted", reasoning: false,
        contextWindow: 0, maxTokens: 0 };
      const streamFn = async () => {
        throw new Error("navigation without a summary calls no model");
      };
      const host = await hostSession(load, { settings: {}, model, streamFn, sessionManager: sm });
      return {
        call: () => host.session.navigateTree(target, { summarize: false }),
        wire: (result) => {
          const out = { cancelled: result.cancelled };
          if (result.editorText !== undefined) out.editorText = result.editorText;
          out.leafId = sm.getLeafId();
          return out;
        },
        close: host.close,
      };
    },
  };

  async function session(a) {
    const started = now();
    if (!HELPERS.includes(a.helper)) throw invalid(`helper: must be one of ${HELPERS.join(", ")}`);
    const entries = sessions.parseSessionEntries(readText(a));
    const helper = await prepare[a.helper](entries, a);
    try {
      const begin = now();
      const value = await helper.call();
      const elapsedNs = since(begin);
      const answer = helper.wire ? helper.wire(value) : value;
      return { answer, elapsedNs, requestNs: since(started) };
    } finally {
      helper.close?.();
    }
  }

  function openSession(a) {
    const started = now();
    if (!OPEN_HELPERS.includes(a.helper)) throw invalid(`helper: must be one of ${OPEN_HELPERS.join(", ")}`);
    const path = pathOf(a);
    if (!existsSync(path)) throw invalid(`path: no such file: ${path}`);
    const settings = settingsOf(a);
    const begin = now();
    const sm = sessions.SessionManager.open(path);
    if ("leafId" in a) {
      if (a.leafId === null) sm.resetLeaf();
      else sm.branch(a.leafId);
    }
    const value = a.helper === "buildSessionContext" ? sm.buildSessionContext()
      : compaction.prepareCompaction(sm.getBranch(), settings);
    const elapsedNs = since(begin);
    const answer = a.helper === "buildSessionContext" ? value : preparation(value);
    return { answer, elapsedNs, requestNs: since(started) };
  }

  return { "bench.stream": stream, "bench.truncate": truncateFile, "bench.session": session,
    "bench.open": openSession };
}
