// agent.tool_output: a tool's result as Gemini CLI sends it to the model.
//
// shell: `ToolExecutor.truncateOutputIfNeeded(call, content)` (scheduler/tool-executor.js),
// the step the scheduler runs on every shell result: past the Config's threshold
// (`getTruncateToolOutputThreshold()`: the setting `tools.truncateToolOutputThreshold`,
// default 40,000, capped at 4 x the tokens left in the model's window) it saves the whole
// output with `saveTruncatedToolOutput` under the project's temp directory and returns
// `formatTruncatedToolOutput(content, savedPath, threshold)`. `content` stands for the
// shell tool's whole result text (its `llmContent`; the tool itself writes `Output: ...`
// and the process group into it, wrapped in <untrusted_context>, which is not added here).
// `limit` is that setting (null: its default). The call has fixed ids, so the saved path
// reads /home/user/.gemini/tmp/work/tool-outputs/session-<prompt id>/<call id>.txt.
//
// read: the real read tool (`ReadFileTool`, tools/read-file.js) run on a file holding
// `content`: `processSingleFileContent` cuts at 2,000 lines and 2,000 characters a line,
// and the tool puts its "IMPORTANT: The file content has been truncated." note in front.
// The read tool has no limit setting (its limits are constants of utils/constants.js), so
// a `limit` is unsupported.
//
// bench.agent_tool_output runs the same drive with the output from the file `path` (read
// into the shell's text, or linked as the read tool's file, before anything is timed) and
// times only the agent's calls: `executor.truncateOutputIfNeeded(call, content)` (which
// includes writing the saved file), or the read tool's `build(params)` and `execute()`.
// It answers the bytes of the content the agent op answers and of the saved file.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { measured, placeInput, readInput, untimed, utf8Bytes } from "../../kit/bench.mjs";
import { materialize, realPath, removeTree, virtualize } from "../../kit/tree.mjs";
import { cliConfig, recordTrust, useHome } from "../workspace.mjs";

const PROMPT_ID = "ctxspec-prompt";
const CALL_ID = "run_shell_command_1";

export default function toolOutput({ core, ownTmp, InvalidInput, Unsupported }) {
  async function withWorkspace(run) {
    const root = materialize({ "home/user/": {}, "work/": {} });
    try {
      useHome(realPath(root, "/home/user"));
      const cwd = realPath(root, "/work");
      recordTrust(core, ownTmp, cwd, null);
      return virtualize(await run(root, cwd), root);
    } finally {
      removeTree(root);
    }
  }

  // the shell's result: {content, saved?}, `saved` what `keep` makes of the saved file
  // (its text for the agent op, its size for the bench op)
  async function shell(content, limit, { timed, keep }) {
    return withWorkspace(async (_root, cwd) => {
      const config = await cliConfig(core, { cwd, trustedFolder: false, truncateToolOutputThreshold: limit });
      const executor = new core.ToolExecutor({ config, promptId: PROMPT_ID });
      const call = { request: { name: core.SHELL_TOOL_NAME, callId: CALL_ID, prompt_id: PROMPT_ID, args: {} } };
      const { truncatedContent, outputFile } = await timed(() => executor.truncateOutputIfNeeded(call, content));
      const out = { content: truncatedContent };
      if (outputFile) out.saved = keep(outputFile);
      return out;
    });
  }

  // the read tool's result on the file `place(file)` writes
  async function read(place, { timed }) {
    return withWorkspace(async (_root, cwd) => {
      const file = `${cwd}/file.txt`;
      place(file);
      const config = await cliConfig(core, { cwd, trustedFolder: false });
      const tool = new core.ReadFileTool(config, config.getMessageBus());
      const signal = new AbortController().signal;
      const result = await timed(() => tool.build({ file_path: file }).execute({ abortSignal: signal }));
      if (result.error) throw new Error(`the read tool failed: ${result.error.message}`);
      if (typeof result.llmContent !== "string") {
        throw new Unsupported("content: the read tool answered with parts, not text (a binary or media file)");
      }
      return { content: result.llmContent };
    });
  }

  // the agent op's drive: `source` gives the output as the shell's text (`text()`) or as
  // the read tool's file (`place(file)`)
  async function drive(a, source, how) {
    const tool = a.tool ?? "shell";
    const limit = a.limit ?? undefined;
    if (limit !== undefined && (typeof limit !== "number" || !Number.isFinite(limit))) {
      throw new InvalidInput("limit: a number or null is needed");
    }
    if (tool === "shell") return shell(source.text(), limit, how);
    if (tool === "read") {
      if (limit !== undefined) {
        throw new Unsupported("limit: Gemini CLI's read tool has no limit setting (2,000 lines and 2,000 characters a line are constants)");
      }
      return read(source.place, how);
    }
    throw new InvalidInput(`tool: '${tool}' is not shell or read`);
  }

  const invalidPath = (message) => new InvalidInput(message, "path");
  return {
    "agent.tool_output": async (a) => {
      if (typeof a.content !== "string") throw new InvalidInput("content: a string is needed");
      const source = { text: () => a.content, place: (file) => writeFileSync(file, a.content) };
      return drive(a, source, { timed: untimed, keep: (file) => readFileSync(file, "utf8") });
    },
    "bench.agent_tool_output": (a) =>
      measured(async (timed) => {
        const source = { text: () => readInput(a.path, invalidPath), place: (file) => placeInput(a.path, file, invalidPath) };
        const out = await drive(a, source, { timed, keep: (file) => statSync(file).size });
        return { modelBytes: utf8Bytes(out.content), savedBytes: out.saved ?? null };
      }),
  };
}
