"""Proposal 2's Fig. 12 block: U for several cluster sizes M, and the figures checked."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.reproduce.boundary_sensitivity import _table, u_by_m


def test_identical_curves_give_no_shift_full_rank_agreement_and_no_change():
    grid = tuple(2.0 ** k for k in range(-3, 4))
    curve = np.array([0.1, 0.3, 0.7, 0.9, 0.6, 0.2, 0.0])
    t = _table({20: curve, 40: curve, 80: curve}, grid).set_index("method")["ours"]
    assert t["optimum_shift"] == 0 and t["trend"] == pytest.approx(1.0)
    assert t["level_change"] == 0


def test_shifted_optimum_is_counted_in_powers_of_two():
    grid = tuple(2.0 ** k for k in range(-3, 4))
    ref = np.array([0.1, 0.3, 0.7, 0.9, 0.6, 0.2, 0.0])
    moved = np.array([0.1, 0.95, 0.7, 0.9, 0.6, 0.2, 0.0])  # optimum two steps lower
    t = _table({40: ref, 160: moved}, grid).set_index("method")["ours"]
    assert t["optimum_shift"] == 2
    assert t["level_change"] == pytest.approx(np.abs(moved - ref).mean() / ref.mean())


def test_u_by_m_is_a_boundary_uncertainty_per_gamma():
    grid = (2.0 ** -6, 2.0 ** 0, 2.0 ** 6)
    u = u_by_m(120, grid, m_values=(20, 40))
    assert set(u) == {20, 40}
    for values in u.values():
        assert values.shape == (3,) and np.all((values >= 0) & (values <= 1))
