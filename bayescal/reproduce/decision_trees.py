"""Sigg (2022), decision-tree lecture notes: the worked examples, recomputed.

Function block of ``models/reproductions/seed001_worked_examples`` (see
:mod:`bayescal.reproduce.registry`). The lecture works three examples by hand:

1. **Information gain** ("Decision trees"): the 30-row "at work or not?" table
   (WiFi, Acc, Audio, Light -> Work / Not at work). The entropy of the label,
   ``E(p_1, ..., p_n) = -sum p_i log2 p_i``, is 0.997; the information value of
   an attribute is the entropy of each of its values' subsets, weighted by the
   subset's share of rows (WiFi 0.868, Acc 0.756, Audio 0.884, Light 0.948); its
   gain is the difference (0.129, 0.241, 0.113, 0.049).
2. **Confidence on a prediction**: the Wilson-type interval
   ``mu = (p' + z^2/2n +- z sqrt(p'/n - p'^2/n + z^2/4n^2)) / (1 + z^2/n)`` of an
   observed rate ``p' = 0.75`` at ``c = 0.8`` (``z = 1.28``): [0.732, 0.767] for
   ``n = 1000`` and [0.691, 0.801] for ``n = 100``.
3. **Estimating error rates** (C4.5's pessimistic pruning): the upper limit of
   the same interval, one-sided ``z = 0.69`` (``c = 25 %``), of a leaf's observed
   error ``q' = e / n``: 0.47 for ``e = 2, n = 6``, 0.72 for ``e = 1, n = 2``; the
   children's estimate weighted by their rows, 0.51, against the parent's
   (``q' = 5/14``) 0.46, so the children are pruned away.

The interval is :func:`bayescal.metrics.wilson_interval` with the confidence
whose ``z`` is the one the lecture prints; entropy and gain are written here
(the closed forms above).
"""

from __future__ import annotations

from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

__all__ = ["AT_WORK", "entropy", "information_gain", "pessimistic_error", "worked_examples"]

#: The lecture's 30 rows (number, WiFi, Acc, Audio, Light, label), as printed.
AT_WORK = (
    (1, "<3", "walking", "quiet", "outdoor", "Work"),
    (2, "<3", "walking", "quiet", "outdoor", "Work"),
    (3, "3-5", "walking", "quiet", "outdoor", "Work"),
    (4, "3-5", "sitting", "quiet", "outdoor", "Work"),
    (5, "<3", "sitting", "quiet", "indoor", "Work"),
    (6, "3-5", "sitting", "quiet", "indoor", "Work"),
    (7, "3-5", "sitting", "quiet", "indoor", "Work"),
    (8, "3-5", "sitting", "quiet", "indoor", "Work"),
    (9, ">5", "walking", "loud", "indoor", "Work"),
    (10, ">5", "standing", "medium", "indoor", "Work"),
    (11, ">5", "sitting", "medium", "indoor", "Work"),
    (12, ">5", "sitting", "medium", "indoor", "Work"),
    (13, ">5", "sitting", "medium", "indoor", "Work"),
    (14, ">5", "sitting", "medium", "indoor", "Work"),
    (15, ">5", "sitting", "medium", "indoor", "Work"),
    (16, ">5", "sitting", "loud", "indoor", "Work"),
    (17, "<3", "walking", "quiet", "indoor", "Not at work"),
    (18, "<3", "walking", "quiet", "indoor", "Not at work"),
    (19, "<3", "standing", "quiet", "indoor", "Not at work"),
    (20, "<3", "walking", "medium", "indoor", "Not at work"),
    (21, "<3", "walking", "loud", "outdoor", "Not at work"),
    (22, "<3", "walking", "medium", "indoor", "Not at work"),
    (23, "<3", "walking", "medium", "indoor", "Not at work"),
    (24, "3-5", "walking", "quiet", "outdoor", "Not at work"),
    (25, "3-5", "standing", "quiet", "outdoor", "Not at work"),
    (26, "3-5", "standing", "quiet", "outdoor", "Not at work"),
    (27, "3-5", "standing", "loud", "outdoor", "Not at work"),
    (28, "3-5", "walking", "loud", "outdoor", "Not at work"),
    (29, ">5", "sitting", "loud", "outdoor", "Not at work"),
    (30, ">5", "sitting", "loud", "outdoor", "Not at work"),
)
_ATTRIBUTES = ("WiFi", "Acc", "Audio", "Light")


def entropy(labels: Any, *, base: float = 2.0) -> float:
    """Entropy ``-sum p_i log p_i`` of the labels' shares (log base ``base``).

    Examples
    --------
    >>> round(entropy(["a", "b"]), 3), entropy(["a", "a"])
    (1.0, 0.0)
    """
    _, counts = np.unique(np.asarray(labels, dtype=object).astype(str), return_counts=True)
    if counts.size == 0:
        raise ValueError("`labels` is empty: an empty set has no entropy")
    p = counts / counts.sum()
    return float(-(p * np.log(p)).sum() / np.log(base))


def information_value(feature: Any, labels: Any, *, base: float = 2.0) -> float:
    """Entropy of the labels within each value of ``feature``, weighted by its share."""
    feature = np.asarray(feature, dtype=object).astype(str)
    labels = np.asarray(labels, dtype=object).astype(str)
    if feature.shape != labels.shape:
        raise ValueError(f"`feature` ({feature.shape}) and `labels` ({labels.shape}) must "
                         "have the same length")
    return float(sum((feature == v).mean() * entropy(labels[feature == v], base=base)
                     for v in np.unique(feature)))


def information_gain(feature: Any, labels: Any, *, base: float = 2.0) -> float:
    """Entropy of the labels less their information value given ``feature``."""
    return entropy(labels, base=base) - information_value(feature, labels, base=base)


def pessimistic_error(errors: float, n: float, *, z: float = 0.69) -> float:
    """C4.5's pessimistic error: the upper limit of the Wilson-type interval of ``e/n``.

    ``z`` is one-sided (0.69 for the lecture's confidence of 25 %).

    Examples
    --------
    >>> round(pessimistic_error(2, 6), 2)
    0.47
    """
    from bayescal.metrics import wilson_interval

    two_sided = 2.0 * NormalDist().cdf(z) - 1.0
    return float(wilson_interval(errors, n, confidence=two_sided)[1])


def worked_examples(out: Path, n_jobs: int | None = None) -> Any:
    """The three examples' figures (one line per printed value), for the reproduction."""
    import pandas as pd

    del out, n_jobs  # nothing to write, nothing to run in parallel
    rows = np.array(AT_WORK, dtype=object)
    labels = rows[:, 5]
    lines = [{"quantity": "entropy", "method": "label", "ours": entropy(labels)}]
    for j, name in enumerate(_ATTRIBUTES, start=1):
        lines.append({"quantity": "information_value", "method": name,
                      "ours": information_value(rows[:, j], labels)})
        lines.append({"quantity": "information_gain", "method": name,
                      "ours": information_gain(rows[:, j], labels)})
    frame = pd.DataFrame(lines).assign(example="at_work")
    from bayescal.metrics import wilson_interval

    confidence = 2.0 * NormalDist().cdf(1.28) - 1.0  # the lecture's z = 1.28 for c = 0.8
    conf = []
    for n in (1000, 100):
        lo, hi = wilson_interval(0.75 * n, n, confidence=confidence)
        conf += [{"quantity": "lower", "method": f"n{n}", "ours": lo},
                 {"quantity": "upper", "method": f"n{n}", "ours": hi}]
    leaves = {"left": (2, 6), "center": (1, 2), "right": (2, 6)}
    mu = {k: pessimistic_error(e, n) for k, (e, n) in leaves.items()}
    total = sum(n for _, n in leaves.values())
    children = sum(mu[k] * n / total for k, (_, n) in leaves.items())
    parent = pessimistic_error(5, 14)
    prune = [{"quantity": "observed_error", "method": "left", "ours": 2 / 6},
             *({"quantity": "pessimistic_error", "method": k, "ours": v} for k, v in mu.items()),
             {"quantity": "pessimistic_error", "method": "children", "ours": children},
             {"quantity": "pessimistic_error", "method": "parent", "ours": parent},
             {"quantity": "prune", "method": "parent_minus_children", "ours": parent - children}]
    return pd.concat([frame, pd.DataFrame(conf).assign(example="confidence"),
                      pd.DataFrame(prune).assign(example="pruning")], ignore_index=True
                     ).assign(metric=lambda f: np.where(f["quantity"] == "prune", "claim",
                                                        "value"))
