/* fastengine._speedups: the one loop of the streaming tail that CPython cannot run fast.
 *
 * decode_utf8(data, start=0) -> (decoded, newlines, pending, last_newline)
 *
 * Decodes `data[start:]`, which begins between characters, the way a streaming WHATWG
 * UTF-8 decoder in replacement mode does one `decode(chunk, {stream: true})`:
 *
 * - a well-formed sequence (RFC 3629: no overlong form, no surrogate, nothing above
 *   U+10FFFF) is its own output;
 * - each maximal subpart of an ill-formed sequence becomes U+FFFD (EF BF BD): a byte that
 *   cannot start a character (80..C1, F5..FF) alone, or a valid start and the valid
 *   continuation bytes after it up to the first byte out of range, which is then read
 *   again as a start (so "ED A0" is two U+FFFD at once: A0 may not follow ED);
 * - an unfinished sequence at the end whose bytes are all in range so far is held back:
 *   `pending` is its length (0-3), and the caller hands it, joined to the next chunk, to
 *   the next call. It is not in `decoded`.
 *
 * `decoded` is None when the output is `data[start:len(data) - pending]` itself (no
 * ill-formed byte: no copy is made), else a new bytes object. `newlines` counts its "\n"
 * and `last_newline` is the index of the last one in the output (-1: none).
 * The plain oracle's equivalent: `reference.stream._decode_python`, against which
 * tests/fastengine/test_stream.py checks this.
 *
 * append_decoded(window, data, start) -> (appended, newlines, pending, last_newline)
 *
 * The same decode for the accumulator, whose window is the bytearray `window`: an
 * ill-formed input's output is appended to it (`appended` is its size, `last_newline` an
 * index into it), and a well-formed one's is left to the caller (`appended` is -1).
 */
#define PY_SSIZE_T_CLEAN
#define _GNU_SOURCE /* memrchr */
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define ONES 0x0101010101010101ULL
#define HIGH 0x8080808080808080ULL
#define LOW7 0x7F7F7F7F7F7F7F7FULL

/* the number of "\n" bytes in one 8-byte word (exact for any bytes: no borrow between them) */
static inline Py_ssize_t newlines_in_word(uint64_t word) {
    uint64_t x = word ^ (ONES * '\n');
    uint64_t zero = ~(((x & LOW7) + LOW7) | x | LOW7);
    /* one 0/1 per byte, summed into the top byte by a multiply (no popcount instruction
     * is assumed: without -mpopcnt it is a library call) */
    return (Py_ssize_t)(((zero >> 7) * ONES) >> 56);
}

static Py_ssize_t count_newlines(const unsigned char *s, Py_ssize_t n) {
    Py_ssize_t count = 0, j = 0;
    for (; j + 8 <= n; j += 8) {
        uint64_t word;
        memcpy(&word, s + j, 8);
        count += newlines_in_word(word);
    }
    for (; j < n; j++) count += (s[j] == '\n');
    return count;
}

/* A shift DFA over RFC 3629's well-formed sequences: state = (ROW[byte] >> state) & 63,
 * each state a multiple of 6 (a bit offset into the row). One table lookup and one shift
 * per byte, no branch on the byte's class. Every state but ACCEPT and REJECT is a valid
 * unfinished sequence, the bytes a streaming decoder holds back. */
enum {
    ACCEPT = 0,     /* between characters */
    REJECT = 6,     /* ill-formed: a sink */
    NEED1 = 12,     /* one continuation byte (80..BF) left */
    NEED2 = 18,     /* two left */
    AFTER_E0 = 24,  /* A0..BF next (no overlong form) */
    AFTER_ED = 30,  /* 80..9F next (no surrogate) */
    NEED3 = 36,     /* three left */
    AFTER_F0 = 42,  /* 90..BF next (no overlong form) */
    AFTER_F4 = 48,  /* 80..8F next (nothing above U+10FFFF) */
};
static uint64_t ROW[256];

static void set(int byte_lo, int byte_hi, int from, int to) {
    for (int b = byte_lo; b <= byte_hi; b++) {
        ROW[b] = (ROW[b] & ~(63ULL << from)) | ((uint64_t)to << from);
    }
}

static void build_rows(void) {
    const int states[] = {ACCEPT, REJECT, NEED1, NEED2, AFTER_E0, AFTER_ED, NEED3, AFTER_F0, AFTER_F4};
    for (size_t k = 0; k < sizeof states / sizeof states[0]; k++) set(0, 255, states[k], REJECT);
    set(0x00, 0x7F, ACCEPT, ACCEPT);
    set(0xC2, 0xDF, ACCEPT, NEED1);
    set(0xE0, 0xE0, ACCEPT, AFTER_E0);
    set(0xE1, 0xEC, ACCEPT, NEED2);
    set(0xED, 0xED, ACCEPT, AFTER_ED);
    set(0xEE, 0xEF, ACCEPT, NEED2);
    set(0xF0, 0xF0, ACCEPT, AFTER_F0);
    set(0xF1, 0xF3, ACCEPT, NEED3);
    set(0xF4, 0xF4, ACCEPT, AFTER_F4);
    set(0x80, 0xBF, NEED1, ACCEPT);
    set(0x80, 0xBF, NEED2, NEED1);
    set(0xA0, 0xBF, AFTER_E0, NEED1);
    set(0x80, 0x9F, AFTER_ED, NEED1);
    set(0x80, 0xBF, NEED3, NEED2);
    set(0x90, 0xBF, AFTER_F0, NEED2);
    set(0x80, 0x8F, AFTER_F4, NEED2);
}

/* The well-formed run of s[i:n] (i between characters). Returns n when there is no
 * ill-formed byte, with *state the DFA's state at the end (ACCEPT, or an unfinished
 * sequence); otherwise the index where the ill-formed sequence starts, with *bad the
 * index of the byte the DFA rejected (the same index when that byte cannot start a
 * character; past the sequence's valid start and continuations otherwise). */
static Py_ssize_t well_formed(const unsigned char *s, Py_ssize_t i, Py_ssize_t n,
                              Py_ssize_t *bad, uint64_t *state_out) {
    uint64_t state = ACCEPT;
    while (i < n) {
        /* between characters, skip ASCII words; then step byte by byte for 8 bytes */
        if (state == ACCEPT) {
            while (i + 8 <= n) {
                uint64_t word;
                memcpy(&word, s + i, 8);
                if (word & HIGH) break;
                i += 8;
            }
        }
        const Py_ssize_t block = i;
        const uint64_t entry = state;
        const Py_ssize_t stop = (i + 8 <= n) ? i + 8 : n;
        for (; i < stop; i++) state = (ROW[s[i]] >> state) & 63;
        if (state == REJECT) { /* find the byte again, and the start of its sequence */
            Py_ssize_t start = block;
            state = entry;
            for (i = block;; i++) {
                if (state == ACCEPT) start = i;
                const uint64_t next = (ROW[s[i]] >> state) & 63;
                if (next == REJECT) break;
                state = next;
            }
            if (entry != ACCEPT && start == block) { /* begun before the block */
                start = block - 1;
                while ((s[start] & 0xC0) == 0x80) start--;
            }
            *bad = i;
            return start;
        }
    }
    *state_out = state;
    return n;
}

/* The work of decode_utf8 and append_decoded. With `window` NULL the output of an
 * ill-formed input is a new bytes object; otherwise it is written straight onto the end of
 * the bytearray `window` and the first item of the answer is its size (-1: well-formed,
 * nothing written). */
static PyObject *decode(const char *name, PyObject *data, PyObject *start_arg,
                        PyObject *window) {
    Py_ssize_t start = 0;
    if (start_arg != NULL) {
        start = PyLong_AsSsize_t(start_arg);
        if (start == -1 && PyErr_Occurred()) return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) != 0) return NULL;
    const unsigned char *s = (const unsigned char *)view.buf;
    const Py_ssize_t n = view.len;
    if (start < 0 || start > n) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "%s: start is outside the data", name);
        return NULL;
    }
    Py_ssize_t bad = 0, pending = 0, newlines, last_newline = -1;
    uint64_t state = ACCEPT;
    Py_ssize_t end = well_formed(s, start, n, &bad, &state);
    if (end == n) { /* well-formed: the output is the input, less an unfinished sequence */
        if (state != ACCEPT) {
            Py_ssize_t lead = n - 1;
            while ((s[lead] & 0xC0) == 0x80) lead--;
            pending = n - lead;
        }
        const unsigned char *out = s + start;
        const Py_ssize_t size = n - pending - start;
        newlines = count_newlines(out, size);
        const unsigned char *found = newlines ? memrchr(out, '\n', (size_t)size) : NULL;
        if (found) last_newline = found - out;
        PyBuffer_Release(&view);
        if (window != NULL) return Py_BuildValue("(innn)", -1, newlines, pending, last_newline);
        return Py_BuildValue("(Onnn)", Py_None, newlines, pending, last_newline);
    }
    /* ill-formed: copy the well-formed runs, U+FFFD for each maximal subpart, into room
     * for at most 3 output bytes per input byte, then cut to size. Into the window itself
     * when there is one: a bytes object made for each ill-formed chunk, only to be copied
     * onto the window, was an allocation and a second copy of every output byte that a
     * well-formed chunk never costs (its bytes are its output) */
    if (n - start > (PY_SSIZE_T_MAX - start) / 3) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    const Py_ssize_t room = (end - start) + 3 * (n - end);
    PyObject *result = NULL;
    unsigned char *out;
    Py_ssize_t held = 0;
    if (window == NULL) {
        result = PyBytes_FromStringAndSize(NULL, room);
        if (result == NULL) {
            PyBuffer_Release(&view);
            return NULL;
        }
        out = (unsigned char *)PyBytes_AS_STRING(result);
    }
    else {
        held = PyByteArray_GET_SIZE(window);
        if (held > PY_SSIZE_T_MAX - room) {
            PyBuffer_Release(&view);
            return PyErr_NoMemory();
        }
        if (PyByteArray_Resize(window, held + room) != 0) {
            PyBuffer_Release(&view);
            return NULL;
        }
        out = (unsigned char *)PyByteArray_AS_STRING(window) + held;
    }
    unsigned char *o = out;
    Py_ssize_t i = start;
    for (;;) {
        memcpy(o, s + i, (size_t)(end - i));
        o += end - i;
        if (end == n) break;
        o[0] = 0xEF, o[1] = 0xBF, o[2] = 0xBD;
        o += 3;
        i = (bad == end) ? bad + 1 : bad; /* a rejected continuation is read again as a start */
        end = well_formed(s, i, n, &bad, &state);
    }
    if (state != ACCEPT) { /* an unfinished sequence at the end, held back */
        Py_ssize_t lead = n - 1;
        while ((s[lead] & 0xC0) == 0x80) lead--;
        pending = n - lead;
        o -= pending;
    }
    PyBuffer_Release(&view);
    const Py_ssize_t size = o - out;
    newlines = count_newlines(out, size);
    const unsigned char *found = newlines ? memrchr(out, '\n', (size_t)size) : NULL;
    if (found) last_newline = found - out;
    if (window == NULL) {
        if (_PyBytes_Resize(&result, size) != 0) return NULL;
    }
    else {
        if (PyByteArray_Resize(window, held + size) != 0) return NULL;
        if ((result = PyLong_FromSsize_t(size)) == NULL) return NULL;
    }
    return Py_BuildValue("(Nnnn)", result, newlines, pending, last_newline);
}

static PyObject *decode_utf8(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "decode_utf8(data, start=0) takes 1 or 2 arguments");
        return NULL;
    }
    return decode("decode_utf8", args[0], nargs == 2 ? args[1] : NULL, NULL);
}

static PyObject *append_decoded(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3 || !PyByteArray_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError,
                        "append_decoded(window, data, start) takes a bytearray, data and start");
        return NULL;
    }
    return decode("append_decoded", args[1], args[2], args[0]);
}

static PyMethodDef methods[] = {
    {"decode_utf8", (PyCFunction)(void (*)(void))decode_utf8, METH_FASTCALL,
     "decode_utf8(data, start=0) -> (decoded, newlines, pending, last_newline): one streaming "
     "UTF-8 decode with replacement, newlines counted."},
    {"append_decoded", (PyCFunction)(void (*)(void))append_decoded, METH_FASTCALL,
     "append_decoded(window, data, start) -> (appended, newlines, pending, last_newline): "
     "decode_utf8 with an ill-formed input's output appended to the bytearray window "
     "(appended: its size; -1: well-formed, nothing appended)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "ctxspec.fastengine._speedups",
    "The streaming tail's UTF-8 decoding and newline count in C (see fastengine/stream.py).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    build_rows();
    return PyModule_Create(&module);
}
