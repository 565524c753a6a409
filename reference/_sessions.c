/* The optional C pass of reference.session.SessionTree: one walk over a session's entries.
 *
 * scan(entries) -> (positions, breaks, headers, slots) for a list or tuple of plain dict
 * entries whose ids are all exact str, with exactly the values of SessionTree's Python scan:
 *   positions: id -> position of the last entry with it,
 *   breaks:    positions whose parentId is not the previous entry's id (or is empty/not a str),
 *   headers:   positions of entries of type "session",
 *   slots:     per entry, the message of a "message" entry whose message is a dict with a
 *              content that is present and not None; None otherwise.
 * Anything else (an entry that is not a dict, an id that is not an exact str, a type or
 * parentId that is a str subclass) answers None, and the caller takes the Python scan,
 * which also raises the errors. Tested against it in tests/test_reference_session_walks.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *s_id, *s_parent, *s_type, *s_message, *s_content, *s_session_kind, *s_message_kind;

static int same_str(PyObject *value, PyObject *literal) {
    return value != NULL && PyUnicode_CheckExact(value) && PyUnicode_Compare(value, literal) == 0;
}

static PyObject *scan(PyObject *module, PyObject *entries) {
    (void)module;
    if (!PyList_CheckExact(entries) && !PyTuple_CheckExact(entries)) Py_RETURN_NONE;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(entries);
    PyObject **items = PySequence_Fast_ITEMS(entries);
    PyObject *positions = PyDict_New(), *breaks = PyList_New(0), *headers = PyList_New(0);
    PyObject *slots = PyList_New(n);
    PyObject *previous = NULL; /* borrowed: the previous entry's id */
    if (!positions || !breaks || !headers || !slots) goto error;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *entry = items[i];
        if (!PyDict_CheckExact(entry)) goto fallback;
        PyObject *key = PyDict_GetItemWithError(entry, s_id);
        if (key == NULL || !PyUnicode_CheckExact(key)) {
            if (PyErr_Occurred()) goto error;
            goto fallback;
        }
        PyObject *parent = PyDict_GetItemWithError(entry, s_parent);
        if (parent == NULL && PyErr_Occurred()) goto error;
        int chained = 0;
        if (parent != NULL && PyUnicode_Check(parent)) {
            if (!PyUnicode_CheckExact(parent)) goto fallback;
            if (previous != NULL && PyUnicode_GET_LENGTH(parent) > 0) {
                int equal = PyUnicode_Compare(parent, previous) == 0;
                if (equal == 0 && PyErr_Occurred()) goto error;
                chained = equal;
            }
        }
        if (!chained) {
            PyObject *at = PyLong_FromSsize_t(i);
            if (at == NULL || PyList_Append(breaks, at) < 0) { Py_XDECREF(at); goto error; }
            Py_DECREF(at);
        }
        PyObject *kind = PyDict_GetItemWithError(entry, s_type);
        if (kind == NULL && PyErr_Occurred()) goto error;
        if (kind != NULL && PyUnicode_Check(kind) && !PyUnicode_CheckExact(kind)) goto fallback;
        PyObject *slot = Py_None;
        if (same_str(kind, s_message_kind)) {
            PyObject *message = PyDict_GetItemWithError(entry, s_message);
            if (message == NULL && PyErr_Occurred()) goto error;
            if (message != NULL && PyDict_CheckExact(message)) {
                PyObject *content = PyDict_GetItemWithError(message, s_content);
                if (content == NULL && PyErr_Occurred()) goto error;
                if (content != NULL && content != Py_None) slot = message;
            }
        } else if (same_str(kind, s_session_kind)) {
            PyObject *at = PyLong_FromSsize_t(i);
            if (at == NULL || PyList_Append(headers, at) < 0) { Py_XDECREF(at); goto error; }
            Py_DECREF(at);
        }
        Py_INCREF(slot);
        PyList_SET_ITEM(slots, i, slot);
        PyObject *at = PyLong_FromSsize_t(i);
        if (at == NULL || PyDict_SetItem(positions, key, at) < 0) { Py_XDECREF(at); goto error; }
        Py_DECREF(at);
        previous = key;
    }
    return Py_BuildValue("(NNNN)", positions, breaks, headers, slots);
fallback:
    Py_XDECREF(positions); Py_XDECREF(breaks); Py_XDECREF(headers); Py_XDECREF(slots);
    Py_RETURN_NONE;
error:
    Py_XDECREF(positions); Py_XDECREF(breaks); Py_XDECREF(headers); Py_XDECREF(slots);
    return NULL;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_O, "A session's ids, chain breaks, headers and messages in one pass."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_sessions", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__sessions(void) {
    s_id = PyUnicode_InternFromString("id");
    s_parent = PyUnicode_InternFromString("parentId");
    s_type = PyUnicode_InternFromString("type");
    s_message = PyUnicode_InternFromString("message");
    s_content = PyUnicode_InternFromString("content");
    s_session_kind = PyUnicode_InternFromString("session");
    s_message_kind = PyUnicode_InternFromString("message");
    if (!s_id || !s_parent || !s_type || !s_message || !s_content || !s_session_kind) return NULL;
    return PyModule_Create(&module);
}
