// An engine's own words, as the protocol writes them (PROTOCOL.md, "An engine's words").
//
// Where Pi passes on an error its runtime raised (Node's file-system errors and argument
// checks, V8's TypeError, SyntaxError, RangeError), the words are the runtime's, not
// Pi's, and a port in another language cannot give them. On the wire such an error is
// its kind in angle brackets, Pi's own words around it kept:
//   ENOENT: no such file or directory, access '/w/x'      ->  <ENOENT /w/x>
//   EISDIR: illegal operation on a directory, read        ->  <EISDIR>
//   Cannot read properties of undefined (reading 'a')     ->  <TypeError>
//   Failed to parse theme /t.json: SyntaxError: Unexp...  ->  Failed to parse theme /t.json: <SyntaxError>
//   The argument 'args[5]' must be a string without null bytes. Received 'a\x00b'
//                                                         ->  <NUL in pattern>
// The rules are data: each recognises a whole message (the runtime's), anchored at both
// ends. A text that matches none is left as it is, so a wording this table misses shows
// as a difference from the reference, never as a silent pass.
import { inspect } from "node:util";

// a JavaScript exception written with its class first, as String(error) writes it
const CLASS_FIRST = /^(TypeError|SyntaxError|RangeError|ReferenceError)(?: \[ERR_[A-Z_]+\])?: /s;

// V8's and Node's messages without the class, each with the class it belongs to
const MESSAGES = [
  ["TypeError", /^Cannot read properties of (?:undefined|null) \(reading '.*'\)$/s],
  ["TypeError", /^Cannot set properties of (?:undefined|null) \(setting '.*'\)$/s],
  ["TypeError", /^Cannot use 'in' operator to search for '.*' in .*$/s],
  ["TypeError", /^[\w$.[\]]+ is not (?:a function|iterable|a constructor)$/s],
  ["TypeError", /^Cannot convert undefined or null to object$/],
  ["TypeError", /^The "[^"]+" (?:argument|property) must be .*\. Received .*$/s],
  ["SyntaxError", /^(?:Unexpected|Expected|Unterminated|Bad|No number|Exponent part) .*JSON.*$/s],
  ["RangeError", /^(?:Maximum call stack size exceeded|Invalid string length|Invalid array length)$/],
];

// a file-system error: code, description, the call, and the path it named (if any)
const SYSTEM = /^(E[A-Z0-9]+): [^,\n]*, [a-z]+(?: '(.*?)')?(?: -> '.*')?$/s;

// Node's refusal of a string that holds U+0000 (ERR_INVALID_ARG_VALUE)
const NUL = /^The (?:argument|property) '[^']*' must be [^.]*without null bytes\. Received (.*)$/s;

// Node's rendering of a refused value (util.inspect, cut at 128 code units)
function shown(value) {
  const text = inspect(value);
  return text.length > 128 ? `${text.slice(0, 128)}...` : text;
}

// A whole message of the runtime, as the protocol writes it; null when it is none.
// `params`: the call's string parameters a refused NUL may come from, {name: value}.
function kindOf(message, params) {
  const system = SYSTEM.exec(message);
  if (system) return system[2] === undefined ? `<${system[1]}>` : `<${system[1]} ${system[2]}>`;
  const nul = NUL.exec(message);
  if (nul) {
    const holding = Object.entries(params).filter(([, value]) => typeof value === "string" && value.includes("\0"));
    const named = holding.length === 1 ? holding[0] : holding.find(([, value]) => shown(value) === nul[1]);
    return named ? `<NUL in ${named[0]}>` : null;
  }
  const classed = CLASS_FIRST.exec(message);
  if (classed) return `<${classed[1]}>`;
  const known = MESSAGES.find(([, pattern]) => pattern.test(message));
  return known ? `<${known[0]}>` : null;
}

// `text` with the runtime's message in it written as its kind: the whole text, or what
// follows Pi's own prefix (`Failed to read trust store <path>: ` + Node's message)
export function portable(text, params = {}) {
  if (typeof text !== "string") return text;
  for (let start = 0; start !== -1; start = text.indexOf(": ", start + 1)) {
    const from = start === 0 ? 0 : start + 2;
    const kind = kindOf(text.slice(from), params);
    if (kind !== null) return text.slice(0, from) + kind;
  }
  return text;
}
