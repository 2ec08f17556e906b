"""Anonymous (TMLR submission) Tables 1-2: multi-label histogram binning, ECEs and Hamming loss before and after.

Anonymous (TMLR submission) §5-6 calibrates each label of a multi-label
network separately with histogram binning (``M = 10`` equal-width bins, binary
relevance) and reports, over several random partitions, the total ECE (Eq. 5,
the sum of the per-label ECEs) and the prevalence-weighted ECE (Eq. 6) of the
uncalibrated and the calibrated outputs on three data sets: a Kaggle image set
(7843 images, 10 labels) and PASCAL-VOC (20 labels) with ResNet-50, and the
PTSI-PRC propaganda tweets (9950 tweets, 20 labels) with BERT.

**Substitution** (the paper's data and networks are not available): each data
set is replaced by a generated multi-label set of the same number of labels
and rows (PASCAL-VOC's size is not given; 10 000), labels drawn from
:func:`bayescal.datasets.make_multilabel`, and the network by an over-confident
scorer of known error: each label's true probability with log-odds noise
``N(0, 0.5^2)`` (:func:`bayescal.datasets.base_model_scores`, kind
``"noisy"``): a score far from 0.5 is more extreme than the rate of its label,
as a deep network's sigmoid outputs are. Each random partition halves the rows
into a calibration and a test set; :class:`bayescal.calibration.MultiLabelCalibrator`
of :class:`bayescal.calibration.HistogramBinningCalibrator` is fitted on the
calibration half and both ECEs (:func:`bayescal.metrics.ece_total`,
:func:`bayescal.metrics.ece_weighted` with ``normalize="samples"``, Eq. 6 as
printed) are measured on the test half. Registered as the function blocks of
``models/reproductions/seed002_table1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FULL", "QUICK", "SETS", "MultiLabelSettings", "binning_table", "table1_full",
           "table1_quick", "table2_full", "table2_quick"]

#: The paper's data sets, substituted: (name, rows, labels).
SETS: tuple[tuple[str, int, int], ...] = (
    ("kaggle_image", 7843, 10),
    ("pascal_voc", 10000, 20),
    ("propaganda_prc", 9950, 20),
)


@dataclass(frozen=True)
class MultiLabelSettings:
    """Sizes of one run of :func:`binning_table`.

    Attributes
    ----------
    n_partitions : int
        Random calibration/test partitions ("several randomized partitions").
    noise_sd : float
        Log-odds noise of the substitute network's scores.
    n_bins : int
        Histogram bins of the calibrator and of both ECEs (the paper's ``M``).
    calibration_share : float
        Share of rows in the calibration half of a partition.
    seed : int
        Seeds the generated sets (one per set), the scores and the partitions.
    """

    n_partitions: int
    noise_sd: float = 0.5
    n_bins: int = 10
    calibration_share: float = 0.5
    seed: int = 2002


#: The CI size: 3 partitions per set.
QUICK = MultiLabelSettings(n_partitions=3)
#: The full size: 20 partitions per set.
FULL = MultiLabelSettings(n_partitions=20)


def binning_table(settings: MultiLabelSettings,
                  sets: tuple[tuple[str, int, int], ...] = SETS) -> tuple[Any, Any]:
    """ECE_tot and ECE_wavg, uncalibrated and after histogram binning, per set.

    Parameters
    ----------
    settings : MultiLabelSettings
        :data:`QUICK`, :data:`FULL` or your own.
    sets : tuple of (name, rows, labels)
        Default :data:`SETS`, the paper's three data sets (substituted).

    Returns
    -------
    table : pandas.DataFrame
        Columns ``dataset``, ``method`` (``uncalibrated``,
        ``histogram_binning``), ``metric`` (``ECE_wavg``, ``ECE_tot``, and
        ``HL``: Hamming loss, Eq. 7, of the labels predicted present at
        probability >= 0.5) and ``ours`` (the mean over partitions).
    partitions : pandas.DataFrame
        The same per partition (column ``partition``), for the spread.

    Raises
    ------
    ValueError
        If a set's size or number of labels is not a positive integer, or
        ``calibration_share`` is not in (0, 1).
    """
    import pandas as pd
    from sklearn.model_selection import train_test_split

    from bayescal.calibration import HistogramBinningCalibrator, MultiLabelCalibrator
    from bayescal.datasets import base_model_scores, make_multilabel
    from bayescal.metrics import ece_total, ece_weighted
    from bayescal.metrics.multilabel import hamming_loss
    from bayescal.validation import check_fraction

    check_fraction(settings.calibration_share, "calibration_share")
    rows = []
    for index, (name, n, n_labels) in enumerate(sets):
        _, Y, p_true = make_multilabel(n, n_labels, random_state=settings.seed + index)
        rng = np.random.default_rng(settings.seed + 100 + index)
        scores = np.column_stack([
            base_model_scores(p_true[:, label], "noisy", random_state=rng,
                              noise_sd=settings.noise_sd) for label in range(n_labels)])
        for part in range(settings.n_partitions):
            cal, test = train_test_split(np.arange(n), train_size=settings.calibration_share,
                                         random_state=settings.seed + 1000 * index + part)
            binning = MultiLabelCalibrator(HistogramBinningCalibrator(n_bins=settings.n_bins))
            calibrated = binning.fit(scores[cal], Y[cal]).predict_proba(scores[test])
            for method, P in (("uncalibrated", scores[test]), ("histogram_binning", calibrated)):
                values = {
                    "ECE_wavg": ece_weighted(Y[test], P, settings.n_bins, normalize="samples"),
                    "ECE_tot": ece_total(Y[test], P, settings.n_bins),
                    "HL": hamming_loss(Y[test], P, threshold=0.5)}
                rows += [{"dataset": name, "partition": part, "method": method,
                          "metric": metric, "ours": value} for metric, value in values.items()]
    partitions = pd.DataFrame(rows)
    table = (partitions.groupby(["dataset", "method", "metric"], sort=False)["ours"].mean()
             .reset_index())
    return table, partitions


def _block(out: Path, settings: MultiLabelSettings,
           metrics: tuple[str, ...] = ("ECE_wavg", "ECE_tot")) -> Any:
    table, partitions = binning_table(settings)
    spread = (partitions.groupby(["dataset", "method", "metric"], sort=False)["ours"]
              .agg(["mean", "std"]).reset_index())
    spread.to_csv(Path(out) / "partitions.csv", index=False)
    return table[table["metric"].isin(metrics)].reset_index(drop=True)


def _hamming_block(out: Path, settings: MultiLabelSettings) -> Any:
    """Table 2: Hamming loss per set and method, and the claim's figure: calibrated less
    uncalibrated Hamming loss (the paper: binning "does not hamper the accuracy")."""
    import pandas as pd

    table = _block(out, settings, metrics=("HL",))
    wide = table.pivot(index="dataset", columns="method", values="ours")
    claim = pd.DataFrame({"dataset": wide.index, "method": "calibrated_minus_uncalibrated",
                          "metric": "claim",
                          "ours": (wide["histogram_binning"] - wide["uncalibrated"]).to_numpy()})
    return pd.concat([table, claim], ignore_index=True)


def table2_quick(out: Path, n_jobs: int | None = None) -> Any:
    """Function block of ``seed002_table2`` (Hamming loss), quick size (:data:`QUICK`)."""
    return _hamming_block(out, QUICK)


def table2_full(out: Path, n_jobs: int | None = None) -> Any:
    """Function block of ``seed002_table2`` (Hamming loss), full size (:data:`FULL`)."""
    return _hamming_block(out, FULL)


def table1_quick(out: Path, n_jobs: int | None = None) -> Any:
    """Function block of ``seed002_table1``, quick size (:data:`QUICK`).

    Writes the mean and standard deviation over partitions to ``partitions.csv``.
    """
    return _block(out, QUICK)


def table1_full(out: Path, n_jobs: int | None = None) -> Any:
    """Function block of ``seed002_table1``, full size (:data:`FULL`)."""
    return _block(out, FULL)
