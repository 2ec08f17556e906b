"""Tests of bayescal.study.warnings_once: each distinct warning shown once per process."""

from __future__ import annotations

import uuid
import warnings
from collections import Counter

import pytest

from bayescal.study import parse_spec, run
from bayescal.study.warnings_once import each_warning_once


def _unique(text: str) -> str:
    """A message no earlier test of this process has shown (the memory is per process)."""
    return f"{text} {uuid.uuid4().hex}"


def _warn_after_sklearn_checks(message: str, times: int) -> None:
    """Warn ``times`` times, each after what scikit-learn's ``check_array`` does."""
    for _ in range(times):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
        warnings.warn(message, FutureWarning, stacklevel=1)


def test_python_alone_repeats_a_warning_after_every_filter_change():
    # the cause, kept as a test: the "default" (and even "once") action forgets what it
    # showed whenever the filters change, which check_array does on every call
    message = _unique("cause")
    for action in ("default", "once"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter(action)
            _warn_after_sklearn_checks(message, 3)
        assert len(caught) == 3


def test_repeats_are_shown_once_and_other_messages_each_once():
    first, second = _unique("first"), _unique("second")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        with each_warning_once():
            _warn_after_sklearn_checks(first, 3)
            _warn_after_sklearn_checks(second, 2)
        with each_warning_once():  # a later block remembers (once per process)
            _warn_after_sklearn_checks(first, 2)
    assert [str(w.message) for w in caught] == [first, second]


def test_filters_still_decide_always_error_ignore():
    message = _unique("filtered")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with each_warning_once():
            _warn_after_sklearn_checks(message, 3)
    assert len(caught) == 3  # an "always" filter shows every repeat
    with warnings.catch_warnings(), each_warning_once():
        warnings.simplefilter("error", FutureWarning)
        with pytest.raises(FutureWarning, match="filtered"):
            _warn_after_sklearn_checks(message, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        warnings.filterwarnings("ignore", message="filtered")
        with each_warning_once():
            _warn_after_sklearn_checks(message, 2)
        warnings.resetwarnings()
        warnings.simplefilter("default")
        with each_warning_once():  # ignored ones were never shown: first display now
            _warn_after_sklearn_checks(message, 2)
    assert len(caught) == 1


def test_recording_inside_the_block_sees_every_warning():
    message = _unique("recorded")
    with warnings.catch_warnings(record=True) as first, each_warning_once():
        warnings.simplefilter("default")
        _warn_after_sklearn_checks(message, 2)
    assert len(first) == 1  # shown once: the repeats below are repeats
    with each_warning_once():
        with pytest.warns(FutureWarning, match="recorded") as inner:
            _warn_after_sklearn_checks(message, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            _warn_after_sklearn_checks(message, 2)
    assert len(inner) == 2 and len(caught) == 2


def test_the_display_hook_is_restored_and_inert_outside():
    before = warnings.showwarning
    with each_warning_once():
        hook = warnings.showwarning
        assert hook is not before
        with each_warning_once():
            assert warnings.showwarning is hook
        assert warnings.showwarning is hook
    assert warnings.showwarning is before
    # a hook left behind (a catch_warnings of another thread restoring it late) passes
    # every warning through once no block is active
    message = _unique("inert")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        with each_warning_once():
            warnings.showwarning, leaked = before, warnings.showwarning
        warnings.showwarning = leaked
        _warn_after_sklearn_checks(message, 3)
    assert len(caught) == 3


WARNING_SPEC = """
[study]
name = "warnings"
seed = 5

[protocol]
kind = "kfold"
n_splits = 3

[datasets.blobs]
generator = "sklearn.datasets.make_classification"
params = {{ n_samples = 90, n_features = 4 }}

[classifiers.nb]
class = "study_test_estimators.WarningNaiveBayes"
params = {{ message = "{message}" }}

[scenarios.raw]
kind = "raw"

[scenarios.split]
kind = "split"
calibrator = {{ class = "bayescal.calibration.IsotonicCalibrator" }}

[scenarios.cv]
kind = "cv"
calibrator = {{ class = "bayescal.calibration.PlattCalibrator" }}
params = {{ cv = 2 }}
"""


def _study_warnings(tmp_path, module, message, action):
    spec = parse_spec(WARNING_SPEC.format(message=message), allow_modules=[module])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(action)
        tree = run(spec, tmp_path / action, n_jobs=1, progress=False)
    assert tree.attrs["errors"] == "{}"
    return Counter(str(w.message) for w in caught if str(w.message).startswith(message))


def test_a_study_shows_each_distinct_classifier_warning_once(tmp_path,
                                                             test_estimators_on_path):
    import study_test_estimators as ste

    message = _unique("deprecated")
    before = ste.WarningNaiveBayes.fits
    every = _study_warnings(tmp_path, test_estimators_on_path, message, "always")
    fits = ste.WarningNaiveBayes.fits - before
    # the oracle: with "always" every fit shows both warnings
    assert sum(every.values()) == 2 * fits and fits >= 3 * 3
    assert every[message] == fits and len(every) >= 3  # repeats; several row counts
    shown = _study_warnings(tmp_path, test_estimators_on_path, message, "default")
    assert shown == Counter(set(every))  # every distinct warning, each once
