/* fastengine._tokens: Pi's chars/4 token estimate of plain parsed messages, in C.
 *
 * message_tokens(message) -> int or None: reference.tokens.estimate_tokens(message) for a
 * message of plain parsed JSON that the estimate reads without surprise (an exact dict
 * with an exact str role; content, text, thinking, name, command, output, summary exact
 * str where the estimate measures them; content blocks exact dicts; tool-call arguments
 * exact dicts of exact str keys whose values are such dicts or exact str JSON.stringify
 * writes as they are: no quote, backslash, control character or surrogate). Anything
 * else answers None and the caller asks the reference, which also raises its errors.
 *
 * context_tokens(messages) -> (tokens, usageTokens, trailingTokens, lastUsageIndex) or
 * None: reference.tokens.estimate_context_tokens(messages) for a list or tuple of exact
 * dict messages whose usages (those it reads, from the newest back to the one that
 * counts) are exact dicts of exact int counts and whose later messages message_tokens
 * estimates; None for anything else.
 *
 * budget_reached_at(entries, start, end, keep, entry_tokens) -> index or None:
 * reference.compaction.budget_reached_at over a list or tuple of entries, each `message`
 * entry (exact dict, type exact "message", message an exact dict with content present and
 * not None) estimated here by message_tokens, every other entry, and every message
 * message_tokens declines, by `entry_tokens(entry)` (the reference's per-entry sum), so the
 * answers and errors are the reference's. Answers NotImplemented, for the caller's Python
 * walk, when `entries` is no list or tuple, `keep` no exact int or float, or the range
 * reaches outside `entries`. `slots` (optional): fastengine.tree.RunTree's slots of these
 * entries, each entry's message as the walk would find it (or None), read in place of
 * the entry (the lookups from entry to message skipped); NotImplemented when it is no
 * list or tuple of the entries' length.
 * Tested against the reference in tests/fastengine/test_tokens.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_capi.h" /* dict_get: exact dicts only */

#define MAX_DEPTH 32
#define IMAGE_CHARS 4800

static PyObject *s_role, *s_content, *s_type, *s_text, *s_thinking, *s_name, *s_arguments;
static PyObject *s_command, *s_output, *s_summary, *s_message, *s_message_kind;
static PyObject *s_user, *s_custom, *s_tool_result, *s_assistant, *s_bash, *s_branch_summary;
static PyObject *s_compaction_summary, *s_text_kind, *s_thinking_kind, *s_image_kind;
static PyObject *s_tool_call_kind, *s_usage, *s_stop_reason, *s_aborted, *s_error;
static PyObject *s_total_tokens, *s_usage_parts[4];

#define LIMIT (1LL << 60) /* counts beyond it go to the reference's arithmetic */
/* JavaScript adds usage counts as doubles, exact while every sum stays within 2**53: a
 * sum beyond it goes to the reference's arithmetic (reference._jsnum.js_add) */
#define EXACT (1LL << 53)

/* Whether two exact str are equal: by pointer, else length, kind and bytes. */
static int same(PyObject *a, PyObject *b) {
    if (a == b) return 1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    int kind = PyUnicode_KIND(a);
    return n == PyUnicode_GET_LENGTH(b) && kind == (int)PyUnicode_KIND(b) &&
           memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * (size_t)kind) == 0;
}

/* JavaScript's `text.length`: astral characters count two code units. */
static Py_ssize_t code_units(PyObject *text) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (PyUnicode_KIND(text) != PyUnicode_4BYTE_KIND) return n;
    const Py_UCS4 *data = PyUnicode_4BYTE_DATA(text);
    Py_ssize_t units = n;
    for (Py_ssize_t i = 0; i < n; i++) units += data[i] > 0xFFFF;
    return units;
}

/* The bytes JSON.stringify escapes: control characters, the quote, the backslash. */
static const unsigned char ESCAPED[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\\'] = 1,
};

/* The code units of a JSON.stringify'd string that needs no escape, or -1. */
static Py_ssize_t plain_json_string(PyObject *text) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    if (kind == PyUnicode_1BYTE_KIND) { /* the usual text: no surrogate, no astral */
        const Py_UCS1 *bytes = PyUnicode_1BYTE_DATA(text);
        unsigned char escaped = 0; /* no early exit: the loop runs without a branch a byte */
        for (Py_ssize_t i = 0; i < n; i++) escaped |= ESCAPED[bytes[i]];
        return escaped ? -1 : n + 2;
    }
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t units = n + 2;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 0x20 || c == '"' || c == '\\' || (c >= 0xD800 && c <= 0xDFFF)) return -1;
        units += c > 0xFFFF;
    }
    return units;
}

/* JSON.stringify(value).length for exact str and dicts of them, or -1. */
static Py_ssize_t json_length(PyObject *value, int depth) {
    if (PyUnicode_CheckExact(value)) return plain_json_string(value);
    if (!PyDict_CheckExact(value) || depth > MAX_DEPTH) return -1;
    Py_ssize_t size = PyDict_GET_SIZE(value);
    Py_ssize_t total = size ? 1 + 2 * size : 2; /* braces, a colon each, commas between */
    Py_ssize_t pos = 0;
    PyObject *key, *item;
    while (PyDict_Next(value, &pos, &key, &item)) {
        if (!PyUnicode_CheckExact(key)) return -1;
        Py_ssize_t k = plain_json_string(key), v = json_length(item, depth + 1);
        if (k < 0 || v < 0) return -1;
        total += k + v;
    }
    return total;
}

/* The value of `key` in an exact dict when it is an exact str, else NULL (borrowed). */
static PyObject *str_at(PyObject *owner, PyObject *key) {
    PyObject *value = dict_get(owner, key);
    return value != NULL && PyUnicode_CheckExact(value) ? value : NULL;
}

/* Whether `kind` (a block's type, may be NULL) is the literal; -1 where a str subclass
 * or other non-JSON value could compare in its own way. */
static int kind_is(PyObject *kind, PyObject *literal) {
    if (kind == NULL || kind == Py_None) return 0;
    if (PyUnicode_CheckExact(kind)) return same(kind, literal);
    if (PyUnicode_Check(kind)) return -1;
    return PyLong_CheckExact(kind) || PyFloat_CheckExact(kind) || PyBool_Check(kind) ||
                   PyList_CheckExact(kind) || PyDict_CheckExact(kind)
               ? 0
               : -1;
}

/* The chars of a user/custom/toolResult message's content, or -1. */
static Py_ssize_t content_chars(PyObject *content) {
    if (PyUnicode_CheckExact(content)) return code_units(content);
    if (!PyList_CheckExact(content)) return -1;
    Py_ssize_t chars = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(content); i++) {
        PyObject *block = PyList_GET_ITEM(content, i);
        if (!PyDict_CheckExact(block)) return -1;
        PyObject *kind = dict_get(block, s_type);
        int text = kind_is(kind, s_text_kind), image = kind_is(kind, s_image_kind);
        if (text < 0 || image < 0) return -1;
        if (text) {
            PyObject *value = dict_get(block, s_text);
            if (value == NULL || value == Py_None) continue;
            if (!PyUnicode_CheckExact(value)) return -1;
            chars += code_units(value); /* "" adds 0, as the reference's falsy skip */
        } else if (image) {
            chars += IMAGE_CHARS;
        }
    }
    return chars;
}

/* The chars of an assistant message's content, or -1. */
static Py_ssize_t assistant_chars(PyObject *content) {
    if (!PyList_CheckExact(content)) return -1;
    Py_ssize_t chars = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(content); i++) {
        PyObject *block = PyList_GET_ITEM(content, i);
        if (!PyDict_CheckExact(block)) return -1;
        PyObject *kind = dict_get(block, s_type), *value;
        int text = kind_is(kind, s_text_kind), thinking = kind_is(kind, s_thinking_kind);
        int call = kind_is(kind, s_tool_call_kind);
        if (text < 0 || thinking < 0 || call < 0) return -1;
        if (text || thinking) {
            value = str_at(block, text ? s_text : s_thinking);
            if (value == NULL) return -1;
            chars += code_units(value);
        } else if (call) {
            PyObject *name = str_at(block, s_name);
            PyObject *arguments = dict_get(block, s_arguments);
            if (name == NULL || arguments == NULL) return -1;
            Py_ssize_t json = json_length(arguments, 0);
            if (json < 0) return -1;
            chars += code_units(name) + json;
        }
    }
    return chars;
}

/* estimate_tokens(message), or -1 where the reference must answer. */
static Py_ssize_t tokens_of(PyObject *message) {
    if (!PyDict_CheckExact(message)) return -1;
    PyObject *role = dict_get(message, s_role);
    if (role == NULL || !PyUnicode_CheckExact(role)) return -1;
    Py_ssize_t chars;
    if (same(role, s_user) || same(role, s_custom) ||
        same(role, s_tool_result)) {
        PyObject *content = dict_get(message, s_content);
        if (content == NULL) return -1;
        chars = content_chars(content);
    } else if (same(role, s_assistant)) {
        PyObject *content = dict_get(message, s_content);
        if (content == NULL) return -1;
        chars = assistant_chars(content);
    } else if (same(role, s_bash)) {
        PyObject *command = str_at(message, s_command), *output = str_at(message, s_output);
        chars = command && output ? code_units(command) + code_units(output) : -1;
    } else if (same(role, s_branch_summary) ||
               same(role, s_compaction_summary)) {
        PyObject *summary = str_at(message, s_summary);
        chars = summary ? code_units(summary) : -1;
    } else {
        return 0;
    }
    return chars < 0 ? -1 : (chars + 3) / 4; /* CP-2: the quarter rounded up */
}

static PyObject *message_tokens(PyObject *module, PyObject *message) {
    Py_ssize_t tokens = tokens_of(message);
    if (PyErr_Occurred()) return NULL;
    if (tokens < 0) Py_RETURN_NONE;
    return PyLong_FromSsize_t(tokens);
}

/* A usage's context size (calculate_context_tokens) for exact int counts, or -1 where
 * the reference must decide (other numbers, missing or odd fields, huge counts). */
static int usage_size(PyObject *usage, long long *size) {
    PyObject *total = dict_get(usage, s_total_tokens);
    if (total != NULL && total != Py_None) {
        if (!PyLong_CheckExact(total)) return -1;
        int overflow;
        *size = PyLong_AsLongLongAndOverflow(total, &overflow);
        if (overflow || *size > LIMIT || *size < -LIMIT) return -1;
        if (*size != 0) return 0;
    }
    *size = 0;
    for (int k = 0; k < 4; k++) {
        PyObject *part = dict_get(usage, s_usage_parts[k]);
        if (part == NULL || !PyLong_CheckExact(part)) return -1;
        int overflow;
        long long value = PyLong_AsLongLongAndOverflow(part, &overflow);
        if (overflow || value > LIMIT || value < -LIMIT) return -1;
        *size += value;
        if (*size > EXACT || *size < -EXACT) return -1;
    }
    return 0;
}

/* Whether an exact dict message's usage counts (assistant_usage): 1 with its size, 0
 * not, -1 where the reference must decide. */
static int counted_usage(PyObject *message, long long *size) {
    PyObject *role = dict_get(message, s_role);
    int assistant = kind_is(role, s_assistant);
    if (assistant <= 0) return assistant;
    PyObject *usage = dict_get(message, s_usage);
    if (usage == NULL) return 0;
    PyObject *stop = dict_get(message, s_stop_reason);
    int aborted = kind_is(stop, s_aborted), error = kind_is(stop, s_error);
    if (aborted < 0 || error < 0 || !PyDict_CheckExact(usage)) return -1; /* (null usage too) */
    if (stop != NULL && (PyList_CheckExact(stop) || PyDict_CheckExact(stop))) return -1; /* unhashable */
    if (aborted || error) return 0;
    if (usage_size(usage, size) < 0) return -1;
    return *size > 0;
}

/* estimate_context_tokens(messages) as (tokens, usageTokens, trailingTokens,
 * lastUsageIndex), or None where the reference must answer. */
static PyObject *context_tokens(PyObject *module, PyObject *messages) {
    (void)module;
    if (!PyList_CheckExact(messages) && !PyTuple_CheckExact(messages)) Py_RETURN_NONE;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(messages), last = -1, index;
    long long usage = 0, trailing = 0;
    for (index = n - 1; index >= 0; index--) {
        PyObject *message = PySequence_Fast_GET_ITEM(messages, index);
        if (!PyDict_CheckExact(message)) Py_RETURN_NONE;
        int counted = counted_usage(message, &usage);
        if (counted < 0) {
            if (PyErr_Occurred()) return NULL;
            Py_RETURN_NONE;
        }
        if (counted) {
            last = index;
            break;
        }
    }
    for (index = last + 1; index < n; index++) {
        Py_ssize_t tokens = tokens_of(PySequence_Fast_GET_ITEM(messages, index));
        if (tokens < 0) {
            if (PyErr_Occurred()) return NULL;
            Py_RETURN_NONE;
        }
        trailing += tokens;
    }
    if (last < 0) return Py_BuildValue("(LiLO)", trailing, 0, trailing, Py_None);
    if (usage + trailing > EXACT || usage + trailing < -EXACT) Py_RETURN_NONE;
    return Py_BuildValue("(LLLn)", usage + trailing, usage, trailing, last);
}

/* The tokens of one entry: here for a plain message entry, else from `fallback`. */
static int entry_tokens(PyObject *entry, PyObject *fallback, long long *tokens) {
    if (PyDict_CheckExact(entry)) {
        PyObject *kind = dict_get(entry, s_type);
        PyObject *message = kind ? dict_get(entry, s_message) : NULL;
        if (kind != NULL && PyUnicode_CheckExact(kind) &&
            same(kind, s_message_kind) && message != NULL &&
            PyDict_CheckExact(message)) {
            PyObject *content = dict_get(message, s_content);
            if (content != NULL && content != Py_None) {
                Py_ssize_t found = tokens_of(message);
                if (found >= 0) {
                    *tokens = found;
                    return 0;
                }
            }
        }
        if (PyErr_Occurred()) return -1;
    }
    PyObject *value = PyObject_CallOneArg(fallback, entry);
    if (value == NULL) return -1;
    *tokens = PyLong_CheckExact(value) ? PyLong_AsLongLong(value) : -1;
    Py_DECREF(value);
    if (*tokens < 0 && !PyErr_Occurred())
        PyErr_SetString(PyExc_TypeError, "entry_tokens must answer a non-negative int");
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *budget_reached_at(PyObject *module, PyObject *args) {
    PyObject *entries, *keep, *fallback, *slots = Py_None;
    Py_ssize_t start, end;
    if (!PyArg_ParseTuple(args, "OnnOO|O", &entries, &start, &end, &keep, &fallback, &slots))
        return NULL;
    if (!(PyList_Check(entries) || PyTuple_Check(entries)) ||
        !(PyLong_CheckExact(keep) || PyFloat_CheckExact(keep)) || start < 0)
        Py_RETURN_NOTIMPLEMENTED; /* (a negative start: Python's indexing from the end) */
    if (slots != Py_None && !((PyList_CheckExact(slots) || PyTuple_CheckExact(slots)) &&
                              PySequence_Fast_GET_SIZE(slots) == PySequence_Fast_GET_SIZE(entries)))
        Py_RETURN_NOTIMPLEMENTED;
    double budget;
    if (PyFloat_CheckExact(keep)) {
        budget = PyFloat_AS_DOUBLE(keep);
    } else {
        int overflow;
        long long whole = PyLong_AsLongLongAndOverflow(keep, &overflow);
        if (overflow || whole > (1LL << 53) || whole < -(1LL << 53)) Py_RETURN_NOTIMPLEMENTED;
        budget = (double)whole;
    }
    long long accumulated = 0;
    for (Py_ssize_t index = end - 1; index >= start; index--) {
        Py_ssize_t size = PySequence_Fast_GET_SIZE(entries);
        if (index >= size) Py_RETURN_NOTIMPLEMENTED; /* for the reference's IndexError */
        long long tokens = -1;
        if (slots != Py_None) { /* the entry's message, found by the scan: no lookups to it */
            PyObject *slot = PySequence_Fast_GET_ITEM(slots, index);
            if (slot != Py_None) tokens = tokens_of(slot);
            if (PyErr_Occurred()) return NULL;
        }
        if (tokens < 0 &&
            entry_tokens(PySequence_Fast_GET_ITEM(entries, index), fallback, &tokens) < 0)
            return NULL;
        if (tokens == 0) continue;
        accumulated += tokens;
        if ((double)accumulated >= budget) return PyLong_FromSsize_t(index);
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"message_tokens", message_tokens, METH_O, "estimate_tokens of a plain message, or None."},
    {"context_tokens", context_tokens, METH_O,
     "estimate_context_tokens of plain messages as a tuple, or None."},
    {"budget_reached_at", budget_reached_at, METH_VARARGS,
     "Where the estimates summed from the newest entry back reach the budget."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "ctxspec.fastengine._tokens", NULL, -1, methods,
};

#define INTERN(var, text) \
    if ((var = PyUnicode_InternFromString(text)) == NULL) return NULL

PyMODINIT_FUNC PyInit__tokens(void) {
    INTERN(s_role, "role");
    INTERN(s_content, "content");
    INTERN(s_type, "type");
    INTERN(s_text, "text");
    INTERN(s_thinking, "thinking");
    INTERN(s_name, "name");
    INTERN(s_arguments, "arguments");
    INTERN(s_command, "command");
    INTERN(s_output, "output");
    INTERN(s_summary, "summary");
    INTERN(s_message, "message");
    INTERN(s_message_kind, "message");
    INTERN(s_user, "user");
    INTERN(s_custom, "custom");
    INTERN(s_tool_result, "toolResult");
    INTERN(s_assistant, "assistant");
    INTERN(s_bash, "bashExecution");
    INTERN(s_branch_summary, "branchSummary");
    INTERN(s_compaction_summary, "compactionSummary");
    INTERN(s_text_kind, "text");
    INTERN(s_thinking_kind, "thinking");
    INTERN(s_image_kind, "image");
    INTERN(s_tool_call_kind, "toolCall");
    INTERN(s_usage, "usage");
    INTERN(s_stop_reason, "stopReason");
    INTERN(s_aborted, "aborted");
    INTERN(s_error, "error");
    INTERN(s_total_tokens, "totalTokens");
    INTERN(s_usage_parts[0], "input");
    INTERN(s_usage_parts[1], "output");
    INTERN(s_usage_parts[2], "cacheRead");
    INTERN(s_usage_parts[3], "cacheWrite");
    return PyModule_Create(&module);
}
