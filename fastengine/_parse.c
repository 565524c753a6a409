/* fastengine._parse: the C passes of the fast engine's parse of a session file.
 *
 * array_of_lines(text) -> (array, unsettled, count): the text of one JSON array whose
 * elements are the settled lines of `text` trimmed of JavaScript's whitespace (JS_SPACE)
 * and split on "\n", the numbers (from 0) of the unsettled lines, and how many lines
 * the array holds. A line is settled when its strings, brackets and braces close on it
 * and no comma stands outside them (see unsettled_lines); a settled line enters the array
 * when it holds more than " \t\r" (a line of only those is blank). One pass over the
 * text and one copy of the lines kept, in place of trimming, splitting, filtering and
 * joining them in Python (a copy each). When every line kept is JSON, a parse of the
 * array that succeeds gives each line's value, in order (a value's grammar is the same
 * wherever it stands); the parse decides whether the lines are JSON, not this pass.
 *
 * unsettled_lines(text) -> [line, ...]: the unsettled lines of `text` as it is (no trim).
 *
 * untrack(value) -> None: takes the lists and dicts of a parsed JSON value out of the
 * cyclic garbage collector's lists (PyObject_GC_UnTrack), walking lists and dicts down to
 * their leaves. A value JSON makes holds no cycle, so the collector has nothing to find
 * in it, and each collection would traverse all of it again (most of a large parse's
 * time with the collector on). They are still freed by reference counting; a dict that
 * later takes a tracked value is tracked again by CPython. Anything but an exact list or
 * dict is left as it is.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_capi.h" /* append_index */

/* JavaScript's String.prototype.trim whitespace (reference.session_file.JS_SPACE) */
static int js_space(Py_UCS4 c) {
    if (c < 0x80) return c == ' ' || (c >= '\t' && c <= '\r');
    return c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
           c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

/* The characters a string's scan stops at: its end, an escape, the end of the line. */
static const unsigned char STOPS[128] = {['"'] = 1, ['\\'] = 1, ['\n'] = 1};
#define STOP(c) ((c) < 128 && STOPS[(c)])

/* The end of the line starting at `at` (its "\n" or `end`), and whether it is settled:
 * a string open at its end, a bracket or brace closing more than it opened or left
 * open, or a comma outside them, make it unsettled. Structural characters are ASCII, so
 * this reads code units of any width. *visible: whether it holds more than " \t\r";
 * *top: the bitwise or of its characters (as wide as its widest: it is below 0x80,
 * 0x100 or 0x10000 exactly when that one is). */
#define LINE_END(NAME, CHAR)                                                             \
    static const CHAR *NAME(const CHAR *at, const CHAR *end, int *settled, int *visible, \
                            Py_UCS4 *top) {                                              \
        Py_ssize_t depth = 0;                                                            \
        Py_UCS4 bits = 0;                                                                \
        *settled = 1, *visible = 0;                                                      \
        while (at < end) {                                                               \
            const CHAR c = *at;                                                          \
            if (c == '\n') break;                                                        \
            at++;                                                                        \
            bits |= c;                                                                   \
            if (c != ' ' && c != '\t' && c != '\r') *visible = 1;                        \
            if (c == '"') {                                                              \
                for (;;) { /* to the closing quote, on this line */                      \
                    while (at < end && !STOP(*at)) bits |= *at++;                        \
                    if (at >= end || *at == '\n') { *settled = 0; break; }               \
                    if (*at++ == '"') break;                                             \
                    /* a backslash: the escaped character, whatever it is */             \
                    if (at >= end || *at == '\n') { *settled = 0; break; }               \
                    bits |= *at++;                                                       \
                }                                                                        \
            } else if (c == '[' || c == '{') {                                           \
                depth++;                                                                 \
            } else if (c == ']' || c == '}') {                                           \
                if (depth == 0) *settled = 0;                                            \
                else depth--;                                                            \
            } else if (c == ',') {                                                       \
                if (depth == 0) *settled = 0;                                            \
            }                                                                            \
            if (!*settled) { /* to the end of the line, which is not kept */             \
                while (at < end && *at != '\n') at++;                                    \
                *visible = 1;                                                            \
            }                                                                            \
        }                                                                                \
        if (depth != 0) *settled = 0;                                                    \
        *top = bits;                                                                     \
        return at;                                                                       \
    }

LINE_END(line_end_1, Py_UCS1)
LINE_END(line_end_2, Py_UCS2)
LINE_END(line_end_4, Py_UCS4)

/* The unsettled lines of the code units [at, end), numbered from 0, appended to
 * `found`; with `out` (room for end - at + 2 code units), the settled visible lines
 * written there as "[" + joined by "," + "]", their number in *count, the array's
 * length in *length and the bitwise or of its characters in *top. 0, or -1 with an exception set. */
#define LINES(NAME, CHAR, LINE_END)                                                      \
    static int NAME(const CHAR *at, const CHAR *end, PyObject *found, CHAR *out,         \
                    Py_ssize_t *count, Py_ssize_t *length, Py_UCS4 *top) {               \
        Py_ssize_t line = 0, kept = 0;                                                   \
        Py_UCS4 widest = 0;                                                              \
        CHAR *write = out;                                                               \
        if (out != NULL) *write++ = '[';                                                 \
        for (;;) {                                                                       \
            int settled, visible;                                                        \
            Py_UCS4 line_top;                                                            \
            const CHAR *stop = LINE_END(at, end, &settled, &visible, &line_top);         \
            if (!settled) {                                                              \
                if (append_index(found, line) < 0) return -1;                            \
            } else if (visible && out != NULL) {                                         \
                if (kept++) *write++ = ',';                                              \
                widest |= line_top;                                                      \
                memcpy(write, at, (size_t)(stop - at) * sizeof(CHAR));                   \
                write += stop - at;                                                      \
            }                                                                            \
            if (stop >= end) break;                                                      \
            at = stop + 1, line++;                                                       \
        }                                                                                \
        if (out != NULL) {                                                               \
            *write++ = ']';                                                              \
            *count = kept, *length = write - out, *top = widest;                         \
        }                                                                                \
        return 0;                                                                        \
    }

LINES(lines_1, Py_UCS1, line_end_1)
LINES(lines_2, Py_UCS2, line_end_2)
LINES(lines_4, Py_UCS4, line_end_4)

/* The lines of [first, last) of `text`'s code units, as lines_N reads them. */
static int read_lines(PyObject *text, Py_ssize_t first, Py_ssize_t last, PyObject *found,
                      void *out, Py_ssize_t *count, Py_ssize_t *length, Py_UCS4 *top) {
    const void *data = PyUnicode_DATA(text);
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND: {
        const Py_UCS1 *units = (const Py_UCS1 *)data;
        return lines_1(units + first, units + last, found, out, count, length, top);
    }
    case PyUnicode_2BYTE_KIND: {
        const Py_UCS2 *units = (const Py_UCS2 *)data;
        return lines_2(units + first, units + last, found, out, count, length, top);
    }
    default: {
        const Py_UCS4 *units = (const Py_UCS4 *)data;
        return lines_4(units + first, units + last, found, out, count, length, top);
    }
    }
}

static PyObject *unsettled_lines(PyObject *module, PyObject *text) {
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "unsettled_lines() takes a str");
        return NULL;
    }
    PyObject *found = PyList_New(0);
    if (found == NULL) return NULL;
    if (read_lines(text, 0, PyUnicode_GET_LENGTH(text), found, NULL, NULL, NULL, NULL) < 0) {
        Py_DECREF(found);
        return NULL;
    }
    return found;
}

static PyObject *array_of_lines(PyObject *module, PyObject *text) {
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "array_of_lines() takes a str");
        return NULL;
    }
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t first = 0, last = PyUnicode_GET_LENGTH(text);
    while (first < last && js_space(PyUnicode_READ(kind, data, first))) first++;
    while (last > first && js_space(PyUnicode_READ(kind, data, last - 1))) last--;
    /* the array's code units, at most the body's and its brackets, as wide as the text's */
    PyObject *array = PyUnicode_New(last - first + 2, PyUnicode_MAX_CHAR_VALUE(text));
    PyObject *found = PyList_New(0);
    Py_ssize_t count = 0, length = 0;
    Py_UCS4 top = 0;
    if (array == NULL || found == NULL ||
        read_lines(text, first, last, found, PyUnicode_DATA(array), &count, &length, &top) < 0)
        goto error;
    if (PyUnicode_MAX_CHAR_VALUE(array) > (top < 0x80 ? 0x7F : top < 0x100 ? 0xFF : top < 0x10000 ? 0xFFFF : 0x10FFFF)) {
        /* the lines left out held the text's widest characters: a str of the width of
         * those kept (as every str is made: two equal strings have the same width) */
        PyObject *narrow = PyUnicode_FromKindAndData(kind, PyUnicode_DATA(array), length);
        Py_SETREF(array, narrow);
        if (array == NULL) goto error;
    } else if (length < last - first + 2 && PyUnicode_Resize(&array, length) < 0) {
        goto error;
    }
    return Py_BuildValue("(NNn)", array, found, count);
error:
    Py_XDECREF(array);
    Py_XDECREF(found);
    return NULL;
}

/* untrack's walk; `depth` bounds the C stack (JSON nests no deeper than the parser's
 * recursion limit; a deeper value is left tracked below the bound). */
static void untrack_value(PyObject *value, int depth) {
    if (depth > 2000) return;
    if (PyList_CheckExact(value)) {
        if (PyObject_GC_IsTracked(value)) PyObject_GC_UnTrack(value);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++)
            untrack_value(PyList_GET_ITEM(value, i), depth + 1);
    } else if (PyDict_CheckExact(value)) {
        if (PyObject_GC_IsTracked(value)) PyObject_GC_UnTrack(value);
        Py_ssize_t pos = 0;
        PyObject *key, *item;
        while (PyDict_Next(value, &pos, &key, &item)) untrack_value(item, depth + 1);
    }
}

static PyObject *untrack(PyObject *module, PyObject *value) {
    (void)module;
    untrack_value(value, 0);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"array_of_lines", array_of_lines, METH_O,
     "The settled lines of a session file as one JSON array's text, the unsettled lines, "
     "and how many lines the array holds."},
    {"unsettled_lines", unsettled_lines, METH_O,
     "The lines whose strings, brackets or commas do not stay within the line."},
    {"untrack", untrack, METH_O, "Takes a parsed JSON value's lists and dicts out of the GC."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "ctxspec.fastengine._parse", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__parse(void) { return PyModule_Create(&module); }
