"""The registry of dataset generators a study spec may name.

A spec dataset made by a ``generator`` names a function by dotted path. Any
function under an allowed package would let a spec call whatever that package
offers — scikit-learn's test helpers run Python source given as an argument,
``sklearn.datasets.dump_svmlight_file`` writes a file at a path of the
caller's choosing — so a generator must be one of the functions listed here
(``DESIGN.md``, "Safety"): bayescal's synthetic generators, the thesis' data sets as
it defines them (read from the data directory), and
scikit-learn's public ``make_*``/``load_*`` functions that return a
classification data set without touching the disk or the network. Packages the
person running the study adds with ``--allow-module`` are trusted as a whole:
their public functions may be generators too; a spec can never add one.

Every generator argument is checked against the function's signature when the
spec is loaded, and no integer argument may exceed
:data:`MAX_GENERATOR_INTEGER` (a data set of 10^12 rows is a spec error, not
an out-of-memory crash an hour into a run).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from bayescal.study.imports import DEFAULT_ALLOWED_MODULES, resolve_dotted

__all__ = ["GENERATORS", "MAX_GENERATOR_INTEGER", "check_generator_params",
           "resolve_generator"]

#: Every generator a spec may name without ``--allow-module``.
GENERATORS: tuple[str, ...] = (
    "bayescal.datasets.make_gmm",
    "bayescal.datasets.make_thesis_synthetic",
    "bayescal.datasets.make_undersampling_simulation",
    # the thesis' multi-class sets as it defines them, read from the data directory
    "bayescal.reproduce.thesis_sets.ecoli_four_classes",
    "bayescal.reproduce.thesis_sets.wholesale_region",
    "sklearn.datasets.load_breast_cancer",
    "sklearn.datasets.load_digits",
    "sklearn.datasets.load_iris",
    "sklearn.datasets.load_wine",
    "sklearn.datasets.make_blobs",
    "sklearn.datasets.make_circles",
    "sklearn.datasets.make_classification",
    "sklearn.datasets.make_gaussian_quantiles",
    "sklearn.datasets.make_hastie_10_2",
    "sklearn.datasets.make_moons",
)

#: Largest integer argument of a generator (sample and feature counts): ten million,
#: above the largest published study reproduced here (Phelps et al. 2024: 1.1 million rows).
MAX_GENERATOR_INTEGER = 10_000_000


def resolve_generator(path: str, allowed: Iterable[str]) -> Callable[..., Any]:
    """The generator function named ``path``, if the registry (or the operator) allows it.

    Parameters
    ----------
    path : str
        Dotted path, e.g. ``"sklearn.datasets.make_classification"``.
    allowed : iterable of str
        The allow-list of the run (:data:`~bayescal.study.imports.DEFAULT_ALLOWED_MODULES`
        plus the ``--allow-module`` packages); functions of the packages beyond
        the defaults are accepted as generators.

    Returns
    -------
    callable

    Raises
    ------
    ValueError
        If ``path`` is not in :data:`GENERATORS` nor under a package the
        operator added, names a private module, or is not a function.
    """
    allowed = tuple(allowed)
    extra = tuple(a for a in allowed if a not in DEFAULT_ALLOWED_MODULES)
    operator_trusted = any(path == a or path.startswith(a + ".") for a in extra)
    if path not in GENERATORS and not operator_trusted:
        raise ValueError(
            f"{path!r} is not a dataset generator; a spec may name one of {list(GENERATORS)} "
            "(or a function of a package the person running the study allows with "
            "--allow-module)")
    func = resolve_dotted(path, allowed)
    if not (inspect.isfunction(func) or inspect.isbuiltin(func)):
        raise ValueError(f"{path!r} is not a function (a dataset generator)")
    return func


def check_generator_params(func: Callable[..., Any], path: str,
                           params: Mapping[str, Any]) -> None:
    """Check generator arguments against the signature and the size limit.

    Raises
    ------
    ValueError
        Naming the argument: not a parameter of the function, or an integer
        above :data:`MAX_GENERATOR_INTEGER`.
    """
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        signature = None
    if signature is not None:
        accepts_any = any(p.kind is inspect.Parameter.VAR_KEYWORD
                          for p in signature.parameters.values())
        names = [n for n, p in signature.parameters.items()
                 if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        for key in params:
            if not accepts_any and key not in names:
                raise ValueError(f"unknown parameter {key!r} of {path}; valid: {names}")
    for key, value in params.items():
        for number in _integers(value):
            if abs(number) > MAX_GENERATOR_INTEGER:
                raise ValueError(f"parameter {key!r} of {path} is {number}, above the limit "
                                 f"{MAX_GENERATOR_INTEGER:,} of a generator argument")


def _integers(value: Any) -> list[int]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, tuple | list):
        return [n for v in value for n in _integers(v)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _integers(v)]
    return []
