// The agent bench ops' timing for an agent run in process (Pi, Gemini CLI core, the Cline
// SDK), the twin of kit/bench.py for black boxes: a request's answer with the nanoseconds
// of the agent's own calls alone, of the whole request, and the process's peak memory
// (PROTOCOL.md, "The agent bench ops").
//
//   const result = await measured(async (timed) => {
//     const input = readFileSync(path, "utf8");            // setup: not timed
//     const out = await timed(() => agentFunction(input));  // the agent's code path
//     return { modelBytes: Buffer.byteLength(out) };        // the answer
//   });
//
// `timed` may be called more than once: the sections add up. A body that times nothing is
// refused, so that a harness cannot answer a figure that measured no agent code.
import { readFileSync } from "node:fs";

const now = () => process.hrtime.bigint();

export async function measured(body) {
  const started = now();
  let elapsed = 0n;
  let sections = 0;
  const timed = async (fn) => {
    const begin = now();
    try {
      return await fn();
    } finally {
      elapsed += now() - begin;
      sections += 1;
    }
  };
  const answer = await body(timed);
  const requestNs = Number(now() - started);
  if (sections === 0) throw new Error("a bench op timed none of the agent's code (kit/bench.mjs)");
  return { answer, elapsedNs: Number(elapsed), requestNs, peakKiB: peakKiB(), timing: "in-process" };
}

// The process's peak resident memory (KiB): VmHWM, its own since exec. Not getrusage's
// maxRSS, which a process started by fork and exec inherits from its parent: under the
// runner it starts at the runner's own size.
export function peakKiB() {
  try {
    const line = readFileSync("/proc/self/status", "latin1").split("\n").find((l) => l.startsWith("VmHWM:"));
    if (line) return Number.parseInt(line.split(/\s+/)[1], 10);
  } catch {
    // no /proc: getrusage's figure, inherited part and all
  }
  return process.resourceUsage().maxRSS;
}

// The bytes of a bench op's input file as text, read before anything is timed; a missing
// file is the caller's `invalid` error naming `path`.
export function readInput(path, invalid) {
  if (typeof path !== "string" || path === "") throw invalid("path: must be the path of a file");
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if (error.code === "ENOENT") throw invalid(`path: no such file: ${path}`);
    throw error;
  }
}

export const utf8Bytes = (text) => Buffer.byteLength(text, "utf8");
