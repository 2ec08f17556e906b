"""Adapters: the only modules that touch other libraries' private APIs.

Each module here wraps one library's private (underscore) names behind a
function of bayescal's own, with a fallback that runs on *any* failure of the
private path (an import error, a changed signature, a changed attribute) and
an upper version bound in ``pyproject.toml``. Code elsewhere in bayescal
imports these adapters, never the private names (``tests/test_architecture.py``
checks it).

- :mod:`bayescal._compat.sklearn`: ``sklearn.base._fit_context`` and the
  forest's Cython tree builders.
- :mod:`bayescal._compat.nutpie`: nutpie's compiled-model internals used by
  the ``"nutpie-c"`` sampler.
"""
