// agent.instructions: the instruction files Gemini CLI puts in front of the model.
//
// The tree is laid out, the home and the recorded trust set (workspace.mjs), and the
// memory loaded by core's own loader, `MemoryContextManager.refresh()`
// (context/memoryContextManager.js), as `Config.initialize()` does: the global files
// (~/.gemini/GEMINI.md), and the project's (from the working directory up to the `.git`
// marker) only when `config.isTrustedFolder()`. The CLI's tiered prompt then places them
// in two spots, both taken here from the agent's own code:
//
// - the system instruction: `getCoreSystemPrompt(config, config.getSystemInstructionMemory())`
//   (core/prompts.js), the global files under a "# Contextual Instructions" header. The
//   part it adds is what the prompt with this memory has beyond the prompt with none (the
//   rest, the agent's own instructions, is the same text in both and is left out). The
//   prompt's tools and subagents are not made (Config.initialize() is not run): empty
//   registries stand in, which change only the part left out;
// - the first user message: `config.getSessionMemory()` (the project files in
//   <loaded_context><project_context>), inserted verbatim by `getEnvironmentContext`
//   (utils/environmentContext.js).
//
// `text` is the system part, a blank line, then the user-message part (newlines around
// each trimmed), in the order the model reads them. Gemini CLI has no instruction budget
// setting: a `budget` is unsupported. A settings file in the tree is not read (the CLI
// package that reads settings is not installed): `context.fileName` is its default,
// GEMINI.md.
//
// bench.agent_instructions runs the same drive and times only the agent's calls:
// `manager.refresh()` (the discovery and reading of the files), then the two texts the
// model gets, `getCoreSystemPrompt(config, config.getSystemInstructionMemory())` and
// `config.getSessionMemory()`. Laying out the tree, the home, the trust file, the Config
// and the prompt without memory (the harness's subtraction) are not timed. It answers the
// UTF-8 bytes of the agent op's `text`.
import { statSync } from "node:fs";
import { measured, untimed, utf8Bytes } from "../../kit/bench.mjs";
import { materialize, realPath, removeTree, virtualize } from "../../kit/tree.mjs";
import { cliConfig, recordTrust, useHome, workspaceTrusted } from "../workspace.mjs";

const TRUST = new Set(["trusted", "untrusted", null]);

export default function instructions({ core, ownTmp, InvalidInput, Unsupported }) {
  // the registries Config.initialize() would make, empty (they shape only the base prompt)
  const noTools = { getAllToolNames: () => [], getAllTools: () => [], getFunctionDeclarations: () => [] };
  const noAgents = { getAllDefinitions: () => [], getDefinition: () => undefined };
  const promptContext = (config) =>
    new Proxy(config, {
      get(target, key, receiver) {
        if (key === "toolRegistry") return noTools;
        if (key === "getAgentRegistry") return () => noAgents;
        if (key === "config") return receiver;
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });

  async function systemPart(config, timed) {
    const context = promptContext(config);
    const without = core.getCoreSystemPrompt(context, "");
    const withMemory = await timed(() => core.getCoreSystemPrompt(context, config.getSystemInstructionMemory()));
    if (!withMemory.startsWith(without)) {
      throw new Error("the system prompt with memory does not extend the prompt without it");
    }
    return withMemory.slice(without.length);
  }

  const directory = (root, virtual, field) => {
    const real = realPath(root, virtual);
    let isDir = false;
    try {
      isDir = statSync(real).isDirectory();
    } catch {
      // absent: not a directory
    }
    if (!isDir) throw new InvalidInput(`${field}: '${virtual}' is not a directory of the tree`, field);
    return real;
  };

  // the agent op's answer, {text}; `timed` wraps the agent's calls
  async function drive(a, timed) {
    if (typeof a.cwd !== "string") throw new InvalidInput("cwd: a virtual absolute path is needed");
    if (typeof a.home !== "string") throw new InvalidInput("home: a virtual absolute path is needed");
    const trust = a.trust ?? null;
    if (!TRUST.has(trust)) throw new InvalidInput(`trust: '${trust}' is not trusted, untrusted or null`);
    if (a.budget !== undefined && a.budget !== null) {
      throw new Unsupported("budget: Gemini CLI has no instruction budget setting (it reads every file whole)");
    }
    const root = materialize(a.tree);
    try {
      const cwd = directory(root, a.cwd, "cwd");
      useHome(realPath(root, a.home));
      recordTrust(core, ownTmp, cwd, trust);
      const config = await cliConfig(core, { cwd, trustedFolder: workspaceTrusted(core, cwd) });
      const manager = new core.MemoryContextManager(config);
      await timed(() => manager.refresh());
      config.memoryContextManager = manager; // as Config.initialize() keeps it
      const system = await systemPart(config, timed);
      const session = await timed(() => config.getSessionMemory());
      const parts = [system, session].map((p) => p.replace(/^\n+|\n+$/g, ""));
      return virtualize({ text: parts.filter((p) => p !== "").join("\n\n") }, root);
    } finally {
      removeTree(root);
    }
  }

  return {
    "agent.instructions": (a) => drive(a, untimed),
    "bench.agent_instructions": (a) =>
      measured(async (timed) => ({ modelBytes: utf8Bytes((await drive(a, timed)).text) })),
  };
}
