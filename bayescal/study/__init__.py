"""bayescal.study: study specs, the grid runner and its executors.

A study is a TOML spec (:func:`load_spec`) naming datasets, classifiers,
calibration scenarios, a resampling protocol, metrics and significance tests.
:func:`run` computes every (dataset, classifier, scenario, [repeat,] fold)
cell — locally in parallel or on Dask — writing each finished cell to a store
(:mod:`bayescal.cube`) so that an interrupted run resumes where it stopped,
and returns the result cube (an ``xarray.DataTree``); :func:`open_results`
(from :mod:`bayescal.cube`) reads it back.

Dask is imported only when a scheduler is used.
"""

from bayescal.cube.reading import open_results
from bayescal.study.executors import SchedulerUnreachableError
from bayescal.study.runner import StudyCellWarning, run
from bayescal.study.spec import Spec, SpecError, load_spec, parse_spec

__all__ = ["SchedulerUnreachableError", "Spec", "SpecError", "StudyCellWarning", "load_spec",
           "open_results", "parse_spec", "run"]
