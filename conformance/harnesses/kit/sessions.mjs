// Session arguments of protocol v1 for the Node and Bun adapters, one reading for all.
//
// sessionArgs(parse): `entriesOf(a)` (the wire's `entries`, or `jsonl` parsed by `parse`,
// the implementation's own parser) and `leafOf(a)` (`leafId` when given, else undefined:
// the implementation's own default leaf).
// guardedIndex(entries, who, { holes }): the id -> entry index Pi builds (and the fork),
// with a lookup budget: Pi walks parentIds with no guard, so a cycle never returns; the
// budget turns the endless walk into an error. It changes no answer that ends. An entry
// that is not an object (null) throws, as Pi's own indexing does, unless `holes` (the
// fork's adapter indexes it under undefined and lets the fork decide).

export function sessionArgs(parse) {
  return {
    entriesOf: (a) => (a.jsonl !== undefined ? parse(a.jsonl) : a.entries),
    leafOf: (a) => ("leafId" in a ? a.leafId : undefined),
  };
}

export function guardedIndex(entries, who = "Pi's", { holes = false } = {}) {
  const index = new Map();
  for (const entry of entries) index.set(holes ? entry?.id : entry.id, entry);
  let budget = 4 * (entries.length + 2);
  const get = index.get.bind(index);
  index.get = (key) => {
    if (--budget < 0) throw new Error(`${who} path walk does not end: a parentId cycle (it hangs)`);
    return get(key);
  };
  return index;
}
