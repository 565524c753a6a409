// stream.tail: Pi's core/tools/output-accumulator.js fed the chunks one append each, then
// finish() and snapshot(); its temp file, if it made one, is read back, hashed and deleted.
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";

export default async function streamOps({ load, limit }) {
  const { OutputAccumulator } = await load("core/tools/output-accumulator.js");

  async function tail(a) {
    const chunks = (a.chunksB64 ?? []).map((c) => Buffer.from(c, "base64"));
    const accumulator = new OutputAccumulator({ maxLines: limit(a.maxLines), maxBytes: limit(a.maxBytes) });
    for (const chunk of chunks) accumulator.append(chunk);
    if (a.finish !== false) accumulator.finish();
    const snapshot = accumulator.snapshot({ persistIfTruncated: a.persistIfTruncated === true });
    await accumulator.closeTempFile();
    const result = {
      content: snapshot.content,
      truncation: snapshot.truncation,
      persisted: snapshot.fullOutputPath !== undefined,
      lastLineBytes: accumulator.getLastLineBytes(),
    };
    if (snapshot.fullOutputPath !== undefined) {
      const data = readFileSync(snapshot.fullOutputPath);
      rmSync(snapshot.fullOutputPath, { force: true });
      result.persistedSha256 = createHash("sha256").update(data).digest("hex");
      result.persistedBytes = data.length;
    }
    return result;
  }

  return { "stream.tail": tail };
}
