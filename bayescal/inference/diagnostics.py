"""Posterior diagnostics: one typed record and one set of thresholds for every posterior.

Every Bayesian estimator in bayescal ends ``fit`` by calling
:func:`record_diagnostics`, whatever its inference: NUTS (nutpie or PyMC),
mean-field ADVI, a Laplace approximation, expectation propagation, or the
exact posterior of Bayesian binning. That one function builds a
:class:`PosteriorDiagnostics` (through :func:`posterior_diagnostics`), checks
it against :data:`DIAGNOSTIC_THRESHOLDS` (the only definition of "converged"
in the package: the result cube and the HTML report use it too), stores it as
``estimator.diagnostics_`` and, when a check fails, warns with
:class:`PosteriorDiagnosticsWarning` naming the failure.

R-hat and effective sample sizes are computed for Markov chains only
(``inference="nuts"``): the draws of ADVI, Laplace, EP and the exact binning
posterior are independent by construction, so there is no chain to mix and
those fields are NaN ("not applicable"), never a failure. Such fits fail on
the checks their own method has (EP not converging, a collapsed predictive),
passed in as ``failures``, and a Laplace or ADVI posterior on its
Pareto-smoothed importance-sampling check against the exact log density
(``pareto_k``, :mod:`bayescal.inference.importance`; NaN where not applicable).

References
----------
Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. and Bürkner, P.-C. (2021).
Rank-normalization, folding, and localization: an improved R-hat for
assessing convergence of MCMC. *Bayesian Analysis* 16(2), 667-718.

Vehtari, A., Simpson, D., Gelman, A., Yao, Y. and Gabry, J. (2024). Pareto
smoothed importance sampling. *Journal of Machine Learning Research* 25(72), 1-58.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

__all__ = [
    "DIAGNOSTIC_THRESHOLDS",
    "DiagnosticThresholds",
    "PosteriorDiagnostics",
    "PosteriorDiagnosticsWarning",
    "diagnostic_failures",
    "posterior_diagnostics",
    "record_diagnostics",
    "warn_if_unconverged",
]

#: The inference behind each sampler name a fit may report.
INFERENCE_OF_SAMPLER = {
    "nutpie": "nuts",
    "pymc": "nuts",
    "advi": "advi",
    "laplace": "laplace",
    "ep": "ep",
    "analytic": "exact",
}


class PosteriorDiagnosticsWarning(UserWarning):
    """A posterior failed a diagnostic (R-hat, ESS, divergences or its method's own check)."""


@dataclass(frozen=True)
class DiagnosticThresholds:
    """Limits a posterior must meet to count as converged.

    Parameters
    ----------
    rhat_max : float, default=1.01
        Largest acceptable rank-normalised split R-hat (Vehtari et al. 2021).
    ess_min_per_chain : float, default=100
        Smallest acceptable bulk and tail ESS per chain (Vehtari et al. 2021:
        100 per chain, 400 with four chains); a posterior of ``n_chains``
        chains needs ``ess_needed(n_chains)`` in total. The result cube
        records ``n_chains`` so that it applies the same rule.
    divergences_max : int, default=0
        Largest acceptable number of divergent transitions.
    pareto_k_max : float, default=0.7
        Largest acceptable Pareto shape ``k`` of the importance weights of an
        approximate posterior (Laplace, ADVI) against the exact one (Vehtari
        et al. 2024: above 0.7 importance sampling, and so the
        approximation, cannot be trusted).
    """

    rhat_max: float = 1.01
    ess_min_per_chain: float = 100.0
    divergences_max: int = 0
    pareto_k_max: float = 0.7

    def ess_needed(self, n_chains: Any = 1) -> float:
        """The smallest acceptable total ESS of a posterior with ``n_chains`` chains."""
        chains = float(n_chains) if n_chains is not None else 1.0
        return self.ess_min_per_chain * (max(chains, 1.0) if np.isfinite(chains) else 1.0)


#: The one set of convergence thresholds used by estimators, the cube and the report.
DIAGNOSTIC_THRESHOLDS = DiagnosticThresholds()


def _nan() -> float:
    return float("nan")


@dataclass(frozen=True)
class PosteriorDiagnostics(Mapping):
    """How a posterior was obtained and whether it passed its diagnostics.

    Built by :func:`posterior_diagnostics`; read by attribute
    (``diag.rhat_max``) or, for code that treats it as a record, by key
    (``diag["rhat_max"]``, ``diag.get("ep_sweeps")``); :meth:`to_dict` gives
    the flat record the result cube stores.

    Attributes
    ----------
    sampler : str
        ``"nutpie"``, ``"pymc"``, ``"advi"``, ``"laplace"``, ``"ep"`` or
        ``"analytic"``.
    inference : str
        ``"nuts"``, ``"advi"``, ``"laplace"``, ``"ep"`` or ``"exact"``.
    seconds : float
        Wall time of the fit.
    n_chains, n_draws : int
        Chains and draws per chain of the stored posterior draws.
    rhat_max : float
        Largest rank-normalised split R-hat over the diagnosed variables (NaN
        unless the draws are Markov chains, at least two of them).
    ess_bulk_min, ess_tail_min : float
        Smallest bulk and tail ESS (NaN unless the draws are Markov chains).
    divergences : int
        Divergent transitions (0 where not applicable).
    pareto_k : float
        Pareto shape of the importance weights of an approximate posterior
        (Laplace, ADVI; EP's latent posterior at its fitted hyper-parameters)
        against the model's exact log density (NaN where not applicable:
        NUTS, exact posteriors).
    failures : tuple of str
        Every failed check, in words; empty when the posterior passed.
    extra : mapping
        Method-specific facts (EP sweeps, the number of binning models, ...).
    """

    sampler: str
    inference: str
    seconds: float
    n_chains: int
    n_draws: int
    rhat_max: float = field(default_factory=_nan)
    ess_bulk_min: float = field(default_factory=_nan)
    ess_tail_min: float = field(default_factory=_nan)
    divergences: int = 0
    pareto_k: float = field(default_factory=_nan)
    failures: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "failures", tuple(self.failures))
        # a plain dict copy (not a MappingProxyType) so that dataclasses.asdict works
        object.__setattr__(self, "extra", dict(self.extra))

    @property
    def converged(self) -> bool:
        """True when no check failed."""
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        """A flat dict: every field, ``converged``, and the ``extra`` entries.

        The cube keeps ``rhat_max``, ``ess_bulk_min``, ``divergences`` and
        can keep the rest.
        """
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        out.pop("extra")
        out["converged"] = self.converged
        out.update(self.extra)
        return out

    def _keys(self) -> list[str]:
        names = [f.name for f in fields(self) if f.name != "extra"]
        return [*names, "converged", *self.extra]

    def __getitem__(self, key: str) -> Any:
        if key == "converged":
            return self.converged
        if key in self.extra:
            return self.extra[key]
        if key != "extra" and key in {f.name for f in fields(self)}:
            return getattr(self, key)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    __hash__ = None  # type: ignore[assignment]  # ``extra`` is a mapping


def diagnostic_failures(
    values: Mapping[str, Any], thresholds: DiagnosticThresholds | None = None
) -> list[str]:
    """List the diagnostics in ``values`` that fail ``thresholds`` (empty when converged).

    Parameters
    ----------
    values : mapping
        Has some of ``rhat_max``, ``ess_bulk_min``, ``ess_tail_min``,
        ``divergences``, ``pareto_k`` and ``n_chains`` (a :class:`PosteriorDiagnostics`, a
        row of the cube; one chain where ``n_chains`` is missing). Missing or
        NaN values are not applicable and never fail.
    thresholds : DiagnosticThresholds, optional
        Default :data:`DIAGNOSTIC_THRESHOLDS`.

    Returns
    -------
    list of str
    """
    th = thresholds or DIAGNOSTIC_THRESHOLDS
    failures = []
    rhat = float(values.get("rhat_max", np.nan))
    if np.isfinite(rhat) and rhat > th.rhat_max:
        failures.append(f"max R-hat {rhat:.3f} > {th.rhat_max}")
    limit = th.ess_needed(values.get("n_chains", 1))
    for key, label in (("ess_bulk_min", "bulk"), ("ess_tail_min", "tail")):
        ess = float(values.get(key, np.nan))
        if np.isfinite(ess) and ess < limit:
            failures.append(f"min {label} ESS {ess:.0f} < {limit:.0f}")
    div = float(values.get("divergences", 0) or 0)
    if np.isfinite(div) and div > th.divergences_max:
        failures.append(f"{int(div)} divergent transitions")
    khat = float(values.get("pareto_k", np.nan))
    if not np.isnan(khat) and khat > th.pareto_k_max:
        failures.append(
            f"Pareto k {khat:.2f} > {th.pareto_k_max} (the approximation is far from the "
            "exact posterior)"
        )
    return failures


def _min_over(dataset: Any) -> float:
    values = [float(np.nanmin(np.asarray(v))) for v in dataset.data_vars.values() if v.size]
    return float(np.nanmin(values)) if values else float("nan")


def _max_over(dataset: Any) -> float:
    values = [float(np.nanmax(np.asarray(v))) for v in dataset.data_vars.values() if v.size]
    return float(np.nanmax(values)) if values else float("nan")


def _posterior_dataset(idata: Any) -> Any:
    post = idata["posterior"]
    return post.to_dataset() if hasattr(post, "to_dataset") else post


def posterior_diagnostics(
    idata: Any = None,
    *,
    sampler: str,
    seconds: float,
    inference: str | None = None,
    var_names: list[str] | None = None,
    n_chains: int | None = None,
    n_draws: int | None = None,
    failures: tuple[str, ...] | list[str] = (),
    extra: Mapping[str, Any] | None = None,
    thresholds: DiagnosticThresholds | None = None,
    pareto_k: float | None = None,
) -> PosteriorDiagnostics:
    """Build the :class:`PosteriorDiagnostics` of a fit (the one builder for every method).

    Parameters
    ----------
    idata : xarray.DataTree, optional
        The posterior (a ``posterior`` group with ``chain`` and ``draw`` dims;
        ``sample_stats.diverging`` read when present). Gives ``n_chains`` and
        ``n_draws`` and, for Markov chains, R-hat and ESS.
    sampler : str
        Sampler name (see :data:`INFERENCE_OF_SAMPLER`).
    seconds : float
        Wall time of the fit.
    inference : str, optional
        Default: from ``sampler``. R-hat/ESS are computed only for ``"nuts"``
        (or an unknown sampler with draws in chains).
    var_names : list of str, optional
        Variables to diagnose; default all posterior variables.
    n_chains, n_draws : int, optional
        Override the counts read from ``idata`` (or give them without it).
    failures : sequence of str, default=()
        Checks of the method itself that failed (EP not converged, ...);
        kept before the threshold failures.
    extra : mapping, optional
        Method-specific facts, stored in ``extra``.
    thresholds : DiagnosticThresholds, optional
        Default :data:`DIAGNOSTIC_THRESHOLDS`.
    pareto_k : float, optional
        The Pareto-smoothed importance-sampling shape of an approximate
        posterior (:attr:`bayescal.inference.sampling.PosteriorFit.pareto_k`);
        default NaN (not applicable).

    Returns
    -------
    PosteriorDiagnostics
    """
    inference = inference or INFERENCE_OF_SAMPLER.get(sampler, "nuts")
    rhat = ess_bulk = ess_tail = float("nan")
    divergences = 0
    chains, draws = int(n_chains or 1), int(n_draws or 0)
    if idata is not None:
        posterior = _posterior_dataset(idata)
        if var_names is not None:
            posterior = posterior[var_names]
        chains = int(n_chains or posterior.sizes.get("chain", 1))
        draws = int(n_draws or posterior.sizes.get("draw", 0))
        if inference == "nuts" and draws >= 4:
            # arviz_stats, not the arviz meta-package (which also imports arviz_plots
            # and matplotlib), and only for Markov chains: a Laplace, EP or exact
            # posterior imports neither (issue 15: a study worker's warm-up)
            import arviz_stats

            ess_bulk = _min_over(arviz_stats.ess(posterior, method="bulk"))
            ess_tail = _min_over(arviz_stats.ess(posterior, method="tail"))
            if chains >= 2:
                rhat = _max_over(arviz_stats.rhat(posterior))
        if "sample_stats" in idata.children and "diverging" in idata["sample_stats"].data_vars:
            divergences = int(np.asarray(idata["sample_stats"]["diverging"]).sum())
    values = {
        "rhat_max": rhat,
        "ess_bulk_min": ess_bulk,
        "ess_tail_min": ess_tail,
        "divergences": divergences,
        "pareto_k": float("nan") if pareto_k is None else float(pareto_k),
    }
    checked = {**values, "n_chains": chains}
    return PosteriorDiagnostics(
        sampler=str(sampler),
        inference=str(inference),
        seconds=float(seconds),
        n_chains=chains,
        n_draws=draws,
        failures=(*failures, *diagnostic_failures(checked, thresholds)),
        extra=dict(extra or {}),
        **values,
    )


def warn_if_unconverged(
    diagnostics: PosteriorDiagnostics,
    *,
    model: str,
    category: type[Warning] = PosteriorDiagnosticsWarning,
    remedy: str | None = None,
    stacklevel: int = 3,
) -> list[str]:
    """Warn (default :class:`PosteriorDiagnosticsWarning`) when ``diagnostics`` failed.

    Returns
    -------
    list of str
        The failures (empty when the posterior passed).
    """
    failures = list(diagnostics.failures)
    if failures:
        if remedy is None:
            remedy = (
                "Increase `tune`/`draws`, check the priors, or inspect `idata_` with ArviZ."
                if diagnostics.inference == "nuts"
                else "Switch to MCMC (inference='nuts'; 'mcmc' for BayesianGPClassifier) "
                "or inspect `idata_`."
            )
        warnings.warn(
            f"{model} posterior failed its diagnostics: {'; '.join(failures)}. {remedy}",
            category,
            stacklevel=stacklevel,
        )
    return failures


def record_diagnostics(
    estimator: Any,
    idata: Any = None,
    *,
    sampler: str,
    seconds: float,
    model: str | None = None,
    category: type[Warning] = PosteriorDiagnosticsWarning,
    remedy: str | None = None,
    stacklevel: int = 4,
    **kwargs: Any,
) -> PosteriorDiagnostics:
    """Set ``estimator.diagnostics_`` and warn if the posterior failed: the end of every ``fit``.

    Parameters
    ----------
    estimator : object
        Receives the ``diagnostics_`` attribute.
    idata : xarray.DataTree, optional
        The posterior.
    sampler, seconds
        As in :func:`posterior_diagnostics`.
    model : str, optional
        Name in the warning; default the estimator's class name.
    category : Warning subclass, default=PosteriorDiagnosticsWarning
        A subclass of it for a method's own failure (EP's
        ``EPConvergenceWarning``).
    remedy : str, optional
        What the user can do, appended to the warning.
    stacklevel : int, default=4
        Of the warning, counted from this function (4: the caller of the
        estimator's ``fit`` when ``fit`` calls this directly).
    **kwargs
        ``inference``, ``var_names``, ``n_chains``, ``n_draws``, ``failures``,
        ``extra``, ``thresholds``, ``pareto_k`` of :func:`posterior_diagnostics`.

    Returns
    -------
    PosteriorDiagnostics
        Also stored on the estimator.
    """
    diagnostics = posterior_diagnostics(idata, sampler=sampler, seconds=seconds, **kwargs)
    estimator.diagnostics_ = diagnostics
    warn_if_unconverged(
        diagnostics,
        model=model or type(estimator).__name__,
        category=category,
        remedy=remedy,
        stacklevel=stacklevel,
    )
    return diagnostics
