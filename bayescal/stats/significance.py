"""Significance tests for comparing two learning algorithms.

Plain NumPy functions on per-fold scores (or their differences) of two models
evaluated on the same resampling folds, as used in Alasalmi (2020) §2.5: the 5×2 CV paired t-test (Dietterich 1998),
the combined 5×2 CV F-test (Alpaydın 1999), McNemar's test, the k-fold CV
paired t-test and the corrected resampled t-test (Nadeau & Bengio 2003).

Every test is two-sided and returns a :class:`SignificanceResult`. The fold
axes are the trailing axes, so a call on an array of shape ``(..., k)`` (or
``(..., 5, 2)``) tests every leading entry at once; :func:`bayescal.stats.compare`
wraps these for xarray result cubes. Differences are ``a - b``: a positive
statistic means model ``a`` scored higher.

Conventions where the textbook formula is undefined (zero variance of the
differences): all differences zero gives statistic 0 and p-value 1 (no
evidence of a difference); equal but non-zero differences give an infinite
statistic and p-value 0. (``scipy.stats.ttest_rel`` returns NaN for both.)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from scipy import stats

from bayescal.validation import describe_bad_values

__all__ = [
    "SignificanceResult",
    "combined_ftest_5x2cv",
    "corrected_resampled_ttest",
    "cv_ttest",
    "mcnemar",
    "mcnemar_table",
    "paired_ttest_5x2cv",
]


class SignificanceResult(NamedTuple):
    """Result of a two-sample significance test.

    Attributes
    ----------
    statistic : float or ndarray
        The test statistic (t, F or chi-square; see each test).
    p_value : float or ndarray
        Two-sided p-value in [0, 1].
    mean_difference : float or ndarray
        Mean of ``a - b`` over the folds (McNemar: accuracy of ``a`` minus
        accuracy of ``b``).
    dof : float or ndarray
        Degrees of freedom of the reference distribution (the F-test reports
        its denominator degrees of freedom, 5; the numerator has 10; NaN for
        the exact McNemar test).
    """

    statistic: Any
    p_value: Any
    mean_difference: Any
    dof: Any


# --- input ---------------------------------------------------------------------


def _as_scores(values: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{name}` must hold numbers (per-fold scores): {exc}") from exc
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ValueError(
            f"`{name}` contains NaN or inf: {describe_bad_values(arr, bad)}. "
            "A test needs every fold; drop or rerun the unfinished folds first."
        )
    return arr


def _differences(a: Any, b: Any, fold_shape: tuple[int, ...] | None, min_folds: int) -> np.ndarray:
    """Validated ``a - b`` (or ``a`` when ``b`` is None) with the fold axes last."""
    d = _as_scores(a, "a")
    if b is not None:
        bb = _as_scores(b, "b")
        if bb.shape != d.shape:
            raise ValueError(
                f"`a` and `b` must have the same shape (paired folds); got {d.shape} and {bb.shape}."
            )
        d = d - bb
    if fold_shape is not None:
        if d.shape[-len(fold_shape) :] != fold_shape or d.ndim < len(fold_shape):
            raise ValueError(
                f"the 5x2 CV tests need scores of shape (..., 5, 2) (5 repetitions x 2 folds); "
                f"got shape {d.shape}."
            )
    else:
        if d.ndim == 0 or d.shape[-1] < min_folds:
            raise ValueError(
                f"the test needs at least {min_folds} folds along the last axis; "
                f"got scores of shape {d.shape}."
            )
    return d


def _t_pvalue(t: np.ndarray, dof: float) -> np.ndarray:
    return 2.0 * stats.t.sf(np.abs(t), dof)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator with the zero-variance conventions of this module."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = numerator / denominator
        zero = denominator == 0
        out = np.where(zero & (numerator == 0), 0.0, out)
        return np.where(zero & (numerator != 0), np.sign(numerator) * np.inf, out)


def _scalar(result: SignificanceResult) -> SignificanceResult:
    return SignificanceResult(
        *(float(v) if np.ndim(v) == 0 else np.asarray(v, dtype=float) for v in result)
    )


# --- kernels: no validation, NaN propagates (used by compare) --------------------


def _ttest_kernel(d: np.ndarray, variance_factor: float) -> SignificanceResult:
    k = d.shape[-1]
    mean = d.mean(axis=-1)
    var = d.var(axis=-1, ddof=1)
    t = _ratio(mean, np.sqrt(var * variance_factor))
    dof = np.full(mean.shape, k - 1.0)
    return SignificanceResult(t, _t_pvalue(t, k - 1), mean, dof)


def _cv_ttest_kernel(d: np.ndarray) -> SignificanceResult:
    return _ttest_kernel(d, 1.0 / d.shape[-1])


def _check_test_train_ratio(test_train_ratio: Any) -> float:
    """Validate ``n_test / n_train`` of the corrected resampled t-test."""
    if isinstance(test_train_ratio, bool) or not isinstance(test_train_ratio, int | float):
        raise TypeError(f"`test_train_ratio` must be a number; got {test_train_ratio!r}.")
    if not (np.isfinite(test_train_ratio) and test_train_ratio > 0):
        raise ValueError(
            f"`test_train_ratio` must be a positive number (n_test / n_train, e.g. 1/(k-1) "
            f"for k-fold CV); got {test_train_ratio!r}."
        )
    return float(test_train_ratio)


def _corrected_kernel(d: np.ndarray, test_train_ratio: float) -> SignificanceResult:
    return _ttest_kernel(d, 1.0 / d.shape[-1] + test_train_ratio)


def _repetition_variances(d: np.ndarray) -> np.ndarray:
    """s_i^2 = sum_j (p_i^(j) - mean_j p_i^(j))^2 for each of the 5 repetitions."""
    return ((d - d.mean(axis=-1, keepdims=True)) ** 2).sum(axis=-1)


def _paired_5x2_kernel(d: np.ndarray) -> SignificanceResult:
    s2 = _repetition_variances(d)
    t = _ratio(d[..., 0, 0], np.sqrt(s2.mean(axis=-1)))
    mean = d.mean(axis=(-2, -1))
    return SignificanceResult(t, _t_pvalue(t, 5), mean, np.full(mean.shape, 5.0))


def _combined_f_kernel(d: np.ndarray) -> SignificanceResult:
    s2 = _repetition_variances(d)
    f = _ratio((d**2).sum(axis=(-2, -1)), 2.0 * s2.sum(axis=-1))
    p = stats.f.sf(f, 10, 5)
    mean = d.mean(axis=(-2, -1))
    return SignificanceResult(f, p, mean, np.full(mean.shape, 5.0))


# --- public tests --------------------------------------------------------------


def cv_ttest(a: Any, b: Any = None) -> SignificanceResult:
    """Paired t-test over the k folds of a cross-validation.

    Parameters
    ----------
    a : array-like of shape (..., k)
        Per-fold scores of model A, or per-fold differences A - B when ``b``
        is omitted. The folds are the last axis.
    b : array-like of shape (..., k), optional
        Per-fold scores of model B on the same folds.

    Returns
    -------
    SignificanceResult
        ``statistic`` t, two-sided ``p_value``, ``mean_difference``
        :math:`\\bar d`, ``dof`` = k - 1.

    Raises
    ------
    ValueError
        If there are fewer than 2 folds, shapes differ, or a score is not finite.

    Notes
    -----
    With :math:`d_i` the difference on fold ``i``,

    .. math:: t = \\frac{\\bar d}{\\sqrt{s_d^2 / k}} \\sim t_{k-1},

    with :math:`s_d^2` the sample variance (ddof 1) of the differences. This
    is the same number as ``scipy.stats.ttest_rel(a, b)``. The folds'
    training sets overlap, so the variance is underestimated and the test is
    liberal; Alasalmi 2020 §2.5 reports it as having an acceptable type I error and
    good power. See the module notes for zero variance.

    References
    ----------
    .. [1] T. G. Dietterich, "Approximate statistical tests for comparing
       supervised classification learning algorithms", Neural Computation
       10(7):1895-1923, 1998.

    Examples
    --------
    >>> r = cv_ttest([0.81, 0.79, 0.84, 0.80, 0.83], [0.78, 0.77, 0.80, 0.80, 0.79])
    >>> round(r.statistic, 4), round(r.p_value, 4), r.dof
    (3.4744, 0.0255, 4.0)
    """
    return _scalar(_cv_ttest_kernel(_differences(a, b, None, 2)))


def corrected_resampled_ttest(
    a: Any, b: Any = None, *, test_train_ratio: float
) -> SignificanceResult:
    """Corrected resampled t-test of Nadeau & Bengio (2003).

    Parameters
    ----------
    a : array-like of shape (..., k)
        Per-resample scores of model A (or differences A - B when ``b`` is
        omitted); the resamples (folds, repeats × folds) are the last axis.
    b : array-like of shape (..., k), optional
        Per-resample scores of model B.
    test_train_ratio : float
        :math:`n_2 / n_1`, the size of a test set over the size of its training
        set: ``1 / (k - 1)`` for k-fold cross-validation, ``0.5 / 0.5 = 1`` for
        2-fold, ``0.1 / 0.9`` for a 10 % hold-out.

    Returns
    -------
    SignificanceResult
        ``statistic`` t, two-sided ``p_value``, ``mean_difference``, ``dof`` = k - 1.

    Notes
    -----
    The variance of the mean difference is inflated to account for the
    overlap of the training sets:

    .. math:: t = \\frac{\\bar d}{\\sqrt{\\left(\\frac1k + \\frac{n_2}{n_1}\\right) s_d^2}}
              \\sim t_{k-1}.

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio, "Inference for the generalization error",
       Machine Learning 52(3):239-281, 2003.
    .. [2] R. R. Bouckaert and E. Frank, "Evaluating the replicability of
       significance tests for comparing learning algorithms", PAKDD 2004.

    Examples
    --------
    >>> d = [0.03, 0.02, 0.04, 0.0, 0.04]
    >>> r = corrected_resampled_ttest(d, test_train_ratio=1 / 4)
    >>> round(r.statistic, 4), round(r.p_value, 4)
    (2.3163, 0.0815)
    """
    ratio = _check_test_train_ratio(test_train_ratio)
    return _scalar(_corrected_kernel(_differences(a, b, None, 2), ratio))


def paired_ttest_5x2cv(a: Any, b: Any = None) -> SignificanceResult:
    """5×2 cross-validation paired t-test of Dietterich (1998).

    Parameters
    ----------
    a : array-like of shape (..., 5, 2)
        Scores of model A on fold ``j`` of repetition ``i`` (or differences
        A - B when ``b`` is omitted); each repetition is a fresh random split
        into two halves, each half used once as the test set.
    b : array-like of shape (..., 5, 2), optional
        Scores of model B on the same folds.

    Returns
    -------
    SignificanceResult
        ``statistic`` t, two-sided ``p_value``, ``mean_difference`` (of all
        ten differences), ``dof`` = 5.

    Notes
    -----
    With :math:`p_i^{(j)}` the difference on fold ``j`` of repetition ``i``,
    :math:`\\bar p_i = (p_i^{(1)} + p_i^{(2)})/2` and
    :math:`s_i^2 = (p_i^{(1)} - \\bar p_i)^2 + (p_i^{(2)} - \\bar p_i)^2`,

    .. math:: t = \\frac{p_1^{(1)}}{\\sqrt{\\frac15 \\sum_{i=1}^5 s_i^2}} \\sim t_5 .

    The numerator is the first fold of the first repetition only, as in
    Dietterich's paper (and mlxtend); so the order of the repetitions matters.

    References
    ----------
    .. [1] T. G. Dietterich, "Approximate statistical tests for comparing
       supervised classification learning algorithms", Neural Computation
       10(7):1895-1923, 1998.

    Examples
    --------
    >>> d = [[0.02, 0.01], [0.03, 0.0], [0.01, 0.02], [0.02, 0.02], [0.0, 0.01]]
    >>> r = paired_ttest_5x2cv(d)
    >>> round(r.statistic, 4), round(r.p_value, 4)
    (1.8257, 0.1275)
    """
    return _scalar(_paired_5x2_kernel(_differences(a, b, (5, 2), 0)))


def combined_ftest_5x2cv(a: Any, b: Any = None) -> SignificanceResult:
    """Combined 5×2 cross-validation F-test of Alpaydın (1999).

    Parameters
    ----------
    a : array-like of shape (..., 5, 2)
        Scores of model A per repetition and fold (or differences A - B when
        ``b`` is omitted).
    b : array-like of shape (..., 5, 2), optional
        Scores of model B on the same folds.

    Returns
    -------
    SignificanceResult
        ``statistic`` F (non-negative; swapping A and B leaves it unchanged),
        ``p_value`` = P(F(10, 5) > f), ``mean_difference``, ``dof`` = 5 (the
        denominator degrees of freedom; the numerator has 10).

    Notes
    -----
    With :math:`p_i^{(j)}` and :math:`s_i^2` as in :func:`paired_ttest_5x2cv`,

    .. math:: f = \\frac{\\sum_{i=1}^5 \\sum_{j=1}^2 (p_i^{(j)})^2}{2 \\sum_{i=1}^5 s_i^2}
              \\sim F(10, 5).

    Unlike the 5×2 t-test it uses all ten differences, which makes it more
    robust to the order of the repetitions (Alasalmi 2020 §2.5).

    References
    ----------
    .. [1] E. Alpaydın, "Combined 5×2 cv F test for comparing supervised
       classification learning algorithms", Neural Computation 11(8):1885-1892, 1999.

    Examples
    --------
    >>> d = [[0.02, 0.01], [0.03, 0.0], [0.01, 0.02], [0.02, 0.02], [0.0, 0.01]]
    >>> r = combined_ftest_5x2cv(d)
    >>> round(r.statistic, 4), round(r.p_value, 4)
    (2.3333, 0.1811)
    """
    return _scalar(_combined_f_kernel(_differences(a, b, (5, 2), 0)))


def mcnemar_table(y_true: Any, pred_a: Any, pred_b: Any) -> np.ndarray:
    """The 2×2 table of McNemar's test from two models' predictions.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels (any comparable values).
    pred_a, pred_b : array-like of shape (n,)
        Predicted labels of models A and B on the same samples.

    Returns
    -------
    ndarray of shape (2, 2), int64
        ``[[both right, A right & B wrong], [A wrong & B right, both wrong]]``
        (the layout of ``mlxtend.evaluate.mcnemar_table``).

    Examples
    --------
    >>> mcnemar_table([0, 1, 1, 0], [0, 1, 0, 0], [0, 0, 1, 1])
    array([[1, 2],
           [1, 0]])
    """
    arrays = [np.asarray(v) for v in (y_true, pred_a, pred_b)]
    for name, arr in zip(("y_true", "pred_a", "pred_b"), arrays, strict=True):
        if arr.ndim != 1 or arr.shape[0] == 0:
            raise ValueError(f"`{name}` must be a non-empty 1-D array; got shape {arr.shape}.")
    if len({arr.shape[0] for arr in arrays}) != 1:
        raise ValueError(
            "inconsistent numbers of samples: "
            + ", ".join(f"`{n}` has {a.shape[0]}" for n, a in zip(("y_true", "pred_a", "pred_b"), arrays, strict=True))
        )
    right_a = arrays[1] == arrays[0]
    right_b = arrays[2] == arrays[0]
    return np.array(
        [
            [np.sum(right_a & right_b), np.sum(right_a & ~right_b)],
            [np.sum(~right_a & right_b), np.sum(~right_a & ~right_b)],
        ],
        dtype=np.int64,
    )


def mcnemar(table: Any, *, exact: bool = False, correction: bool = True) -> SignificanceResult:
    """McNemar's test for two classifiers evaluated on the same test samples.

    Parameters
    ----------
    table : array-like of shape (..., 2, 2)
        Counts ``[[n00, n01], [n10, n11]]`` from :func:`mcnemar_table`:
        ``n01`` = A right and B wrong (``b``), ``n10`` = A wrong and B right
        (``c``). Leading axes are tested independently.
    exact : bool, default=False
        True: the exact binomial test of ``b`` against Binomial(b + c, 1/2)
        (recommended when b + c < 25). False: the chi-square approximation.
    correction : bool, default=True
        Edwards' continuity correction of the chi-square statistic (ignored
        when ``exact``).

    Returns
    -------
    SignificanceResult
        ``statistic``: chi-square, or min(b, c) for the exact test (so it does
        not change when A and B are swapped); two-sided ``p_value``;
        ``mean_difference`` = (b - c) / N, the accuracy of A minus that of B;
        ``dof`` = 1 (NaN for the exact test).

    Raises
    ------
    ValueError
        If the table is not (..., 2, 2) or holds negative, non-integer or
        non-finite counts.

    Notes
    -----
    Chi-square: :math:`\\chi^2 = (|b - c| - 1)^2 / (b + c)` with the
    correction, :math:`(b - c)^2 / (b + c)` without, referred to
    :math:`\\chi^2_1`. Exact: :math:`p = \\min(1, 2 F_{Bin(b+c, 1/2)}(\\min(b, c)))`.
    When the models never disagree (b + c = 0) the statistic is 0 and the
    p-value 1. Alasalmi (2020) §2.5: low type I error but low power, and unsuitable
    when the training sample or the learner's randomness matters much, since
    it sees a single training run.

    References
    ----------
    .. [1] Q. McNemar, "Note on the sampling error of the difference between
       correlated proportions or percentages", Psychometrika 12:153-157, 1947.
    .. [2] A. L. Edwards, "Note on the 'correction for continuity' in testing
       the significance of the difference between correlated proportions",
       Psychometrika 13:185-187, 1948.

    Examples
    --------
    >>> r = mcnemar([[59, 6], [16, 19]])
    >>> round(r.statistic, 4), round(r.p_value, 4)
    (3.6818, 0.055)
    >>> round(mcnemar([[59, 6], [16, 19]], exact=True).p_value, 4)
    0.0525
    """
    arr = _as_scores(table, "table")
    if arr.ndim < 2 or arr.shape[-2:] != (2, 2):
        raise ValueError(f"`table` must be a 2x2 table of counts (..., 2, 2); got shape {arr.shape}.")
    bad = (arr < 0) | (arr != np.round(arr))
    if bad.any():
        raise ValueError(
            f"`table` must hold non-negative whole counts; {describe_bad_values(arr, bad)}."
        )
    b, c = arr[..., 0, 1], arr[..., 1, 0]
    n = b + c
    total = arr.sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_difference = np.where(total > 0, (b - c) / np.where(total > 0, total, 1), 0.0)
    if exact:
        statistic = np.minimum(b, c)
        p = np.minimum(1.0, 2.0 * stats.binom.cdf(statistic, n, 0.5))
        p = np.where(n > 0, p, 1.0)
        dof = np.full(b.shape, np.nan)
    else:
        # Unclamped, as in statsmodels and mlxtend: b == c gives 1 / (b + c).
        diff = np.abs(b - c) - 1.0 if correction else np.abs(b - c)
        statistic = np.where(n > 0, _ratio(diff**2, n), 0.0)
        p = stats.chi2.sf(statistic, 1)
        dof = np.full(b.shape, 1.0)
    return _scalar(SignificanceResult(statistic, p, mean_difference, dof))


#: Tests applied along fold axes: name -> (kernel, number of fold axes).
FOLD_TESTS = {
    "cv_ttest": (_cv_ttest_kernel, 1),
    "corrected_resampled_ttest": (_corrected_kernel, 1),
    "paired_ttest_5x2cv": (_paired_5x2_kernel, 2),
    "combined_ftest_5x2cv": (_combined_f_kernel, 2),
}
