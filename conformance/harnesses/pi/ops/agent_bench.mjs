// bench.agent_tool_output, bench.agent_instructions, bench.agent_compaction: the agent bench
// ops (issue 35) for Pi, timed in process (kit/bench.mjs: the calls into Pi's functions alone;
// reading, laying out and converting are setup). Pi answers no `agent.*` op (its own ops
// judge it), so each bench op drives the Pi path the matching agent op would name:
//
//   bench.agent_tool_output  Pi's real bash tool (core/tools/bash.js createBashToolDefinition,
//       the function tool.bash calls) running `cat '<path>'`: its execute() spawns the shell
//       with Pi's own local operations and feeds every chunk the pipe delivers to its
//       OutputAccumulator, then finishes, snapshots (persisting the full output to a temp file
//       when truncated) and formats the result text with its marker. Spawning is timed: it IS
//       the tool path, and the runner's empty-file base subtracts its constant cost; feeding
//       the accumulator by hand would skip the tool's own chunk handling and marker. The tool
//       builds its accumulator with Pi's default limits (DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES)
//       and takes no limit setting: a non-null `limit` is unsupported. `tool: "read"` is Pi's
//       read tool (core/tools/read.js) on the file, which saves nothing. modelBytes: the
//       result text (the error text, when the tool throws), the full-output path in its marker
//       counted as Pi names it under the system temp dir (/tmp/pi-bash-<16 hex>.log);
//       savedBytes: the size of the temp file Pi wrote in a fresh TMPDIR (null when none),
//       which is then deleted.
//   bench.agent_instructions  loadProjectContextFiles({cwd, agentDir}) then
//       buildSystemPrompt({cwd, contextFiles}) (what context.discover and prompt.build call),
//       the tree laid out beforehand (kit/tree.mjs, HOME = the tree's home, agentDir Pi's
//       getAgentDir() under it). modelBytes: the <project_context> ... </project_context>
//       section of that prompt, paths shown virtual, as agent.instructions would answer it
//       (0 when no file is found). Pi's context files are not gated by project trust (trust
//       gates settings, extensions, SYSTEM.md): `trust` is taken and changes nothing. Pi has
//       no instruction budget: a non-null `budget` is unsupported.
//   bench.agent_compaction  the agent messages become Pi messages one for one beforehand
//       (user; assistant; assistant with toolCall = a bash toolCall whose command is the text;
//       tool = the toolResult of the call before it), as session message entries; `usage` is
//       the last assistant message's usage (Pi skips zero usage). Timed: the check Pi makes
//       before its next request (AgentSession._compactBeforeNextAssistantResponse):
//       shouldCompact(estimateContextTokens(messages).tokens, window, DEFAULT settings) (the
//       usage plus the estimate of the messages after it; without usage, Pi's estimate of
//       all), and when it compacts, prepareCompaction(entries, DEFAULT settings) (findCutPoint
//       with the default keepRecentTokens). keep: the index of the entry named
//       firstKeptEntryId; no preparation (nothing to summarize) means Pi does not compact.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { measured, utf8Bytes } from "../../kit/bench.mjs";
import { Unsupported } from "../../kit/errors.mjs";
import { materialize, realPath, removeTree, virtualize } from "../../kit/tree.mjs";

// what each op needs of Pi (the adapter leaves an op out of hello when a module is absent)
export const needs = {
  "bench.agent_tool_output": ["core/tools/bash.js", "core/tools/read.js"],
  "bench.agent_instructions": ["core/resource-loader.js", "core/system-prompt.js", "config.js"],
  "bench.agent_compaction": ["core/compaction/compaction.js"],
};

const ROLES = new Set(["user", "assistant", "tool"]);
const shellQuote = (text) => `'${text.split("'").join("'\\''")}'`;
const usageOf = (tokens) => ({ input: tokens, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: tokens,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });

// run `body` with an environment variable set (or removed: undefined), restored after
async function withEnv(values, body) {
  const saved = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  try {
    return await body();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

export default async function agentBenchOps(context) {
  const { load } = context;
  const invalid = (message, field) => new context.InvalidInput(message, field);
  const { createBashToolDefinition } = await load("core/tools/bash.js");
  const { createReadToolDefinition } = await load("core/tools/read.js");
  const loader = await load("core/resource-loader.js");
  const systemPrompt = await load("core/system-prompt.js");
  const config = await load("config.js");
  const compaction = await load("core/compaction/compaction.js");

  // the path of the input file, refused before anything runs when it is not a file
  function inputFile(path) {
    if (typeof path !== "string" || path === "") throw invalid("path: must be the path of a file", "path");
    try {
      if (!statSync(path).isFile()) throw invalid(`path: not a file: ${path}`, "path");
    } catch (error) {
      if (error.code === "ENOENT") throw invalid(`path: no such file: ${path}`, "path");
      throw error;
    }
    return path;
  }

  // the tool result's text as the model gets it: the content, or the error Pi's tool threw
  async function resultText(run) {
    try {
      const result = await run();
      return result.content.map((block) => block.text ?? "").join("");
    } catch (error) {
      return String(error?.message ?? error);
    }
  }

  function toolOutput(a) {
    const path = inputFile(a.path);
    const tool = a.tool ?? "shell";
    if (tool !== "shell" && tool !== "read") throw invalid("tool: must be shell or read", "tool");
    if (a.limit !== undefined && a.limit !== null) {
      throw new Unsupported(`limit: Pi's ${tool === "shell" ? "bash" : "read"} tool has no output limit setting (DEFAULT_MAX_LINES / DEFAULT_MAX_BYTES)`);
    }
    const logs = mkdtempSync(join(tmpdir(), "ctxspec-bench-tmp-"));
    return measured(async (timed) => {
      try {
        // TMPDIR: Pi's accumulator names its full-output file under os.tmpdir()
        const text = await withEnv({ TMPDIR: logs }, () => {
          if (tool === "read") {
            const definition = createReadToolDefinition(dirname(path));
            return timed(() => resultText(() => definition.execute("ctxspec", { path })));
          }
          const definition = createBashToolDefinition(dirname(path));
          const params = { command: `cat ${shellQuote(path)}` };
          return timed(() => resultText(() => definition.execute("ctxspec", params)));
        });
        const saved = readdirSync(logs).filter((name) => name.endsWith(".log"));
        const savedBytes = saved.length > 0 ? statSync(join(logs, saved[0])).size : null;
        // the marker names the file under this request's TMPDIR: counted as Pi names it under /tmp
        return { modelBytes: utf8Bytes(text.split(logs).join("/tmp")), savedBytes };
      } finally {
        rmSync(logs, { recursive: true, force: true });
      }
    });
  }

  function instructions(a) {
    if (a.budget !== undefined && a.budget !== null) throw new Unsupported("budget: Pi has no instruction budget");
    if (![undefined, null, "trusted", "untrusted"].includes(a.trust)) throw invalid("trust: must be trusted, untrusted or null", "trust");
    for (const field of ["cwd", "home"]) {
      if (typeof a[field] !== "string" || !a[field].startsWith("/")) throw invalid(`${field}: must be a virtual absolute path`, field);
    }
    const root = materialize(a.tree ?? {});
    return measured(async (timed) => {
      try {
        const cwd = realPath(root, a.cwd);
        const home = realPath(root, a.home);
        const agentDir = await withEnv({ HOME: home, PI_CODING_AGENT_DIR: undefined }, () => config.getAgentDir());
        const prompt = await withEnv({ HOME: home, PI_OFFLINE: "1" }, () => timed(() => {
          const contextFiles = loader.loadProjectContextFiles({ cwd, agentDir });
          return systemPrompt.buildSystemPrompt({ cwd, contextFiles });
        }));
        const start = prompt.indexOf("<project_context>");
        const end = prompt.lastIndexOf("</project_context>");
        const section = start < 0 || end < start ? "" : prompt.slice(start, end + "</project_context>".length);
        return { modelBytes: utf8Bytes(virtualize(section, root)) };
      } finally {
        removeTree(root);
      }
    });
  }

  // the agent messages as Pi's session message entries, one entry per message
  function entriesOf(messages, usage) {
    if (!Array.isArray(messages)) throw invalid("messages: a list is needed", "messages");
    let lastAssistant = -1;
    messages.forEach((m, i) => {
      if (!m || !ROLES.has(m.role) || typeof m.text !== "string") {
        throw invalid(`messages[${i}]: needs role user|assistant|tool and a text`, "messages");
      }
      if (m.role === "tool" && (i === 0 || messages[i - 1].role !== "assistant" || !messages[i - 1].toolCall)) {
        throw invalid(`messages[${i}]: a tool result follows the assistant message that calls it`, "messages");
      }
      if (m.role === "assistant") lastAssistant = i;
    });
    let call = 0;
    const piMessage = (m, i) => {
      const timestamp = i + 1;
      if (m.role === "user") return { role: "user", content: [{ type: "text", text: m.text }], timestamp };
      if (m.role === "tool") {
        return { role: "toolResult", toolCallId: `call-${call}`, toolName: "bash", content: [{ type: "text", text: m.text }],
          isError: false, timestamp };
      }
      const usageHere = usage !== undefined && usage !== null && i === lastAssistant ? usageOf(usage) : usageOf(0);
      const content = m.toolCall
        ? [{ type: "toolCall", id: `call-${(call += 1)}`, name: "bash", arguments: { command: m.text } }]
        : [{ type: "text", text: m.text }];
      return { role: "assistant", content, api: "scripted", provider: "scripted", model: "scripted", usage: usageHere,
        stopReason: m.toolCall ? "toolUse" : "stop", timestamp };
    };
    return messages.map((m, i) => ({ type: "message", id: `m${i}`, parentId: i === 0 ? null : `m${i - 1}`,
      timestamp: new Date(i + 1).toISOString(), message: piMessage(m, i) }));
  }

  function compactionDecision(a) {
    if (typeof a.window !== "number" || !(a.window > 0)) throw invalid("window: a positive number is needed", "window");
    if (a.usage !== undefined && a.usage !== null && (typeof a.usage !== "number" || a.usage < 0)) {
      throw invalid("usage: a number of tokens, or null", "usage");
    }
    const entries = entriesOf(a.messages, a.usage);
    const messages = entries.map((entry) => entry.message);
    const hasAssistant = messages.some((m) => m.role === "assistant");
    if (a.usage && !hasAssistant) throw invalid("usage: a provider usage needs an assistant message it came with", "usage");
    const settings = { ...compaction.DEFAULT_COMPACTION_SETTINGS };
    const indexOf = new Map(entries.map((entry, i) => [entry.id, i]));
    return measured(async (timed) => {
      const preparation = await timed(() => {
        const tokens = compaction.estimateContextTokens(messages).tokens;
        if (!compaction.shouldCompact(tokens, a.window, settings)) return undefined;
        return compaction.prepareCompaction(entries, settings);
      });
      if (!preparation) return { compact: false, keep: null };
      return { compact: true, keep: indexOf.get(preparation.firstKeptEntryId) };
    });
  }

  return {
    "bench.agent_tool_output": toolOutput,
    "bench.agent_instructions": instructions,
    "bench.agent_compaction": compactionDecision,
  };
}
