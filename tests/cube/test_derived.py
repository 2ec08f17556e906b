"""Label metrics recomputed from a cube's stored predictions equal the recorded ones."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.cube import open_results
from bayescal.cube.derived import fold_label_metric
from bayescal.study import run
from bayescal.study.spec import parse_spec

SPEC = """
[study]
name = "derived"
seed = 5

[protocol]
kind = "kfold"
n_splits = 3

[datasets.blobs]
generator = "sklearn.datasets.make_classification"
params = { n_samples = 90, n_features = 4, n_informative = 2, n_redundant = 0 }

[classifiers.nb]
class = "sklearn.naive_bayes.GaussianNB"

[classifiers.lr]
class = "sklearn.linear_model.LogisticRegression"

[scenarios.raw]
kind = "raw"

[scenarios.iso]
kind = "split"
calibrator = { class = "bayescal.calibration.IsotonicCalibrator" }
classifiers = ["nb"]

[metrics]
names = ["brier", "log_loss", "accuracy"]
"""


@pytest.fixture(scope="module")
def cube(tmp_path_factory):
    store = tmp_path_factory.mktemp("derived") / "store"
    run(parse_spec(SPEC), store, n_jobs=1, progress=False)
    return open_results(store)


@pytest.mark.parametrize("metric", ["brier", "log_loss", "accuracy"])
def test_recomputed_equals_recorded(cube, metric):
    recorded = cube["/metrics"].ds[metric]
    got = fold_label_metric(cube, metric).transpose(*recorded.dims)
    np.testing.assert_array_equal(got.to_numpy(), recorded.to_numpy())  # NaN where n/a


def test_brier_sum_is_twice_binary_brier(cube):
    brier = fold_label_metric(cube, "brier")
    total = fold_label_metric(cube, "brier_sum")
    assert np.isnan(total.sel(classifier="lr", scenario="iso")).all()  # not applicable
    np.testing.assert_allclose(total.to_numpy(), 2 * brier.to_numpy(), rtol=1e-12)


def test_bad_input(cube):
    with pytest.raises(ValueError, match="not a result cube"):
        fold_label_metric(object(), "brier")
    with pytest.raises(ValueError, match="not a label metric"):
        fold_label_metric(cube, "rmse_true")
