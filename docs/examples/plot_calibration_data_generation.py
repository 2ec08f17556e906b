"""
Calibration-data generation: DG and DGG
=======================================

With 80 training samples there is almost nothing left to calibrate on.
DG (data generation) collects out-of-bootstrap predictions until it has
``n_samples`` of them; DGG (data generation and grouping) averages them in
groups of ``group_size`` in score and in label, giving few, smooth calibration
points with fractional targets (Alasalmi, Suutala, Koskimäki & Röning 2020).
"""

import matplotlib.pyplot as plt
from sklearn.naive_bayes import GaussianNB

from bayescal.calibration import generate_calibration_data
from bayescal.datasets import make_thesis_synthetic

X, y, p_true = make_thesis_synthetic(n_per_class=40, random_state=0)
s_dg, y_dg = generate_calibration_data(GaussianNB(), X, y, method="dg", n_samples=2000,
                                       random_state=0)
s_dgg, y_dgg = generate_calibration_data(GaussianNB(), X, y, method="dgg", n_samples=2000,
                                         group_size=100, random_state=0)
print(f"DG: {s_dg.size} labelled predictions; DGG: {s_dgg.size} groups")

fig, ax = plt.subplots(figsize=(6, 4.5), layout="constrained")
ax.scatter(s_dg, y_dg + (y_dg - 0.5) * 0.06, s=4, alpha=0.15, color="0.4",
           label="DG: out-of-bootstrap predictions (label, jittered)")
ax.plot(s_dgg, y_dgg, "o-", color="C3", label="DGG: group means (score, positive rate)")
ax.plot([0, 1], [0, 1], ":", color="0.5", label="identity")
ax.set(xlabel="naive Bayes score", ylabel="label / positive rate", xlim=(-0.02, 1.02),
       ylim=(-0.1, 1.1), title="Calibration data from 80 training samples")
ax.legend(loc="center right", fontsize="small")
plt.show()
