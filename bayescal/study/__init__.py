"""bayescal.study: study specs, the grid runner and the result cube.

A study is a TOML spec (:func:`load_spec`) naming datasets, classifiers,
calibration scenarios, a resampling protocol, metrics and significance tests.
:func:`run` computes every (dataset, classifier, scenario, [repeat,] fold)
cell — locally in parallel or on Dask — writing each finished cell to a store
so that an interrupted run resumes where it stopped, and returns the result
cube (an ``xarray.DataTree``); :func:`open_results` reads it back.

Dask is imported only when a scheduler is used.
"""

from bayescal.study.cube import open_results
from bayescal.study.runner import StudyCellWarning, run
from bayescal.study.spec import Spec, SpecError, load_spec, parse_spec

__all__ = ["Spec", "SpecError", "StudyCellWarning", "load_spec", "open_results", "parse_spec",
           "run"]
