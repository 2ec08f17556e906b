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

from bayescal.assessment.figure import _BAYES_COLOUR, plot_assessment  # noqa: F401


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
