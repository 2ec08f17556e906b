"""Other libraries' private APIs: only behind bayescal's adapters, each with a fallback.

Each adapter's private path is made to fail (a moved name, a changed
signature, a missing attribute) and the public fallback must give the same
result. The last tests scan the source: every third-party package bayescal
imports is a declared dependency, and other libraries' private modules and
names are imported only by the adapter modules.
"""

from __future__ import annotations

import ast
import sys
import tomllib
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier

from bayescal._compat import numba as numba_adapter
from bayescal._compat import sklearn as sklearn_adapter
from bayescal.calibration._fitting import fit_estimator

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bayescal"

# --------------------------------------------------------------------------- #
# scikit-learn
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "breakage",
    ["import", "signature", "attribute"],
)
def test_forest_fast_fit_falls_back_to_the_forests_own_fit(monkeypatch, breakage):
    import sklearn.tree._tree as tree_module

    X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    if breakage == "import":
        monkeypatch.setitem(sys.modules, "sklearn.tree._classes", None)
    elif breakage == "signature":
        def builder(*args):  # a builder whose signature changed
            raise TypeError("__init__() takes 5 positional arguments but 7 were given")

        monkeypatch.setattr(tree_module, "DepthFirstTreeBuilder", builder)
    else:
        monkeypatch.delattr(tree_module, "Tree")  # renamed upstream
    forest = RandomForestClassifier(n_estimators=3, random_state=0)
    assert sklearn_adapter.fit_plain_forest(forest, X, y) is None
    fitted = fit_estimator(RandomForestClassifier(n_estimators=3, random_state=0), X, y)
    monkeypatch.undo()
    reference = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(fitted.predict_proba(X), reference.predict_proba(X))


def test_forest_fast_fit_is_taken_on_this_scikit_learn():
    """So a silent fallback (a slower study) is noticed when scikit-learn changes."""
    X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    forest = RandomForestClassifier(n_estimators=3, random_state=0)
    assert sklearn_adapter.fit_plain_forest(forest, X, y) is forest


# --------------------------------------------------------------------------- #
# numba
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("breakage", ["import", "attribute", "signature"])
def test_numba_cpu_target_start_falls_back_on_any_failure(monkeypatch, breakage):
    from numba.core import registry

    if breakage == "import":
        monkeypatch.setitem(sys.modules, "numba.core.registry", None)  # moved upstream
    elif breakage == "attribute":
        monkeypatch.delattr(registry, "cpu_target")  # renamed upstream
    else:
        def refresh(*args):  # a refresh whose signature changed
            raise TypeError("refresh() missing 1 required positional argument: 'target'")

        monkeypatch.setattr(registry.cpu_target.target_context, "refresh", refresh)
    assert numba_adapter.start_cpu_target() is False
    # a worker's warm-up goes on without it (its first kernel starts the target itself)
    from bayescal.study import workers

    workers._warm_up()


def test_numba_cpu_target_start_is_taken_on_this_numba():
    """So a silent fallback (a slower first task) is noticed when numba changes."""
    assert numba_adapter.start_cpu_target() is True


# --------------------------------------------------------------------------- #
# nutpie
# --------------------------------------------------------------------------- #


def test_nutpie_c_falls_back_to_the_numba_backend_on_any_failure(monkeypatch):
    import nutpie
    import pymc as pm

    from bayescal.inference import nutpie_c

    def changed(model):
        raise AttributeError("module 'nutpie.compiled_pyfunc' has no attribute 'from_pyfunc'")

    calls = []
    monkeypatch.setattr(nutpie_c, "_compile_on_c_backend", changed)
    monkeypatch.setattr(nutpie, "compile_pymc_model",
                        lambda model, backend: calls.append(backend) or "numba-model")
    with pm.Model() as model:
        pm.Normal("mu", 0.0, 1.0)
    with pytest.warns(nutpie_c.NutpieCFallbackWarning, match="Numba backend"):
        assert nutpie_c.compile_nutpie_c(model) == "numba-model"
    assert calls == ["numba"]
    with pm.Model() as discrete:
        pm.Poisson("k", 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the user's model error is not a fallback
        with pytest.raises(ValueError, match="discrete"):
            nutpie_c.compile_nutpie_c(discrete)


# --------------------------------------------------------------------------- #
# Source scans
# --------------------------------------------------------------------------- #

#: Import name -> distribution name, where they differ.
DISTRIBUTION = {"sklearn": "scikit-learn", "arviz_stats": "arviz-stats",
                "arviz_plots": "arviz-plots", "dask": "dask",
                "PIL": "pillow"}

#: Modules allowed to import other libraries' private modules or names, and why.
ADAPTERS = {
    "bayescal/_compat/sklearn.py": "the adapter of scikit-learn's private API",
    "bayescal/_compat/numba.py": "the adapter of numba's CPU target",
    "bayescal/_compat/param_validation.py": "the adapter of scikit-learn's constraint vocabulary",
    "bayescal/inference/nutpie_c.py": "the adapter of nutpie's callback model",
}

#: Private modules any module may import outside the adapters: none. scikit-learn's
#: parameter-constraint vocabulary (Interval, StrOptions, ...) reaches the
#: estimators through ``bayescal._compat.param_validation``.
ALLOWED_PRIVATE_MODULES: set[str] = set()


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module, [a.name for a in node.names]


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        specs += extra
    names = set()
    for spec in specs:
        name = spec.split(";")[0]
        for sep in "<>=!~[ ":
            name = name.split(sep)[0]
        names.add(name.strip().lower().replace("_", "-"))
    return names


def test_every_imported_third_party_package_is_declared():
    declared = _declared()
    missing = set()
    for path in PACKAGE.rglob("*.py"):
        for _, module, _ in _imports(path):
            top = module.split(".")[0]
            if top in sys.stdlib_module_names or top in ("bayescal", "__future__"):
                continue
            dist = DISTRIBUTION.get(top, top).lower().replace("_", "-")
            if dist not in declared:
                missing.add(f"{top} ({path.relative_to(ROOT)})")
    assert not missing, f"imported but not declared in pyproject.toml: {sorted(missing)}"


def test_private_apis_of_other_libraries_only_in_adapters():
    found = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel in ADAPTERS:
            continue
        for line, module, names in _imports(path):
            top = module.split(".")[0]
            if top in ("bayescal", "__future__") or module in ALLOWED_PRIVATE_MODULES:
                continue
            private_module = any(part.startswith("_") for part in module.split("."))
            private_names = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private_module or private_names:
                found.append(f"{rel}:{line}: {module} {private_names}")
    assert not found, found


def test_no_private_attributes_of_other_libraries_outside_adapters():
    """``x._y`` where ``x`` is an imported third-party module: only in the adapters."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text()
        # loky's memory-leak guard and executor internals: not even in an adapter
        for word in ("_MAX_MEMORY_LEAK_SIZE", "._processes", "joblib.externals"):
            if word in text:
                found.append(f"{rel}: {word}")
        if rel in ADAPTERS:
            continue
        tree = ast.parse(text)
        modules = set()  # names bound to third-party modules by ``import x`` / ``as``
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    top = alias.name.split(".")[0]
                    if top not in sys.stdlib_module_names and top != "bayescal":
                        modules.add(alias.asname or top)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            chain, base = [node.attr], node.value
            while isinstance(base, ast.Attribute):
                chain.append(base.attr)
                base = base.value
            if (isinstance(base, ast.Name) and base.id in modules
                    and any(a.startswith("_") and not a.startswith("__") for a in chain)):
                found.append(f"{rel}:{node.lineno}: {base.id}.{'.'.join(reversed(chain))}")
    assert not found, found


def test_the_scans_see_a_private_import_and_an_undeclared_package(tmp_path, monkeypatch):
    """The source scans above fail on code that breaks the rules."""
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy\nimport frobnicate\n"
                   "from sklearn.tree._tree import Tree\n"
                   "x = numpy._core.multiarray\n")
    imports = list(_imports(bad))
    assert [m for _, m, _ in imports] == ["numpy", "frobnicate", "sklearn.tree._tree"]
    assert "frobnicate" not in _declared() and "numpy" in _declared()
    monkeypatch.setitem(globals(), "PACKAGE", tmp_path)
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    monkeypatch.setitem(globals(), "_declared", lambda: {"numpy", "joblib"})
    with pytest.raises(AssertionError, match="frobnicate"):
        test_every_imported_third_party_package_is_declared()
    with pytest.raises(AssertionError, match=r"numpy\._core\.multiarray"):
        test_no_private_attributes_of_other_libraries_outside_adapters()
    with pytest.raises(AssertionError, match=r"bad\.py:3: sklearn\.tree\._tree"):
        test_private_apis_of_other_libraries_only_in_adapters()


def test_adapters_have_upper_version_bounds():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    bounds = {spec.split(">")[0].split("<")[0].strip(): spec
              for spec in project["dependencies"]}
    for dist in ("scikit-learn", "nutpie", "numba"):
        assert "<" in bounds[dist], bounds[dist]


def test_warnings_raised_in_fit_point_at_the_callers_line():
    """Why ``_fit_context`` is not used: its frame took every warning's location."""
    from sklearn.exceptions import ConvergenceWarning

    from bayescal.calibration import DirichletCalibrator

    rng = np.random.default_rng(0)
    q = rng.dirichlet(np.ones(3), size=60)
    y = np.tile(np.arange(3), 20)
    with pytest.warns(ConvergenceWarning) as record:
        DirichletCalibrator(max_iter=1).fit(q, y)
    assert {Path(w.filename).name for w in record} == {Path(__file__).name}


# --------------------------------------------------------------------------- #
# scikit-learn's parameter-constraint vocabulary: bayescal._compat.param_validation
# --------------------------------------------------------------------------- #

_PV_PATH = PACKAGE / "_compat" / "param_validation.py"


def _fresh_param_validation(name: str):
    """A fresh copy of the adapter module, imported under another name."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, _PV_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_param_validation_uses_scikit_learn_on_this_version():
    from sklearn.utils import _param_validation as private

    from bayescal._compat import param_validation

    assert param_validation.USING_SKLEARN
    assert param_validation.Interval is private.Interval
    assert param_validation.InvalidParameterError is private.InvalidParameterError


@pytest.mark.parametrize("breakage", ["module gone", "validator accepts anything"])
def test_param_validation_falls_back_on_any_failure(monkeypatch, breakage):
    from numbers import Real

    if breakage == "module gone":
        monkeypatch.setitem(sys.modules, "sklearn.utils._param_validation", None)
    else:
        from sklearn.utils import _param_validation as private

        monkeypatch.setattr(private, "validate_parameter_constraints", lambda *a, **k: None)
    pv = _fresh_param_validation(f"pv_broken_{breakage.replace(' ', '_')}")
    assert not pv.USING_SKLEARN
    constraints = {"alpha": [pv.Interval(Real, 0, None, closed="neither")],
                   "mode": [pv.StrOptions({"a", "b"}), None]}
    pv.validate_parameter_constraints(constraints, {"alpha": 0.5, "mode": None}, "Est")
    with pytest.raises(ValueError, match=r"'alpha' parameter of Est must be a float in the "
                                         r"range \(0, inf\)\. Got 0 instead"):
        pv.validate_parameter_constraints(constraints, {"alpha": 0, "mode": "a"}, "Est")
    with pytest.raises(TypeError, match=r"'mode' parameter of Est must be a str among "
                                        r"\{'a', 'b'\} or None"):
        pv.validate_parameter_constraints(constraints, {"alpha": 1.0, "mode": "c"}, "Est")


def _as_fallback(pv, constraint):
    """scikit-learn's constraint object rebuilt with the fallback's classes."""
    from sklearn.utils import _param_validation as private

    if isinstance(constraint, private.Interval):
        return pv.Interval(constraint.type, constraint.left, constraint.right,
                           closed=constraint.closed)
    if isinstance(constraint, private.StrOptions):
        return pv.StrOptions(constraint.options)
    if isinstance(constraint, private.HasMethods):
        return pv.HasMethods(constraint.methods)
    return constraint


def test_param_validation_fallback_agrees_with_scikit_learn_on_every_estimator(monkeypatch):
    """Every parameter of every public estimator: the fallback accepts and refuses
    exactly the probe values scikit-learn's validator accepts and refuses."""
    from sklearn.utils._param_validation import (
        InvalidParameterError,
        validate_parameter_constraints,
    )

    from bayescal._discovery import all_estimators

    monkeypatch.setitem(sys.modules, "sklearn.utils._param_validation", None)
    pv = _fresh_param_validation("pv_oracle")
    monkeypatch.undo()
    assert not pv.USING_SKLEARN
    probes = [-1, 0, 1, 2, 10**6, -0.5, 0.0, 0.25, 0.5, 1.0, 2.5, float("inf"), float("nan"),
              True, False, None, "auto", "bogus", "logit", "nuts", np.random.RandomState(0),
              [1, 2], LogisticRegressionCV_like(), object()]
    checked = 0
    for name, cls in all_estimators():
        constraints = getattr(cls, "_parameter_constraints", {})
        for param, entries in constraints.items():
            if entries == "no_validation":
                continue
            fallback = [_as_fallback(pv, c) for c in entries]
            for value in probes:
                try:
                    validate_parameter_constraints({param: entries}, {param: value}, name)
                    sk_ok = True
                except InvalidParameterError:
                    sk_ok = False
                try:
                    pv.validate_parameter_constraints({param: fallback}, {param: value}, name)
                    fb_ok = True
                except pv.InvalidParameterError:
                    fb_ok = False
                assert fb_ok == sk_ok, (name, param, value, sk_ok)
                checked += 1
    assert checked > 1000


class LogisticRegressionCV_like:  # noqa: N801 - an object with fit/predict_proba
    """An object with the methods a ``HasMethods`` constraint may ask for."""

    def fit(self, X, y):
        return self

    def predict_proba(self, X):
        return X

    def decision_function(self, X):
        return X

    def predict(self, X):
        return X
