"""The Bayesian calibration curve and the posterior of the statistics derived from it.

bayescal's Bayesian penalised-spline calibration map
(:class:`bayescal.probes.BayesianSplineCalibrator`, a Bayesian logistic GAM on
``logit p``) is fitted to the outcomes with the predictions as its scores. Each
posterior draw ``g_s`` of the map is a calibration curve ``P(y = 1 | p)``; every
statistic of the curve -- ICI, E50, E90, E_max of ``|p_i - g_s(p_i)|`` -- is
computed draw by draw, so its posterior distribution (median and equal-tailed
interval) replaces the bootstrap. The weak-calibration intercept and slope get
their posterior from the Bayesian logistic recalibration
``logit P = alpha + beta logit p``
(:class:`bayescal.probes.BayesianPlattCalibrator` with ``input="logit"``).

Large inputs
------------
Above ``max_rows`` rows the maps are fitted to grouped data: the rows are
grouped into ``max_rows // 4`` equal-width bins of ``logit p`` (over its
observed range) and each bin enters the likelihood as one weighted row --
weight the bin's count, target its event rate, score the inverse logit of its
mean log-odds (the maps take weights and fractional targets exactly). The
log-likelihood then differs from the row-wise one only through the spread of
``logit p`` within a bin (a few thousandths of the range), far below the
posterior's width at such sizes; the statistics are still computed over every
row. ``BayesianCurve.n_groups`` records the number of groups (``None`` when the
rows were used as they are).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescal.assessment.lowess_curve import CURVE_ERRORS, curve_errors
from bayescal.clipping import bounded_expit
from bayescal.validation import check_fraction, check_positive_int

__all__ = ["BayesianCurve", "bayesian_calibration_curve"]

#: Points of the grid on which the curve and its band are reported.
GRID_POINTS = 101

#: NUTS target acceptance and tuning steps of the curve's spline map. Held-out
#: predictions are often tied and saturated (random-forest votes, naive Bayes), where the
#: map's defaults (0.95, 1000) left divergences: 26 on titanic random forest, 1 at 0.99,
#: none at 0.99 with 2000 tuning steps (see
#: :class:`~bayescal.probes.BayesianSplineCalibrator`, ``target_accept``).
NUTS_TARGET_ACCEPT, NUTS_TUNE = 0.99, 2000


@dataclass(frozen=True)
class BayesianCurve:
    """Posterior summary of the Bayesian calibration curve.

    Attributes
    ----------
    grid : ndarray of shape (m,)
        Predictions at which the curve is reported (within the observed range).
    mean, lower, upper : ndarray of shape (m,)
        Posterior mean of ``g(grid)`` and its pointwise equal-tailed band.
    statistics : dict of str to (float, (float, float))
        For ``ici``, ``e50``, ``e90``, ``emax``, ``intercept`` and ``slope``: the
        posterior median and the equal-tailed interval at ``level``.
    draws : dict of str to ndarray
        The posterior draws of each statistic.
    level : float
    inference : str
        How the posteriors were computed (``"laplace"``, ``"nuts"``, ``"advi"``).
    diagnostics : dict of str to object
        The spline and Platt maps' ``diagnostics_``.
    calibrator : BayesianSplineCalibrator
        The fitted map (for ``predict_interval`` at new predictions).
    n_groups : int or None
        Weighted groups the maps were fitted to (see "Large inputs"), or None.
    """

    grid: np.ndarray
    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    statistics: dict[str, tuple[float, tuple[float, float]]]
    draws: dict[str, np.ndarray]
    level: float
    inference: str
    diagnostics: dict[str, Any]
    calibrator: Any
    n_groups: int | None = None


def _grouped(y: np.ndarray, p: np.ndarray, n_bins: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores, event rates and counts of equal-width bins of ``logit p`` (non-empty bins)."""
    from scipy.special import expit, logit

    from bayescal.clipping import DEFAULT_CLIP

    z = logit(np.clip(p, DEFAULT_CLIP, 1.0 - DEFAULT_CLIP))
    lo, hi = float(z.min()), float(z.max())
    idx = np.minimum(((z - lo) / max(hi - lo, 1e-300) * n_bins).astype(np.int64), n_bins - 1)
    count = np.bincount(idx, minlength=n_bins).astype(np.float64)
    z_sum = np.bincount(idx, weights=z, minlength=n_bins)
    y_sum = np.bincount(idx, weights=y, minlength=n_bins)
    full = count > 0
    return expit(z_sum[full] / count[full]), y_sum[full] / count[full], count[full]


def _fit_rows(y: np.ndarray, p: np.ndarray, max_rows: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int | None]:
    """The rows a map is fitted to: as they are, or above ``max_rows`` weighted groups."""
    if p.shape[0] > max_rows:
        scores, targets, weights = _grouped(y, p, max_rows // 4)
        return scores, targets, weights, int(scores.shape[0])
    return p, y, None, None


def _curve_error_draws(calibrator: Any, p: np.ndarray, n_draws: int, chunk: int
                       ) -> dict[str, np.ndarray]:
    """ICI/E50/E90/E_max under each of ``n_draws`` thinned posterior draws of the map."""
    from bayescal.inference.posterior import stack_draws

    idata = calibrator.idata_
    intercept = stack_draws(idata, "intercept")
    keep = np.unique(np.linspace(0, intercept.shape[0] - 1, n_draws).round().astype(int))
    intercept = intercept[keep]
    coef = stack_draws(idata, "coef")[keep]
    spline = stack_draws(idata, "spline_effect")[keep]
    design = calibrator._design(p)
    out: dict[str, list[np.ndarray]] = {name: [] for name in CURVE_ERRORS}
    for start in range(0, keep.shape[0], chunk):
        sl = slice(start, start + chunk)
        eta = intercept[sl, None] + coef[sl] @ design["F"].T + spline[sl] @ design["B"].T
        for name, value in curve_errors(p[None, :], bounded_expit(eta), axis=1).items():
            out[name].append(value)
    return {name: np.concatenate(v) for name, v in out.items()}


def _summary(draws: np.ndarray, level: float) -> tuple[float, tuple[float, float]]:
    tail = (1.0 - level) / 2.0
    lo, med, hi = np.quantile(draws, [tail, 0.5, 1.0 - tail])
    return float(med), (float(lo), float(hi))


def bayesian_calibration_curve(
    y: np.ndarray,
    p: np.ndarray,
    *,
    level: float = 0.9,
    inference: str = "laplace",
    draws: int = 1000,
    n_statistic_draws: int = 400,
    n_basis: int = 10,
    max_rows: int = 20000,
    random_state: Any = None,
) -> BayesianCurve:
    """Fit the Bayesian spline calibration curve and the posteriors of its statistics.

    Parameters
    ----------
    y, p : ndarray of shape (n,)
        Validated outcomes (0/1) and predictions.
    level : float, default=0.9
        Credible mass of the band and the intervals.
    inference : {"laplace", "nuts", "advi"}, default="laplace"
        Posterior computation of both maps. The Laplace approximation is the
        default for speed (seconds at 10^5 rows; the spline map's integrates
        its smoothness scale on a grid, :mod:`bayescal.probes.spline_laplace`);
        ``"nuts"`` samples exactly (the spline map with ``target_accept``
        0.99 and 2000 tuning steps, ``NUTS_TARGET_ACCEPT`` and ``NUTS_TUNE``).
    draws : int, default=1000
        Posterior draws per chain.
    n_statistic_draws : int, default=400
        Thinned draws over which ICI/E50/E90/E_max are computed (each costs a
        pass over the rows).
    n_basis : int, default=10
        B-spline basis size of the map.
    max_rows : int, default=20000
        Above this many rows the maps are fitted to ``max_rows // 4`` weighted
        groups (module docstring, "Large inputs").
    random_state : None, int or numpy Generator

    Returns
    -------
    BayesianCurve
    """
    from bayescal.inference.posterior import stack_draws
    from bayescal.probes.calibration_maps import (
        BayesianPlattCalibrator,
        BayesianSplineCalibrator,
    )

    level = check_fraction(level, "level")
    n_statistic_draws = check_positive_int(n_statistic_draws, "n_statistic_draws", minimum=2)
    max_rows = check_positive_int(max_rows, "max_rows", minimum=40)
    seed = np.random.default_rng(random_state).integers(2**31)
    scores, targets, weights, n_groups = _fit_rows(y, p, max_rows)
    spline = BayesianSplineCalibrator(
        n_basis=n_basis, inference=inference, draws=draws, random_state=int(seed),
        target_accept=NUTS_TARGET_ACCEPT, tune=NUTS_TUNE,
    ).fit(scores, targets, sample_weight=weights)
    # The recalibration intercept and slope over the rows whose log-odds is finite, as the
    # Wald fit (logistic_calibration) and rms::val.prob take them: a prediction of exactly
    # 0 or 1, clipped to a log-odds of +-27.6, would otherwise pull the slope alone.
    finite = (p > 0.0) & (p < 1.0)
    platt_rows = _fit_rows(y[finite], p[finite], max_rows)[:3]
    platt = BayesianPlattCalibrator(
        input="logit", inference=inference, draws=draws, random_state=int(seed) + 1
    ).fit(platt_rows[0], platt_rows[1], sample_weight=platt_rows[2])
    lo, hi = float(p.min()), float(p.max())
    grid = np.linspace(lo, hi, GRID_POINTS)
    mean, lower, upper = spline.map_band(grid, prob=level)
    stat_draws = _curve_error_draws(spline, p, n_statistic_draws, chunk=25)
    stat_draws["intercept"] = stack_draws(platt.idata_, "intercept")
    stat_draws["slope"] = stack_draws(platt.idata_, "coef")[:, 0]
    return BayesianCurve(
        grid=grid,
        mean=mean,
        lower=lower,
        upper=upper,
        statistics={name: _summary(d, level) for name, d in stat_draws.items()},
        draws=stat_draws,
        level=level,
        inference=inference,
        diagnostics={"spline": spline.diagnostics_, "platt": platt.diagnostics_},
        calibrator=spline,
        n_groups=n_groups,
    )
