"""Phelps, Lizotte & Woolford (2024), Figs. 1-2: the hypothetical base models, checked.

Function block of ``models/reproductions/seed004_figs1_2`` (see
:mod:`bayescal.reproduce.registry`). Section 3.1.2 of the paper defines the base
models of its simulation by what they do to the true probability ``gamma`` of the
undersampled population, and its Figs. 1-2 show them; the text states:

* Fig. 1: a perfect model (``gamma_hat = gamma``), a model that "pushes probability
  estimates towards 0.5" (Eq. 7) and one that pushes them "towards extreme values
  (i.e., 0 and 1)" (Eq. 8);
* Fig. 2: log-odds noise N(0, 0.2) "results in gamma_hat's with a mean slightly
  larger than the mean of the gamma's" (5000 observations, mean outcome
  probability 0.0208).

The block draws the simulation as the paper's Fig. 2 does (Eq. A1 with
``b = 1.5``, undersampling ``pi0 = 0.02125``), scores it with
:func:`bayescal.datasets.base_model_scores`, redraws both figures (5000 rows, as
Fig. 2) and returns the figures the statements are checked on, measured on
400 000 rows so that the noisy model's small mean shift (about +0.1 %) stands
clear of its sampling error (s.e. about 0.03 %; on 5000 rows it is 0.25 %): the
share of rows each systematic model moves in its stated direction, the largest
deviation of the perfect model, and the noisy model's relative mean increase.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["base_model_figures", "figs1_2"]

#: The paper's Fig. 2 setting: Eq. A1 rate parameter, undersampling rate, rows, seed.
FIG2 = {"b": 1.5, "pi0": 0.02125, "n": 5000, "seed": 20240102}
#: Rows on which the statements are measured.
CLAIM_ROWS = 400_000


def base_model_figures(n: int = FIG2["n"], *, b: float = FIG2["b"], pi0: float = FIG2["pi0"],
                       random_state: int = FIG2["seed"]) -> dict[str, Any]:
    """The true ``gamma`` of a simulated sample and each base model's ``gamma_hat``.

    Returns
    -------
    dict
        ``p`` (full-population probabilities), ``gamma`` and, per base model
        (``perfect``, ``toward_half``, ``toward_extremes``, ``noisy``), its scores.
    """
    from bayescal.datasets import base_model_scores, make_undersampling_simulation
    from bayescal.datasets.synthetic import undersampled_probability

    rng = np.random.default_rng(random_state)
    _, _, p = make_undersampling_simulation(n, b, random_state=rng)
    gamma = undersampled_probability(p, pi0)
    out: dict[str, Any] = {"p": p, "gamma": gamma}
    for kind in ("perfect", "toward_half", "toward_extremes", "noisy"):
        out[kind] = base_model_scores(gamma, kind, random_state=rng)
    return out


def _draw(models: dict[str, Any], out: Path) -> None:
    from matplotlib.figure import Figure

    grid = np.linspace(0.001, 0.999, 400)
    from bayescal.datasets import base_model_scores

    fig = Figure(figsize=(7, 3.2))
    for ax, kind, title in zip(fig.subplots(1, 2), ("toward_half", "toward_extremes"),
                               ("Eq. 7: towards 0.5", "Eq. 8: towards 0 and 1"), strict=True):
        ax.plot(grid, grid, color="black", label="perfect")
        ax.plot(grid, base_model_scores(grid, kind), "--", label=kind.replace("_", " "))
        ax.set_xlabel("true probability gamma")
        ax.set_ylabel("predicted gamma_hat")
        ax.set_title(title, fontsize=9)
    fig.suptitle("Fig. 1 (redrawn)", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "fig1_base_models.png", dpi=90)
    fig = Figure(figsize=(3.6, 3.4))
    ax = fig.subplots()
    ax.scatter(models["gamma"], models["noisy"], s=2, alpha=0.4)
    top = max(models["gamma"].max(), models["noisy"].max())
    ax.plot([0, top], [0, top], color="red", lw=0.8)
    ax.set_xlabel("gamma")
    ax.set_ylabel("gamma_hat (log-odds noise, sd 0.2)")
    ax.set_title(f"Fig. 2 (redrawn): {models['gamma'].size} rows, mean p "
                 f"{models['p'].mean():.4f}", fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fig2_noisy_model.png", dpi=90)


def figs1_2(out: Path, n_jobs: int | None = None) -> Any:
    """The block's table: one measured figure per statement (module docstring)."""
    import pandas as pd

    del n_jobs
    if out is not None:
        _draw(base_model_figures(), Path(out))
    m = base_model_figures(CLAIM_ROWS)
    gamma = m["gamma"]
    dist = np.abs(gamma - 0.5)
    rows = [
        {"figure": "fig1", "method": "perfect", "ours": float(np.abs(m["perfect"] - gamma).max())},
        {"figure": "fig1", "method": "toward_half",
         "ours": float((np.abs(m["toward_half"] - 0.5) < dist).mean())},
        {"figure": "fig1", "method": "toward_extremes",
         "ours": float((np.abs(m["toward_extremes"] - 0.5) > dist).mean())},
        {"figure": "fig2", "method": "noisy",
         "ours": float(m["noisy"].mean() / gamma.mean() - 1.0)},
        {"figure": "fig2", "method": "noisy_slightly",
         "ours": float(m["noisy"].mean() / gamma.mean() - 1.0)},
        {"figure": "fig2", "method": "mean_p", "ours": float(m["p"].mean())},
    ]
    table = pd.DataFrame(rows)
    table["metric"] = np.where(table["method"] == "mean_p", "value", "claim")
    return table
