// session.run: a whole agent run in Pi's real AgentSession (createAgentSession on an
// in-memory session), to see where it checks for compaction: before each further model
// call inside a run, after the run, before a new prompt.
//
// The model is scripted: args.replies answers the agent's calls in order, and
// args.summaryReplies the summary calls (told apart by Pi's summarization system
// prompt). Every tool named in a reply is a custom tool whose result is
// args.toolResults[toolCallId] = {text, isError?} (isError: execute throws that text).
// Pi stamps messages and entries with the clock and compares those stamps (an
// assistant message not newer than the latest compaction is skipped), so the run gets
// a clock that moves one millisecond per reading, starting after every stamp in the
// case's entries. New entries are then named new-1, new-2, ... and given the request's
// timestamp (their messages its epoch milliseconds).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { modelRequest, typeBuilder } from "../shims.mjs";
import { inMemoryManager } from "../migrated.mjs";

export default async function runOps(context) {
  const { load, packageDir } = context;
  const invalid = (message) => new context.InvalidInput(message);
  const { createAgentSession } = await load("core/sdk.js");
  const sessions = await load("core/session-manager.js");
  const { SettingsManager } = await load("core/settings-manager.js");
  const { DefaultResourceLoader } = await load("core/resource-loader.js");
  const { SUMMARIZATION_SYSTEM_PROMPT } = await load("core/compaction/utils.js");
  const ai = await import(pathToFileURL(join(packageDir, "..", "pi-ai", "dist", "index.js")).href);
  const Type = await typeBuilder(packageDir, ai);

  const usageZero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

  function stampsOf(entries) {
    const stamps = [];
    for (const e of entries) {
      const t = Date.parse(e?.timestamp);
      if (!Number.isNaN(t)) stamps.push(t);
      if (typeof e?.message?.timestamp === "number") stamps.push(e.message.timestamp);
    }
    return stamps;
  }

  // Date with a clock that moves 1 ms per reading: installed for the run only
  function steppingDate(start) {
    const RealDate = Date;
    let now = start;
    class SteppingDate extends RealDate {
      constructor(...args) {
        if (args.length === 0) super(now++);
        else super(...args);
      }
      static now() {
        return now++;
      }
    }
    return { RealDate, SteppingDate };
  }

  function toolsOf(a) {
    const names = new Set();
    for (const reply of a.replies ?? []) {
      for (const block of reply.content ?? []) if (block?.type === "toolCall") names.add(block.name);
    }
    return [...names].map((name) => ({
      name, label: name, description: `scripted tool ${name}`,
      parameters: Type.Object({}, { additionalProperties: true }),
      execute: async (toolCallId) => {
        const scripted = a.toolResults?.[toolCallId];
        if (!scripted) throw invalid(`toolResults.${toolCallId}: the tool call needs a scripted result`);
        if (scripted.isError) throw new Error(scripted.text ?? "");
        return { content: [{ type: "text", text: scripted.text ?? "" }], details: {} };
      },
    }));
  }

  async function run(a) {
    const entries = structuredClone(a.entries ?? []);
    let before; // the ids before the run (Pi's manager may append to the given array itself)
    const stamps = stampsOf(entries);
    const start = Math.max(Date.parse("2026-01-01T00:00:00.000Z"), ...stamps.map((t) => t + 1));
    const home = mkdtempSync(join(tmpdir(), "ctxspec-run-"));
    const saved = { HOME: process.env.HOME, PI_OFFLINE: process.env.PI_OFFLINE, KEY: process.env.ANTHROPIC_API_KEY };
    const { RealDate, SteppingDate } = steppingDate(start);
    const events = [];
    const problems = [];
    let agentCalls = 0;
    let summaryCalls = 0;
    let sm;
    let failure;
    try {
      process.env.HOME = home;
      process.env.PI_OFFLINE = "1";
      process.env.ANTHROPIC_API_KEY = "dummy"; // prompt() asks for a key; nothing is sent
      globalThis.Date = SteppingDate;
      const agentDir = join(home, "agent");
      const settingsManager = SettingsManager.inMemory({
        compaction: a.settings ?? {}, retry: { enabled: false },
      });
      const resourceLoader = new DefaultResourceLoader({ cwd: home, agentDir, settingsManager,
        noExtensions: true, noSkills: true, noPromptTemplates: true, noThemes: true, noContextFiles: true });
      await resourceLoader.reload();
      const m = a.model ?? {};
      const model = { id: m.id ?? "scripted", name: m.id ?? "scripted", provider: m.provider ?? "anthropic",
        api: "anthropic-messages", reasoning: false, input: ["text"], baseUrl: "http://127.0.0.1:9",
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        contextWindow: m.contextWindow ?? 0, maxTokens: m.maxTokens ?? 0 };
      sm = inMemoryManager(sessions, home, entries);
      before = new Set(sm.getEntries().map((e) => e?.id));
      const { session } = await createAgentSession({ cwd: home, agentDir, sessionManager: sm, settingsManager,
        resourceLoader, model, customTools: toolsOf(a), noTools: "builtin" });
      session.agent.streamFunction = (requestModel, ctx) => {
        const request = modelRequest(ctx);
        const summary = request.systemPrompt === SUMMARIZATION_SYSTEM_PROMPT;
        events.push({ type: "model", kind: summary ? "summary" : "agent", roles: request.messages.map((x) => x.role) });
        const reply = summary ? a.summaryReplies?.[summaryCalls++] : a.replies?.[agentCalls++];
        if (!reply) problems.push(summary ? "summaryReplies: a summary call has no scripted reply"
          : "replies: an agent call has no scripted reply");
        const r = reply ?? { text: "", stopReason: "error", errorMessage: "no scripted reply" };
        const message = { role: "assistant", content: r.content ?? [{ type: "text", text: r.text ?? "" }],
          api: requestModel.api, provider: requestModel.provider, model: requestModel.id,
          usage: r.usage ?? usageZero, stopReason: r.stopReason ?? "stop", timestamp: Date.now() };
        if (r.errorMessage !== undefined) message.errorMessage = r.errorMessage;
        const stream = ai.createAssistantMessageEventStream();
        queueMicrotask(() => {
          stream.push({ type: "start", partial: message });
          if (message.stopReason === "error" || message.stopReason === "aborted") {
            stream.push({ type: "error", reason: message.stopReason, error: message });
          } else {
            stream.push({ type: "done", reason: message.stopReason, message });
          }
          stream.end(message);
        });
        return stream;
      };
      session.subscribe((e) => {
        if (e.type === "message_end") events.push({ type: "message", role: e.message.role });
        else if (e.type === "compaction_start") events.push({ type: "compaction_start", reason: e.reason });
        else if (e.type === "compaction_end") {
          const end = { type: "compaction_end", reason: e.reason, aborted: e.aborted, willRetry: e.willRetry };
          if (e.errorMessage !== undefined) end.errorMessage = e.errorMessage;
          if (e.result) Object.assign(end, { tokensBefore: e.result.tokensBefore, firstKeptEntryId: e.result.firstKeptEntryId });
          events.push(end);
        }
      });
      for (const text of a.prompts ?? []) {
        events.push({ type: "prompt" });
        await session.prompt(text);
      }
    } catch (error) {
      if (error instanceof context.InvalidInput) throw error;
      failure = String(error?.message ?? error);
      if (process.env.CTXSPEC_DEBUG) process.stderr.write(String(error?.stack) + "\n");
    } finally {
      globalThis.Date = RealDate;
      for (const [key, name] of [["HOME", "HOME"], ["PI_OFFLINE", "PI_OFFLINE"], ["KEY", "ANTHROPIC_API_KEY"]]) {
        if (saved[key] === undefined) delete process.env[name];
        else process.env[name] = saved[key];
      }
      rmSync(home, { recursive: true, force: true });
    }
    if (problems.length > 0) throw invalid(problems[0]);
    if (a.replies && agentCalls < a.replies.length) throw invalid(`replies: ${a.replies.length - agentCalls} scripted replies were never asked for`);
    const renamed = new Map();
    for (const e of sm.getEntries()) if (!before.has(e.id)) renamed.set(e.id, `new-${renamed.size + 1}`);
    const rename = (id) => (renamed.has(id) ? renamed.get(id) : id);
    const epoch = Date.parse(a.timestamp);
    const all = sm.getEntries().map((e) => {
      if (before.has(e.id)) return e;
      const copy = { ...e, id: rename(e.id), parentId: rename(e.parentId), timestamp: a.timestamp };
      if (copy.type === "compaction") copy.firstKeptEntryId = rename(copy.firstKeptEntryId);
      if (copy.message) copy.message = { ...copy.message, timestamp: epoch };
      return copy;
    });
    for (const event of events) if (event.firstKeptEntryId !== undefined) event.firstKeptEntryId = rename(event.firstKeptEntryId);
    const leafId = rename(sm.getLeafId());
    const fresh = new Set(renamed.values());
    const out = { events, appended: all.filter((e) => fresh.has(e.id)), leafId };
    out.context = sessions.buildSessionContext(all, leafId);
    if (failure !== undefined) out.error = failure;
    return out;
  }

  return { "session.run": run };
}
