"""Estimators used only by the study tests (allowed with ``allow_modules=`` or ``--allow-module``).

``SlowNaiveBayes`` is Gaussian naive Bayes that sleeps in ``fit`` so that a
study lasts long enough to be killed in the middle; ``FailingClassifier``
raises in ``fit`` so that failed cells can be tested. ``CountingNaiveBayes``
counts its fits (per process) to test fit sharing.
"""

from __future__ import annotations

import time

from sklearn.naive_bayes import GaussianNB


class SlowNaiveBayes(GaussianNB):
    def __init__(self, *, priors=None, var_smoothing=1e-9, delay=0.1):
        super().__init__(priors=priors, var_smoothing=var_smoothing)
        self.delay = delay

    def fit(self, X, y, sample_weight=None):
        time.sleep(self.delay)
        return super().fit(X, y, sample_weight=sample_weight)


class FailingClassifier(GaussianNB):
    def fit(self, X, y, sample_weight=None):
        raise RuntimeError("this classifier always fails")


class CountingNaiveBayes(GaussianNB):
    fits = 0

    def fit(self, X, y, sample_weight=None):
        type(self).fits += 1
        return super().fit(X, y, sample_weight=sample_weight)


class IntervalNaiveBayes(GaussianNB):
    """Gaussian NB posing as a probe: a +-0.05 'credible interval' and diagnostics."""

    def fit(self, X, y, sample_weight=None):
        super().fit(X, y, sample_weight=sample_weight)
        self.diagnostics_ = {"rhat_max": 1.01, "ess_bulk_min": 400.0, "divergences": 2}
        return self

    def predict_interval(self, X, prob=0.9):
        import numpy as np

        p = self.predict_proba(X)
        return np.stack([np.clip(p - 0.05, 0, 1), np.clip(p + 0.05, 0, 1)], axis=-1)


class StuckPosteriorNB(GaussianNB):
    """Gaussian NB with a fake posterior whose two chains disagree (R-hat >> 1.01).

    The diagnostics are computed from it by bayescal's own
    ``record_diagnostics`` (ArviZ R-hat and ESS), as a real probe does.
    """

    def fit(self, X, y, sample_weight=None):
        import numpy as np
        import xarray as xr

        from bayescal.inference.posterior import record_diagnostics

        super().fit(X, y, sample_weight=sample_weight)
        rng = np.random.default_rng(0)
        beta = rng.normal(size=(2, 200, 3)) + np.array([0.0, 3.0])[:, None, None]
        big = rng.normal(size=(2, 200, 100))  # too large to keep (per-draw size 100)
        posterior = xr.Dataset({"beta": (("chain", "draw", "beta_dim_0"), beta),
                                "alpha": (("chain", "draw"), beta[..., 0]),
                                "f": (("chain", "draw", "f_dim_0"), big)})
        self.idata_ = xr.DataTree.from_dict({"posterior": posterior})
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record_diagnostics(self, self.idata_, sampler="test", seconds=0.0)
        return self


class WarningNaiveBayes(GaussianNB):
    """Gaussian NB that warns in every ``fit``, as ``SVC(probability=True)`` does.

    Two FutureWarnings: ``message`` itself (the same in every fit) and
    ``message`` with the number of training rows (one per distinct size).
    GaussianNB's own input checks (scikit-learn's ``check_array``) enter
    ``warnings.catch_warnings`` in every fit, as SVC's do.
    """

    fits = 0

    def __init__(self, *, priors=None, var_smoothing=1e-9, message="repeated"):
        super().__init__(priors=priors, var_smoothing=var_smoothing)
        self.message = message

    def fit(self, X, y, sample_weight=None):
        import warnings

        type(self).fits += 1
        fitted = super().fit(X, y, sample_weight=sample_weight)
        warnings.warn(self.message, FutureWarning, stacklevel=2)
        warnings.warn(f"{self.message} on {len(y)} rows", FutureWarning, stacklevel=2)
        return fitted

class PidNaiveBayes(GaussianNB):
    """Gaussian NB that logs the process id of each fit to ``log_dir``.

    ``ballast_mb``: memory it allocates (and keeps, and touches) on its first
    fit in a process, as a worker that has compiled PyMC models holds;
    ``delay``: seconds it sleeps in each fit.
    """

    ballast: list = []

    def __init__(self, *, priors=None, var_smoothing=1e-9, log_dir="", ballast_mb=0,
                 delay=0.0):
        super().__init__(priors=priors, var_smoothing=var_smoothing)
        self.log_dir = log_dir
        self.ballast_mb = ballast_mb
        self.delay = delay

    def fit(self, X, y, sample_weight=None):
        import os

        if self.ballast_mb and not type(self).ballast:
            type(self).ballast.append(bytearray(b"x") * (self.ballast_mb << 20))
        time.sleep(self.delay)
        with open(os.path.join(self.log_dir, f"{os.getpid()}.log"), "a") as fh:
            fh.write("fit\n")
        return super().fit(X, y, sample_weight=sample_weight)


class ExitInWorkerNB(GaussianNB):
    """Gaussian NB whose fit ends its process unless it runs in process ``main_pid``.

    A worker process dying mid-task (as the system's out-of-memory killer does).
    """

    def __init__(self, *, priors=None, var_smoothing=1e-9, main_pid=0):
        super().__init__(priors=priors, var_smoothing=var_smoothing)
        self.main_pid = main_pid

    def fit(self, X, y, sample_weight=None):
        import os

        if os.getpid() != self.main_pid:
            os._exit(3)
        return super().fit(X, y, sample_weight=sample_weight)


class UnpicklableError(Exception):
    """An exception that pickles but cannot be rebuilt (its ``__init__`` takes two arguments)."""

    def __init__(self, a, b):
        super().__init__(f"{a} {b}")


def raise_unpicklable():
    raise UnpicklableError("no", "way back")

