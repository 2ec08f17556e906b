"""How cheap is ``list_datasets`` (what ``bayescal datasets`` prints)?

``list_datasets`` parses only the header and the ``target`` column of each file.
Its peer, measured in the same run, is loading every dataset in full with
``load_dataset`` (all columns parsed and encoded). The ratio says what reading
only the target saves; the absolute time says whether the CLI feels instant.
Also timed: loading the largest file (``letter``, 20000 rows) alone.

Run ``python benchmarks/datasets_listing.py [DATA_DIR]`` (``--quick`` for 3
repeats instead of 7). DATA_DIR defaults to ``BAYESCAL_DATA``, else
``../shared/data`` beside the repository.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from bayescal.datasets import list_datasets, load_dataset


def _median_seconds(func, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", nargs="?", default=None)
    parser.add_argument("--quick", action="store_true", help="3 repeats instead of 7")
    args = parser.parse_args()
    default = Path(__file__).resolve().parents[1].parent / "shared" / "data"
    data_dir = Path(args.data_dir or os.environ.get("BAYESCAL_DATA") or default)
    repeats = 3 if args.quick else 7

    table = list_datasets(data_dir)  # warm-up: imports pandas and scikit-learn
    names = table["name"].tolist()

    def load_all() -> None:
        for name in names:
            load_dataset(name, data_dir)

    listing = _median_seconds(lambda: list_datasets(data_dir), repeats)
    full = _median_seconds(load_all, repeats)
    letter = _median_seconds(lambda: load_dataset("letter", data_dir), repeats)
    print(f"{len(names)} datasets in {data_dir} (median of {repeats} runs)")
    print(f"  list_datasets            {listing * 1e3:8.1f} ms")
    print(f"  load_dataset, every set  {full * 1e3:8.1f} ms")
    print(f"  load_dataset('letter')   {letter * 1e3:8.1f} ms")
    print(f"  listing / full loading   {listing / full:8.2f}")


if __name__ == "__main__":
    main()
