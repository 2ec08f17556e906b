"""Logistic GAM calibration: a penalised regression spline of the score or its logit."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.interpolate import BSpline
from scipy.optimize import minimize_scalar
from scipy.special import xlogy
from sklearn.exceptions import ConvergenceWarning

from bayescal._compat.param_validation import Interval, StrOptions
from bayescal.calibration._logistic import fit_logistic, intercept_design
from bayescal.calibration.platt import _ScoreFeatureCalibrator, platt_targets
from bayescal.clipping import DEFAULT_CLIP, bounded_expit

__all__ = ["LogisticGAMCalibrator", "GAM_CRITERIA", "pspline_basis"]

#: Smoothing-parameter selection criteria.
GAM_CRITERIA = ("ubre", "gcv", "reml", "reml-average")

#: Half-width, in log units around the scale-matched value, of the search for log(lambda).
_LOG_LAMBDA_SPAN = 12.0

#: Spacing in log(lambda) of the nodes of ``criterion="reml-average"`` (halving it moved
#: the worst pooled Brier gap of the issue-27 sweep by 1e-4).
_AVERAGE_STEP = 1.0


def _uniform_knots(lo: float, hi: float, n_knots: int, degree: int) -> np.ndarray:
    """P-spline knots: ``n_knots`` equally spaced on [lo, hi], extended by ``degree``."""
    step = (hi - lo) / (n_knots - 1)
    return lo + step * np.arange(-degree, n_knots + degree)


def pspline_basis(x: np.ndarray, knots: np.ndarray, degree: int) -> np.ndarray:
    """B-spline design matrix on ``knots``, extended linearly beyond the base interval.

    Parameters
    ----------
    x : ndarray of shape (n,)
        Points.
    knots : ndarray of shape (K + degree + 1,)
        Knot vector; the base interval is ``[knots[degree], knots[-degree - 1]]``.
    degree : int
        Spline degree.

    Returns
    -------
    ndarray of shape (n, K)
        ``B_j(x)`` inside the base interval; outside it, each basis function
        continues along its tangent at the nearer end, so every spline in the
        basis (and in particular a linear function) is extended linearly.
    """
    lo, hi = knots[degree], knots[-degree - 1]
    n_basis = knots.shape[0] - degree - 1
    inside = np.clip(x, lo, hi)
    basis = BSpline.design_matrix(inside, knots, degree).toarray()
    below, above = x < lo, x > hi
    if below.any() or above.any():
        slopes = BSpline(knots, np.eye(n_basis), degree).derivative()
        if below.any():
            basis[below] += np.outer(x[below] - lo, slopes(lo))
        if above.any():
            basis[above] += np.outer(x[above] - hi, slopes(hi))
    return basis


def _max_edf(targets: np.ndarray, weights: np.ndarray, events_per_edf: float | None) -> float:
    """The most effective degrees of freedom the data allow (at least 2, the linear fit)."""
    if events_per_edf is None:
        return float(np.inf)
    events = min(float(np.dot(weights, targets)), float(np.dot(weights, 1.0 - targets)))
    return max(2.0, events / float(events_per_edf))


def _difference_penalty(n_basis: int, order: int = 2) -> np.ndarray:
    diff = np.diff(np.eye(n_basis), n=order, axis=0)
    return diff.T @ diff


class LogisticGAMCalibrator(_ScoreFeatureCalibrator):
    """Logistic GAM calibration: ``logit p = f(x)`` with a penalised spline ``f``.

    Parameters
    ----------
    input : {"score", "logit", "decision"}, default="score"
        The covariate ``x``: the probability score (Phelps et al.'s (2024) "Platt with
        GAM"), its logit ("Platt with logit and GAM"), or a decision value
        (any real number) as it is; see :class:`PlattCalibrator`.
    n_knots : int, default=8
        Equally spaced knots on the range of ``x`` (boundaries included); the
        basis has ``n_knots + degree - 1`` functions (10 by default, mgcv's
        default basis dimension).
    degree : int, default=3
        Degree of the B-splines (cubic).
    criterion : {"reml", "reml-average", "ubre", "gcv"}, default="reml"
        How the smoothing parameter is chosen (see Notes). ``"reml-average"``
        chooses none: it averages the fits over ``lambda``, weighted by the
        REML marginal likelihood under a flat prior on the effective degrees of
        freedom (see Notes, "Averaging over lambda"). ``"ubre"`` is what
        mgcv's default ``method="GCV.Cp"`` uses for a binomial model (known
        scale, as in Phelps et al. (2024)); ``"reml"`` is the default here because
        UBRE and GCV have multiple local minima and occasionally under-smooth
        (Reiss & Ogden 2009; Wood 2011) -- on data from a linear logit, REML
        returns the linear fit far more reliably (see the tests).
    target_smoothing : bool, default=True
        Fit to Platt's (1999) smoothed targets (see
        :func:`~bayescal.calibration.platt.platt_targets`), as
        :class:`PlattCalibrator` does by default on scores, or to the plain 0/1 targets
        (the variant of Phelps, Lizotte & Woolford 2024) when False. Smoothed targets keep the fit
        finite on a perfectly separable calibration set, where the plain fit has
        no finite optimum and returns (almost) exact 0/1; with hundreds of rows
        per class the two differ by ``O(1/n)``.
    min_events_per_edf : float or None, default=10
        The floor on the smoothing parameter, tied to the amount of data: the
        selected ``lambda`` is never smaller than the one at which the effective
        degrees of freedom reach ``max(2, min(N+, N-) / min_events_per_edf)``
        (``N+``, ``N-``: the weighted counts of the two classes), the rule of ten
        events per parameter of a logistic regression (Peduzzi et al. 1996).
        On a small calibration set the spline so cannot interpolate: with fewer
        than ``2 * min_events_per_edf`` rows in the smaller class only the linear
        (Platt) fit is allowed. ``None`` removes the floor (the criterion alone
        decides).
    clip : float or None, default=1e-12
        Only for ``input="logit"``: bayescal's one clip rule, see
        :class:`PlattCalibrator` (``None`` is strict; ``n_clipped_`` counts
        the clipped calibration scores).
    max_iter : int, default=100
        Most P-IRLS (Newton) iterations per smoothing parameter.

    Attributes
    ----------
    knots_ : ndarray
        Knot vector of the basis.
    coef_ : ndarray of shape (n_basis,)
        Spline coefficients: ``predict_proba`` returns ``expit(B(x) @ coef_)``.
        For ``"reml-average"``, the weighted average of the fits' coefficients.
    smoothing_ : float
        Selected smoothing parameter ``lambda`` (``inf``: the linear fit). For
        ``"reml-average"``, the weighted median of ``smoothing_grid_`` (a
        summary; the fit is the average).
    smoothing_grid_ : ndarray
        The values of ``lambda`` whose fits make up the map, largest first
        (``inf``: the linear fit). One value, ``smoothing_``, for the
        selection criteria.
    smoothing_weights_ : ndarray
        Their weights (sum 1): the posterior probabilities of the nodes for
        ``"reml-average"``, ``[1.0]`` for the selection criteria.
    edf_ : float
        Effective degrees of freedom ``tr((X'WX + lambda S)^{-1} X'WX)``
        (2 for the linear fit). For ``"reml-average"``, the weighted mean of
        the nodes' edf: the trace of the averaged (linearised) smoother, i.e.
        of the map ``predict_proba`` returns.
    max_edf_ : float
        The most effective degrees of freedom ``min_events_per_edf`` allowed
        (``inf`` when it is None).
    edf_bound_active_ : bool
        Whether the floor on ``lambda`` decided the fit (the criterion alone
        would have smoothed less; for ``"reml-average"``: whether the floor cut
        the range of the average short).
    criterion_value_ : float
        Value of the criterion at ``smoothing_`` (for the linear fit, its value
        at the top of the search grid, which the linear fit attains in the limit).
        For ``"reml-average"``, the smallest REML value over the nodes.
    n_clipped_ : int
        Calibration scores moved by ``clip`` (0 unless ``input="logit"``).
    classes_ : ndarray of shape (2,)
        ``[0, 1]``.

    Raises
    ------
    ValueError
        Single-class targets, bad scores or lengths, fewer than two distinct
        values of ``x``, bad parameters.

    Notes
    -----
    **Model.** ``f(x) = sum_j beta_j B_j(x)`` with cubic B-splines on equally
    spaced knots and the second-order difference penalty
    ``lambda sum_j (beta_{j+2} - 2 beta_{j+1} + beta_j)^2 = lambda beta' S beta``
    (a P-spline, Eilers & Marx 1996). The penalty's null space is exactly the
    linear functions ``a + b x`` (coefficients linear in the Greville
    abscissae), so as ``lambda -> inf`` the fit becomes the plain logistic
    (Platt, no target smoothing) fit on the same input. Beyond the range of the
    calibration data ``f`` is extended linearly.

    **Fit.** For a given ``lambda`` the penalised weighted log-loss (weights
    ``w_i``, fractional targets ``t_i`` allowed) is minimised by penalised
    IRLS, i.e. Newton's method (:func:`bayescal.calibration._logistic.fit_logistic`).

    **Smoothing parameter** ("outer" selection, as mgcv): with deviance
    ``D(lambda)``, ``tau = edf`` and ``n = sum_i w_i``,

    - UBRE (Craven & Wahba; Wood 2017, Sec. 6.2): ``D/n + 2 tau/n - 1``,
      an AIC for a known scale parameter;
    - GCV: ``n D / (n - tau)^2``;
    - REML (Laplace-approximate restricted marginal likelihood, Wood 2011):
      ``D/2 + lambda beta'S beta/2 + log|X'WX + lambda S|/2 - r log(lambda)/2``,
      ``r = rank(S)``, up to constants.

    ``log(lambda)`` is searched on a grid of 13 points spanning +-12 around the
    value that matches the scales of ``X'WX`` and ``S``, then refined by
    Brent's method between the grid neighbours of the best point. If the
    criterion is smallest at the top of the grid the exact linear fit
    (``lambda = inf``) is used.

    **Small calibration sets.** None of the criteria protects a few dozen
    rows: on 38 rows of real classifier scores UBRE, GCV and REML all chose
    ``lambda`` near ``1e-6`` (edf 5-10, a spline through the labels) with a
    test log-loss of 2-8 against Platt's 0.4-0.7. The search is therefore
    restricted to ``lambda`` whose edf stays within ``max_edf_`` (grid points
    beyond it are inadmissible; the boundary is located by bisection on
    ``log(lambda)``, edf being decreasing in ``lambda``). The search is written by hand: no Python
    library selects the smoothing parameter of a penalised logistic spline by
    these criteria (pyGAM is unmaintained and scikit-learn has no GAM).

    **REML can over-smooth.** The default criterion trades some fit for
    stability, and on some calibration sets it keeps a nonlinearity out: on
    one fold of naive-Bayes scores of mushroom (334 rows, 63 % of the scores
    in [0.9, 1]) REML chose the linear fit, its criterion 0.27 below its
    value at ``edf`` 3.6 and 2.6 below ``edf`` 6.2, the fit UBRE and GCV
    chose; the test Brier scores were 0.222 and 0.190. UBRE is not the cure:
    on 500 rows of a linear logit (8 samples) it chose ``edf`` 9.6 and 8.4 in
    two, maps up to 0.62 from the linear fit on [0, 1], where REML's largest
    ``edf`` was 3.3 and its largest distance 0.11. Two checks the fit could run on itself were measured on the
    issue-27 sweep (11 data sets, 4 classifiers, 3 folds, 264 fits): a
    likelihood-ratio test of the selected fit against the most flexible one
    allowed, and the spread of the maps whose REML criterion lies within 1 of
    its minimum; each ranked 7 or more fits that were within 0.01 Brier of
    the best peer above that fold, so neither is used as a warning. Compare
    ``criterion="ubre"`` on held-out data where a nonlinearity matters.

    **Averaging over lambda** (``criterion="reml-average"``). The REML
    criterion is, up to a constant, minus the log of the Laplace-approximate
    marginal likelihood of ``lambda``; where it is flat the data do not
    decide ``lambda``, and picking its minimum hides that uncertainty (Wood,
    Pya & Säfken 2016). The average integrates it out: nodes at every unit of
    ``log(lambda)`` over the search range (25, plus the boundary at
    ``max_edf_`` when it binds), the linear limit in place of the top node,
    node ``k`` weighted by ``exp(-REML_k)`` times its trapezoid width in the
    edf, i.e. a flat prior on the effective degrees of freedom over
    ``[2, max_edf_]`` (priors on degrees of freedom: Hodges & Sargent 2001).
    A flat prior on ``log(lambda)`` is improper: the marginal likelihood
    tends to a constant as ``lambda -> inf``, so the weight of the linear
    end would grow with the span of the grid, a constant of the search rather
    than of the model; measured, it also helped less (mushroom cell below:
    +0.0132 against +0.0102). The linear predictors are averaged (the
    coefficients, so ``coef_`` is the map): averaging the probabilities
    instead, the mixture a Bayesian model average would return, changed the
    sweep's gaps by at most 2e-4 (worst +0.0104 against +0.0102); adding
    the coefficients' Laplace uncertainty (MacKay's moderated output) made it
    worse (+0.0105, mean gap +0.00082). Measured on the issue-27 peer sweep
    (``gam`` and ``gam-logit``, ``n_knots=5``, 11 two-class data sets, 4
    classifiers, 3 folds pooled; gap = Brier minus that of the best peer,
    scikit-learn's spline + cross-validated ridge logistic regression):

    ============  ================================  ================================
    rows x folds  ``"reml"``                        ``"reml-average"``
    ============  ================================  ================================
    500 x 3       1 of 88 cells > 0.01 (mushroom    1 of 88 > 0.01 (the same,
                  NB, +0.0145), mean +0.00086       +0.0102), mean +0.00070
    2000 x 3      0 of 88, worst +0.0052, mean      0 of 88, worst +0.0045, mean
                  +0.00045                          +0.00037
    ============  ================================  ================================

    On data from a linear logit (8 samples of 4000 rows) the averaged map stays
    within 0.018 of the linear fit on [0.02, 0.98] (REML's pick: 0.025) while
    its ``edf_`` is about 3 (the flat prior weighs the plateau of the
    criterion next to the linear fit). On mushroom-like synthetic scores (20
    samples of 334 rows) its squared error against the true probabilities was
    smaller than REML's pick in 16, mean 0.0074 against 0.0085 (UBRE: 0.0059).
    It costs no more than the selection: 4.2 against 4.3 ms CPU on 333 rows,
    12.3 against 12.1 ms on 5000 (best of 7). It is not the default: it
    narrows the mushroom gap but does not close it: on that fold its ``edf_``
    is 3.6 and its Brier 0.209 (REML's pick 0.222, the peer 0.188); the fits
    that reach Brier 0.193 or better carry 6 % of the weight. The mushroom
    cell is a chance draw of the default too: over ten repetitions of the
    500 x 3 sweep with other subsamples and folds (``test_sweep.py --peers
    500 3 10``), the default's cells were beyond 0.01 in 2 runs (one cell
    each) and no cell's mean gap exceeded 0.01.

    Predictive criteria close that gap but are not reliable on a linear logit
    (the same sweep at 500 x 3; largest distance from the linear fit over 8
    samples of 4000 linear-logit rows, ``n_knots=8``): UBRE 0 cells > 0.01
    (but 1 at 2000 x 3, +0.0185), distance 0.088; approximate leave-one-out
    Brier or log loss (one Newton step from the full fit) 0 cells, 0.080 and
    0.087; stacking the grid's fits on their approximate leave-one-out log
    scores (Yao, Vehtari, Simpson & Gelman 2018) 0 cells, mean gap +0.00062
    (but 1 at 2000 x 3: blood_transfusion, naive Bayes, +0.0153), distance
    0.059. The one-standard-error rule on the same scores (the
    largest ``lambda`` within one paired standard error of the best) is
    reliable (0.019) but smooths more than REML (mushroom +0.0194).

    References
    ----------
    Wood, S. N. (2011). Fast stable restricted maximum likelihood and marginal
    likelihood estimation of semiparametric generalized linear models. *JRSS
    B*, 73(1), 3-36.

    Wood, S. N. (2017). *Generalized Additive Models: An Introduction with R*
    (2nd ed.). CRC Press.

    Wood, S. N., Pya, N. & Säfken, B. (2016). Smoothing parameter and model
    selection for general smooth models. *JASA*, 111(516), 1548-1563.

    Yao, Y., Vehtari, A., Simpson, D. & Gelman, A. (2018). Using stacking to
    average Bayesian predictive distributions. *Bayesian Analysis*, 13(3),
    917-1007.

    Hodges, J. S. & Sargent, D. J. (2001). Counting degrees of freedom in
    hierarchical and other richly-parameterised models. *Biometrika*, 88(2),
    367-379.

    Reiss, P. T. & Ogden, R. T. (2009). Smoothing parameter selection for a
    class of semiparametric linear models. *JRSS B*, 71(2), 505-523.

    Peduzzi, P., Concato, J., Kemper, E., Holford, T. R. & Feinstein, A. R.
    (1996). A simulation study of the number of events per variable in
    logistic regression analysis. *Journal of Clinical Epidemiology*, 49(12),
    1373-1379.

    Eilers, P. H. C. & Marx, B. D. (1996). Flexible smoothing with B-splines and
    penalties. *Statistical Science*, 11(2), 89-121.

    Phelps, N., Lizotte, D. J. & Woolford, D. G. (2024). Using Platt's scaling
    for calibration after undersampling: limitations and how to address them,
    Section 2.2.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0.01, 0.99, size=2000)
    >>> y = (rng.uniform(size=2000) < s**2).astype(int)
    >>> gam = LogisticGAMCalibrator().fit(s, y)
    >>> gam.predict_proba([0.5])[0, 1].round(1)
    np.float64(0.2)
    """

    def __init__(
        self,
        *,
        input: str = "score",
        n_knots: int = 8,
        degree: int = 3,
        criterion: str = "reml",
        target_smoothing: bool = True,
        min_events_per_edf: float | None = 10.0,
        clip: float | None = DEFAULT_CLIP,
        max_iter: int = 100,
    ) -> None:
        self.input = input
        self.n_knots = n_knots
        self.degree = degree
        self.criterion = criterion
        self.target_smoothing = target_smoothing
        self.min_events_per_edf = min_events_per_edf
        self.clip = clip
        self.max_iter = max_iter

    _parameter_constraints: dict = {
        **_ScoreFeatureCalibrator._parameter_constraints,
        "n_knots": [Interval(Integral, 3, None, closed="left")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "criterion": [StrOptions(set(GAM_CRITERIA))],
        "target_smoothing": ["boolean"],
        "min_events_per_edf": [Interval(Real, 0, None, closed="neither"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def _fit(self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> None:
        n_knots, degree, max_iter = int(self.n_knots), int(self.degree), int(self.max_iter)
        x = self._feature(scores, fit=True)
        support = x[weights > 0]  # zero-weight rows do not move the knots
        lo, hi = float(support.min()), float(support.max())
        if not hi > lo:
            raise ValueError(
                f"`scores` take a single value ({lo!r} on the {self.input} scale); "
                "LogisticGAMCalibrator needs at least two distinct scores."
            )
        self.max_edf_ = _max_edf(targets, weights, self.min_events_per_edf)
        if self.target_smoothing:
            targets = platt_targets(targets, weights)
        knots = _uniform_knots(lo, hi, n_knots, degree)
        basis = np.asfortranarray(pspline_basis(x, knots, degree))
        n_basis = basis.shape[1]
        penalty = _difference_penalty(n_basis)
        greville = np.array([knots[j + 1 : j + degree + 1].mean() for j in range(n_basis)])
        average = self.criterion == "reml-average"
        search = _SmoothingSearch(
            basis, penalty, targets, weights, "reml" if average else self.criterion,
            max_iter, self.max_edf_,
        )

        linear = fit_logistic(intercept_design(x), targets, weights, max_iter=max_iter, warn=False)
        linear_coef = linear.coef[0] + linear.coef[1] * greville
        scale = np.trace(basis.T @ (basis * (0.25 * weights)[:, None])) / np.trace(penalty)
        centre = np.log(scale)
        self.knots_ = knots
        if average:
            coef, converged = self._average(search, centre, linear_coef, linear.converged)
            self._warn_unless(converged)
            self.coef_ = coef
            return
        grid = centre + np.linspace(_LOG_LAMBDA_SPAN, -_LOG_LAMBDA_SPAN, 13)
        values, edfs = [], []
        for i, rho in enumerate(grid):
            values.append(search.value(rho, linear_coef if i == 0 else None))
            edfs.append(search.last_edf)
            if i > 0 and edfs[-1] > self.max_edf_:
                # edf decreases in lambda: every smaller lambda is inadmissible too
                values.extend([np.inf] * (len(grid) - len(values)))
                break
        best = int(np.argmin(values))
        self.edf_bound_active_ = bool(
            best + 1 < len(edfs) and edfs[best + 1] > self.max_edf_
        )
        if best == 0:
            self.smoothing_ = float(np.inf)
            coef, converged = linear_coef, linear.converged
            self.edf_ = 2.0
            self.criterion_value_ = float(values[0])
        else:
            left = grid[min(best + 1, len(grid) - 1)]
            if self.edf_bound_active_:
                left = search.edf_boundary(grid[best + 1], grid[best])
            right = grid[best - 1]
            res = minimize_scalar(
                lambda rho: search.value(rho, None),
                bounds=(left, right),
                method="bounded",
                options={"xatol": 1e-3},
            )
            rho = float(res.x) if res.fun < values[best] else float(grid[best])
            final = search.fit(rho, None)
            coef, converged = final.coef, final.converged
            self.smoothing_ = float(np.exp(rho))
            self.edf_ = search.edf(final.hessian, np.exp(rho))
            self.criterion_value_ = float(min(res.fun, values[best]))
        self._warn_unless(converged)
        self.smoothing_grid_ = np.array([self.smoothing_])
        self.smoothing_weights_ = np.ones(1)
        self.coef_ = np.asarray(coef, dtype=float)

    @staticmethod
    def _warn_unless(converged: bool) -> None:
        if not converged:
            warnings.warn(
                "the logistic GAM fit did not converge; the data may be perfectly separable.",
                ConvergenceWarning,
                stacklevel=4,
            )

    def _average(self, search, centre, linear_coef, linear_converged):
        """``criterion="reml-average"``: the fits on a log(lambda) grid, averaged.

        Returns the averaged coefficients and whether every fit converged; sets
        the attributes that describe the average (see the class Notes).
        """
        rhos = centre + np.arange(_LOG_LAMBDA_SPAN, -_LOG_LAMBDA_SPAN - 1e-9, -_AVERAGE_STEP)
        # node 0: the linear limit (edf 2), with the criterion's value at the top of the grid
        values = [search.value(rhos[0], linear_coef)]
        nodes_rho, edfs, coefs = [np.inf], [2.0], [linear_coef]
        converged, bound = linear_converged, False
        for i in range(1, rhos.size):
            rho, value = rhos[i], search.value(rhos[i], None)
            bound = search.last_edf > self.max_edf_ * (1.0 + 1e-9)
            if bound:  # the last admissible node: where the edf reaches max_edf_
                rho = search.edf_boundary(rhos[i], rhos[i - 1])
                if rho >= rhos[i - 1]:
                    break
                value = search.value(rho, None)
            nodes_rho.append(rho)
            edfs.append(search.last_edf)
            values.append(value)
            coefs.append(search.coef.copy())
            converged = converged and search.converged
            if bound:
                break
        self.edf_bound_active_ = bound
        edfs, values = np.asarray(edfs), np.asarray(values)
        # flat prior on the edf: trapezoid weights in the edf times the marginal likelihood
        width = np.zeros(edfs.size)
        if edfs.size > 1:
            step = np.abs(np.diff(edfs))
            width[:-1] += 0.5 * step
            width[1:] += 0.5 * step
        if not np.any(width > 0):  # one node, or nodes of one edf (max_edf_ at 2): equal
            width[:] = 1.0
        usable = np.isfinite(values) & (width > 0)
        log_w = np.full(edfs.size, -np.inf)
        log_w[usable] = np.log(width[usable]) - values[usable]
        weights = np.exp(log_w - log_w.max())
        weights /= weights.sum()
        lambdas = np.exp(np.asarray(nodes_rho))
        order = np.argsort(lambdas)
        median = order[np.searchsorted(np.cumsum(weights[order]), 0.5)]
        self.smoothing_grid_ = lambdas
        self.smoothing_weights_ = weights
        self.smoothing_ = float(lambdas[median])
        self.edf_ = float(weights @ edfs)
        self.criterion_value_ = float(values[np.isfinite(values)].min())
        return weights @ np.asarray(coefs), converged

    def _predict_positive(self, scores: np.ndarray) -> np.ndarray:
        x = self._feature(scores)
        return bounded_expit(pspline_basis(x, self.knots_, self.degree) @ self.coef_)


class _SmoothingSearch:
    """Evaluates a smoothing criterion at ``rho = log(lambda)``, warm-starting P-IRLS."""

    def __init__(self, basis, penalty, targets, weights, criterion, max_iter, max_edf):
        self.max_edf = max_edf
        self.last_edf = np.nan
        self.basis = basis
        self.penalty = penalty
        self.targets = targets
        self.weights = weights
        self.criterion = criterion
        self.max_iter = max_iter
        self.n = float(np.sum(weights))
        # -loglik of the saturated model (0 for 0/1 targets)
        self.saturated = -float(
            np.dot(weights, xlogy(targets, targets) + xlogy(1.0 - targets, 1.0 - targets))
        )
        eig = np.linalg.eigvalsh(penalty)
        positive = eig > eig.max() * 1e-10
        self.rank = int(positive.sum())
        self.log_det_penalty = float(np.sum(np.log(eig[positive])))
        self.coef = None
        self.converged = True

    def fit(self, rho: float, start):
        lam = np.exp(rho)
        init = self.coef if start is None else start
        result = fit_logistic(
            self.basis,
            self.targets,
            self.weights,
            penalty=lam * self.penalty,
            coef_init=init,
            max_iter=self.max_iter,
            warn=False,
        )
        self.coef = result.coef
        self.converged = result.converged
        return result

    def edf(self, hessian: np.ndarray, lam: float) -> float:
        # tau = tr(H^{-1} X'WX) = K - lambda tr(H^{-1} S). A singular Hessian (tiny
        # lambda with scores piled on a few values, so some basis functions see no
        # data) gets the minimum-norm solve: directions the data cannot identify
        # then add no degrees of freedom.
        k = hessian.shape[0]
        try:
            solved = np.linalg.solve(hessian, self.penalty)
        except np.linalg.LinAlgError:
            solved = np.linalg.lstsq(hessian, self.penalty, rcond=None)[0]
        return float(k - lam * np.trace(solved))

    def edf_boundary(self, low: float, high: float) -> float:
        """``log(lambda)`` in [low, high] where the edf reaches ``max_edf`` (bisection)."""
        for _ in range(30):
            mid = 0.5 * (low + high)
            result = self.fit(mid, None)
            if self.edf(result.hessian, np.exp(mid)) > self.max_edf:
                low = mid
            else:
                high = mid
            if high - low < 1e-3:
                break
        return high

    def value(self, rho: float, start) -> float:
        lam = np.exp(rho)
        result = self.fit(rho, start)
        tau = self.edf(result.hessian, lam)
        self.last_edf = tau
        if tau > self.max_edf * (1.0 + 1e-9) and np.isfinite(rho) and start is None:
            return float("inf")  # more flexible than the data allow (see max_edf_)
        coef = result.coef
        quad = float(coef @ self.penalty @ coef)
        nll = result.loss - 0.5 * lam * quad
        deviance = 2.0 * (nll - self.saturated)
        if self.criterion == "reml":
            sign, logdet = np.linalg.slogdet(result.hessian)
            if sign <= 0:  # singular or indefinite: not a valid Laplace approximation
                return float("inf")
            return float(0.5 * deviance + 0.5 * lam * quad + 0.5 * logdet - 0.5 * self.rank * rho)
        if self.criterion == "ubre":
            return float(deviance / self.n + 2.0 * tau / self.n - 1.0)
        return float(self.n * deviance / max(self.n - tau, 1e-12) ** 2)
