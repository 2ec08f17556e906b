"""Execute every notebook as a script, and the user guide's snippets.

The notebooks (``notebooks/*.py``, jupytext percent format) carry their own
checks (``assert`` on the numbers they print); a notebook passes when it runs
to the end in a fresh interpreter with a headless matplotlib backend and its
figures written to a temporary directory.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("*.py"))
USER_GUIDE = REPO_ROOT / "docs" / "user_guide.md"


def _run(args: list[str], tmp_path: Path, timeout: float) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "MPLBACKEND": "Agg",
        "BAYESCAL_NOTEBOOK_OUT": str(tmp_path / "out"),
        "PYTHONPATH": os.pathsep.join(
            p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p
        ),
    }
    return subprocess.run(
        [sys.executable, *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_notebooks_found():
    names = [p.name for p in NOTEBOOKS]
    assert len(names) >= 4, names
    assert all(name[:2].isdigit() for name in names), names


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(notebook: Path, tmp_path: Path):
    result = _run([str(notebook)], tmp_path, timeout=300)
    assert result.returncode == 0, (
        f"{notebook.name} failed:\n--- stdout ---\n{result.stdout[-4000:]}"
        f"\n--- stderr ---\n{result.stderr[-4000:]}"
    )
    # Figures go to BAYESCAL_NOTEBOOK_OUT, never into the repository.
    if "savefig" in notebook.read_text(encoding="utf-8"):
        figures = sorted((tmp_path / "out").glob("*.png"))
        assert figures, f"{notebook.name} saved no figure under BAYESCAL_NOTEBOOK_OUT"
        assert all(figure.stat().st_size > 1000 for figure in figures)
    assert not list((REPO_ROOT / "notebooks").glob("*.png"))


def test_notebooks_are_jupytext_percent_scripts():
    for notebook in NOTEBOOKS:
        text = notebook.read_text(encoding="utf-8")
        assert "format_name: percent" in text, notebook.name
        assert text.count("# %%") >= 3, notebook.name
        assert "BAYESCAL_NOTEBOOK_OUT" in text or "savefig" not in text, notebook.name


def _python_blocks(markdown: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", markdown, flags=re.S)


@pytest.mark.slow
def test_user_guide_snippets_run(tmp_path: Path):
    blocks = _python_blocks(USER_GUIDE.read_text(encoding="utf-8"))
    assert len(blocks) >= 8
    script = tmp_path / "user_guide_snippets.py"
    script.write_text("\n\n".join(blocks), encoding="utf-8")
    result = _run([str(script)], tmp_path, timeout=300)
    assert result.returncode == 0, (
        f"--- stdout ---\n{result.stdout[-4000:]}\n--- stderr ---\n{result.stderr[-4000:]}"
    )
    assert (tmp_path / "guide-report" / "report.html").is_file()


def test_python_blocks_extraction():
    text = "intro\n```python\na = 1\n```\n```bash\nls\n```\n```python\nb = a\n```\n"
    assert _python_blocks(text) == ["a = 1\n", "b = a\n"]
