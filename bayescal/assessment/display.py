"""Figures of an assessment: the calibration curve with its band.

:func:`plot_assessment` draws one :class:`~bayescal.assessment.result.Assessment`:
the Bayesian calibration curve (posterior mean) with its pointwise credible
band, the LOWESS curve of ``rms::val.prob`` and the equal-mass binned rates.
:class:`CalibrationDisplay` offers the same figure in
the style of scikit-learn's ``CalibrationDisplay.from_predictions``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CalibrationDisplay", "plot_assessment"]

_BAYES_COLOUR = "#1f77b4"
_LOWESS_COLOUR = "#d62728"
_BINS_COLOUR = "#444444"


def plot_assessment(assessment: Any, ax: Any = None, *, colour: str | None = None,
                    legend: bool = True, bins: bool = True) -> Any:
    """Draw the calibration curves of ``assessment`` on ``ax`` (a new figure if None).

    Parameters
    ----------
    assessment : Assessment
    ax : matplotlib Axes, optional
    colour : str, optional
        Colour of the Bayesian curve and its band (several models on one axes).
    legend : bool, default=True
    bins : bool, default=True
        Draw the equal-mass binned rates.

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt

    from bayescal.report._axes import draw_unit_diagonal

    if ax is None:
        _, ax = plt.subplots(figsize=(5.2, 5.0))
    if not any(line.get_label() == "ideal" for line in ax.lines):
        draw_unit_diagonal(ax, label="ideal", linestyle="--", color="#999999")
    name = assessment.name
    colour = colour or _BAYES_COLOUR
    pct = f"{100 * assessment.level:g}%"
    if "bayes" in assessment.curves:
        grid, mean, lower, upper = assessment.curves["bayes"]
        ax.fill_between(grid, lower, upper, color=colour, alpha=0.25, linewidth=0,
                        label=f"{name}: Bayesian {pct} band")
        ax.plot(grid, mean, color=colour, linewidth=1.8, label=f"{name}: Bayesian curve")
    xs, fitted = assessment.curves["lowess"]
    step = max(1, xs.shape[0] // 2000)  # the curve, thinned for drawing only
    ax.plot(xs[::step], fitted[::step], color=_LOWESS_COLOUR if colour == _BAYES_COLOUR
            else colour, linestyle=":", linewidth=1.5, label=f"{name}: LOWESS (iter=0)")
    if bins and "bins" in assessment.curves:
        mean_p, rate, _ = assessment.curves["bins"]
        ax.plot(mean_p, rate, "o", color=_BINS_COLOUR if colour == _BAYES_COLOUR else colour,
                markersize=4, label=f"{name}: equal-mass bins")
    ax.set_xlabel("predicted probability" if assessment.kind == "binary"
                  else "top-label confidence")
    ax.set_ylabel("observed frequency")
    ax.set_aspect("equal")
    if legend:
        ax.legend(loc="upper left", fontsize="small", frameon=False)
    return ax


class CalibrationDisplay:
    """Calibration curve with its credible band, in scikit-learn's display style.

    Build it with :meth:`from_predictions`; the attributes hold what is drawn.

    Attributes
    ----------
    assessment : Assessment
        Every statistic behind the figure.
    prob_true, prob_pred : ndarray
        Observed rate and mean prediction of the equal-mass bins (as scikit-learn's).
    grid, curve, band_lower, band_upper : ndarray or None
        The Bayesian curve's posterior mean and band (None with ``bayesian=False``).
    ax_, figure_ : matplotlib objects
        Set by :meth:`plot`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 300)
    >>> y = (rng.random(300) < p).astype(int)
    >>> disp = CalibrationDisplay.from_predictions(y, p, bayesian=False, n_bootstrap=10)
    >>> disp.prob_true.shape == disp.prob_pred.shape
    True
    """

    def __init__(self, assessment: Any) -> None:
        self.assessment = assessment
        self.prob_pred, self.prob_true, _ = assessment.curves["bins"]
        if "bayes" in assessment.curves:
            self.grid, self.curve, self.band_lower, self.band_upper = assessment.curves["bayes"]
        else:
            self.grid = self.curve = self.band_lower = self.band_upper = None
        self.ax_ = None
        self.figure_ = None

    @classmethod
    def from_predictions(cls, y_true: Any, y_prob: Any, *, name: str = "model",
                         ax: Any = None, **assess_options: Any) -> CalibrationDisplay:
        """Assess ``y_prob`` against ``y_true`` and plot the curve with its band.

        Parameters
        ----------
        y_true : array-like of shape (n,)
        y_prob : array-like of shape (n,) or (n, K)
        name : str, default="model"
        ax : matplotlib Axes, optional
        **assess_options
            Passed to :func:`bayescal.assess` (``level``, ``bayesian``, ``n_bins``, ...).

        Returns
        -------
        CalibrationDisplay
        """
        from bayescal.assessment.result import assess

        display = cls(assess(y_true, y_prob, name=name, **assess_options))
        return display.plot(ax=ax)

    def plot(self, ax: Any = None) -> CalibrationDisplay:
        """Draw on ``ax`` (a new figure if None); returns ``self``."""
        self.ax_ = plot_assessment(self.assessment, ax=ax)
        self.figure_ = self.ax_.figure
        return self
