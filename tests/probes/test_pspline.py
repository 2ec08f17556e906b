"""Tests of the Bayesian P-spline basis helpers (knots, B-splines, penalty root)."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.probes.calibration_maps import penalised_spline_design as reexported
from bayescal.probes.pspline import penalised_spline_design, spline_basis, spline_knots


def test_helpers_stay_importable_from_calibration_maps():
    assert reexported is penalised_spline_design


def test_penalised_spline_design_whitens_the_penalty():
    root = penalised_spline_design(8)
    D = np.diff(np.eye(8), n=2, axis=0)
    np.testing.assert_allclose(root.T @ D.T @ D @ root, np.eye(6), atol=1e-10)
    # Orthogonal to the null space: constant and linear coefficient sequences.
    np.testing.assert_allclose(root.T @ np.ones(8), 0.0, atol=1e-10)
    np.testing.assert_allclose(root.T @ np.arange(8.0), 0.0, atol=1e-9)


@pytest.mark.parametrize("n_basis", [4, 5, 10, 23])
@pytest.mark.parametrize("lo, hi", [(-4.59511985013459, 4.59511985013459), (0.1, 0.1 + 1e-7),
                                    (-27.631021115928547, 3.0), (1e-300, 7.0)])
def test_spline_knots_put_the_range_ends_exactly_on_the_base_interval(n_basis, lo, hi):
    knots = spline_knots(lo, hi, n_basis)
    assert knots.size == n_basis + 4 and np.all(np.diff(knots) > 0)
    assert knots[3] == lo and knots[-4] == hi
    z = np.r_[lo, hi, np.linspace(lo, hi, 7)]
    basis = spline_basis(z, knots)
    assert basis.shape == (z.size, n_basis)
    np.testing.assert_allclose(basis.sum(axis=1), 1.0, atol=1e-12)  # partition of unity


def test_spline_basis_refuses_points_outside_its_interval_by_name():
    knots = spline_knots(0.0, 1.0, 6)
    with pytest.raises(ValueError, match=r"`z` has 1 value\(s\) outside .* clip"):
        spline_basis(np.array([0.5, 1.0 + 1e-9]), knots)
