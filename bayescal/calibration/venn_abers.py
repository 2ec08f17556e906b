"""Venn-ABERS predictors: inductive (IVAP) and cross (CVAP) (Vovk & Petej 2014; Vovk et al. 2015).

A Venn-ABERS predictor turns a scoring classifier into a *multiprobability*
predictor: for a test score ``s`` it fits isotonic regression twice to the
calibration set with the test object added, once labelled 0 and once
labelled 1, and reads the two fitted values at ``s``: the pair
``(p0, p1)``, ``p0 <= p1``. One of the two is perfectly calibrated under
exchangeability (Vovk & Petej 2014, Theorem 1); the width ``p1 - p0`` is a
measure of how much the calibration set says about ``s``. The pair is merged
into one probability minimising the worst-case log loss,

.. math:: p = \\frac{p_1}{1 - p_0 + p_1}.

A cross Venn-ABERS predictor (CVAP) splits the training data into ``k`` folds,
trains the classifier on ``k - 1`` of them and runs an IVAP with the held-out
fold as calibration set; the ``k`` pairs are merged by the log-loss rule of
Vovk, Petej & Fedorova (2015, Section 4),

.. math:: p = \\frac{G(p_1)}{G(1 - p_0) + G(p_1)},

``G`` the geometric mean over folds (the Brier-loss rule is
``p = mean(p1) + mean(p0^2)/2 - mean(p1^2)/2``).

This module holds the tables (:func:`venn_abers_tables`, the fast algorithm
of Vovk et al. 2015: O(n log n) for sorting, O(n) after, by the numba sweep of
:mod:`bayescal.calibration._venn_abers`; prediction is two binary searches
per test score), the merge rules (:func:`merge_venn_abers`), the calibrator on
scores (:class:`VennAbersCalibrator`, an IVAP) and the wrapper of a classifier
(:class:`VennAbersClassifier`, IVAP or CVAP).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.utils.validation import check_is_fitted

from bayescal._compat.param_validation import HasMethods, Interval, StrOptions, validate_params
from bayescal.calibration.base import BinaryCalibrator
from bayescal.contracts import input_constraint
from bayescal.validation import check_classification_data, check_features

__all__ = [
    "VennAbersCalibrator",
    "VennAbersClassifier",
    "VennAbersTables",
    "merge_venn_abers",
    "venn_abers_pairs",
    "venn_abers_tables",
]

#: Merge rules of a CVAP's pairs (Vovk, Petej & Fedorova 2015, Section 4).
MERGE_LOSSES = ("log", "brier")


@dataclass(frozen=True)
class VennAbersTables:
    """Precomputed isotonic values of a Venn-ABERS predictor.

    Attributes
    ----------
    thresholds : ndarray of shape (k,)
        Sorted distinct calibration scores ``c_1 < ... < c_k``.
    p0 : ndarray of shape (k + 1,)
        ``p0[m]``: the label-0 value for a test score with ``m`` thresholds
        ``<= s`` (``p0[0] = 0``: below every calibration score).
    p1 : ndarray of shape (k + 1,)
        ``p1[j]``: the label-1 value for a test score with ``j`` thresholds
        ``< s`` (``p1[k] = 1``: above every calibration score).
    """

    thresholds: np.ndarray
    p0: np.ndarray
    p1: np.ndarray


def _cumulative_diagram(
    scores: np.ndarray, targets: np.ndarray, weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct sorted scores and the cumulative weights and label sums (``W[0] = Y[0] = 0``)."""
    keep = weights > 0
    if not keep.all():
        scores, targets, weights = scores[keep], targets[keep], weights[keep]
    order = np.argsort(scores, kind="stable")
    s = scores[order]
    starts = np.flatnonzero(np.concatenate([[True], s[1:] != s[:-1]]))
    w = weights[order]
    block_w = np.add.reduceat(w, starts)
    block_y = np.add.reduceat(w * targets[order], starts)
    W = np.concatenate([[0.0], np.cumsum(block_w)])
    Y = np.concatenate([[0.0], np.cumsum(block_y)])
    return s[starts], W, Y


def venn_abers_tables(
    scores: np.ndarray, targets: np.ndarray, weights: np.ndarray | None = None
) -> VennAbersTables:
    """Fit the two isotonic tables of an inductive Venn-ABERS predictor.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Calibration scores (any real numbers; only their order matters).
    targets : ndarray of shape (n,)
        0/1 labels (fractions in [0, 1] are accepted: the isotonic fits are
        the weighted least-squares ones, but the validity guarantee is for
        0/1 labels).
    weights : ndarray of shape (n,), optional
        Non-negative multiplicities (the test object always has weight 1);
        samples of weight 0 are left out.

    Returns
    -------
    VennAbersTables

    Notes
    -----
    Tied scores are pooled into one block. A test score equal to a
    calibration score joins its block; one strictly between two blocks pools
    with the next block when labelled 1 and with the previous one when
    labelled 0, so the value is the same as at that block's score. With
    ``F_1(t)`` the isotonic value of a label-1 test object in block ``t``
    (see :mod:`bayescal.calibration._venn_abers`) and ``F_0`` the same by
    reflection, ``p1[j] = F_1(j + 1)`` and ``p0[m] = F_0(m)``.

    Examples
    --------
    >>> t = venn_abers_tables(np.array([0.1, 0.4, 0.6, 0.9]), np.array([0., 1., 0., 1.]))
    >>> p0, p1 = venn_abers_pairs(t, np.array([0.5]))
    >>> float(p0[0]), float(p1[0])
    (0.3333333333333333, 0.6666666666666666)
    """
    from bayescal.calibration._venn_abers import venn_abers_sweep

    if weights is None:
        weights = np.ones_like(scores, dtype=float)
    c, W, Y = _cumulative_diagram(
        np.asarray(scores, float), np.asarray(targets, float), np.asarray(weights, float)
    )
    f1 = venn_abers_sweep(W, Y)
    # reflection: scores -> -scores reverses the blocks, labels -> 1 - labels
    W_r = W[-1] - W[::-1]
    Y_r = (W[-1] - Y[-1]) - ((W - Y)[::-1])
    W_r[0], Y_r[0] = 0.0, 0.0
    f0 = 1.0 - venn_abers_sweep(W_r, Y_r)[::-1]
    p1 = np.concatenate([f1, [1.0]])
    p0 = np.concatenate([[0.0], f0])
    return VennAbersTables(thresholds=c, p0=np.clip(p0, 0.0, 1.0), p1=np.clip(p1, 0.0, 1.0))


def venn_abers_pairs(tables: VennAbersTables, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pair ``(p0, p1)`` for each test score (two binary searches each).

    Parameters
    ----------
    tables : VennAbersTables
    scores : ndarray of shape (n,)

    Returns
    -------
    p0, p1 : ndarray of shape (n,)
    """
    c = tables.thresholds
    p0 = tables.p0[np.searchsorted(c, scores, side="right")]
    p1 = tables.p1[np.searchsorted(c, scores, side="left")]
    return p0, p1


def merge_venn_abers(p0: np.ndarray, p1: np.ndarray, loss: str = "log") -> np.ndarray:
    """Merge Venn-ABERS pairs into one probability.

    Parameters
    ----------
    p0, p1 : ndarray of shape (n,) or (n, k)
        Pairs of one IVAP (1-D) or of the ``k`` folds of a CVAP (columns).
    loss : {"log", "brier"}, default="log"
        Minimise the worst-case log loss (``G(p1) / (G(1 - p0) + G(p1))``,
        ``G`` the geometric mean over folds; for one pair ``p1 / (1 - p0 +
        p1)``) or Brier loss (``mean(p1) + mean(p0^2)/2 - mean(p1^2)/2``).

    Returns
    -------
    ndarray of shape (n,)
        Probability of class 1.

    References
    ----------
    Vovk, V., Petej, I. & Fedorova, V. (2015), Section 4.
    """
    p0 = np.asarray(p0, float).reshape(len(p0), -1)
    p1 = np.asarray(p1, float).reshape(len(p1), -1)
    if loss == "brier":
        return np.mean(p1, axis=1) + 0.5 * np.mean(p0**2, axis=1) - 0.5 * np.mean(p1**2, axis=1)
    if loss != "log":
        raise ValueError(f"`loss` must be one of {list(MERGE_LOSSES)!r}; got {loss!r}.")
    with np.errstate(divide="ignore"):
        g1 = np.exp(np.mean(np.log(p1), axis=1))
        g0 = np.exp(np.mean(np.log1p(-p0), axis=1))
    return g1 / (g0 + g1)


def _refuse_interval_mass(estimator: Any, prob: Any, kind: Any) -> None:
    """Raise for a ``prob`` or ``kind`` a Venn-ABERS pair cannot honour."""
    for name, value in (("prob", prob), ("kind", kind)):
        if value is not None:
            raise ValueError(
                f"`{name}`={value!r} cannot be honoured by {type(estimator).__name__}."
                "predict_interval: the Venn-ABERS pair (p0, p1) has no nominal coverage (one "
                "of its ends is calibrated, whatever the mass), so it is not an interval of a "
                f"given mass or kind. Call predict_interval(X) without `{name}`, or use a "
                "Bayesian calibrator for credible intervals."
            )


class VennAbersCalibrator(BinaryCalibrator):
    """Inductive Venn-ABERS predictor (IVAP) on classifier scores.

    Fitted on a calibration set of scores and labels; for each test score it
    gives the Venn-ABERS pair ``(p0, p1)`` (:meth:`predict_interval`) and
    their log-loss merge ``p1 / (1 - p0 + p1)`` (:meth:`predict_proba`).

    Parameters
    ----------
    input : {"score", "decision"}, default="score"
        What the scores are (the package's one ``input`` vocabulary):
        probabilities in [0, 1] (a 1-D array or an ``(n, 2)`` probability
        array), or any real numbers (logits, decision values). The predictor
        depends on the scores' order only, so ``"logit"`` (a log-odds transform
        of probabilities) would change nothing and is not offered.

    Attributes
    ----------
    thresholds_ : ndarray of shape (k,)
        Sorted distinct calibration scores.
    p0_, p1_ : ndarray of shape (k + 1,)
        The precomputed tables (see :class:`VennAbersTables`).
    classes_ : ndarray of shape (2,)
        ``[0, 1]``.

    Raises
    ------
    ValueError
        Single-class ``y``, NaN or out-of-range scores, mismatched lengths.

    Notes
    -----
    ``p0(s)`` (``p1(s)``) is the isotonic regression of the calibration labels
    on the scores, with the test object ``(s, 0)`` (``(s, 1)``) added, evaluated
    at ``s`` (Vovk & Petej 2014, Algorithm 1). Computed for all test scores at
    once by the fast algorithm of Vovk, Petej & Fedorova (2015, Section 2):
    after sorting, the greatest convex minorant of the cumulative-sum diagram
    with the test point at every position is swept in O(n)
    (:func:`venn_abers_tables`); each prediction is then two binary searches.
    Sample weights are multiplicities of calibration objects (integer weights
    equal repeated rows); the test object has weight 1. The same values as the
    ``venn-abers`` package (``VennAbers``), in O(n log n) rather than its
    O(n * corners).

    References
    ----------
    Vovk, V. & Petej, I. (2014). Venn-Abers predictors. *UAI*, 829-838.

    Vovk, V., Petej, I. & Fedorova, V. (2015). Large-scale probabilistic
    predictors with and without guarantees of validity. *NeurIPS* 28.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=200)
    >>> y = (rng.uniform(size=200) < s).astype(int)
    >>> va = VennAbersCalibrator().fit(s, y)
    >>> interval = va.predict_interval([0.5])
    >>> bool(interval[0, 1, 0] <= va.predict_proba([0.5])[0, 1] <= interval[0, 1, 1])
    True
    """

    _parameter_constraints: dict = {"input": input_constraint("score", "decision")}

    def __init__(self, *, input: str = "score") -> None:
        self.input = input

    def fit(self, scores: Any, y: Any, sample_weight: Any = None) -> VennAbersCalibrator:
        """Fit the tables on calibration scores and 0/1 labels.

        Parameters
        ----------
        scores : array-like of shape (n,) or (n, 2)
        y : array-like of shape (n,)
            0/1 labels (fractions in [0, 1] are accepted, without the validity
            guarantee).
        sample_weight : array-like of shape (n,), optional
            Non-negative multiplicities.

        Returns
        -------
        self
        """
        validate_params(self)
        return super().fit(scores, y, sample_weight)

    def _fit(self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> None:
        tables = venn_abers_tables(scores, targets, weights)
        self.thresholds_, self.p0_, self.p1_ = tables.thresholds, tables.p0, tables.p1

    def _pairs(self, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return venn_abers_pairs(VennAbersTables(self.thresholds_, self.p0_, self.p1_), scores)

    def _predict_positive(self, scores: np.ndarray) -> np.ndarray:
        return merge_venn_abers(*self._pairs(scores))

    #: The pair is not an interval of a stated mass (see ``predict_interval``).
    _interval_has_coverage = False

    def predict_interval(
        self, scores: Any, prob: float | None = None, *, kind: str | None = None
    ) -> np.ndarray:
        """The Venn-ABERS pair of each test score, as an interval per class.

        Parameters
        ----------
        scores : array-like of shape (n,) or (n, 2)
        prob : None
            Must be None (the default). A Venn-ABERS pair has no nominal
            coverage -- its validity is that one of its ends is calibrated --
            so no credible mass can be honoured, and any value is refused
            rather than ignored.
        kind : None
            Must be None, for the same reason (the pair is not a quantile
            interval, so neither ``"eti"`` nor ``"hdi"`` applies).

        Returns
        -------
        ndarray of shape (n, 2, 2)
            ``[:, 1, :] = (p0, p1)`` for class 1 and ``[:, 0, :] = (1 - p1,
            1 - p0)`` for class 0.

        Raises
        ------
        ValueError
            ``prob`` or ``kind`` given.
        """
        _refuse_interval_mass(self, prob, kind)
        check_is_fitted(self, "classes_")
        p0, p1 = self._pairs(self._validate_scores(scores))
        return np.stack([np.column_stack([1 - p1, 1 - p0]), np.column_stack([p0, p1])], axis=1)


class VennAbersClassifier(ClassifierMixin, BaseEstimator):
    """Inductive or cross Venn-ABERS predictor around a binary classifier.

    Parameters
    ----------
    estimator : classifier with ``predict_proba``
        The scoring classifier (its class-1 probability is the score).
    method : {"cross", "inductive"}, default="cross"
        ``"cross"`` (CVAP): ``n_splits`` stratified folds; the classifier is
        trained on each fold's complement and an IVAP calibrated on the fold;
        predictions merge the ``n_splits`` pairs. ``"inductive"`` (IVAP): one
        split into a proper training set and a calibration set of
        ``cal_size``.
    n_splits : int, default=5
        Folds of a CVAP (at least 2).
    cal_size : float, default=0.2
        Fraction of the training data used for calibration by an IVAP.
    loss : {"log", "brier"}, default="log"
        Merge rule of the pairs (:func:`merge_venn_abers`); for one pair
        (an IVAP) ``"log"`` is ``p1 / (1 - p0 + p1)``.
    shuffle : bool, default=False
        Shuffle before splitting (then ``random_state`` fixes the split).
    random_state : None, int or RandomState
        Seed of the split when ``shuffle=True``.

    Attributes
    ----------
    estimators_ : list
        The fitted classifiers, one per fold (one for an IVAP).
    calibrators_ : list of VennAbersCalibrator
        The IVAP of each fold.
    classes_ : ndarray of shape (2,)
        The two class labels.

    Raises
    ------
    ValueError
        ``y`` with one class or more than two (wrap in a one-vs-rest or
        all-pairs reduction on scores instead), a fold without both classes.

    Notes
    -----
    The CVAP merge (log loss) is ``G(p1) / (G(1 - p0) + G(p1))`` with ``G`` the
    geometric mean over folds; :meth:`predict_interval` reports the merged
    pair ``(1 - G(1 - p0), G(p1))``, for which the IVAP formula gives the same
    probability (for an IVAP: the pair itself). The splits follow scikit-learn's
    ``StratifiedKFold`` and ``train_test_split`` (stratified) with the given
    ``shuffle`` and ``random_state``, so the ``venn-abers`` package's
    ``VennAbersCV`` with the same splits gives the same probabilities.

    References
    ----------
    Vovk, V., Petej, I. & Fedorova, V. (2015). Large-scale probabilistic
    predictors with and without guarantees of validity. *NeurIPS* 28.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = make_classification(n_samples=300, random_state=0)
    >>> cvap = VennAbersClassifier(estimator=GaussianNB(), n_splits=3).fit(X, y)
    >>> cvap.predict_proba(X[:2]).shape
    (2, 2)
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba"])],
        "method": [StrOptions({"cross", "inductive"})],
        "n_splits": [Interval(Integral, 2, None, closed="left")],
        "cal_size": [Interval(Real, 0, 1, closed="neither")],
        "loss": [StrOptions(set(MERGE_LOSSES))],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator: Any = None,
        *,
        method: str = "cross",
        n_splits: int = 5,
        cal_size: float = 0.2,
        loss: str = "log",
        shuffle: bool = False,
        random_state: Any = None,
    ) -> None:
        self.estimator = estimator
        self.method = method
        self.n_splits = n_splits
        self.cal_size = cal_size
        self.loss = loss
        self.shuffle = shuffle
        self.random_state = random_state

    def _splits(self, X: np.ndarray, codes: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        idx = np.arange(X.shape[0])
        if self.method == "inductive":
            proper, cal = train_test_split(
                idx,
                test_size=self.cal_size,
                shuffle=self.shuffle,
                random_state=self.random_state if self.shuffle else None,
                stratify=codes if self.shuffle else None,
            )
            return [(proper, cal)]
        folds = StratifiedKFold(
            n_splits=self.n_splits,
            shuffle=self.shuffle,
            random_state=self.random_state if self.shuffle else None,
        )
        return list(folds.split(X, codes))

    def fit(self, X: Any, y: Any) -> VennAbersClassifier:
        """Train the classifier(s) and fit the Venn-ABERS tables.

        Parameters
        ----------
        X : array-like of shape (n, d)
        y : array-like of shape (n,)
            Two classes.

        Returns
        -------
        self
        """
        validate_params(self)
        X_, classes, codes = check_classification_data(self, X, y, min_samples=2)
        y_arr = np.asarray(y)
        if classes.size > 2:
            raise ValueError(
                f"`y` has {classes.size} classes but Venn-ABERS predictors are binary; use "
                "VennAbersCalibrator inside OneVsRestCalibrator or AllPairsCalibrator on "
                "the classifier's probabilities."
            )
        self.classes_ = classes
        self.estimators_, self.calibrators_ = [], []
        for fold, (train, cal) in enumerate(self._splits(X_, codes)):
            for part, rows in (("training", train), ("calibration", cal)):
                if np.unique(codes[rows]).size < 2:
                    raise ValueError(
                        f"the {part} part of split {fold} has a single class; use fewer "
                        "folds (n_splits), a larger cal_size or shuffle=True."
                    )
            est = clone(self.estimator).fit(X_[train], y_arr[train])
            scores = self._scores(est, X_[cal])
            self.estimators_.append(est)
            self.calibrators_.append(VennAbersCalibrator().fit(scores, codes[cal]))
        return self

    def _scores(self, estimator: Any, X: np.ndarray) -> np.ndarray:
        proba = np.asarray(estimator.predict_proba(X), dtype=float)
        return proba[:, list(estimator.classes_).index(self.classes_[1])]

    def predict_pairs(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """The Venn-ABERS pair of every fold, shape ``(n, n_folds)`` each."""
        check_is_fitted(self, "calibrators_")
        X_ = check_features(self, X, reset=False)
        pairs = [
            cal._pairs(self._scores(est, X_))
            for est, cal in zip(self.estimators_, self.calibrators_, strict=True)
        ]
        return np.column_stack([p[0] for p in pairs]), np.column_stack([p[1] for p in pairs])

    def predict_proba(self, X: Any) -> np.ndarray:
        """Merged probabilities, shape ``(n, 2)`` (columns ``classes_``)."""
        p = merge_venn_abers(*self.predict_pairs(X), loss=self.loss)
        return np.column_stack([1.0 - p, p])

    def predict(self, X: Any) -> np.ndarray:
        """The class of larger merged probability (class 1 on ties above 0.5 only)."""
        positive = self.predict_proba(X)[:, 1] > 0.5  # NotFittedError before classes_
        return self.classes_[positive.astype(int)]

    #: The pair is not an interval of a stated mass (see ``predict_interval``).
    _interval_has_coverage = False

    def predict_interval(
        self, X: Any, prob: float | None = None, *, kind: str | None = None
    ) -> np.ndarray:
        """The (merged) Venn-ABERS pair per class, shape ``(n, 2, 2)``.

        ``prob`` and ``kind`` must be None: the pair has no nominal coverage
        (see :meth:`VennAbersCalibrator.predict_interval`); a value raises a
        ``ValueError``.
        """
        _refuse_interval_mass(self, prob, kind)
        p0, p1 = self.predict_pairs(X)
        with np.errstate(divide="ignore"):
            lo = 1.0 - np.exp(np.mean(np.log1p(-p0), axis=1))
            hi = np.exp(np.mean(np.log(p1), axis=1))
        return np.stack([np.column_stack([1 - hi, 1 - lo]), np.column_stack([lo, hi])], axis=1)
