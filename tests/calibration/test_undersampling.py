"""Tests of UndersamplingCorrection and seed 004's simulation (its Tables 1-3 ordering)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bayescal.calibration import (
    LogisticGAMCalibrator,
    PlattCalibrator,
    UndersamplingCorrection,
)
from bayescal.datasets.synthetic import (
    base_model_scores,
    make_undersampling_simulation,
    undersampled_probability,
)


def test_map_closed_form_and_logit_shift():
    gamma = np.array([0.0, 0.1, 0.5, 0.9, 1.0])
    cal = UndersamplingCorrection(pi0=0.2).fit(gamma)
    p = cal.predict_proba(gamma)[:, 1]
    np.testing.assert_allclose(p, gamma * 0.2 / (1 - gamma + gamma * 0.2))
    # seed 004 Eq. 4: logit p = logit gamma + log pi0
    inner = slice(1, 4)
    np.testing.assert_allclose(
        np.log(p[inner] / (1 - p[inner])),
        np.log(gamma[inner] / (1 - gamma[inner])) + np.log(0.2),
    )
    assert p[0] == 0.0 and p[-1] == 1.0


def test_inverts_undersampled_probability():
    p = np.linspace(0.0, 1.0, 101)
    gamma = undersampled_probability(p, 0.05)
    np.testing.assert_allclose(
        UndersamplingCorrection(pi0=0.05).fit(gamma).predict_proba(gamma)[:, 1], p, atol=1e-15
    )


def test_y_is_ignored_and_pi0_one_is_identity():
    s = np.array([0.2, 0.7])
    a = UndersamplingCorrection(pi0=0.3).fit(s, [1, 1], sample_weight=[1, 5])
    b = UndersamplingCorrection(pi0=0.3).fit(s)
    np.testing.assert_array_equal(a.predict_proba(s), b.predict_proba(s))
    np.testing.assert_allclose(UndersamplingCorrection(pi0=1.0).fit(s).predict_proba(s)[:, 1], s)


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, 20, elements=st.floats(0.0, 1.0)), st.floats(1e-4, 1.0))
def test_map_is_monotone_probability_below_identity(scores, pi0):
    cal = UndersamplingCorrection(pi0=pi0).fit(scores)
    grid = np.linspace(0, 1, 201)
    p = cal.calibration_map(grid)
    assert np.all((p >= 0) & (p <= grid + 1e-15))
    assert np.all(np.diff(p) >= 0)


BAD = [
    (dict(pi0=0.0), [0.1, 0.2], None, ValueError, "pi0"),
    (dict(pi0=1.5), [0.1, 0.2], None, ValueError, "pi0"),
    (dict(pi0="0.1"), [0.1, 0.2], None, TypeError, "pi0"),
    (dict(pi0=0.1), [0.1, 1.2], None, ValueError, "<= 1"),
    (dict(pi0=0.1), [0.1, 0.2], [0, 1, 1], ValueError, "inconsistent"),
]


@pytest.mark.parametrize(("params", "scores", "y", "error", "match"), BAD)
def test_bad_input(params, scores, y, error, match):
    with pytest.raises(error, match=match):
        UndersamplingCorrection(**params).fit(scores, y)


# --------------------------------------------------------------------------- #
# Seed 004's simulation reduced to test size: b = 1.1 (mean outcome ~0.11),
# pi0 = 0.125 (the paper's setting for that b), 20 000 calibration and 20 000
# test rows drawn from Eq. A1, scored by the hypothetical base models of its
# Eqs. 7-8. RMSE to the true probability, as in its Tables 1-3.
# --------------------------------------------------------------------------- #

B, PI0, N = 1.1, 0.125, 20_000


def _rmse_table(kind: str) -> dict[str, float]:
    _, y_cal, p_cal = make_undersampling_simulation(N, B, random_state=1)
    _, _, p_test = make_undersampling_simulation(N, B, random_state=2)
    s_cal = base_model_scores(undersampled_probability(p_cal, PI0), kind)
    s_test = base_model_scores(undersampled_probability(p_test, PI0), kind)
    methods = {
        "PS": PlattCalibrator(target_smoothing=False),
        "PS logit": PlattCalibrator(input="logit", target_smoothing=False, clip=1e-12),
        # UBRE: what mgcv::gam (used by the paper) selects with for a binomial.
        "PS GAM": LogisticGAMCalibrator(criterion="ubre"),
        "PS logit GAM": LogisticGAMCalibrator(input="logit", criterion="ubre", clip=1e-12),
        "analytical": UndersamplingCorrection(pi0=PI0),
    }
    out = {}
    for name, cal in methods.items():
        p_hat = cal.fit(s_cal, y_cal).predict_proba(s_test)[:, 1]
        out[name] = float(np.sqrt(np.mean((p_hat - p_test) ** 2)))
    return out


@pytest.mark.slow
def test_seed004_perfect_base_model():
    rmse = _rmse_table("perfect")
    assert rmse["analytical"] < 1e-12  # exact for a perfect base model (Eq. 1)
    assert rmse["PS logit"] < 0.6 * rmse["PS"]  # Table 1: the logit fixes Theorem 1


@pytest.mark.slow
def test_seed004_base_model_towards_half():
    rmse = _rmse_table("toward_half")
    assert rmse["PS"] < rmse["PS logit"]  # Table 2 (Theorem 2: PS is exact here)
    assert rmse["analytical"] > 5 * rmse["PS"]


@pytest.mark.slow
def test_seed004_base_model_towards_extremes():
    rmse = _rmse_table("toward_extremes")
    platt_family = ["PS", "PS logit", "PS GAM", "PS logit GAM"]
    assert min(platt_family, key=rmse.get) == "PS logit GAM"  # Table 3
    assert rmse["PS logit GAM"] < 0.8 * min(rmse["PS logit"], rmse["PS GAM"])
