"""numba caches go to the user's cache directory, never beside the source."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import bayescal

ROOT = Path(bayescal.__file__).resolve().parent.parent

# Runs in a fresh interpreter: decorates and calls a tiny cache=True kernel
# defined in a module beside ``kernel_dir`` (standing in for the installed
# package), after bayescal configured the cache, and reports where numba put it.
SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    sys.path.insert(0, sys.argv[1])
    from bayescal._numba_cache import configure_numba_cache
    chosen = configure_numba_cache()
    import numba
    import tiny_kernel
    tiny_kernel.double(2.0)
    print(json.dumps({"chosen": chosen, "numba": numba.config.CACHE_DIR,
                      "env": os.environ.get("NUMBA_CACHE_DIR")}))
    """
)


def _run(tmp_path: Path, env_extra: dict[str, str]) -> dict:
    kernel_dir = tmp_path / "package"
    kernel_dir.mkdir()
    (kernel_dir / "tiny_kernel.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef double(x):\n    return 2.0 * x\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(env_extra)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(kernel_dir)],
        env=env, capture_output=True, text=True, check=True, timeout=300,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cache_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.suffix in {".nbi", ".nbc"}]


@pytest.mark.skipif(sys.platform != "linux", reason="XDG_CACHE_HOME is the Linux convention")
def test_default_goes_to_user_cache_dir_not_source_tree(tmp_path):
    cache_home = tmp_path / "xdg-cache"
    report = _run(tmp_path, {"XDG_CACHE_HOME": str(cache_home)})
    expected = cache_home / "bayescal" / "numba"
    assert report["chosen"] == report["numba"] == report["env"] == str(expected)
    assert _cache_files(expected), "numba wrote no cache into the user's cache dir"
    assert not _cache_files(tmp_path / "package"), "numba cache written beside the source"


def test_user_setting_is_never_overridden(tmp_path):
    mine = tmp_path / "my-numba-cache"
    report = _run(tmp_path, {"NUMBA_CACHE_DIR": str(mine)})
    assert report["chosen"] == report["numba"] == report["env"] == str(mine)
    assert _cache_files(mine)
    assert not _cache_files(tmp_path / "package")


def test_setting_made_in_code_after_numba_import_is_kept(monkeypatch, tmp_path):
    from numba.core import config

    from bayescal._numba_cache import configure_numba_cache

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))
    assert configure_numba_cache() == str(tmp_path)
    assert "NUMBA_CACHE_DIR" not in os.environ


def test_default_dir_is_under_platformdirs_user_cache():
    import platformdirs

    from bayescal._numba_cache import default_numba_cache_dir

    assert default_numba_cache_dir() == Path(platformdirs.user_cache_dir("bayescal")) / "numba"


def _first_line(tree, predicate) -> int | None:
    lines = [node.lineno for node in ast.walk(tree) if predicate(node)]
    return min(lines) if lines else None


def _imports_numba(node) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] == "numba" for alias in node.names)
    return isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "numba"


def _calls_configure(node) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "configure_numba_cache")


def _module_level_numba_cache(tree) -> bool:
    """A module-level ``@njit(cache=True)`` / ``@numba.njit(..., cache=True)`` decorator."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and any(
            kw.arg == "cache" and isinstance(kw.value, ast.Constant) and kw.value.value is True
            for kw in node.keywords
        ):
            return True
    return False


def test_every_cached_kernel_module_configures_the_cache_before_numba():
    # Static check over the package: a module that decorates with cache=True
    # calls configure_numba_cache() (module level) before it imports numba, so
    # no kernel's cache lands beside the source (the installed package).
    offenders = []
    for path in sorted((ROOT / "bayescal").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not _module_level_numba_cache(tree):
            continue
        configured = _first_line(tree, _calls_configure)
        imported = _first_line(tree, _imports_numba)
        if configured is None or (imported is not None and imported < configured):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == [], f"cache=True kernels without configure_numba_cache first: {offenders}"
