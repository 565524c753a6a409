// ctxspec protocol v1 for the real Pi: every op calls Pi's own published modules.
//
// Usage: node adapter.mjs <path to node_modules/@earendil-works/pi-coding-agent>
// This script and ops/*.mjs only move arguments and results between the wire and Pi's
// functions (and lay out fixtures Pi reads); they implement no rule of Pi's. Each
// ops/<concern>.mjs default-exports an async function returning {op: handler}; a handler
// may be async. Ops Pi cannot answer honestly are left out, so hello does not list them.
import { pathToFileURL, fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { InvalidInput } from "../kit/errors.mjs";
import { serve } from "../kit/serve.mjs";

const packageDir = process.argv[2];
if (!packageDir) {
  process.stderr.write("usage: node adapter.mjs <pi-coding-agent package dir>\n");
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const here = dirname(fileURLToPath(import.meta.url));

// A module an older (or newer) release does not have: importing it gives a stand-in whose
// every export throws, and the ops that need it are left out of hello (unsupported).
const missing = new Set();
function absentModule(relative) {
  const fail = () => {
    throw new Error(`pi ${pkg.version} has no dist/${relative}`);
  };
  return new Proxy({}, { get: (_, key) => (key === "then" ? undefined : fail) });
}

const context = {
  packageDir,
  InvalidInput,
  version: pkg.version,
  // a limit that is null or absent takes Pi's default: pass undefined, as a caller would
  limit: (value) => (value === null ? undefined : value),
};

const handlers = {};
for (const file of readdirSync(join(here, "ops")).filter((f) => f.endsWith(".mjs")).sort()) {
  const loaded = new Set();
  // import one of Pi's modules by its path under dist/
  const load = async (relative) => {
    loaded.add(relative);
    if (!existsSync(join(packageDir, "dist", relative))) {
      missing.add(relative);
      return absentModule(relative);
    }
    return import(pathToFileURL(join(packageDir, "dist", relative)).href);
  };
  const module = await import(pathToFileURL(join(here, "ops", file)).href);
  let made;
  try {
    made = await module.default({ ...context, load });
  } catch (error) {
    // a file that uses an absent module as it starts offers none of its ops
    if ([...loaded].some((relative) => missing.has(relative))) continue;
    throw error;
  }
  for (const [op, handler] of Object.entries(made)) {
    if (op in handlers) throw new Error(`ops/${file} redefines ${op}`);
    // an op needs what its file says (`needs`), else every module its file loaded
    const needs = module.needs?.[op] ?? [...loaded];
    if (needs.some((relative) => missing.has(relative))) continue;
    handlers[op] = handler;
  }
}

await serve(handlers, { name: "pi", version: pkg.version, language: `node ${process.versions.node}` });
