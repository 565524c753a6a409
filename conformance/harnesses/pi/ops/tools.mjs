// tool.read, tool.bash, tool.grep: Pi's core/tools/{read,bash,grep}.js, each tool's
// execute() run without a model on files laid out from the case's tree.
//
// bash replays the case's bytes: they are written to a fixture file and the command is
// `cat <fixture>` then `exit N` (or a sleep, for a timeout or an abort). Each call runs
// with TMPDIR set to a fresh directory, so Pi's full-output log is found even when Pi
// does not name it; its path is shown as <fullOutputPath>, its bytes as a sha256.
// grep needs ripgrep on PATH (PI_OFFLINE=1: Pi must not download it).
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { portable } from "../../kit/engine.mjs";
import { materialize, realPath, virtualize, removeTree } from "../../kit/tree.mjs";
import { toolFailed } from "../shims.mjs";

const FULL_OUTPUT_PATH = "<fullOutputPath>";

export default async function toolOps({ load }) {
  const { createReadToolDefinition } = await load("core/tools/read.js");
  const { createBashToolDefinition } = await load("core/tools/bash.js");
  const { createGrepToolDefinition } = await load("core/tools/grep.js");

  // the tool's answer on the wire: a result, or a rejection turned into an error text. With
  // `params` (read, grep: the call's strings a refused NUL may come from), a rejection that
  // is the runtime's own error is written as its kind (kit/engine.mjs); bash's text is the
  // command's output, never rewritten
  async function outcome(run, params) {
    const rejection = (text) => (params === undefined ? text : portable(text, params));
    try {
      const result = await run();
      const text = result.content.map((block) => block.text ?? "").join("");
      const isError = toolFailed(result);
      const shown = isError ? rejection(text) : text;
      return result.details === undefined ? { isError, text: shown } : { isError, text: shown, details: result.details };
    } catch (error) {
      return { isError: true, text: rejection(String(error?.message ?? error)) };
    }
  }

  async function inTree(args, body) {
    const root = materialize(args.tree ?? {});
    const real = (virtual) => realPath(root, virtual);
    const saved = process.env.PI_OFFLINE;
    process.env.PI_OFFLINE = "1";
    try {
      return virtualize(await body(real), root);
    } finally {
      if (saved === undefined) delete process.env.PI_OFFLINE;
      else process.env.PI_OFFLINE = saved;
      removeTree(root);
    }
  }
  // a virtual absolute path, also behind Pi's "@" prefix, is laid out under the tree
  const toReal = (real, path) =>
    path.startsWith("/") ? real(path) : path.startsWith("@/") ? "@" + real(path.slice(1)) : path;

  const read = (a) =>
    inTree(a, (real) => {
      const tool = createReadToolDefinition(real(a.cwd ?? "/"));
      const params = { path: toReal(real, a.path) };
      if (a.offset !== undefined) params.offset = a.offset;
      if (a.limit !== undefined) params.limit = a.limit;
      return outcome(() => tool.execute("ctxspec", params), { path: a.path });
    });

  async function bash(a) {
    const scratch = mkdtempSync(join(tmpdir(), "ctxspec-bash-"));
    const logs = mkdtempSync(join(tmpdir(), "ctxspec-bash-tmp-"));
    const fixture = join(scratch, "output.bin");
    writeFileSync(fixture, Buffer.concat((a.chunksB64 ?? []).map((c) => Buffer.from(c, "base64"))));
    const waits = a.timedOut === true || a.aborted === true;
    const command = `cat '${fixture}'` + (waits ? "; sleep 30" : `; exit ${a.exitCode ?? 0}`);
    const params = { command };
    if (a.timedOut === true) params.timeout = a.timeout ?? 1;
    const controller = new AbortController();
    const timer = a.aborted === true ? setTimeout(() => controller.abort(), 700) : undefined;
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = logs;
    try {
      const tool = createBashToolDefinition(scratch);
      const result = await outcome(() => tool.execute("ctxspec", params, controller.signal));
      const written = readdirSync(logs).filter((name) => name.endsWith(".log"));
      let shown = JSON.stringify(result);
      for (const name of written) shown = shown.split(join(logs, name)).join(FULL_OUTPUT_PATH);
      const answer = { ...JSON.parse(shown), persisted: written.length > 0 };
      if (written.length > 0) {
        const data = readFileSync(join(logs, written[0]));
        answer.persistedSha256 = createHash("sha256").update(data).digest("hex");
        answer.persistedBytes = data.length;
      }
      return answer;
    } finally {
      clearTimeout(timer);
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      rmSync(scratch, { recursive: true, force: true });
      rmSync(logs, { recursive: true, force: true });
    }
  }

  // Pi starts ripgrep in its own process directory, which is the session's cwd when Pi
  // runs in a project (ripgrep anchors a glob with a "/" there): the call runs from it.
  // rg's per-user inputs are pinned, as the reference pins them: no RIPGREP_CONFIG_PATH,
  // and the home is the tree's "/" (a global gitignore is the tree's /.config/git/ignore,
  // "~" in a path is "/")
  const GREP_OPTIONS = ["glob", "ignoreCase", "literal", "context", "limit"];
  const RG_USER_ENV = ["HOME", "XDG_CONFIG_HOME", "RIPGREP_CONFIG_PATH"];
  const grep = (a) =>
    inTree(a, async (real) => {
      const cwd = real(a.cwd ?? "/");
      const tool = createGrepToolDefinition(cwd);
      const params = { pattern: a.pattern };
      if (a.path !== undefined) params.path = toReal(real, a.path);
      for (const key of GREP_OPTIONS) if (a[key] !== undefined) params[key] = a[key];
      const before = process.cwd();
      const savedEnv = RG_USER_ENV.map((key) => [key, process.env[key]]);
      for (const key of RG_USER_ENV) delete process.env[key];
      process.env.HOME = real("/");
      try {
        process.chdir(cwd);
      } catch {
        // a cwd that is not a directory of the tree: Pi's own error comes from execute
      }
      try {
        return await outcome(() => tool.execute("ctxspec", params), { glob: a.glob, pattern: a.pattern, path: a.path });
      } finally {
        process.chdir(before);
        for (const [key, value] of savedEnv) {
          if (value === undefined) delete process.env[key];
          else process.env[key] = value;
        }
      }
    });

  return { "tool.read": read, "tool.bash": bash, "tool.grep": grep };
}
