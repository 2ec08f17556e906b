"""Rank and trace plots of every cell whose posterior failed its diagnostics.

When a spec keeps posterior draws (``metrics.keep_posteriors``) the cube holds
them under ``/posteriors/<dataset>/<classifier>/<scenario>/r<repeat>_f<fold>``
(a ``posterior`` group, thinned). For every cell with ``converged = False``
the report draws ArviZ's rank plot (``arviz_plots.plot_rank``: the Δ-ECDF of
each chain's ranks with its simultaneous envelope) and trace plot
(``arviz_plots.plot_trace``), so the reader can see *why* the cell failed:
chains that disagree, stick or drift.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["failed_posteriors", "failed_posterior_section"]


def failed_posteriors(tree: Any) -> tuple[list[tuple[str, Any]], list[str]]:
    """Posteriors of the unconverged cells.

    Parameters
    ----------
    tree : xarray.DataTree
        A result cube.

    Returns
    -------
    kept : list of (label, xarray.DataTree)
        ``"dataset / classifier / scenario / repeat r / fold f"`` and a tree
        with the cell's ``posterior`` group, for each unconverged cell whose
        draws the cube keeps.
    missing : list of str
        Labels of unconverged cells without kept draws.
    """
    import xarray as xr

    metrics = tree["metrics"].to_dataset()
    if "converged" not in metrics:
        return [], []
    bad = (~metrics["converged"]) & metrics["done"] if "done" in metrics else ~metrics["converged"]
    kept, missing = [], []
    has_repeat = "repeat" in bad.dims
    for idx in zip(*np.nonzero(bad.transpose(*bad.dims).values), strict=True):
        where = {d: metrics[d].values[i] for d, i in zip(bad.dims, idx, strict=True)}
        r = int(where.get("repeat", 0))
        f = int(where["fold"])
        parts = [str(where["dataset"]), str(where["classifier"]), str(where["scenario"])]
        label = " / ".join([*parts, *([f"repeat {r}"] if has_repeat else []), f"fold {f}"])
        path = "/".join(["posteriors", *parts, f"r{r}_f{f}"])
        try:
            node = tree[path]
        except KeyError:
            missing.append(label)
            continue
        if "posterior" not in node.children:
            missing.append(label)
            continue
        kept.append((label, xr.DataTree.from_dict({"posterior": node["posterior"].to_dataset()})))
    return kept, missing


def failed_posterior_section(tree: Any, img: Callable[[Any, str], str], *,
                             max_cells: int = 12) -> str:
    """HTML: rank and trace plots of the unconverged cells (at most ``max_cells``)."""
    import arviz_plots as azp

    esc = html.escape
    kept, missing = failed_posteriors(tree)
    if not kept and not missing:
        return ""
    out = ["<section id='posterior-plots'><h2>Posteriors that failed their diagnostics</h2>"
           "<p class='note'>For each cell whose posterior failed, the rank plot (the Δ-ECDF "
           "of each chain's ranks among all draws, with its 95% simultaneous envelope: a "
           "chain leaving it explores a different region) and the trace plot (chains that "
           "stick, drift or disagree) of the draws kept in the cube.</p>"]
    for label, idata in kept[:max_cells]:
        out.append(f"<h3>{esc(label)}</h3>")
        for name, plot in (("rank plot", azp.plot_rank), ("trace plot", azp.plot_trace)):
            try:
                pc = plot(idata, backend="matplotlib")
            except (ValueError, KeyError, TypeError) as exc:
                out.append(f"<p class='note'>No {name}: {esc(str(exc))}</p>")
                continue
            fig = pc.viz["figure"].item()
            out.append(img(fig, f"{name} of {label}"))
            import matplotlib.pyplot as plt

            plt.close(fig)
    if len(kept) > max_cells:
        out.append(f"<p class='note'>… and {len(kept) - max_cells} more failed cells with "
                   "kept draws (open the cube's /posteriors group).</p>")
    if missing:
        out.append(f"<p class='note'>{len(missing)} failed cell(s) have no draws in the cube "
                   "(set <code>metrics.keep_posteriors</code> in the spec to keep them): "
                   f"{esc(', '.join(missing[:10]))}{' …' if len(missing) > 10 else ''}.</p>")
    out.append("</section>")
    return "".join(out)
