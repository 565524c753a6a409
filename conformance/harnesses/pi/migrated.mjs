// SessionManager.inMemory over a case's entries, the ids Pi draws named.
//
// A session whose header asks for the v1 -> v2 migration (version 1, or none) gets a new
// random id on every entry (Pi's generateId: 8 hex digits from randomUUID) and the entry
// before it as parent; a case cannot know those ids, so they are renamed m-1, m-2, ... in
// file order, everywhere Pi wrote one (id, parentId, the firstKeptEntryId taken from a
// compaction's firstKeptEntryIndex), and Pi's index is rebuilt (protocol: "Session
// versions"). Nothing changes for a session that needs no new ids.
export function inMemoryManager(sessions, cwd, entries) {
  const given = entries.map((e) => (e !== null && typeof e === "object" ? e.id : undefined));
  const sm = sessions.SessionManager.inMemory(cwd, undefined, entries);
  const files = sm.fileEntries;
  if (files !== entries || typeof sm._buildIndex !== "function") return sm; // no header: no migration
  const names = new Map();
  entries.forEach((e, i) => {
    if (e !== null && typeof e === "object" && e.type !== "session" && e.id !== given[i]) {
      names.set(e.id, `m-${names.size + 1}`);
    }
  });
  if (names.size === 0) return sm;
  for (const e of entries) {
    if (e === null || typeof e !== "object" || e.type === "session") continue;
    if (names.has(e.id)) e.id = names.get(e.id);
    if (names.has(e.parentId)) e.parentId = names.get(e.parentId);
    if (e.type === "compaction" && names.has(e.firstKeptEntryId)) e.firstKeptEntryId = names.get(e.firstKeptEntryId);
  }
  sm._buildIndex();
  return sm;
}
