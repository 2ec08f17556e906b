"""
Temperature scaling
===================

Temperature scaling divides all logits by one fitted temperature ``T``: the
predicted class never changes, only the confidence. A multi-class naive Bayes
model on the digits is far too sure of itself (``T`` well above 1); after
scaling, the top-label reliability diagram follows the diagonal.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

from bayescal.calibration import TemperatureScaling
from bayescal.report import plot_reliability_diagram

X, y = load_digits(return_X_y=True)
X_train, X_rest, y_train, y_rest = train_test_split(X, y, test_size=0.6, random_state=0)
X_cal, X_test, y_cal, y_test = train_test_split(X_rest, y_rest, test_size=0.5, random_state=1)
model = GaussianNB(var_smoothing=1e-2).fit(X_train, y_train)
P_cal = model.predict_proba(X_cal)
P_test = model.predict_proba(X_test)

ts = TemperatureScaling().fit(P_cal, y_cal)
print(f"fitted temperature: {ts.temperature_:.2f}")

fig, ax = plt.subplots(figsize=(6, 4.5), layout="constrained")
plot_reliability_diagram(y_test, P_test, kind="top_label", ax=ax, style="points",
                         label="naive Bayes", show_histogram=False)
plot_reliability_diagram(y_test, ts.predict_proba(P_test), kind="top_label", ax=ax,
                         style="points", label=f"temperature scaled (T = {ts.temperature_:.1f})",
                         show_histogram=False)
handles, labels = ax.get_legend_handles_labels()
unique = dict(zip(labels, handles, strict=True))  # each call draws a diagonal
ax.legend(unique.values(), unique.keys(), loc="upper left")
ax.set_title("Top-label reliability on the digits (10 classes)")
plt.show()
