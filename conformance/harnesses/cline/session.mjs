// One scripted turn of a real Cline SDK session: what the model receives (its system
// prompt with the rules, a tool's result) is only seen in the requests the session sends.
//
// runTurn starts a local ClineCore session (ClineCore.create + start, as a host does;
// tools on, act mode, auto-approved) whose model is the SDK's own openai-compatible
// provider with an in-process `fetch` (EndpointConfig.fetch, "test doubles", @cline/llms
// providers/config.d.ts); every request body is recorded. Nothing opens a socket. As in
// any session, a project's hook scripts (.clinerules/hooks/TaskStart, executable) run at
// its start: a case tree with one runs it.
//
// - runTool: the first request is answered with one call of the SDK's tool (run_commands
//   `cat FILE`, or read_files FILE), the second is recorded and answered "done". The
//   answer is the `result` string of the tool message in that second request: the tool's
//   output after the executor's cut and the provider-request MessageBuilder's cut
//   (session/services/message-builder.d.ts), exactly as the model gets it, taken out of
//   the JSON entry list ([{query, result, success}]) the SDK sends it in. `limit` sets the
//   MessageBuilder's own knob, CLINE_MESSAGE_BUILDER_MAX_TOOL_RESULT_CHARS
//   (MESSAGE_BUILDER_LIMIT_ENV), which the session reads when it builds its agent.
// - runInstructions: the first request's system prompt, less the session's own prompt
//   (the rules the session appended, formatRulesForSystemPrompt's "# Rules" sections).
//
// `timed` (kit/bench.mjs) wraps the turn itself, `host.start(...)`: the session's start
// (its rules loaded, its tools and agent built), the scripted model's requests, the tool's
// run and cuts. The host (`ClineCore.create`, made once by an app) and its disposal are
// not in it.
import { existsSync } from "node:fs";
import { untimed } from "../kit/bench.mjs";

const CALL_ID = "call_ctxspec";
const LIMIT_ENV = "CLINE_MESSAGE_BUILDER_MAX_TOOL_RESULT_CHARS";
const ENDPOINT = { providerId: "openai-compatible", modelId: "scripted", apiKey: "scripted", baseUrl: "http://127.0.0.1:9/v1" };
const SYSTEM_PROMPT = "ctxspec";
const quiet = { log() {}, debug() {}, error() {} };

const CHUNK = { id: "scripted", object: "chat.completion.chunk", created: 0, model: "scripted" };
const USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
function stream(delta, reason) {
  const events = [
    { ...CHUNK, choices: [{ index: 0, delta: { role: "assistant", ...delta }, finish_reason: null }] },
    { ...CHUNK, choices: [{ index: 0, delta: {}, finish_reason: reason }], usage: USAGE },
  ];
  const body = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

const call = (tool, file) =>
  tool === "shell"
    ? { name: "run_commands", arguments: { commands: [`cat '${file.replace(/'/g, `'\\''`)}'`] } }
    : { name: "read_files", arguments: { files: [{ path: file }] } };

// Runs one session turn in `cwd` with `home` as the user's home; the scripted model
// answers each request with `script(requests)` (a stream Response). The requests' bodies
// are returned, as the provider received them.
export async function runTurn(core, storage, { cwd, home, script, env = {}, timed = untimed }) {
  const requests = [];
  const fetch = async (_url, init) => {
    requests.push(JSON.parse(init.body));
    return script(requests);
  };
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  for (const [name, value] of Object.entries(env)) {
    if (value === null) delete process.env[name];
    else process.env[name] = value;
  }
  storage.setHomeDir(home);
  const host = await core.ClineCore.create({ clientName: "ctxspec", backendMode: "local", logger: quiet });
  try {
    const config = {
      ...ENDPOINT, providerConfig: { ...ENDPOINT, fetch }, cwd, workspaceRoot: cwd, systemPrompt: SYSTEM_PROMPT,
      enableTools: true, enableSpawnAgent: false, enableAgentTeams: false, mode: "act", yolo: true,
    };
    await timed(() => host.start({ config, prompt: "ctxspec", interactive: false }));
  } finally {
    await host.dispose?.();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  return requests;
}

export async function runTool(core, storage, { tool, file, cwd, home, limit, timed }) {
  if (!existsSync(file)) throw new Error(`runTool: ${file} is missing`);
  const { name, arguments: args } = call(tool, file);
  const script = (requests) => {
    if (requests.length > 1) return stream({ content: "done" }, "stop");
    const toolCall = { index: 0, id: CALL_ID, type: "function", function: { name, arguments: JSON.stringify(args) } };
    return stream({ tool_calls: [toolCall] }, "tool_calls");
  };
  const env = { [LIMIT_ENV]: limit === null ? null : String(limit) };
  const requests = await runTurn(core, storage, { cwd, home, script, env, timed });
  const message = requests.flatMap((r) => r.messages ?? []).find((m) => m.role === "tool" && m.tool_call_id === CALL_ID);
  if (!message) throw new Error(`the session made ${requests.length} request(s), none with the tool's result`);
  let entries;
  try {
    entries = JSON.parse(message.content);
  } catch {
    throw new Error(`the tool message is not the SDK's entry list: ${String(message.content).slice(0, 300)}`);
  }
  const entry = Array.isArray(entries) && entries.length === 1 ? entries[0] : null;
  if (!entry || typeof entry.result !== "string") throw new Error(`unexpected tool entries: ${String(message.content).slice(0, 300)}`);
  if (entry.success !== true) throw new Error(`the tool failed: ${entry.error ?? ""} ${entry.result.slice(0, 300)}`);
  return entry.result;
}

// The system prompt of the session's first request, less the session's own prompt: the
// rules the SDK appended to it (formatRulesForSystemPrompt's "# Rules" sections)
export async function runInstructions(core, storage, { cwd, home, timed }) {
  const requests = await runTurn(core, storage, { cwd, home, script: () => stream({ content: "done" }, "stop"), timed });
  const system = (requests[0]?.messages ?? []).filter((m) => m.role === "system").map((m) => m.content);
  if (system.length !== 1 || typeof system[0] !== "string" || !system[0].startsWith(SYSTEM_PROMPT)) {
    throw new Error(`unexpected system messages: ${JSON.stringify(system).slice(0, 300)}`);
  }
  return system[0].slice(SYSTEM_PROMPT.length);
}
