// agent.compaction and agent.summary: Gemini CLI's chat compression, with a scripted model.
//
// Both run `ChatCompressionService.compress(chat, promptId, force = false, model, config,
// hasFailedCompressionAttempt = false)` (context/chatCompressionService.js, deep import),
// the call `GeminiClient.tryCompressChat` makes before each turn of a fresh session
// (core/client.js). Its pieces are the agent's own:
//
// - the chat is a real `GeminiChat(config, "", [], history)` (core/geminiChat.js); with no
//   `usage` its prompt count is its own estimate of the history (the constructor's
//   `estimateTokenCountSync`), with one it is the provider's count, set on the chat's
//   `lastPromptTokenCount` as the chat does on a response's `usageMetadata`;
// - the model comes from the window: Gemini CLI has no window setting, `tokenLimit(model)`
//   gives 1,048,576 (every Gemini model, the default `gemini-2.5-pro`) or 256,000 (Gemma 4,
//   `gemma-4-31b-it`); another window is unsupported;
// - the model's replies come from a scripted content generator behind core's own
//   `BaseLlmClient` (which the Config makes as `new BaseLlmClient(contentGenerator, config)`,
//   config/config.js `getBaseLlmClient`): it answers the summary call and the verification
//   call with the same text, and `stopReason: "length"` gives the candidate
//   `finishReason: "MAX_TOKENS"`. Nothing reaches the network.
//
// Messages become Contents one for one: user -> role "user" text; assistant -> role
// "model" text (with `toolCall`, a `run_shell_command` functionCall whose `command` is the
// text); tool -> role "user" functionResponse {output: text} of the call before it. The
// chat joins consecutive Contents of one role (`coalesceConsecutiveRoles` in its
// `getHistory`): a user message right after a tool result shares its Content. The new
// history is the summary, the model's acknowledgement, then the kept Contents, whose parts
// are the ones given: the first kept message is the one that gave the first kept part
// (none kept: `messages.length`).
//
// agent.compaction scripts a short summary, so that the trigger and the split decide;
// `compact` is true when the history was replaced (status COMPRESSED). agent.summary
// scripts the case's summary; `accepted` is true when the history was replaced by it. An
// empty summary makes BaseLlmClient retry the model with backoff (5 attempts, from 5 s),
// longer than a request may take: unsupported.
//
// bench.agent_compaction runs agent.compaction's drive and times only
// `ChatCompressionService.compress(...)`: the decision (the trigger, over the chat's
// token count) and, when it compacts, the split, the scripted model's two calls and the
// new history. Building the Contents, the Config, the scripted client and the GeminiChat
// holding the history (its constructor's token estimate included: a session keeps its
// chat and its count from turn to turn) is the history put in place: not timed.
import { measured, untimed } from "../../kit/bench.mjs";
import { materialize, realPath, removeTree } from "../../kit/tree.mjs";
import { cliConfig, recordTrust, useHome } from "../workspace.mjs";

const SCRIPTED_SUMMARY = "<state_snapshot>scripted summary</state_snapshot>";
const ROLES = new Set(["user", "assistant", "tool"]);

export default async function compaction({ core, load, ownTmp, InvalidInput, Unsupported }) {
  const { ChatCompressionService } = await load("context/chatCompressionService.js");
  const windows = new Map([
    [core.tokenLimit(core.DEFAULT_GEMINI_MODEL), core.DEFAULT_GEMINI_MODEL],
    [core.tokenLimit(core.GEMMA_4_31B_IT_MODEL), core.GEMMA_4_31B_IT_MODEL],
  ]);

  function contents(messages) {
    if (!Array.isArray(messages)) throw new InvalidInput("messages: a list is needed");
    let call = 0;
    return messages.map((m, i) => {
      if (!m || !ROLES.has(m.role) || typeof m.text !== "string") {
        throw new InvalidInput(`messages[${i}]: needs role user|assistant|tool and a text`, "messages");
      }
      if (m.role === "user") return { role: "user", parts: [{ text: m.text }] };
      if (m.role === "assistant" && !m.toolCall) return { role: "model", parts: [{ text: m.text }] };
      if (m.role === "assistant") {
        call += 1;
        return { role: "model", parts: [{ functionCall: { id: `call-${call}`, name: core.SHELL_TOOL_NAME, args: { command: m.text } } }] };
      }
      if (i === 0 || !messages[i - 1].toolCall) {
        throw new InvalidInput(`messages[${i}]: a tool result follows the assistant message that calls it`, "messages");
      }
      return { role: "user", parts: [{ functionResponse: { id: `call-${call}`, name: core.SHELL_TOOL_NAME, response: { output: m.text } } }] };
    });
  }

  const modelFor = (window) => {
    if (typeof window !== "number") throw new InvalidInput("window: a number is needed");
    const model = windows.get(window);
    if (!model) {
      throw new Unsupported(`window: Gemini CLI takes its window from the model name: ${[...windows.keys()].join(" or ")}, not ${window}`);
    }
    return model;
  };

  // the content generator the model would be: every call answers `text`
  const scripted = (text, stopReason) => {
    const finishReason = stopReason === "length" ? "MAX_TOKENS" : "STOP";
    const response = () => ({ candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason, index: 0 }] });
    return {
      generateContent: async () => response(),
      generateContentStream: async function* () {
        yield response();
      },
      countTokens: async () => {
        throw new Error("the scripted model counts no tokens");
      },
      embedContent: async () => {
        throw new Error("the scripted model embeds nothing");
      },
    };
  };

  async function compress(a, summary, stopReason, timed = untimed) {
    const model = modelFor(a.window);
    const history = contents(a.messages);
    const owner = new Map(history.flatMap((content, index) => content.parts.map((part) => [part, index])));
    const usage = a.usage ?? null;
    if (usage !== null && typeof usage !== "number") throw new InvalidInput("usage: a number or null is needed");
    const root = materialize({ "home/user/": {}, "work/": {} });
    try {
      useHome(realPath(root, "/home/user"));
      const cwd = realPath(root, "/work");
      recordTrust(core, ownTmp, cwd, null);
      const config = await cliConfig(core, { cwd, trustedFolder: false, model });
      const client = new core.BaseLlmClient(scripted(summary, stopReason), config);
      config.getBaseLlmClient = () => client;
      const chat = new core.GeminiChat(config, "", [], history);
      if (usage !== null) chat.lastPromptTokenCount = usage;
      const service = new ChatCompressionService();
      const { newHistory, info } = await timed(() => service.compress(chat, "ctxspec-prompt", false, model, config, false));
      if (process.env.CTXSPEC_DEBUG) process.stderr.write(`compression: ${JSON.stringify(info)}\n`);
      const compressed = info.compressionStatus === core.CompressionStatus.COMPRESSED && newHistory != null;
      if (!compressed) return { compressed, keep: null };
      const kept = newHistory.slice(2);
      const keep = kept.length === 0 ? history.length : owner.get(kept[0].parts?.[0]);
      if (keep === undefined) throw new Error("the compressed history keeps a part no message gave");
      return { compressed, keep };
    } finally {
      removeTree(root);
    }
  }

  async function compaction(a, timed) {
    const { compressed, keep } = await compress(a, SCRIPTED_SUMMARY, "stop", timed);
    return { compact: compressed, keep };
  }

  return {
    "agent.compaction": (a) => compaction(a, untimed),
    "bench.agent_compaction": (a) => measured((timed) => compaction(a, timed)),
    "agent.summary": async (a) => {
      if (typeof a.summary !== "string") throw new InvalidInput("summary: a string is needed");
      if (a.stopReason !== "stop" && a.stopReason !== "length") throw new InvalidInput("stopReason: stop or length");
      if (a.summary.trim() === "") {
        throw new Unsupported("summary: an empty summary makes Gemini CLI retry the model with backoff (5 attempts from 5 s)");
      }
      const { compressed } = await compress(a, a.summary, a.stopReason);
      return { accepted: compressed };
    },
  };
}
