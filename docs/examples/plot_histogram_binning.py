"""
Histogram binning
=================

Histogram binning replaces each score by the positive rate of its bin. With
equal-width bins (``strategy="uniform"``) the over-confident base model leaves
the middle bins nearly empty; equal-frequency bins (``strategy="quantile"``)
rest every step on the same number of calibration samples.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.calibration import HistogramBinningCalibrator
from bayescal.datasets import base_model_scores
from bayescal.metrics import expected_calibration_error
from bayescal.report import plot_calibration_map

rng = np.random.default_rng(0)
p_cal, p_test = rng.uniform(size=1000), rng.uniform(size=2000)
y_cal, y_test = rng.binomial(1, p_cal), rng.binomial(1, p_test)
s_cal = base_model_scores(p_cal, kind="toward_extremes")
s_test = base_model_scores(p_test, kind="toward_extremes")

maps = {
    f"{strategy} bins": HistogramBinningCalibrator(n_bins=10, strategy=strategy).fit(s_cal, y_cal)
    for strategy in ("uniform", "quantile")
}
print(f"base model: held-out ECE {expected_calibration_error(y_test, s_test):.3f}")
for name, calibrator in maps.items():
    ece = expected_calibration_error(y_test, calibrator.predict_proba(s_test)[:, 1])
    print(f"{name}: held-out ECE {ece:.3f}")

grid = np.linspace(0.007, 0.993, 199)
true_map = np.clip(0.5 + np.log(grid / (1 - grid)) / 10, 0, 1)
fig, ax = plt.subplots(figsize=(6, 4.5), layout="constrained")
plot_calibration_map(maps, grid, ax=ax, reference=true_map, reference_label="true map")
ax.set_title("Ten bins on an over-confident base model")
plt.show()
