// Virtual file trees of protocol v1 (see conformance/adapters/tree.py for the format):
// lay one out in a fresh temp directory, and map real paths in results back to virtual.
import { mkdtempSync, mkdirSync, writeFileSync, symlinkSync, chmodSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export function materialize(tree) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "ctxspec-tree-")));
  const entries = Object.entries(tree ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const links = [];
  const modes = [];
  for (const [path, entry] of entries) {
    const target = join(root, path.replace(/\/+$/, ""));
    if (path.endsWith("/")) {
      mkdirSync(target, { recursive: true });
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    if (typeof entry === "string") writeFileSync(target, entry);
    else if ("symlink" in entry) links.push([target, entry.symlink]);
    else {
      const data = "contentB64" in entry ? Buffer.from(entry.contentB64, "base64") : (entry.content ?? "");
      writeFileSync(target, data);
      if ("mode" in entry) modes.push([target, entry.mode]);
    }
  }
  for (const [link, destination] of links) symlinkSync(destination, link);
  for (const [path, mode] of modes) chmodSync(path, mode);
  return root;
}

// the real path of a virtual absolute path ("/ws/repo" -> root + "/ws/repo")
export const realPath = (root, virtual) => (virtual === "/" ? root : root + "/" + virtual.replace(/^\/+/, ""));

export function virtualize(value, root) {
  if (typeof value === "string") return value.split(root).join("");
  if (Array.isArray(value)) return value.map((item) => virtualize(item, root));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [virtualize(k, root), virtualize(v, root)]));
  }
  return value;
}

export function removeTree(root) {
  try {
    rmSync(root, { recursive: true, force: true });
  } catch {
    // a chmod 0 entry can resist removal; the OS temp cleaner gets it
  }
}
