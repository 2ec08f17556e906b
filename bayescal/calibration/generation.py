"""Calibration data for small data sets: Data Generation (DG) and grouping (DGG).

Alasalmi (2020) §3.3 (Publications III-V): a calibrator needs more than a
thousand calibration samples, which a small data set cannot spare. DG makes
them by Monte Carlo cross-validation on the training set: train a clone of the
classifier on a bootstrap sample, predict the samples held out of it, collect
the predicted probabilities with the true labels, and repeat with new splits
until ``n_samples`` (5000 in the thesis) are collected. DGG then sorts the
collected samples by score and averages consecutive groups of ``group_size``
(100 in the thesis) in both score and label, which smooths the labels
("to add label smoothing and therefore avoid overly confident probability
estimates") and gives fractional targets.

For a multi-class problem the generated data are the ``(n, K)`` probabilities
and class codes; DGG grouping is done per binary problem of the chosen
reduction (Alasalmi 2020 §3.3.2) by :func:`group_binary_problems`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import train_test_split

from bayescal.calibration._fitting import fit_estimator
from bayescal.calibration._scores import classifier_scores, score_method
from bayescal.validation import (
    check_array_1d,
    check_choice,
    check_consistent_length,
    check_fraction,
    check_matrix,
    check_n_classes_present,
    check_positive_int,
    check_targets,
)

__all__ = ["generate_calibration_data", "group_binary_problems", "group_by_score"]

#: Redraws allowed for a bootstrap sample that misses a class or holds nothing out.
MAX_REDRAWS = 100


def group_by_score(
    scores: Any, targets: Any, group_size: int = 100
) -> tuple[np.ndarray, np.ndarray]:
    """DGG grouping: sort by score, average consecutive groups in score and target.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Positive-class scores.
    targets : array-like of shape (n,)
        0/1 labels or fractions in [0, 1].
    group_size : int, default=100
        Samples per group. When ``n`` is not a multiple of ``group_size`` the
        last group (highest scores) holds the remaining ``n % group_size``.

    Returns
    -------
    scores : ndarray of shape (ceil(n / group_size),)
        Mean score of each group, increasing.
    targets : ndarray of shape (ceil(n / group_size),)
        Mean target (the positive fraction) of each group.

    Notes
    -----
    Ties in score are ordered by their position in the input (stable sort),
    so the result is deterministic.

    Examples
    --------
    >>> s, t = group_by_score([0.9, 0.1, 0.4, 0.2, 0.8], [1, 0, 1, 0, 0], group_size=2)
    >>> s.tolist(), t.tolist()
    ([0.15000000000000002, 0.6000000000000001, 0.9], [0.0, 0.5, 1.0])
    """
    s = check_array_1d(scores, "scores")
    t = check_targets(targets, "targets")
    check_consistent_length(scores=s, targets=t)
    size = check_positive_int(group_size, "group_size")
    order = np.argsort(s, kind="stable")
    starts = np.arange(0, s.shape[0], size)
    counts = np.diff(np.append(starts, s.shape[0]))
    grouped_s = np.add.reduceat(s[order], starts) / counts
    grouped_t = np.add.reduceat(t[order], starts) / counts
    return grouped_s, grouped_t


def _draw_split(
    y_codes: np.ndarray, n_classes: int, test_fraction: float | None, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """One Monte Carlo split: (bootstrap training indices, held-out indices)."""
    n = y_codes.shape[0]
    for _ in range(MAX_REDRAWS):
        if test_fraction is None:
            train = rng.integers(0, n, size=n)
            held = np.setdiff1d(np.arange(n), train)
        else:
            pool, held = train_test_split(
                np.arange(n),
                test_size=test_fraction,
                stratify=y_codes,
                random_state=int(rng.integers(2**31 - 1)),
            )
            train = rng.choice(pool, size=pool.shape[0], replace=True)
        if held.size and np.unique(y_codes[train]).size == n_classes:
            return train, np.sort(held)
    raise ValueError(
        f"could not draw a bootstrap sample holding every class and leaving samples out in "
        f"{MAX_REDRAWS} tries; `y` has too few samples of some class for DG/DGG."
    )


#: Parameters (at any depth of ``get_params``) that only ask a fit for outputs no
#: DG/DGG round reads, switched off in the round's clone (see :func:`_round_estimator`).
UNUSED_IN_ROUNDS = ("oob_score",)


def _unseeded_nested(estimator: Any) -> list[str]:
    """Nested ``random_state`` parameters left None (``rf__random_state`` of a Pipeline)."""
    return [name for name, value in estimator.get_params(deep=True).items()
            if name.endswith("__random_state") and value is None]


def _nested_stream(rng: np.random.Generator) -> np.random.Generator:
    """A stream for nested seeds that leaves ``rng``'s own draws as they were."""
    try:
        return rng.spawn(1)[0]  # advances nothing in ``rng``
    except TypeError:  # a bit generator without a SeedSequence (legacy seeding)
        return np.random.default_rng(int(rng.integers(2**63 - 1)))


def _round_estimator(estimator: Any, rng: np.random.Generator,
                     nested_seeds: dict[str, int]) -> Any:
    """A clone for one DG/DGG round: its own seeds where unseeded, no unused outputs.

    A top-level ``random_state`` left None is drawn from ``rng`` (the splits'
    stream); the nested ones (a Pipeline's or meta-estimator's inner
    estimators) are set to ``nested_seeds``, drawn by the caller from a
    stream of their own, so that a classifier without unseeded inner
    estimators draws exactly the splits and seeds it did before nested
    seeding existed.

    A round only reads the clone's predictions on the held-out samples, so a
    parameter that merely adds an output the round never reads (``oob_score``
    of a forest or bagging ensemble: out-of-bag scores computed after the
    trees are grown, from each tree's own seed, drawing nothing from the
    estimator's random state) is switched off. The fitted trees, and so the
    generated data, are the same bit for bit; the round is cheaper (a
    500-tree forest's out-of-bag scoring is 10-20 % of its fit).
    """
    est = clone(estimator)
    params = est.get_params(deep=False)
    if "random_state" in params and params["random_state"] is None:
        est.set_params(random_state=int(rng.integers(2**31 - 1)))
    if nested_seeds:
        est.set_params(**nested_seeds)
    unused = {name: False for name, value in est.get_params(deep=True).items()
              if name.rsplit("__", 1)[-1] in UNUSED_IN_ROUNDS and value is not False}
    if unused:
        est.set_params(**unused)
    return est


def generate_calibration_data(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    method: str = "dg",
    n_samples: int = 5000,
    group_size: int = 100,
    test_fraction: float | None = None,
    random_state: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Generate calibration data by Monte Carlo cross-validation (DG / DGG).

    Parameters
    ----------
    estimator : scikit-learn classifier
        Unfitted classifier with ``predict_proba`` or, failing that,
        ``decision_function`` (see :func:`bayescal.calibration._scores.score_method`);
        a clone is fitted per round.
    X : array-like of shape (n, d)
        Training features (NaN allowed when the estimator handles it).
    y : array-like of shape (n,)
        Training labels (any labels; columns follow ``np.unique(y)``, as in
        scikit-learn's ``classes_``).
    method : {"dg", "dgg"}, default="dg"
        DG returns the collected held-out predictions; DGG also groups them
        (binary problems only, see Notes).
    n_samples : int, default=5000
        Held-out predictions to collect (the thesis used 5000).
    group_size : int, default=100
        DGG group size (the thesis used 100).
    test_fraction : float in (0, 1), optional
        ``None`` (default): each round trains on a bootstrap sample of all ``n``
        training samples and predicts the samples left out of it (about 36.8 %,
        the out-of-bootstrap samples). A fraction: each round holds out a
        stratified random ``test_fraction`` of the samples and trains on a
        bootstrap sample of the rest.
    random_state : None, int or numpy Generator, default=None
        Seeds the splits, and every ``random_state`` of the estimator clones
        left None -- the estimator's own and, from a separate stream, those of
        its inner estimators (the steps of a Pipeline, the base estimator of a
        meta-estimator) -- so the same seed gives the same data. A Generator
        is advanced, and spawns one child stream when inner seeds are needed.

    Returns
    -------
    scores : ndarray
        Binary: ``(n_samples,)`` positive-class probabilities, or decision
        values for an estimator without ``predict_proba`` (DG), or
        ``(ceil(n_samples / group_size),)`` group mean scores (DGG).
        Multi-class: ``(n_samples, K)`` probabilities.
    targets : ndarray
        Binary: 0/1 labels (DG, int64) or group positive fractions (DGG, float).
        Multi-class: class codes ``0..K-1`` (int64) into ``np.unique(y)``.

    Raises
    ------
    ValueError
        For an unknown method, too few samples or classes, a bootstrap that
        cannot hold every class, or degenerate generated data (a class never
        held out, or DGG groups that all have the same positive fraction); the
        message says it is the generated data and what to change.
    TypeError
        If ``estimator`` has neither ``predict_proba`` nor ``decision_function``.

    Notes
    -----
    Alasalmi (2020) §3.3: "the training data set was split further in two. One part
    was used for training a classifier and the other part was then predicted
    with this classifier. The probability estimates and the true labels of
    these predictions were collected ... This procedure was repeated with a
    different data split, using bootstrap sampling, as many times as was needed
    to collect enough calibration data, 5000 samples". Rounds are appended in
    order and the collection is cut at exactly ``n_samples``. A bootstrap
    sample missing a class is redrawn (up to 100 times).

    *Multi-class*: the returned ``(n, K)`` data are the DG data whatever
    ``method`` is; DGG grouping depends on the binary problems of the
    reduction (one-vs-rest, all pairs), so it is applied per problem by
    :func:`group_binary_problems` (which :class:`CalibratedClassifier` does).

    References
    ----------
    Alasalmi, T. et al. (2018, 2020), Publications III-IV of Alasalmi (2020), §3.3, Fig. 10.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = make_classification(n_samples=120, random_state=0)
    >>> s, t = generate_calibration_data(GaussianNB(), X, y, method="dgg",
    ...                                  n_samples=1000, random_state=0)
    >>> s.shape, t.shape
    ((10,), (10,))
    """
    check_choice(method, "method", ("dg", "dgg"))
    n_samples = check_positive_int(n_samples, "n_samples")
    group_size = check_positive_int(group_size, "group_size")
    if test_fraction is not None:
        test_fraction = check_fraction(test_fraction, "test_fraction")
    method_name = score_method(estimator)
    X_ = check_matrix(X, "X", allow_nan=True, min_samples=4)
    y_arr = np.asarray(y)
    if y_arr.ndim != 1:
        raise ValueError(f"`y` must be 1-D; got an array of shape {y_arr.shape}.")
    check_consistent_length(X=X_, y=y_arr)
    classes, codes = np.unique(y_arr, return_inverse=True)
    check_n_classes_present(codes, "y")
    n_classes = classes.shape[0]
    rng = np.random.default_rng(random_state)
    nested = _unseeded_nested(estimator)
    nested_rng = _nested_stream(rng) if nested else None

    scores_list, labels = [], []
    collected = 0
    while collected < n_samples:
        train, held = _draw_split(codes, n_classes, test_fraction, rng)
        seeds = ({} if nested_rng is None
                 else {name: int(nested_rng.integers(2**31 - 1)) for name in nested})
        est = fit_estimator(_round_estimator(estimator, rng, seeds), X_[train], y_arr[train])
        scores_list.append(classifier_scores(est, X_[held], classes))
        labels.append(codes[held])
        collected += held.shape[0]
    P = np.concatenate(scores_list)[:n_samples]
    codes_out = np.concatenate(labels)[:n_samples].astype(np.int64)
    _check_generated(codes_out, n_classes, codes, method, n_samples)
    if n_classes > 2:
        return P, codes_out
    scores = P[:, 1] if method_name == "predict_proba" else P
    if method == "dg":
        return scores, codes_out
    grouped, fractions = group_by_score(scores, codes_out.astype(float), group_size)
    if fractions.min() == fractions.max():
        raise ValueError(
            f"the calibration data generated by DGG are degenerate: all {fractions.size} groups "
            f"of group_size={group_size} have the same positive fraction "
            f"{float(fractions[0])!r}, so no calibration map can be learnt from them (this is "
            "generated data, not the `y` you passed). Use a smaller group_size, a larger "
            "n_generated/n_samples, or scenario 'dg'."
        )
    return grouped, fractions


def _check_generated(
    generated: np.ndarray, n_classes: int, codes: np.ndarray, method: str, n_samples: int
) -> None:
    """Raise when the generated held-out predictions miss a class of ``y``."""
    counts = np.bincount(generated, minlength=n_classes)
    if np.all(counts > 0):
        return
    missing = np.flatnonzero(counts == 0)
    have = np.bincount(codes, minlength=n_classes)[missing]
    raise ValueError(
        f"the calibration data generated by {method.upper()} ({n_samples} held-out "
        f"predictions) contain no sample of class code(s) {missing.tolist()}, which the "
        f"training `y` holds only {have.tolist()} time(s); this is generated data, not the "
        "`y` you passed. Use more training rows of the rare class, a larger n_generated/"
        "n_samples, test_fraction=None (out-of-bootstrap rounds), or scenario 'cv'."
    )


def group_binary_problems(reduction: Any, P: Any, y: Any, group_size: int = 100) -> list[Any]:
    """DGG grouping of each binary problem of a multi-class reduction.

    Parameters
    ----------
    reduction : OneVsRestCalibrator or AllPairsCalibrator
        Any estimator with ``binary_problems(P, y)`` returning
        :class:`~bayescal.calibration.reductions.BinaryProblem` tuples.
    P : array-like of shape (n, K)
        DG probabilities (from :func:`generate_calibration_data`).
    y : array-like of shape (n,)
        Class codes.
    group_size : int, default=100
        Samples per group.

    Returns
    -------
    list of BinaryProblem
        Each problem's scores and targets replaced by their group means
        (:func:`group_by_score`), unit weight per group, and ``index`` the input
        row of the group's lowest-scored member. Pass them to the reduction's
        ``fit_binary_problems(problems, n_outputs=K)``.
    """
    if not hasattr(reduction, "binary_problems"):
        raise TypeError(
            f"DGG grouping of multi-class data needs a reduction with binary_problems "
            f"(OneVsRestCalibrator, AllPairsCalibrator); got {type(reduction).__name__}."
        )
    grouped = []
    for problem in reduction.binary_problems(P, y):
        size = check_positive_int(group_size, "group_size")
        s, t = group_by_score(problem.scores, problem.targets, size)
        first = problem.index[np.argsort(problem.scores, kind="stable")][::size]
        grouped.append(
            problem._replace(scores=s, targets=t, sample_weight=np.ones(s.shape[0]), index=first)
        )
    return grouped
