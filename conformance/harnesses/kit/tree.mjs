// Virtual file trees of protocol v1 (see conformance/harnesses/kit/tree.py for the format):
// lay one out in a fresh temp directory, and map real paths in results back to virtual.
// The same checks as tree.py keep every write and read inside that directory: relative
// paths without "..", nothing under a file or a link, link targets relative with their
// ".." first and staying in the tree, ".." in a virtual path stopping at its root.
import { mkdtempSync, mkdirSync, writeFileSync, symlinkSync, chmodSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { InvalidInput } from "./errors.mjs";
import { editStrings } from "./jsontext.mjs";

// the roots made since the last takeRoots(): the adapter strips them from error messages
const made = new Set();
export function takeRoots() {
  const roots = [...made];
  made.clear();
  return roots;
}

const bad = (message) => new InvalidInput(`tree: ${message}`, "tree");
const segments = (path) => path.split("/").filter((part) => part !== "" && part !== ".");

export function validateTree(tree) {
  if (tree === null || typeof tree !== "object" || Array.isArray(tree)) throw bad("must be a mapping of paths to entries");
  const leaves = new Set();
  for (const [path, entry] of Object.entries(tree)) {
    const parts = segments(path);
    if (path.startsWith("/") || parts.includes("..") || parts.length === 0) {
      throw bad(`'${path}' is not a relative path inside the tree`);
    }
    if (path.endsWith("/")) continue;
    const known = typeof entry === "string" || (entry && typeof entry === "object" && (
      Object.keys(entry).join() === "symlink" ||
      Object.keys(entry).every((key) => ["content", "contentB64", "mode"].includes(key))));
    if (!known) throw bad(`'${path}': unknown entry ${JSON.stringify(entry)}`);
    if (typeof entry === "object" && "symlink" in entry) checkLink(path, parts, entry.symlink);
    leaves.add(parts.join("/"));
  }
  for (const path of Object.keys(tree)) {
    const parts = segments(path);
    for (let n = 1; n < parts.length; n++) {
      if (leaves.has(parts.slice(0, n).join("/"))) {
        throw bad(`'${parts.slice(0, n).join("/")}' is a file or a link and has entries under it`);
      }
    }
  }
  return tree;
}

function checkLink(path, parts, target) {
  if (typeof target !== "string" || target === "" || target.startsWith("/")) {
    throw bad(`'${path}': a link target is a non-empty relative path`);
  }
  const steps = segments(target);
  let ups = 0;
  while (ups < steps.length && steps[ups] === "..") ups++;
  if (steps.slice(ups).includes("..")) throw bad(`'${path}': in a link target, \`..\` comes first ('${target}')`);
  if (ups > parts.length - 1) throw bad(`'${path}': the link target '${target}' leaves the tree`);
}

export function materialize(tree) {
  validateTree(tree ?? {});
  const root = realpathSync(mkdtempSync(join(tmpdir(), "ctxspec-tree-")));
  made.add(root);
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

// the real path of a virtual absolute path ("/ws/repo" -> root + "/ws/repo"); ".." stops
// at the virtual root, as in the reference ("/../etc" -> root + "/etc")
export function realPath(root, virtual) {
  const normal = posix.normalize("/" + String(virtual)).replace(/^\/+/, ""); // keeps a final "/"
  return normal === "" ? root : root + "/" + normal;
}

// An explicit resource path as Pi's resolvePath reads it (trimmed, `~` from $HOME, else
// relative to cwd), given to Pi so that it lands inside the tree: an absolute path is
// mapped under the root with its padding kept (Pi trims it); a relative or `~` path is
// passed as written when Pi's own resolution stays inside the tree, else (its `..` climb
// past the root) mapped like an absolute one, `..` stopping at the root. A file: URL
// would name a path of the machine: refused. `cwd` and `home` are virtual.
export function pathArgument(root, raw, { cwd, home, field }) {
  if (typeof raw !== "string") throw new InvalidInput(`${field}: a path is a string`, field);
  const core = raw.trim();
  if (core === "") return raw;
  const lead = raw.slice(0, raw.indexOf(core));
  const tail = raw.slice(lead.length + core.length);
  if (/^file:\/\//.test(core)) throw new InvalidInput(`${field}: '${raw}': a file: URL names no path of the tree`, field);
  const absolute = core.startsWith("/");
  const tilde = core === "~" || core.startsWith("~/");
  if (tilde && !home) throw new InvalidInput(`home: needed to expand '${raw}'`, "home");
  const base = absolute ? "/" : tilde ? home : cwd;
  const rest = tilde ? core.slice(2) : core;
  let depth = 0;
  let inside = true;
  for (const part of [...segments(base), ...segments(rest)]) {
    depth += part === ".." ? -1 : 1;
    if (depth < 0) inside = false;
  }
  if (!inside) return lead + realPath(root, `${base}/${rest}`) + tail;
  // inside the tree: a relative or `~` path as written, an absolute one under the root
  // as written (so Pi shows it as given once the root is stripped)
  return absolute ? lead + root + core + tail : raw;
}

// A settings file's resource paths, confined to the tree as pathArgument confines an
// argument: plain entries of `extensions`, `skills`, `prompts`, `themes` and package
// sources, read against `base` (the settings file's directory); patterns stay. Only the
// entries that change are rewritten, in place (jsontext.mjs): the rest of the file keeps
// its bytes, and a file with nothing to map (or that is no JSON) is not written.
const RESOURCE_LISTS = new Set(["extensions", "skills", "prompts", "themes", "packages"]);
export function confineSettings(root, file, { base, home }) {
  const isPattern = (entry) => /^[!+-]/.test(entry) || entry.includes("*") || entry.includes("?");
  const isEntry = ({ path, isKey }) =>
    !isKey && RESOURCE_LISTS.has(path[0]) && typeof path[1] === "number" &&
    (path.length === 2 || (path.length === 3 && path[0] === "packages" && path[2] === "source"));
  editStrings(file, (token) =>
    isEntry(token) && !isPattern(token.value) ? pathArgument(root, token.value, { cwd: base, home, field: "tree" }) : undefined,
  );
}

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
