/* reference._speedups: the one loop of the streaming tail that CPython cannot run fast.
 *
 * scan_utf8(data) -> (valid, newlines, pending, last_newline)
 *
 * `data` starts on a character boundary. `valid` is 1 when every complete sequence in it
 * is well-formed UTF-8 (RFC 3629: no overlong form, no surrogate, nothing above
 * U+10FFFF); then `newlines` counts its "\n" bytes and `pending` is the length (0-3) of
 * an unfinished sequence at its end (a lead byte and the continuation bytes that follow
 * it), which the caller hands to its replacing decoder, and `last_newline` is the index of its last "\n"
 * (-1: none). `valid` is 0 otherwise (the other fields 0), and the
 * caller decodes the chunk with replacement instead. Pure-Python equivalent: a strict
 * incremental UTF-8 decoder (reference/stream.py), against which tests check this.
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
static inline int newlines_in_word(uint64_t word) {
    uint64_t x = word ^ (ONES * '\n');
    uint64_t zero = ~(((x & LOW7) + LOW7) | x | LOW7);
    /* one 0/1 per byte, summed into the top byte by a multiply (no popcount instruction
     * is assumed: without -mpopcnt it is a library call) */
    return (int)(((zero >> 7) * ONES) >> 56);
}

/* A shift DFA over RFC 3629's well-formed sequences: state = (ROW[byte] >> state) & 63,
 * each state a multiple of 6 (a bit offset into the row). One table lookup and one shift
 * per byte, no branch on the byte's class. */
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

static PyObject *scan_utf8(PyObject *module, PyObject *arg) {
    (void)module;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) != 0) return NULL;
    const unsigned char *s = (const unsigned char *)view.buf;
    const Py_ssize_t n = view.len;
    Py_ssize_t i = 0, newlines = 0, pending = 0, last_newline = -1;
    /* all ASCII? (the common case of plain logs) */
    while (i + 8 <= n) {
        uint64_t word;
        memcpy(&word, s + i, 8);
        if (word & HIGH) break;
        i += 8;
    }
    while (i < n && s[i] < 0x80) i++;
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
        Py_ssize_t stop = (i + 8 <= n) ? i + 8 : n;
        for (; i < stop; i++) state = (ROW[s[i]] >> state) & 63;
        if (state == REJECT) break;
    }
    if (state != REJECT) { /* "\n" is never inside a sequence: count it in a second pass */
        Py_ssize_t j = 0;
        for (; j + 8 <= n; j += 8) {
            uint64_t word;
            memcpy(&word, s + j, 8);
            newlines += newlines_in_word(word);
        }
        for (; j < n; j++) newlines += (s[j] == '\n');
        const unsigned char *found = newlines ? memrchr(s, '\n', (size_t)n) : NULL;
        if (found) last_newline = found - s;
    }
    int valid = state != REJECT;
    if (valid && state != ACCEPT) { /* an unfinished sequence: back to its lead byte */
        Py_ssize_t lead = n - 1;
        while (lead > 0 && (s[lead] & 0xC0) == 0x80) lead--;
        pending = n - lead;
    }
    PyBuffer_Release(&view);
    if (!valid) newlines = pending = 0;
    return Py_BuildValue("(innn)", valid, newlines, pending, last_newline);
}

static PyMethodDef methods[] = {
    {"scan_utf8", scan_utf8, METH_O,
     "scan_utf8(data) -> (valid, newlines, pending, last_newline): validate UTF-8, count newlines."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "reference._speedups",
    "The streaming tail's validation and newline count in C (see reference/stream.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    build_rows();
    return PyModule_Create(&module);
}
