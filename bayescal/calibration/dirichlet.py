"""Dirichlet calibration of multi-class probabilities (Kull et al., NeurIPS 2019).

The map is a multinomial logistic regression on the log-probabilities,

.. math:: \\hat{\\mathbf p} = \\operatorname{softmax}(\\mathbf W \\ln \\mathbf q + \\mathbf b),

the canonical map of a model in which each class's probability vector is
Dirichlet distributed (the paper's Section 3). Softmax is unchanged when the
same row is added to every row of ``[W, b]``. The unpenalised fit fixes the
last row to zero (the reference class), which makes the parameters
identifiable: ``W`` has ``K - 1`` free rows of ``K`` entries and ``b`` ``K -
1`` free entries; ``W = I - 1 e_K^T`` (the identity map, shifted to a zero
last row) and ``b = 0`` leave ``q`` unchanged and are the starting point of
the fit. A penalised fit is found over the full ``K x K`` matrix and ``K``
intercepts, as the paper writes it (starting from ``W = I``, ``b = 0``): the
penalty then picks, among the parametrisations of one map, the one it
penalises least (see "Variants and regularisation").

Variants and regularisation
---------------------------
* ``matrix="full"``: all ``K (K - 1)`` weights; ``matrix="diagonal"``: ``W =
  diag(a)`` (``K`` weights, "vector scaling" on the log-probabilities).
* ``penalty="odir"`` (Off-Diagonal and Intercept Regularisation, the paper's
  Eq. 6 without its normalising constants): ``lambda * sum_{i != j} w_ij^2 +
  mu * sum_j b_j^2``. ``penalty="l2"``: ``lambda * sum_ij w_ij^2 + mu *
  sum_j b_j^2`` (``dirichletcal``'s ``reg_lambda`` is this with ``mu =
  lambda``). Penalties act on the full ``K x K`` matrix and ``K`` intercepts
  of the paper, so that ODIR shrinks towards vector scaling (a diagonal
  ``W``, the identity map included) and neither penalty depends on the order
  of the classes. ``dirichletcal`` (``ref_row=True``, its default) penalises
  the parameters after subtracting the last row; its ODIR then penalises the
  identity map itself (whose shifted rows have ``-1`` in the last column) and
  shrinks towards a map that ignores the last class's log-probability, and
  the fit changes when the classes are listed in another order (by up to 0.36
  in probability on 300 rows with ``lambda = mu = 1``; see the tests).
  ``dirichletcal`` with ``ref_row=False`` fits the paper's form and agrees
  with this one (the tests, to 1e-6).

The objective, the weighted mean negative log-likelihood plus the penalty, is
convex; it is minimised by L-BFGS (:func:`scipy.optimize.minimize`) with its
analytic gradient (:func:`dirichlet_objective`).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_softmax, softmax
from sklearn.exceptions import ConvergenceWarning

from bayescal._compat.param_validation import Interval, StrOptions
from bayescal.calibration.base import MultiClassCalibrator
from bayescal.clipping import DEFAULT_CLIP, clip_constraint, clip_probabilities
from bayescal.contracts import input_constraint
from bayescal.threads import limit_blas_threads
from bayescal.validation import (
    check_array_1d,
    check_matrix,
    check_probability_matrix,
)

#: Values accepted by ``input`` (see :data:`bayescal.contracts.SCORE_INPUTS`).
DIRICHLET_INPUTS = ("score", "decision")

#: Penalty strengths searched by ``reg_lambda="cv"`` / ``reg_mu="cv"`` (0: unpenalised).
DIRICHLET_REG_GRID = (0.0, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)

#: Folds of that search (class-stratified, fixed seed).
DIRICHLET_CV_FOLDS = 3

__all__ = [
    "DIRICHLET_CV_FOLDS",
    "DIRICHLET_REG_GRID",
    "DirichletCalibrator",
    "dirichlet_log_probabilities",
    "dirichlet_logits",
    "dirichlet_objective",
    "identity_parameters",
]


def identity_parameters(
    n_classes: int, matrix: str = "full", reference_row: bool = True
) -> np.ndarray:
    """The flat parameter vector of the identity map.

    Parameters
    ----------
    n_classes : int
        ``K``.
    matrix : {"full", "diagonal"}, default="full"
    reference_row : bool, default=True
        True: the identifiable parametrisation with the last row of ``[W, b]``
        fixed to zero (``W = I - 1 e_K^T``, ``b = 0``); False: the paper's
        full ``K x K`` matrix and ``K`` intercepts (``W = I``, ``b = 0``),
        used by penalised fits.

    Returns
    -------
    ndarray
        Full: the free rows of ``W`` row-major, then the free intercepts;
        diagonal: ``a`` (``K``) then the free intercepts. With a reference
        row there are ``K - 1`` free rows and intercepts, without one ``K``.
    """
    k = n_classes
    n_intercepts = k - 1 if reference_row else k
    if matrix == "diagonal":
        return np.concatenate([np.ones(k), np.zeros(n_intercepts)])
    if not reference_row:
        return np.concatenate([np.eye(k).ravel(), np.zeros(k)])
    W = np.eye(k)[:-1].copy()
    W[:, -1] = -1.0
    return np.concatenate([W.ravel(), np.zeros(k - 1)])


def _free_rows(theta: np.ndarray, k: int, matrix: str) -> int:
    """Free rows of ``[W, b]`` in ``theta``: ``K - 1`` (a reference row) or ``K``."""
    size = theta.shape[0]
    rows = size - k if matrix == "diagonal" else size // (k + 1)
    if rows not in (k - 1, k) or (matrix != "diagonal" and rows * (k + 1) != size):
        raise ValueError(
            f"`theta` has {size} entries, which is no parametrisation of a {matrix} "
            f"Dirichlet map of {k} classes; build it with identity_parameters({k}, {matrix!r})."
        )
    return rows


def _unpack(theta: np.ndarray, k: int, matrix: str) -> tuple[np.ndarray, np.ndarray]:
    """``(W, b)``: ``W`` of shape (K, K), ``b`` of shape (K,) (a reference row: zero last row)."""
    rows = _free_rows(theta, k, matrix)
    b = np.zeros(k)
    b[:rows] = theta[-rows:]
    if matrix == "diagonal":
        return np.diag(theta[:k]), b
    W = np.zeros((k, k))
    W[:rows] = theta[: rows * k].reshape(rows, k)
    return W, b


def dirichlet_logits(log_q: np.ndarray, theta: np.ndarray, matrix: str = "full") -> np.ndarray:
    """Linear predictor ``ln q W^T + b`` of the Dirichlet map, shape ``(n, K)``.

    Parameters
    ----------
    log_q : ndarray of shape (n, K)
        Log-probabilities.
    theta : ndarray
        Flat parameters, with or without a reference row (see
        :func:`identity_parameters`).
    matrix : {"full", "diagonal"}, default="full"

    Returns
    -------
    ndarray of shape (n, K)
        Its softmax is the calibrated probability.
    """
    k = log_q.shape[1]
    W, b = _unpack(theta, k, matrix)
    if matrix == "diagonal":
        return log_q * np.diag(W) + b
    return log_q @ W.T + b


def dirichlet_log_probabilities(
    scores: Any,
    input: str,
    clip: float | None,
    n_classes: int | None = None,
    owner: str = "DirichletCalibrator",
) -> tuple[np.ndarray, int]:
    """Validated log-probabilities ``ln q`` of a Dirichlet map's input.

    Parameters
    ----------
    scores : array-like of shape (n, K) or (n,)
        Probabilities (rows in the simplex; 1-D: the class-1 probability of a
        binary problem) or, with ``input="decision"``, logits / decision values
        (1-D: binary decision values ``d``, read as logits ``(-d, d)`` as
        scikit-learn and :class:`TemperatureScaling` do).
    input : {"score", "decision"}
        Which of the two ``scores`` holds; logits are log-softmaxed.
    clip : float or None
        bayescal's clip rule (:func:`bayescal.clipping.clip_probabilities`,
        floor only): probabilities below ``clip`` are raised to it before the
        log; ``None`` raises on a probability of exactly 0.
    n_classes : int, optional
        Required number of columns (the ``K`` of ``fit``).
    owner : str, default="DirichletCalibrator"
        Estimator name for messages.

    Returns
    -------
    log_q : ndarray of shape (n, K)
    n_clipped : int
        Entries raised to ``clip``.

    Raises
    ------
    ValueError
        NaN/inf, rows not summing to one, a zero probability with
        ``clip=None``, a column count other than ``n_classes``.
    """
    if input == "decision":
        if np.ndim(scores) == 1:
            d = check_array_1d(scores, "scores")
            scores = np.column_stack([-d, d])
        z = check_matrix(scores, "scores")
        if n_classes is not None and z.shape[1] != n_classes:
            raise ValueError(
                f"X has {z.shape[1]} features, but {owner} is expecting {n_classes} features "
                "as input: `scores` needs one logit per class it was fitted on, in that order."
            )
        if z.shape[1] < 2:
            raise ValueError(
                f"`scores` must have at least 2 columns (one per class): {z.shape[1]} "
                f"feature(s) (shape={z.shape}) while a minimum of 2 is required."
            )
        return log_softmax(z, axis=1), 0
    try:
        q = check_probability_matrix(scores, "scores", n_classes=n_classes)
    except ValueError as exc:
        raise ValueError(
            f"{exc} {owner}(input='score') reads class probabilities; for logits or "
            "decision values pass input='decision'."
        ) from None
    q, n_clipped = clip_probabilities(
        q, clip, name="scores", owner=f"{owner}(input='score')", upper=False
    )
    return np.log(q), n_clipped


def _class_folds(labels: np.ndarray, n_folds: int) -> np.ndarray:
    """Fold of each row: within each class the rows, shuffled with a fixed seed, are
    dealt to the folds in turn (continuing across classes), so every fold gets a share
    of every class that has at least ``n_folds`` rows."""
    rng = np.random.default_rng(0)
    folds = np.empty(labels.shape[0], dtype=int)
    offset = 0
    for c in np.unique(labels):
        idx = rng.permutation(np.flatnonzero(labels == c))
        folds[idx] = (offset + np.arange(idx.size)) % n_folds
        offset += idx.size
    return folds


def dirichlet_objective(
    theta: np.ndarray,
    log_q: np.ndarray,
    labels: np.ndarray,
    weights: np.ndarray,
    matrix: str = "full",
    penalty: str = "odir",
    reg_lambda: float = 0.0,
    reg_mu: float = 0.0,
) -> tuple[float, np.ndarray]:
    """Penalised weighted mean NLL of the Dirichlet map and its gradient.

    .. math::

        f(\\theta) = \\frac{\\sum_i w_i\\,[\\operatorname{lse}(z_i) - z_{i y_i}]}{\\sum_i w_i}
                     + \\lambda \\sum_{(i,j) \\in \\mathcal P} w_{ij}^2
                     + \\mu \\sum_j b_j^2, \\qquad z_i = W \\ln q_i + b,

    with ``P`` the off-diagonal entries (``"odir"``) or all entries
    (``"l2"``) of the free rows of ``W`` and ``b`` the free intercepts: all
    ``K`` rows in the paper's parametrisation (``theta`` without a reference
    row), the first ``K - 1`` with one. With ``G = (softmax(z) - onehot(y))
    * w / sum(w)``, the gradient is ``G^T ln q`` for ``W`` and ``sum_i G_i``
    for ``b`` (restricted to the free entries), plus the penalty's.

    Parameters
    ----------
    theta : ndarray
        Flat parameters, with or without a reference row (see
        :func:`identity_parameters`).
    log_q : ndarray of shape (n, K)
    labels : ndarray of shape (n,)
        Integer classes ``0..K-1``.
    weights : ndarray of shape (n,)
    matrix, penalty : str
    reg_lambda, reg_mu : float

    Returns
    -------
    value : float
    gradient : ndarray of the shape of ``theta``
    """
    n, k = log_q.shape
    rows_free = _free_rows(theta, k, matrix)
    z = dirichlet_logits(log_q, theta, matrix)
    lse = np.logaddexp.reduce(z, axis=1)
    rows = np.arange(n)
    scale = weights / weights.sum()
    value = float(np.dot(scale, lse - z[rows, labels]))
    G = np.exp(z - lse[:, None])
    G[rows, labels] -= 1.0
    G *= scale[:, None]
    grad = np.empty_like(theta)
    if matrix == "diagonal":
        grad[:k] = np.einsum("ij,ij->j", G, log_q)
        grad[k:] = G[:, :rows_free].sum(axis=0)
        if penalty == "l2":
            value += reg_lambda * float(theta[:k] @ theta[:k])
            grad[:k] += 2.0 * reg_lambda * theta[:k]
    else:
        m = k * rows_free
        grad[:m] = (G[:, :rows_free].T @ log_q).ravel()
        grad[m:] = G[:, :rows_free].sum(axis=0)
        w = theta[:m].reshape(rows_free, k)
        mask = np.ones((rows_free, k))
        if penalty == "odir":
            mask[np.arange(rows_free), np.arange(rows_free)] = 0.0
        value += reg_lambda * float(np.sum(mask * w * w))
        grad[:m] += (2.0 * reg_lambda * mask * w).ravel()
    b = theta[-rows_free:]
    value += reg_mu * float(b @ b)
    grad[-rows_free:] += 2.0 * reg_mu * b
    return value, grad


class DirichletCalibrator(MultiClassCalibrator):
    """Dirichlet calibration: ``softmax(W ln q + b)`` (Kull et al. 2019).

    Parameters
    ----------
    matrix : {"full", "diagonal"}, default="full"
        Full ``K x K`` weight matrix or a diagonal one.
    penalty : {"odir", "l2"}, default="odir"
        ``"odir"``: ``reg_lambda`` on the off-diagonal weights and ``reg_mu``
        on the intercepts (the paper's ODIR). ``"l2"``: ``reg_lambda`` on all
        weights, ``reg_mu`` on the intercepts.
    reg_lambda, reg_mu : float or "cv", default="cv"
        Penalty strengths (>= 0); both 0 is the maximum-likelihood fit. A
        penalised fit is found over the paper's full ``K x K`` matrix and
        ``K`` intercepts (see the module's "Variants and regularisation"), so
        it does not depend on the order of the classes. ``"cv"`` (the
        default, as the paper tunes them): chosen from
        :data:`DIRICHLET_REG_GRID` (0 included) by the weighted log loss of
        :data:`DIRICHLET_CV_FOLDS`-fold cross-validation on the calibration
        set (class-stratified folds, a fixed seed); when both are ``"cv"``
        they are tied, ``reg_lambda = reg_mu``. See Notes.
    input : {"score", "decision"}, default="score"
        What ``scores`` holds (bayescal's one ``input`` vocabulary): class
        probabilities (rows in the simplex; a 1-D array is the class-1
        probability of a binary problem) or logits / decision values, whose
        log-softmax is used (1-D: binary decision values ``d`` as logits
        ``(-d, d)``).
    clip : float or None, default=1e-12
        bayescal's one clip rule (:func:`bayescal.clipping.clip_probabilities`,
        as :class:`TemperatureScaling`): probabilities below ``clip`` are raised
        to it before the log (without renormalising; ``dirichletcal`` does the
        same at the smallest positive float), counted in ``n_clipped_``.
        ``None``: a probability of exactly 0 raises a ``ValueError``.
    max_iter : int, default=1000
        Most L-BFGS iterations.
    tol : float, default=1e-10
        L-BFGS's projected-gradient tolerance.

    Attributes
    ----------
    coef_ : ndarray of shape (K, K)
        ``W`` (full: last row zero, the fitted matrix minus its last row, the
        same map; diagonal: ``diag(a)``).
    intercept_ : ndarray of shape (K,)
        ``b`` minus its last entry (last entry zero).
    reg_lambda_, reg_mu_ : float
        The penalty strengths used (chosen by cross-validation for ``"cv"``).
    cv_log_loss_ : ndarray or None
        Cross-validated log loss of each grid value (None without ``"cv"``).
    theta_ : ndarray
        The fitted flat parameters (:func:`identity_parameters`: with a
        reference row when unpenalised, the paper's full set when penalised).
    n_iter_ : int
        L-BFGS iterations used.
    n_clipped_ : int
        Probabilities raised to ``clip`` in ``fit`` (0 for ``input="decision"``).
    classes_ : ndarray of shape (K,)
        ``0 .. K-1``.
    n_features_in_ : int
        ``K``.

    Raises
    ------
    ValueError
        Labels outside ``0..K-1`` or a single class; NaN, rows not summing to
        one, a zero probability with ``clip=None``; a different number of
        classes in ``predict_proba`` than in ``fit``.

    Notes
    -----
    Minimises :func:`dirichlet_objective` (the weighted mean log loss plus the
    penalty; sample weights multiply each sample's term) from the identity
    map. For ``K = 2`` the full map is ``sigma(a ln s - b ln(1 - s) + c)``,
    i.e. beta calibration (Kull et al. 2017) without its ``a, b >= 0``
    constraint. The paper's penalty divides ``lambda`` by ``K (K - 1)`` and
    ``mu`` by ``K``; here (as in ``dirichletcal`` by default) it does not.

    **Small calibration sets.** The maximum-likelihood map exists only when no
    direction of the parameters separates the classes; on calibration sets of
    a few hundred rows, with probabilities that are exactly 0 for some classes
    (random forests, naive Bayes), that fails often: on the issue-27 sweep
    (ecoli, seeds, wine, iris; naive Bayes, random forest and logistic
    regression; 3 folds of at most 336 rows) a linear program found such a
    direction in 23 of 36 calibration sets, and the unpenalised map's
    cross-validated log loss was infinite in 13. The weights then grow until
    the optimiser stops, and the probabilities of scores unlike the
    calibration scores depend on where it stopped and on ``clip``: a test row
    ``q = (0.9, 0.1, 0)`` of iris (random forest, 100 calibration rows) got
    probability 9e-14 for its class, and that fold's Brier score was 0.049 to
    0.089 depending on the optimiser's tolerance and on ``clip`` (1e-16 or
    2.2e-16). Kull et al. regularise and tune the penalty by cross-validation;
    the default ``"cv"`` does so (the grid includes 0, which wins where the
    data support it; it costs 21 extra fits, 0.3 s on those sets). On that
    sweep its Brier score, pooled over the folds, was at most 0.004 above
    scikit-learn's unpenalised multinomial regression on the log-probabilities
    and 0.007 below it on average (the unpenalised map: up to 0.014 above);
    single folds ranged from 0.045 below to 0.038 above.

    References
    ----------
    Kull, M., Perello-Nieto, M., Kängsepp, M., Silva Filho, T., Song, H. &
    Flach, P. (2019). Beyond temperature scaling: obtaining well-calibrated
    multi-class probabilities with Dirichlet calibration. *NeurIPS* 32.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> q = rng.dirichlet(np.ones(3), size=500)
    >>> y = np.array([rng.choice(3, p=p ** 2 / (p ** 2).sum()) for p in q])
    >>> cal = DirichletCalibrator(reg_lambda=1e-3, reg_mu=1e-3).fit(q, y)
    >>> cal.predict_proba(q[:2]).sum(axis=1).round(12).tolist()
    [1.0, 1.0]
    """

    _parameter_constraints: dict = {
        "matrix": [StrOptions({"full", "diagonal"})],
        "penalty": [StrOptions({"odir", "l2"})],
        "reg_lambda": [Interval(Real, 0, None, closed="left"), StrOptions({"cv"})],
        "reg_mu": [Interval(Real, 0, None, closed="left"), StrOptions({"cv"})],
        "input": input_constraint(*DIRICHLET_INPUTS),
        "clip": clip_constraint(),
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        matrix: str = "full",
        penalty: str = "odir",
        reg_lambda: float | str = "cv",
        reg_mu: float | str = "cv",
        input: str = "score",
        clip: float | None = DEFAULT_CLIP,
        max_iter: int = 1000,
        tol: float = 1e-10,
    ) -> None:
        self.matrix = matrix
        self.penalty = penalty
        self.reg_lambda = reg_lambda
        self.reg_mu = reg_mu
        self.input = input
        self.clip = clip
        self.max_iter = max_iter
        self.tol = tol

    def _transform_scores(
        self, scores: Any, n_classes: int | None
    ) -> tuple[np.ndarray, int]:
        """``(ln q, n_clipped)``, shape ``(n, K)`` (:func:`dirichlet_log_probabilities`)."""
        return dirichlet_log_probabilities(scores, self.input, self.clip, n_classes)

    def _minimise(
        self, log_q: np.ndarray, labels: np.ndarray, w: np.ndarray, lam: float, mu: float
    ) -> Any:
        """L-BFGS on :func:`dirichlet_objective` from the identity map."""
        k = log_q.shape[1]
        theta0 = identity_parameters(k, self.matrix, reference_row=lam == mu == 0.0)
        with limit_blas_threads(1):  # L-BFGS-B's tiny BLAS calls only lose with threads
            return minimize(
                dirichlet_objective,
                theta0,
                args=(log_q, labels, w, self.matrix, self.penalty, lam, mu),
                jac=True,
                method="L-BFGS-B",
                options={"maxiter": self.max_iter, "gtol": self.tol, "ftol": 1e-15,
                         "maxcor": 20},
            )

    def _cross_validated_log_loss(
        self, log_q: np.ndarray, labels: np.ndarray, w: np.ndarray, lam: float, mu: float
    ) -> float:
        """Weighted held-out log loss over :data:`DIRICHLET_CV_FOLDS` class-stratified folds."""
        folds = _class_folds(labels, DIRICHLET_CV_FOLDS)
        total = 0.0
        for fold in range(DIRICHLET_CV_FOLDS):
            held_out = folds == fold
            if not held_out.any() or held_out.all():
                continue
            train = ~held_out
            res = self._minimise(log_q[train], labels[train], w[train], lam, mu)
            z = dirichlet_logits(log_q[held_out], res.x, self.matrix)
            rows = np.arange(z.shape[0])
            nll = log_softmax(z, axis=1)[rows, labels[held_out]]
            total -= float(np.dot(w[held_out], nll))
        return total / float(np.sum(w))

    def _fit(self, log_q: np.ndarray, labels: np.ndarray, w: np.ndarray) -> None:
        """Penalised maximum likelihood (``fit``: :class:`MultiClassCalibrator`)."""
        k = log_q.shape[1]
        lam_cv, mu_cv = self.reg_lambda == "cv", self.reg_mu == "cv"
        if lam_cv or mu_cv:
            candidates = [
                (g if lam_cv else float(self.reg_lambda), g if mu_cv else float(self.reg_mu))
                for g in DIRICHLET_REG_GRID
            ]
            losses = np.array([
                self._cross_validated_log_loss(log_q, labels, w, lam, mu)
                for lam, mu in candidates
            ])
            lam, mu = candidates[int(np.argmin(losses))]  # ties: the weaker penalty
            self.cv_log_loss_ = losses
        else:
            lam, mu = float(self.reg_lambda), float(self.reg_mu)
            self.cv_log_loss_ = None
        self.reg_lambda_, self.reg_mu_ = float(lam), float(mu)
        res = self._minimise(log_q, labels, w, self.reg_lambda_, self.reg_mu_)
        if not res.success and res.nit >= self.max_iter:
            warnings.warn(
                f"DirichletCalibrator: L-BFGS stopped after {res.nit} iterations without "
                f"converging ({res.message}); increase max_iter or add regularisation "
                "(reg_lambda, reg_mu).",
                ConvergenceWarning,
                stacklevel=3,
            )
        W, b = _unpack(res.x, k, self.matrix)
        # the same map with the last row of [W, b] subtracted (diagonal: W as fitted)
        self.coef_ = W if self.matrix == "diagonal" else W - W[-1]
        self.intercept_ = b - b[-1]
        self.theta_ = res.x
        self.n_iter_ = int(res.nit)

    def _predict_transformed(self, log_q: np.ndarray) -> np.ndarray:
        """Calibrated probabilities ``softmax(W ln q + b)``, shape ``(n, K)``."""
        return softmax(log_q @ self.coef_.T + self.intercept_, axis=1)
