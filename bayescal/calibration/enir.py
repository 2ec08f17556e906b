"""Ensemble of near-isotonic regressions (ENIR) calibration.

ENIR (Naeini & Cooper 2016, 2018) relaxes isotonic regression: instead of forcing
the calibration map to be monotone it penalises violations of monotonicity,
traces the whole solution path of near-isotonic regression (Tibshirani,
Hoefling & Tibshirani 2011) from the saturated fit (``lam = 0``) to the isotonic
fit, scores every model on the path by BIC and averages the models, weighted by
their relative likelihood ``exp(-BIC/2)``.

This module holds the Python layer: :func:`near_isotonic_path` (the path, with
the fit at any ``lam``) and :class:`ENIRCalibrator`. The path itself is computed
by the numba kernel in :mod:`bayescal.calibration._neariso`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import xlogy

from bayescal._compat.param_validation import StrOptions
from bayescal._kernels.isotonic import pool_tied_scores
from bayescal.calibration._interp import interp, interp_proba
from bayescal.calibration.base import BinaryCalibrator
from bayescal.contracts import input_constraint
from bayescal.validation import check_array_1d, check_sample_weight

__all__ = ["ENIRCalibrator", "NearIsotonicPath", "near_isotonic_path"]

#: Models whose criterion exceeds the best by more than 2 * (this + ln(#models))
#: get weight zero; their total relative weight is below exp(-40) ~ 4e-18.
_NEGLIGIBLE_LOG_WEIGHT = 40.0


@dataclass(frozen=True)
class NearIsotonicPath:
    """The near-isotonic solution path of a sequence (see :func:`near_isotonic_path`).

    Every group (node) of the path is a contiguous run ``[start, stop)`` of the
    input whose fitted value is ``mean + slope * lam`` while ``lam`` lies in
    ``[event_lambda[birth], event_lambda[death])``.

    Attributes
    ----------
    start, stop : ndarray of int
        Run of the input covered by each node.
    weight, positive : ndarray
        Total weight of a node and its weighted target sum.
    slope : ndarray
        d(fitted value)/d(lam) of each node.
    birth, death : ndarray of int
        Event indices creating and fusing each node (``death = n_events + 1``
        for nodes alive at the end, the isotonic fit).
    parent : ndarray of int
        Node a node fuses into (-1 if none).
    event_lambda : ndarray
        The penalties at which fusions happen; entry 0 is 0 (the saturated fit).
    upper_loglik : ndarray
        Per model, the Bernoulli log-likelihood each group would reach at its
        own mean (an upper bound of the model's log-likelihood).
    n_values : int
        Length of the input.
    """

    start: np.ndarray
    stop: np.ndarray
    weight: np.ndarray
    positive: np.ndarray
    slope: np.ndarray
    birth: np.ndarray
    death: np.ndarray
    parent: np.ndarray
    event_lambda: np.ndarray
    upper_loglik: np.ndarray
    n_values: int

    @property
    def mean(self) -> np.ndarray:
        """Weighted mean target of each node."""
        return self.positive / self.weight

    @property
    def n_events(self) -> int:
        """Number of fusions on the path."""
        return self.event_lambda.shape[0] - 1

    @property
    def n_start_groups(self) -> int:
        """Groups at ``lam = 0`` (runs of equal targets)."""
        return int(np.count_nonzero(self.birth == 0))

    def model_index(self, lam: float) -> int:
        """Index of the last event at or below ``lam`` (the model in force)."""
        return int(np.searchsorted(self.event_lambda, lam, side="right") - 1)

    def fitted(self, lam: float) -> np.ndarray:
        """Near-isotonic fit at penalty ``lam`` (one value per input entry).

        Parameters
        ----------
        lam : float
            Penalty, ``lam >= 0``.

        Returns
        -------
        ndarray of shape (n_values,)
        """
        if not np.isfinite(lam) or lam < 0:
            raise ValueError(f"`lam` must be a finite number >= 0; got {lam!r}.")
        k = self.model_index(lam)
        alive = (self.birth <= k) & (self.death > k)
        values = self.mean[alive] + self.slope[alive] * lam
        out = np.empty(self.n_values)
        lengths = self.stop[alive] - self.start[alive]
        order = np.argsort(self.start[alive])
        out[:] = np.repeat(values[order], lengths[order])
        return out


def near_isotonic_path(y: Any, sample_weight: Any = None) -> NearIsotonicPath:
    """Solution path of (weighted) near-isotonic regression.

    Parameters
    ----------
    y : array-like of shape (m,)
        Values in the order the penalty applies to.
    sample_weight : array-like of shape (m,), optional
        Positive weights of the squared errors.

    Returns
    -------
    NearIsotonicPath

    Notes
    -----
    For each ``lam >= 0`` the fit minimises

    .. math::

        \\tfrac12 \\sum_i w_i (y_i - \\beta_i)^2 + \\lambda \\sum_i (\\beta_i - \\beta_{i+1})_+ ,

    which is ``y`` at ``lam = 0`` and the isotonic regression for ``lam`` large
    (Tibshirani, Hoefling & Tibshirani 2011). Adjacent groups fuse at
    computable penalties and never split; the path is computed by the modified
    pool-adjacent-violators algorithm with a heap of collision times in
    O(m log m), written by hand in numba (no maintained library provides it).

    References
    ----------
    .. [1] Tibshirani, R. J., Hoefling, H. and Tibshirani, R. (2011).
       Nearly-isotonic regression. Technometrics 53(1), 54-61.

    Examples
    --------
    >>> path = near_isotonic_path([0.0, 1.0, 0.5, 2.0])
    >>> path.fitted(0.0).tolist()
    [0.0, 1.0, 0.5, 2.0]
    >>> path.fitted(10.0).tolist()
    [0.0, 0.75, 0.75, 2.0]
    """
    values = check_array_1d(y, "y")
    w = check_sample_weight(sample_weight, values.shape[0])
    if np.any(w <= 0):
        raise ValueError("`sample_weight` must be strictly positive for near_isotonic_path.")
    return _run_path(values, w)


def _run_path(values: np.ndarray, weights: np.ndarray) -> NearIsotonicPath:
    # numba is imported on first use, keeping ``import bayescal.calibration`` light
    from bayescal.calibration._neariso import near_isotonic_path_arrays

    arrays = near_isotonic_path_arrays(values, weights)
    return NearIsotonicPath(*arrays, n_values=values.shape[0])


def _node_loglik(positive: np.ndarray, weight: np.ndarray, value: np.ndarray) -> np.ndarray:
    value = np.clip(value, 0.0, 1.0)
    with np.errstate(divide="ignore"):
        return xlogy(positive, value) + xlogy(weight - positive, 1.0 - value)


class _ModelLogliks:
    """Exact Bernoulli log-likelihoods of path models, for batches of models.

    Groups that do not move (zero slope) contribute a constant over their
    lifetime: their per-model sums are one prefix sum over the events,
    computed once. Moving groups are evaluated at each requested model within
    their lifetime by :func:`bayescal.calibration._neariso.moving_node_logliks`.
    """

    def __init__(self, path: NearIsotonicPath) -> None:
        n_models = path.n_events + 1
        static = path.slope == 0.0
        const = _node_loglik(path.positive[static], path.weight[static], path.mean[static])
        # (bincount sums repeated indices many times faster than np.add.at)
        diff = np.bincount(path.birth[static], weights=const, minlength=n_models + 1)
        diff -= np.bincount(path.death[static], weights=const, minlength=n_models + 1)
        self._static = np.cumsum(diff)
        self._moving = np.flatnonzero(~static)
        self._path = path

    def __call__(self, models: np.ndarray) -> np.ndarray:
        """Log-likelihoods of the models ``models`` (sorted event indices)."""
        from bayescal.calibration._neariso import moving_node_logliks

        path = self._path
        loglik = self._static[models]
        loglik += moving_node_logliks(
            self._moving,
            path.birth,
            path.death,
            path.weight,
            path.positive,
            path.slope,
            path.event_lambda,
            np.ascontiguousarray(models, dtype=np.int64),
            path.n_events + 1,
        )
        return loglik


def path_models(path: NearIsotonicPath) -> np.ndarray:
    """Indices of the models ENIR averages: the fits at the fusion penalties.

    Model ``k`` is the fit at ``event_lambda[k]``, k >= 1; the saturated fit
    (k = 0) is dropped, as in Naeini & Cooper's code, unless it is the only
    one. Of several fusions at one penalty (equal up to rounding) only the last
    is a model.
    """
    n_events = path.n_events
    if n_events == 0:
        return np.array([0])
    lam = path.event_lambda
    last_at_lambda = np.ones(n_events + 1, dtype=bool)
    last_at_lambda[:-1] = lam[1:] > lam[:-1] * (1.0 + 1e-9) + 1e-12
    last_at_lambda[0] = False
    return np.flatnonzero(last_at_lambda)


def ensemble_weights(
    path: NearIsotonicPath, penalty_per_df: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Criterion values and normalised weights of the models along ``path``.

    Returns ``(models, criterion, weights)`` for the models of
    :func:`path_models` with non-negligible weight. Degrees of freedom = number
    of groups (distinct fitted values); ``criterion = -2 loglik +
    penalty_per_df * df``.
    """
    df = path.n_start_groups - np.arange(path.n_events + 1)
    models = path_models(path)
    # Exact log-likelihoods are costly for models with many moving groups, so
    # prune with the bound loglik <= upper_loglik (each group at its mean):
    # criterion >= lower. Models are evaluated exactly in increasing order of
    # their bound, in batches of doubling size, starting with the isotonic end;
    # a model whose bound exceeds the best exact criterion so far by the margin
    # cannot get a relative weight above exp(-40) / #models and is dropped.
    lower = -2.0 * path.upper_loglik[models] + penalty_per_df * df[models]
    margin = 2.0 * (_NEGLIGIBLE_LOG_WEIGHT + np.log(models.shape[0]))
    order = np.argsort(lower, kind="stable")
    pending = np.concatenate([[models.shape[0] - 1], order[order != models.shape[0] - 1]])
    logliks = _ModelLogliks(path)
    done_idx: list[np.ndarray] = []
    done_crit: list[np.ndarray] = []
    best = np.inf
    batch = 1
    while pending.size:
        take, pending = np.sort(pending[:batch]), pending[batch:]
        crit = -2.0 * logliks(models[take]) + penalty_per_df * df[models[take]]
        done_idx.append(take)
        done_crit.append(crit)
        best = min(best, float(np.min(crit)))
        if np.isfinite(best):
            pending = pending[lower[pending] <= best + margin]
        batch *= 2
    idx = np.concatenate(done_idx)
    keep_order = np.argsort(idx)
    models = models[idx[keep_order]]
    criterion = np.concatenate(done_crit)[keep_order]
    finite = np.isfinite(criterion)
    if not finite.any():
        raise ValueError(
            "every near-isotonic model has zero likelihood (a fitted value of 0 or 1 "
            "at a sample of the other class); this cannot happen for targets in [0, 1]."
        )
    models, criterion = models[finite], criterion[finite]
    rel = np.exp(-(criterion - criterion.min()) / 2.0)
    keep = rel > 0
    models, criterion, rel = models[keep], criterion[keep], rel[keep]
    return models, criterion, rel / rel.sum()


def ensemble_fit(path: NearIsotonicPath, models: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted average of the path fits ``sum_k weights[k] * fit(lam_k)``.

    Each node's value is linear in ``lam`` over its lifetime, so its share of
    the average is ``mean * sum(w) + slope * sum(w * lam)`` over the models it
    lives in (prefix sums); summing shares down the fusion tree gives every
    input entry its average in O(nodes) overall.
    """
    n_models = path.n_events + 1
    w_full = np.zeros(n_models)
    w_full[models] = weights
    lam = path.event_lambda
    cum_w = np.concatenate([[0.0], np.cumsum(w_full)])
    cum_wl = np.concatenate([[0.0], np.cumsum(w_full * lam)])
    sw = cum_w[path.death] - cum_w[path.birth]
    swl = cum_wl[path.death] - cum_wl[path.birth]
    share = path.mean * sw + path.slope * swl
    from bayescal.calibration._neariso import sum_down_tree

    total = sum_down_tree(path.parent, share)
    leaves = np.flatnonzero(path.birth == 0)
    lengths = path.stop[leaves] - path.start[leaves]
    return np.repeat(total[leaves], lengths)


def _interpolation_knots(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points of ``(x, y)`` that linear interpolation needs.

    Inside a run of equal ``y`` only the run's first and last points matter: the
    interpolant through the rest is the same constant. Dropping them leaves
    ``np.interp(s, *knots)`` equal to ``np.interp(s, x, y)`` everywhere, and the
    binary search of each prediction runs on far fewer knots.
    """
    if y.shape[0] <= 2:
        return x, y
    inner = (y[1:-1] != y[:-2]) | (y[1:-1] != y[2:])
    keep = np.concatenate([[True], inner, [True]])
    return x[keep], y[keep]


class ENIRCalibrator(BinaryCalibrator):
    """Ensemble of near-isotonic regressions (ENIR) calibration map.

    Parameters
    ----------
    input : {"score", "decision"}, default="score"
        What the scores are: probabilities in [0, 1] (``"score"``) or any real
        numbers such as an SVM's ``decision_function`` (``"decision"``). The
        map only uses the order of the scores, so both are fitted alike.
    criterion : {"bic", "aic"}, default="bic"
        Score that weights the models on the path: BIC ``-2 loglik + df ln N``
        (Naeini & Cooper) or AIC ``-2 loglik + 2 df``.

    Attributes
    ----------
    thresholds_ : ndarray of shape (m,)
        Distinct calibration scores, increasing.
    fitted_values_ : ndarray of shape (m,)
        Ensemble probability at each threshold.
    knots_ : tuple of ndarray
        The thresholds and values that predictions interpolate between: runs
        of equal fitted values keep only their end points (same map, fewer
        knots to search).
    lambdas_ : ndarray
        Penalties of the models with non-zero weight.
    model_weights_ : ndarray
        Their normalised weights ``exp(-criterion/2)``.
    criterion_values_ : ndarray
        Their criterion values.
    n_models_ : int
        Number of models on the path (fusion penalties).
    classes_ : ndarray
        ``[0, 1]``.

    Notes
    -----
    Scores are sorted and tied scores pooled (summed weight, weighted mean
    target), so the map is a function of the score. On the pooled targets
    ``ybar`` with weights ``W`` the near-isotonic path

    .. math::

        \\hat\\beta(\\lambda) = \\arg\\min_\\beta \\tfrac12 \\sum_j W_j (\\bar y_j - \\beta_j)^2
            + \\lambda \\sum_j (\\beta_j - \\beta_{j+1})_+

    is traced exactly (see :func:`near_isotonic_path`) from the saturated fit
    to the isotonic one. Each model ``k`` (the fit at a fusion penalty
    ``lam_k``) gets the weighted Bernoulli log-likelihood
    ``L_k = sum_i w_i [t_i ln beta_i + (1 - t_i) ln(1 - beta_i)]``, degrees of
    freedom ``df_k`` = number of distinct fitted values, ``BIC_k = -2 L_k +
    df_k ln N`` with ``N = sum_i w_i`` (the number of samples for unit
    weights), and weight ``exp(-BIC_k / 2)`` normalised (Naeini & Cooper
    2018). A calibrated probability is the weighted average of the models'
    fits, each linearly interpolated between neighbouring thresholds and
    constant beyond the extreme thresholds.

    Fitted values stay in [min(t), max(t)] along the whole path, so outputs
    lie in [0, 1] with no clipping.

    *Weighted and fractional targets*: targets may be fractions in [0, 1]
    (e.g. DGG groups); they enter the squared error of the path and the
    Bernoulli log-likelihood (cross-entropy) of the criterion as they are.
    ``sample_weight`` weights both and sets ``N``.

    *Speed*: the path costs O(m log m) (heap of collision times); the ensemble
    average uses the linearity of each group along the path (prefix sums over
    models, a sweep down the fusion tree), and exact log-likelihoods are only
    computed for models whose upper bound can reach a weight above
    ``exp(-40)`` relative to the best. Nothing is quadratic in m. netcal's
    ENIR, by contrast, rebuilds every model in O(m) per fusion.

    References
    ----------
    .. [1] Naeini, M. P. and Cooper, G. F. (2018). Binary classifier calibration
       using an ensemble of near isotonic regression models. Knowledge and
       Information Systems; conference version in IEEE ICDM 2016.
    .. [2] Tibshirani, R. J., Hoefling, H. and Tibshirani, R. (2011).
       Nearly-isotonic regression. Technometrics 53(1), 54-61.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=500)
    >>> y = (rng.uniform(size=500) < s**2).astype(int)
    >>> cal = ENIRCalibrator().fit(s, y)
    >>> p = cal.predict_proba([0.1, 0.9])[:, 1]
    >>> bool(p[0] < p[1])
    True
    """


    # scores are only read (sorted into new arrays, interpolated), never
    # written or kept
    _copy_scores = False

    _parameter_constraints: dict = {
        "input": input_constraint("score", "decision"),
        "criterion": [StrOptions({"bic", "aic"})],
    }

    def __init__(self, *, input: str = "score", criterion: str = "bic") -> None:
        self.input = input
        self.criterion = criterion

    def _fit(self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> None:
        # one sort; ties pooled (summed weight, weighted target sum)
        thresholds, pooled_w, pooled_wt = pool_tied_scores(scores, targets, weights)
        pooled_t = pooled_wt / pooled_w
        np.clip(pooled_t, 0.0, 1.0, out=pooled_t)
        path = _run_path(pooled_t, pooled_w)
        n_eff = float(weights.sum())
        penalty = np.log(n_eff) if self.criterion == "bic" else 2.0
        models, crit, model_w = ensemble_weights(path, penalty)
        self.thresholds_ = thresholds
        self.fitted_values_ = np.clip(ensemble_fit(path, models, model_w), 0.0, 1.0)
        self.knots_ = _interpolation_knots(thresholds, self.fitted_values_)
        self.lambdas_ = path.event_lambda[models]
        self.model_weights_ = model_w
        self.criterion_values_ = crit
        self.n_models_ = int(path_models(path).shape[0])

    def _predict_positive(self, scores: np.ndarray) -> np.ndarray:
        return interp(scores, *self.knots_)

    def _proba_of_valid_scores(self, scores: np.ndarray) -> np.ndarray:
        return interp_proba(scores, *self.knots_)
