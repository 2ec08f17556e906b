"""Tests of bayescal.study.spec: parsing, validation, SpecError messages, shipped specs."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from bayescal.study.spec import Spec, SpecError, load_spec, parse_spec

from .conftest import TINY_SPEC

REPO = Path(__file__).resolve().parents[2]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "broken.toml"
    path.write_text(text)
    return path


def _replace(old: str, new: str) -> str:
    assert old in TINY_SPEC, old
    return TINY_SPEC.replace(old, new, 1)


BAD_SPECS = [
    # (spec text, key, reason pattern)
    (_replace("sklearn.naive_bayes.GaussianNB", "sklearn.naive_bayes.NoSuchNB"),
     "classifiers.nb", "has no attribute 'NoSuchNB'"),
    (_replace("sklearn.naive_bayes.GaussianNB", "sklearn.no_such_module.Model"),
     "classifiers.nb", "cannot import module 'sklearn.no_such_module'"),
    (_replace("sklearn.naive_bayes.GaussianNB", "os.system"),
     "classifiers.nb", "outside the allowed modules"),
    (_replace("sklearn.naive_bayes.GaussianNB", "GaussianNB"),
     "classifiers.nb", "not a dotted path"),
    (_replace("sklearn.naive_bayes.GaussianNB", "sklearn.datasets.load_iris"),
     "classifiers.nb", "not an estimator class"),
    (_replace("{ C = 0.5 }", "{ C = 0.5, penalty_strength = 2 }"),
     "classifiers.lr", "unknown parameter 'penalty_strength'"),
    (_replace('source = "iris"', 'source = "no_such_dataset"'),
     "datasets.iris.source", "unknown dataset 'no_such_dataset'"),
    (_replace('generator = "sklearn.datasets.make_classification"',
              'generator = "subprocess.run"'),
     "datasets.blobs.generator", "is not a dataset generator"),
    (_replace('source = "iris"', 'source = "iris"\ngenerator = "sklearn.datasets.make_moons"'),
     "datasets.iris", "exactly one of"),
    (_replace('kind = "kfold"', 'kind = "bootstrap"'),
     "protocol.kind", "unknown protocol 'bootstrap'"),
    (_replace("n_splits = 3", "n_splits = 1"), "protocol.n_splits", "must be >= 2"),
    (_replace("n_splits = 3", 'n_splits = "three"'), "protocol.n_splits", "expected an integer"),
    (_replace('kind = "kfold"\nn_splits = 3', 'kind = "holdout"\nn_splits = 3'),
     "protocol.n_splits", "unknown key"),
    (_replace('kind = "kfold"\nn_splits = 3', 'kind = "mccv"\ntest_fraction = 1.5'),
     "protocol.test_fraction", r"must lie in \(0, 1\)"),
    (TINY_SPEC + "\n[extras]\nfoo = 1\n", "extras", "unknown key"),
    (_replace('class = "sklearn.naive_bayes.GaussianNB"',
              'klass = "sklearn.naive_bayes.GaussianNB"'), "classifiers.nb.klass", "unknown key"),
    (_replace("seed = 11\n", ""), "study.seed", "missing"),
    (_replace("seed = 11", "seed = -3"), "study.seed", "must be >= 0"),
    (_replace('kind = "raw"', 'kind = "raw"\ncalibrator = "sklearn.isotonic.IsotonicRegression"'),
     "scenarios.raw.calibrator", "takes no calibrator"),
    (_replace('kind = "raw"', 'kind = "platt"'), "scenarios.raw.kind", "unknown scenario"),
    (_replace('classifiers = ["nb"]', 'classifiers = ["svm"]'),
     "scenarios.sigmoid_cv.classifiers", "unknown classifier 'svm'"),
    (_replace('kind = "wrapper"\n', 'kind = "wrapper"\ncalibrator = "sklearn.isotonic.IsotonicRegression"\n'),
     "scenarios.sigmoid_cv.calibrator", "takes no calibrator"),
    (_replace('[metrics]\nnames = ["brier"', '[metrics]\nnames = ["brierr"'),
     "metrics.names", "unknown metric 'brierr'"),
    (_replace('[metrics]\n', '[metrics]\nclip = { brier = 1e-5 }\n'),
     "metrics.clip.brier", "unknown key"),
    (_replace('[metrics]\n', '[metrics]\nclip = { log_loss = 0.7 }\n'),
     "metrics.clip.log_loss", "must lie in"),
    (_replace('[metrics]\n', '[metrics]\nclip = { log_loss = "small" }\n'),
     "metrics.clip.log_loss", "expected a number"),
    (TINY_SPEC + '\n[tests]\nnames = ["paired_ttest_5x2cv"]\nbaseline = "raw"\n',
     "tests.names", "needs protocol.kind = 'cv5x2'"),
    (TINY_SPEC + '\n[tests]\nnames = ["cv_ttest"]\nbaseline = "isotonic"\n',
     "tests.baseline", "unknown scenario 'isotonic'"),
    (TINY_SPEC + '\n[tests]\nnames = ["t_test"]\nbaseline = "raw"\n',
     "tests.names", "unknown test 't_test'"),
    (_replace('names = ["brier", "log_loss", "ece", "accuracy"]',
              'names = ["brier"]\nprobe = "nb"').replace('kind = "raw"', 'kind = "raw"\nclassifiers = ["lr"]'),
     "metrics.probe", "needs a 'raw' scenario"),
    (_replace("[datasets.blobs]", '[datasets."../evil"]'), "datasets.../evil", "must match"),
    (_replace('source = "iris"', 'source = "iris"\noverrides = { svm = { C = 1.0 } }'),
     "datasets.iris.overrides.svm", "neither a classifier nor a scenario"),
    (_replace('source = "iris"', 'source = "iris"\noverrides = { nb = { C = 1.0 } }'),
     "datasets.iris.overrides.nb", "unknown parameter 'C'"),
    (_replace('source = "iris"', 'source = "iris"\noverrides = { raw = { C = 1.0 } }'),
     "datasets.iris.overrides.raw", "has no calibrator"),
    (_replace("[study]", "[study"), "<toml>", "not valid TOML"),
    (_replace('generator = "sklearn.datasets.make_classification"',
              'generator = "sklearn.datasets.make_classification"\nlabel = "y"'),
     "datasets.blobs.label", "only a 'source' dataset"),
    (_replace('source = "iris"', 'source = "iris"\nlabel = 3'),
     "datasets.iris.label", "expected a column name"),
    (_replace('source = "iris"', 'source = "iris"\npositive = true'),
     "datasets.iris.positive", "expected a non-empty list of labels"),
]


def test_label_and_one_positive_label_are_read(tmp_path):
    path = _write(tmp_path, _replace('source = "iris"',
                                     'source = "iris"\nlabel = "target"\npositive = "setosa"'))
    spec = load_spec(path)
    iris = next(d for d in spec.datasets if d.name == "iris")
    assert iris.label == "target" and iris.positive == ("setosa",)


@pytest.mark.parametrize(("text", "key", "reason"), BAD_SPECS,
                         ids=[f"{k}:{r[:25]}" for _, k, r in BAD_SPECS])
def test_broken_spec_fails_fast_with_file_key_reason(tmp_path, text, key, reason):
    import sklearn.linear_model  # noqa: F401  (module imports are not what is timed)

    path = _write(tmp_path, text)
    start = time.perf_counter()
    with pytest.raises(SpecError, match=reason) as info:
        load_spec(path)
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, f"validation took {elapsed:.2f} s"
    err = info.value
    assert err.file == str(path) and err.key == key
    assert str(err).startswith(f"{path}: {key}: ")
    assert isinstance(err, ValueError)


def test_unreadable_spec_file(tmp_path):
    with pytest.raises(SpecError, match="cannot read the spec") as info:
        load_spec(tmp_path / "absent.toml")
    assert info.value.key == "<file>"


def test_valid_spec_is_a_frozen_tree(tiny_spec_path):
    spec = load_spec(tiny_spec_path)
    assert isinstance(spec, Spec)
    assert spec.name == "tiny" and spec.seed == 11
    assert [d.name for d in spec.datasets] == ["blobs", "iris"]
    assert spec.datasets[0].params == (("n_samples", 120), ("n_features", 4),
                                       ("n_informative", 2), ("n_redundant", 0))
    assert spec.classifiers[1].estimator.path == "sklearn.linear_model.LogisticRegression"
    assert spec.scenarios[1].wrapper.params_dict() == {"method": "sigmoid", "cv": 2,
                                                       "ensemble": False}
    assert spec.scenarios[1].applies_to("nb") and not spec.scenarios[1].applies_to("lr")
    assert spec.protocol.repeats == 1 and spec.protocol.folds == 3
    # 2 datasets x (nb: 2 scenarios + lr: 1) x 3 folds
    assert spec.n_cells == 18
    assert spec.text == TINY_SPEC and len(spec.hash) == 64
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.seed = 3  # type: ignore[misc]


def test_spec_hash_changes_with_text():
    a = parse_spec(TINY_SPEC)
    b = parse_spec(TINY_SPEC.replace("seed = 11", "seed = 12"))
    assert a.hash != b.hash and a.seed == 11 and b.seed == 12


@pytest.mark.parametrize(("kind", "extra", "repeats", "folds", "repeat_dim"), [
    ("kfold", "n_splits = 4", 1, 4, False),
    ("repeated_kfold", "n_splits = 3\nn_repeats = 2", 2, 3, True),
    ("cv5x2", "", 5, 2, True),
    ("mccv", "n_repeats = 7\ntest_fraction = 0.25", 7, 1, True),
    ("holdout", "test_fraction = 0.2", 1, 1, False),
])
def test_protocol_dimensions(kind, extra, repeats, folds, repeat_dim):
    text = TINY_SPEC.replace('kind = "kfold"\nn_splits = 3', f'kind = "{kind}"\n{extra}')
    p = parse_spec(text).protocol
    assert (p.repeats, p.folds, p.has_repeat_dim) == (repeats, folds, repeat_dim)


def test_allow_modules_extends_the_allow_list(tmp_path, test_estimators_on_path):
    text = TINY_SPEC.replace("sklearn.naive_bayes.GaussianNB",
                             f"{test_estimators_on_path}.SlowNaiveBayes")
    with pytest.raises(SpecError, match="outside the allowed modules"):
        parse_spec(text)
    spec = parse_spec(text, allow_modules=[test_estimators_on_path])
    assert spec.classifiers[0].estimator.path.endswith("SlowNaiveBayes")


def test_a_spec_cannot_widen_its_allow_list(test_estimators_on_path):
    text = TINY_SPEC.replace("sklearn.naive_bayes.GaussianNB",
                             f"{test_estimators_on_path}.SlowNaiveBayes")
    in_file = text.replace('seed = 11', f'seed = 11\nallow_modules = ["{test_estimators_on_path}"]')
    with pytest.raises(SpecError, match="--allow-module") as info:
        parse_spec(in_file, allow_modules=[test_estimators_on_path])
    assert info.value.key == "study.allow_modules"


@pytest.mark.parametrize(("modules", "match"), [
    ("os", "expected a list of module names"),
    (["os;rm"], "is not a module name"),
    ([""], "is not a module name"),
])
def test_bad_allow_modules_argument(modules, match):
    with pytest.raises(SpecError, match=match):
        parse_spec(TINY_SPEC, allow_modules=modules)


OS_SYSTEM_SPEC = """
[study]
name = "evil"
seed = 1
allow_modules = ["os"]

[datasets.pwn]
generator = "os.system"
params = { command = "touch {marker}" }

[classifiers.nb]
class = "sklearn.naive_bayes.GaussianNB"

[scenarios.raw]
kind = "raw"
"""


def test_os_system_spec_is_refused_without_running_anything(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.toml"
    path.write_text(OS_SYSTEM_SPEC.replace("{marker}", str(marker)))
    with pytest.raises(SpecError, match="allow-module"):
        load_spec(path)
    # without the allow_modules key the generator is outside the allow-list
    path.write_text(OS_SYSTEM_SPEC.replace("{marker}", str(marker)).replace(
        'allow_modules = ["os"]\n', ""))
    with pytest.raises(SpecError, match="is not a dataset generator") as info:
        load_spec(path)
    assert info.value.key == "datasets.pwn.generator"
    from click.testing import CliRunner

    from bayescal.cli import main

    out = CliRunner().invoke(main, ["run", str(path), "--store", str(tmp_path / "s"), "-q"])
    assert out.exit_code == 1 and "is not a dataset generator" in out.output
    assert not marker.exists() and not (tmp_path / "s").exists()


def test_nested_estimators_are_checked(tmp_path):
    text = TINY_SPEC.replace(
        'wrapper = { class = "sklearn.calibration.CalibratedClassifierCV", params = { method = "sigmoid", cv = 2, ensemble = false } }',
        'wrapper = { class = "sklearn.calibration.CalibratedClassifierCV", params = { estimator = { class = "sklearn.naive_bayes.NoNB" } } }')
    with pytest.raises(SpecError, match="has no attribute 'NoNB'") as info:
        parse_spec(text, path="nested.toml")
    assert info.value.key == "scenarios.sigmoid_cv.wrapper"


def _shipped_specs() -> list[Path]:
    return sorted((REPO / "models").glob("*.toml")) + sorted(
        (REPO / "bayescal" / "study" / "specs").glob("*.toml"))


@pytest.mark.parametrize("path", _shipped_specs(), ids=lambda p: p.name)
def test_every_shipped_spec_loads(path, shared_data_dir):
    spec = load_spec(path, data_dir=shared_data_dir)
    assert spec.n_cells > 0


def test_bundled_quickstart_matches_models_copy():
    bundled = REPO / "bayescal" / "study" / "specs" / "quickstart.toml"
    assert bundled.read_text() == (REPO / "models" / "quickstart.toml").read_text()


@pytest.mark.parametrize(
    ("tests", "key", "reason"),
    [
        ('names = ["signed-rank"]', "tests.baseline", "need a baseline"),
        ('names = ["friedman"]\nrope = -0.1', "tests.rope", "must be >= 0"),
        ('names = ["friedman"]\nrope = "big"', "tests.rope", "expected a number"),
    ],
)
def test_method_comparison_tests_are_checked(tmp_path, tests, key, reason):
    with pytest.raises(SpecError, match=reason) as info:
        load_spec(_write(tmp_path, TINY_SPEC + f"\n[tests]\n{tests}\n"))
    assert info.value.key == key


def test_method_comparison_tests_in_spec():
    spec = parse_spec(TINY_SPEC + '\n[tests]\nnames = ["cv_ttest", "friedman", "hierarchical"]\n'
                      'baseline = "raw"\nrope = 0\n')
    assert spec.tests.names == ("cv_ttest", "friedman", "hierarchical")
    assert spec.tests.rope == 0.0
    assert parse_spec(TINY_SPEC + '\n[tests]\nnames = ["friedman"]\n').tests.baseline is None


def test_per_metric_clip_is_parsed(tmp_path):
    spec = load_spec(_write(tmp_path, _replace('[metrics]\n',
                                                '[metrics]\nclip = { log_loss = 1e-5 }\n')))
    assert spec.metrics.clip == (("log_loss", 1e-5),)
