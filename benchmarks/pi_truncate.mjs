// Times Pi's batch truncateHead / truncateTail inside Node on a whole log read as one
// string: node pi_truncate.mjs <pi-coding-agent package dir> <log> <rounds>
// prints {"headNs": n, "tailNs": n, "peakKiB": n} (medians), or {"error": code} when Node
// cannot hold the text as one string (ERR_STRING_TOO_LONG past about 512 MiB of UTF-16).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// VmHWM is this process image's own peak (ru_maxrss, hence maxRSS, carries the parent's
// peak across exec on Linux)
function highWaterKiB() {
  const line = readFileSync("/proc/self/status", "utf8").split("\n").find((l) => l.startsWith("VmHWM:"));
  return Number(line.split(/\s+/)[1]);
}

const [packageDir, log, roundsText] = process.argv.slice(2);
const { truncateHead, truncateTail } = await import(
  pathToFileURL(join(packageDir, "dist", "core/tools/truncate.js")).href
);
let text;
try {
  text = readFileSync(log, "utf8");
} catch (error) {
  console.log(JSON.stringify({ error: error.code ?? String(error), peakKiB: highWaterKiB() }));
  process.exit(0);
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const time = (run) => {
  const ns = [];
  for (let round = 0; round < Number(roundsText); round++) {
    const start = process.hrtime.bigint();
    run(text);
    ns.push(Number(process.hrtime.bigint() - start));
  }
  return median(ns);
};
const headNs = time(truncateHead);
const tailNs = time(truncateTail);
console.log(JSON.stringify({ headNs, tailNs, peakKiB: highWaterKiB() }));
