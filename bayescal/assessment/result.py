"""``bayescal.assess``: one call from (outcomes, predicted probabilities) to every statistic.

:func:`assess` gathers the calibration hierarchy of Van Calster et al. (2016)
-- mean, weak and moderate calibration -- with the tests and scores
researchers publish, each with an interval, into an :class:`Assessment`:
``to_dict()`` (JSON-ready), ``to_frame()`` (one row per statistic),
``plot()`` (the calibration curves with their bands) and a rich
``_repr_html_`` for notebooks.

Multi-class predictions (an ``(n, K)`` matrix, ``K > 2``) are assessed on the
top-label event (the predicted class's probability against "the prediction
is correct"; every binary statistic applies to it), plus class-wise ECE and the
posterior of the top-label and class-wise calibration errors under the
Bayesian Dirichlet calibration map (Kull et al. 2019).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bayescal.assessment._inputs import MIN_SAMPLES
from bayescal.assessment.formatting import format_number, format_p_value
from bayescal.validation import (
    check_consistent_length,
    check_fraction,
    check_labels,
    check_min_samples,
    check_n_classes_present,
    check_positive_int,
    check_probability_matrix,
)

__all__ = ["GROUPS", "Assessment", "Statistic", "assess"]

#: The levels of the calibration hierarchy and the other groups, in display order.
GROUPS = ("mean calibration", "weak calibration", "moderate calibration", "tests", "scores",
          "multi-class")


@dataclass(frozen=True)
class Statistic:
    """One reported number.

    Attributes
    ----------
    name : str
        Machine name (``"slope"``, ``"ici_bayes"``, ...).
    label : str
        Readable name.
    group : str
        One of :data:`GROUPS`.
    estimate : float
    interval : (float, float) or None
        The interval at the assessment's level, where one is computed.
    method : str
        How the interval (or, for a test, the p-value) was obtained.
    p_value : float or None
        For tests.
    ideal : float or None
        The value of a perfectly calibrated prediction, where there is one.
    """

    name: str
    label: str
    group: str
    estimate: float
    interval: tuple[float, float] | None = None
    method: str = ""
    p_value: float | None = None
    ideal: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """``estimate``, ``interval`` (list or None) and the other fields, JSON-ready."""
        out: dict[str, Any] = {
            "label": self.label,
            "group": self.group,
            "estimate": _json_float(self.estimate),
            "interval": None if self.interval is None else [_json_float(v) for v in self.interval],
            "method": self.method,
        }
        if self.p_value is not None:
            out["p_value"] = _json_float(self.p_value)
        if self.ideal is not None:
            out["ideal"] = self.ideal
        return out


def _json_float(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass
class Assessment:
    """Calibration assessment of one model's predictions (see :func:`assess`).

    Attributes
    ----------
    name : str
        The model's name.
    n : int
        Rows.
    n_events : int
        Rows with outcome 1 (binary) or with a correct top-label prediction.
    kind : {"binary", "top_label"}
        Which event the binary statistics are about.
    level : float
        Level of every interval.
    statistics : list of Statistic
        In display order.
    curves : dict
        ``"lowess"``: ``(p, smoothed)``; ``"bayes"``: ``(grid, mean, lower, upper)``;
        ``"bins"``: ``(mean predicted, observed rate, count)`` of ``n_bins`` equal-mass bins.
    settings : dict
        The settings used (bootstrap resamples, Hosmer-Lemeshow groups, bins, inference ...).
    diagnostics : dict
        Posterior diagnostics of the Bayesian maps.
    """

    name: str
    n: int
    n_events: int
    kind: str
    level: float
    statistics: list[Statistic] = field(default_factory=list)
    curves: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    diagnostics: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Statistic:
        for stat in self.statistics:
            if stat.name == name:
                return stat
        raise KeyError(f"no statistic {name!r}; available: {[s.name for s in self.statistics]}")

    def to_dict(self) -> dict[str, Any]:
        """Every statistic with ``estimate`` and ``interval`` plus the settings, JSON-ready."""
        return {
            "model": self.name,
            "n": self.n,
            "n_events": self.n_events,
            "kind": self.kind,
            "level": self.level,
            "statistics": {s.name: s.to_dict() for s in self.statistics},
            "settings": self.settings,
            "diagnostics": self.diagnostics,
        }

    def to_frame(self) -> Any:
        """A pandas DataFrame, one row per statistic."""
        import pandas as pd

        rows = []
        for s in self.statistics:
            lo, hi = (None, None) if s.interval is None else s.interval
            rows.append({"model": self.name, "group": s.group, "statistic": s.name,
                         "label": s.label, "estimate": s.estimate, "lower": lo, "upper": hi,
                         "p_value": s.p_value, "ideal": s.ideal, "method": s.method})
        return pd.DataFrame(rows)

    def summary(self) -> str:
        """A readable plain-text table (what ``bayescal assess`` prints)."""
        pct = f"{100 * self.level:g}%"
        lines = [f"{self.name}: n={self.n}, events={self.n_events} ({self.kind}); "
                 f"intervals {pct}"]
        group = None
        for s in self.statistics:
            if s.group != group:
                group = s.group
                lines.append(f"  {group}")
            text = f"    {s.label:<46} {format_number(s.estimate):>10}"
            if s.interval is not None:
                text += f"  [{format_number(s.interval[0])}, {format_number(s.interval[1])}]"
            if s.p_value is not None:
                text += f"  p={format_p_value(s.p_value)}"
            if s.ideal is not None:
                text += f"  (ideal {s.ideal:g})"
            lines.append(text)
        return "\n".join(lines)

    def plot(self, ax: Any = None) -> Any:
        """The calibration curves: LOWESS, the Bayesian curve with its band, the bins.

        Parameters
        ----------
        ax : matplotlib Axes, optional

        Returns
        -------
        matplotlib Axes
        """
        from bayescal.assessment.figure import plot_assessment

        return plot_assessment(self, ax=ax)

    def _repr_html_(self) -> str:
        from bayescal.assessment.page import assessment_table_html

        return assessment_table_html([self])


def _binary_event(y: Any, p: Any) -> tuple[np.ndarray, np.ndarray, str, np.ndarray | None]:
    """Outcome, probability, kind and (multi-class) the full matrix and labels."""
    P = check_probability_matrix(p, "p")
    if P.shape[1] == 2:
        labels = check_labels(y, "y", n_classes=2)
        check_consistent_length(y=labels, p=P)
        return labels.astype(np.float64), P[:, 1].copy(), "binary", None
    labels = check_labels(y, "y", n_classes=P.shape[1])
    check_consistent_length(y=labels, p=P)
    predicted = np.argmax(P, axis=1)
    conf = P[np.arange(P.shape[0]), predicted]
    return (predicted == labels).astype(np.float64), conf, "top_label", labels


def _resampled_statistics(n_bins: int):
    """The statistics recomputed on each bootstrap resample."""
    from bayescal.assessment.lowess_curve import curve_errors, lowess
    from bayescal.metrics import bin_statistics

    def statistics(y: np.ndarray, p: np.ndarray) -> dict[str, float]:
        xs, fitted = lowess(p, y)
        out = {f"{k}_lowess": float(v) for k, v in curve_errors(xs, fitted).items()}
        # expected_calibration_error's computation, on already-validated arrays.
        out["ece_width"] = bin_statistics(p, y, n_bins, "uniform").expected_gap()
        out["ece_mass"] = bin_statistics(p, y, n_bins, "quantile").expected_gap()
        out["brier"] = float(np.mean((p - y) ** 2))
        with np.errstate(divide="ignore"):
            out["log_loss"] = float(-np.mean(np.where(y == 1, np.log(p), np.log1p(-p))))
        return out

    return statistics


def assess(
    y: Any,
    p: Any,
    *,
    name: str = "model",
    level: float = 0.9,
    bayesian: bool = True,
    inference: str = "laplace",
    n_bootstrap: int = 200,
    n_bins: int = 10,
    hosmer_lemeshow_groups: int = 10,
    corp_resamples: int = 200,
    random_state: Any = 0,
) -> Assessment:
    """Assess the calibration of predicted probabilities against outcomes.

    Parameters
    ----------
    y : array-like of shape (n,)
        Outcomes: 0/1 for binary predictions, class codes ``0 .. K-1`` for a
        ``(n, K)`` matrix.
    p : array-like of shape (n,), (n, 2) or (n, K)
        Predicted probabilities: of outcome 1 (1-D), or one column per class
        (rows summing to 1).
    name : str, default="model"
        The model's name in tables and figures.
    level : float, default=0.9
        Level of every interval (confidence, bootstrap or credible).
    bayesian : bool, default=True
        Fit the Bayesian calibration curve (and, multi-class, the Bayesian
        Dirichlet map) and report posterior intervals.
    inference : {"laplace", "nuts", "advi"}, default="laplace"
        Posterior computation of the Bayesian maps.
    n_bootstrap : int, default=200
        Bootstrap resamples for the LOWESS errors, ECE, Brier score and log loss.
    n_bins : int, default=10
        Bins of the ECEs (equal-width and equal-mass) and of the binned curve.
    hosmer_lemeshow_groups : int, default=10
        Groups ``g`` of the Hosmer-Lemeshow test (``g - 2`` degrees of freedom).
    corp_resamples : int, default=200
        Resamples of the CORP miscalibration test.
    random_state : None, int or numpy Generator, default=0
        Seed of the bootstrap, the CORP test and the posterior draws.

    Returns
    -------
    Assessment

    Raises
    ------
    ValueError
        On NaN or values outside [0, 1] in ``p``, rows not summing to 1, labels
        out of range, one class only, mismatched lengths, fewer than
        :data:`bayescal.assessment._inputs.MIN_SAMPLES` rows, or bad settings.

    Notes
    -----
    Intervals: Wald for the logistic recalibration (intercept, slope,
    calibration-in-the-large), Poisson for O/E, DeLong for the c-statistic,
    percentile bootstrap for the LOWESS errors (ICI, E50, E90, E_max), ECE,
    Brier and log loss, and the posterior (equal-tailed) for the Bayesian
    curve's errors and the Bayesian recalibration intercept and slope.

    References
    ----------
    .. [1] Van Calster, B., Nieboer, D., Vergouwe, Y., De Cock, B., Pencina, M. J. &
       Steyerberg, E. W. (2016). A calibration hierarchy for risk models was
       defined: from utopia to empirical data. J. Clin. Epidemiol. 74, 167-176.
    .. [2] Austin, P. C. & Steyerberg, E. W. (2019). The Integrated Calibration Index
       (ICI) and related metrics for quantifying the calibration of logistic
       regression models. Statistics in Medicine 38(21), 4051-4065.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 500)
    >>> y = (rng.random(500) < p ** 2).astype(int)
    >>> a = assess(y, p, bayesian=False, n_bootstrap=20)
    >>> bool(a["slope"].estimate > 1), bool(a["observed_expected"].estimate < 1)
    (True, True)
    """
    from bayescal.assessment.bootstrap import bootstrap_intervals
    from bayescal.assessment.calibration_tests import (
        cumulative_difference_tests,
        hosmer_lemeshow_test,
        spiegelhalter_test,
    )
    from bayescal.assessment.discrimination import concordance
    from bayescal.assessment.logistic_calibration import logistic_calibration
    from bayescal.assessment.lowess_curve import curve_errors, lowess
    from bayescal.metrics import expected_calibration_error, score_decomposition, smooth_ece
    from bayescal.metrics.corp import miscalibration_test

    level = check_fraction(level, "level")
    n_bootstrap = check_positive_int(n_bootstrap, "n_bootstrap", minimum=2)
    n_bins = check_positive_int(n_bins, "n_bins")
    event, proba, kind, labels = _binary_event(y, p)
    check_min_samples(event.shape[0], MIN_SAMPLES, "y", "a calibration assessment")
    check_n_classes_present(event.astype(np.int64), "y" if kind == "binary" else
                            "the top-label correctness of `p`")
    rng = np.random.default_rng(random_state)
    out = Assessment(name=str(name), n=int(event.shape[0]), n_events=int(event.sum()),
                     kind=kind, level=level)
    add = out.statistics.append

    weak = logistic_calibration(event, proba, level=level)
    add(Statistic("observed_expected", "observed / expected (O/E)", "mean calibration",
                  weak.observed_expected, weak.observed_expected_interval,
                  "Poisson: exp(log O/E -/+ z / sqrt(O))", ideal=1.0))
    add(Statistic("calibration_in_the_large", "calibration-in-the-large", "mean calibration",
                  weak.calibration_in_the_large, weak.calibration_in_the_large_interval,
                  "Wald, offset logistic model", ideal=0.0))
    add(Statistic("intercept", "calibration intercept", "weak calibration", weak.intercept,
                  weak.intercept_interval, "Wald, logistic recalibration", ideal=0.0))
    add(Statistic("slope", "calibration slope", "weak calibration", weak.slope,
                  weak.slope_interval, "Wald, logistic recalibration", ideal=1.0))
    add(Statistic("unreliability", "unreliability index U (intercept 0, slope 1)",
                  "weak calibration", weak.unreliability, None,
                  "likelihood-ratio chi-square, 2 df (rms::val.prob)",
                  p_value=weak.unreliability_p, ideal=0.0))

    xs, fitted = lowess(proba, event)
    lowess_errors = curve_errors(xs, fitted)
    boot = bootstrap_intervals(_resampled_statistics(n_bins), event, proba,
                               n_resamples=n_bootstrap, level=level, random_state=rng)
    labels_e = {"ici": "ICI (E_avg)", "e50": "E50", "e90": "E90", "emax": "E_max"}
    for key, label in labels_e.items():
        add(Statistic(f"{key}_lowess", f"{label}, LOWESS curve", "moderate calibration",
                      float(lowess_errors[key]), boot[f"{key}_lowess"],
                      f"percentile bootstrap, {n_bootstrap} resamples", ideal=0.0))
    out.curves["lowess"] = (xs, fitted)
    if bayesian:
        from bayescal.assessment.bayesian_curve import bayesian_calibration_curve

        curve = bayesian_calibration_curve(event, proba, level=level, inference=inference,
                                           random_state=rng)
        method = f"posterior ({curve.inference}), Bayesian spline map"
        for key, label in labels_e.items():
            est, interval = curve.statistics[key]
            add(Statistic(f"{key}_bayes", f"{label}, Bayesian curve", "moderate calibration",
                          est, interval, method, ideal=0.0))
        for key, label, ideal in (("intercept", "calibration intercept, Bayesian", 0.0),
                                  ("slope", "calibration slope, Bayesian", 1.0)):
            est, interval = curve.statistics[key]
            add(Statistic(f"{key}_bayes", label, "weak calibration", est, interval,
                          f"posterior ({curve.inference}), Bayesian logistic recalibration",
                          ideal=ideal))
        out.curves["bayes"] = (curve.grid, curve.mean, curve.lower, curve.upper)
        out.diagnostics.update({k: _diagnostics_dict(v) for k, v in curve.diagnostics.items()})
        out.settings["bayes_groups"] = curve.n_groups

    spi = spiegelhalter_test(event, proba)
    add(Statistic("spiegelhalter_z", "Spiegelhalter Z", "tests", spi.statistic, None,
                  "two-sided normal", p_value=spi.p_value, ideal=0.0))
    g = int(min(hosmer_lemeshow_groups, event.shape[0]))
    try:
        hl = hosmer_lemeshow_test(event, proba, n_groups=g)
        add(Statistic("hosmer_lemeshow", f"Hosmer-Lemeshow C (g={g}, {g - 2} df)", "tests",
                      hl.statistic, None, f"chi-square, {g - 2} df", p_value=hl.p_value))
    except ValueError as exc:  # a group of all-0/all-1 predictions: undefined there
        warnings.warn(f"Hosmer-Lemeshow test not reported: {exc}", UserWarning, stacklevel=2)
    corp = miscalibration_test(event.astype(np.int64), proba, n_resamples=corp_resamples,
                               random_state=rng)
    add(Statistic("corp_mcb", "CORP miscalibration (Brier MCB)", "tests", corp.statistic,
                  None, f"resampling under calibration, {corp_resamples} resamples",
                  p_value=corp.p_value, ideal=0.0))
    ks, kuiper = cumulative_difference_tests(event, proba)
    add(Statistic("ks_cumulative", "Kolmogorov-Smirnov, cumulative differences", "tests",
                  ks.statistic, None, "sup |Brownian motion| (Tygert)", p_value=ks.p_value))
    add(Statistic("kuiper_cumulative", "Kuiper, cumulative differences", "tests",
                  kuiper.statistic, None, "range of Brownian motion (Tygert)",
                  p_value=kuiper.p_value))

    yi = event.astype(np.int64)
    decomposition = score_decomposition(yi, proba)
    boot_method = f"percentile bootstrap, {n_bootstrap} resamples"
    add(Statistic("brier", "Brier score", "scores", float(np.mean((proba - event) ** 2)),
                  boot["brier"], boot_method))
    add(Statistic("brier_mcb", "Brier miscalibration (CORP MCB)", "scores",
                  decomposition.mcb, None, "CORP decomposition", ideal=0.0))
    add(Statistic("brier_dsc", "Brier discrimination (CORP DSC)", "scores",
                  decomposition.dsc, None, "CORP decomposition"))
    add(Statistic("brier_unc", "Brier uncertainty (CORP UNC)", "scores",
                  decomposition.unc, None, "CORP decomposition"))
    with np.errstate(divide="ignore"):
        ll = float(-np.mean(np.where(event == 1, np.log(proba), np.log1p(-proba))))
    add(Statistic("log_loss", "log loss", "scores", ll, boot["log_loss"], boot_method))
    c = concordance(event, proba, level=level)
    add(Statistic("c_statistic", "c-statistic (AUC)", "scores", c.c, c.interval,
                  "DeLong variance, Wald on the logit scale"))
    add(Statistic("dxy", "Somers' Dxy", "scores", c.dxy,
                  (2 * c.interval[0] - 1, 2 * c.interval[1] - 1), "from the c-statistic"))
    add(Statistic("ece_width", f"ECE, {n_bins} equal-width bins", "scores",
                  expected_calibration_error(yi, proba, n_bins, "uniform"), boot["ece_width"],
                  boot_method, ideal=0.0))
    add(Statistic("ece_mass", f"ECE, {n_bins} equal-mass bins", "scores",
                  expected_calibration_error(yi, proba, n_bins, "quantile"), boot["ece_mass"],
                  boot_method, ideal=0.0))
    add(Statistic("smooth_ece", "smooth ECE (Blasiok & Nakkiran)", "scores",
                  smooth_ece(yi, proba), None, "no interval (fixed-point bandwidth)", ideal=0.0))

    from bayescal.metrics import bin_statistics

    bins = bin_statistics(proba, event, n_bins, "quantile")
    out.curves["bins"] = _bin_curve(bins)
    if labels is not None:
        _add_multiclass(out, labels, np.asarray(check_probability_matrix(p, "p")), n_bins,
                        bayesian, inference, level, rng)
    out.statistics.sort(key=lambda s: GROUPS.index(s.group))  # stable: order within a group kept
    out.settings.update({
        "n_bootstrap": n_bootstrap, "n_bins": n_bins, "hosmer_lemeshow_groups": g,
        "corp_resamples": corp_resamples, "inference": inference if bayesian else None,
        "lowess": "R lowess(p, y, f=2/3, iter=0, delta=0.01*range)",
    })
    return out


def _bin_curve(bins: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean prediction, observed rate and count of the non-empty bins."""
    count = np.asarray(bins.count, dtype=float)
    keep = count > 0
    return (np.asarray(bins.mean_score)[keep], np.asarray(bins.observed_rate)[keep],
            count[keep])


def _diagnostics_dict(diag: Any) -> dict[str, Any]:
    keys = ("sampler", "inference", "seconds", "rhat_max", "ess_bulk_min", "divergences")
    out = {}
    for key in keys:
        value = getattr(diag, key, None)
        if isinstance(value, float):
            value = _json_float(value)
        elif isinstance(value, np.generic):
            value = value.item()
        out[key] = value
    return out


def _add_multiclass(out: Assessment, labels: np.ndarray, P: np.ndarray, n_bins: int,
                    bayesian: bool, inference: str, level: float, rng: Any) -> None:
    """Class-wise ECE and the Dirichlet map's posterior calibration errors."""
    from bayescal.metrics import brier_score, expected_calibration_error, log_loss

    add = out.statistics.append
    add(Statistic("brier_multiclass", "Brier score (mean over classes)", "multi-class",
                  brier_score(labels, P), None, ""))
    add(Statistic("log_loss_multiclass", "log loss (multi-class)", "multi-class",
                  log_loss(labels, P, eps=1e-15), None, "probabilities floored at 1e-15"))
    add(Statistic("ece_classwise", f"class-wise ECE, {n_bins} equal-width bins", "multi-class",
                  expected_calibration_error(labels, P, n_bins, "uniform", kind="classwise"),
                  None, "mean over classes", ideal=0.0))
    if not bayesian:
        return
    from bayescal.probes.dirichlet_map import BayesianDirichletCalibrator

    cal = BayesianDirichletCalibrator(inference=inference,
                                      random_state=int(rng.integers(2**31))).fit(P, labels)
    draws = cal._proba_draws(P)  # (S, n, K)
    keep = np.unique(np.linspace(0, draws.shape[0] - 1, 400).round().astype(int))
    draws = draws[keep]
    predicted = np.argmax(P, axis=1)
    rows = np.arange(P.shape[0])
    top = np.abs(draws[:, rows, predicted] - P[rows, predicted]).mean(axis=1)
    classwise = np.abs(draws - P[None]).mean(axis=(1, 2))
    tail = (1.0 - level) / 2.0
    for key, label, d in (("ici_top_label_dirichlet", "top-label ICI, Dirichlet map", top),
                          ("ici_classwise_dirichlet", "class-wise ICI, Dirichlet map",
                           classwise)):
        lo, med, hi = np.quantile(d, [tail, 0.5, 1.0 - tail])
        add(Statistic(key, label, "multi-class", float(med), (float(lo), float(hi)),
                      f"posterior ({inference}), Bayesian Dirichlet map", ideal=0.0))
    out.diagnostics["dirichlet"] = _diagnostics_dict(cal.diagnostics_)
