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
// `timed` may be called more than once: the sections add up. The agent op and its bench op
// share one drive function taking `timed`: the agent op passes `untimed` (below). A body
// that times nothing is refused, so that a harness cannot answer a figure that measured no
// agent code.
import { copyFileSync, linkSync, readFileSync } from "node:fs";

const now = () => process.hrtime.bigint();

export async function measured(body) {
  const started = now();
  let elapsed = 0n;
  let sections = 0;
  let setupKiB = null; // the peak when the agent's code began: what setup held (the input)
  const timed = async (fn) => {
    if (setupKiB === null) setupKiB = peakKiB();
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
  return { answer, elapsedNs: Number(elapsed), requestNs, peakKiB: peakKiB(), setupPeakKiB: setupKiB,
    timing: "in-process" };
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

const checkPath = (path, invalid) => {
  if (typeof path !== "string" || path === "") throw invalid("path: must be the path of a file");
};
const missing = (error, path, invalid) => (error.code === "ENOENT" ? invalid(`path: no such file: ${path}`) : error);

// The bytes of a bench op's input file as text, read before anything is timed; a missing
// file is the caller's `invalid` error naming `path`. A file past V8's longest string
// (2**29 - 24 UTF-16 code units, about 512 MiB of ASCII) cannot be held as one text: an
// error that says so, not V8's bare "Cannot create a string longer than ...".
export function readInput(path, invalid) {
  checkPath(path, invalid);
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if (error.code === "ERR_STRING_TOO_LONG") {
      throw new Error(`path: ${path} holds more text than one V8 string can (at most 2**29 - 24 code units)`);
    }
    throw missing(error, path, invalid);
  }
}

// The bench op's input file put at `target` for an agent's own tool to read (a `cat`, a
// read tool), before anything is timed: a hard link, a copy where no link can be made
// (another file system). The caller removes `target`; the input file is never written.
export function placeInput(path, target, invalid) {
  checkPath(path, invalid);
  try {
    linkSync(path, target);
  } catch (error) {
    if (!["EXDEV", "EPERM", "EMLINK", "EACCES"].includes(error.code)) throw missing(error, path, invalid);
    try {
      copyFileSync(path, target);
    } catch (copyError) {
      throw missing(copyError, path, invalid);
    }
  }
}

// `timed` for the agent op that shares its drive code with a bench op: runs `fn`, times nothing
export const untimed = (fn) => fn();

export const utf8Bytes = (text) => Buffer.byteLength(text, "utf8");
