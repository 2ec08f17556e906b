"""How long does ``import bayescal`` take? (issue 2: under 1.5 s)

Each import runs in a fresh interpreter (``python -c "import X"``), timed from
process start to exit, and the median over several runs is reported. Peers
measured in the same run put the figures in proportion: the bare interpreter
(``python -c pass``) and ``import numpy``. The import of each light subpackage
is timed too, and ``python -X importtime`` checks that none of them loads
PyMC, PyTensor, nutpie, ArviZ, Dask or matplotlib.

Run ``python benchmarks/import_time.py`` (``--quick`` for 3 repeats instead of 9).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

TARGET_SECONDS = 1.5
HEAVY = ("pymc", "pytensor", "nutpie", "arviz", "dask", "matplotlib")
STATEMENTS = {
    "python -c pass (interpreter)": "pass",
    "import numpy": "import numpy",
    "import bayescal": "import bayescal",
    "import bayescal.metrics": "import bayescal.metrics",
    "import bayescal.datasets": "import bayescal.datasets",
    "import bayescal.cli": "import bayescal.cli",
}


def time_statement(statement: str, repeats: int) -> list[float]:
    """Wall-clock seconds of ``python -c statement`` in fresh processes."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", statement], check=True)
        times.append(time.perf_counter() - start)
    return times


def heavy_modules_imported(module: str) -> list[str]:
    """Top-level heavy packages that ``python -X importtime -c 'import module'`` loads."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        check=True,
    )
    found = set()
    for line in result.stderr.splitlines():
        if "|" not in line:
            continue
        name = line.rsplit("|", 1)[1].strip()
        if name.split(".")[0] in HEAVY:
            found.add(name.split(".")[0])
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats instead of 9")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 9

    # one warm-up run so that the file-system cache is the same for everybody
    time_statement("import bayescal.metrics, bayescal.datasets", 1)
    medians = {}
    for label, statement in STATEMENTS.items():
        medians[label] = statistics.median(time_statement(statement, repeats))

    base = medians["python -c pass (interpreter)"]
    numpy_time = medians["import numpy"]
    print(f"median of {repeats} fresh processes ({sys.executable})")
    print(f"{'statement':34s} {'seconds':>8s} {'x numpy':>8s} {'above interpreter':>18s}")
    for label, seconds in medians.items():
        print(f"{label:34s} {seconds:8.3f} {seconds / numpy_time:8.2f} {seconds - base:18.3f}")
    ok = medians["import bayescal"] < TARGET_SECONDS
    print(
        f"import bayescal: {medians['import bayescal']:.3f} s "
        f"({'meets' if ok else 'MISSES'} the {TARGET_SECONDS} s target)"
    )

    clean = True
    for module in ("bayescal", "bayescal.metrics", "bayescal.datasets", "bayescal.cli"):
        heavy = heavy_modules_imported(module)
        clean &= not heavy
        print(f"-X importtime {module}: heavy modules loaded: {', '.join(heavy) or 'none'}")
    return 0 if ok and clean else 1


if __name__ == "__main__":
    sys.exit(main())
