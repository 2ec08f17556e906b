"""What ARD and a restart buy a GP classifier on the shared data sets, and what they cost.

Run ``BAYESCAL_DATA=/work/shared/data python benchmarks/gpc_shared.py`` (``--quick``:
n = 500 only, one split). For each two-class and three-class data set of
moderate size, ``--splits`` random splits: ``n`` training rows (500, and 2000
where the set has enough rows) and up to 2000 held-out rows; rows with a
missing value are dropped. Every fit runs under one BLAS thread; CPU seconds
of this process (``time.process_time``).

Variants, all on inputs standardised with the training mean and standard
deviation:

* bayescal ``BayesianGPClassifier`` (exact EP): the default, and ``ard``
  False / "auto" / True times ``n_restarts`` 0 / 1 (ARD forced only at n = 500);
* scikit-learn ``GaussianProcessClassifier`` (Laplace, one-vs-rest for three
  classes) with ``ConstantKernel() * RBF(1.0)`` (isotropic) or
  ``ConstantKernel() * RBF(ones(D))`` (ARD, at n = 500 and ``D <= 13`` only:
  its gradient holds an ``n x n x D`` array), ``n_restarts_optimizer`` 0 and
  (at n = 500) 1.

Output: one line per fit (``--out`` also writes them as JSON lines), then a
summary per (n, variant): median and total CPU seconds, mean held-out Brier
(scikit-learn's ``brier_score_loss`` on the probability matrix) and log loss,
and the mean change of both against the bayescal variant ``ard=False,
n_restarts=0`` on the same split.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gpc import fit_bayescal, fit_sklearn  # noqa: E402

from bayescal.datasets import load_dataset  # noqa: E402
from bayescal.threads import limit_blas_threads  # noqa: E402

#: (file stem, how to make the target) -- two classes, then three.
DATASETS = (
    ("banknote_authentication", None),
    ("blood_transfusion", None),
    ("breast_cancer_wisconsin_original", None),
    ("german_credit", None),
    ("mammographic_mass", None),
    ("qsar_biodeg", None),
    ("titanic", None),
    ("spambase", None),
    ("mushroom", None),
    ("cmc", None),
    ("cardiotocography", None),
    ("waveform_21", None),
)
#: Smallest number of held-out rows of a split.
MIN_TEST_ROWS = 190
MAX_TEST_ROWS = 2000
SKLEARN_ARD_MAX_INPUTS = 13


def _variants(n: int, d: int) -> list[tuple[str, str, dict]]:
    out = [("bayescal", "default", {})]
    for ard in (False, "auto", True):
        if ard is True and n > 500:
            continue
        for restarts in (0, 1):
            out.append(("bayescal", f"ard={ard} r={restarts}",
                        {"ard": ard, "n_restarts": restarts}))
    for restarts in (0, 1) if n <= 500 else (0,):
        out.append(("sklearn", f"iso r={restarts}", {"ard": False, "n_restarts": restarts}))
    if n <= 500 and d <= SKLEARN_ARD_MAX_INPUTS:
        out.append(("sklearn", "ARD r=0", {"ard": True, "n_restarts": 0}))
    return out


def _scores(y: np.ndarray, proba: np.ndarray, n_classes: int) -> tuple[float, float]:
    from sklearn.metrics import brier_score_loss, log_loss

    labels = np.arange(n_classes)
    p = proba[:, 1] if n_classes == 2 else proba
    return (float(brier_score_loss(y, p, labels=labels)),
            float(log_loss(y, np.clip(proba, 1e-15, 1.0), labels=labels)))


def run(sizes: list[int], splits: int, names: list[str] | None, out: Path | None,
        only: list[str] | None = None) -> list[dict]:
    rows: list[dict] = []
    warm = np.random.default_rng(0).normal(size=(40, 3))
    fit_bayescal(warm, (warm[:, 0] > 0).astype(int))  # imports outside the timings
    fit_sklearn(warm, (warm[:, 0] > 0).astype(int), ard=False)
    sink = out.open("w") if out else None
    for name, _ in DATASETS:
        if names and name not in names:
            continue
        data = load_dataset(name, dropna=True)
        X, y = data.X, data.y
        k = int(np.unique(y).size)
        for n in sizes:
            if X.shape[0] < n + MIN_TEST_ROWS:
                continue
            for split in range(splits):
                rng = np.random.default_rng(1000 * split + n)
                order = rng.permutation(X.shape[0])
                train, test = order[:n], order[n:n + MAX_TEST_ROWS]
                if np.unique(y[train]).size < k:
                    continue
                for library, variant, params in _variants(n, X.shape[1]):
                    if only and f"{library}:{variant}" not in only:
                        continue
                    fit = fit_bayescal if library == "bayescal" else fit_sklearn
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        predict, cpu, info = fit(X[train], y[train], **params)
                    brier, logloss = _scores(y[test], predict(X[test]), k)
                    row = {"data": name, "n": n, "d": int(X.shape[1]), "classes": k,
                           "split": split, "library": library, "variant": variant, "cpu": cpu,
                           "brier": brier, "log_loss": logloss, **info,
                           "load": os.getloadavg()[0]}
                    rows.append(row)
                    if sink:
                        sink.write(json.dumps(row) + "\n")
                        sink.flush()
                    print(f"{name:>32} n={n:<5} s={split} {library:>8} {variant:<18} "
                          f"cpu {cpu:7.2f}  brier {brier:.4f}  logloss {logloss:.4f}  "
                          f"{info.get('note', '')}  load {row['load']:.1f}", flush=True)
    return rows


def summarise(rows: list[dict]) -> None:
    """Per (n, variant): CPU, Brier, log loss and their change against bayescal ard=False r=0."""
    base = {(r["data"], r["n"], r["split"]): r for r in rows
            if r["library"] == "bayescal" and r["variant"] == "ard=False r=0"}
    keys = sorted({(r["n"], r["library"], r["variant"]) for r in rows})
    print(f"\n{'n':>5} {'library':>8} {'variant':<18} {'fits':>4} {'CPU med':>8} {'CPU sum':>8} "
          f"{'Brier':>7} {'logloss':>8} {'dBrier':>8} {'dlogloss':>9} {'worst dBrier':>12}")
    for n, library, variant in keys:
        sel = [r for r in rows if (r["n"], r["library"], r["variant"]) == (n, library, variant)]
        paired = [(r, base[(r["data"], r["n"], r["split"])]) for r in sel
                  if (r["data"], r["n"], r["split"]) in base]
        db = [r["brier"] - b["brier"] for r, b in paired]
        dl = [r["log_loss"] - b["log_loss"] for r, b in paired]
        cpu = [r["cpu"] for r in sel]
        print(f"{n:>5} {library:>8} {variant:<18} {len(sel):>4} {np.median(cpu):>8.2f} "
              f"{np.sum(cpu):>8.1f} {np.mean([r['brier'] for r in sel]):>7.4f} "
              f"{np.mean([r['log_loss'] for r in sel]):>8.4f} {np.mean(db):>+8.4f} "
              f"{np.mean(dl):>+9.4f} {max(db):>+12.4f}")


def summarise_by_data(rows: list[dict]) -> None:
    """Per (n, data set): mean held-out Brier and median CPU seconds of each variant."""
    variants = sorted({(r["library"], r["variant"]) for r in rows})
    names = [f"{lib[:2]}:{var}" for lib, var in variants]
    print(f"\n{'n':>5} {'data':<32} " + " ".join(f"{v:>19}" for v in names)
          + "   (Brier / CPU-s)")
    for n in sorted({r["n"] for r in rows}):
        for data in dict.fromkeys(r["data"] for r in rows if r["n"] == n):
            cells = []
            for lib, var in variants:
                sel = [r for r in rows if (r["n"], r["data"], r["library"], r["variant"])
                       == (n, data, lib, var)]
                cells.append(f"{np.mean([r['brier'] for r in sel]):.4f} / "
                             f"{np.median([r['cpu'] for r in sel]):5.2f}" if sel else "-")
            print(f"{n:>5} {data:<32} " + " ".join(f"{c:>19}" for c in cells))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 500, one split")
    parser.add_argument("--sizes", type=int, nargs="*")
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--data", nargs="*", help="data set stems (default: all listed)")
    parser.add_argument("--variants", nargs="*",
                        help="run only these, as library:variant (e.g. 'bayescal:ard=False r=0')")
    parser.add_argument("--out", type=Path, help="also write the fits as JSON lines here")
    parser.add_argument("--summary-of", type=Path,
                        help="only summarise a JSON-lines file (or several, concatenated)")
    args = parser.parse_args(argv)
    if args.summary_of:
        rows = [json.loads(line) for line in args.summary_of.read_text().splitlines()]
        summarise(rows)
        summarise_by_data(rows)
        return
    sizes = args.sizes or ([500] if args.quick else [500, 2000])
    splits = 1 if args.quick else args.splits
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    with limit_blas_threads(1):
        rows = run(sizes, splits, args.data, args.out, args.variants)
    summarise(rows)
    summarise_by_data(rows)


if __name__ == "__main__":
    main()
