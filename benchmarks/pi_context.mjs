// Times Pi's context-file discovery and prompt assembly inside Node on a laid-out tree
// (process start and laying out the tree excluded):
//   node pi_context.mjs <pi-coding-agent package dir> <tree.json> <cwd> <agentDir> <rounds>
// prints {"discoverNs": [...], "promptNs": [...], "files": n} as one JSON line.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { materialize, realPath, removeTree } from "../conformance/harnesses/kit/tree.mjs";

const [packageDir, treeFile, cwd, agentDir, roundsText] = process.argv.slice(2);
const load = (relative) => import(pathToFileURL(join(packageDir, "dist", relative)).href);
const { loadProjectContextFiles } = await load("core/resource-loader.js");
const { buildSystemPrompt } = await load("core/system-prompt.js");
const root = materialize(JSON.parse(readFileSync(treeFile, "utf8")));
const options = { cwd: realPath(root, cwd), agentDir: realPath(root, agentDir) };
const discoverNs = [];
const promptNs = [];
let files = [];
for (let round = 0; round < Number(roundsText); round++) {
  let start = process.hrtime.bigint();
  files = loadProjectContextFiles(options);
  discoverNs.push(Number(process.hrtime.bigint() - start));
  start = process.hrtime.bigint();
  buildSystemPrompt({ cwd: options.cwd, contextFiles: files, selectedTools: ["read", "bash"] });
  promptNs.push(Number(process.hrtime.bigint() - start));
}
removeTree(root);
console.log(JSON.stringify({ discoverNs, promptNs, files: files.length }));
