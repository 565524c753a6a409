/* fastengine/_capi.h: the C passes' shared helpers.
 *
 * append_index(list, i): list.append(i), 0 or -1 with an exception set.
 * new_dict(n): a dict with room for n keys, so filling it never rehashes (the presizing
 * call is private API, kept by CPython up to 3.12; later versions grow the dict as it
 * fills).
 * dict_get(dict, key): PyDict_GetItemWithError for an exact dict, the key found by its
 * pointer first.
 *
 * The session's keys are interned by the parse (fastengine/_json.c) and the passes look
 * them up with interned literals, so the key object itself is in the dict. On CPython
 * 3.11, where the layout of a dict's keys is known (the interpreter's own header,
 * internal/pycore_dict.h), a small combined table of str keys is searched by comparing
 * pointers along its entries: a few instructions a key, where the hash lookup takes about
 * a hundred (most of the passes' work). Not found that way (another object equal to the
 * key, an absent key, a larger or split table, another version), the lookup is
 * PyDict_GetItemWithError's: the answer is the same either way.
 */
#ifndef FASTENGINE_CAPI_H
#define FASTENGINE_CAPI_H

static inline int append_index(PyObject *list, Py_ssize_t i) {
    PyObject *at = PyLong_FromSsize_t(i);
    if (at == NULL) return -1;
    const int failed = PyList_Append(list, at);
    Py_DECREF(at);
    return failed;
}

static inline PyObject *new_dict(Py_ssize_t n) {
#if PY_VERSION_HEX < 0x030D0000
    return _PyDict_NewPresized(n);
#else
    (void)n;
    return PyDict_New();
#endif
}

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000 && defined(__has_include)
#if __has_include("internal/pycore_dict.h")
#define FASTENGINE_DICT_LAYOUT 1
#endif
#endif

#ifdef FASTENGINE_DICT_LAYOUT
#define Py_BUILD_CORE 1
#include "internal/pycore_dict.h"
#undef Py_BUILD_CORE

static inline PyObject *dict_get(PyObject *dict, PyObject *key) {
    PyDictObject *held = (PyDictObject *)dict;
    PyDictKeysObject *keys = held->ma_keys;
    if (held->ma_values == NULL && keys->dk_kind == DICT_KEYS_UNICODE && keys->dk_nentries <= 16) {
        PyDictUnicodeEntry *entries = DK_UNICODE_ENTRIES(keys);
        for (Py_ssize_t i = 0; i < keys->dk_nentries; i++)
            if (entries[i].me_key == key) return entries[i].me_value;
    }
    return PyDict_GetItemWithError(dict, key);
}
#else
static inline PyObject *dict_get(PyObject *dict, PyObject *key) {
    return PyDict_GetItemWithError(dict, key);
}
#endif

#endif
