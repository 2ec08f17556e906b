"""bayescal.study: study specs, the grid runner and its executors.

A study is a TOML spec (:func:`load_spec`) naming datasets, classifiers,
calibration scenarios, a resampling protocol, metrics and significance tests.
:func:`run` computes every (dataset, classifier, scenario, [repeat,] fold)
cell — locally in parallel or on Dask — writing each finished cell to a store
(:mod:`bayescal.cube`) so that an interrupted run resumes where it stopped,
and returns the result cube (an ``xarray.DataTree``); :func:`open_results`
(from :mod:`bayescal.cube`) reads it back.

The names below are imported on first use (PEP 562), so that importing a
submodule (``bayescal.study.workers``, which ``bayescal run -j N`` needs
before anything heavy) does not import scikit-learn and the runner. Dask is
imported only when a scheduler is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bayescal._lazy import lazy_attributes

if TYPE_CHECKING:
    from bayescal.cube.reading import open_results
    from bayescal.study.executors import SchedulerUnreachableError, WorkerProcessError
    from bayescal.study.runner import StudyCellWarning, run
    from bayescal.study.spec import Spec, SpecError, load_spec, parse_spec

#: Public name -> module that defines it.
_LAZY = {
    "open_results": "bayescal.cube.reading",
    "SchedulerUnreachableError": "bayescal.study.executors",
    "WorkerProcessError": "bayescal.study.executors",
    "StudyCellWarning": "bayescal.study.runner",
    "run": "bayescal.study.runner",
    "Spec": "bayescal.study.spec",
    "SpecError": "bayescal.study.spec",
    "load_spec": "bayescal.study.spec",
    "parse_spec": "bayescal.study.spec",
}

__all__ = ["SchedulerUnreachableError", "Spec", "SpecError", "StudyCellWarning",
           "WorkerProcessError", "load_spec", "open_results", "parse_spec", "run"]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
