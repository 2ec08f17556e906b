"""Numerical kernels shared across bayescal's packages (NumPy, SciPy and numba only).

A kernel that more than one package needs lives here rather than inside one of
them: importing ``bayescal.calibration._x`` runs ``bayescal/calibration/__init__.py``
(every calibrator), so a lower layer (:mod:`bayescal.metrics`) importing a kernel
from there would depend on the whole calibration package and close an import
cycle. This package's ``__init__`` imports nothing.

* :mod:`~bayescal._kernels.isotonic` — bayescal's one pool-adjacent-violators fit
  with tied scores pooled (:func:`~bayescal._kernels.isotonic.pooled_isotonic_fit`),
  used by :class:`~bayescal.calibration.IsotonicCalibrator`, ENIR (its tie
  pooling) and the CORP reliability diagram (:mod:`bayescal.metrics.corp`);
* :mod:`~bayescal._kernels.pava` — its numba PAV pass on pooled points;
* :mod:`~bayescal._kernels.sorting` — sorting scores and pooling ties by integer
  keys (numba);
* :mod:`~bayescal._kernels.softplus` — products of ``1 + exp(z)`` over groups of
  rows in one vectorised pass (numba), the inner loop of the Laplace check's exact
  log density (:mod:`bayescal.inference.laplace_glm`).
"""
