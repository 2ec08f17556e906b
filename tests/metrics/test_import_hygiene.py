"""Importing bayescal and its light subpackages must not pull in heavy libraries."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("pymc", "pytensor", "matplotlib", "dask", "nutpie", "arviz")


@pytest.mark.parametrize("module", ["bayescal", "bayescal.metrics", "bayescal.datasets"])
def test_no_heavy_imports(module):
    code = (
        f"import json, sys, {module}; "
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == [], f"`import {module}` loaded heavy modules: {loaded[:10]}"
