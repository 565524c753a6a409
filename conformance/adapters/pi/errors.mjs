// Errors the adapter chooses to give (PROTOCOL.md, "Errors you choose to give").
//
// InvalidInput: the arguments are outside the domain the adapter accepts; `field` names
// the argument (given, or read from a message written "field: what is wrong").
// Unsupported: the implementation's API cannot express this input. Any other error is
// `internal`. Messages never carry this machine's temp paths: a tree's root is
// stripped (paths read as the case wrote them, /ws/...), any other temp path reads
// <tmp>/...; the JS stack goes only in `detail`.
import { tmpdir } from "node:os";

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
    return out.split(tmpdir()).join("<tmp>");
  };
  const invalid = error instanceof InvalidInput;
  const type = invalid ? "invalid_input" : error instanceof Unsupported ? "unsupported" : "internal";
  const wire = { type, message: shown(error?.message ?? error) };
  if (invalid && error.field) wire.field = error.field;
  if (error?.stack) wire.detail = shown(error.stack);
  return wire;
}
