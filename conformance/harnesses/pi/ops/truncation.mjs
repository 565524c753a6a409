// truncate.head, truncate.tail, truncate.line, format.size: Pi's core/tools/truncate.js.
export default async function truncationOps({ load, limit }) {
  const truncate = await load("core/tools/truncate.js");
  const limits = (args) => ({ maxLines: limit(args.maxLines), maxBytes: limit(args.maxBytes) });
  return {
    "truncate.head": (a) => truncate.truncateHead(a.content, limits(a)),
    "truncate.tail": (a) => truncate.truncateTail(a.content, limits(a)),
    "truncate.line": (a) => truncate.truncateLine(a.line, limit(a.maxChars)),
    "format.size": (a) => truncate.formatSize(a.bytes),
  };
}
