// ctxspec protocol v1 (the agent ops of 1.4) for Gemini CLI: every op calls the agent's own
// modules in @google/gemini-cli-core, in-process.
//
// Usage: node adapter.mjs <path to node_modules/@google/gemini-cli-core>
// This script and ops/*.mjs only move arguments and results between the wire and Gemini
// CLI's functions (and lay out the files it reads); they implement no rule of Gemini's.
// What the agent answers is a finding for its profile and expectations, never something
// to fix here. Each ops/<concern>.mjs default-exports a function of the shared context
// (below) returning {op: handler}.
//
// The agent's own switches and environment: every GEMINI_* / GOOGLE_* variable of the
// caller is dropped first (GEMINI_CLI_TRUST_WORKSPACE, GEMINI_SYSTEM_MD, GEMINI_API_KEY,
// ... would change what the agent does or let it authenticate); the ops set GEMINI_CLI_HOME
// and GEMINI_CLI_TRUSTED_FOLDERS_PATH per request (workspace.mjs). No model is ever
// reached: summaries come from a scripted content generator (ops/compaction.mjs), usage
// statistics and telemetry are off in every Config. Core logs with console.log/debug,
// which would write into the protocol's stdout: log and info go to stderr, debug only with
// CTXSPEC_DEBUG.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { InvalidInput, Unsupported, ownTmp } from "../kit/errors.mjs";
import { serve } from "../kit/serve.mjs";

const packageDir = process.argv[2];
if (!packageDir || !existsSync(join(packageDir, "package.json"))) {
  process.stderr.write("usage: node adapter.mjs <@google/gemini-cli-core package dir>\n");
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const here = dirname(fileURLToPath(import.meta.url));

for (const name of Object.keys(process.env)) {
  if (/^(GEMINI_|GOOGLE_)/.test(name)) delete process.env[name];
}
const toStderr = (...args) => process.stderr.write(args.map(String).join(" ") + "\n");
console.log = toStderr;
console.info = toStderr;
console.debug = process.env.CTXSPEC_DEBUG ? toStderr : () => {};

const core = await import(pathToFileURL(join(packageDir, "dist", "index.js")).href);
// a module of core by its path under dist/src (for what the package root does not export)
const load = (relative) => import(pathToFileURL(join(packageDir, "dist", "src", relative)).href);

const context = { core, load, ownTmp, InvalidInput, Unsupported, version: pkg.version };
const handlers = {};
for (const file of readdirSync(join(here, "ops")).filter((f) => f.endsWith(".mjs")).sort()) {
  const module = await import(pathToFileURL(join(here, "ops", file)).href);
  Object.assign(handlers, await module.default(context));
}

await serve(handlers, { name: "gemini-cli", version: pkg.version, language: `node ${process.versions.node}` });
