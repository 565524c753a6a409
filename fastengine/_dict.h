/* fastengine/_dict.h: dict_get(dict, key), PyDict_GetItemWithError for an exact dict, the
 * key found by its pointer first.
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
#ifndef FASTENGINE_DICT_H
#define FASTENGINE_DICT_H

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
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
