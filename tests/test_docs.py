"""The documentation site builds with warnings as errors and covers the public API.

The build runs ``sphinx-build -W -b html`` on a copy of ``docs/`` (so generated
API pages never land in the repository) with the bayescal that the tests import.
Build locally with ``sphinx-build -W -b html docs docs/_build/html``.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
DOCS = REPO_ROOT / "docs"

# The packages whose ``__all__`` the API reference lists, one page per name.
DOCUMENTED = (
    "datasets",
    "metrics",
    "calibration",
    "probes",
    "missing",
    "selection",
    "stats",
    "cube",
    "study",
    "report",
    "assessment",
    "validation",
    "threads",
    "cli",
)


def test_api_page_lists_every_documented_package():
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    listed = {line.strip() for line in text.splitlines() if line.startswith("   bayescal.")}
    assert listed == {f"bayescal.{name}" for name in DOCUMENTED}


def test_gallery_lists_every_notebook():
    text = (DOCS / "gallery.md").read_text(encoding="utf-8")
    missing = [
        nb.name for nb in sorted((REPO_ROOT / "notebooks").glob("*.py")) if nb.name not in text
    ]
    assert not missing, f"notebooks missing from docs/gallery.md: {missing}"


def test_every_method_page_is_in_the_methods_index():
    index = (DOCS / "methods" / "index.md").read_text(encoding="utf-8")
    pages = sorted(p.stem for p in (DOCS / "methods").glob("*.md") if p.stem != "index")
    assert pages and [p for p in pages if f"\n{p}\n" not in index] == []


@pytest.mark.slow
def test_docs_build_without_warnings(tmp_path):
    source = tmp_path / "docs"
    shutil.copytree(DOCS, source, ignore=shutil.ignore_patterns("_build", "generated"))
    out = tmp_path / "html"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-b",
            "html",
            "-q",
            str(source),
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, f"sphinx-build failed:\n{done.stderr[-6000:]}"
    generated = out / "api" / "generated"
    missing = []
    for short in DOCUMENTED:
        module = importlib.import_module(f"bayescal.{short}")
        assert (generated / f"bayescal.{short}.html").is_file(), short
        for name in getattr(module, "__all__", ()):
            if not (generated / f"bayescal.{short}.{name}.html").is_file():
                page = (generated / f"bayescal.{short}.html").read_text(encoding="utf-8")
                if f"bayescal.{short}.{name}" not in page:
                    missing.append(f"bayescal.{short}.{name}")
    assert not missing, f"public names missing from the API reference: {missing}"
    for page in ("index", "user_guide", "concepts", "gallery", "architecture", "methods/corp"):
        assert (out / f"{page}.html").is_file(), page
