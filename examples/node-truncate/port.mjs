#!/usr/bin/env node
// A ctxspec port in plain Node (>= 20, no dependencies): Pi 0.85.0's truncateHead,
// truncateTail and formatSize, written from the rules in corpora/README.md (TRUNC-*),
// and the protocol v1 loop around them. docs/guide/first-implementation.md builds it
// step by step; CI runs the suite against it (`nox -s example`).
//
//   ctxspec conform --impl "node examples/node-truncate/port.mjs"
//
// stdout carries the protocol only: one JSON answer per request line. Logs go to stderr.

import { createInterface } from "node:readline";

const DEFAULT_MAX_LINES = 2000; // Pi's defaults, used when a limit is null or absent
const DEFAULT_MAX_BYTES = 50 * 1024;
// `--exercise` plants the tutorial's deliberate bug: the tail's oversized last line is cut
// at a byte, not at a character (docs/guide/first-implementation.md, "An expectations file")
const EXERCISE = process.argv.includes("--exercise");

// --8<-- [start:errors]
// An error the port chooses to give: the runner reads its type, message and field.
class OpError extends Error {
  constructor(type, message, field) {
    super(message);
    this.type = type;
    this.field = field;
  }
}

const invalid = (field, message) => new OpError("invalid_input", message, field);

function string(args, field) {
  if (typeof args[field] !== "string") throw invalid(field, `${field} must be a string`);
  return args[field];
}

// A limit is any finite JSON number (zero, negative, fractional); null or absent is the default.
function limit(args, field, fallback) {
  const value = args[field] ?? fallback;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw invalid(field, `${field} must be a finite number`);
  }
  return value;
}
// --8<-- [end:errors]

// --8<-- [start:head]
const bytes = (text) => Buffer.byteLength(text, "utf8"); // a lone surrogate counts as U+FFFD, 3 bytes

// TRUNC-1: lines are split on "\n" only; a final "\n" opens no line, and "" has none.
function splitLines(content) {
  if (content === "") return [];
  const lines = content.split("\n");
  if (content.endsWith("\n")) lines.pop();
  return lines;
}

// The fields every truncation result shares: the totals and the limits as used.
function prepare(args) {
  const content = string(args, "content");
  const maxLines = limit(args, "maxLines", DEFAULT_MAX_LINES);
  const maxBytes = limit(args, "maxBytes", DEFAULT_MAX_BYTES);
  const lines = splitLines(content);
  const base = {
    totalLines: lines.length,
    totalBytes: bytes(content),
    maxLines,
    maxBytes,
  };
  return { content, lines, base };
}

function result(base, content, fields) {
  return {
    content,
    truncated: true,
    truncatedBy: fields.truncatedBy,
    totalLines: base.totalLines,
    totalBytes: base.totalBytes,
    outputLines: fields.outputLines,
    outputBytes: fields.outputBytes,
    lastLinePartial: fields.lastLinePartial ?? false,
    firstLineExceedsLimit: fields.firstLineExceedsLimit ?? false,
    maxLines: base.maxLines,
    maxBytes: base.maxBytes,
  };
}

// TRUNC-2: within both limits the content comes back verbatim, final newline included.
function untouched({ content, base }) {
  if (base.totalLines > base.maxLines || base.totalBytes > base.maxBytes) return null;
  const same = { truncatedBy: null, outputLines: base.totalLines, outputBytes: base.totalBytes };
  return { ...result(base, content, same), truncated: false };
}

// Whole lines from `ordered` while both limits hold; each line costs its bytes plus one
// per separator (TRUNC-6). A limit is compared as Pi compares it, so maxLines 1.5 admits 2.
function keepLines(ordered, { maxLines, maxBytes }) {
  const kept = [];
  let used = 0;
  let overflowed = false;
  for (let i = 0; i < ordered.length && i < maxLines; i++) {
    const cost = bytes(ordered[i]) + (i > 0 ? 1 : 0);
    if (used + cost > maxBytes) {
      overflowed = true;
      break;
    }
    kept.push(ordered[i]);
    used += cost;
  }
  return { kept, used, overflowed };
}

// TRUNC-5: "bytes" when a line did not fit, except that reaching the line limit with
// the bytes within theirs reports "lines".
function truncatedBy(kept, used, overflowed, { maxLines, maxBytes }) {
  if (kept.length >= maxLines && used <= maxBytes) return "lines";
  return overflowed ? "bytes" : "lines";
}

function truncateHead(args) {
  const prepared = prepare(args);
  const same = untouched(prepared);
  if (same) return same;
  const { lines, base } = prepared;
  if (lines.length === 0) {
    // only a negative limit gets here: Pi 0.85.0 throws reading a first line that is not there
    throw invalid(base.maxLines < 0 ? "maxLines" : "maxBytes", "a negative limit on empty content");
  }
  // TRUNC-3: a first line over maxBytes gives nothing at all, never a partial line
  if (bytes(lines[0]) > base.maxBytes) {
    const fields = { truncatedBy: "bytes", outputLines: 0, outputBytes: 0 };
    return result(base, "", { ...fields, firstLineExceedsLimit: true });
  }
  const { kept, used, overflowed } = keepLines(lines, base);
  return result(base, kept.join("\n"), {
    truncatedBy: truncatedBy(kept, used, overflowed, base),
    outputLines: kept.length,
    outputBytes: used,
  });
}
// --8<-- [end:head]

// --8<-- [start:tail]
function truncateTail(args) {
  const prepared = prepare(args);
  const same = untouched(prepared);
  if (same) return same;
  const { lines, base } = prepared;
  const fromBottom = [...lines].reverse();
  let { kept, used, overflowed } = keepLines(fromBottom, base);
  let lastLinePartial = false;
  if (overflowed && kept.length === 0) {
    // TRUNC-4: the last line alone is too long: keep its last maxBytes bytes, moved
    // forward past continuation bytes (10xxxxxx) so that the cut falls between characters
    const partial = utf8End(fromBottom[0], base.maxBytes);
    kept = [partial];
    used = bytes(partial);
    lastLinePartial = true;
  }
  return result(base, kept.reverse().join("\n"), {
    truncatedBy: truncatedBy(kept, used, overflowed, base),
    outputLines: kept.length,
    outputBytes: used,
    lastLinePartial,
  });
}

function utf8End(line, maxBytes) {
  const data = Buffer.from(line, "utf8");
  let start = Math.max(data.length - maxBytes, 0);
  while (!EXERCISE && start < data.length && (data[start] & 0xc0) === 0x80) start++;
  return data.subarray(start).toString("utf8");
}
// --8<-- [end:tail]

// TRUNC-8: B, KB or MB (no GB), one decimal by toFixed.
function formatSize(args) {
  const size = args.bytes;
  if (typeof size !== "number" || !Number.isFinite(size)) {
    throw invalid("bytes", "bytes must be a finite number");
  }
  if (size < 1024) return `${size}B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)}KB`;
  return `${(size / (1024 * 1024)).toFixed(1)}MB`;
}

// --8<-- [start:loop]
const OPS = {
  "truncate.head": truncateHead,
  "truncate.tail": truncateTail,
  "format.size": formatSize,
};

function hello(args) {
  if (args.protocol !== 1) throw invalid("protocol", `protocol ${args.protocol}: this port speaks 1`);
  return {
    protocol: 1,
    implementation: { name: "node-truncate", version: "1.0.0", language: `node ${process.version}` },
    ops: Object.keys(OPS),
  };
}

function answer(request) {
  const handler = request.op === "hello" ? hello : OPS[request.op];
  if (!handler) {
    return { id: request.id, error: { type: "unsupported", message: `no op ${request.op}` } };
  }
  try {
    return { id: request.id, result: handler(request.args ?? {}) };
  } catch (error) {
    if (error instanceof OpError) {
      const wire = { type: error.type, message: error.message };
      if (error.field) wire.field = error.field;
      return { id: request.id, error: wire };
    }
    // a bug of the port: say so as `internal`, the stack in `detail` (shown, never compared)
    return { id: request.id, error: { type: "internal", message: String(error), detail: error.stack } };
  }
}

// The request loop: one JSON request per line in, one JSON answer per line out, in order.
// JSON.stringify escapes a lone surrogate as \udXXX, as the protocol asks.
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim() === "") continue;
  process.stdout.write(`${JSON.stringify(answer(JSON.parse(line)))}\n`);
}
// --8<-- [end:loop]
