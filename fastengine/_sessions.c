/* fastengine._sessions: the C passes of the fast engine's session helpers.
 *
 * One walk over a session's entries for fastengine.tree.RunTree:
 *
 * scan(entries) -> (positions, breaks, headers, slots) for a list or tuple of plain dict
 * entries whose ids are all exact str, with exactly the values of RunTree's Python scan:
 *   positions: id -> position of the last entry with it,
 *   breaks:    positions whose parentId is not the previous entry's id (or is empty/not a str),
 *   headers:   positions of entries of type "session",
 *   slots:     per entry, the message of a "message" entry whose message is a dict with a
 *              content that is present and not None; None otherwise.
 * Anything else (an entry that is not a dict, an id that is not an exact str, a type or
 * parentId that is a str subclass) answers None, and the caller takes the Python scan,
 * which also raises the errors. Tested against it in tests/fastengine/test_sessions.py.
 * slots(entries) is scan's fourth list alone (its ids not read: no id need be a str).
 * scan_with_calls(entries, tools) adds a fifth list, [(position, kind, path), ...]: the
 * file_op_calls of each slot, gathered while the message is in the cache (compaction reads
 * them by range rather than walking the messages again); None also where file_op_calls
 * would answer None.
 *
 * file_op_calls(messages, tools) -> [(kind, path), ...] or None: the read/write/edit tool
 * calls of assistant messages that compaction's file operations gather, in order, where
 * `tools` maps a tool name to its kind. It answers None, leaving the work to the Python
 * loop, wherever a value is of a type JSON does not make (a dict or str subclass, another
 * Mapping), so only plain parsed JSON takes this path.
 *
 * nones(seq) -> [position, ...]: where a list or tuple holds None, found by comparing
 * pointers (Python's `index(None)` and `in` ask each item's type, a memory access per item).
 *
 * context_messages(entries, leaf[, slots]) -> the messages of the leaf's context when its
 * path is all plain message entries (the usual session), without building a RunTree;
 * `slots`, scan's slots of these entries when the caller has them, spares their lookups.
 *
 * slots_with_calls(entries, tools) -> (slots, calls): slots and scan_with_calls' calls
 * without the ids read (a path, already in order, needs no id table).
 *
 * path(entries, leaf) -> the entries of build_session_path(entries, leaf), walked as
 * context_messages walks, or None where the caller's Python must answer.
 *
 * without_headers(values) -> the values but the `session` headers, for exact dicts only.
 *
 * collect(entries, positions, breaks, old, target) -> (entries, lca id) or None: the
 * reference's collect_entries_for_branch_summary on a RunTree's lists (its entries, its
 * id -> position dict, its chain breaks) for exact str ids that are both truthy, every id
 * unique: each path is its runs (breaks) from the leaf up, the two compared run by run from
 * the root for where they part. None for anything else (a repeated id, a parentId that is
 * not an exact str, a cycle, an entry that is not a dict): the caller's Python answers,
 * which also raises the errors.
 *
 * The parse's passes (the lines parsed as one array) are in _parse.c.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_capi.h" /* append_index, new_dict, dict_get (exact dicts only) */

static PyObject *s_role, *s_assistant, *s_tool_call, *s_arguments, *s_name, *s_path;
static PyObject *s_id, *s_parent, *s_type, *s_message, *s_content, *s_session_kind, *s_message_kind;

/* Whether two exact str are equal: the same object (interned keys and literals), else the
 * same length, width and code units (what PyUnicode_Compare decides, without its calls). */
static int equal_str(PyObject *a, PyObject *b) {
    if (a == b) return 1;
    const Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    const int kind = PyUnicode_KIND(a);
    return n == PyUnicode_GET_LENGTH(b) && kind == (int)PyUnicode_KIND(b) &&
           memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * (size_t)kind) == 0;
}

static int same_str(PyObject *value, PyObject *literal) {
    return value != NULL && PyUnicode_CheckExact(value) && equal_str(value, literal);
}

/* 1 for a value of a type parsed JSON has that is not a str or dict (skipped as Python
 * skips it: unequal to any str, not a Mapping), 0 for anything else. */
static int plain_other(PyObject *value) {
    return value == Py_None || PyBool_Check(value) || PyLong_CheckExact(value) ||
           PyFloat_CheckExact(value) || PyList_CheckExact(value);
}

/* Whether `value` (borrowed, may be NULL) equals the str `literal`: 1, 0, or -1 for a value
 * this pass does not decide (a str subclass or an object of another type). */
static int str_is(PyObject *value, PyObject *literal) {
    if (value == NULL || plain_other(value)) return 0;
    if (!PyUnicode_CheckExact(value)) return -1;
    return equal_str(value, literal);
}

/* Whether `value` is read as a Mapping: 1 for a dict, 0 for another type parsed JSON has
 * (skipped, as Python skips what is not a Mapping), -1 for a value this pass leaves to
 * Python (a dict subclass, another Mapping, any other object). */
static int plain_dict(PyObject *value) {
    if (PyDict_CheckExact(value)) return 1;
    return (plain_other(value) || PyUnicode_CheckExact(value)) ? 0 : -1;
}

/* The str at `key` of the dict `owner`, in *value (NULL when absent or of another type):
 * 0, 1 for a str subclass (left to Python), or -1 with an exception set. */
static int str_field(PyObject *owner, PyObject *key, PyObject **value) {
    *value = dict_get(owner, key);
    if (*value == NULL) return PyErr_Occurred() ? -1 : 0;
    if (!PyUnicode_Check(*value)) {
        *value = NULL;
        return 0;
    }
    return PyUnicode_CheckExact(*value) ? 0 : 1;
}

/* The read/write/edit calls of one message, appended to `found` as (kind, path), or as
 * (position, kind, path) when position >= 0: 0, 1 for a value this pass leaves to Python
 * (see plain_dict and str_is), or -1 with an exception set. */
static int message_calls(PyObject *message, PyObject *tools, PyObject *found, Py_ssize_t position) {
    if (!PyDict_CheckExact(message)) return 1;
    PyObject *role = dict_get(message, s_role);
    if (role == NULL && PyErr_Occurred()) return -1;
    const int assistant = str_is(role, s_assistant);
    if (assistant <= 0) return -assistant; /* not an assistant's: none; undecided: Python's */
    PyObject *content = dict_get(message, s_content);
    if (content == NULL && PyErr_Occurred()) return -1;
    if (content == NULL || !PyList_Check(content)) return 0;
    if (!PyList_CheckExact(content)) return 1;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(content); j++) {
        PyObject *block = PyList_GET_ITEM(content, j);
        const int mapping = plain_dict(block);
        if (mapping < 0) return 1;
        if (!mapping) continue;
        PyObject *kind = dict_get(block, s_type);
        if (kind == NULL && PyErr_Occurred()) return -1;
        const int call = str_is(kind, s_tool_call);
        if (call < 0) return 1;
        if (!call) continue;
        /* the name first: most calls are of other tools, whose arguments are not read */
        PyObject *name, *path;
        int left = str_field(block, s_name, &name);
        if (left != 0) return left;
        if (name == NULL) continue;
        PyObject *tool = PyDict_GetItemWithError(tools, name);
        if (tool == NULL) { if (PyErr_Occurred()) return -1; continue; }
        if (tool == Py_None) continue;
        PyObject *arguments = dict_get(block, s_arguments);
        if (arguments == NULL) { if (PyErr_Occurred()) return -1; continue; }
        const int with_path = plain_dict(arguments);
        if (with_path < 0) return 1;
        if (!with_path) continue;
        left = str_field(arguments, s_path, &path);
        if (left != 0) return left;
        if (path == NULL || PyUnicode_GET_LENGTH(path) == 0) continue;
        PyObject *item = position < 0 ? PyTuple_Pack(2, tool, path)
                                      : Py_BuildValue("(nOO)", position, tool, path);
        if (item == NULL || PyList_Append(found, item) < 0) { Py_XDECREF(item); return -1; }
        Py_DECREF(item);
    }
    return 0;
}

/* scan, scan_with_calls when `tools` is not NULL, the slots alone (slots) when `only_slots` */
static PyObject *scan_entries(PyObject *entries, PyObject *tools, int only_slots) {
    if (!PyList_CheckExact(entries) && !PyTuple_CheckExact(entries)) Py_RETURN_NONE;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(entries);
    PyObject **items = PySequence_Fast_ITEMS(entries);
    PyObject *positions = only_slots ? NULL : new_dict(n);
    PyObject *breaks = only_slots ? NULL : PyList_New(0);
    PyObject *headers = only_slots ? NULL : PyList_New(0);
    PyObject *slots = PyList_New(n), *calls = tools == NULL ? NULL : PyList_New(0);
    PyObject *previous = NULL; /* borrowed: the previous entry's id */
    if ((!only_slots && (!positions || !breaks || !headers)) || !slots || (tools != NULL && !calls))
        goto error;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *entry = items[i];
        if (!PyDict_CheckExact(entry)) goto fallback;
        if (only_slots) goto slot;
        PyObject *key = dict_get(entry, s_id);
        if (key == NULL || !PyUnicode_CheckExact(key)) {
            if (PyErr_Occurred()) goto error;
            goto fallback;
        }
        PyObject *parent = dict_get(entry, s_parent);
        if (parent == NULL && PyErr_Occurred()) goto error;
        int chained = 0;
        if (parent != NULL && PyUnicode_Check(parent)) {
            if (!PyUnicode_CheckExact(parent)) goto fallback;
            if (previous != NULL && PyUnicode_GET_LENGTH(parent) > 0) {
                chained = equal_str(parent, previous);
            }
        }
        if (!chained) {
            if (append_index(breaks, i) < 0) goto error;
        }
        PyObject *at = PyLong_FromSsize_t(i);
        if (at == NULL || PyDict_SetItem(positions, key, at) < 0) { Py_XDECREF(at); goto error; }
        Py_DECREF(at);
        previous = key;
    slot:;
        PyObject *kind = dict_get(entry, s_type);
        if (kind == NULL && PyErr_Occurred()) goto error;
        if (kind != NULL && PyUnicode_Check(kind) && !PyUnicode_CheckExact(kind)) goto fallback;
        PyObject *slot = Py_None;
        if (same_str(kind, s_message_kind)) {
            PyObject *message = dict_get(entry, s_message);
            if (message == NULL && PyErr_Occurred()) goto error;
            if (message != NULL && PyDict_CheckExact(message)) {
                PyObject *content = dict_get(message, s_content);
                if (content == NULL && PyErr_Occurred()) goto error;
                if (content != NULL && content != Py_None) slot = message;
            }
            if (slot != Py_None && tools != NULL) { /* while the message is in the cache */
                const int left = message_calls(slot, tools, calls, i);
                if (left < 0) goto error;
                if (left > 0) goto fallback;
            }
        } else if (same_str(kind, s_session_kind) && !only_slots) {
            if (append_index(headers, i) < 0) goto error;
        }
        Py_INCREF(slot);
        PyList_SET_ITEM(slots, i, slot);
    }
    if (only_slots) return calls == NULL ? slots : Py_BuildValue("(NN)", slots, calls);
    if (calls != NULL) return Py_BuildValue("(NNNNN)", positions, breaks, headers, slots, calls);
    return Py_BuildValue("(NNNN)", positions, breaks, headers, slots);
fallback:
    Py_XDECREF(positions); Py_XDECREF(breaks); Py_XDECREF(headers); Py_XDECREF(slots);
    Py_XDECREF(calls);
    Py_RETURN_NONE;
error:
    Py_XDECREF(positions); Py_XDECREF(breaks); Py_XDECREF(headers); Py_XDECREF(slots);
    Py_XDECREF(calls);
    return NULL;
}


static PyObject *scan(PyObject *module, PyObject *entries) {
    (void)module;
    return scan_entries(entries, NULL, 0);
}

static PyObject *slots(PyObject *module, PyObject *entries) {
    (void)module;
    return scan_entries(entries, NULL, 1);
}

static PyObject *scan_with_calls(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *entries, *tools;
    if (!PyArg_ParseTuple(args, "OO!", &entries, &PyDict_Type, &tools)) return NULL;
    return scan_entries(entries, tools, 0);
}

static PyObject *slots_with_calls(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *entries, *tools;
    if (!PyArg_ParseTuple(args, "OO!", &entries, &PyDict_Type, &tools)) return NULL;
    return scan_entries(entries, tools, 1);
}

static PyObject *file_op_calls(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *messages, *tools;
    if (!PyArg_ParseTuple(args, "OO!", &messages, &PyDict_Type, &tools)) return NULL;
    if (!PyList_CheckExact(messages) && !PyTuple_CheckExact(messages)) Py_RETURN_NONE;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(messages);
    PyObject **items = PySequence_Fast_ITEMS(messages);
    PyObject *found = PyList_New(0);
    if (found == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        const int left = message_calls(items[i], tools, found, -1);
        if (left == 0) continue;
        Py_DECREF(found);
        if (left < 0) return NULL;
        Py_RETURN_NONE;
    }
    return found;
}

/* context_messages's id table: open addressing over (id, position), the last entry with an
 * id winning (Pi's Map, reference.session.index_entries). */
typedef struct {
    uint32_t hash; /* the id's str_hash, truncated */
    uint32_t at;   /* the entry's position + 1; 0: an empty slot (its id is ids[at - 1]) */
} Slot;

/* The table's hash of an exact str: FNV-1a over its code units. Not the str's own hash,
 * which would be computed (siphash) and stored in every id of a freshly parsed session,
 * the most of a first walk's time. */
static uint32_t str_hash(PyObject *text) {
    const unsigned char *data = PyUnicode_DATA(text);
    const size_t size = (size_t)PyUnicode_GET_LENGTH(text) * (size_t)PyUnicode_KIND(text);
    uint64_t hash = 14695981039346656037ull;
    for (size_t i = 0; i < size; i++) hash = (hash ^ data[i]) * 1099511628211ull;
    return (uint32_t)(hash ^ (hash >> 32));
}

/* The slot of `id` in the table (8 bytes a slot, the ids themselves in `ids`), or the
 * empty slot where it would go. */
static Slot *find(Slot *table, size_t mask, PyObject **ids, PyObject *id, uint32_t hash) {
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        Slot *slot = &table[i];
        if (slot->at == 0 || (slot->hash == hash && equal_str(ids[slot->at - 1], id)))
            return slot;
    }
}

/* context_messages(entries, leaf) -> tuple of messages, or None: the messages of
 * build_session_context(entries, leaf) when every entry on the leaf's path is a message
 * entry with a slot (see scan), for a list or tuple of exact dict entries with exact str
 * ids; `leaf` an exact str id (not found: the last entry, as leaf_position) or None for
 * the last entry. The path is walked one parentId at a time through an id table (no
 * Python dict, no int per entry), each entry read once, in order, for its id, parentId
 * and message; where no id repeats, a parentId that is the previous entry's id is that
 * entry, without a lookup (a run of the chain). None for anything else (another entry on the path, a
 * parentId that is neither a str nor null nor absent, a cycle, a str subclass anywhere
 * it is read): the caller takes RunTree's walk, which also raises the errors. */
static PyObject *context_messages(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *entries, *leaf, *known = Py_None;
    if (!PyArg_ParseTuple(args, "OO|O", &entries, &leaf, &known)) return NULL;
    if ((!PyList_CheckExact(entries) && !PyTuple_CheckExact(entries)) ||
        (leaf != Py_None && !PyUnicode_CheckExact(leaf)))
        Py_RETURN_NONE;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(entries);
    if (known != Py_None && !(PyList_CheckExact(known) && PyList_GET_SIZE(known) == n))
        Py_RETURN_NONE;
    PyObject **items = PySequence_Fast_ITEMS(entries);
    if (n == 0 || n >= UINT32_MAX) Py_RETURN_NONE;
    size_t size = 8;
    while (size < 2 * (size_t)n) size <<= 1;
    Slot *table = PyMem_Calloc(size, sizeof(Slot));
    Py_ssize_t *path = PyMem_Malloc((size_t)n * sizeof(Py_ssize_t));
    /* per entry, borrowed, read in one pass over the entries: its id, its parentId (NULL
     * when absent) and its message when it has a slot (NULL otherwise) */
    PyObject **ids = PyMem_Malloc(3 * (size_t)n * sizeof(PyObject *));
    PyObject **parents = ids + n, **messages = ids + 2 * n;
    PyObject *found = NULL;
    int unique = 1; /* no id repeats: the entry before one is its parent when ids match */
    if (table == NULL || path == NULL || ids == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *entry = items[i];
        if (!PyDict_CheckExact(entry)) goto refused;
        PyObject *id = dict_get(entry, s_id);
        if (id == NULL || !PyUnicode_CheckExact(id)) {
            if (PyErr_Occurred()) goto done;
            goto refused;
        }
        const uint32_t hash = str_hash(id);
        Slot *slot = find(table, size - 1, ids, id, hash);
        unique &= slot->at == 0;
        ids[i] = id;
        slot->hash = hash, slot->at = (uint32_t)i + 1;
        parents[i] = dict_get(entry, s_parent);
        if (known != Py_None) { /* the caller's slots (scan's): no lookups to the message */
            PyObject *slot = PyList_GET_ITEM(known, i);
            messages[i] = slot == Py_None ? NULL : slot;
            if (PyErr_Occurred()) goto done;
            continue;
        }
        PyObject *kind = dict_get(entry, s_type);
        PyObject *message = kind == NULL ? NULL : dict_get(entry, s_message);
        PyObject *content = message != NULL && PyDict_CheckExact(message)
                                ? dict_get(message, s_content)
                                : NULL;
        if (PyErr_Occurred()) goto done;
        const int kept = same_str(kind, s_message_kind) && content != NULL && content != Py_None;
        messages[i] = kept ? message : NULL;
    }
    Py_ssize_t at = n - 1, length = 0;
    if (leaf != Py_None && PyUnicode_GET_LENGTH(leaf) > 0) { /* "" is no id: the last entry */
        const uint32_t hash = str_hash(leaf);
        Slot *slot = find(table, size - 1, ids, leaf, hash);
        if (slot->at != 0) at = (Py_ssize_t)slot->at - 1;
    }
    for (;;) {
        if (length == n || messages[at] == NULL) goto refused; /* a cycle, another entry */
        path[length++] = at;
        PyObject *parent = parents[at];
        if (parent == NULL || parent == Py_None) break;
        if (!PyUnicode_CheckExact(parent)) goto refused;
        if (PyUnicode_GET_LENGTH(parent) == 0) break;
        if (unique && at > 0 && equal_str(parent, ids[at - 1])) { /* a run: no lookup */
            at--;
            continue;
        }
        const uint32_t hash = str_hash(parent);
        Slot *slot = find(table, size - 1, ids, parent, hash);
        if (slot->at == 0) break; /* a parent not in the session: the root */
        at = (Py_ssize_t)slot->at - 1;
    }
    found = PyTuple_New(length);
    if (found == NULL) goto done;
    for (Py_ssize_t k = 0; k < length; k++) {
        PyObject *message = messages[path[length - 1 - k]];
        Py_INCREF(message);
        PyTuple_SET_ITEM(found, k, message);
    }
    goto done;
refused:
    found = Py_None;
    Py_INCREF(found);
done:
    PyMem_Free(table);
    PyMem_Free(path);
    PyMem_Free(ids);
    if (PyErr_Occurred()) Py_CLEAR(found);
    return found;
}

/* path(entries, leaf) -> tuple of entries, or None: build_session_path(entries, leaf) for
 * a list or tuple of exact dict entries with exact str ids, `leaf` an exact str id (not
 * found, or "": the last entry) or None for the last entry, walked as context_messages
 * walks (an id table, a run of the chain without lookups), whatever the entries' types.
 * None for anything else (a parentId that is neither a str nor null nor absent, a str
 * subclass, a cycle): the caller takes the reference's walk, which also raises the errors. */
static PyObject *path(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *entries, *leaf;
    if (!PyArg_ParseTuple(args, "OO", &entries, &leaf)) return NULL;
    if ((!PyList_CheckExact(entries) && !PyTuple_CheckExact(entries)) ||
        (leaf != Py_None && !PyUnicode_CheckExact(leaf)))
        Py_RETURN_NONE;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(entries);
    PyObject **items = PySequence_Fast_ITEMS(entries);
    if (n == 0 || n >= UINT32_MAX) Py_RETURN_NONE;
    size_t size = 8;
    while (size < 2 * (size_t)n) size <<= 1;
    Slot *table = PyMem_Calloc(size, sizeof(Slot));
    Py_ssize_t *walked = PyMem_Malloc((size_t)n * sizeof(Py_ssize_t));
    PyObject **ids = PyMem_Malloc(2 * (size_t)n * sizeof(PyObject *)); /* borrowed */
    PyObject **parents = ids + n;
    PyObject *found = NULL;
    int unique = 1;
    if (table == NULL || walked == NULL || ids == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *entry = items[i];
        if (!PyDict_CheckExact(entry)) goto refused;
        PyObject *id = dict_get(entry, s_id);
        if (id == NULL || !PyUnicode_CheckExact(id)) {
            if (PyErr_Occurred()) goto done;
            goto refused;
        }
        const uint32_t hash = str_hash(id);
        Slot *slot = find(table, size - 1, ids, id, hash);
        unique &= slot->at == 0;
        ids[i] = id;
        slot->hash = hash, slot->at = (uint32_t)i + 1;
        parents[i] = dict_get(entry, s_parent);
        if (parents[i] == NULL && PyErr_Occurred()) goto done;
    }
    Py_ssize_t at = n - 1, length = 0;
    if (leaf != Py_None && PyUnicode_GET_LENGTH(leaf) > 0) {
        Slot *slot = find(table, size - 1, ids, leaf, str_hash(leaf));
        if (slot->at != 0) at = (Py_ssize_t)slot->at - 1;
    }
    for (;;) {
        if (length == n) goto refused; /* a cycle */
        walked[length++] = at;
        PyObject *parent = parents[at];
        if (parent == NULL || parent == Py_None) break;
        if (!PyUnicode_CheckExact(parent)) goto refused;
        if (PyUnicode_GET_LENGTH(parent) == 0) break;
        if (unique && at > 0 && equal_str(parent, ids[at - 1])) {
            at--;
            continue;
        }
        Slot *slot = find(table, size - 1, ids, parent, str_hash(parent));
        if (slot->at == 0) break; /* a parent not in the session: the root */
        at = (Py_ssize_t)slot->at - 1;
    }
    found = PyTuple_New(length);
    if (found == NULL) goto done;
    for (Py_ssize_t k = 0; k < length; k++) {
        PyObject *entry = items[walked[length - 1 - k]];
        Py_INCREF(entry);
        PyTuple_SET_ITEM(found, k, entry);
    }
    goto done;
refused:
    found = Py_None;
    Py_INCREF(found);
done:
    PyMem_Free(table);
    PyMem_Free(walked);
    PyMem_Free(ids);
    if (PyErr_Occurred()) Py_CLEAR(found);
    return found;
}

/* without_headers(values) -> tuple: the values whose "type" is not "session", for a list
 * or tuple of exact dicts, in one pass; None for anything else (a value that is not an
 * exact dict, a type that is a str subclass): the caller's Python answers. */
static PyObject *without_headers(PyObject *module, PyObject *values) {
    (void)module;
    if (!PyList_CheckExact(values) && !PyTuple_CheckExact(values)) Py_RETURN_NONE;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    PyObject **items = PySequence_Fast_ITEMS(values);
    char *header = PyMem_Calloc((size_t)n + 1, 1);
    if (header == NULL) return PyErr_NoMemory();
    Py_ssize_t kept = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyDict_CheckExact(items[i])) goto refused;
        PyObject *kind = dict_get(items[i], s_type);
        if (kind == NULL && PyErr_Occurred()) goto failed;
        const int is = str_is(kind, s_session_kind);
        if (is < 0) goto refused;
        header[i] = (char)is;
        kept -= is;
    }
    PyObject *found = PyTuple_New(kept);
    if (found == NULL) goto failed;
    for (Py_ssize_t i = 0, k = 0; i < n; i++) {
        if (header[i]) continue;
        Py_INCREF(items[i]);
        PyTuple_SET_ITEM(found, k++, items[i]);
    }
    PyMem_Free(header);
    return found;
refused:
    PyMem_Free(header);
    Py_RETURN_NONE;
failed:
    PyMem_Free(header);
    return NULL;
}

static PyObject *nones(PyObject *module, PyObject *seq) {
    (void)module;
    if (!PyList_CheckExact(seq) && !PyTuple_CheckExact(seq)) {
        PyErr_SetString(PyExc_TypeError, "nones() takes a list or a tuple");
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *found = PyList_New(0);
    if (found == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (items[i] != Py_None) continue;
        if (append_index(found, i) < 0) {
            Py_DECREF(found);
            return NULL;
        }
    }
    return found;
}

/* The path root -> entries[leaf] as (first, last) position ranges, root first, in `runs`
 * (room for n pairs): the number of ranges, or -1 for a path this pass leaves to Python
 * (a parentId that is not an exact str, a run start outside `breaks`, a cycle), or -2
 * with an exception set. */
static Py_ssize_t path_runs(PyObject **items, Py_ssize_t n, PyObject *positions,
                            PyObject **breaks, Py_ssize_t nbreaks, Py_ssize_t leaf,
                            Py_ssize_t *runs) {
    Py_ssize_t count = 0, length = 0, at = leaf;
    while (at >= 0) {
        Py_ssize_t low = 0, high = nbreaks; /* the last break <= at (bisect_right - 1) */
        while (low < high) {
            const Py_ssize_t mid = (low + high) / 2;
            const Py_ssize_t value = PyLong_AsSsize_t(breaks[mid]);
            if (value == -1 && PyErr_Occurred()) return -2;
            if (at < value) high = mid;
            else low = mid + 1;
        }
        if (low == 0) return -1;
        const Py_ssize_t start = PyLong_AsSsize_t(breaks[low - 1]);
        if (start == -1 && PyErr_Occurred()) return -2;
        if (start < 0 || start > at) return -1;
        length += at + 1 - start;
        if (length > n || count == n) return -1; /* an entry came back: a cycle */
        runs[2 * count] = start, runs[2 * count + 1] = at;
        count++;
        PyObject *entry = items[start];
        if (!PyDict_CheckExact(entry)) return -1;
        PyObject *parent = dict_get(entry, s_parent);
        if (parent == NULL && PyErr_Occurred()) return -2;
        if (parent == NULL || parent == Py_None) break;
        if (!PyUnicode_CheckExact(parent)) return -1;
        if (PyUnicode_GET_LENGTH(parent) == 0) break;
        PyObject *found = PyDict_GetItemWithError(positions, parent);
        if (found == NULL) {
            if (PyErr_Occurred()) return -2;
            break; /* a parent not in the session: the root */
        }
        at = PyLong_AsSsize_t(found);
        if (at == -1 && PyErr_Occurred()) return -2;
        if (at >= n) return -1;
    }
    for (Py_ssize_t i = 0, j = count - 1; i < j; i++, j--) { /* root first */
        const Py_ssize_t a = runs[2 * i], b = runs[2 * i + 1];
        runs[2 * i] = runs[2 * j], runs[2 * i + 1] = runs[2 * j + 1];
        runs[2 * j] = a, runs[2 * j + 1] = b;
    }
    return count;
}

/* The position of the str `id` in `positions`: -1 when absent, -2 with an exception set,
 * -3 for a position that is no int below n. */
static Py_ssize_t position_of(PyObject *positions, PyObject *id, Py_ssize_t n) {
    PyObject *found = PyDict_GetItemWithError(positions, id);
    if (found == NULL) return PyErr_Occurred() ? -2 : -1;
    const Py_ssize_t at = PyLong_AsSsize_t(found);
    if (at == -1 && PyErr_Occurred()) return -2;
    return at >= 0 && at < n ? at : -3;
}

static PyObject *collect(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *entries, *positions, *breaks, *old, *target;
    if (!PyArg_ParseTuple(args, "OOOOO", &entries, &positions, &breaks, &old, &target))
        return NULL;
    if ((!PyList_CheckExact(entries) && !PyTuple_CheckExact(entries)) ||
        !PyDict_CheckExact(positions) || !PyList_CheckExact(breaks) ||
        !PyUnicode_CheckExact(old) || !PyUnicode_CheckExact(target) ||
        PyUnicode_GET_LENGTH(old) == 0 || PyUnicode_GET_LENGTH(target) == 0)
        Py_RETURN_NONE;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(entries);
    if (PyDict_GET_SIZE(positions) != n || n == 0) Py_RETURN_NONE; /* ids repeat, or none */
    PyObject **items = PySequence_Fast_ITEMS(entries);
    PyObject **cuts = PySequence_Fast_ITEMS(breaks);
    const Py_ssize_t ncuts = PyList_GET_SIZE(breaks);
    const Py_ssize_t old_at = position_of(positions, old, n);
    const Py_ssize_t target_at = position_of(positions, target, n);
    if (old_at == -2 || target_at == -2) return NULL;
    if (old_at == -3 || target_at == -3) Py_RETURN_NONE;
    Py_ssize_t *runs = PyMem_Malloc(4 * (size_t)n * sizeof(Py_ssize_t));
    if (runs == NULL) return PyErr_NoMemory();
    Py_ssize_t *old_runs = runs, *target_runs = runs + 2 * n;
    PyObject *found = NULL;
    Py_ssize_t nold = 0, ntarget = 0;
    if (old_at >= 0 && (nold = path_runs(items, n, positions, cuts, ncuts, old_at, old_runs)) < 0)
        goto left;
    if (target_at >= 0 &&
        (ntarget = path_runs(items, n, positions, cuts, ncuts, target_at, target_runs)) < 0)
        goto left;
    /* where the paths part: `common` the LCA's position, the old path kept below it from
     * range `from` (its first range starting at `first`) */
    Py_ssize_t common = -1, from = nold < ntarget ? nold : ntarget, first = -1;
    for (Py_ssize_t k = 0; k < nold && k < ntarget; k++) {
        const Py_ssize_t old_first = old_runs[2 * k], old_last = old_runs[2 * k + 1];
        const Py_ssize_t target_first = target_runs[2 * k], target_last = target_runs[2 * k + 1];
        if (old_first != target_first) {
            from = k;
            break;
        }
        common = old_last < target_last ? old_last : target_last;
        if (old_last != target_last) {
            from = k + 1;
            if (common < old_last) from = k, first = common + 1;
            break;
        }
    }
    Py_ssize_t length = 0;
    for (Py_ssize_t k = from; k < nold; k++)
        length += old_runs[2 * k + 1] + 1 - (k == from && first >= 0 ? first : old_runs[2 * k]);
    PyObject *kept = PyTuple_New(length);
    if (kept == NULL) goto done;
    Py_ssize_t put = 0;
    for (Py_ssize_t k = from; k < nold; k++) {
        const Py_ssize_t begin = k == from && first >= 0 ? first : old_runs[2 * k];
        for (Py_ssize_t at = begin; at <= old_runs[2 * k + 1]; at++) {
            Py_INCREF(items[at]);
            PyTuple_SET_ITEM(kept, put++, items[at]);
        }
    }
    PyObject *lca = Py_None;
    if (common >= 0) {
        PyObject *entry = items[common];
        if (!PyDict_CheckExact(entry)) {
            Py_DECREF(kept);
            goto left;
        }
        lca = dict_get(entry, s_id);
        if (lca == NULL) {
            if (PyErr_Occurred()) {
                Py_DECREF(kept);
                goto done;
            }
            lca = Py_None;
        }
    }
    found = PyTuple_Pack(2, kept, lca);
    Py_DECREF(kept);
    goto done;
left:
    if (!PyErr_Occurred()) {
        found = Py_None;
        Py_INCREF(found);
    }
done:
    PyMem_Free(runs);
    return found;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_O, "A session's ids, chain breaks, headers and messages in one pass."},
    {"slots", slots, METH_O, "scan's slots alone."},
    {"scan_with_calls", scan_with_calls, METH_VARARGS,
     "scan, and the read/write/edit calls of each message found, with its position."},
    {"file_op_calls", file_op_calls, METH_VARARGS,
     "The (kind, path) of each read/write/edit tool call of assistant messages."},
    {"nones", nones, METH_O, "The positions of None in a list or tuple."},
    {"slots_with_calls", slots_with_calls, METH_VARARGS,
     "slots, and scan_with_calls' calls: (slots, calls)."},
    {"without_headers", without_headers, METH_O,
     "The values whose type is not \"session\", or None."},
    {"path", path, METH_VARARGS, "The entries of build_session_path(entries, leaf), or None."},
    {"context_messages", context_messages, METH_VARARGS,
     "The messages of a path of plain message entries, or None."},
    {"collect", collect, METH_VARARGS,
     "The old leaf's entries below its LCA with the target, and the LCA's id, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "ctxspec.fastengine._sessions", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__sessions(void) {
    s_id = PyUnicode_InternFromString("id");
    s_parent = PyUnicode_InternFromString("parentId");
    s_type = PyUnicode_InternFromString("type");
    s_message = PyUnicode_InternFromString("message");
    s_content = PyUnicode_InternFromString("content");
    s_session_kind = PyUnicode_InternFromString("session");
    s_message_kind = PyUnicode_InternFromString("message");
    s_role = PyUnicode_InternFromString("role");
    s_assistant = PyUnicode_InternFromString("assistant");
    s_tool_call = PyUnicode_InternFromString("toolCall");
    s_arguments = PyUnicode_InternFromString("arguments");
    s_name = PyUnicode_InternFromString("name");
    s_path = PyUnicode_InternFromString("path");
    if (!s_role || !s_assistant || !s_tool_call || !s_arguments || !s_name || !s_path) return NULL;
    if (!s_id || !s_parent || !s_type || !s_message || !s_content || !s_session_kind) return NULL;
    return PyModule_Create(&module);
}
