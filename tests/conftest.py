"""Shared fixtures: the real datasets in ``../shared/data`` and quiet plotting."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

REPO_ROOT = Path(__file__).resolve().parents[1]


def _shared_data_dir() -> Path | None:
    env = os.environ.get("BAYESCAL_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(REPO_ROOT.parent / "shared" / "data")
    for cand in candidates:
        if cand.is_dir() and any(cand.glob("*.gz")):
            return cand
    return None


SHARED_DATA = _shared_data_dir()


@pytest.fixture(scope="session")
def shared_data_dir() -> Path:
    """The directory of real UCI-style datasets (``../shared/data``)."""
    if SHARED_DATA is None:
        pytest.fail(
            "the shared datasets were not found: set BAYESCAL_DATA or place ../shared/data "
            "beside the repository"
        )
    return SHARED_DATA


@pytest.fixture
def shared_data_env(shared_data_dir, monkeypatch) -> Path:
    """``BAYESCAL_DATA`` set to the shared datasets (specs naming real sets by name)."""
    if "BAYESCAL_DATA" not in os.environ:
        monkeypatch.setenv("BAYESCAL_DATA", str(shared_data_dir))
    return Path(os.environ["BAYESCAL_DATA"])
