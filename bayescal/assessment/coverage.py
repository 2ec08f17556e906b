"""Coverage of the assessment's intervals on simulated predictions with a known calibration curve.

Predictions ``p ~ Uniform(0.05, 0.95)`` and outcomes ``y ~ Bernoulli(g(p))`` with
the logistic-linear true curve ``logit g(p) = a + b logit p``: the true
calibration intercept and slope are ``a`` and ``b`` and the true ICI is
``E|g(p) - p|`` (computed by quadrature). Each replication asks whether each
interval of :func:`bayescal.assess` covers the truth; over many replications
the share should be the nominal level within Monte-Carlo error. Used by the
coverage test and ``benchmarks/assess_coverage.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.integrate import quad
from scipy.special import expit, logit

__all__ = ["CURVED_TRUTH", "TRUE_CURVE", "band_coverage_study", "coverage_study", "true_ici"]

#: True calibration intercept and slope of the simulated predictions.
TRUE_CURVE = (-0.3, 0.8)

_LOW, _HIGH = 0.05, 0.95


def _true_curve(p: np.ndarray, a: float, b: float) -> np.ndarray:
    return expit(a + b * logit(p))


def true_ici(a: float = TRUE_CURVE[0], b: float = TRUE_CURVE[1]) -> float:
    """``E|g(p) - p|`` for ``p ~ Uniform(0.05, 0.95)``."""
    value, _ = quad(lambda t: abs(float(_true_curve(np.array(t), a, b)) - t), _LOW, _HIGH,
                    limit=200)
    return value / (_HIGH - _LOW)


def coverage_study(n_replications: int = 200, n: int = 500, *, level: float = 0.9,
                   bayesian: bool = True, n_bootstrap: int = 200, seed: int = 0,
                   band_points: int = 21) -> dict[str, Any]:
    """Share of replications whose interval covers the truth, per statistic.

    Parameters
    ----------
    n_replications : int, default=200
    n : int, default=500
        Rows per replication.
    level : float, default=0.9
    bayesian : bool, default=True
        Also the posterior intervals (and the Bayesian curve's band, pointwise on
        ``band_points`` predictions).
    n_bootstrap : int, default=200
    seed : int, default=0

    Returns
    -------
    dict
        ``coverage`` (statistic -> share), ``band_coverage`` (share of band points
        covering the true curve, over all replications), ``n_replications``.
    """
    from bayescal.assessment.bootstrap import bootstrap_intervals
    from bayescal.assessment.logistic_calibration import logistic_calibration
    from bayescal.assessment.lowess_curve import curve_errors, lowess

    a, b = TRUE_CURVE
    truth = {"intercept": a, "slope": b, "ici": true_ici(a, b)}
    rng = np.random.default_rng(seed)
    hits: dict[str, int] = {}
    band_hits, band_total = 0, 0
    grid = np.linspace(0.1, 0.9, band_points)

    def lowess_ici(y: np.ndarray, p: np.ndarray) -> dict[str, float]:
        xs, fit = lowess(p, y)
        return {"ici": float(curve_errors(xs, fit)["ici"])}

    def count(name: str, interval: tuple[float, float], value: float) -> None:
        hits[name] = hits.get(name, 0) + int(interval[0] <= value <= interval[1])

    for _ in range(n_replications):
        p = rng.uniform(_LOW, _HIGH, n)
        y = (rng.random(n) < _true_curve(p, a, b)).astype(np.float64)
        weak = logistic_calibration(y, p, level=level)
        count("intercept_wald", weak.intercept_interval, truth["intercept"])
        count("slope_wald", weak.slope_interval, truth["slope"])
        boot = bootstrap_intervals(lowess_ici, y, p, n_resamples=n_bootstrap, level=level,
                                   random_state=rng)
        count("ici_bootstrap", boot["ici"], truth["ici"])
        if bayesian:
            from bayescal.assessment.bayesian_curve import bayesian_calibration_curve

            curve = bayesian_calibration_curve(y, p, level=level, draws=400,
                                               n_statistic_draws=200, random_state=rng)
            count("intercept_posterior", curve.statistics["intercept"][1], truth["intercept"])
            count("slope_posterior", curve.statistics["slope"][1], truth["slope"])
            count("ici_posterior", curve.statistics["ici"][1], truth["ici"])
            _, lower, upper = curve.calibrator.map_band(grid, prob=level)
            g = _true_curve(grid, a, b)
            band_hits += int(np.sum((lower <= g) & (g <= upper)))
            band_total += grid.size
    return {
        "coverage": {k: v / n_replications for k, v in hits.items()},
        "band_coverage": band_hits / band_total if band_total else None,
        "n_replications": n_replications,
        "truth": truth,
    }


def _curved_truth(p: np.ndarray) -> np.ndarray:
    """``logit g(p) = logit p + 0.5 sin(2 logit p)``: a calibration curve that bends
    around the diagonal, outside the null space of the spline map's smoothness penalty."""
    z = logit(p)
    return expit(z + 0.5 * np.sin(2.0 * z))


#: Named true curves for :func:`band_coverage_study`.
CURVED_TRUTH = {
    "logistic_linear": lambda p: _true_curve(p, *TRUE_CURVE),
    "wiggle": _curved_truth,
}


def band_coverage_study(truth: str = "wiggle", n_replications: int = 200, n: int = 500, *,
                        level: float = 0.9, band_points: int = 21,
                        seed: int = 0) -> dict[str, Any]:
    """Pointwise coverage of the Bayesian calibration curve's band for a named true curve.

    Parameters
    ----------
    truth : {"logistic_linear", "wiggle"}, default="wiggle"
        The true curve (:data:`CURVED_TRUTH`). A Bayesian smoothing-spline band
        reaches its nominal rate on average over curves its prior finds typical;
        for a curve in the null space of the smoothness penalty (the
        logistic-linear one: linear in ``logit p``) it over-covers (Nychka 1988,
        "Bayesian confidence intervals for smoothing splines", JASA 83, 1134-1143).
    n_replications, n, level, band_points, seed
        As :func:`coverage_study`.

    Returns
    -------
    dict
        ``band_coverage`` (share of band points covering the truth), ``flagged``
        (share of fits whose posterior failed its diagnostics), ``mean_width``.
    """
    import warnings

    from bayescal.assessment.bayesian_curve import bayesian_calibration_curve
    from bayescal.inference.diagnostics import PosteriorDiagnosticsWarning

    g = CURVED_TRUTH[truth]
    rng = np.random.default_rng(seed)
    grid = np.linspace(0.1, 0.9, band_points)
    hits, flagged, widths = 0, 0, []
    for _ in range(n_replications):
        p = rng.uniform(_LOW, _HIGH, n)
        y = (rng.random(n) < g(p)).astype(np.float64)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PosteriorDiagnosticsWarning)
            curve = bayesian_calibration_curve(y, p, level=level, draws=400,
                                               n_statistic_draws=200, random_state=rng)
        flagged += any(issubclass(w.category, PosteriorDiagnosticsWarning) for w in caught)
        _, lower, upper = curve.calibrator.map_band(grid, prob=level)
        true = g(grid)
        hits += int(np.sum((lower <= true) & (true <= upper)))
        widths.append(float(np.mean(upper - lower)))
    return {"band_coverage": hits / (n_replications * grid.size),
            "flagged": flagged / n_replications, "mean_width": float(np.mean(widths)),
            "n_replications": n_replications}
