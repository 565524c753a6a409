// ctxspec protocol v1 for the fork oh-my-pi (@oh-my-pi/pi-coding-agent), run on Bun.
//
// Usage: bun adapter.mjs <path to node_modules/@oh-my-pi/pi-coding-agent>
// Every op calls the fork's own modules (its TypeScript sources, which Bun runs): this
// script only moves arguments and results between the wire and them, and implements no
// rule. What the fork answers differently from Pi 0.85.0 is a finding for its
// expectations file, never something to fix here. Where the fork's API moved a Pi
// function, the op calls the fork's own replacement the way the fork's legacy Pi shim
// (src/extensibility/legacy-pi-coding-agent-shim.ts) does: `estimateTokens(message)` is
// `new Tokenizer().countMessage(message)`, `findCutPoint(entries, ...)` takes that
// model-agnostic Tokenizer, `formatSize` is pi-tui's `formatBytes`.
//
// Ops are grouped by the modules they need; a group whose modules do not load (the
// install's stand-in siblings lack an export the fork imports) is left out of hello, and
// its ops are reported unsupported. Set CTXSPEC_DEBUG to see why a group was left out.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
// the protocol loop, its errors and the tree code every Node/Bun adapter shares
import { InvalidInput, Unsupported } from "../kit/errors.mjs";
import { serve } from "../kit/serve.mjs";
import { guardedIndex } from "../kit/sessions.mjs";

const packageDir = process.argv[2];
if (!packageDir || !existsSync(join(packageDir, "package.json"))) {
  process.stderr.write("usage: bun adapter.mjs <@oh-my-pi/pi-coding-agent package dir>\n");
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));

// "src/..." is a file of the fork's package, anything else a package specifier resolved
// from it (the fork's siblings, by their exports)
const load = (spec) => import(spec.startsWith("src/") ? join(packageDir, spec) : Bun.resolveSync(spec, packageDir));

// a limit that is null or absent takes the fork's default: pass undefined, as a caller would
const limit = (value) => (value === null ? undefined : value);

const PI_SETTINGS = ["enabled", "reserveTokens", "keepRecentTokens"];
const setsAsArrays = (ops) => ({ read: [...(ops?.read ?? [])], written: [...(ops?.written ?? [])], edited: [...(ops?.edited ?? [])] });

// the wire's `entries | jsonl`: this install cannot parse a session file (the fork's
// session-loader does not load), so a case given as jsonl is beyond what it can answer
function entriesOf(a) {
  if (a.jsonl !== undefined) throw new Unsupported("jsonl: the fork's session loader is not available in this install");
  return a.entries;
}

// The scripted model of branch.summarize / compaction.compact: a `completeImpl`, the
// fork's own transport override for its summarization calls, answers with args.model's
// reply and records what it was sent. The fork sends the system prompt as a list of parts;
// a request shows them joined by a blank line (there is one part in every call it makes).
const usageZero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const systemText = (prompt) => (Array.isArray(prompt) ? prompt.join("\n\n") : prompt);
function scriptedModel(a) {
  return { id: "scripted", name: "scripted", provider: "scripted", api: "scripted", reasoning: a.model?.reasoning ?? false,
    input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: a.model?.contextWindow ?? 0, maxTokens: a.model?.maxTokens ?? 0 };
}
function scriptedReply(model, reply) {
  const message = { role: "assistant", content: reply.content ?? [{ type: "text", text: reply.text ?? "" }],
    stopReason: reply.stopReason ?? "stop", usage: reply.usage ?? usageZero, timestamp: 0,
    api: model.api, provider: model.provider, model: model.id };
  if (reply.errorMessage !== undefined) message.errorMessage = reply.errorMessage;
  return message;
}
const requestOf = (ctx, options) => ({ systemPrompt: systemText(ctx.systemPrompt),
  prompt: ctx.messages?.[0]?.content?.[0]?.text, maxTokens: options?.maxTokens ?? null });

const groups = {
  // pi-tui's tools/streaming-output (the fork's truncate.ts) and render-utils
  async truncation() {
    const so = await load("@oh-my-pi/pi-tui/tools/streaming-output");
    const { formatBytes } = await load("@oh-my-pi/pi-tui/render/render-utils");
    // The fork's TruncationResult leaves out what Pi always sets: `truncated`,
    // `truncatedBy`, `outputLines/Bytes`, `lastLinePartial`, `firstLineExceedsLimit` on
    // an untouched result (its content is the input), and it never echoes the limits.
    // Absent flags are false/null, the output counts of an untouched result are its
    // totals, and the limits shown are the ones the fork applied (its defaults if none).
    const shape = (r, a) => ({
      content: r.content,
      truncated: r.truncated ?? false,
      truncatedBy: r.truncatedBy ?? null,
      totalLines: r.totalLines,
      totalBytes: r.totalBytes,
      outputLines: r.outputLines ?? r.totalLines,
      outputBytes: r.outputBytes ?? r.totalBytes,
      lastLinePartial: r.lastLinePartial ?? false,
      firstLineExceedsLimit: r.firstLineExceedsLimit ?? false,
      maxLines: limit(a.maxLines) ?? so.DEFAULT_MAX_LINES,
      maxBytes: limit(a.maxBytes) ?? so.DEFAULT_MAX_BYTES,
    });
    const limits = (a) => ({ maxLines: limit(a.maxLines), maxBytes: limit(a.maxBytes) });
    return {
      "truncate.head": (a) => shape(so.truncateHead(a.content, limits(a)), a),
      "truncate.tail": (a) => shape(so.truncateTail(a.content, limits(a)), a),
      "truncate.line": (a) => so.truncateLine(a.line, limit(a.maxChars)),
      "format.size": (a) => formatBytes(a.bytes),
    };
  },

  // pi-agent-core's compaction (the fork's core/compaction) and tokenizer
  async compaction() {
    const compaction = await load("@oh-my-pi/pi-agent-core/compaction");
    const { Tokenizer } = await load("@oh-my-pi/pi-agent-core/tokenizer");
    // a request without a cache retention takes the one the fork's providers resolve it to
    const { resolveCacheRetention } = await load("@oh-my-pi/pi-ai/utils");
    const tokenizer = new Tokenizer();
    const settingsOf = (a) => ({ ...compaction.DEFAULT_COMPACTION_SETTINGS, ...(a.settings ?? {}) });
    return {
      "tokens.estimate": (a) => tokenizer.countMessage(a.message),
      "compaction.should": (a) => {
        // Pi's estimateContextTokens has no counterpart in the fork
        if ("messages" in a) throw new Unsupported("messages: the fork has no estimateContextTokens");
        return { shouldCompact: compaction.shouldCompact(a.contextTokens, a.contextWindow, settingsOf(a)), contextTokens: a.contextTokens };
      },
      "compaction.cut_point": (a) => {
        const entries = entriesOf(a);
        return compaction.findCutPoint(entries, tokenizer, a.startIndex ?? 0, a.endIndex ?? entries.length, a.keepRecentTokens);
      },
      "compaction.prepare": (a) => {
        const prep = compaction.prepareCompaction(entriesOf(a), settingsOf(a));
        if (!prep) return null;
        const lists = compaction.computeFileLists(prep.fileOps);
        return {
          firstKeptEntryId: prep.firstKeptEntryId,
          messagesToSummarize: prep.messagesToSummarize,
          turnPrefixMessages: prep.turnPrefixMessages,
          isSplitTurn: prep.isSplitTurn,
          tokensBefore: prep.tokensBefore,
          previousSummary: prep.previousSummary ?? null,
          fileOps: setsAsArrays(prep.fileOps),
          readFiles: lists.readFiles,
          modifiedFiles: lists.modifiedFiles,
          // the settings Pi's preparation carries; the fork's own keys (strategy, ...) are left out
          settings: Object.fromEntries(PI_SETTINGS.filter((k) => k in prep.settings).map((k) => [k, prep.settings[k]])),
        };
      },
      "compaction.serialize": (a) => compaction.serializeConversation(a.messages),
      "branch.summarize": async (a) => {
        const model = scriptedModel(a);
        const seen = [];
        const completeImpl = async (_model, ctx, options) => {
          seen.push(requestOf(ctx, options));
          if (!a.model?.reply) throw new InvalidInput("model.reply: a summary request needs a scripted reply");
          return scriptedReply(model, a.model.reply);
        };
        // the fork has no replaceInstructions: its customInstructions always replace the prompt
        const result = await compaction.generateBranchSummary(entriesOf(a), {
          model, apiKey: "scripted", signal: new AbortController().signal, completeImpl,
          reserveTokens: a.reserveTokens, customInstructions: a.customInstructions,
        });
        return { result, request: seen[0] ?? null };
      },
      // compact() after prepareCompaction; the scripted replies are taken in call order,
      // history first (model.reply) then the turn prefix (model.turnPrefixReply), as for Pi
      "compaction.compact": async (a) => {
        const prep = compaction.prepareCompaction(entriesOf(a), settingsOf(a));
        if (!prep) return { result: null, requests: [] };
        const split = prep.isSplitTurn && prep.turnPrefixMessages.length > 0;
        const order = split ? [...(prep.messagesToSummarize.length > 0 ? ["reply"] : []), "turnPrefixReply"] : ["reply"];
        const model = scriptedModel(a);
        const requests = [];
        const completeImpl = async (_model, ctx, options) => {
          const key = order[requests.length];
          requests.push({ ...requestOf(ctx, options), reasoning: options?.reasoning ?? null,
            cacheRetention: resolveCacheRetention(options?.cacheRetention) });
          if (key === undefined) {
            throw new InvalidInput(`model: the fork makes summary call ${requests.length}, the case scripts ${order.length}`);
          }
          const reply = a.model?.[key];
          if (!reply) throw new InvalidInput(`model.${key}: this summary request needs a scripted reply`);
          return scriptedReply(model, reply);
        };
        try {
          const result = await compaction.compact(prep, model, "scripted", a.customInstructions,
            new AbortController().signal, { completeImpl, thinkingLevel: a.thinkingLevel, oneshotRetry: false });
          const out = {};
          for (const key of ["summary", "firstKeptEntryId", "tokensBefore", "usage", "details"]) {
            if (result[key] !== undefined) out[key] = result[key];
          }
          return { result: out, requests };
        } catch (error) {
          if (error instanceof InvalidInput) throw error;
          return { error: String(error?.message ?? error), requests };
        }
      },
      "branch.prepare": (a) => {
        const prep = compaction.prepareBranchEntries(entriesOf(a), tokenizer, a.tokenBudget ?? 0);
        return { messages: prep.messages, fileOps: setsAsArrays(prep.fileOps), totalTokens: prep.totalTokens };
      },
    };
  },

  // the fork's own session-context.ts: buildSessionContext
  async sessionContext() {
    const { buildSessionContext } = await load("src/session/session-context.ts");
    return {
      "session.context": (a) => {
        const entries = entriesOf(a);
        const leafId = "leafId" in a ? a.leafId : undefined;
        const context = buildSessionContext(entries, leafId, guardedIndex(entries, "the fork's", { holes: true }));
        // the fork keeps the model as models.default = "provider/modelId" (Pi: model =
        // {provider, modelId} or null)
        const chosen = context.models?.default;
        const slash = typeof chosen === "string" ? chosen.indexOf("/") : -1;
        const model = slash > 0 ? { provider: chosen.slice(0, slash), modelId: chosen.slice(slash + 1) } : null;
        const out = { messages: context.messages };
        if (context.thinkingLevel !== undefined) out.thinkingLevel = context.thinkingLevel;
        out.model = model;
        return out;
      },
    };
  },

  // the fork's own session/messages.ts: convertToLlm
  async messages() {
    const { convertToLlm } = await load("src/session/messages.ts");
    // the fork marks each LLM message with keys of its own provider layer (`attribution`:
    // who wrote it, `historyRewriteAt`): Pi's Message has neither, so they are left out
    const piMessage = (m) => {
      const { attribution, historyRewriteAt, ...rest } = m;
      return rest;
    };
    return { "messages.convert": (a) => convertToLlm(a.messages).map(piMessage) };
  },
};

const handlers = {};
for (const [name, make] of Object.entries(groups)) {
  try {
    Object.assign(handlers, await make());
  } catch (error) {
    if (process.env.CTXSPEC_DEBUG) process.stderr.write(`group ${name} left out: ${error?.stack ?? error}\n`);
  }
}

await serve(handlers, { name: "oh-my-pi", version: pkg.version, language: `bun ${Bun.version}` });
