"""One conformance test for every public estimator (DESIGN.md, "Contracts every part keeps").

The estimators come from :func:`bayescal._discovery.all_estimators` (the
``__all__`` of every public module, as scikit-learn's ``all_estimators``), so
a class is checked as soon as it is exported; nothing here lists classes.
Each is built by :func:`bayescal._discovery.fast_instance`: its defaults,
a value for each parameter without a default (keyed by parameter name) and
the cheapest settings for the parameters it has (keyed by parameter name);
its data follow from its *family*, read from the name of ``fit``'s
first argument and its tags (:func:`family`). A class that fits no family, or
has a required parameter without a value here, fails
``test_every_estimator_has_a_family``.

Checked on each: the estimator API (``__init__`` stores its arguments,
``get_params``/``set_params``/``clone``, ``NotFittedError`` before fit,
``fit`` returns ``self``, fitted attributes end in ``_``, ``predict_proba``
rows in [0, 1] summing to one); the ``input`` vocabulary (declared once in
``_parameter_constraints``, every accepted value fits, ``calibrator_for``
agrees with it); the posterior API of every Bayesian estimator (``idata_``
with a posterior, ``predict_interval(prob=...)`` nested around the mean,
``diagnostics_`` a :class:`~bayescal.inference.diagnostics.PosteriorDiagnostics`);
the bad-input table (NaN, probabilities outside [0, 1], one class, mismatched
lengths: a ``ValueError`` naming the argument).
"""

from __future__ import annotations

import inspect
import re
import warnings
from typing import Any

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags

from bayescal._discovery import FAST_SETTINGS, REQUIRED_ARGUMENTS, all_estimators, fast_instance
from bayescal.calibration._scores import calibrator_for
from bayescal.contracts import SCORE_INPUTS, accepted_inputs
from bayescal.inference.diagnostics import PosteriorDiagnostics
from bayescal.inference.posterior import PosteriorPredictiveMixin

ESTIMATORS = all_estimators()

N, K, D = 60, 3, 10

build = fast_instance


def family(estimator: Any) -> str:
    """Which data an estimator takes, from ``fit``'s first argument and its tags.

    ``binary``: ``fit(scores, y)`` with 1-D scores; ``multiclass``:
    ``fit(scores, y)`` with ``(n, K)`` scores; ``reduction``: ``fit(P, y)``,
    ``(n, K)`` class probabilities (``multilabel`` when the target is
    multi-output); ``classifier``, ``transformer``, ``estimator``: ``fit(X, y)``
    on features; ``comparison``: ``fit(a, b)`` on score differences.
    """
    first = list(inspect.signature(estimator.fit).parameters)[0]
    tags = get_tags(estimator)
    if first == "scores":
        return "binary" if tags.input_tags.one_d_array else "multiclass"
    if first == "P":
        return "multilabel" if tags.target_tags.multi_output else "reduction"
    if first == "X":
        if hasattr(estimator, "predict_proba"):
            return "classifier"
        return "transformer" if hasattr(estimator, "transform") else "estimator"
    if first == "a":
        return "comparison"
    raise LookupError(
        f"{type(estimator).__name__}.fit takes {first!r} first: no family known. Calibrators "
        "take `scores` (1-D: binary; (n, K): multi-class), reductions `P`, classifiers `X`."
    )


def data(kind: str, input: str = "score", seed: int = 0) -> tuple[Any, np.ndarray]:
    """Fit data of a family, with signal (positives more likely at high scores)."""
    rng = np.random.default_rng(seed)
    if kind == "binary":
        s = rng.uniform(0.02, 0.98, N)
        y = (rng.uniform(size=N) < s).astype(np.int64)
        return (4.0 * (s - 0.5) if input == "decision" else s), y
    if kind in ("multiclass", "reduction"):
        y = np.tile(np.arange(K), N // K)
        logits = rng.normal(size=(N, K)) + 2.0 * np.eye(K)[y]
        if input == "decision":
            return logits, y
        q = np.exp(logits)
        return q / q.sum(axis=1, keepdims=True), y
    if kind == "multilabel":
        p = rng.uniform(0.02, 0.98, (N, 2))
        return p, (rng.uniform(size=(N, 2)) < p).astype(np.int64)
    if kind in ("classifier", "estimator", "transformer"):
        X = rng.normal(size=(N, D))
        y = (X[:, 0] + 0.5 * rng.normal(size=N) > 0).astype(np.int64)
        return X, y
    if kind == "comparison":
        return rng.normal(0.01, 0.02, size=(4, 5)), None
    raise LookupError(kind)


def _fit(estimator: Any, kind: str, input: str = "score") -> Any:
    first, y = data(kind, input)
    with warnings.catch_warnings():
        # tiny data and draws: posteriors and small-sample notes may warn; not under test
        warnings.simplefilter("ignore")
        return estimator.fit(first) if y is None else estimator.fit(first, y)


def _ids(item: tuple[str, type]) -> str:
    return item[0]


def _by_family(*families: str) -> list:
    out = []
    for item in ESTIMATORS:
        try:
            kind = family(build(item[1]))
        except LookupError:
            continue
        if kind in families:
            out.append(item)
    return out


_FITTED_CACHE: dict[str, Any] = {}


def fitted(name: str, cls: type) -> Any:
    """One fitted instance per class, shared by the read-only checks."""
    if name not in _FITTED_CACHE:
        est = build(cls)
        _FITTED_CACHE[name] = (_fit(est, family(est)), family(est))
    return _FITTED_CACHE[name]


# --------------------------------------------------------------------------- #
# Completeness
# --------------------------------------------------------------------------- #


def test_enumeration_finds_the_known_families():
    names = {name for name, _ in ESTIMATORS}
    # a sample of each package, so an enumeration that silently finds nothing fails
    assert {"PlattCalibrator", "DirichletCalibrator", "BayesianDirichletCalibrator",
            "BayesianGPClassifier", "MultipleImputationClassifier",
            "BoundaryUncertaintyEstimator", "HierarchicalComparison"} <= names
    assert "BinaryCalibrator" not in names  # abstract base, not an estimator to use
    assert "MultiClassCalibrator" not in names


@pytest.mark.parametrize("item", ESTIMATORS, ids=_ids)
def test_every_estimator_has_a_family(item):
    name, cls = item
    est = build(cls)  # LookupError: a required parameter without a value
    kind = family(est)  # LookupError: a fit signature no family knows
    # a calibrator's input checks are declared once, in its family's base class
    from bayescal.calibration.base import BinaryCalibrator, MultiClassCalibrator

    if kind == "binary":
        assert isinstance(est, BinaryCalibrator), name
    if kind == "multiclass":
        assert isinstance(est, MultiClassCalibrator), name


def test_tables_name_only_existing_parameters():
    """A stale entry of the settings tables (no estimator has the parameter) fails."""
    names = set()
    for _, cls in ESTIMATORS:
        names |= set(inspect.signature(cls.__init__).parameters)
    assert set(REQUIRED_ARGUMENTS) <= names
    assert set(FAST_SETTINGS) <= names


@pytest.mark.parametrize("item", ESTIMATORS, ids=_ids)
def test_probes_are_bayesian(item):
    """Everything in bayescal.probes has a posterior (DESIGN.md's layout)."""
    name, cls = item
    if cls.__module__.startswith("bayescal.probes."):
        assert issubclass(cls, PosteriorPredictiveMixin), name


# --------------------------------------------------------------------------- #
# Estimator API
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("item", ESTIMATORS, ids=_ids)
def test_init_stores_params_and_clone_round_trips(item):
    name, cls = item
    est = build(cls)
    params = est.get_params(deep=False)
    assert set(vars(est)) == set(params), f"{name}.__init__ must only store its arguments"
    for key, value in params.items():
        assert getattr(est, key) is value
    twin = clone(est)
    assert twin.get_params(deep=False).keys() == params.keys()
    assert twin.set_params(**twin.get_params(deep=False)) is twin


@pytest.mark.parametrize("item", ESTIMATORS, ids=_ids)
def test_not_fitted_error_before_fit(item):
    name, cls = item
    est = build(cls)
    kind = family(est)
    first, _ = data(kind)
    methods = [m for m in ("predict_proba", "predict", "transform", "predict_interval")
               if hasattr(est, m)]
    if not methods:
        pytest.skip(f"{name} has no prediction method")
    for method in methods:
        with pytest.raises(NotFittedError):
            getattr(est, method)(first)


@pytest.mark.parametrize("item", ESTIMATORS, ids=_ids)
def test_fit_returns_self_and_probabilities_sum_to_one(item):
    name, cls = item
    est = build(cls)
    kind = family(est)
    if kind == "comparison":
        pytest.skip("fitted in test_posterior_api (a posterior of score differences)")
    before = set(vars(est))
    assert _fit(est, kind) is est
    new = set(vars(est)) - before
    assert new, f"{name}.fit sets no fitted attribute"
    assert all(a.endswith("_") for a in new if not a.startswith("_")), sorted(new)
    if not hasattr(est, "predict_proba"):
        return
    first, _ = data(kind, seed=1)
    proba = est.predict_proba(first)
    n_out = 2 if kind in ("binary", "classifier") else K
    if kind == "multilabel":
        assert proba.shape == first.shape
        assert np.all((proba >= 0) & (proba <= 1))
        return
    assert proba.shape == (first.shape[0], n_out)
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)


# --------------------------------------------------------------------------- #
# The input vocabulary
# --------------------------------------------------------------------------- #

CALIBRATORS = _by_family("binary", "multiclass")


@pytest.mark.parametrize("item", CALIBRATORS, ids=_ids)
def test_input_vocabulary_declared_once_and_honoured(item):
    name, cls = item
    est = build(cls)
    kind = family(est)
    accepted = accepted_inputs(est)
    assert accepted and set(accepted) <= set(SCORE_INPUTS)
    has_input = "input" in est.get_params(deep=False)
    if not has_input:
        assert accepted == ("score",)
    else:
        assert est.input in accepted, f"{name}'s default input is not among {accepted}"
    assert not hasattr(cls, "_score_inputs"), "declare inputs only in _parameter_constraints"
    for value in accepted:
        tried = clone(est).set_params(input=value) if has_input else clone(est)
        _fit(tried, kind, input=value)
    for value in set(SCORE_INPUTS) - set(accepted):
        if has_input:
            with pytest.raises(ValueError, match="input"):
                _fit(clone(est).set_params(input=value), kind, input=value)
    # calibrator_for reads the same declaration
    if "decision" in accepted:
        assert calibrator_for(est, "decision_function").get_params()["input"] == "decision"
    else:
        with pytest.raises(ValueError, match="decision values"):
            calibrator_for(est, "decision_function")


# --------------------------------------------------------------------------- #
# The posterior API
# --------------------------------------------------------------------------- #

BAYESIAN = [item for item in ESTIMATORS if issubclass(item[1], PosteriorPredictiveMixin)]


@pytest.mark.parametrize("item", BAYESIAN, ids=_ids)
def test_posterior_api(item):
    name, cls = item
    est, kind = fitted(name, cls)
    assert "posterior" in est.idata_.children or hasattr(est.idata_, "posterior")
    assert isinstance(est.diagnostics_, PosteriorDiagnostics)
    first, _ = data(kind, seed=1)
    mean = est.predict_proba(first)
    narrow = np.asarray(est.predict_interval(first, prob=0.5))
    wide = np.asarray(est.predict_interval(first, prob=0.95))
    assert narrow.shape[0] == first.shape[0] and narrow.shape[-1] == 2
    lo_n, hi_n = narrow[..., 0], narrow[..., 1]
    lo_w, hi_w = wide[..., 0], wide[..., 1]
    assert np.all(lo_w <= lo_n + 1e-12) and np.all(hi_n <= hi_w + 1e-12)
    assert np.all((lo_w >= 0) & (hi_w <= 1))
    # the posterior mean lies inside the widest band
    m = mean.reshape(lo_w.shape) if mean.shape == lo_w.shape else mean[:, -lo_w.shape[-1]:]
    assert np.all((lo_w - 1e-9 <= m) & (m <= hi_w + 1e-9))
    with pytest.raises(ValueError, match="prob"):
        est.predict_interval(first, prob=1.5)


# --------------------------------------------------------------------------- #
# The bad-input table
# --------------------------------------------------------------------------- #

CHECKED_INPUT = _by_family("binary", "multiclass", "reduction", "classifier")


def _bad_inputs(kind: str, first: np.ndarray, y: np.ndarray, allow_nan: bool, y_required: bool):
    name = "scores" if kind in ("binary", "multiclass") else ("P" if kind == "reduction" else "X")
    if not allow_nan:
        nan = first.astype(float).copy()
        nan[3] = np.nan
        yield "nan", nan, y, name
    if kind != "classifier":
        out = first.copy()
        out[5] = 1.5
        yield "above one", out, y, name
        neg = first.copy()
        neg[7] = -0.2
        yield "below zero", neg, y, name
    if y_required:
        yield "one class", first, np.zeros_like(y), "y"
    yield "mismatched lengths", first, y[:-3], "y|" + name


BAD_CASES = [
    pytest.param(item, case, id=f"{item[0]}-{case}")
    for item in CHECKED_INPUT
    for case in ("nan", "above one", "below zero", "one class", "mismatched lengths")
]


@pytest.mark.parametrize(("item", "case"), BAD_CASES)
def test_bad_input_raises_value_error_naming_the_argument(item, case):
    name, cls = item
    est = build(cls)
    kind = family(est)
    first, y = data(kind)
    tags = get_tags(est)
    cases = {
        c: (f, t, arg)
        for c, f, t, arg in _bad_inputs(
            kind, first, y, tags.input_tags.allow_nan, tags.target_tags.required
        )
    }
    if case not in cases:
        pytest.skip(f"{case!r} is valid input for {name}")
    bad_first, bad_y, arg = cases[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as info:
            est.fit(bad_first, bad_y)
    assert re.search(rf"\b({arg})\b", str(info.value)), (
        f"{name}: the message does not name {arg!r}: {info.value}"
    )


def test_input_constraint_admits_only_the_vocabulary():
    from bayescal.contracts import input_constraint

    with pytest.raises(ValueError, match="values"):
        input_constraint("score", "probability")
    with pytest.raises(ValueError, match="values"):
        input_constraint()

    class Declared:
        _parameter_constraints = {"input": input_constraint("decision", "score")}

    assert accepted_inputs(Declared) == ("score", "decision")  # SCORE_INPUTS order
    assert accepted_inputs(object()) == ("score",)


@pytest.mark.parametrize(
    "item",
    [i for i in ESTIMATORS if i[1].__module__.startswith(("bayescal.calibration.",
                                                          "bayescal.probes."))],
    ids=_ids,
)
def test_every_calibrator_and_probe_has_a_methods_page(item):
    """CONTRIBUTING.md's checklist: a calibrator or probe is documented in docs/methods/."""
    from pathlib import Path

    methods = Path(__file__).resolve().parents[1] / "docs" / "methods"
    pages = [p for p in methods.glob("*.md") if item[0] in p.read_text(encoding="utf-8")]
    assert pages, f"{item[0]} is named on no page of docs/methods/"
