"""The schema of a result cube: dimensions, variables and the metric registry.

Everything a writer (:mod:`bayescal.study`) or a reader (:mod:`bayescal.stats`,
:mod:`bayescal.report`) needs to know about the variables of ``/metrics`` is
defined here once:

* :data:`CELL_DIMS` — the dimensions of a cell (``repeat`` only when the
  protocol repeats);
* :data:`METRICS` — the metric registry: for each metric its description,
  *direction* (``"lower"`` or ``"higher"`` is better; ``None`` for a quantity
  that is reported but never ranked), units, the probability clipping the
  scorer applies, what it needs (labels, true probabilities or the probe) and
  the function that computes it (``compute``): a metric's name and its
  function are declared together, in one entry;
* :data:`TIMINGS` and :data:`DIAGNOSTICS` — per-cell wall times and posterior
  diagnostics (registered too, so that they have a direction and units);
* :data:`STATUS` — the boolean bookkeeping variables ``done``, ``failed``,
  ``applicable`` and ``converged``.

The study's scorer (:mod:`bayescal.cube.scoring`, which applies the entries'
``compute`` to a cell), the significance tables and the report all ask
:func:`metric_info` (or :func:`lower_is_better`) rather than keeping lists of
their own.

The scored metrics and the functions of :mod:`bayescal.metrics` behind them:

================ ======================================================= ==========
name             computed by                                             needs
================ ======================================================= ==========
brier            :func:`bayescal.metrics.brier_score` (scikit-learn's    labels
                 ``brier_score_loss``: binary squared error of the
                 positive-class probability, multi-class sum)
brier_sum        :func:`bayescal.metrics.brier_sum` (thesis Eq. 10)      labels
brier_class_mean :func:`bayescal.metrics.brier_class_mean` (Eq. 10 / K)  labels
log_loss         :func:`bayescal.metrics.log_loss` with the spec's       labels
                 ``metrics.clip`` or the registry's (``1e-15``)
ece              :func:`bayescal.metrics.expected_calibration_error`     labels
                 (``kind="binary"`` for two classes, ``"top_label"``
                 otherwise; ``metrics.ece_bins`` equal-width bins)
accuracy         :func:`bayescal.metrics.accuracy`                       labels
mcb, dsc, unc    :func:`bayescal.metrics.score_decomposition` (CORP) of  labels,
                 the Brier score of the positive-class probability, so   binary
                 ``mcb - dsc + unc == brier``; higher ``dsc`` is better
smooth_ece       :func:`bayescal.metrics.smooth_ece` (``kind="binary"``  labels
                 for two classes, ``"top_label"`` otherwise)
rmse_true        :func:`bayescal.metrics.rmse_true`                      ``p_true``
mae_true         :func:`bayescal.metrics.mae_true`                       ``p_true``
mse_true         ``rmse_true`` squared: the mean squared error against   ``p_true``
                 ``p_true`` of the fold (Alasalmi 2020 Table 5's MSE)
probe_rmse       :func:`bayescal.metrics.probe_distance` (``rmse``; the  probe
                 RMSE alone where the probe has no credible intervals)
probe_coverage   :func:`bayescal.metrics.probe_distance` (``inside``;    probe
                 NaN where the probe has no credible intervals)
================ ======================================================= ==========

Log loss clips the true-class probability (at ``1e-15`` unless the spec's
``[metrics] clip = { log_loss = ... }`` says otherwise; Phelps et al. (2024) clip at
``1e-5``) so that a single zero probability gives a large finite loss rather
than ``inf`` for the whole cell.
``mcb``/``dsc``/``unc`` are NaN for multi-class datasets and for a test fold
holding a single class (CORP needs both outcomes). The probe metrics are computed
at consolidation (:mod:`bayescal.cube.consolidate`: the probe's cell may come from
another worker) and are NaN for the probe's own cells. Timings and posterior
diagnostics are measured, not computed from predictions: they have no ``compute``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "CELL_DIMS",
    "DIAGNOSTICS",
    "METRICS",
    "STATUS",
    "TIMINGS",
    "MetricInfo",
    "lower_is_better",
    "metric_info",
    "metric_names",
    "variable_description",
]

#: Dimensions of ``/metrics`` in order; ``repeat`` is present only when the
#: protocol repeats (repeated k-fold, 5x2 CV, Monte-Carlo CV).
CELL_DIMS = ("dataset", "classifier", "scenario", "repeat", "fold")

_DIRECTIONS = ("lower", "higher", None)
_NEEDS = ("labels", "truth", "probe", "timing", "posterior")
#: The needs whose values are computed from a cell's predictions by ``compute``.
_SCORED = ("labels", "truth", "probe")


@dataclass(frozen=True)
class MetricInfo:
    """One float variable of ``/metrics``.

    Attributes
    ----------
    name : str
        Variable name in the cube.
    description : str
        One sentence for tables and reports.
    direction : {"lower", "higher"} or None
        Which way is better; ``None``: reported, never ranked.
    units : str
        Units of the value (``"probability"``, ``"nats"``, ``"s"``, ...).
    clip : float or None
        Probabilities are clipped to ``[clip, 1 - clip]`` before scoring
        (``None``: no clipping).
    needs : {"labels", "truth", "probe", "timing", "posterior"}
        What the value is computed from: test labels, true probabilities
        (synthetic data), the reference probe's predictions, a clock or a
        posterior.
    compute : callable or None
        The function that computes the metric from a cell's predictions
        ``proba`` (``(n, K)``), by ``needs``: ``compute(y, proba, n_bins, clip)``
        for labels (``n_bins``: the spec's ECE bins; ``clip``: the spec's
        clipping of this metric or :attr:`clip`), ``compute(p_true, proba)`` for
        the truth (binary ``p_true`` of the positive class) and
        ``compute(proba, probe_proba, probe_interval)`` for the probe
        (``probe_interval`` ``(n, K, 2)`` or ``None``). Required for those
        needs; ``None`` for timings and posterior diagnostics, which are
        measured.
    """

    name: str
    description: str
    direction: str | None
    units: str
    clip: float | None = None
    needs: str = "labels"
    compute: Callable[..., float] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.direction not in _DIRECTIONS:
            raise ValueError(f"`direction` of metric {self.name!r} must be one of "
                             f"{_DIRECTIONS}; got {self.direction!r}.")
        if self.needs not in _NEEDS:
            raise ValueError(f"`needs` of metric {self.name!r} must be one of {_NEEDS}; "
                             f"got {self.needs!r}.")
        if (self.compute is None) == (self.needs in _SCORED):
            raise ValueError(
                f"`compute` of metric {self.name!r}: a metric that needs {self.needs!r} "
                + ("must name the function that computes it." if self.needs in _SCORED
                   else "is measured, not computed from predictions; pass compute=None."))

    @property
    def ranked(self) -> bool:
        """Whether tables mark a best value of this variable."""
        return self.direction is not None


#: Default clipping of the true-class probability before the log loss (Alasalmi's (2020)
#: tables and scikit-learn's convention): one zero probability gives a large finite
#: loss. A spec may set another per metric (``[metrics] clip = { log_loss = 1e-5 }``,
#: Phelps et al.'s (2024) NLS).
LOG_LOSS_CLIP = 1e-15


# The functions of the scored metrics. bayescal.metrics (it loads SciPy) is imported
# when a metric is first computed: reading a cube's schema needs NumPy only.

def _metrics() -> Any:
    import bayescal.metrics

    return bayescal.metrics


def _top_label(proba: np.ndarray) -> str:
    return "binary" if proba.shape[1] == 2 else "top_label"


def _brier(y: np.ndarray, proba: np.ndarray, n_bins: int, clip: float | None) -> float:
    return _metrics().brier_score(y, proba)


def _brier_sum(y: np.ndarray, proba: np.ndarray, n_bins: int, clip: float | None) -> float:
    return _metrics().brier_sum(y, proba)


def _brier_class_mean(y: np.ndarray, proba: np.ndarray, n_bins: int,
                      clip: float | None) -> float:
    return _metrics().brier_class_mean(y, proba)


def _log_loss(y: np.ndarray, proba: np.ndarray, n_bins: int, clip: float | None) -> float:
    return _metrics().log_loss(y, proba, eps=clip)


def _ece(y: np.ndarray, proba: np.ndarray, n_bins: int, clip: float | None) -> float:
    return _metrics().expected_calibration_error(y, proba, n_bins=n_bins,
                                                  kind=_top_label(proba))


def _accuracy(y: np.ndarray, proba: np.ndarray, n_bins: int, clip: float | None) -> float:
    return _metrics().accuracy(y, proba)


def _smooth_ece(y: np.ndarray, proba: np.ndarray, n_bins: int, clip: float | None) -> float:
    return _metrics().smooth_ece(y, proba, kind=_top_label(proba))


def _corp_brier(term: str, y: np.ndarray, proba: np.ndarray) -> float:
    """One term of CORP's decomposition of the cube's (positive-class) Brier score."""
    if proba.shape[1] != 2 or np.unique(y).size < 2:
        return float("nan")
    return getattr(_metrics().score_decomposition(y, proba[:, 1], score="brier"), term)


def _mcb(y: np.ndarray, proba: np.ndarray, n_bins: int, clip: float | None) -> float:
    return _corp_brier("mcb", y, proba)


def _dsc(y: np.ndarray, proba: np.ndarray, n_bins: int, clip: float | None) -> float:
    return _corp_brier("dsc", y, proba)


def _unc(y: np.ndarray, proba: np.ndarray, n_bins: int, clip: float | None) -> float:
    return _corp_brier("unc", y, proba)


def _rmse_true(p_true: np.ndarray, proba: np.ndarray) -> float:
    return _metrics().rmse_true(p_true, proba[:, 1])


def _mae_true(p_true: np.ndarray, proba: np.ndarray) -> float:
    return _metrics().mae_true(p_true, proba[:, 1])


def _mse_true(p_true: np.ndarray, proba: np.ndarray) -> float:
    return _rmse_true(p_true, proba) ** 2


def _has_interval(probe_interval: np.ndarray | None) -> bool:
    return probe_interval is not None and bool(np.isfinite(probe_interval).all())


def _probe_rmse(proba: np.ndarray, probe_proba: np.ndarray,
                probe_interval: np.ndarray | None) -> float:
    if not _has_interval(probe_interval):
        return _metrics().rmse_true(probe_proba, proba)
    return _metrics().probe_distance(proba, probe_proba, probe_interval).rmse


def _probe_coverage(proba: np.ndarray, probe_proba: np.ndarray,
                    probe_interval: np.ndarray | None) -> float:
    if not _has_interval(probe_interval):
        return float("nan")
    return _metrics().probe_distance(proba, probe_proba, probe_interval).inside


_REGISTRY: tuple[MetricInfo, ...] = (
    MetricInfo("brier", "Brier score (scikit-learn's brier_score_loss: binary 0-1, "
               "multi-class sum)", "lower", "squared probability",
               compute=_brier),
    MetricInfo("brier_sum", "Brier score summed over all classes (thesis Eq. 10; 2 x brier "
               "if binary)", "lower", "squared probability",
               compute=_brier_sum),
    MetricInfo("brier_class_mean", "Brier score averaged over classes (thesis Eq. 10 / K; "
               "brier if binary)", "lower", "squared probability",
               compute=_brier_class_mean),
    MetricInfo("log_loss", "log loss (true-class probability clipped: metrics.clip or "
               "1e-15)", "lower", "nats", clip=LOG_LOSS_CLIP,
               compute=_log_loss),
    MetricInfo("ece", "expected calibration error (binary or top-label, equal-width bins)",
               "lower", "probability",
               compute=_ece),
    MetricInfo("accuracy", "accuracy", "higher", "fraction",
               compute=_accuracy),
    MetricInfo("mcb", "CORP miscalibration of the Brier score (mcb - dsc + unc = brier; NaN "
               "for multi-class data)", "lower", "squared probability",
               compute=_mcb),
    MetricInfo("dsc", "CORP discrimination of the Brier score (NaN for multi-class data)",
               "higher", "squared probability",
               compute=_dsc),
    MetricInfo("unc", "CORP uncertainty of the Brier score (of the test labels alone, so "
               "never ranked)", None, "squared probability",
               compute=_unc),
    MetricInfo("smooth_ece", "smooth ECE, fixed-point bandwidth (binary or top-label)",
               "lower", "probability",
               compute=_smooth_ece),
    MetricInfo("rmse_true", "RMSE against the true probabilities", "lower", "probability",
               needs="truth",
               compute=_rmse_true),
    MetricInfo("mae_true", "MAE against the true probabilities", "lower", "probability",
               needs="truth",
               compute=_mae_true),
    MetricInfo("mse_true", "MSE against the true probabilities (Alasalmi 2020 Table 5; "
               "rmse_true squared per fold)", "lower", "squared probability", needs="truth",
               compute=_mse_true),
    MetricInfo("probe_rmse", "RMSE against the reference probe's probabilities "
               "(not applicable to the probe itself)", "lower", "probability", needs="probe",
               compute=_probe_rmse),
    MetricInfo("probe_coverage", "share of probabilities inside the probe's credible "
               "interval (not applicable to the probe itself)", "higher", "fraction",
               needs="probe",
               compute=_probe_coverage),
    MetricInfo("fit_seconds", "wall time of the fit (shared fits counted in every scenario "
               "using them)", None, "s", needs="timing"),
    MetricInfo("predict_seconds", "wall time of predicting the test fold", None, "s",
               needs="timing"),
    MetricInfo("cell_seconds", "wall time of the whole cell in its worker (a fit shared "
               "between scenarios counted once, in the cell that made it), so that summing "
               "it over cells gives the study's compute time", None, "s", needs="timing"),
    MetricInfo("cell_cpu_seconds", "CPU time of the cell's worker process over the same "
               "span as cell_seconds (robust to other load on the machine)", None, "s",
               needs="timing"),
    MetricInfo("rhat_max", "max rank-normalised split R-hat of the posterior (NaN where not "
               "Bayesian or not sampled)", "lower", "", needs="posterior"),
    MetricInfo("ess_bulk_min", "min bulk ESS of the posterior (NaN where not sampled)",
               "higher", "draws", needs="posterior"),
    MetricInfo("ess_tail_min", "min tail ESS of the posterior (NaN where not sampled)",
               "higher", "draws", needs="posterior"),
    MetricInfo("divergences", "divergent transitions (NaN where not Bayesian)", "lower",
               "transitions", needs="posterior"),
    MetricInfo("pareto_k", "Pareto k of the importance weights of an approximate posterior "
               "(Laplace, ADVI, EP) against the exact one; above 0.7 not converged (NaN "
               "where not applicable: NUTS, exact, not Bayesian)", "lower", "", needs="posterior"),
    MetricInfo("n_chains", "chains of the posterior (NaN where not Bayesian)", None, "chains",
               needs="posterior"),
)

#: The registry, by name, in a fixed order.
METRICS: dict[str, MetricInfo] = {m.name: m for m in _REGISTRY}

#: Wall-clock measurements per cell (they differ between runs by nature).
TIMINGS = tuple(m.name for m in _REGISTRY if m.needs == "timing")
#: Posterior diagnostics recorded per cell (NaN where not Bayesian).
DIAGNOSTICS = tuple(m.name for m in _REGISTRY if m.needs == "posterior")

#: Boolean bookkeeping variables of ``/metrics`` and what they mean.
STATUS: dict[str, str] = {
    "done": "cell computed",
    "failed": "cell raised an error (see the root attribute 'errors')",
    "applicable": "scenario runs for this classifier",
    "converged": "the cell's posterior passed its diagnostics (true where there is no "
                 "posterior; see bayescal.inference.posterior for the thresholds)",
}


def metric_names(*needs: str) -> tuple[str, ...]:
    """Names of the registered metrics, in registry order.

    Parameters
    ----------
    *needs : str
        Only metrics computed from these (default: labels, truth and probe —
        the scored metrics a spec may list).

    Examples
    --------
    >>> metric_names("truth")
    ('rmse_true', 'mae_true', 'mse_true')
    """
    for n in needs:
        if n not in _NEEDS:
            raise ValueError(f"`needs` must be among {_NEEDS}; got {n!r}.")
    wanted = needs or ("labels", "truth", "probe")
    return tuple(m.name for m in _REGISTRY if m.needs in wanted)


def metric_info(name: str) -> MetricInfo:
    """The registry entry of ``name``.

    Raises
    ------
    ValueError
        If ``name`` is not a registered metric; the message lists them.

    Examples
    --------
    >>> metric_info("accuracy").direction
    'higher'
    """
    try:
        return METRICS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown metric {name!r}; registered metrics: {list(METRICS)}") \
            from None


def lower_is_better(name: str) -> bool:
    """Whether smaller values of the registered metric ``name`` are better.

    Raises
    ------
    ValueError
        If ``name`` is unknown or not ranked (its direction is ``None``).

    Examples
    --------
    >>> lower_is_better("brier"), lower_is_better("accuracy")
    (True, False)
    """
    info = metric_info(name)
    if info.direction is None:
        raise ValueError(f"metric {name!r} is not ranked (no better direction): "
                         f"{info.description}")
    return info.direction == "lower"


def variable_description(name: str) -> str:
    """Description of any variable of ``/metrics`` (metric or status)."""
    if name in METRICS:
        info = METRICS[name]
        direction = "" if info.direction is None else f" ({info.direction} is better)"
        return info.description + direction
    return STATUS.get(name, "")
