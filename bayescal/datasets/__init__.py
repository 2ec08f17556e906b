"""Datasets: loaders for real data and synthetic sets with known true probabilities.

Real data
    :func:`load_dataset` returns a :class:`Dataset` from scikit-learn's bundled
    sets or from CSV/TSV files (optionally gzipped) in a data directory;
    :func:`list_datasets` tabulates what is available; :func:`locate_dataset`
    resolves a name to its source without reading it.
Synthetic data with known ``p_true``
    :func:`make_thesis_synthetic` (Alasalmi 2020), :func:`make_undersampling_simulation`
    with :func:`undersample`, :func:`undersampled_probability` and
    :func:`base_model_scores` (Phelps et al. 2024), :func:`make_gmm` (Ha et al. 2021) and
    :func:`make_multilabel`.
Missing values
    :func:`add_missing` inserts NaN under MCAR, MAR or MNAR.
Base models with known errors
    :class:`HypotheticalBaseModel` (Phelps et al.'s (2024) hypothetical base models as a
    scikit-learn classifier, so its simulation runs as a study; loaded on
    first use because it needs scikit-learn).

Importing this package loads only NumPy; pandas is imported when a file is read
or listed, scikit-learn when a bundled set is loaded.
"""

from bayescal.datasets.loaders import (
    DATA_DIR_ENV,
    SKLEARN_DATASETS,
    DataFileWarning,
    Dataset,
    list_datasets,
    load_dataset,
    locate_dataset,
)
from bayescal.datasets.missing import MISSING_MECHANISMS, add_missing
from bayescal.datasets.synthetic import (
    BASE_MODEL_KINDS,
    GMM_KINDS,
    UndersampledData,
    base_model_scores,
    make_gmm,
    make_multilabel,
    make_thesis_synthetic,
    make_undersampling_simulation,
    undersample,
    undersampled_probability,
)

__all__ = [
    "BASE_MODEL_KINDS",
    "DATA_DIR_ENV",
    "GMM_KINDS",
    "MISSING_MECHANISMS",
    "HypotheticalBaseModel",
    "SKLEARN_DATASETS",
    "DataFileWarning",
    "Dataset",
    "UndersampledData",
    "add_missing",
    "base_model_scores",
    "list_datasets",
    "load_dataset",
    "locate_dataset",
    "make_gmm",
    "make_multilabel",
    "make_thesis_synthetic",
    "make_undersampling_simulation",
    "undersample",
    "undersampled_probability",
]


def __getattr__(name: str) -> object:
    # HypotheticalBaseModel needs scikit-learn: import it on first use only
    if name == "HypotheticalBaseModel":
        from bayescal.datasets.base_models import HypotheticalBaseModel

        return HypotheticalBaseModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
