"""A posterior over binnings: mixture weights, Beta posteriors and quantiles."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import betainc

from bayescal.probes.binning.cells import ScoreCells

__all__ = ["BinningPosterior", "beta_mixture_quantile"]


@dataclass
class BinningPosterior:
    """A finite mixture of binnings with Beta posteriors per bin.

    Attributes
    ----------
    weights : ndarray of shape (M,)
        Posterior weight of each binning (sums to one).
    starts : list of ndarray
        Start cell of each bin, per binning.
    alpha, beta : list of ndarray
        Beta posterior parameters of each bin, per binning.
    log_evidence : ndarray of shape (M,)
        Log marginal likelihood (plus log prior) of each binning.
    """

    weights: np.ndarray
    starts: list[np.ndarray]
    alpha: list[np.ndarray]
    beta: list[np.ndarray]
    log_evidence: np.ndarray

    def cell_mean(self, n_cells: int) -> np.ndarray:
        """Posterior-mean frequency on every cell (mixture over binnings)."""
        out = np.zeros(n_cells)
        for w, st, a, b in zip(self.weights, self.starts, self.alpha, self.beta, strict=True):
            sizes = np.diff(np.append(st, n_cells))
            out += w * np.repeat(a / (a + b), sizes)
        return out

    def bin_index(self, cells: np.ndarray) -> np.ndarray:
        """Bin of each cell under each binning, shape ``(M, n)``."""
        return np.stack([np.searchsorted(st, cells, side="right") - 1 for st in self.starts])

    def component_parameters(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Beta parameters of the component covering each cell, shape ``(n, M)``."""
        idx = self.bin_index(cells)
        a = np.stack([self.alpha[k][idx[k]] for k in range(idx.shape[0])], axis=1)
        b = np.stack([self.beta[k][idx[k]] for k in range(idx.shape[0])], axis=1)
        return a, b


def beta_mixture_quantile(
    q: float,
    weights: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    *,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> np.ndarray:
    """Quantile of mixtures of Beta distributions, one mixture per row.

    Parameters
    ----------
    q : float
        Probability level in (0, 1).
    weights : ndarray of shape (M,)
        Mixture weights (shared by the rows), summing to one.
    alpha, beta : ndarray of shape (n, M)
        Beta parameters of each row's components.

    Returns
    -------
    ndarray of shape (n,)
        ``x`` with ``sum_k w_k I_x(alpha_k, beta_k) = q`` (vectorised bisection
        on the mixture CDF, accurate to ``tol``).
    """
    lo = np.zeros(alpha.shape[0])
    hi = np.ones(alpha.shape[0])
    for _ in range(max_iter):
        mid = 0.5 * (lo + hi)
        cdf = betainc(alpha, beta, mid[:, None]) @ weights
        below = cdf < q
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
        if np.max(hi - lo) < tol:
            break
    return 0.5 * (lo + hi)


def _binning_datatree(posterior: BinningPosterior, cells: ScoreCells, n_draws: int,
                      random_state: Any):
    """``idata_``: draws of the bin frequencies and the binnings' weights."""
    import xarray as xr

    rng = np.random.default_rng(random_state)
    n_models = posterior.weights.size
    max_bins = max(st.size for st in posterior.starts)
    pad = np.full((n_models, max_bins), np.nan)
    alpha, beta, cuts = pad.copy(), pad.copy(), pad.copy()
    for k in range(n_models):
        nb = posterior.starts[k].size
        alpha[k, :nb] = posterior.alpha[k]
        beta[k, :nb] = posterior.beta[k]
        cuts[k, :nb] = cells.edges[posterior.starts[k]]
    model = rng.choice(n_models, size=n_draws, p=posterior.weights)
    a = np.nan_to_num(alpha[model], nan=1.0)
    b = np.nan_to_num(beta[model], nan=1.0)
    freq = rng.beta(a, b)
    freq[np.isnan(alpha[model])] = np.nan
    posterior_ds = xr.Dataset(
        {
            "model": (("chain", "draw"), model[None]),
            "bin_frequency": (("chain", "draw", "bin"), freq[None]),
        },
        coords={"chain": [0], "draw": np.arange(n_draws), "bin": np.arange(max_bins)},
    )
    models_ds = xr.Dataset(
        {
            "weight": ("model", posterior.weights),
            "log_evidence": ("model", posterior.log_evidence),
            "n_bins": ("model", np.array([st.size for st in posterior.starts])),
            "bin_lower_edge": (("model", "bin"), cuts),
            "alpha_posterior": (("model", "bin"), alpha),
            "beta_posterior": (("model", "bin"), beta),
        },
        coords={"model": np.arange(n_models), "bin": np.arange(max_bins)},
    )
    data_ds = xr.Dataset(
        {
            "score": ("cell", cells.values),
            "positives": ("cell", cells.positives),
            "negatives": ("cell", cells.negatives),
        }
    )
    return xr.DataTree.from_dict(
        {"posterior": posterior_ds, "binnings": models_ds, "observed_data": data_ds}
    )
