// ctxspec protocol v1 for the real Pi: every op calls Pi's own published modules.
//
// Usage: node adapter.mjs <path to node_modules/@earendil-works/pi-coding-agent>
// This script only moves arguments and results between the wire and Pi's functions; it
// implements no rule of its own. Ops Pi cannot answer honestly are left out of hello.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { readFileSync } from "node:fs";

const packageDir = process.argv[2];
if (!packageDir) {
  process.stderr.write("usage: node adapter.mjs <pi-coding-agent package dir>\n");
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const load = (relative) => import(pathToFileURL(join(packageDir, "dist", relative)).href);

const truncate = await load("core/tools/truncate.js");

// a limit that is null or absent takes Pi's default: pass undefined, as a caller would
const limit = (value) => (value === null ? undefined : value);
const limits = (args) => ({ maxLines: limit(args.maxLines), maxBytes: limit(args.maxBytes) });

const handlers = {
  "truncate.head": (a) => truncate.truncateHead(a.content, limits(a)),
  "truncate.tail": (a) => truncate.truncateTail(a.content, limits(a)),
  "truncate.line": (a) => truncate.truncateLine(a.line, limit(a.maxChars)),
  "format.size": (a) => truncate.formatSize(a.bytes),
};

const hello = {
  protocol: 1,
  implementation: { name: "pi", version: pkg.version, language: `node ${process.versions.node}` },
  ops: Object.keys(handlers).sort(),
};

function answer(request) {
  if (request.op === "hello") return { id: request.id, result: hello };
  const handler = handlers[request.op];
  if (!handler) {
    return { id: request.id, error: { type: "unsupported", message: `op ${request.op} is not supported` } };
  }
  try {
    return { id: request.id, result: handler(request.args ?? {}) };
  } catch (error) {
    return { id: request.id, error: { type: "internal", message: String(error?.stack ?? error) } };
  }
}

const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of input) {
  if (!line.trim()) continue;
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    process.stderr.write(`bad request line: ${error}\n`);
    continue;
  }
  // JSON.stringify escapes lone surrogates (\udXXX), so the line is valid UTF-8
  process.stdout.write(JSON.stringify(answer(request)) + "\n");
}
