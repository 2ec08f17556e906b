"""The `bayescal` command, run in-process with click's CliRunner on real data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import bayescal
from bayescal.cli import main
from bayescal.datasets import load_dataset
from bayescal.metrics import brier_score, expected_calibration_error, reliability_curve


@pytest.fixture
def runner():
    return CliRunner()


def test_version(runner):
    result = runner.invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"bayescal {bayescal.__version__}"


def test_help_lists_commands(runner):
    result = runner.invoke(main, ["--help"])
    assert result.exit_code == 0
    assert "datasets" in result.output and "reliability" in result.output


def test_datasets_table(runner, shared_data_dir):
    result = runner.invoke(main, ["datasets", "--data-dir", str(shared_data_dir)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["name", "samples", "features", "classes", "source"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["breast_cancer"][1:5] == ["569", "30", "2", "sklearn"]
    assert rows["iris"][1:4] == ["150", "4", "3"]
    assert rows["mammographic_mass"][1:4] == ["961", "5", "2"]


def test_reliability_breast_cancer_quickstart(runner, tmp_path):
    out = tmp_path / "quickstart-output"
    result = runner.invoke(main, ["reliability", "breast_cancer", "--out", str(out)])
    assert result.exit_code == 0, result.output
    png = out / "reliability_breast_cancer.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = pd.read_csv(out / "metrics_breast_cancer.csv")
    assert table.loc[0, "classifier"] == "naive_bayes"
    assert table.loc[0, "kind"] == "binary"
    assert table.loc[0, "n_samples"] == 569
    # Gaussian NB is accurate but over-confident on this set
    assert 0.9 < table.loc[0, "accuracy"] < 0.97
    assert "accuracy" in result.output and "wrote" in result.output
    assert table.loc[0, "positive_class"] == "benign"
    assert "positive class: 'benign' (against 'malignant'; the later in sorted order" in (
        result.output)

    # the numbers are those of an independent cross-validation with the same seed
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.naive_bayes import GaussianNB

    ds = load_dataset("breast_cancer")
    proba = cross_val_predict(
        GaussianNB(),
        ds.X,
        ds.y,
        cv=StratifiedKFold(5, shuffle=True, random_state=0),
        method="predict_proba",
    )
    assert table.loc[0, "brier"] == pytest.approx(brier_score(ds.y, proba))
    assert table.loc[0, "ece"] == pytest.approx(expected_calibration_error(ds.y, proba))
    curve = pd.read_csv(out / "reliability_breast_cancer.csv")
    expected = reliability_curve(ds.y, proba)
    assert curve["count"].tolist() == expected.count.tolist()
    np.testing.assert_allclose(curve["observed_rate"], expected.observed_rate, equal_nan=True)


def test_reliability_iris_multiclass_is_top_label(runner, tmp_path):
    result = runner.invoke(
        main,
        [
            "reliability",
            "iris",
            "--out",
            str(tmp_path),
            "--classifier",
            "random_forest",
            "--folds",
            "3",
            "--seed",
            "1",
            "--n-bins",
            "5",
            "--strategy",
            "quantile",
        ],
    )
    assert result.exit_code == 0, result.output
    table = pd.read_csv(tmp_path / "metrics_iris.csv")
    assert table.loc[0, "kind"] == "top_label"
    assert table.loc[0, "folds"] == 3 and table.loc[0, "n_bins"] == 5
    assert table.loc[0, "accuracy"] > 0.9
    assert (tmp_path / "reliability_iris.png").exists()
    assert len(pd.read_csv(tmp_path / "reliability_iris.csv")) == 5


def test_reliability_same_seed_same_numbers(runner, tmp_path):
    # the seed fixes the fold split (and the forest); naive Bayes keeps this fast
    args = ["reliability", "wine", "--folds", "3"]
    for out, seed in (("a", "0"), ("b", "0"), ("c", "1")):
        result = runner.invoke(main, [*args, "--seed", seed, "--out", str(tmp_path / out)])
        assert result.exit_code == 0, result.output
    a, b, c = (pd.read_csv(tmp_path / out / "metrics_wine.csv") for out in "abc")
    pd.testing.assert_frame_equal(a, b)
    assert a.loc[0, "brier"] != c.loc[0, "brier"]


def test_reliability_csv_with_missing_values(runner, tmp_path, shared_data_dir):
    # mammographic_mass has empty fields; the pipeline imputes them per fold
    path = shared_data_dir / "mammographic_mass.csv.gz"
    result = runner.invoke(
        main,
        ["reliability", str(path), "--out", str(tmp_path), "--classifier", "logistic_regression"],
    )
    assert result.exit_code == 0, result.output
    table = pd.read_csv(tmp_path / "metrics_mammographic_mass.csv")
    assert table.loc[0, "n_missing"] > 0
    assert "imputed" in result.output
    assert 0.7 < table.loc[0, "accuracy"] < 0.9


def test_reliability_csv_file_path(runner, tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(120, 2))
    frame = pd.DataFrame(
        {"a": x[:, 0], "b": x[:, 1], "target": (x[:, 0] + rng.normal(size=120) > 0).astype(int)}
    )
    csv = tmp_path / "toy data.csv"
    frame.to_csv(csv, index=False)
    result = runner.invoke(main, ["reliability", str(csv), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "out").glob("reliability_*.png"))) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["reliability", "no_such_dataset"], "no_such_dataset"),
        (["reliability", "iris", "--folds", "1"], "--folds"),
        (["reliability", "iris", "--classifier", "svm"], "--classifier"),
        (["reliability", "iris", "--folds", "60"], "lower --folds"),
    ],
)
def test_reliability_errors(runner, tmp_path, args, message):
    result = runner.invoke(main, [*args, "--out", str(tmp_path)])
    assert result.exit_code != 0
    assert message in result.output
    assert not isinstance(result.exception, (ValueError, TypeError))  # clean error, no traceback


def test_reliability_label_column_and_positive_class(runner, tmp_path):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(150, 2))
    outcome = np.where(x[:, 0] + rng.normal(size=150) > 0, "yes", "no")
    csv = tmp_path / "visits.csv"
    pd.DataFrame({"a": x[:, 0], "outcome": outcome, "b": x[:, 1]}).to_csv(csv, index=False)
    runs = {}
    for positive in ("yes", "no"):
        out = tmp_path / positive
        result = runner.invoke(main, ["reliability", str(csv), "--label", "outcome",
                                      "--positive", positive, "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert f"positive class: {positive!r}" in result.output and "--positive" in result.output
        runs[positive] = pd.read_csv(out / "metrics_visits.csv")
        assert runs[positive].loc[0, "positive_class"] == positive
    # the same folds and classifier: swapping the positive class keeps accuracy and Brier
    assert runs["yes"].loc[0, "accuracy"] == pytest.approx(runs["no"].loc[0, "accuracy"])
    assert runs["yes"].loc[0, "brier"] == pytest.approx(runs["no"].loc[0, "brier"])
    bad = runner.invoke(main, ["reliability", str(csv), "--label", "outcome", "--positive",
                               "maybe", "--out", str(tmp_path)])
    assert bad.exit_code == 1 and "'maybe' is not a class" in bad.output


def test_reliability_missing_target_column(runner, tmp_path):
    csv = tmp_path / "bad.csv"
    pd.DataFrame({"a": [1, 2, 3], "label": [0, 1, 0]}).to_csv(csv, index=False)
    result = runner.invoke(main, ["reliability", str(csv), "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert "target" in result.output and "--label" in result.output


def test_console_entry_runs_main_then_freezes_for_a_quick_exit(monkeypatch):
    import gc

    import bayescal.cli as cli

    calls = []

    def fake_main():
        calls.append(gc.get_freeze_count())
        raise SystemExit(3)

    monkeypatch.setattr(cli, "main", fake_main)
    gc.unfreeze()
    try:
        with pytest.raises(SystemExit) as info:
            cli.entry()
        assert info.value.code == 3 and calls == [0]  # the command ran unfrozen, its status kept
        assert gc.get_freeze_count() > 0  # frozen only after it
    finally:
        gc.unfreeze()
