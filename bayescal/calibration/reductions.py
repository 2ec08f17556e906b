"""Multi-class and multi-label calibration by reduction to binary problems.

Most calibration maps are binary. A reduction splits a ``K``-class (or
``L``-label) problem into binary problems, calibrates each with a clone of a
binary calibrator (any :class:`~bayescal.calibration.base.BinaryCalibrator`, or
any estimator with ``fit(scores, y, sample_weight)`` and ``predict_proba``), and
combines the calibrated binary probabilities:

- :class:`OneVsRestCalibrator`: ``K`` problems "class k vs the rest",
  combined by normalisation (Zadrozny & Elkan 2002; Alasalmi 2020 §2.4);
- :class:`AllPairsCalibrator`: ``K(K-1)/2`` problems "class i vs class j",
  combined by pairwise coupling (:mod:`bayescal.calibration.coupling`);
- :class:`MultiLabelCalibrator`: ``L`` independent problems, one per label
  (binary relevance; Anonymous, TMLR submission §5), not combined.

Every reduction derives its binary problems in one place,
:meth:`binary_problems` ``(P, y) -> [BinaryProblem, ...]``, and ``fit`` is
``fit_binary_problems(binary_problems(P, y))``. Code that transforms the
calibration data of each binary problem before fitting (DGG grouping, Alasalmi (2020)
§3.3: "multi-class: per binary problem of the chosen reduction") calls the two
steps separately and replaces each problem's ``scores``/``targets``/
``sample_weight`` (fractional targets are allowed) with ``problem._replace``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from bayescal._compat.param_validation import HasMethods, StrOptions, validate_params
from bayescal.calibration.coupling import pairwise_coupling
from bayescal.validation import (
    check_consistent_length,
    check_indicator_matrix,
    check_labels,
    check_probability_columns,
    check_probability_matrix,
    check_sample_weight,
)

__all__ = [
    "AllPairsCalibrator",
    "BinaryProblem",
    "MultiLabelCalibrator",
    "OneVsRestCalibrator",
]

#: Pairwise probabilities are kept in [MIN_PAIR_PROBABILITY, 1 - MIN_PAIR_PROBABILITY]
#: before coupling, as LIBSVM does (its ``min_prob``), so that no pair is certain.
MIN_PAIR_PROBABILITY = 1e-7


class BinaryProblem(NamedTuple):
    """The calibration data of one binary problem of a reduction.

    Attributes
    ----------
    key : tuple of int
        ``(k,)`` for class or label ``k``; ``(i, j)`` for the pair "i vs j".
    scores : ndarray of shape (m,)
        Positive-class scores in [0, 1].
    targets : ndarray of shape (m,)
        0/1 labels (fractions in [0, 1] are allowed, e.g. after DGG grouping).
    sample_weight : ndarray of shape (m,)
        Non-negative weights.
    index : ndarray of shape (m,)
        Rows of the input the problem was taken from (all rows for one-vs-rest
        and multi-label; the rows of classes ``i`` and ``j`` for a pair).
    """

    key: tuple[int, ...]
    scores: np.ndarray
    targets: np.ndarray
    sample_weight: np.ndarray
    index: np.ndarray


def _check_all_classes_present(labels: np.ndarray, n_classes: int) -> None:
    missing = np.setdiff1d(np.arange(n_classes), labels)
    if missing.size:
        raise ValueError(
            f"`y` has no sample of class(es) {missing.tolist()} but `P` has {n_classes} "
            "columns; every class needs calibration samples (use a stratified split)."
        )


class _BinaryReduction(ClassifierMixin, BaseEstimator):
    """Shared machinery: validation, cloning, fitting and applying the binary maps."""

    _parameter_constraints: dict = {"calibrator": [HasMethods(["fit", "predict_proba"])]}

    def __init__(self, calibrator: Any):
        self.calibrator = calibrator

    # --- subclasses implement -------------------------------------------------
    def _validate(self, P: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        raise TypeError(f"{type(self).__name__} does not implement _validate")

    def _validate_predict(self, P: Any) -> np.ndarray:
        raise TypeError(f"{type(self).__name__} does not implement _validate_predict")

    def _problem_keys(self, n_outputs: int) -> list[tuple[int, ...]]:
        raise TypeError(f"{type(self).__name__} does not implement _problem_keys")

    def _problem_data(
        self, P: np.ndarray, y: np.ndarray, key: tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raise TypeError(f"{type(self).__name__} does not implement _problem_data")

    def _problem_scores(self, P: np.ndarray, key: tuple[int, ...]) -> np.ndarray:
        raise TypeError(f"{type(self).__name__} does not implement _problem_scores")

    def _combine(self, Q: np.ndarray) -> np.ndarray:
        raise TypeError(f"{type(self).__name__} does not implement _combine")

    # --- shared --------------------------------------------------------------
    def binary_problems(self, P: Any, y: Any, sample_weight: Any = None) -> list[BinaryProblem]:
        """The binary problems this reduction fits, derived from ``(P, y)``.

        This is the code path of :meth:`fit`; calibration-data generators use
        it to transform each problem's data (e.g. DGG grouping) before
        :meth:`fit_binary_problems`.

        Parameters
        ----------
        P : array-like of shape (n, K)
            Uncalibrated probabilities (scores per label for multi-label).
        y : array-like of shape (n,) or (n, L)
            Class codes ``0..K-1`` (0/1 label matrix for multi-label).
        sample_weight : array-like of shape (n,), optional
            Non-negative weights.

        Returns
        -------
        list of BinaryProblem
            In the order of :attr:`problem_keys_` (after fitting).
        """
        return self._validated_problems(P, y, sample_weight)[0]

    def _validated_problems(
        self, P: Any, y: Any, sample_weight: Any
    ) -> tuple[list[BinaryProblem], int]:
        P_, y_ = self._validate(P, y)
        w = check_sample_weight(sample_weight, P_.shape[0])
        problems = []
        for key in self._problem_keys(P_.shape[1]):
            scores, targets, index = self._problem_data(P_, y_, key)
            problems.append(BinaryProblem(key, scores, targets, w[index], index))
        return problems, P_.shape[1]

    def fit(self, P: Any, y: Any, sample_weight: Any = None) -> _BinaryReduction:
        """Fit one clone of ``calibrator`` per binary problem.

        Parameters
        ----------
        P : array-like of shape (n, K)
            Uncalibrated probabilities (scores per label for multi-label).
        y : array-like of shape (n,) or (n, L)
            Class codes ``0..K-1`` (0/1 label matrix for multi-label).
        sample_weight : array-like of shape (n,), optional
            Non-negative weights, passed on to every binary calibrator.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Bad probabilities or labels (DESIGN "Bad input"), a class with no
            sample, or a binary problem its calibrator cannot fit (the message
            names the problem's key).
        TypeError
            If ``calibrator`` lacks ``fit``/``predict_proba``, or labels are
            not numbers.
        """
        problems, n_outputs = self._validated_problems(P, y, sample_weight)
        return self.fit_binary_problems(problems, n_outputs=n_outputs)

    def fit_binary_problems(
        self, problems: list[BinaryProblem], n_outputs: int
    ) -> _BinaryReduction:
        """Fit the binary calibrators on given per-problem calibration data.

        Parameters
        ----------
        problems : list of BinaryProblem
            One per key of the reduction for ``n_outputs`` classes (labels), as
            returned by :meth:`binary_problems`, possibly with transformed
            ``scores``, ``targets`` (fractions allowed) and ``sample_weight``.
        n_outputs : int
            Number of classes ``K`` (labels ``L`` for multi-label).

        Returns
        -------
        self
        """
        validate_params(self)
        if isinstance(n_outputs, bool) or not isinstance(n_outputs, int | np.integer):
            raise TypeError(f"`n_outputs` must be an integer; got {n_outputs!r}.")
        keys = self._problem_keys(int(n_outputs))
        got = [tuple(int(k) for k in p.key) for p in problems]
        if got != keys:
            raise ValueError(
                f"`problems` must hold the binary problems {keys} in this order; got keys {got}."
            )
        calibrators = []
        for problem in problems:
            cal = clone(self.calibrator)
            try:
                cal.fit(problem.scores, problem.targets, sample_weight=problem.sample_weight)
            except ValueError as exc:
                raise ValueError(f"binary problem {problem.key}: {exc}") from exc
            calibrators.append(cal)
        self.calibrators_ = calibrators
        self.problem_keys_ = keys
        self.n_features_in_ = int(n_outputs)
        self._after_fit(problems, int(n_outputs))
        return self

    def _after_fit(self, problems: list[BinaryProblem], n_outputs: int) -> None:
        self.classes_ = np.arange(n_outputs)

    def _binary_probabilities(self, P: np.ndarray) -> np.ndarray:
        """Calibrated positive-class probability of every problem, shape (n, n_problems)."""
        columns = [
            np.asarray(cal.predict_proba(self._problem_scores(P, key)), dtype=float)[:, 1]
            for cal, key in zip(self.calibrators_, self.problem_keys_, strict=True)
        ]
        return np.column_stack(columns)

    def predict_proba(self, P: Any) -> np.ndarray:
        """Calibrated probabilities, shape ``(n, K)``."""
        check_is_fitted(self, "calibrators_")
        P_ = self._validate_predict(P)
        return self._combine(self._binary_probabilities(P_))

    def predict(self, P: Any) -> np.ndarray:
        """The class of highest calibrated probability."""
        return np.argmax(self.predict_proba(P), axis=1)


class _MultiClassReduction(_BinaryReduction):
    def _validate(self, P: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        P_ = check_probability_matrix(P, "P")
        y_ = check_labels(y, "y", n_classes=P_.shape[1])
        check_consistent_length(P=P_, y=y_)
        _check_all_classes_present(y_, P_.shape[1])
        return P_, y_

    def _validate_predict(self, P: Any) -> np.ndarray:
        return check_probability_matrix(P, "P", n_classes=self.n_features_in_)


class OneVsRestCalibrator(_MultiClassReduction):
    """Multi-class calibration by one-vs-rest binary problems and normalisation.

    Parameters
    ----------
    calibrator : binary calibrator
        Cloned once per class; clone ``k`` is fitted on column ``k`` of ``P``
        against the indicator ``1{y = k}``.

    Attributes
    ----------
    calibrators_ : list of fitted calibrators
        One per class.
    problem_keys_ : list of tuple
        ``[(0,), (1,), ..., (K-1,)]``.
    classes_ : ndarray of shape (K,)
        ``0..K-1``.
    n_features_in_ : int
        ``K``, the number of columns of ``P``.

    Notes
    -----
    With :math:`q_k = g_k(P_{\\cdot k})` the calibrated probability of problem
    ``k``, the output is the normalisation

    .. math:: \\hat p_k = q_k / \\sum_{l=1}^K q_l ,

    which Zadrozny & Elkan (2002) found as good as least-squares or coupling
    combinations (Alasalmi 2020 §2.4). When all :math:`q_k` are 0 for a sample
    the output is the uniform distribution :math:`1/K` (documented fallback;
    never NaN).

    References
    ----------
    .. [1] B. Zadrozny and C. Elkan, "Transforming classifier scores into
       accurate multiclass probability estimates", KDD 2002.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescal.calibration.reductions import OneVsRestCalibrator
    >>> from bayescal.calibration.platt import PlattCalibrator
    >>> rng = np.random.default_rng(0)
    >>> P = rng.dirichlet(np.ones(3), size=60)
    >>> y = np.array([rng.choice(3, p=p) for p in P])
    >>> proba = OneVsRestCalibrator(PlattCalibrator()).fit(P, y).predict_proba(P)
    >>> proba.sum(axis=1).round(12).min()
    np.float64(1.0)
    """

    def __init__(self, calibrator: Any):
        self.calibrator = calibrator

    def _problem_keys(self, n_outputs: int) -> list[tuple[int, ...]]:
        return [(k,) for k in range(n_outputs)]

    def _problem_scores(self, P: np.ndarray, key: tuple[int, ...]) -> np.ndarray:
        return P[:, key[0]]

    def _problem_data(self, P, y, key):
        index = np.arange(P.shape[0])
        return P[:, key[0]], (y == key[0]).astype(np.float64), index

    def _combine(self, Q: np.ndarray) -> np.ndarray:
        total = Q.sum(axis=1, keepdims=True)
        return np.divide(Q, total, out=np.full_like(Q, 1.0 / Q.shape[1]), where=total > 0)


class AllPairsCalibrator(_MultiClassReduction):
    """Multi-class calibration by all-pairs binary problems and pairwise coupling.

    Parameters
    ----------
    calibrator : binary calibrator
        Cloned once per pair of classes ``i < j``.
    coupling : {"wu2004", "hastie1998", "kernlab_minpair"}, default="wu2004"
        How the pairwise probabilities are combined:
        :func:`~bayescal.calibration.coupling.couple_wu2004` (Wu, Lin & Weng
        2004, method 2), :func:`~bayescal.calibration.coupling.couple_hastie1998`
        (Hastie & Tibshirani 1998, weighted by each pair's total sample weight
        in the calibration data, their :math:`n_{ij}`), or
        :func:`~bayescal.calibration.coupling.couple_kernlab_minpair` (what R's
        ``kernlab::couple`` computes given the pairs in lexicographic order:
        equal to ``"wu2004"`` for three classes, scrambled from four on; only
        to reproduce results computed with it, e.g. Alasalmi (2020) Tables 6-7).

    Attributes
    ----------
    calibrators_ : list of fitted calibrators
        One per pair, in the order of ``problem_keys_``.
    problem_keys_ : list of tuple
        ``[(0, 1), (0, 2), ..., (K-2, K-1)]``.
    pair_weights_ : ndarray of shape (K, K)
        Symmetric total sample weight of each pair's calibration data.
    classes_ : ndarray of shape (K,)
    n_features_in_ : int

    Notes
    -----
    Pair ``(i, j)`` is calibrated on the samples of classes ``i`` and ``j``
    only, with the score

    .. math:: s_{ij} = \\frac{P_{\\cdot i}}{P_{\\cdot i} + P_{\\cdot j}}

    (the classifier's own conditional probability of ``i`` given ``{i, j}``)
    and target ``1{y = i}``. Where :math:`P_{\\cdot i} + P_{\\cdot j} = 0` the
    classifier says nothing about the pair and the score is 0.5. The
    calibrated :math:`r_{ij} = g_{ij}(s_{ij})` (and :math:`r_{ji} = 1 - r_{ij}`)
    are kept within :math:`[10^{-7}, 1 - 10^{-7}]`, as LIBSVM does, and
    coupled into class probabilities (Alasalmi 2020 §2.4).

    References
    ----------
    .. [1] T. Hastie and R. Tibshirani, "Classification by pairwise coupling",
       Annals of Statistics 26(2):451-471, 1998.
    .. [2] T.-F. Wu, C.-J. Lin and R. C. Weng, "Probability estimates for
       multi-class classification by pairwise coupling", JMLR 5:975-1005, 2004.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescal.calibration.reductions import AllPairsCalibrator
    >>> from bayescal.calibration.platt import PlattCalibrator
    >>> rng = np.random.default_rng(0)
    >>> P = rng.dirichlet(np.ones(3), size=60)
    >>> y = np.array([rng.choice(3, p=p) for p in P])
    >>> cal = AllPairsCalibrator(PlattCalibrator(), coupling="hastie1998").fit(P, y)
    >>> cal.problem_keys_
    [(0, 1), (0, 2), (1, 2)]
    """

    _parameter_constraints: dict = {
        **_BinaryReduction._parameter_constraints,
        "coupling": [StrOptions({"wu2004", "hastie1998", "kernlab_minpair"})],
    }

    def __init__(self, calibrator: Any, *, coupling: str = "wu2004"):
        self.calibrator = calibrator
        self.coupling = coupling

    def fit_binary_problems(self, problems, n_outputs):  # noqa: D102 (documented in base)
        return super().fit_binary_problems(problems, n_outputs)

    fit_binary_problems.__doc__ = _BinaryReduction.fit_binary_problems.__doc__

    def _problem_keys(self, n_outputs: int) -> list[tuple[int, ...]]:
        return [(i, j) for i in range(n_outputs) for j in range(i + 1, n_outputs)]

    def _problem_scores(self, P: np.ndarray, key: tuple[int, ...]) -> np.ndarray:
        i, j = key
        total = P[:, i] + P[:, j]
        return np.divide(P[:, i], total, out=np.full(P.shape[0], 0.5), where=total > 0)

    def _problem_data(self, P, y, key):
        i, j = key
        index = np.flatnonzero((y == i) | (y == j))
        scores = self._problem_scores(P[index], key)
        return scores, (y[index] == i).astype(np.float64), index

    def _after_fit(self, problems, n_outputs):
        super()._after_fit(problems, n_outputs)
        weights = np.zeros((n_outputs, n_outputs))
        for problem in problems:
            i, j = problem.key
            weights[i, j] = weights[j, i] = float(np.sum(problem.sample_weight))
        self.pair_weights_ = weights

    def _combine(self, Q: np.ndarray) -> np.ndarray:
        k = self.n_features_in_
        Q = np.clip(Q, MIN_PAIR_PROBABILITY, 1.0 - MIN_PAIR_PROBABILITY)
        R = np.zeros((Q.shape[0], k, k))
        for col, (i, j) in enumerate(self.problem_keys_):
            R[:, i, j] = Q[:, col]
            R[:, j, i] = 1.0 - Q[:, col]
        if self.coupling == "hastie1998":
            return pairwise_coupling(R, "hastie1998", pair_weights=self.pair_weights_)
        return pairwise_coupling(R, self.coupling)


class MultiLabelCalibrator(_BinaryReduction):
    """Multi-label calibration: one binary calibrator per label (binary relevance).

    Parameters
    ----------
    calibrator : binary calibrator
        Cloned once per label; clone ``l`` is fitted on column ``l`` of the
        score matrix against column ``l`` of the label matrix.

    Attributes
    ----------
    calibrators_ : list of fitted calibrators
        One per label.
    problem_keys_ : list of tuple
        ``[(0,), ..., (L-1,)]``.
    classes_ : ndarray of shape (L,)
        Label indices ``0..L-1``.
    n_features_in_ : int
        ``L``.

    Notes
    -----
    Following Anonymous (TMLR submission) §5, the labels are treated as independent binary
    problems and each is calibrated separately: :math:`\\hat p_l = g_l(s_l)`.
    ``predict_proba`` returns the ``(n, L)`` matrix of positive-label
    probabilities. **Its rows do not sum to one**: a sample can carry several
    labels (or none), so the columns are separate Bernoulli probabilities, not a
    distribution over labels. ``predict`` returns the 0/1 label matrix
    :math:`1\\{\\hat p_l > 0.5\\}`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescal.calibration.reductions import MultiLabelCalibrator
    >>> from bayescal.calibration.platt import PlattCalibrator
    >>> rng = np.random.default_rng(0)
    >>> S = rng.uniform(size=(80, 4))
    >>> Y = (rng.uniform(size=(80, 4)) < S).astype(int)
    >>> MultiLabelCalibrator(PlattCalibrator()).fit(S, Y).predict_proba(S).shape
    (80, 4)
    """

    def __init__(self, calibrator: Any):
        self.calibrator = calibrator

    def _validate_scores(self, P: Any) -> np.ndarray:
        return check_probability_columns(P, "P")

    def _validate(self, P: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        S = self._validate_scores(P)
        Y = check_indicator_matrix(y, "y")
        check_consistent_length(P=S, y=Y)
        if Y.shape[1] != S.shape[1]:
            raise ValueError(
                f"`y` has {Y.shape[1]} label columns but `P` has {S.shape[1]}; "
                "pass one 0/1 column per label."
            )
        return S, Y

    def _validate_predict(self, P: Any) -> np.ndarray:
        S = self._validate_scores(P)
        if S.shape[1] != self.n_features_in_:
            raise ValueError(
                f"`P` has {S.shape[1]} columns but the calibrator was fitted on "
                f"{self.n_features_in_} labels."
            )
        return S

    def _problem_keys(self, n_outputs: int) -> list[tuple[int, ...]]:
        return [(k,) for k in range(n_outputs)]

    def _problem_scores(self, P: np.ndarray, key: tuple[int, ...]) -> np.ndarray:
        return P[:, key[0]]

    def _problem_data(self, P, y, key):
        return P[:, key[0]], y[:, key[0]].copy(), np.arange(P.shape[0])

    def __sklearn_tags__(self):  # noqa: D105
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True  # y: one 0/1 column per label
        return tags

    def _combine(self, Q: np.ndarray) -> np.ndarray:
        return Q

    def predict_proba(self, P: Any) -> np.ndarray:
        """Calibrated positive-label probabilities, shape ``(n, L)``; rows need not sum to 1."""
        return super().predict_proba(P)

    def predict(self, P: Any) -> np.ndarray:
        """The 0/1 label matrix: 1 where the calibrated probability exceeds 0.5."""
        return (self.predict_proba(P) > 0.5).astype(np.int64)
