// ctxspec protocol v1.4 for the Cline SDK (@cline/core with its @cline siblings), in-process.
//
// Usage: node adapter.mjs <path to node_modules/@cline/core>
// Every op calls the SDK's own exported functions and only moves arguments and results
// between the wire and them; no rule of the SDK is re-implemented here, and what it
// answers is never fixed. The package facts each op relies on are cited by file in
// @cline/core 0.0.86 (its dist/index.js is one bundle; the names are its .d.ts names).
//
// - agent.tool_output: one scripted turn of a real local session (session.mjs): the
//   model calls the SDK's run_commands (`cat` over a file holding `content`) or
//   read_files tool, and the answer is the tool's result in the next request, after the
//   executor's cut (truncateCommandOutput at MAX_COMMAND_OUTPUT_CHARS, or the read
//   window) and the provider-request MessageBuilder's cut (8000 characters by default).
//   `limit` is the MessageBuilder's setting (CLINE_MESSAGE_BUILDER_MAX_TOOL_RESULT_CHARS),
//   the only one a user sets; the executors' caps are constants of the default tools.
// - agent.instructions: the rules part of the system prompt of a real session started in
//   `cwd` (session.mjs): the session start loads the rules with
//   createUserInstructionConfigService({rules: {workspacePath: cwd}}) and appends
//   formatRulesForSystemPrompt's sections, sorted by name. The home is given with
//   @cline/shared/storage's setHomeDir, the call ClineCore's constructor makes
//   (setHomeDirIfUnset(os.homedir())), since the SDK reads HOME once at load. The SDK has
//   no trust store and no instruction budget (no "trust" in any of the four bundles):
//   `trust` is accepted and nothing is written; a budget is unsupported.
// - agent.compaction, agent.summary: createContextCompactionPrepareTurn with the SDK's
//   default strategy (agentic, the default of readCompactionStrategyGlobally), the
//   model given as reporting only a context window (`window`), `usage` as
//   previousRequestInputTokens. The summarizer is the SDK's own openai-compatible
//   provider whose `fetch` (EndpointConfig.fetch, "test doubles") answers in-process
//   with a scripted completion: nothing leaves the process. A session enables this only
//   when its host asks (compaction.enabled); the SDK's global setting reads "on" unless
//   compactionEnabled is false (readCompactionModeGlobally; how the Cline CLI passes it
//   on was not checked). Not a
//   session turn, because a session can neither stop mid-turn (after a tool result) nor
//   take a usage before its first request. The gap: the runtime passes the prepare-turn
//   the MessageBuilder's copy as `apiMessages`, here the messages themselves (the
//   builder is not exported); they differ only where the builder cuts (a tool result
//   over 8,000 characters). Run both ways: six 3,000-character tool results, window
//   5,000: both compact; six 30,000-character ones, window 30,000: this op compacts,
//   the session does not (it counts the results cut to 8,000).
// - bench.agent_tool_output, bench.agent_instructions, bench.agent_compaction: the same
//   drives, with the output from the file `path` (hard-linked where the tool reads it)
//   and the time of the agent's own calls alone (kit/bench.mjs): the session turn
//   (`host.start`, session.mjs) for the tool output and the rules, the prepare-turn call
//   (the function createContextCompactionPrepareTurn returns) for the compaction.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { measured, placeInput, untimed, utf8Bytes } from "../kit/bench.mjs";
import { InvalidInput, Unsupported, ownTmp } from "../kit/errors.mjs";
import { serve } from "../kit/serve.mjs";
import { materialize, realPath, removeTree, virtualize } from "../kit/tree.mjs";
import { runInstructions, runTool } from "./session.mjs";

const packageDir = process.argv[2];
if (!packageDir || !existsSync(join(packageDir, "package.json"))) {
  process.stderr.write("usage: node adapter.mjs <@cline/core package dir>\n");
  process.exit(2);
}
// the AI SDK under @cline/llms logs deprecation warnings to stderr on every request
globalThis.AI_SDK_LOG_WARNINGS = false;
// paths the SDK reads from the environment at call time: none may point at the user's own;
// the sessions agent.tool_output runs keep their files in the adapter's temp dir
for (const name of ["CLINE_DIR", "OneDrive", "OneDriveConsumer", "OneDriveCommercial"]) delete process.env[name];
process.env.CLINE_DATA_DIR = join(ownTmp, "cline-data");

// the packages are ES modules whose exports map has only an "import" condition: a
// subpath is found as Node finds it (the node_modules lookup from @cline/core, then the
// package's exports entry), without require.resolve, which asks for "require"
const lookup = createRequire(join(packageDir, "package.json")).resolve.paths("@cline/shared") ?? [];
function entry(name, subpath) {
  const dir = name === "@cline/core" ? packageDir : lookup.map((base) => join(base, name)).find((d) => existsSync(join(d, "package.json")));
  if (!dir) throw new Error(`${name} is not installed beside @cline/core`);
  const exported = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).exports[subpath];
  return import(pathToFileURL(join(dir, exported.import ?? exported.default)).href);
}
const core = await entry("@cline/core", ".");
const storage = await entry("@cline/shared", "./storage");
const version = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).version;

// ---- agent.tool_output ---------------------------------------------------------------

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
let serial = 0;
// a directory of this request's own, with `output.txt` written by `place(file)`
function outputDir(place) {
  const dir = join(ownTmp, `out-${++serial}`);
  mkdirSync(dir);
  const file = join(dir, "output.txt");
  try {
    place(file);
  } catch (error) {
    removeTree(dir);
    throw error;
  }
  return { dir, file };
}

function contentFile(content) {
  if (typeof content !== "string") throw new InvalidInput("content: a string", "content");
  // a command's output and a file are bytes: a lone surrogate has no UTF-8 form, so no
  // command or file can give the SDK's tools this output
  if (LONE.test(content)) throw new Unsupported("content: a lone surrogate cannot be a command's output or a file's text");
  return outputDir((file) => writeFileSync(file, content));
}

// the tool's result text as the model gets it, over the output file `output()` makes
async function toolTurn(a, output, timed) {
  const tool = a.tool ?? "shell";
  const limit = a.limit ?? null;
  // the setting is an environment string the SDK parses itself (a value it cannot use,
  // 0 or below, is its default): any number is passed as written
  if (limit !== null && (typeof limit !== "number" || !Number.isFinite(limit))) {
    throw new InvalidInput("limit: a number (characters) or null", "limit");
  }
  if (tool !== "shell" && tool !== "read") throw new InvalidInput(`tool: 'shell' or 'read', not ${JSON.stringify(tool)}`, "tool");
  const { dir, file } = output();
  try {
    const home = join(dir, "home");
    mkdirSync(home);
    return await runTool(core, storage, { tool, file, cwd: dir, home, limit, timed });
  } finally {
    removeTree(dir);
  }
}

const toolOutput = async (a) => ({ content: await toolTurn(a, () => contentFile(a.content), untimed) });

const invalidPath = (message) => new InvalidInput(message, "path");
const benchToolOutput = (a) =>
  measured(async (timed) => {
    const content = await toolTurn(a, () => outputDir((file) => placeInput(a.path, file, invalidPath)), timed);
    return { modelBytes: utf8Bytes(content), savedBytes: null };
  });

// ---- agent.instructions --------------------------------------------------------------

async function instructionsText(a, timed) {
  if (a.budget !== undefined && a.budget !== null) throw new Unsupported("budget: the SDK has no instruction budget setting");
  if (![undefined, null, "trusted", "untrusted"].includes(a.trust)) throw new InvalidInput("trust: 'trusted', 'untrusted' or null", "trust");
  for (const field of ["cwd", "home"]) {
    if (typeof a[field] !== "string" || !a[field].startsWith("/")) throw new InvalidInput(`${field}: a virtual absolute path`, field);
  }
  const root = materialize(a.tree);
  try {
    const home = realPath(root, a.home);
    const cwd = realPath(root, a.cwd);
    mkdirSync(home, { recursive: true });
    mkdirSync(cwd, { recursive: true });
    return virtualize(await runInstructions(core, storage, { cwd, home, timed }), root);
  } finally {
    removeTree(root);
  }
}

const instructions = async (a) => ({ text: await instructionsText(a, untimed) });
const benchInstructions = (a) => measured(async (timed) => ({ modelBytes: utf8Bytes(await instructionsText(a, timed)) }));

// ---- agent.compaction / agent.summary ------------------------------------------------

// the wire's messages as the SDK's (@cline/shared Message): a tool result is a user
// message holding a tool_result block for the assistant's tool_use just before it
function clineMessages(messages) {
  if (!Array.isArray(messages)) throw new InvalidInput("messages: a list", "messages");
  let open = null;
  return messages.map((m, i) => {
    const at = `messages[${i}]`;
    if (!m || typeof m !== "object" || typeof m.text !== "string") throw new InvalidInput(`${at}: {role, text}`, at);
    if (m.role === "tool") {
      if (open === null) throw new InvalidInput(`${at}: a tool result follows an assistant message with toolCall`, at);
      const id = open;
      open = null;
      return { role: "user", content: [{ type: "tool_result", tool_use_id: id, name: "run_commands", content: m.text }] };
    }
    if (open !== null) throw new InvalidInput(`${at}: the tool call of messages[${i - 1}] has no result`, at);
    if (m.role === "user") {
      if (m.toolCall) throw new InvalidInput(`${at}: only an assistant message calls a tool`, at);
      return { role: "user", content: [{ type: "text", text: m.text }] };
    }
    if (m.role !== "assistant") throw new InvalidInput(`${at}: role is user, assistant or tool`, at);
    const content = m.text ? [{ type: "text", text: m.text }] : [];
    if (m.toolCall) {
      open = `call_${i}`;
      content.push({ type: "tool_use", id: open, name: "run_commands", input: { commands: [] } });
    }
    return { role: "assistant", content };
  });
}

// An OpenAI chat-completions stream for the SDK's openai-compatible provider, answered
// in-process: the scripted summarizer
function scriptedFetch(reply, asked) {
  return async (url, init) => {
    asked.push(String(url));
    const base = { id: "scripted", object: "chat.completion.chunk", created: 0, model: "scripted" };
    const events = [
      { ...base, choices: [{ index: 0, delta: { role: "assistant", content: reply.text }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: reply.stopReason }], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } },
    ];
    const body = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
}

const quiet = { log() {}, debug() {}, error() {} };
async function prepareTurn(a, reply, timed = untimed) {
  if (typeof a.window !== "number" || !Number.isInteger(a.window) || a.window < 1) throw new InvalidInput("window: a positive integer (tokens)", "window");
  const usage = a.usage ?? null;
  // the SDK reads a usage that is no positive number as none: any number is passed as given
  if (usage !== null && (typeof usage !== "number" || !Number.isFinite(usage))) throw new InvalidInput("usage: a number or null", "usage");
  const messages = clineMessages(a.messages);
  const asked = [];
  const endpoint = { providerId: "openai-compatible", modelId: "scripted", apiKey: "scripted", baseUrl: "http://127.0.0.1:9/v1" };
  const prepare = core.createContextCompactionPrepareTurn({
    ...endpoint, providerConfig: { ...endpoint, fetch: scriptedFetch(reply, asked) }, compaction: { enabled: true }, logger: quiet,
  });
  const turn = {
    agentId: "ctxspec", conversationId: "ctxspec", parentAgentId: null, iteration: 1,
    messages, apiMessages: messages, abortSignal: new AbortController().signal, systemPrompt: "", tools: [],
    model: { id: "scripted", provider: "openai-compatible", info: { contextWindow: a.window } },
    previousRequestInputTokens: usage ?? undefined,
  };
  const result = await timed(() => prepare(turn));
  return { messages, result, asked };
}

// the first input message from which the result ends with the input verbatim
function keptFrom(input, output) {
  const same = (x, y) => JSON.stringify(x) === JSON.stringify(y);
  let k = input.length;
  while (k > 0 && output.length - (input.length - k) - 1 >= 0 && same(input[k - 1], output[output.length - (input.length - k) - 1])) k--;
  return k;
}

async function compaction(a, timed = untimed) {
  const { messages, result } = await prepareTurn(a, { text: "Summary of the earlier conversation.", stopReason: "stop" }, timed);
  if (!result?.messages) return { compact: false, keep: null };
  return { compact: true, keep: keptFrom(messages, result.messages) };
}

async function summary(a) {
  if (typeof a.summary !== "string") throw new InvalidInput("summary: a string", "summary");
  if (!["stop", "length"].includes(a.stopReason)) throw new InvalidInput("stopReason: 'stop' or 'length'", "stopReason");
  // not asked (below its threshold, or nothing to fold): the agent did not use the summary
  const { result, asked } = await prepareTurn(a, { text: a.summary, stopReason: a.stopReason });
  const summarized = (result?.messages ?? []).some((m) => m.metadata?.kind === "compaction_summary");
  return { accepted: asked.length > 0 && summarized };
}

await serve(
  {
    "agent.tool_output": toolOutput,
    "agent.instructions": instructions,
    "agent.compaction": compaction,
    "agent.summary": summary,
    "bench.agent_tool_output": benchToolOutput,
    "bench.agent_instructions": benchInstructions,
    "bench.agent_compaction": (a) => measured((timed) => compaction(a, timed)),
  },
  { name: "cline", version, language: `node ${process.versions.node}` },
);
// stdin closed, every answer written (stdout to a pipe is synchronous on Linux): the SDK's
// tool-call timeout timers (30 s) would keep Node alive for nothing
process.exit(0);
