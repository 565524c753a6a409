/* fastengine._json: a session file's lines parsed as Python's json parses each, in one pass.
 *
 * lines(text) -> tuple of values, or None: the JSON value of each line of `text` trimmed
 * of its ASCII whitespace and split on "\n" (lines of only " \t\r" skipped), exactly as
 * `json.loads` of each line gives it (NaN and Infinity refused, as the reference does),
 * or None whenever this pass is not sure: a line that is not JSON, a value left
 * unfinished or followed by more on its line, text outside ASCII whitespace at either
 * end, a \u escape of a lone surrogate (a pair is one character), nesting deeper than
 * MAX_DEPTH, a str that has no UTF-8 form (a lone surrogate). The caller then takes the general path
 * (fastengine.session), which skips the lines Pi skips; a None costs the text's scan up
 * to the line refused.
 *
 * Why: Python's json makes each key a new str, hashes it and looks it up in a memo,
 * makes every value anew, grows each dict and list as it fills, and its objects are
 * traversed by the cyclic collector again and again while the parse runs. Here a key is
 * looked up by its bytes in a small table of the keys seen (new keys interned, so the
 * engine's lookups with its literal keys compare pointers); a short string or an int is
 * the same object as the last equal one in its slot of a value table (sessions repeat
 * them on every entry: fewer objects, less memory for the helpers to walk; a word of
 * letters, a type or a role, is interned too); each dict and list is made at its final
 * size from a stack of the values parsed and taken out of the collector's lists as soon
 * as it is whole (parsed JSON holds no cycle; a dict that later takes a tracked value is
 * tracked again by CPython), so the collections that run while the pass allocates find
 * almost nothing to traverse, and none is left owed to the caller (pausing the collector
 * would defer one to the next allocation after the pass, in the caller's time).
 *
 * The same values as json: ints by PyLong_FromString beyond 18 digits, floats by
 * PyOS_string_to_double (float()'s, correctly rounded, 1e400 is inf), duplicate keys
 * keep the first key's place and the last value, -0 is the int 0. Tested against
 * json.loads line by line (tests/fastengine/test_parse.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_capi.h" /* new_dict */

#define MAX_DEPTH 256
#define KEYS 512         /* slots of the key table (a power of two) */
#define KEY_BYTES 64     /* longer keys are not kept in it */
#define VALUES 1024      /* slots of the string value table (a power of two) */
#define VALUE_BYTES 32   /* longer string values are not kept in it */
#define WORD_BYTES 24    /* words up to this long are interned (word_like) */
#define INTS 256         /* slots of the int value table (a power of two) */

typedef struct {
    const char *at, *end;
    PyObject **stack; /* the values of the containers open, in order */
    Py_ssize_t used, size;
    PyObject *keys[KEYS];     /* a key str per slot, or NULL */
    PyObject *values[VALUES]; /* the last short string value per slot, or NULL */
    PyObject *ints[INTS];     /* the last int value per slot, or NULL */
    char *buffer;         /* a string's bytes with its escapes read */
    Py_ssize_t room;
    int refused; /* not this pass's to decide: the caller takes the general path */
} Parser;

static int push(Parser *p, PyObject *value) {
    if (p->used == p->size) {
        Py_ssize_t size = p->size ? 2 * p->size : 256;
        PyObject **grown = PyMem_Realloc(p->stack, (size_t)size * sizeof(PyObject *));
        if (grown == NULL) {
            Py_DECREF(value);
            PyErr_NoMemory();
            return -1;
        }
        p->stack = grown, p->size = size;
    }
    p->stack[p->used++] = value;
    return 0;
}

static PyObject *refuse(Parser *p) {
    p->refused = 1;
    return NULL;
}

/* JSON's whitespace within a line (a "\n" ends the line, and with it any value open) */
static void skip_space(Parser *p) {
    while (p->at < p->end && (*p->at == ' ' || *p->at == '\t' || *p->at == '\r')) p->at++;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The four hex digits at `at` as a number, or -1. */
static int hex4(const char *at, const char *end) {
    if (end - at < 4) return -1;
    int code = 0;
    for (int k = 0; k < 4; k++) {
        int digit = hex_digit(at[k]);
        if (digit < 0) return -1;
        code = code * 16 + digit;
    }
    return code;
}

/* The bytes of the string at p->at (just after its quote) with its escapes read, in
 * *bytes and *length; p->at left after the closing quote. 0, 1 when it had no escape
 * (*bytes points into the text), -1 refused or failed. */
static int string_bytes(Parser *p, const char **bytes, Py_ssize_t *length) {
    const char *start = p->at, *at = p->at;
    while (at < p->end && *at != '"' && *at != '\\' && (unsigned char)*at >= 0x20) at++;
    if (at < p->end && *at == '"') {
        *bytes = start, *length = at - start;
        p->at = at + 1;
        return 1;
    }
    /* an escape (or an error): copy into the buffer, reading the escapes */
    Py_ssize_t need = p->end - start;
    if (need > p->room) {
        char *grown = PyMem_Realloc(p->buffer, (size_t)need);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        p->buffer = grown, p->room = need;
    }
    char *out = p->buffer;
    at = start;
    while (at < p->end) {
        unsigned char c = (unsigned char)*at++;
        if (c == '"') {
            *bytes = p->buffer, *length = out - p->buffer;
            p->at = at;
            return 0;
        }
        if (c < 0x20) break; /* a raw control character: json refuses it */
        if (c != '\\') {
            *out++ = (char)c;
            continue;
        }
        if (at >= p->end) break;
        c = (unsigned char)*at++;
        switch (c) {
        case '"': case '\\': case '/': *out++ = (char)c; break;
        case 'b': *out++ = '\b'; break;
        case 'f': *out++ = '\f'; break;
        case 'n': *out++ = '\n'; break;
        case 'r': *out++ = '\r'; break;
        case 't': *out++ = '\t'; break;
        case 'u': {
            int code = hex4(at, p->end);
            if (code < 0) goto refused;
            at += 4;
            if (code >= 0xD800 && code <= 0xDFFF) { /* json pairs a high one with a low one */
                int low = p->end - at >= 2 && at[0] == '\\' && at[1] == 'u' ? hex4(at + 2, p->end) : -1;
                if (code > 0xDBFF || low < 0xDC00 || low > 0xDFFF) goto refused; /* lone */
                at += 6;
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                *out++ = (char)(0xF0 | (code >> 18));
                *out++ = (char)(0x80 | ((code >> 12) & 0x3F));
                *out++ = (char)(0x80 | ((code >> 6) & 0x3F));
                *out++ = (char)(0x80 | (code & 0x3F));
            } else if (code < 0x80) {
                *out++ = (char)code;
            } else if (code < 0x800) { /* (an escape is 6 bytes: its UTF-8 fits) */
                *out++ = (char)(0xC0 | (code >> 6));
                *out++ = (char)(0x80 | (code & 0x3F));
            } else {
                *out++ = (char)(0xE0 | (code >> 12));
                *out++ = (char)(0x80 | ((code >> 6) & 0x3F));
                *out++ = (char)(0x80 | (code & 0x3F));
            }
            break;
        }
        default: goto refused;
        }
    }
refused:
    p->refused = 1;
    return -1;
}

/* FNV-1a of a string's bytes */
static size_t bytes_hash(const char *bytes, Py_ssize_t length) {
    size_t hash = 2166136261u;
    for (Py_ssize_t i = 0; i < length; i++) hash = (hash ^ (unsigned char)bytes[i]) * 16777619u;
    return hash;
}

/* Whether the str holds exactly these UTF-8 bytes. */
static int holds(PyObject *text, const char *bytes, Py_ssize_t length) {
    Py_ssize_t held;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &held); /* (kept by the str) */
    if (utf8 == NULL) {
        PyErr_Clear();
        return 0;
    }
    return held == length && memcmp(utf8, bytes, (size_t)length) == 0;
}

/* Whether a string is a word of letters: a type, role, name or model (interned: the
 * passes compare them with their literals by pointer), not an id, stamp or text. */
static int word_like(const char *bytes, Py_ssize_t length) {
    for (Py_ssize_t i = 0; i < length; i++) {
        const char c = bytes[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) return 0;
    }
    return length > 0;
}

/* A string value: a short one shared with the last equal one in its slot of the value
 * table (a session repeats its types, roles, names and timestamps on every entry: one
 * str each instead of one per entry), a longer one new. */
static PyObject *string_value(Parser *p) {
    const char *bytes;
    Py_ssize_t length;
    if (string_bytes(p, &bytes, &length) < 0) return NULL;
    if (length > VALUE_BYTES) return PyUnicode_DecodeUTF8(bytes, length, NULL);
    PyObject **slot = &p->values[bytes_hash(bytes, length) & (VALUES - 1)];
    if (*slot != NULL && holds(*slot, bytes, length)) {
        Py_INCREF(*slot);
        return *slot;
    }
    PyObject *value = PyUnicode_DecodeUTF8(bytes, length, NULL);
    if (value == NULL) return NULL;
    if (length <= WORD_BYTES && word_like(bytes, length)) PyUnicode_InternInPlace(&value);
    Py_XSETREF(*slot, value);
    Py_INCREF(value);
    return value;
}

/* A member's key: the same str for the same bytes (interned) while the table has room. */
static PyObject *key_value(Parser *p) {
    const char *bytes;
    Py_ssize_t length;
    if (string_bytes(p, &bytes, &length) < 0) return NULL;
    if (length > KEY_BYTES) return PyUnicode_DecodeUTF8(bytes, length, NULL);
    const size_t hash = bytes_hash(bytes, length);
    for (size_t probe = 0; probe < 8; probe++) {
        PyObject **slot = &p->keys[(hash + probe) & (KEYS - 1)];
        if (*slot == NULL) {
            PyObject *key = PyUnicode_DecodeUTF8(bytes, length, NULL);
            if (key == NULL) return NULL;
            PyUnicode_InternInPlace(&key);
            Py_INCREF(key);
            *slot = key;
            return key;
        }
        if (holds(*slot, bytes, length)) {
            Py_INCREF(*slot);
            return *slot;
        }
    }
    return PyUnicode_DecodeUTF8(bytes, length, NULL); /* the table is crowded here */
}

static PyObject *number_value(Parser *p) {
    const char *start = p->at, *at = p->at;
    int fraction = 0;
    if (at < p->end && *at == '-') at++;
    if (at >= p->end) return refuse(p);
    if (*at == '0') {
        at++;
    } else if (*at >= '1' && *at <= '9') {
        while (at < p->end && *at >= '0' && *at <= '9') at++;
    } else {
        return refuse(p); /* -Infinity, or not a number */
    }
    if (at < p->end && *at == '.') {
        fraction = 1, at++;
        if (at >= p->end || *at < '0' || *at > '9') return refuse(p);
        while (at < p->end && *at >= '0' && *at <= '9') at++;
    }
    if (at < p->end && (*at == 'e' || *at == 'E')) {
        fraction = 1, at++;
        if (at < p->end && (*at == '+' || *at == '-')) at++;
        if (at >= p->end || *at < '0' || *at > '9') return refuse(p);
        while (at < p->end && *at >= '0' && *at <= '9') at++;
    }
    p->at = at;
    Py_ssize_t length = at - start;
    if (!fraction && length <= 18) {
        long long whole = 0;
        for (const char *d = *start == '-' ? start + 1 : start; d < at; d++) whole = whole * 10 + (*d - '0');
        whole = *start == '-' ? -whole : whole;
        if (whole >= -5 && whole <= 256) return PyLong_FromLongLong(whole); /* (CPython's own) */
        PyObject **slot = &p->ints[(size_t)whole & (INTS - 1)]; /* usage counts repeat */
        if (*slot != NULL && PyLong_AsLongLong(*slot) == whole) {
            Py_INCREF(*slot);
            return *slot;
        }
        PyObject *value = PyLong_FromLongLong(whole);
        if (value == NULL) return NULL;
        Py_XSETREF(*slot, value);
        Py_INCREF(value);
        return value;
    }
    char small[64], *copy = length < 64 ? small : PyMem_Malloc((size_t)length + 1);
    if (copy == NULL) return PyErr_NoMemory();
    memcpy(copy, start, (size_t)length);
    copy[length] = '\0';
    PyObject *value;
    if (fraction) {
        double number = PyOS_string_to_double(copy, NULL, NULL);
        value = number == -1.0 && PyErr_Occurred() ? NULL : PyFloat_FromDouble(number);
    } else {
        value = PyLong_FromString(copy, NULL, 10);
    }
    if (copy != small) PyMem_Free(copy);
    return value;
}

static PyObject *value_of(Parser *p, int depth);

/* The container's values from the stack (`first` on), as a new list or dict. */
static PyObject *closed(Parser *p, Py_ssize_t first, int is_dict) {
    Py_ssize_t count = p->used - first;
    PyObject *made;
    if (is_dict) {
        made = new_dict(count / 2);
        for (Py_ssize_t i = first; made != NULL && i < p->used; i += 2) {
            if (PyDict_SetItem(made, p->stack[i], p->stack[i + 1]) < 0) Py_CLEAR(made);
        }
        for (Py_ssize_t i = first; i < p->used; i++) Py_DECREF(p->stack[i]);
    } else {
        made = PyList_New(count);
        for (Py_ssize_t i = first; i < p->used; i++) {
            if (made != NULL) PyList_SET_ITEM(made, i - first, p->stack[i]);
            else Py_DECREF(p->stack[i]);
        }
    }
    p->used = first;
    if (made != NULL && PyObject_GC_IsTracked(made)) PyObject_GC_UnTrack(made);
    return made;
}

static PyObject *container_value(Parser *p, int depth, int is_dict) {
    if (depth >= MAX_DEPTH) return refuse(p);
    const char close = is_dict ? '}' : ']';
    const Py_ssize_t first = p->used;
    p->at++; /* the bracket */
    skip_space(p);
    if (p->at < p->end && *p->at == close) {
        p->at++;
        return closed(p, first, is_dict);
    }
    for (;;) {
        if (is_dict) {
            if (p->at >= p->end || *p->at != '"') goto failed;
            p->at++;
            PyObject *key = key_value(p);
            if (key == NULL || push(p, key) < 0) goto failed;
            skip_space(p);
            if (p->at >= p->end || *p->at != ':') goto failed;
            p->at++;
            skip_space(p);
        }
        PyObject *item = value_of(p, depth + 1);
        if (item == NULL || push(p, item) < 0) goto failed;
        skip_space(p);
        if (p->at < p->end && *p->at == ',') {
            p->at++;
            skip_space(p);
            continue;
        }
        if (p->at < p->end && *p->at == close) {
            p->at++;
            return closed(p, first, is_dict);
        }
        goto failed;
    }
failed:
    if (!PyErr_Occurred()) p->refused = 1;
    while (p->used > first) Py_DECREF(p->stack[--p->used]);
    return NULL;
}

static int literal(Parser *p, const char *word, Py_ssize_t length) {
    if (p->end - p->at < length || memcmp(p->at, word, (size_t)length) != 0) return 0;
    p->at += length;
    return 1;
}

static PyObject *value_of(Parser *p, int depth) {
    if (p->at >= p->end) return refuse(p);
    switch (*p->at) {
    case '{': return container_value(p, depth, 1);
    case '[': return container_value(p, depth, 0);
    case '"': p->at++; return string_value(p);
    case 't': if (literal(p, "true", 4)) Py_RETURN_TRUE; return refuse(p);
    case 'f': if (literal(p, "false", 5)) Py_RETURN_FALSE; return refuse(p);
    case 'n': if (literal(p, "null", 4)) Py_RETURN_NONE; return refuse(p);
    default: return number_value(p);
    }
}

static PyObject *lines(PyObject *module, PyObject *text) {
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "lines() takes a str");
        return NULL;
    }
    Py_ssize_t size;
    const char *data = PyUnicode_AsUTF8AndSize(text, &size);
    if (data == NULL) { /* a lone surrogate: no UTF-8 */
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Parser *p = PyMem_Calloc(1, sizeof(Parser));
    if (p == NULL) return PyErr_NoMemory();
    p->at = data, p->end = data + size;
    /* JavaScript's trim, for the ASCII whitespace (other text at either end: refused) */
    while (p->at < p->end && (*p->at == ' ' || (*p->at >= '\t' && *p->at <= '\r'))) p->at++;
    while (p->end > p->at && (p->end[-1] == ' ' || (p->end[-1] >= '\t' && p->end[-1] <= '\r'))) p->end--;
    PyObject *result = NULL;
    while (p->at < p->end) {
        skip_space(p);
        if (p->at < p->end && *p->at == '\n') { /* a blank line */
            p->at++;
            continue;
        }
        PyObject *value = value_of(p, 0);
        if (value == NULL || push(p, value) < 0) goto done;
        skip_space(p);
        if (p->at < p->end && *p->at++ != '\n') {
            p->refused = 1; /* more on the line: the general path reads it */
            goto done;
        }
    }
    result = PyTuple_New(p->used);
    if (result != NULL) {
        for (Py_ssize_t i = 0; i < p->used; i++) PyTuple_SET_ITEM(result, i, p->stack[i]);
        p->used = 0;
    }
done:
    while (p->used > 0) Py_DECREF(p->stack[--p->used]);
    for (int k = 0; k < KEYS; k++) Py_XDECREF(p->keys[k]);
    for (int k = 0; k < VALUES; k++) Py_XDECREF(p->values[k]);
    for (int k = 0; k < INTS; k++) Py_XDECREF(p->ints[k]);
    PyMem_Free(p->stack);
    PyMem_Free(p->buffer);
    const int refused = p->refused;
    PyMem_Free(p);
    if (result == NULL && refused && !PyErr_Occurred()) Py_RETURN_NONE;
    if (result == NULL && PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        PyErr_Clear(); /* (cannot happen: the bytes are a str's UTF-8) */
        Py_RETURN_NONE;
    }
    return result;
}

static PyMethodDef methods[] = {
    {"lines", lines, METH_O, "Each line's JSON value as json.loads gives it, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "ctxspec.fastengine._json", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__json(void) { return PyModule_Create(&module); }
