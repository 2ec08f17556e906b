"""Boundary uncertainty (Proposal 2), §6.6 Fig. 12: is ``U`` insensitive to ``M``?

Function blocks of ``models/reproductions/seed003_fig12``. The paper reruns its SVM
selection for ``M = 20, 40, 80, 120, 160`` (the size of each nearest-neighbour
cluster, Eq. 27) and states: "Proposal 2 is quite insensitive to the value of
M. The minimum and trend of U^(3) seem quite insensitive to M, although the
value of U^(3) itself may slightly change." Its panels are the GMM set and Wine
Quality White; the latter is not available here, so the GMM panel is
reproduced: an RBF SVM's ``γ`` swept over the paper's powers of two
(:data:`~bayescal.reproduce.boundary_figures.PAPER_GRID`; every third at the
quick size) on :func:`bayescal.datasets.make_gmm` ``"overlap"``, ``U_tr`` from
:class:`bayescal.selection.BoundaryUncertaintyEstimator` with each ``M``.

The figures each statement is checked on, against ``M = 40`` (the paper's
choice): the largest distance between the optimal ``γ`` at any ``M`` and at
``M = 40``, in powers of two; the smallest Spearman correlation of a curve with
the ``M = 40`` curve; the largest mean relative change of ``U`` itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from bayescal.reproduce.boundary_figures import PAPER_GRID, QUICK_GRID

__all__ = ["M_VALUES", "fig12_full", "fig12_quick", "u_by_m"]

#: The paper's values of M (§6.6).
M_VALUES = (20, 40, 80, 120, 160)
_SEED = 3
_SIZES = {"quick": {"n": 300, "grid": QUICK_GRID}, "full": {"n": 1000, "grid": PAPER_GRID}}


def u_by_m(n: int, grid: tuple[float, ...], m_values: tuple[int, ...] = M_VALUES
           ) -> dict[int, np.ndarray]:
    """``U_tr`` over ``grid`` for each ``M`` (one SVM fit per ``γ``, shared)."""
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from bayescal.datasets import make_gmm
    from bayescal.selection import BoundaryUncertaintyEstimator
    from bayescal.threads import limit_blas_threads

    X, y, _ = make_gmm("overlap", n, random_state=_SEED)
    X = StandardScaler().fit_transform(X)
    with limit_blas_threads(1):
        models = [SVC(C=1.0, gamma=g).fit(X, y) for g in grid]
        out = {}
        for m in m_values:
            est = BoundaryUncertaintyEstimator(n_neighbors=m, random_state=_SEED).fit(X, y)
            out[m] = np.array([est.score(model) for model in models])
    return out


def _table(u: dict[int, np.ndarray], grid: tuple[float, ...]) -> Any:
    import pandas as pd
    from scipy.stats import spearmanr

    log2 = np.log2(np.asarray(grid))
    ref = u[40]
    shift = max(abs(log2[int(np.argmax(v))] - log2[int(np.argmax(ref))]) for v in u.values())
    rho = min(float(spearmanr(v, ref).statistic) for m, v in u.items() if m != 40)
    change = max(float(np.mean(np.abs(v - ref)) / np.mean(ref)) for m, v in u.items() if m != 40)
    return pd.DataFrame({"panel": "gmm", "method": ["optimum_shift", "trend", "level_change"],
                         "metric": "claim", "ours": [shift, rho, change]})


def _plot(u: dict[int, np.ndarray], grid: tuple[float, ...], path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4.5, 3.2))
    ax = fig.subplots()
    for m, v in u.items():
        ax.plot(1 / np.asarray(grid), -v, marker=".", label=f"M = {m}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("1 / γ")
    ax.set_ylabel("-U_tr")
    ax.set_title("Fig. 12 (GMM panel, redrawn)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def _block(out: Path | None, size: str) -> Any:
    s = _SIZES[size]
    u = u_by_m(s["n"], s["grid"])
    if out is not None:
        _plot(u, s["grid"], Path(out) / "fig12_m_sensitivity.png")
    return _table(u, s["grid"])


def fig12_quick(out: Path, n_jobs: int | None = None) -> Any:
    """Quick size: 300 GMM points, every third γ of the paper's grid."""
    return _block(out, "quick")


def fig12_full(out: Path, n_jobs: int | None = None) -> Any:
    """Full size: 1000 GMM points (the paper's Fig. 6 set size), the paper's 31 γ."""
    return _block(out, "full")
