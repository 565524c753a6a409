// Peak memory of Pi's OutputAccumulator fed a log in 64 KiB chunks read from disk (the
// input is never held whole, as from a pipe): node pi_stream_memory.mjs <package dir> <log>
// prints {"beforeKiB": n, "peakKiB": n, "persisted": bool}. VmHWM is the process's high
// water mark; "before" is the RSS once Pi's module is loaded, before any input.
import { createReadStream, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// VmHWM is this process image's own peak (ru_maxrss, hence maxRSS, carries the parent's
// peak across exec on Linux)
function highWaterKiB() {
  const line = readFileSync("/proc/self/status", "utf8").split("\n").find((l) => l.startsWith("VmHWM:"));
  return Number(line.split(/\s+/)[1]);
}

const [packageDir, log] = process.argv.slice(2);
const { OutputAccumulator } = await import(
  pathToFileURL(join(packageDir, "dist", "core/tools/output-accumulator.js")).href
);
const beforeKiB = Math.round(process.memoryUsage().rss / 1024);
const accumulator = new OutputAccumulator({ tempFilePrefix: "ctxspec-bench-memory" });
for await (const chunk of createReadStream(log, { highWaterMark: 64 * 1024 })) accumulator.append(chunk);
accumulator.finish();
const snapshot = accumulator.snapshot({ persistIfTruncated: true });
await accumulator.closeTempFile();
if (snapshot.fullOutputPath) rmSync(snapshot.fullOutputPath, { force: true });
const peakKiB = highWaterKiB();
console.log(JSON.stringify({ beforeKiB, peakKiB, persisted: Boolean(snapshot.fullOutputPath) }));
