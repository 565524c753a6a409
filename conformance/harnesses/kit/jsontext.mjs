// A JSON file's string tokens, edited in place. An adapter that must map paths inside a
// file of the case's tree (a trust store's keys, a settings file's resource paths) swaps
// only those tokens in the file's bytes: its BOM, whitespace, key order, duplicate keys,
// number spelling, escapes and any byte that is not UTF-8 reach the implementation as the
// case wrote them. Structure is found on the bytes: every JSON delimiter is ASCII and no
// byte of a multi-byte UTF-8 character is, so no decoding (which would replace bad bytes)
// happens outside the tokens that change.
import { readFileSync, writeFileSync } from "node:fs";

const BOM = [0xef, 0xbb, 0xbf];
const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

// Every string token of `data` (the bytes of one JSON value, an optional UTF-8 BOM first),
// as {path, isKey, start, end, value}: `path` the keys and indexes leading to it (a key's
// path ends with the key itself), `start`..`end` the token's bytes, quotes included, and
// `value` its decoded text. Null when `data` is not JSON (strictly: one value, nothing after).
export function stringTokens(data) {
  const tokens = [];
  let at = BOM.every((byte, i) => data[i] === byte) ? BOM.length : 0;
  const skipSpace = () => {
    while (at < data.length && SPACE.has(data[at])) at++;
  };
  const fail = () => {
    throw new SyntaxError("not JSON");
  };
  // a string token at `at`, recorded under `path`; its decoded text
  const string = (path, isKey) => {
    const start = at++;
    while (at < data.length && data[at] !== QUOTE) at += data[at] === BACKSLASH ? 2 : 1;
    if (at >= data.length) fail();
    at++;
    const text = JSON.parse(Buffer.from(data.subarray(start, at)).toString("utf8"));
    tokens.push({ path: isKey ? [...path, text] : path, isKey, start, end: at, value: text });
    return text;
  };
  const value = (path) => {
    skipSpace();
    const byte = data[at];
    if (byte === QUOTE) return void string(path, false);
    if (byte === 0x7b || byte === 0x5b) {
      const object = byte === 0x7b;
      const close = object ? 0x7d : 0x5d;
      at++;
      skipSpace();
      if (data[at] === close) return void at++;
      for (let index = 0; ; index++) {
        let step = index;
        if (object) {
          skipSpace();
          if (data[at] !== QUOTE) fail();
          step = string(path, true);
          skipSpace();
          if (data[at++] !== 0x3a) fail();
        }
        value([...path, step]);
        skipSpace();
        const next = data[at++];
        if (next === close) return;
        if (next !== 0x2c) fail();
      }
    }
    // a number or a literal: its bytes up to the next delimiter, checked by JSON.parse
    const start = at;
    while (at < data.length && !SPACE.has(data[at]) && ![0x2c, 0x5d, 0x7d, 0x3a].includes(data[at])) at++;
    if (at === start) fail();
    JSON.parse(Buffer.from(data.subarray(start, at)).toString("latin1"));
  };
  try {
    value([]);
    skipSpace();
    if (at !== data.length) fail();
  } catch {
    return null;
  }
  return tokens;
}

// `data` with the string tokens `replace(token)` gives a new text for swapped in (undefined:
// the token stays); null when nothing changed or `data` is not JSON. A new text that ends
// with the old one (a prefix added, as R + a virtual path) keeps the old token's own
// spelling after the prefix.
export function replaceStrings(data, replace) {
  const tokens = stringTokens(data);
  if (tokens === null) return null;
  const parts = [];
  let from = 0;
  for (const token of tokens) {
    const text = replace(token);
    if (text === undefined || text === token.value) continue;
    let spelled;
    if (text.endsWith(token.value)) {
      const prefix = JSON.stringify(text.slice(0, text.length - token.value.length)).slice(1, -1);
      spelled = Buffer.concat([Buffer.from('"' + prefix), data.subarray(token.start + 1, token.end)]);
    } else {
      spelled = Buffer.from(JSON.stringify(text));
    }
    parts.push(data.subarray(from, token.start), spelled);
    from = token.end;
  }
  if (parts.length === 0) return null;
  parts.push(data.subarray(from));
  return Buffer.concat(parts);
}

// `file` with its string tokens replaced as `replaceStrings` replaces them; the file is
// written only when a token changed. True when it was written.
export function editStrings(file, replace) {
  const edited = replaceStrings(readFileSync(file), replace);
  if (edited === null) return false;
  writeFileSync(file, edited);
  return true;
}

// A JSON object file's own keys mapped in place (`mapKey(key)`: the new key), nothing
// else touched: how an adapter turns a literal store's virtual paths into real ones.
export function mapObjectKeys(file, mapKey) {
  return editStrings(file, (token) => (token.isKey && token.path.length === 1 ? mapKey(token.value) : undefined));
}
