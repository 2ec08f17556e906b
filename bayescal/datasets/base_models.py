"""Phelps et al.'s (2024) hypothetical base models as estimators, so its simulation is a study.

The simulation of Phelps et al. (2024) (§3.1) does not train base
models on the covariates: it *defines* base models with known errors on top of
the true probability after undersampling, ``gamma(x) = P(y=1 | x, S=1)``. To
run that simulation through the grid runner (``models/undersampling.toml``),
:class:`HypotheticalBaseModel` is a scikit-learn classifier whose ``fit``
learns nothing and whose ``predict_proba`` returns the base model's score
computed from the covariates:

1. ``p(x)`` from Eq. A1 (:func:`bayescal.datasets.synthetic.undersampling_log_odds`);
2. ``gamma = p / (p + pi0 (1 - p))`` after undersampling negatives at rate
   ``pi0`` (:func:`bayescal.datasets.undersampled_probability`);
3. the base model's score ``gamma_hat`` (:func:`bayescal.datasets.base_model_scores`:
   perfect, towards 0.5 — Eq. 7, towards the extremes — Eq. 8, or log-odds noise).

With the scenario ``full`` of the calibrated classifier, the study's training
part is then exactly the paper's calibration data set (the base model's scores
and the observed labels) and its test part the paper's test data set.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from bayescal.validation import (
    check_choice,
    check_consistent_length,
    check_fraction,
    check_labels,
    check_matrix,
)

__all__ = ["HypotheticalBaseModel"]

_KINDS = ("perfect", "toward_half", "toward_extremes", "noisy")


class HypotheticalBaseModel(ClassifierMixin, BaseEstimator):
    """A base model of Phelps et al. (2024) with a known error, as a classifier.

    Parameters
    ----------
    b : float, default=1.5
        Intercept shift of Eq. A1 (2, 1.5, 1.1 give mean probabilities near
        0.0022, 0.0208, 0.1109).
    pi0 : float, default=0.02125
        Rate at which negatives were kept when the base model was trained
        (the paper: 0.0023, 0.02125, 0.125 for the three base rates).
    kind : {"perfect", "toward_half", "toward_extremes", "noisy"}, default="perfect"
        The base model's error (see :func:`bayescal.datasets.base_model_scores`).
    noise_sd : float, default=0.2
        Log-odds noise of ``"noisy"``.
    random_state : int or None, default=None
        Seed of the ``"noisy"`` model's noise; the noise of a row set is
        drawn from ``(random_state, CRC-32 of X)`` so the same rows always
        get the same scores.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    n_features_in_ : int

    Notes
    -----
    ``fit`` only records the classes: the model is hypothetical, known in
    closed form (Phelps et al. 2024 §3.1.2), and it *is* the model trained on the
    undersampled data.

    Examples
    --------
    >>> from bayescal.datasets import make_undersampling_simulation
    >>> X, y, p = make_undersampling_simulation(2000, 1.5, random_state=0)
    >>> model = HypotheticalBaseModel(b=1.5, pi0=0.02125).fit(X, y)
    >>> bool(model.predict_proba(X)[:, 1].mean() > p.mean())  # undersampling inflates
    True
    """

    def __init__(self, *, b: float = 1.5, pi0: float = 0.02125, kind: str = "perfect",
                 noise_sd: float = 0.2, random_state: int | None = None) -> None:
        self.b = b
        self.pi0 = pi0
        self.kind = kind
        self.noise_sd = noise_sd
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> HypotheticalBaseModel:
        """Record the classes (the model itself is fixed); returns self."""
        check_choice(self.kind, "kind", _KINDS)
        check_fraction(self.pi0, "pi0")
        X_ = check_matrix(X, "X")
        if X_.shape[1] < 10:
            raise ValueError(f"`X` must hold the 10 covariates of Phelps et al.'s (2024) Eq. A1; got "
                             f"{X_.shape[1]} columns.")
        labels = check_labels(y, "y")
        check_consistent_length(X=X_, y=labels)
        self.classes_ = np.unique(labels)
        if not np.array_equal(self.classes_, [0, 1]):
            raise ValueError(f"`y` must hold both classes 0 and 1; got {self.classes_}.")
        self.n_features_in_ = X_.shape[1]
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Base-model scores ``[1 - gamma_hat, gamma_hat]``, shape ``(n, 2)``."""
        from bayescal.datasets.synthetic import (
            base_model_scores,
            undersampled_probability,
            undersampling_log_odds,
        )

        check_is_fitted(self)
        X_ = check_matrix(X, "X")
        p = 1.0 / (1.0 + np.exp(-undersampling_log_odds(X_, self.b)))
        gamma = undersampled_probability(p, self.pi0)
        seed = 0 if self.random_state is None else int(self.random_state)
        rng = np.random.default_rng([seed, zlib.crc32(np.ascontiguousarray(X_).tobytes())])
        score = base_model_scores(gamma, self.kind, random_state=rng, noise_sd=self.noise_sd)
        return np.column_stack([1.0 - score, score])

    def predict(self, X: Any) -> np.ndarray:
        """Class with the larger score."""
        return (self.predict_proba(X)[:, 1] > 0.5).astype(np.int64)
