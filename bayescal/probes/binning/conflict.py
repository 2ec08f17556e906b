"""Prior-data conflict of the bins' score-centred priors (BBQ, SBB and ABB).

Every bin of a Bayesian binning (Naeini, Cooper & Hauskrecht 2015) has a Beta
prior centred on the midpoint of the scores it covers, as if the scores were
already calibrated probabilities. Where they are far from it -- naive Bayes
scores piled near 0 and 1 with many errors among them -- each bin whose
mid-score is near 0 or 1 and whose labels are mixed pays for the conflict in
its marginal likelihood (a bin prior ``Beta(1.99, 0.01)`` against 30 %
positives costs several nats), so the posterior over binnings favours the
binnings whose few wide bins have mid-scores near 1/2, not the binnings the
labels support.

The check has two parts, both needed for a flag:

1. **Is the prior contradicted?** The evidence of the estimator's own
   binnings under the score-centred bin priors is compared with their
   evidence under *neutral* ones -- the same prior strength, every mean 1/2,
   i.e. a prior that ignores the score -- summed with the estimator's own
   prior over binnings. A Bayes factor above :data:`CONFLICT_BAYES_FACTOR`
   for the neutral priors is strong evidence (Jeffreys' scale) that the
   calibration data contradict the prior the method rests on; it is recorded
   in every fit (``prior_conflict_log_bayes_factor``).
2. **Does it change the map?** Only then, the same binnings are fitted again
   under the neutral priors -- BBQ's average over its equal-frequency
   binnings with their neutral-prior weights, SBB's most probable binning
   under the neutral priors -- and the two maps are compared on the
   calibration rows (``prior_conflict_map_rms``, ``prior_conflict_map_max``).
   The fit is flagged (a warning and ``diagnostics_.converged`` False) when
   the root-mean-square difference exceeds :data:`CONFLICT_MAP_RMS`, 0.1:
   replacing a calibrated map by one that differs by ``d`` raises the
   expected Brier score by ``E[d^2]``, so 0.1 is a Brier change of 0.01, the
   tolerance of the test suite's peer sweep (fixed from that principle, not
   fitted to the sweep).

Why both: the Bayes factor grows with the number of conflicted bins, while
the harm fades as the bins fill and the data outweigh the prior's two
pseudo-counts. In the test suite's peer sweep (eleven real data sets x Gaussian
naive Bayes, random forest, logistic regression and SVM scores x 3 folds, 396
binning fits per size, Brier pooled over the folds against the best of
isotonic regression and 10-bin histograms) the Bayes factor alone flagged, at
500 rows (333 calibration rows), 6 pooled cells beyond 0.01 and 12 cells
within it (false flags); at 2000 rows it fired in 43 fits, 37 of them within
0.01, 18 false-flag cells and no cell beyond 0.01. Refitting the conflicted
fits with neutral priors showed why: at 2000 rows the neutral-prior map was
better held out in only 17 of 43 (on average the score-centred prior helped,
by 0.002 Brier). With the map criterion: at 500 rows 2 cells flagged
(mushroom BBQ, spambase SBB, both naive Bayes), 3 false flags (2 of them
from the one-bin and constant-map checks alone), and 12 cells beyond 0.01
unflagged instead of 8 -- the four that the Bayes factor alone flagged and
this does not are naive Bayes cells whose map the prior moves by 0.03-0.07
RMS (BBQ on spambase and mammographic mass, SBB and ABB on QSAR). On their
worst unflagged folds the neutral-prior refit recovers 0.007 of 0.021 Brier
(BBQ, spambase) and 0.008 of 0.033 (SBB, QSAR) -- mostly not the prior's
loss -- but 0.016 of 0.025 (BBQ, mammographic mass) and 0.019 of 0.026 (ABB,
QSAR) with maps 0.054 and 0.053 apart: these two are the criterion's misses.
At 2000 rows nothing is flagged, no false flag, and the same 6 cells beyond
0.01 as with no check.
Where the neutral map was more than 0.1 away (five fits at 500 rows), the
score-centred prior cost 0.006-0.057 Brier held out in four and helped by
0.035 in the fifth (SBB on titanic). The remedy a flag names, isotonic
regression, puts no prior on the frequencies.

ABB only records the Bayes factor. Its map is an average over binnings, which
the prior's shift of weight between binnings moves little: the largest RMS
difference among its conflicted fits was 0.053 at 500 rows and 0.055 at 2000
(never near the threshold), and its prior-only flag had given 5 false flags
for one cell 0.01004 worse.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = [
    "CONFLICT_BAYES_FACTOR",
    "CONFLICT_MAP_RMS",
    "NEUTRAL_PRIOR_MEAN_CLIP",
    "map_difference",
    "prior_conflict_check",
]

#: Bayes factor of neutral over score-centred bin priors above which the prior
#: counts as contradicted: "strong" evidence on Jeffreys' (1961) scale.
CONFLICT_BAYES_FACTOR = 10.0

#: Root-mean-square difference (probability units, over the calibration rows)
#: between the maps under score-centred and under neutral bin priors above which
#: a contradicted prior is flagged. Replacing a calibrated map ``p`` by ``p + d``
#: raises the expected Brier score by exactly ``E[d^2]`` (the cross term
#: ``2 E[d (p - y)]`` vanishes), so an RMS difference of 0.1 is a Brier change of
#: 0.01, the tolerance of the test suite's peer sweep.
CONFLICT_MAP_RMS = 0.1

#: A prior-mean clip of 1/2 fixes every bin's prior mean at 1/2 (the neutral priors).
NEUTRAL_PRIOR_MEAN_CLIP = 0.5


def map_difference(centred: np.ndarray, neutral: np.ndarray,
                   cell_weights: np.ndarray) -> tuple[float, float]:
    """Root-mean-square and largest difference of two maps over the calibration rows.

    Parameters
    ----------
    centred, neutral : ndarray of shape (m,)
        Calibrated probability on each distinct calibration score (cell).
    cell_weights : ndarray of shape (m,)
        Weight of each cell (its rows' total sample weight).

    Returns
    -------
    (float, float)
        ``sqrt(sum_k w_k d_k^2 / sum_k w_k)`` and ``max_k |d_k|`` over the
        cells with positive weight, ``d = centred - neutral``.
    """
    d = np.asarray(centred, dtype=float) - np.asarray(neutral, dtype=float)
    w = np.asarray(cell_weights, dtype=float)
    rms = float(np.sqrt(np.sum(w * d * d) / np.sum(w)))
    return rms, float(np.max(np.abs(d[w > 0])))


def prior_conflict_check(log_evidence_centred: float, log_evidence_neutral: float,
                         binnings: str, *, centred_map: np.ndarray | None = None,
                         neutral_map: Callable[[], np.ndarray] | None = None,
                         cell_weights: np.ndarray | None = None) -> dict:
    """Diagnostics entries of the prior-data conflict check.

    Parameters
    ----------
    log_evidence_centred, log_evidence_neutral : float
        Log of the sum, over the estimator's binnings and with its prior over
        them, of the marginal likelihood under score-centred and under neutral
        bin priors.
    binnings : str
        Which binnings were summed over, for the message (e.g. "the
        equal-frequency binnings BBQ averages").
    centred_map : ndarray of shape (m,) or None, default=None
        The fitted map on each cell (score-centred priors). None: only the
        Bayes factor is recorded, nothing is flagged (ABB).
    neutral_map : callable or None, default=None
        Returns the same estimator's map under neutral priors on each cell;
        called only when the Bayes factor exceeds :data:`CONFLICT_BAYES_FACTOR`.
    cell_weights : ndarray of shape (m,) or None, default=None
        Weight of each cell (its calibration rows).

    Returns
    -------
    dict
        ``prior_conflict_log_bayes_factor`` (log of neutral over centred); when
        it exceeds ``log(CONFLICT_BAYES_FACTOR)``, ``prior_conflict_map_rms``
        and ``prior_conflict_map_max`` (:func:`map_difference`); when the RMS
        difference exceeds :data:`CONFLICT_MAP_RMS` as well,
        ``prior_conflict=True`` with a ``failure`` and a ``remedy`` (strings).
    """
    log_bf = float(log_evidence_neutral - log_evidence_centred)
    out: dict = {"prior_conflict_log_bayes_factor": log_bf}
    if centred_map is None or not log_bf > np.log(CONFLICT_BAYES_FACTOR):
        return out
    rms, largest = map_difference(centred_map, neutral_map(), cell_weights)
    out["prior_conflict_map_rms"] = rms
    out["prior_conflict_map_max"] = largest
    if not rms > CONFLICT_MAP_RMS:
        return out
    out["prior_conflict"] = True
    out["failure"] = (
        f"prior-data conflict: over {binnings}, bin priors that ignore the score (mean 1/2) "
        f"explain the calibration labels better than the method's priors, centred on each "
        f"bin's mid-score, by a Bayes factor of {np.exp(min(log_bf, 700.0)):.3g} (above "
        f"{CONFLICT_BAYES_FACTOR:g}), and the map changes with the prior: under the neutral "
        f"priors it differs by {rms:.3g} root-mean-square (up to {largest:.3g}) over the "
        f"calibration scores (above {CONFLICT_MAP_RMS:g}, a Brier change of "
        f"{CONFLICT_MAP_RMS ** 2:g}); the scores are far from calibrated where the priors "
        "assume they are (e.g. over-confident scores piled near 0 and 1), so the posterior "
        "favours binnings whose bins avoid the conflict, not those the labels support"
    )
    out["remedy"] = ("Use IsotonicCalibrator, which puts no prior on the frequencies, or a "
                     "parametric map (BetaCalibrator) on such scores.")
    return out
