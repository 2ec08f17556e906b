"""Boundary uncertainty of a trained classifier ("Proposal 2").

Ha et al. (2021) §4: a classifier status is scored by how
uncertain the true class posteriors are *on its own decision boundary* — at the
Bayes boundary the two top classes are equally likely, so an optimal boundary
has maximal local uncertainty. The estimate needs neither resampling nor a
held-out set; its candidate-independent part (neighbour clusters, the perturbed
training set, the prototype classifier) is computed once and shared by every
candidate, so scoring a candidate costs about one pass of its decision
function.

No library implements it; it is written here by hand in NumPy, vectorised over
the ``(N, M)`` arrays of neighbour clusters as §5.1.2 of the paper suggests.

The steps, with the paper's equation numbers:

1. near-boundary-ness ``f_kl(x) = g_k(x) − g_l(x)`` (Eq. 12) from the
   classifier's discriminant functions ``g`` (``decision_function``, else
   ``predict_proba``), evaluated at a perturbed copy of the training set
   (§4.2.2, Algorithm 1) to limit the covariate shift of ``f`` on training
   points;
2. for every training point ``x`` its cluster ``N^M(x)`` of ``M`` nearest
   training points (Eq. 26), projected on ``f_{i(x) j(x)}`` where ``i, j``
   are the classifier's two top classes at ``x``;
3. Parzen counts of each of the two classes around ``f = 0`` (Eqs. 27–28)
   with Silverman's bandwidth (Eq. 32);
4. the triangle local uncertainty ``1 − |2 P̂ − 1|`` (Eqs. 37–38) weighted by
   the counts (Eqs. 29–31);
5. the true top-two class pairs estimated by a prototype classifier from
   class-wise K-means with the number of prototypes chosen by AIC
   (Eqs. 33–35, Appendix), and the separability cases (Eqs. 39–40).

Choices the text leaves open, made here and documented:

* Algorithm 1 is a figure absent from the text: the perturbation is
  ``x̃ = x + r_x ‖x − x⁽¹⁾‖`` (the form of §4.5) with ``r_x`` uniform on
  ``[−1, 1]^d`` -- "uniform across the features" (§4.2.2): every feature
  moves by up to the point's nearest-neighbour distance. It is drawn once, in
  standardised feature space (§6.3), from ``random_state``. (An earlier
  version divided ``r_x`` by ``√d``, a factor the paper does not have; it left
  more of the covariate shift of §4.2.2 -- see notebook 10.)
* The Parzen kernel has compact support (default Epanechnikov), so that
  training points far from the boundary get weight exactly zero, as the
  paper's Fig. 14 shows ("only strictly positive probability weights
  appear"), and the separable cases of Eq. 39 (``w_kl = 0``) can occur.
* Silverman's rule is the usual ``0.9 min(σ̂, IQR/1.34) M^{−1/5}``, taken
  literally: where it gives ``h_x = 0`` (a cluster whose middle half of ``f``
  values coincide, as for an extremely narrow RBF kernel whose decision
  function is constant away from the training points) the counts are zero
  (§4.4.2). Falling back to σ̂ there was tried and makes such overfitted
  boundaries look uncertain, i.e. good.
* The boundary-wise cost (Eq. 36) follows Eq. 18: the local uncertainty
  counts when the classifier's top pair at ``x`` equals the estimated true
  pair, else ``U_min = 0``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.cluster import KMeans
from sklearn.metrics import pairwise_distances
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from bayescal._compat.param_validation import Interval, StrOptions, validate_params
from bayescal.validation import check_classification_data

__all__ = [
    "BoundaryUncertaintyEstimator",
    "boundary_uncertainty",
    "kmeans_aic",
    "parzen_counts",
    "silverman_bandwidth",
    "triangle_uncertainty",
]

_KERNELS = ("epanechnikov", "uniform", "gaussian")


def silverman_bandwidth(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """Silverman's rule-of-thumb bandwidth along ``axis`` (Ha et al. 2021 Eq. 32).

    ``h = 0.9 min(σ̂, IQR/1.34) n^{−1/5}``, with σ̂ the sample standard
    deviation (``ddof=1``); zero where the IQR is zero.

    Examples
    --------
    >>> import numpy as np
    >>> round(float(silverman_bandwidth(np.arange(10.0))), 4)
    1.7193
    """
    values = np.asarray(values, dtype=float)
    n = values.shape[axis]
    sigma = values.std(axis=axis, ddof=1)
    q75, q25 = np.percentile(values, [75, 25], axis=axis)
    iqr = (q75 - q25) / 1.34
    return 0.9 * np.minimum(sigma, iqr) * n ** (-0.2)


def _kernel(u: np.ndarray, kind: str) -> np.ndarray:
    if kind == "epanechnikov":
        return np.clip(1.0 - u * u, 0.0, None)
    if kind == "uniform":
        return (np.abs(u) <= 1.0).astype(float)
    return np.exp(-0.5 * u * u)


def parzen_counts(
    f: np.ndarray, labels: np.ndarray, classes: np.ndarray, *, kernel: str = "epanechnikov"
) -> np.ndarray:
    """Parzen counts at ``f = 0`` of each of ``classes`` (Ha et al. 2021 Eq. 27).

    Parameters
    ----------
    f : ndarray of shape (N, M)
        Near-boundary-ness of the ``M`` members of each of ``N`` clusters.
    labels : ndarray of shape (N, M)
        Class code of each member.
    classes : ndarray of shape (N, C)
        For each cluster, the ``C`` class codes to count.
    kernel : {"epanechnikov", "uniform", "gaussian"}
        Kernel ``φ`` with ``φ(0) = 1``.

    Returns
    -------
    ndarray of shape (N, C)
        ``Σ_{x' : y(x') = m} φ((0 − f(x')) / h_x)`` with ``h_x`` from
        :func:`silverman_bandwidth` over the cluster; zero where ``h_x = 0``.
    """
    h = silverman_bandwidth(f, axis=1)
    safe_h = np.where(h > 0, h, 1.0)
    weights = _kernel(-f / safe_h[:, None], kernel)
    weights[h <= 0] = 0.0
    return np.stack(
        [(weights * (labels == classes[:, [c]])).sum(axis=1) for c in range(classes.shape[1])],
        axis=1,
    )


def triangle_uncertainty(p: np.ndarray) -> np.ndarray:
    """Triangle local uncertainty ``1 − |2p − 1|`` (Ha et al. 2021 Eq. 37)."""
    return 1.0 - np.abs(2.0 * np.asarray(p, dtype=float) - 1.0)


def kmeans_aic(
    X: np.ndarray, candidates: Any, *, random_state: Any = None
) -> tuple[np.ndarray, int, dict[int, float]]:
    """Prototypes of one class by K-means, with K chosen by AIC.

    K-means is the classification-EM algorithm of a Gaussian mixture with
    equal weights ``1/K`` and a common isotropic variance ``σ²`` (Celeux &
    Govaert 1992), whose classification log-likelihood at the K-means solution
    is ``−(n d / 2)(log(2π σ̂²) + 1) − n log K`` with ``σ̂² = SSE / (n d)``. With
    ``K d + 1`` free parameters, ``AIC = −2 log L + 2 (K d + 1)``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The samples of one class.
    candidates : iterable of int
        Numbers of prototypes to try (values above ``n`` are skipped).
    random_state : int, RandomState or None

    Returns
    -------
    prototypes : ndarray of shape (K, d)
    K : int
    aic : dict
        AIC of every candidate tried.
    """
    n, d = X.shape
    rng = check_random_state(random_state)
    best, aic = None, {}
    for k in sorted({int(c) for c in candidates}):
        if k < 1 or k > n:
            continue
        km = KMeans(n_clusters=k, n_init=3, random_state=rng.randint(2**31 - 1)).fit(X)
        sigma2 = max(km.inertia_ / (n * d), np.finfo(float).tiny)
        loglik = -0.5 * n * d * (np.log(2 * np.pi * sigma2) + 1.0) - n * np.log(k)
        aic[k] = -2.0 * loglik + 2.0 * (k * d + 1)
        if best is None or aic[k] < aic[best[1]]:
            best = (km.cluster_centers_, k)
    if best is None:
        raise ValueError(f"no candidate number of prototypes fits a class of {n} samples.")
    return best[0], best[1], aic


def _discriminants(estimator: Any, X: np.ndarray) -> np.ndarray:
    """Discriminant functions ``g`` as an ``(n, J)`` array."""
    n_classes = len(estimator.classes_)
    if hasattr(estimator, "decision_function"):
        g = np.asarray(estimator.decision_function(X), dtype=float)
        if g.ndim == 1 and n_classes == 2:
            return np.column_stack([-0.5 * g, 0.5 * g])
        if g.ndim == 2 and g.shape[1] == n_classes:
            return g
    if hasattr(estimator, "predict_proba"):
        return np.asarray(estimator.predict_proba(X), dtype=float)
    raise TypeError(
        f"`estimator` {type(estimator).__name__} has neither a per-class decision_function "
        "nor predict_proba; boundary uncertainty needs discriminant functions."
    )


@dataclass
class BoundaryUncertaintyResult:
    """Details of one boundary-uncertainty estimate.

    Attributes
    ----------
    value : float
        ``Û⁽³⁾`` (Eq. 40), in [0, 1].
    pairs : list of tuple
        Estimated true top-two class pairs (class labels).
    pair_weights : ndarray
        ``P̂(C_kl)`` of each pair (Eq. 34).
    pair_uncertainty : ndarray
        ``Û⁽³⁾_kl`` of each pair (Eq. 39).
    pair_case : list of str
        ``"counts"`` (Eq. 31), ``"separable_correct"`` (``w_kl = 0``, no
        error: ``U_max``) or ``"separable_wrong"`` (``w_kl = 0`` with errors:
        ``U_min``).
    sample_weights : ndarray
        ``k̂(x)`` of each training point (Eq. 28).
    local_uncertainty : ndarray
        Local uncertainty of each training point after Eq. 36.
    """

    value: float
    pairs: list
    pair_weights: np.ndarray
    pair_uncertainty: np.ndarray
    pair_case: list = field(default_factory=list)
    sample_weights: np.ndarray = field(default_factory=lambda: np.empty(0))
    local_uncertainty: np.ndarray = field(default_factory=lambda: np.empty(0))

    def as_dict(self) -> dict[str, Any]:
        """Plain-dict view (what ``return_details=True`` returns)."""
        return {
            "value": self.value,
            "pairs": self.pairs,
            "pair_weights": self.pair_weights,
            "pair_uncertainty": self.pair_uncertainty,
            "pair_case": self.pair_case,
            "sample_weights": self.sample_weights,
            "local_uncertainty": self.local_uncertainty,
        }


class BoundaryUncertaintyEstimator(BaseEstimator):
    """Boundary uncertainty of trained classifiers on one data set.

    ``fit(X, y)`` computes the candidate-independent part once: standardised
    features, the ``M``-nearest-neighbour clusters, the perturbed set and the
    prototype classifier with its top-two class pairs. ``score(estimator)``
    then scores any classifier fitted on the same classes.

    Parameters
    ----------
    n_neighbors : int, default=40
        ``M``, the size of each cluster (the point and its ``M − 1`` nearest
        neighbours; the paper uses 40).
    n_prototypes : "aic" or int, default="aic"
        Prototypes per class: chosen by AIC from ``prototype_candidates``, or
        fixed.
    prototype_candidates : sequence of int, default=range(1, 41, 2)
        Candidate numbers of prototypes for AIC (the paper's [1, 40] step 2).
    perturb : bool, default=True
        Evaluate ``f`` at the perturbed training set (Algorithm 1). ``False``
        evaluates it at the training points (the paper's Fig. 11 shows this
        favours overfitted boundaries).
    perturbation_scale : float, default=1.0
        Multiplies ``r_x`` of Algorithm 1 (1 is the paper's amplitude, the
        nearest-neighbour distance per feature); for ablations.
    kernel : {"epanechnikov", "uniform", "gaussian"}, default="epanechnikov"
        Parzen kernel (compact support keeps the separable cases reachable).
    random_state : int, RandomState or None
        Seeds the perturbation and K-means.

    Attributes
    ----------
    classes_ : ndarray
    neighbors_ : ndarray of shape (N, M)
        Indices of each cluster's members (the point itself first).
    X_perturbed_ : ndarray of shape (N, d)
        The perturbed training set in the original feature scale.
    true_pairs_ : ndarray of shape (N, 2)
        Estimated true top-two class codes of each point (sorted).
    n_prototypes_ : ndarray
        Prototypes per class (zeros for two classes, where the true top pair
        is known without them).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of ``X`` when fit was given a DataFrame (only then).

    References
    ----------
    Ha, D., Katagiri, S., Watanabe, H. & Ohsaki, M. (2021). An improved boundary
    uncertainty-based estimation for classifier evaluation. *Journal of Signal
    Processing Systems* (Proposal 2).
    """

    _parameter_constraints: dict = {
        "n_neighbors": [Interval(Integral, 2, None, closed="left")],
        "n_prototypes": [StrOptions({"aic"}), Interval(Integral, 1, None, closed="left")],
        "prototype_candidates": ["array-like"],
        "perturb": ["boolean"],
        "perturbation_scale": [Interval(Real, 0, None, closed="neither")],
        "kernel": [StrOptions(set(_KERNELS))],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        n_neighbors: int = 40,
        n_prototypes: Any = "aic",
        prototype_candidates: Any = tuple(range(1, 41, 2)),
        perturb: bool = True,
        perturbation_scale: float = 1.0,
        kernel: str = "epanechnikov",
        random_state: Any = None,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.n_prototypes = n_prototypes
        self.prototype_candidates = prototype_candidates
        self.perturb = perturb
        self.perturbation_scale = perturbation_scale
        self.kernel = kernel
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> BoundaryUncertaintyEstimator:
        """Compute clusters, the perturbed set and the true-pair estimate."""
        validate_params(self)
        X, self.classes_, codes = check_classification_data(
            self, X, y, min_samples=self.n_neighbors
        )
        rng = check_random_state(self.random_state)
        n, d = X.shape
        scaler = StandardScaler().fit(X)
        Z = scaler.transform(X)
        nn = NearestNeighbors(n_neighbors=self.n_neighbors).fit(Z)
        distances, neighbors = nn.kneighbors(Z)
        # kneighbors on the training set puts each point first (distance 0),
        # except among exact duplicates; force the point itself into slot 0.
        own = np.arange(n)
        has_self = (neighbors == own[:, None]).any(axis=1)
        neighbors[~has_self, -1] = own[~has_self]
        order = np.argsort(neighbors != own[:, None], axis=1, kind="stable")
        self.neighbors_ = np.take_along_axis(neighbors, order, axis=1)
        nearest = np.take_along_axis(distances, order, axis=1)[:, 1]
        step = self.perturbation_scale * rng.uniform(-1.0, 1.0, size=(n, d))
        self.X_perturbed_ = scaler.inverse_transform(Z + step * nearest[:, None])
        self.X_ = X
        self.codes_ = codes
        self._fit_prototypes(Z, codes, rng)
        return self

    def _fit_prototypes(self, Z: np.ndarray, codes: np.ndarray, rng: np.random.RandomState) -> None:
        n_classes = len(self.classes_)
        if n_classes == 2:
            # With two classes the true top pair is {0, 1} everywhere: no prototypes needed.
            self.n_prototypes_ = np.zeros(2, dtype=int)
            self.true_pairs_ = np.tile([0, 1], (Z.shape[0], 1))
            return
        distances = np.empty((Z.shape[0], n_classes))
        counts = []
        for j in range(n_classes):
            members = Z[codes == j]
            if self.n_prototypes == "aic":
                protos, k, _ = kmeans_aic(members, self.prototype_candidates, random_state=rng)
            else:
                k = min(int(self.n_prototypes), members.shape[0])
                protos = KMeans(n_clusters=k, n_init=3, random_state=rng.randint(2**31 - 1)).fit(
                    members
                ).cluster_centers_
            counts.append(k)
            distances[:, j] = pairwise_distances(Z, protos).min(axis=1)
        self.n_prototypes_ = np.array(counts)
        # g_j = −min_k ||x − p_j^k|| (Eq. 35): the two top classes are the two nearest.
        top_two = np.argsort(distances, axis=1, kind="stable")[:, :2]
        self.true_pairs_ = np.sort(top_two, axis=1)

    def _codes_for(self, estimator: Any) -> np.ndarray:
        est_classes = np.asarray(getattr(estimator, "classes_", []))
        if est_classes.shape != self.classes_.shape or not np.array_equal(
            np.sort(est_classes), np.sort(self.classes_)
        ):
            raise ValueError(
                f"`estimator` was fitted on classes {est_classes.tolist()} but the data has "
                f"classes {self.classes_.tolist()}; fit it on the same classes."
            )
        # column index of each data class in the estimator's discriminants
        return np.searchsorted(est_classes, self.classes_, sorter=np.argsort(est_classes))

    def score_details(self, estimator: Any) -> BoundaryUncertaintyResult:
        """Boundary uncertainty of a fitted ``estimator``, with its details."""
        check_is_fitted(self, "neighbors_")
        check_is_fitted(estimator)
        column_of = self._codes_for(estimator)
        points = self.X_perturbed_ if self.perturb else self.X_
        g = _discriminants(estimator, points)[:, column_of]  # columns in data-class order
        ranked = np.argsort(-g, axis=1, kind="stable")
        top_i, top_j = ranked[:, 0], ranked[:, 1]
        members = self.neighbors_
        f = g[members, top_i[:, None]] - g[members, top_j[:, None]]
        counts = parzen_counts(
            f, self.codes_[members], np.column_stack([top_i, top_j]), kernel=self.kernel
        )
        k_hat = counts.sum(axis=1)
        p_top = np.divide(counts[:, 0], k_hat, out=np.zeros_like(k_hat), where=k_hat > 0)
        local = triangle_uncertainty(p_top)
        local[k_hat <= 0] = 0.0
        same_pair = (np.sort(np.column_stack([top_i, top_j]), axis=1) == self.true_pairs_).all(axis=1)
        local = np.where(same_pair, local, 0.0)
        wrong = np.argmax(g, axis=1) != self.codes_
        pair_keys, pair_index = np.unique(self.true_pairs_, axis=0, return_inverse=True)
        pair_index = pair_index.ravel()
        weights = np.bincount(pair_index, minlength=len(pair_keys)) / len(pair_index)
        values, cases = np.empty(len(pair_keys)), []
        for p in range(len(pair_keys)):
            in_pair = pair_index == p
            w = k_hat[in_pair].sum()
            if w > 0:
                values[p] = (k_hat[in_pair] * local[in_pair]).sum() / w
                cases.append("counts")
            elif not wrong[in_pair].any():
                values[p] = 1.0
                cases.append("separable_correct")
            else:
                values[p] = 0.0
                cases.append("separable_wrong")
        pairs = [tuple(self.classes_[list(k)].tolist()) for k in pair_keys]
        return BoundaryUncertaintyResult(
            value=float(np.dot(weights, values)),
            pairs=pairs,
            pair_weights=weights,
            pair_uncertainty=values,
            pair_case=cases,
            sample_weights=k_hat,
            local_uncertainty=local,
        )

    def score(self, estimator: Any) -> float:  # type: ignore[override]
        """Boundary uncertainty ``Û⁽³⁾`` in [0, 1] of a fitted ``estimator``."""
        return self.score_details(estimator).value


def boundary_uncertainty(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    n_neighbors: int = 40,
    n_prototypes: Any = "aic",
    perturb: bool = True,
    kernel: str = "epanechnikov",
    random_state: Any = None,
    return_details: bool = False,
) -> float | tuple[float, dict[str, Any]]:
    """Boundary uncertainty of a fitted classifier on data ``(X, y)``.

    A thin wrapper around :class:`BoundaryUncertaintyEstimator`; to score
    many candidates on the same data, fit the estimator once and call its
    ``score`` for each (the shared work is then done once).

    Parameters
    ----------
    estimator : fitted classifier
        With ``decision_function`` (per class, or 1-D for binary) or
        ``predict_proba``, and ``classes_``.
    X : array-like of shape (N, d)
        Usually the training set of ``estimator`` (or a test set to get the
        test-set estimate).
    y : array-like of shape (N,)
    n_neighbors, n_prototypes, perturb, kernel, random_state
        See :class:`BoundaryUncertaintyEstimator`.
    return_details : bool, default=False
        Also return a dict of per-pair estimates and weights.

    Returns
    -------
    float or (float, dict)
        ``Û⁽³⁾`` in [0, 1]; 1 is an optimal (Bayes) boundary.

    Examples
    --------
    >>> from sklearn.svm import SVC
    >>> from bayescal.datasets import make_gmm
    >>> X, y, _ = make_gmm("overlap", 300, random_state=0)
    >>> u = boundary_uncertainty(SVC(gamma=1.0).fit(X, y), X, y, random_state=0)
    >>> 0.0 <= u <= 1.0
    True
    """
    estimator_ = BoundaryUncertaintyEstimator(
        n_neighbors=n_neighbors,
        n_prototypes=n_prototypes,
        perturb=perturb,
        kernel=kernel,
        random_state=random_state,
    ).fit(X, y)
    result = estimator_.score_details(estimator)
    if return_details:
        return result.value, result.as_dict()
    return result.value
