"""Datasets: loaders for real data and synthetic sets with known true probabilities.

Real data
    :func:`load_dataset` returns a :class:`Dataset` from scikit-learn's bundled
    sets or from CSV/TSV files (optionally gzipped) in a data directory;
    :func:`list_datasets` tabulates what is available.

Importing this package loads only NumPy and pandas; scikit-learn is imported when
a bundled set is loaded.
"""

from bayescal.datasets.loaders import (
    DATA_DIR_ENV,
    SKLEARN_DATASETS,
    DataFileWarning,
    Dataset,
    list_datasets,
    load_dataset,
)

__all__ = [
    "DATA_DIR_ENV",
    "SKLEARN_DATASETS",
    "DataFileWarning",
    "Dataset",
    "list_datasets",
    "load_dataset",
]
