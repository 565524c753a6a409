// tokens.*, context.estimate, compaction.*, session.*, branch.*, messages.convert:
// Pi's core/compaction/{compaction,branch-summarization,utils}.js, core/session-manager.js,
// core/messages.js and AgentSession.navigateTree (host.mjs). The scripted model of
// branch.summarize / session.navigate is args.model = {contextWindow?, maxTokens?,
// reply: {text | content, stopReason?, usage?, errorMessage?}}: a streamFn answers with it.
import { modelRequest } from "../shims.mjs";
import { hostSession } from "../host.mjs";
import { inMemoryManager } from "../migrated.mjs";
import { guardedIndex, sessionArgs } from "../../kit/sessions.mjs";
export default async function sessionOps(context) {
  const { load } = context;
  const invalid = (message) => new context.InvalidInput(message);
  const compaction = await load("core/compaction/compaction.js");
  const branchSummary = await load("core/compaction/branch-summarization.js");
  const utils = await load("core/compaction/utils.js");
  const sessions = await load("core/session-manager.js");
  const messages = await load("core/messages.js");

  const fileOps = (ops) => ({ read: [...ops.read], written: [...ops.written], edited: [...ops.edited] });
  const { entriesOf, leafOf } = sessionArgs((text) => sessions.parseSessionEntries(text));
  const settingsOf = (a) => ({ ...compaction.DEFAULT_COMPACTION_SETTINGS, ...(a.settings ?? {}) });

  const usageZero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  function scripted(a, seen) {
    const model = { id: "scripted", provider: "scripted", api: "scripted", reasoning: false,
      contextWindow: a.model?.contextWindow ?? 0, maxTokens: a.model?.maxTokens ?? 0 };
    const streamFn = async (_model, ctx, opts) => {
      const request = modelRequest(ctx);
      const sent = { systemPrompt: request.systemPrompt, prompt: request.messages[0].content[0].text, maxTokens: opts.maxTokens ?? null };
      // `extended` (protocol 1.2): the request's cache retention too
      if (a.extended === true) sent.cacheRetention = opts.cacheRetention ?? null;
      seen.push(sent);
      const reply = a.model?.reply;
      if (!reply) throw invalid("model.reply: a summary request needs a scripted reply");
      const message = { role: "assistant", content: reply.content ?? [{ type: "text", text: reply.text ?? "" }],
        stopReason: reply.stopReason ?? "stop", usage: reply.usage ?? usageZero, timestamp: 0,
        api: model.api, provider: model.provider, model: model.id };
      if (reply.errorMessage !== undefined) message.errorMessage = reply.errorMessage;
      return { result: async () => message };
    };
    return { model, streamFn };
  }

  // an unknown leafId or targetId is input outside the op's domain (PROTOCOL.md), asked of
  // Pi's own index (a session header is not in it); Pi's branch() would throw
  function sessionManager(entries, a) {
    const sm = inMemoryManager(sessions, "/", structuredClone(entries));
    if ("leafId" in a) {
      if (a.leafId === null) sm.resetLeaf();
      else if (sm.getEntry(a.leafId) === undefined) throw invalid(`leafId: Entry ${a.leafId} not found`);
      else sm.branch(a.leafId);
    }
    return sm;
  }

  async function navigate(a) {
    const entries = entriesOf(a);
    const sm = sessionManager(entries, a);
    if (sm.getEntry(a.targetId) === undefined) throw invalid(`targetId: Entry ${a.targetId} not found`);
    const before = new Set(sm.getEntries().map((e) => e.id));
    const seen = [];
    const { model, streamFn } = scripted(a, seen);
    const { session, close } = await hostSession(load, {
      settings: { branchSummary: { reserveTokens: a.reserveTokens ?? 16384 } }, model, streamFn, sessionManager: sm,
    });
    const oldLeaf = sm.getLeafId();
    let result;
    try {
      result = await session.navigateTree(a.targetId, {
        summarize: a.summarize, customInstructions: a.customInstructions,
        replaceInstructions: a.replaceInstructions, label: a.label,
      });
    } catch (error) {
      if (error instanceof context.InvalidInput) throw error;
      const appended = sm.getEntries().filter((e) => !before.has(e.id));
      return { error: String(error.message), leafId: oldLeaf, appended, request: seen[0] ?? null };
    } finally {
      close();
    }
    // Pi draws random ids and reads the clock: name new entries new-1, new-2, ... and give
    // them the request's timestamp, then ask Pi for the context of the renamed session
    const renamed = new Map();
    for (const e of sm.getEntries()) if (!before.has(e.id)) renamed.set(e.id, `new-${renamed.size + 1}`);
    const rename = (id) => (renamed.has(id) ? renamed.get(id) : id);
    const all = sm.getEntries().map((e) => {
      if (before.has(e.id)) return e;
      const copy = { ...e, id: rename(e.id), parentId: rename(e.parentId), timestamp: a.timestamp };
      if ("targetId" in copy) copy.targetId = rename(copy.targetId);
      if ("fromId" in copy) copy.fromId = rename(copy.fromId);
      return copy;
    });
    const leafId = rename(sm.getLeafId());
    const out = { cancelled: result.cancelled };
    if (result.aborted) out.aborted = true;
    if (result.editorText !== undefined) out.editorText = result.editorText;
    if (result.summaryEntry) out.summaryEntry = all.find((e) => e.id === rename(result.summaryEntry.id));
    out.leafId = leafId;
    out.appended = all.filter((_, i) => !before.has(sm.getEntries()[i].id));
    out.context = sessions.buildSessionContext(all, leafId);
    out.request = seen[0] ?? null;
    return out;
  }

  // compaction.compact: prepareCompaction then compact(); the scripted replies are taken in
  // call order, history first (model.reply) then the turn prefix (model.turnPrefixReply)
  async function compactOp(a) {
    const prep = compaction.prepareCompaction(entriesOf(a), settingsOf(a));
    if (!prep) return { result: null, requests: [] };
    const split = prep.isSplitTurn && prep.turnPrefixMessages.length > 0;
    const order = split ? [...(prep.messagesToSummarize.length > 0 ? ["reply"] : []), "turnPrefixReply"] : ["reply"];
    const requests = [];
    const model = { id: "scripted", provider: "scripted", api: "scripted", reasoning: a.model?.reasoning ?? false,
      contextWindow: a.model?.contextWindow ?? 0, maxTokens: a.model?.maxTokens ?? 0 };
    const streamFn = async (_model, ctx, opts) => {
      const key = order[requests.length];
      const request = modelRequest(ctx);
      requests.push({ systemPrompt: request.systemPrompt, prompt: request.messages[0].content[0].text,
        maxTokens: opts.maxTokens ?? null, reasoning: opts.reasoning ?? null, cacheRetention: opts.cacheRetention });
      const reply = a.model?.[key];
      if (!reply) throw invalid(`model.${key}: this summary request needs a scripted reply`);
      const message = { role: "assistant", content: reply.content ?? [{ type: "text", text: reply.text ?? "" }],
        stopReason: reply.stopReason ?? "stop", usage: reply.usage ?? usageZero, timestamp: 0,
        api: model.api, provider: model.provider, model: model.id };
      if (reply.errorMessage !== undefined) message.errorMessage = reply.errorMessage;
      return { result: async () => message };
    };
    try {
      const result = await compaction.compact(prep, model, undefined, undefined, a.customInstructions,
        new AbortController().signal, a.thinkingLevel, streamFn);
      return { result, requests };
    } catch (error) {
      if (error instanceof context.InvalidInput) throw error;
      return { error: String(error.message), requests };
    }
  }

  return {
    "compaction.compact": compactOp,
    "tokens.estimate": (a) => compaction.estimateTokens(a.message),
    "context.estimate": (a) => compaction.estimateContextTokens(a.messages),
    "compaction.should": (a) => {
      const tokens = "messages" in a ? compaction.estimateContextTokens(a.messages).tokens : a.contextTokens;
      return { shouldCompact: compaction.shouldCompact(tokens, a.contextWindow, settingsOf(a)), contextTokens: tokens };
    },
    "compaction.cut_point": (a) => {
      const entries = entriesOf(a);
      return compaction.findCutPoint(entries, a.startIndex ?? 0, a.endIndex ?? entries.length, a.keepRecentTokens);
    },
    "compaction.prepare": (a) => {
      const prep = compaction.prepareCompaction(entriesOf(a), settingsOf(a));
      if (!prep) return null;
      return { ...prep, previousSummary: prep.previousSummary ?? null, fileOps: fileOps(prep.fileOps),
        ...utils.computeFileLists(prep.fileOps) };
    },
    "compaction.serialize": (a) => utils.serializeConversation(a.messages),
    "compaction.failure": (a) => compaction.getSummarizationFailure(a.response, a.label) ?? null,
    "session.parse": (a) => ({ entries: sessions.parseSessionEntries(a.jsonl) }),
    "session.context": (a) => {
      const entries = entriesOf(a);
      return sessions.buildSessionContext(entries, leafOf(a), guardedIndex(entries));
    },
    "branch.collect": (a) => {
      const sm = inMemoryManager(sessions, "/", structuredClone(entriesOf(a)));
      return branchSummary.collectEntriesForBranchSummary(sm, a.oldLeafId ?? null, a.targetId);
    },
    "branch.prepare": (a) => {
      const prep = branchSummary.prepareBranchEntries(entriesOf(a), a.tokenBudget ?? 0);
      return { ...prep, fileOps: fileOps(prep.fileOps) };
    },
    "branch.summarize": async (a) => {
      const seen = [];
      const { model, streamFn } = scripted(a, seen);
      const result = await branchSummary.generateBranchSummary(entriesOf(a), {
        model, signal: new AbortController().signal, streamFn, reserveTokens: a.reserveTokens,
        customInstructions: a.customInstructions, replaceInstructions: a.replaceInstructions,
      });
      return { result, request: seen[0] ?? null };
    },
    "session.navigate": navigate,
    "messages.convert": (a) => messages.convertToLlm(a.messages),
  };
}
