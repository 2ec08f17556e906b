"""Fixtures of the report tests: the quick-start report, built once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def quickstart_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HTML report of a cube shaped like the quick-start study's (default settings).

    The cube comes from :func:`tests.report.cube_factory.make_quickstart_cube`
    (no study is run); building the report is the cost (about 15 s on one core).
    """
    import matplotlib

    matplotlib.use("Agg")
    from bayescal.report import build_report
    from tests.report.cube_factory import make_quickstart_cube

    out = tmp_path_factory.mktemp("quickstart-report")
    return build_report(make_quickstart_cube(), out / "report.html", progress=False)
