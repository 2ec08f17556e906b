"""``rms::val.prob`` in Python: the validation statistics of binary predictions, by R's names.

One call gathers what :mod:`bayescal.assessment` computes piece by piece, keyed as
Harrell's ``val.prob`` (R package ``rms``) prints them, so that results can be
set beside R's line by line.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.stats import chi2

from bayescal.assessment._inputs import check_outcomes
from bayescal.assessment.calibration_tests import spiegelhalter_test
from bayescal.assessment.discrimination import concordance
from bayescal.assessment.logistic_calibration import logistic_calibration
from bayescal.assessment.lowess_curve import curve_errors, lowess

__all__ = ["VAL_PROB_NAMES", "val_prob"]

#: ``rms`` computes ``C`` and ``Dxy`` from probabilities truncated to multiples of 1/this.
RMS_C_BINS = 10000

#: The statistics, in ``rms::val.prob``'s order.
VAL_PROB_NAMES = ("Dxy", "C (ROC)", "R2", "D", "D:Chi-sq", "D:p", "U", "U:Chi-sq", "U:p", "Q",
                  "Brier", "Intercept", "Slope", "Emax", "E90", "Eavg", "S:z", "S:p")


def val_prob(y: Any, p: Any) -> dict[str, float]:
    """The statistics of R's ``rms::val.prob(p, y)``.

    Parameters
    ----------
    y : array-like of shape (n,)
        Outcomes coded 0/1; both must occur.
    p : array-like of shape (n,) or (n, 2)
        Predicted probabilities of outcome 1.

    Returns
    -------
    dict of str to float
        Keys :data:`VAL_PROB_NAMES`. ``D:p`` is the chi-square (1 df) p-value of
        ``D:Chi-sq`` (``rms`` prints NA there); ``Intercept`` and ``Slope`` are the
        joint logistic recalibration; ``Dxy``, ``C (ROC)``, ``R2``, ``D``, ``U`` and
        ``Q`` use the rows with ``0 < p < 1`` only (``rms`` drops infinite
        log-odds from its logistic fits, with a warning, as here); ``Dxy`` and
        ``C (ROC)`` are computed, as ``rms``' ``lrm.fit`` does, from the
        probabilities truncated to multiples of 1e-4 (the exact c-statistic is
        :func:`bayescal.assessment.concordance`, which :func:`bayescal.assess`
        reports); an event predicted with probability 0 makes ``U`` infinite
        (``rms`` sums the deviance of the given predictions over all rows, where a
        non-event predicted with probability 1 gives NaN and is dropped); ``Emax``, ``E90``, ``Eavg`` come from
        ``lowess(p, y, iter=0)``; ``S:z``, ``S:p`` are Spiegelhalter's test.

    See Also
    --------
    bayescal.assess : the same statistics with intervals, and more.

    References
    ----------
    .. [1] Harrell, F. E. rms: Regression Modeling Strategies, R package, function
       ``val.prob``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 500)
    >>> y = (rng.random(500) < p).astype(int)
    >>> stats = val_prob(y, p)
    >>> round(stats["Dxy"], 6) == round(2 * stats["C (ROC)"] - 1, 6)
    True
    """
    labels, proba = check_outcomes(y, p)
    weak = logistic_calibration(labels, proba)
    # rms takes Dxy and C from its logistic fit: over the rows with a finite logit,
    # with the predicted probabilities truncated to 1e-4 (its Fortran bins them).
    finite = (proba > 0.0) & (proba < 1.0)
    c = concordance(labels[finite], np.floor(proba[finite] * RMS_C_BINS) / RMS_C_BINS)
    xs, fitted = lowess(proba, labels)
    errors = curve_errors(xs, fitted)
    spi = spiegelhalter_test(labels, proba)
    u_chi2, u_index, u_p, quality = (weak.unreliability_chi2, weak.unreliability,
                                     weak.unreliability_p, weak.quality)
    if np.any((proba == 0.0) & (labels == 1)):
        # rms sums the deviance of the predictions as given over every row (na.rm=TRUE):
        # an event predicted with probability 0 makes it, and U, infinite.
        u_chi2, u_index, u_p, quality = np.inf, np.inf, 0.0, -np.inf
    return {
        "Dxy": c.dxy,
        "C (ROC)": c.c,
        "R2": weak.r2,
        "D": weak.discrimination,
        "D:Chi-sq": weak.discrimination_chi2,
        "D:p": float(chi2.sf(weak.discrimination_chi2, 1)),
        "U": u_index,
        "U:Chi-sq": u_chi2,
        "U:p": u_p,
        "Q": quality,
        "Brier": float(np.mean((proba - labels) ** 2)),
        "Intercept": weak.intercept,
        "Slope": weak.slope,
        "Emax": float(errors["emax"]),
        "E90": float(errors["e90"]),
        "Eavg": float(errors["ici"]),
        "S:z": spi.statistic,
        "S:p": spi.p_value,
    }
