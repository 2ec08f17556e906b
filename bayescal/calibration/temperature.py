"""Temperature scaling of multi-class logits (Guo et al. 2017)."""

from __future__ import annotations

import warnings
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from bayescal._compat.param_validation import Interval, validate_params
from bayescal.calibration.base import MultiClassCalibrator
from bayescal.clipping import DEFAULT_CLIP, clip_constraint, clip_probabilities
from bayescal.contracts import input_constraint
from bayescal.validation import (
    check_array_1d,
    check_matrix,
    check_probability_matrix,
)

__all__ = ["TemperatureScaling", "tempered_softmax", "temperature_nll"]

#: Values accepted by ``input`` (see :data:`bayescal.contracts.SCORE_INPUTS`).
TEMPERATURE_INPUTS = ("score", "decision")

#: From this many logits (n x K) the NLL passes of ``fit`` run in one fused numba
#: kernel (:mod:`bayescal.calibration._temperature_kernel`); below, in NumPy,
#: which spares a tiny fit the compiler's import. The fused pass is already
#: about twice as fast as NumPy's fifteen passes at 4,000 logits (1,000 rows,
#: K = 4); benchmarks/calibrators.py compares both with scikit-learn.
FUSED_MIN_LOGITS = 2_000


def _tempered(logits: np.ndarray, beta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``softmax(beta z)``, its log-normaliser, and ``z`` with ``-inf`` set to 0."""
    finite = np.isfinite(logits)
    if finite.all():
        z = logits
        scaled = beta * z
    else:
        z = np.where(finite, logits, 0.0)
        scaled = np.where(finite, beta * z, -np.inf)
    top = scaled.max(axis=1, keepdims=True)
    scaled -= top
    expd = np.exp(scaled, out=scaled)
    total = expd.sum(axis=1, keepdims=True)
    expd /= total
    return expd, (np.log(total) + top)[:, 0], z


def tempered_softmax(logits: np.ndarray, inverse_temperature: float) -> np.ndarray:
    """Row-wise ``softmax(beta * z)``; a ``-inf`` logit gets probability 0.

    Parameters
    ----------
    logits : ndarray of shape (n, K)
        Logits (``-inf`` allowed where a probability was 0).
    inverse_temperature : float
        ``beta = 1 / T`` >= 0; ``beta = 0`` gives the uniform distribution
        over the finite entries.

    Returns
    -------
    ndarray of shape (n, K)
    """
    return _tempered(logits, inverse_temperature)[0]


def temperature_nll(
    logits: np.ndarray, labels: np.ndarray, weights: np.ndarray, inverse_temperature: float
) -> tuple[float, float, float]:
    """Weighted NLL of ``softmax(beta z)`` and its first two derivatives in ``beta``.

    .. math::

        f(\\beta) = \\sum_i w_i\\left[-\\beta z_{i y_i} + \\log\\sum_k e^{\\beta z_{ik}}\\right],
        \\quad f' = \\sum_i w_i (E_{p_i}[z_i] - z_{i y_i}),
        \\quad f'' = \\sum_i w_i \\operatorname{Var}_{p_i}[z_i] \\ge 0,

    so ``f`` is convex in ``beta``.

    Parameters
    ----------
    logits : ndarray of shape (n, K)
        Logits (``-inf`` allowed except at the true class).
    labels : ndarray of shape (n,)
        Integer labels.
    weights : ndarray of shape (n,)
        Sample weights.
    inverse_temperature : float
        ``beta``.

    Returns
    -------
    nll, d_nll, d2_nll : float
    """
    p, log_norm, z = _tempered(logits, inverse_temperature)
    z_true = z[np.arange(z.shape[0]), labels]
    mean = np.sum(p * z, axis=1)
    var = np.sum(p * (z - mean[:, None]) ** 2, axis=1)
    nll = float(np.dot(weights, log_norm - inverse_temperature * z_true))
    return nll, float(np.dot(weights, mean - z_true)), float(np.dot(weights, var))


def _nll_function(z: np.ndarray, labels: np.ndarray, w: np.ndarray):
    """:func:`temperature_nll`, or its fused numba twin for large inputs."""
    if z.size < FUSED_MIN_LOGITS:
        return temperature_nll
    from bayescal.calibration._temperature_kernel import temperature_nll_fused

    z = np.ascontiguousarray(z, dtype=np.float64)
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    w = np.ascontiguousarray(w, dtype=np.float64)
    return lambda _z, _labels, _w, beta: temperature_nll_fused(z, labels, w, float(beta))


class TemperatureScaling(MultiClassCalibrator):
    """Temperature scaling: multi-class probabilities ``softmax(z / T)``.

    Parameters
    ----------
    input : {"score", "decision"}, default="score"
        What ``scores`` holds: class probabilities (``"score"``, rows in the
        simplex), whose logs ``log max(p, clip)`` are the logits; or logits /
        decision values (``"decision"``, any finite reals) used as they are
        (a 1-D array of binary decision values ``d`` is read as the logits
        ``(-d, d)``, as scikit-learn does).
    clip : float or None, default=1e-12
        Floor of the probabilities before their log (``input="score"``),
        bayescal's one clip rule (:func:`bayescal.clipping.clip_probabilities`):
        a probability below ``clip`` becomes ``clip`` (``n_clipped_`` counts
        them in ``fit``), so a zero probability -- also for the true class, as
        random forests and naive Bayes often give -- is a finite logit
        ``log(clip)`` and the calibrated probabilities are never exactly 0 at
        moderate temperatures. ``None`` is strict: a probability of exactly 0
        raises a ``ValueError``.
    max_iter : int, default=100
        Most safeguarded Newton iterations.

    Attributes
    ----------
    temperature_ : float
        The NLL-optimal temperature ``T > 0`` (``inf`` when the scores carry no
        information about the labels, see Notes).
    n_iter_ : int
        Iterations used.
    n_clipped_ : int
        Probabilities raised to ``clip`` in ``fit`` (0 for ``input="decision"``).
    classes_ : ndarray of shape (K,)
        ``0 .. K-1``.
    n_features_in_ : int
        ``K``.

    Raises
    ------
    ValueError
        Labels outside ``0 .. K-1``, a single class, non-finite logits, rows of
        probabilities not summing to one, or a probability of 0 with
        ``clip=None``.

    Notes
    -----
    With ``beta = 1 / T`` the weighted negative log-likelihood
    ``f(beta) = sum_i w_i [-beta z_{i,y_i} + log sum_k exp(beta z_ik)]`` is
    convex (its second derivative is a weighted sum of variances, see
    :func:`temperature_nll`), so the exact optimum solves ``f'(beta) = 0``;
    it is found by Newton's method safeguarded by bisection inside a bracket.
    If ``f'(0) >= 0`` the optimum is ``beta = 0``: ``temperature_`` is ``inf``
    and every prediction is uniform (a ``UserWarning`` says so). If ``f'`` stays
    negative up to ``beta = 1e12`` (labels perfectly separated by the arg-max)
    the search stops there with a ``ConvergenceWarning``. Sample weights
    multiply each sample's NLL term. Labels are integer classes; fractional
    targets do not apply to this multi-class calibrator.

    On probabilities the logits are ``z_ik = log max(p_ik, clip)``, as
    scikit-learn's ``CalibratedClassifierCV(method="temperature")`` uses
    ``log(p + 1e-12)``; both give the same temperature (to about 1e-10 when
    no probability is below 1e-6). A probability floored at ``clip`` keeps the
    NLL finite; without the floor a true class of probability 0 has infinite
    NLL at every temperature and a zero elsewhere stays an exact 0.

    References
    ----------
    Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On calibration of
    modern neural networks. *ICML*, PMLR 70, 1321-1330.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(300, 3)) * 3
    >>> p = np.exp(z / 2) / np.exp(z / 2).sum(axis=1, keepdims=True)
    >>> y = np.array([rng.choice(3, p=row) for row in p])
    >>> ts = TemperatureScaling().fit(z, y)
    >>> ts.predict_proba(z).shape
    (300, 3)
    """


    _parameter_constraints: dict = {
        "input": input_constraint(*TEMPERATURE_INPUTS),
        "clip": clip_constraint(),
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self, *, input: str = "score", clip: float | None = DEFAULT_CLIP, max_iter: int = 100
    ) -> None:
        self.input = input
        self.clip = clip
        self.max_iter = max_iter

    def _transform_scores(
        self, scores: Any, n_classes: int | None
    ) -> tuple[np.ndarray, int]:
        """``(log-probabilities or logits, n_clipped)``, shape ``(n, K)``."""
        if self.input not in TEMPERATURE_INPUTS:
            validate_params(self)
        if self.input == "decision":
            if np.ndim(scores) == 1:  # binary decision values d: logits (-d, d), as scikit-learn
                d = check_array_1d(scores, "scores")
                scores = np.column_stack([-d, d])
            z = check_matrix(scores, "scores")
            if n_classes is not None and z.shape[1] != n_classes:
                raise ValueError(
                    f"X has {z.shape[1]} features, but TemperatureScaling is expecting "
                    f"{n_classes} features as input (one logit per class it was fitted on)."
                )
            if z.shape[1] < 2:
                raise ValueError(
                    f"`scores` must have at least 2 columns (one per class): {z.shape[1]} "
                    f"feature(s) (shape={z.shape}) while a minimum of 2 is required."
                )
            return z, 0
        try:
            p = check_probability_matrix(scores, "scores", n_classes=n_classes)
        except ValueError as exc:
            raise ValueError(
                f"{exc} TemperatureScaling(input='score') reads class probabilities; for "
                "logits or decision values pass input='decision'."
            ) from None
        p, n_clipped = clip_probabilities(
            p, self.clip, name="scores", owner="TemperatureScaling(input='score')", upper=False
        )
        return np.log(p), n_clipped

    def _fit(self, z: np.ndarray, labels: np.ndarray, w: np.ndarray) -> None:
        """Find the NLL-optimal temperature (``fit``: :class:`MultiClassCalibrator`)."""
        beta, n_iter = self._optimise(z, labels, w)
        self.temperature_ = float(np.inf) if beta == 0.0 else float(1.0 / beta)
        self.n_iter_ = n_iter

    def _optimise(self, z: np.ndarray, labels: np.ndarray, w: np.ndarray) -> tuple[float, int]:
        max_iter = int(self.max_iter)
        temperature_nll = _nll_function(z, labels, w)
        _, g0, _ = temperature_nll(z, labels, w, 0.0)
        if g0 >= 0:
            warnings.warn(
                "the NLL is smallest at infinite temperature: the scores carry no information "
                "about the labels (or point the wrong way); predictions will be uniform.",
                UserWarning,
                stacklevel=4,
            )
            return 0.0, 0
        lo, hi = 0.0, 1.0
        _, g_hi, _ = temperature_nll(z, labels, w, hi)
        while g_hi < 0 and hi < 1e12:
            lo, hi = hi, hi * 10.0
            _, g_hi, _ = temperature_nll(z, labels, w, hi)
        if g_hi < 0:
            warnings.warn(
                "the NLL keeps decreasing as the temperature goes to 0 (the arg-max separates "
                "the labels perfectly); stopping at T = 1e-12.",
                ConvergenceWarning,
                stacklevel=4,
            )
            return hi, 0
        beta = 0.5 * (lo + hi) if lo > 0 else min(1.0, hi)
        for n_iter in range(1, max_iter + 1):
            _, g, h = temperature_nll(z, labels, w, beta)
            if g < 0:
                lo = beta
            else:
                hi = beta
            if abs(g) <= 1e-12 * max(1.0, float(np.sum(w))) or hi - lo <= 1e-15 * hi:
                return beta, n_iter
            newton = beta - g / h if h > 0 else np.nan
            beta = newton if lo < newton < hi else 0.5 * (lo + hi)
        warnings.warn(
            f"temperature search did not converge in {max_iter} iterations.",
            ConvergenceWarning,
            stacklevel=4,
        )
        return beta, max_iter

    def predict_proba(self, scores: Any) -> np.ndarray:
        """Calibrated probabilities ``softmax(z / T)``, shape ``(n, K)``.

        Never exactly 0 or 1: a probability that underflows below machine
        epsilon (``2.2e-16``, at very low temperatures) is raised to it and
        the row's largest entry is ``1`` minus the others.
        """
        return super().predict_proba(scores)

    def _predict_transformed(self, z: np.ndarray) -> np.ndarray:
        beta = 0.0 if np.isinf(self.temperature_) else 1.0 / self.temperature_
        return _open_simplex(tempered_softmax(z, beta))


def _open_simplex(P: np.ndarray) -> np.ndarray:
    """Rows of ``P`` with every entry in ``[eps, 1 - eps]`` (eps: machine epsilon)."""
    eps = np.finfo(float).eps
    low = P < eps
    if not low.any():
        return P
    rows = np.flatnonzero(low.any(axis=1))
    sub = np.maximum(P[rows], eps)
    top = np.argmax(sub, axis=1)
    sub[np.arange(rows.size), top] = 0.0
    sub[np.arange(rows.size), top] = 1.0 - sub.sum(axis=1)
    P[rows] = sub
    return P
