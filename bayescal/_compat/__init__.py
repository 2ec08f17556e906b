"""Adapters: the only modules that touch other libraries' private APIs.

Each module here wraps one library's private (underscore) names behind a
function of bayescal's own, with a fallback that runs on *any* failure of the
private path (an import error, a changed signature, a changed attribute) and
an upper version bound in ``pyproject.toml``. Code elsewhere in bayescal
imports these adapters, never the private names (``tests/test_compat.py``
checks it).

- :mod:`bayescal._compat.sklearn`: the random forest's Cython tree builders.
- :mod:`bayescal._compat.numba`: the start of numba's CPU target (a worker's warm-up).

nutpie's callback model is wrapped by :mod:`bayescal.inference.nutpie_c`, the
one module that uses it, on the same terms.
"""
