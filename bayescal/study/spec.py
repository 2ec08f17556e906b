"""Study specs: a TOML file parsed into a frozen dataclass tree.

A spec names the datasets, classifiers, calibration scenarios, protocol,
metrics and significance tests of one reproducible study (``DESIGN.md``,
"Studies"). :func:`load_spec` checks it completely before any work starts:
structure, every key, every value, every dotted path (imported only from the
allow-list of :mod:`bayescal.study.imports`) and every constructor parameter.
A wrong spec raises :class:`SpecError` naming the file, the key and the reason,
in one line.

A spec is data, not code (``DESIGN.md``, "Safety"): estimators must be
estimator classes of the allow-list, dataset generators come from the registry
of :mod:`bayescal.study.generators`, and a spec has size limits — at most
:data:`MAX_SPEC_BYTES` of text, tables and arrays nested at most
:data:`MAX_NESTING` deep, and at most :data:`DEFAULT_MAX_CELLS` cells (the
person running the study may raise this one: ``bayescal run --max-cells N``,
``max_cells=`` in Python).

The format, with every section (see ``models/quickstart.toml``)::

    [study]
    name = "quickstart"        # label of the study
    seed = 20240601            # every random step derives from it
    description = "..."        # optional
    data_dir = "../data"       # optional; relative to the spec file
    # (no allow_modules: only the person running the study widens the
    #  allow-list, with --allow-module NAME)

    [protocol]
    kind = "kfold"             # kfold | repeated_kfold | cv5x2 | mccv | holdout
    n_splits = 5               # kfold, repeated_kfold
    n_repeats = 3              # repeated_kfold, mccv
    test_fraction = 0.3        # mccv, holdout
    stratified = true

    [datasets.<name>]          # one table per dataset
    source = "breast_cancer"   # a load_dataset name or a file path ...
    generator = "bayescal.datasets.make_thesis_synthetic"   # ... or a generator
    params = { n_per_class = 100 }                         # generator arguments
    label = "outcome"          # the label column of a data file (default "target")
    classes = [15, 17]         # keep only these classes (original labels)
    positive = [2, 3]          # binarise: these labels -> 1, the rest -> 0; one label
                               # (positive = "yes") picks the positive class of two
    drop_features = ["BI_RADS"]
    dropna = true              # drop rows with a missing value
    max_samples = 500          # stratified subsample (seeded)
    [datasets.<name>.overrides.<classifier or scenario>]
    pi0 = 0.02                 # parameters for this dataset only (a classifier's,
                               # or a scenario's calibrator's)

    [classifiers.<name>]
    class = "sklearn.ensemble.RandomForestClassifier"
    params = { n_estimators = 100 }

    [scenarios.<name>]
    kind = "dgg"               # raw|split|full|dg|dgg|cv|oob|internal|wrapper
    calibrator = { class = "bayescal.calibration.ENIRCalibrator" }
    params = { group_size = 100 }          # CalibratedClassifier arguments
    classifiers = ["rf"]                   # optional: only these classifiers
    classifier_params = { oob_score = true }  # optional overrides
    wrapper = { class = "sklearn.calibration.CalibratedClassifierCV",
                params = { method = "isotonic" } }   # kind = "wrapper" only

    [metrics]
    names = ["brier", "log_loss", "ece", "accuracy"]
    ece_bins = 10
    clip = { log_loss = 1e-5 }  # per-metric probability clipping (default: registry's)
    probe = "blr"              # reference probe (a classifier name)
    probe_interval = 0.9
    keep_posteriors = 100      # keep this many draws per chain of Bayesian cells

    [tests]
    names = ["corrected_resampled_ttest"]   # per-cell tests against the baseline, and/or
                               # across-dataset comparisons: friedman, correlated-t,
                               # signed-rank, hierarchical (bayescal.stats.methods)
    baseline = "raw"           # a scenario name (the control of the comparisons)
    metrics = ["brier"]
    rope = 0.01                # region of practical equivalence of the Bayesian tests

Nested estimators are inline tables with a ``class`` key (and optional
``params``), e.g. ``calibrator = { class = "bayescal.calibration.OneVsRestCalibrator",
params = { calibrator = { class = "bayescal.calibration.ENIRCalibrator" } } }``.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bayescal.cube.schema import METRICS as METRIC_REGISTRY
from bayescal.cube.schema import metric_names
from bayescal.study.data import check_dataset_source
from bayescal.study.generators import check_generator_params, resolve_generator
from bayescal.study.imports import (
    DEFAULT_ALLOWED_MODULES,
    EstimatorSpec,
    check_estimator_class,
)

__all__ = [
    "CALIBRATED_CLASSIFIER",
    "ClassifierSpec",
    "DatasetSpec",
    "MetricsSpec",
    "ProtocolSpec",
    "ScenarioSpec",
    "Spec",
    "SpecError",
    "TestsSpec",
    "load_spec",
    "parse_spec",
]

#: Every metric name a spec may list: the registry's scored metrics.
_SPEC_METRICS = metric_names()

#: The meta-estimator that runs every calibration scenario except ``raw`` and ``wrapper``.
CALIBRATED_CLASSIFIER = "bayescal.calibration.CalibratedClassifier"

SCENARIO_KINDS = ("raw", "split", "full", "dg", "dgg", "cv", "oob", "internal", "wrapper")
PROTOCOL_KINDS = ("kfold", "repeated_kfold", "cv5x2", "mccv", "holdout")
SIGNIFICANCE_TESTS = (
    "paired_ttest_5x2cv",
    "combined_ftest_5x2cv",
    "mcnemar",
    "cv_ttest",
    "corrected_resampled_ttest",
)
#: Across-dataset comparisons (``bayescal.stats.methods.METHOD_TESTS``; kept here so
#: that parsing a spec does not import xarray; a test keeps the two equal).
METHOD_TESTS = ("friedman", "correlated-t", "signed-rank", "hierarchical")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*", re.ASCII)  # fullmatch: no newline
_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", re.ASCII)
#: Longest name of a dataset, classifier, scenario or study (used in file names).
MAX_NAME_LENGTH = 100
#: Largest ``metrics.keep_posteriors`` (draws per chain kept in the cube).
MAX_KEPT_DRAWS = 1000
#: Largest ``metrics.ece_bins``.
MAX_ECE_BINS = 10_000
#: Largest spec text, in bytes.
MAX_SPEC_BYTES = 1 << 20
#: Deepest nesting of tables and arrays in a spec.
MAX_NESTING = 16
#: Most cells (dataset x classifier x scenario x repeat x fold) a spec may ask for
#: unless the person running it raises the limit (``--max-cells``).
DEFAULT_MAX_CELLS = 100_000


class SpecError(ValueError):
    """A study spec is wrong; says the file, the key and the reason.

    Attributes
    ----------
    file, key, reason : str
    """

    def __init__(self, file: str | Path, key: str, reason: str) -> None:
        self.file, self.key, self.reason = str(file), key, reason
        super().__init__(f"{file}: {key}: {reason}")


@dataclass(frozen=True)
class ProtocolSpec:
    """Resampling protocol; see :func:`bayescal.study.protocol.make_splits`."""

    kind: str = "kfold"
    n_splits: int = 10
    n_repeats: int = 1
    test_fraction: float = 0.3
    stratified: bool = True

    @property
    def repeats(self) -> int:
        """Number of repeats (the ``repeat`` dimension)."""
        return {"kfold": 1, "repeated_kfold": self.n_repeats, "cv5x2": 5,
                "mccv": self.n_repeats, "holdout": 1}[self.kind]

    @property
    def folds(self) -> int:
        """Number of folds per repeat (the ``fold`` dimension)."""
        return {"kfold": self.n_splits, "repeated_kfold": self.n_splits, "cv5x2": 2,
                "mccv": 1, "holdout": 1}[self.kind]

    @property
    def test_train_ratio(self) -> float:
        """``n_test / n_train`` of one split (Nadeau and Bengio's correction)."""
        if self.kind in ("kfold", "repeated_kfold"):
            return 1.0 / (self.n_splits - 1)
        if self.kind == "cv5x2":
            return 1.0
        return self.test_fraction / (1.0 - self.test_fraction)

    @property
    def has_repeat_dim(self) -> bool:
        """Whether the cube carries a ``repeat`` dimension."""
        return self.kind in ("repeated_kfold", "cv5x2", "mccv")


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset of the study and how it is prepared."""

    name: str
    source: str | None = None
    generator: str | None = None
    params: tuple[tuple[str, Any], ...] = ()
    classes: tuple[Any, ...] | None = None
    positive: tuple[Any, ...] | None = None
    label: str | None = None
    drop_features: tuple[str, ...] = ()
    dropna: bool = False
    max_samples: int | None = None
    overrides: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()

    def override(self, name: str) -> tuple[tuple[str, Any], ...]:
        """Parameters this dataset sets for classifier or scenario ``name``."""
        return dict(self.overrides).get(name, ())


@dataclass(frozen=True)
class ClassifierSpec:
    """A classifier (scikit-learn estimator or bayescal probe)."""

    name: str
    estimator: EstimatorSpec


@dataclass(frozen=True)
class ScenarioSpec:
    """A calibration scenario: a calibrator and how its data is obtained."""

    name: str
    kind: str
    calibrator: EstimatorSpec | None = None
    params: tuple[tuple[str, Any], ...] = ()
    wrapper: EstimatorSpec | None = None
    classifiers: tuple[str, ...] | None = None
    classifier_params: tuple[tuple[str, Any], ...] = ()

    def applies_to(self, classifier: str) -> bool:
        """Whether this scenario runs for ``classifier``."""
        return self.classifiers is None or classifier in self.classifiers


@dataclass(frozen=True)
class MetricsSpec:
    """Metrics of every cell and the reference probe."""

    names: tuple[str, ...] = ("brier", "log_loss", "ece", "accuracy")
    ece_bins: int = 10
    clip: tuple[tuple[str, float], ...] = ()
    probe: str | None = None
    probe_interval: float = 0.9
    keep_posteriors: int = 0


@dataclass(frozen=True)
class TestsSpec:
    """Significance tests of the summary tables and their baseline."""

    __test__ = False  # not a pytest class

    names: tuple[str, ...] = ()
    baseline: str | None = None
    metrics: tuple[str, ...] = ()
    rope: float = 0.01


@dataclass(frozen=True)
class Spec:
    """A parsed and validated study spec (immutable)."""

    name: str
    seed: int
    datasets: tuple[DatasetSpec, ...]
    classifiers: tuple[ClassifierSpec, ...]
    scenarios: tuple[ScenarioSpec, ...]
    protocol: ProtocolSpec
    metrics: MetricsSpec
    tests: TestsSpec
    description: str = ""
    allow_modules: tuple[str, ...] = DEFAULT_ALLOWED_MODULES
    data_dir: str | None = None
    text: str = ""
    path: str = "<string>"

    @property
    def hash(self) -> str:
        """SHA-256 of the spec text (identifies the study in a store)."""
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def n_cells(self) -> int:
        """Cells to compute (classifier-restricted scenarios counted once each)."""
        pairs = sum(s.applies_to(c.name) for c in self.classifiers for s in self.scenarios)
        return len(self.datasets) * pairs * self.protocol.repeats * self.protocol.folds


# --------------------------------------------------------------------- parsing


class _Reader:
    """Walks the TOML tree, raising SpecError with the full key path."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, key: str, reason: str) -> SpecError:
        return SpecError(self.file, key, reason)

    def table(self, value: Any, key: str, allowed: Iterable[str]) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(key, f"expected a table, got {type(value).__name__}")
        allowed = tuple(allowed)
        for k in value:
            if k not in allowed:
                raise self.fail(f"{key}.{k}" if key else k,
                                f"unknown key; allowed here: {', '.join(allowed)}")
        return value

    def typed(self, value: Any, key: str, types: type | tuple[type, ...], what: str) -> Any:
        if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
            raise self.fail(key, f"expected {what}, got {value!r}")
        if not isinstance(value, types):
            raise self.fail(key, f"expected {what}, got {value!r}")
        return value

    def name(self, value: str, key: str) -> str:
        if not _NAME.fullmatch(value) or len(value) > MAX_NAME_LENGTH:
            raise self.fail(key, f"name {value!r} must match {_NAME.pattern} and be at most "
                                 f"{MAX_NAME_LENGTH} characters (used in file names)")
        return value

    def str_list(self, value: Any, key: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(key, f"expected a list of strings, got {value!r}")
        return tuple(value)

    def estimator(self, value: Any, key: str) -> EstimatorSpec:
        if isinstance(value, str):
            return EstimatorSpec(value)
        tab = self.table(value, key, ("class", "params"))
        if "class" not in tab:
            raise self.fail(f"{key}.class", "missing: the dotted path of the estimator class")
        path = self.typed(tab["class"], f"{key}.class", str, "a dotted path string")
        return EstimatorSpec(path, self.params(tab.get("params", {}), f"{key}.params"))

    def params(self, value: Any, key: str) -> tuple[tuple[str, Any], ...]:
        tab = self.table(value, key, value.keys() if isinstance(value, Mapping) else ())
        return tuple((k, self.param_value(v, f"{key}.{k}")) for k, v in tab.items())

    def param_value(self, value: Any, key: str) -> Any:
        if isinstance(value, Mapping) and "class" in value:
            return self.estimator(value, key)
        if isinstance(value, list):
            return tuple(self.param_value(v, f"{key}[{i}]") for i, v in enumerate(value))
        if isinstance(value, Mapping):
            return {k: self.param_value(v, f"{key}.{k}") for k, v in value.items()}
        return value


def _parse_protocol(r: _Reader, raw: Any) -> ProtocolSpec:
    per_kind = {
        "kfold": ("n_splits", "stratified"),
        "repeated_kfold": ("n_splits", "n_repeats", "stratified"),
        "cv5x2": ("stratified",),
        "mccv": ("n_repeats", "test_fraction", "stratified"),
        "holdout": ("test_fraction", "stratified"),
    }
    if not isinstance(raw, Mapping):
        raise r.fail("protocol", "expected a table")
    kind = raw.get("kind", "kfold")
    if kind not in PROTOCOL_KINDS:
        raise r.fail("protocol.kind", f"unknown protocol {kind!r}; choose one of {PROTOCOL_KINDS}")
    tab = r.table(raw, "protocol", ("kind", *per_kind[kind]))
    out: dict[str, Any] = {"kind": kind}
    for k in ("n_splits", "n_repeats"):
        if k in tab:
            v = r.typed(tab[k], f"protocol.{k}", int, "an integer")
            if v < (2 if k == "n_splits" else 1):
                raise r.fail(f"protocol.{k}", f"must be >= {2 if k == 'n_splits' else 1}, got {v}")
            out[k] = v
    if "test_fraction" in tab:
        v = r.typed(tab["test_fraction"], "protocol.test_fraction", (int, float), "a number")
        if not 0 < v < 1:
            raise r.fail("protocol.test_fraction", f"must lie in (0, 1), got {v}")
        out["test_fraction"] = float(v)
    if "stratified" in tab:
        out["stratified"] = r.typed(tab["stratified"], "protocol.stratified", bool, "true/false")
    return ProtocolSpec(**out)


def _parse_dataset(r: _Reader, name: str, raw: Any, data_dir: str | None,
                   allowed: tuple[str, ...]) -> DatasetSpec:
    key = f"datasets.{name}"
    tab = r.table(raw, key, ("source", "generator", "params", "label", "classes", "positive",
                             "drop_features", "dropna", "max_samples", "overrides"))
    if ("source" in tab) == ("generator" in tab):
        raise r.fail(key, "give exactly one of 'source' (a dataset name or file) or 'generator'")
    out: dict[str, Any] = {"name": name}
    if "source" in tab:
        src = r.typed(tab["source"], f"{key}.source", str, "a dataset name or file path")
        if "params" in tab:
            raise r.fail(f"{key}.params", "only a generator takes params")
        try:
            check_dataset_source(src, data_dir)
        except ValueError as exc:
            raise r.fail(f"{key}.source", str(exc)) from None
        out["source"] = src
    else:
        path = r.typed(tab["generator"], f"{key}.generator", str, "a dotted path")
        try:
            func = resolve_generator(path, allowed)
        except ValueError as exc:
            raise r.fail(f"{key}.generator", str(exc)) from None
        out["generator"] = path
        out["params"] = r.params(tab.get("params", {}), f"{key}.params")
        try:
            check_generator_params(func, path, dict(out["params"]))
        except ValueError as exc:
            raise r.fail(f"{key}.params", str(exc)) from None
    if "label" in tab:
        if "source" not in tab:
            raise r.fail(f"{key}.label", "only a 'source' dataset (a data file) has a label "
                                         "column; a generator returns its labels")
        v = r.typed(tab["label"], f"{key}.label", str, "a column name")
        if not v.strip():
            raise r.fail(f"{key}.label", "must name a column, got an empty string")
        out["label"] = v
    for k in ("classes", "positive"):
        if k in tab:
            v = tab[k]
            if k == "positive" and isinstance(v, (str, int, float)) and not isinstance(v, bool):
                v = [v]  # positive = "yes": one label
            if not isinstance(v, list) or not v or not all(
                    isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in v):
                raise r.fail(f"{key}.{k}", f"expected a non-empty list of labels, got {v!r}")
            out[k] = tuple(v)
    if "drop_features" in tab:
        out["drop_features"] = r.str_list(tab["drop_features"], f"{key}.drop_features")
    if "dropna" in tab:
        out["dropna"] = r.typed(tab["dropna"], f"{key}.dropna", bool, "true/false")
    if "max_samples" in tab:
        v = r.typed(tab["max_samples"], f"{key}.max_samples", int, "an integer")
        if v < 10:
            raise r.fail(f"{key}.max_samples", f"must be >= 10, got {v}")
        out["max_samples"] = v
    if "overrides" in tab:
        over = r.table(tab["overrides"], f"{key}.overrides",
                       tab["overrides"].keys() if isinstance(tab["overrides"], Mapping) else ())
        out["overrides"] = tuple((n, r.params(v, f"{key}.overrides.{n}"))
                                 for n, v in over.items())
    return DatasetSpec(**out)


def _check_estimator(r: _Reader, spec: EstimatorSpec, key: str, allowed: tuple[str, ...]) -> None:
    try:
        check_estimator_class(spec, allowed)
    except ValueError as exc:
        raise r.fail(key, str(exc)) from None


def _parse_scenario(r: _Reader, name: str, raw: Any, classifiers: tuple[str, ...],
                    allowed: tuple[str, ...]) -> ScenarioSpec:
    key = f"scenarios.{name}"
    tab = r.table(raw, key, ("kind", "calibrator", "params", "wrapper", "classifiers",
                             "classifier_params"))
    kind = tab.get("kind")
    if kind not in SCENARIO_KINDS:
        raise r.fail(f"{key}.kind", f"unknown scenario {kind!r}; choose one of {SCENARIO_KINDS}")
    out: dict[str, Any] = {"name": name, "kind": kind}
    needs_calibrator = kind not in ("raw", "internal", "wrapper")
    if needs_calibrator and "calibrator" not in tab:
        raise r.fail(f"{key}.calibrator", f"scenario kind {kind!r} needs a calibrator")
    if not needs_calibrator and "calibrator" in tab:
        raise r.fail(f"{key}.calibrator", f"scenario kind {kind!r} takes no calibrator")
    if (kind == "wrapper") != ("wrapper" in tab):
        raise r.fail(f"{key}.wrapper", "a 'wrapper' table is required exactly when kind = 'wrapper'")
    if kind == "raw" and "params" in tab:
        raise r.fail(f"{key}.params", "the raw scenario takes no params")
    if "calibrator" in tab:
        out["calibrator"] = r.estimator(tab["calibrator"], f"{key}.calibrator")
        _check_estimator(r, out["calibrator"], f"{key}.calibrator", allowed)
    if "wrapper" in tab:
        out["wrapper"] = r.estimator(tab["wrapper"], f"{key}.wrapper")
        _check_estimator(r, out["wrapper"], f"{key}.wrapper", allowed)
    out["params"] = r.params(tab.get("params", {}), f"{key}.params")
    if kind not in ("raw", "wrapper"):
        _check_estimator(r, EstimatorSpec(CALIBRATED_CLASSIFIER, out["params"]),
                         f"{key}.params" if out["params"] else f"{key}.kind", allowed)
    if "classifiers" in tab:
        names = r.str_list(tab["classifiers"], f"{key}.classifiers")
        for c in names:
            if c not in classifiers:
                raise r.fail(f"{key}.classifiers", f"unknown classifier {c!r}; known: {classifiers}")
        out["classifiers"] = names
    out["classifier_params"] = r.params(tab.get("classifier_params", {}),
                                        f"{key}.classifier_params")
    return ScenarioSpec(**out)


def _check_overrides(r: _Reader, datasets: tuple[DatasetSpec, ...],
                     classifiers: tuple[ClassifierSpec, ...], scenarios: tuple[ScenarioSpec, ...],
                     allowed: tuple[str, ...]) -> None:
    """Dataset overrides name a classifier (its parameters) or a scenario with a
    calibrator (the calibrator's parameters)."""
    by_name: dict[str, EstimatorSpec | None] = {c.name: c.estimator for c in classifiers}
    for s in scenarios:
        by_name.setdefault(s.name, s.calibrator)
    for d in datasets:
        for name, params in d.overrides:
            key = f"datasets.{d.name}.overrides.{name}"
            if name not in by_name:
                raise r.fail(key, f"{name!r} is neither a classifier nor a scenario")
            target = by_name[name]
            if target is None:
                raise r.fail(key, f"scenario {name!r} has no calibrator to override")
            _check_estimator(r, EstimatorSpec(target.path, target.params + params), key, allowed)


def _parse_clip(r: _Reader, raw: Any) -> tuple[tuple[str, float], ...]:
    clippable = [name for name, info in METRIC_REGISTRY.items() if info.clip is not None]
    tab = r.table(raw, "metrics.clip", clippable)
    out = []
    for name, value in tab.items():
        v = r.typed(value, f"metrics.clip.{name}", float, "a number")
        if not 0 < v < 0.5:
            raise r.fail(f"metrics.clip.{name}", f"must lie in (0, 0.5), got {v}")
        out.append((name, float(v)))
    return tuple(out)


def _parse_metrics(r: _Reader, raw: Any, classifiers: tuple[str, ...]) -> MetricsSpec:
    tab = r.table(raw, "metrics", ("names", "ece_bins", "clip", "probe", "probe_interval",
                                   "keep_posteriors"))
    out: dict[str, Any] = {}
    if "names" in tab:
        names = r.str_list(tab["names"], "metrics.names")
        for m in names:
            if m not in _SPEC_METRICS:
                raise r.fail("metrics.names",
                             f"unknown metric {m!r}; known: {sorted(_SPEC_METRICS)}")
        out["names"] = names
    if "ece_bins" in tab:
        v = r.typed(tab["ece_bins"], "metrics.ece_bins", int, "an integer")
        if not 1 <= v <= MAX_ECE_BINS:
            raise r.fail("metrics.ece_bins", f"must lie in [1, {MAX_ECE_BINS}], got {v}")
        out["ece_bins"] = v
    if "clip" in tab:
        out["clip"] = _parse_clip(r, tab["clip"])
    if "probe" in tab:
        p = r.typed(tab["probe"], "metrics.probe", str, "a classifier name")
        if p not in classifiers:
            raise r.fail("metrics.probe", f"unknown classifier {p!r}; known: {classifiers}")
        out["probe"] = p
    if "probe_interval" in tab:
        v = r.typed(tab["probe_interval"], "metrics.probe_interval", float, "a number")
        if not 0 < v < 1:
            raise r.fail("metrics.probe_interval", f"must lie in (0, 1), got {v}")
        out["probe_interval"] = v
    if "keep_posteriors" in tab:
        v = r.typed(tab["keep_posteriors"], "metrics.keep_posteriors", int,
                    "an integer (draws per chain)")
        if not 0 <= v <= MAX_KEPT_DRAWS:
            raise r.fail("metrics.keep_posteriors",
                         f"must lie in [0, {MAX_KEPT_DRAWS}] draws per chain, got {v}")
        out["keep_posteriors"] = v
    return MetricsSpec(**out)


def _parse_tests(r: _Reader, raw: Any, scenarios: tuple[str, ...], metrics: tuple[str, ...],
                 protocol: ProtocolSpec) -> TestsSpec:
    tab = r.table(raw, "tests", ("names", "baseline", "metrics", "rope"))
    names = r.str_list(tab.get("names", []), "tests.names")
    for t in names:
        if t not in SIGNIFICANCE_TESTS + METHOD_TESTS:
            raise r.fail("tests.names", f"unknown test {t!r}; known: "
                                        f"{SIGNIFICANCE_TESTS + METHOD_TESTS}")
        if t.endswith("5x2cv") and protocol.kind != "cv5x2":
            raise r.fail("tests.names", f"{t!r} needs protocol.kind = 'cv5x2', "
                                        f"not {protocol.kind!r}")
    baseline = tab.get("baseline")
    if baseline is None and any(t not in ("friedman",) for t in names):
        raise r.fail("tests.baseline", "significance tests need a baseline scenario")
    if baseline is not None and baseline not in scenarios:
        raise r.fail("tests.baseline", f"unknown scenario {baseline!r}; known: {scenarios}")
    tmetrics = r.str_list(tab.get("metrics", list(metrics[:1])), "tests.metrics")
    for m in tmetrics:
        if m not in _SPEC_METRICS:
            raise r.fail("tests.metrics", f"unknown metric {m!r}; known: {sorted(_SPEC_METRICS)}")
    rope = float(r.typed(tab.get("rope", 0.01), "tests.rope", (int, float), "a number"))
    if not rope >= 0:
        raise r.fail("tests.rope", f"must be >= 0, got {rope}")
    return TestsSpec(names=names, baseline=baseline, metrics=tmetrics, rope=rope)


def _named_tables(r: _Reader, raw: Any, key: str) -> dict[str, Any]:
    if not isinstance(raw, Mapping) or not raw:
        raise r.fail(key, f"expected at least one [{key}.<name>] table")
    for name in raw:
        r.name(name, f"{key}.{name}")
    return dict(raw)


def _checked_modules(r: _Reader, modules: Iterable[str]) -> tuple[str, ...]:
    if isinstance(modules, str):
        raise r.fail("allow_modules", f"expected a list of module names, got the string "
                                      f"{modules!r}; pass [{modules!r}]")
    out = tuple(modules)
    for m in out:
        if not isinstance(m, str) or not _MODULE.fullmatch(m):
            raise r.fail("allow_modules", f"{m!r} is not a module name like 'mylab.models'")
    return out


def _nesting(value: Any) -> int:
    """Depth of nested tables and arrays (iterative: any depth is safe)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def _toml(r: _Reader, text: str) -> dict[str, Any]:
    """The TOML document, within the size and nesting limits; any error one line."""
    if not isinstance(text, str):
        raise r.fail("<toml>", f"expected the spec as text, got {type(text).__name__}")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_SPEC_BYTES:
        raise r.fail("<file>", f"the spec is {size:,} bytes, above the limit of "
                               f"{MAX_SPEC_BYTES:,}")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise r.fail("<toml>", "not valid TOML: " + " ".join(str(exc).split())) from None
    except RecursionError:
        raise r.fail("<toml>", f"tables or arrays nested deeper than {MAX_NESTING} "
                               "levels") from None
    except (ValueError, TypeError, MemoryError) as exc:
        raise r.fail("<toml>", f"not valid TOML: {type(exc).__name__}: "
                               + " ".join(str(exc).split())[:200]) from None
    if _nesting(raw) > MAX_NESTING:
        raise r.fail("<toml>", f"tables or arrays nested deeper than {MAX_NESTING} levels")
    return raw


def _check_cells(r: _Reader, key: str, n_cells: int, max_cells: int) -> None:
    if n_cells > max_cells:
        raise r.fail(key, f"the study has {n_cells:,} cells, above the limit of {max_cells:,}; "
                          "make the grid smaller, or, if you mean it, raise the limit with "
                          "--max-cells N (max_cells= in Python)")


def parse_spec(text: str, *, path: str | Path = "<string>", data_dir: str | Path | None = None,
               allow_modules: Iterable[str] = (), max_cells: int = DEFAULT_MAX_CELLS) -> Spec:
    """Parse and validate spec text (see :func:`load_spec`)."""
    r = _Reader(str(path))
    if isinstance(max_cells, bool) or not isinstance(max_cells, int) or max_cells < 1:
        raise ValueError(f"`max_cells` must be a positive integer, got {max_cells!r}")
    raw = _toml(r, text)
    r.table(raw, "", ("study", "protocol", "datasets", "classifiers", "scenarios", "metrics",
                      "tests"))
    if isinstance(raw.get("study"), Mapping) and "allow_modules" in raw["study"]:
        raise r.fail("study.allow_modules",
                     "a spec cannot widen the allow-list of importable modules (a spec is "
                     "data, not code); remove the key and, if you trust the package, pass "
                     "--allow-module NAME to `bayescal run` (allow_modules= in Python)")
    study = r.table(raw.get("study", {}), "study", ("name", "seed", "description", "data_dir"))
    name = r.name(r.typed(study.get("name", Path(str(path)).stem), "study.name", str, "a string"),
                  "study.name")
    if "seed" not in study:
        raise r.fail("study.seed", "missing: every study needs a seed")
    seed = r.typed(study["seed"], "study.seed", int, "an integer")
    if seed < 0:
        raise r.fail("study.seed", f"must be >= 0, got {seed}")
    allowed = (*DEFAULT_ALLOWED_MODULES, *_checked_modules(r, allow_modules))
    if data_dir is None and "data_dir" in study:
        d = Path(r.typed(study["data_dir"], "study.data_dir", str, "a path"))
        data_dir = d if d.is_absolute() or path == "<string>" else Path(path).parent / d
    data_dir = None if data_dir is None else str(data_dir)

    protocol = _parse_protocol(r, raw.get("protocol", {}))
    _check_cells(r, "protocol", protocol.repeats * protocol.folds, max_cells)
    datasets = tuple(_parse_dataset(r, n, v, data_dir, allowed)
                     for n, v in _named_tables(r, raw.get("datasets"), "datasets").items())
    classifiers = []
    for n, v in _named_tables(r, raw.get("classifiers"), "classifiers").items():
        est = r.estimator(v, f"classifiers.{n}")
        _check_estimator(r, est, f"classifiers.{n}", allowed)
        classifiers.append(ClassifierSpec(n, est))
    cnames = tuple(c.name for c in classifiers)
    scenarios = tuple(_parse_scenario(r, n, v, cnames, allowed)
                      for n, v in _named_tables(r, raw.get("scenarios"), "scenarios").items())
    _check_overrides(r, datasets, tuple(classifiers), scenarios, allowed)
    for s in scenarios:  # classifier_params: checked as parameters of each classifier
        for c in classifiers:
            if s.classifier_params and s.applies_to(c.name):
                _check_estimator(r, EstimatorSpec(c.estimator.path,
                                                  c.estimator.params + s.classifier_params),
                                 f"scenarios.{s.name}.classifier_params", allowed)
    pairs = sum(s.applies_to(c.name) for c in classifiers for s in scenarios)
    _check_cells(r, "<grid>", len(datasets) * pairs * protocol.repeats * protocol.folds,
                 max_cells)
    metrics = _parse_metrics(r, raw.get("metrics", {}), cnames)
    if metrics.probe is not None and not any(s.kind == "raw" and s.applies_to(metrics.probe)
                                             for s in scenarios):
        raise r.fail("metrics.probe", f"the probe {metrics.probe!r} needs a 'raw' scenario "
                                      "that applies to it (its uncalibrated probabilities)")
    tests = _parse_tests(r, raw.get("tests", {}), tuple(s.name for s in scenarios),
                         metrics.names, protocol)
    return Spec(name=name, seed=seed, datasets=datasets, classifiers=tuple(classifiers),
                scenarios=scenarios, protocol=protocol, metrics=metrics, tests=tests,
                description=str(study.get("description", "")), allow_modules=allowed,
                data_dir=data_dir, text=text, path=str(path))


def load_spec(path: str | Path, *, data_dir: str | Path | None = None,
              allow_modules: Iterable[str] = (), max_cells: int = DEFAULT_MAX_CELLS) -> Spec:
    """Load and validate a study spec from a TOML file.

    Parameters
    ----------
    path : str or Path
        The ``.toml`` file.
    data_dir : str or Path, optional
        Directory of dataset files; overrides the spec's ``study.data_dir``.
        When neither is set, ``BAYESCAL_DATA`` is used.
    allow_modules : iterable of str, default=()
        Extra packages (or dotted prefixes) estimators may be imported from,
        besides ``sklearn`` and ``bayescal``.
    max_cells : int, default=DEFAULT_MAX_CELLS
        Most cells the study may have (a larger grid is refused).

    Returns
    -------
    Spec
        The frozen, validated spec; ``spec.text`` keeps the file's text.

    Raises
    ------
    SpecError
        On any error: unreadable file, bad TOML, unknown key, unknown
        dataset, classifier, calibrator, generator, parameter or protocol, an
        inconsistent choice, or a limit exceeded (size, nesting, cells). The
        message is one line, ``"<file>: <key>: <reason>"``.

    Examples
    --------
    >>> from importlib.resources import files
    >>> spec = load_spec(files("bayescal.study") / "specs" / "quickstart.toml")
    >>> spec.protocol.kind
    'kfold'
    """
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_SPEC_BYTES + 1)
    except OSError as exc:
        raise SpecError(path, "<file>", f"cannot read the spec: {exc.strerror}") from None
    if len(data) > MAX_SPEC_BYTES:
        raise SpecError(path, "<file>", f"the spec is larger than the limit of "
                                        f"{MAX_SPEC_BYTES:,} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(path, "<file>", f"not UTF-8 text (byte {exc.start})") from None
    return parse_spec(text, path=path, data_dir=data_dir, allow_modules=allow_modules,
                      max_cells=max_cells)
