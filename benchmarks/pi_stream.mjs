// Times Pi's OutputAccumulator inside Node on a log file (process start and file reading
// excluded): node pi_stream.mjs <pi-coding-agent package dir> <log> <chunk bytes> <rounds>
// prints {"ns": [...], "medianNs": n, "persistedBytes": n} as one JSON line.
import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, log, chunkText, roundsText] = process.argv.slice(2);
const { OutputAccumulator } = await import(
  pathToFileURL(join(packageDir, "dist", "core/tools/output-accumulator.js")).href
);
const data = readFileSync(log);
const size = Number(chunkText);
const chunks = [];
for (let i = 0; i < data.length; i += size) chunks.push(data.subarray(i, i + size));
const ns = [];
let persistedBytes = 0;
for (let round = 0; round < Number(roundsText); round++) {
  const start = process.hrtime.bigint();
  const accumulator = new OutputAccumulator({ tempFilePrefix: "ctxspec-bench" });
  for (const chunk of chunks) accumulator.append(chunk);
  accumulator.finish();
  const snapshot = accumulator.snapshot({ persistIfTruncated: true });
  await accumulator.closeTempFile();
  ns.push(Number(process.hrtime.bigint() - start));
  if (snapshot.fullOutputPath) {
    persistedBytes = statSync(snapshot.fullOutputPath).size;
    rmSync(snapshot.fullOutputPath, { force: true });
  }
}
const sorted = [...ns].sort((a, b) => a - b);
console.log(JSON.stringify({ ns, medianNs: sorted[Math.floor(sorted.length / 2)], persistedBytes }));
