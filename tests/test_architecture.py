"""The import graph of bayescal, read from the source (AST): layers point one way, no cycle.

Every ``import`` counts, at module level or inside a function (a lazy import
is still a dependency), and so is every package ``__init__`` Python runs to
reach the imported module. A module's layer is its subpackage
(``bayescal.probes`` -> ``probes``); the private numerical kernels (the
``bayescal._kernels`` package and ``_*kernel*`` modules, numba and NumPy only)
form the lowest layer. :data:`LAYERS` lists the layers from the bottom; a module
may import its own layer and those below.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bayescal"

#: Bottom to top. Entries of one tuple are one level: they may not import each other.
LAYERS: list[tuple[str, ...]] = [
    ("_numba_cache", "threads", "_lazy", "_compat"),
    ("kernels", "contracts"),
    ("validation",),
    ("clipping",),
    ("inference",),
    ("datasets", "metrics"),
    ("calibration",),
    ("probes",),
    ("missing", "selection"),
    ("cube",),
    ("stats",),
    ("study",),
    ("report",),
    ("reproduce", "assessment"),
    ("bayescal",),  # the package root: its lazy exports reach the layers below
    ("cli", "_discovery"),
]

#: Known imports against the layer order, with the reason they stay for now. Each
#: entry is (importer layer, imported layer); an entry no longer needed fails the test.
EXCEPTIONS: dict[tuple[str, str], str] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path) -> set[str]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            # ``from pkg import submodule`` depends on the submodule, not pkg's __init__
            names = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in MODULES else origin
                     for a in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] == "bayescal":
                target = _resolve(name)
                if target and target != module:
                    found.add(target)
                    found.update(_outer_packages(module, target))
    return found


def _outer_packages(module: str, target: str) -> set[str]:
    """The packages Python initialises to import ``target`` from ``module``.

    Importing ``bayescal._kernels.isotonic`` runs
    ``bayescal/calibration/__init__.py`` first (every calibrator), so a module of
    another package depends on that ``__init__`` too. The root ``bayescal`` (lazy)
    and the packages that already enclose ``module`` are left out.
    """
    parts = target.split(".")
    packages = {".".join(parts[:i]) for i in range(2, len(parts))}
    return {p for p in packages if p in MODULES and not f"{module}.".startswith(f"{p}.")}


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def layer(module: str) -> str:
    parts = module.split(".")
    if parts[1:2] == ["_kernels"] or ("kernel" in parts[-1] and parts[-1].startswith("_")):
        return "kernels"
    return parts[1] if len(parts) > 1 else "bayescal"


LEVEL = {name: level for level, names in enumerate(LAYERS) for name in names}


def test_every_module_has_a_layer():
    assert {layer(m) for m in MODULES} <= set(LEVEL), {layer(m) for m in MODULES} - set(LEVEL)


def test_layers_point_down():
    against = defaultdict(list)
    for module, targets in GRAPH.items():
        for target in targets:
            a, b = layer(module), layer(target)
            if a != b and LEVEL[b] >= LEVEL[a]:
                against[(a, b)].append(f"{module} -> {target}")
    unexpected = {k: v for k, v in against.items() if k not in EXCEPTIONS}
    assert not unexpected, unexpected
    stale = set(EXCEPTIONS) - set(against)
    assert not stale, f"no longer needed, remove from EXCEPTIONS: {stale}"


def test_no_import_cycle():
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    assert not cycles, cycles


def test_kernels_import_only_kernels():
    for module, targets in GRAPH.items():
        if layer(module) == "kernels":
            assert all(LEVEL[layer(t)] <= LEVEL["kernels"] for t in targets), (module, targets)


def test_the_graph_is_read():
    """A broken reader (no edges) would pass everything above."""
    assert "bayescal.calibration.base" in GRAPH["bayescal.calibration.platt"]
    assert "bayescal._kernels.isotonic" in GRAPH["bayescal.metrics.corp"]
    assert "bayescal.inference.sampling" in GRAPH["bayescal.probes.logistic"]
    # the package __init__ run on the way to a module of another package counts
    assert "bayescal.inference" in GRAPH["bayescal.stats.hierarchical"]
    assert "bayescal.calibration" not in GRAPH["bayescal.calibration.platt"]  # its own package


def test_architecture_page_names_every_module():
    """docs/architecture.md stays current: each module is named in its module map."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    unnamed = [m for m in MODULES if f"`{m.rpartition('.')[2]}`" not in page
               and f"`{m}`" not in page]
    assert not unnamed, f"modules missing from docs/architecture.md: {unnamed}"


def test_the_metrics_layer_runs_without_loading_calibration():
    """The runtime check of the rule above: CORP's PAV comes from ``bayescal._kernels``.

    Taken from ``bayescal/calibration/``, it ran ``calibration/__init__.py`` (every
    calibrator, 1.2 CPU-s and 900 modules more in a fresh process).
    """
    code = ("import sys, numpy as np; from bayescal.metrics import score_decomposition; "
            "score_decomposition(np.array([0, 1, 1, 0]), np.array([.2, .7, .4, .5])); "
            "print(sorted(m for m in sys.modules if m.startswith('bayescal.calibration')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert done.stdout.strip() == "[]", done.stdout
