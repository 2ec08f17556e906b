"""The bundled example predictions file and the script that made it.

``bayescal/assessment/data/example_predictions.csv.gz``: out-of-fold predicted
probabilities of three scikit-learn classifiers on the German credit data
(Statlog German credit, UCI; 1000 applicants, ``target`` 1 = bad credit risk),
from 5-fold stratified cross-validation with seed 0 -- ``p_nb`` (Gaussian naive
Bayes), ``p_lr`` (standardised logistic regression) and ``p_rf`` (random forest,
200 trees), each after median imputation, rounded to 6 decimals. Regenerate it
from the shared data directory with::

    python -m bayescal.assessment.example /path/to/data

and assess it with::

    bayescal assess "$(python -c 'import bayescal.assessment.example as e; print(e.example_path())')" \\
        --proba p_nb p_lr p_rf --label target --out assess-output
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["example_path", "make_example_predictions"]

#: The shipped file, inside the package.
EXAMPLE_FILE = Path(__file__).resolve().parent / "data" / "example_predictions.csv.gz"

#: Classifier name (:data:`bayescal.assessment.out_of_fold.CLASSIFIERS`) -> column.
COLUMNS = {"naive_bayes": "p_nb", "logistic_regression": "p_lr", "random_forest": "p_rf"}


def example_path() -> Path:
    """Path of the bundled example predictions file."""
    return EXAMPLE_FILE


def make_example_predictions(data_dir: Path, out: Path = EXAMPLE_FILE) -> Path:
    """Write the example file from the German credit data in ``data_dir``.

    Parameters
    ----------
    data_dir : Path
        Directory holding ``german_credit.tsv.gz``.
    out : Path, default=EXAMPLE_FILE

    Returns
    -------
    Path
    """
    import pandas as pd

    from bayescal.assessment.out_of_fold import cross_validated_proba
    from bayescal.datasets import load_dataset

    ds = load_dataset("german_credit", data_dir)
    frame = pd.DataFrame({
        column: cross_validated_proba(ds.X, ds.y, ds.class_names, name, 5, 0)[:, 1].round(6)
        for name, column in COLUMNS.items()
    })
    frame["target"] = ds.y
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False, compression={"method": "gzip", "mtime": 0})
    return out


if __name__ == "__main__":  # pragma: no cover
    print(make_example_predictions(Path(sys.argv[1])))
