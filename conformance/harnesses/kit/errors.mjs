// Errors the adapter chooses to give (PROTOCOL.md, "Errors you choose to give").
//
// InvalidInput: the arguments are outside the domain the adapter accepts; `field` names
// the argument (given, or read from a message written "field: what is wrong").
// Unsupported: the implementation's API cannot express this input. Any other error is
// `internal`. Messages never carry this machine's temp paths: a tree's root is
// stripped (paths read as the case wrote them, /ws/...), and a path in the adapter's own
// temp dir reads <tmp>/...; the JS stack goes only in `detail`.
//
// The adapter's own temp dir (`ownTmp`) is made when this module loads, before Pi's: it
// becomes TMPDIR (TMP, TEMP), so every temp file the adapter or Pi makes lies in it, and
// it is removed at exit. Only that directory, a random name, is rewritten: a virtual path
// that merely lies under /tmp (`/tmp/ws/AGENTS.md`) is the case's own and stays as it is.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ownTmp = realpathSync(mkdtempSync(join(tmpdir(), "ctxspec-pi-")));
for (const name of ["TMPDIR", "TMP", "TEMP"]) process.env[name] = ownTmp;
process.on("exit", () => rmSync(ownTmp, { recursive: true, force: true }));

export class InvalidInput extends Error {
  constructor(message, field) {
    super(message);
    this.field = field ?? /^([A-Za-z_$][\w$.[\]]*): /.exec(message)?.[1];
  }
}

export class Unsupported extends Error {}

// the wire error for a thrown value; `roots` are the tree roots made for this request
export function wireError(error, roots) {
  const shown = (text) => {
    let out = String(text);
    for (const root of roots) out = out.split(root).join("");
    return out.split(ownTmp).join("<tmp>");
  };
  const invalid = error instanceof InvalidInput;
  const type = invalid ? "invalid_input" : error instanceof Unsupported ? "unsupported" : "internal";
  const wire = { type, message: shown(error?.message ?? error) };
  if (invalid && error.field) wire.field = error.field;
  if (error?.stack) wire.detail = shown(error.stack);
  return wire;
}
