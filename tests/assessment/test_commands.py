"""``bayescal assess`` and ``bayescal recalibrate``, in-process with click's CliRunner."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from bayescal.assessment.map_store import METHODS, load_map, save_map
from bayescal.cli import main


@pytest.fixture(scope="module")
def predictions(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 400
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p**1.5).astype(int)
    frame = pd.DataFrame({"p_a": p, "p_b": 0.5 + 0.6 * (p - 0.5), "outcome": y})
    path = tmp_path_factory.mktemp("data") / "preds.csv.gz"
    frame.to_csv(path, index=False)
    return path, frame


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_assess_two_models_writes_three_files(predictions, tmp_path):
    path, frame = predictions
    out = tmp_path / "out"
    res = _run("assess", path, "--proba", "p_a", "p_b", "--label", "outcome", "--out", out,
               "--bootstrap", "20", "--no-bayes")
    assert res.exit_code == 0, res.output
    assert "calibration slope" in res.output and "p_b" in res.output
    doc = json.loads((out / "assessment.json").read_text())
    assert [m["model"] for m in doc["models"]] == ["p_a", "p_b"]
    slope = doc["models"][0]["statistics"]["slope"]
    assert slope["estimate"] > 1 and len(slope["interval"]) == 2
    table = pd.read_csv(out / "assessment.csv")
    assert set(table["model"]) == {"p_a", "p_b"}
    page = (out / "assessment.html").read_text()
    assert page.count("<svg") == 3 and "Content-Security-Policy" in page  # all + 2 models
    assert "<script" not in page and "src=\"http" not in page


def test_assess_parquet_and_tsv(predictions, tmp_path):
    _, frame = predictions
    for name, write in (("p.parquet", lambda f, p: f.to_parquet(p)),
                        ("p.tsv", lambda f, p: f.to_csv(p, sep="\t", index=False))):
        write(frame, tmp_path / name)
        res = _run("assess", tmp_path / name, "--proba", "p_a", "--label", "outcome",
                   "--bootstrap", "10", "--no-bayes")
        assert res.exit_code == 0, res.output


def _bad(tmp_path, frame, *args):
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["assess", str(path), *args, "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert not out.exists()
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ")
    return lines[0]


def test_bad_input_one_line_exit_2_nothing_written(predictions, tmp_path):
    _, frame = predictions
    message = _bad(tmp_path, frame, "--proba", "p_x", "--label", "outcome")
    assert "'p_x' not found" in message and "p_a, p_b, outcome" in message
    broken = frame.copy()
    broken.loc[[6, 9], "p_a"] = [1.5, np.nan]
    message = _bad(tmp_path, broken, "--proba", "p_a", "--label", "outcome")
    assert "2 values" in message and "row 7" in message
    three = frame.copy()
    three["outcome"] = np.arange(len(frame)) % 3
    message = _bad(tmp_path, three, "--proba", "p_a", "--label", "outcome")
    assert "3 classes" in message
    message = _bad(tmp_path, three, "--proba", "p_a,p_b", "--label", "outcome")
    assert "3 classes but --proba gives 2 columns" in message
    message = _bad(tmp_path, frame, "--proba", "p_a,p_b,p_a", "--label", "outcome")
    assert "has 2 classes (0, 1) but --proba gives 3 columns" in message
    message = _bad(tmp_path, frame, "--proba", "p_a,p_b", "--label", "outcome")
    assert "rows do not sum to 1 (first at row 1" in message
    message = _bad(tmp_path, frame.head(5), "--proba", "p_a", "--label", "outcome")
    assert "at least" in message


def test_assess_multiclass(tmp_path):
    rng = np.random.default_rng(1)
    P = rng.dirichlet([2.0, 2.0, 2.0], 300)
    y = np.array([rng.choice(["a", "b", "c"], p=row) for row in P])
    path = tmp_path / "mc.csv"
    pd.DataFrame({"pa": P[:, 0], "pb": P[:, 1], "pc": P[:, 2], "cls": y}).to_csv(path,
                                                                                 index=False)
    res = _run("assess", path, "--proba", "pa,pb,pc", "--label", "cls", "--bootstrap", "10",
               "--no-bayes")
    assert res.exit_code == 0, res.output
    assert "top_label" in res.output and "class-wise ECE" in res.output


@pytest.mark.parametrize("method", ["platt", "beta", "isotonic", "histogram", "temperature",
                                    "bayes-platt"])
def test_recalibrate_save_load_round_trip(method, predictions, tmp_path):
    path, frame = predictions
    out, again, model = tmp_path / "out.csv", tmp_path / "again.csv", tmp_path / "map"
    res = _run("recalibrate", "--fit", path, "--apply", path, "--proba", "p_a", "--label",
               "outcome", "--method", method, "--out", out, "--save", model)
    assert res.exit_code == 0, res.output
    res = _run("recalibrate", "--load", model, "--apply", path, "--proba", "p_a",
               "--out", again)
    assert res.exit_code == 0, res.output
    first, second = pd.read_csv(out), pd.read_csv(again)
    pd.testing.assert_frame_equal(first, second)
    recal = first["p_a_recalibrated"].to_numpy()
    assert np.all((recal >= 0) & (recal <= 1))
    # Fitted in-sample, every map lowers the log loss of the miscalibrated p_a.
    y = frame["outcome"].to_numpy()

    def loss(q):
        q = np.clip(q, 1e-12, 1 - 1e-12)
        return -np.mean(y * np.log(q) + (1 - y) * np.log1p(-q))

    assert loss(recal) < loss(frame["p_a"].to_numpy())
    if method.startswith("bayes"):
        assert np.all(first["p_a_lower"] <= recal) and np.all(recal <= first["p_a_upper"])
    record = json.loads((tmp_path / "map.json").read_text())
    assert record["format"] == "bayescal-calibration-map" and record["method"] == method
    with np.load(tmp_path / "map.npz", allow_pickle=False):
        pass


def test_load_refuses_unknown_method_and_foreign_files(tmp_path, predictions):
    from bayescal.calibration import PlattCalibrator

    cal = PlattCalibrator().fit(np.linspace(0.1, 0.9, 20), np.arange(20) % 2)
    json_path, _ = save_map(cal, "platt", tmp_path / "m")
    record = json.loads(json_path.read_text())
    record["method"] = "os.system"
    json_path.write_text(json.dumps(record))
    with pytest.raises(ValueError, match="unknown method"):
        load_map(tmp_path / "m")
    json_path.write_text("{}")
    with pytest.raises(ValueError, match="not a saved bayescal calibration map"):
        load_map(tmp_path / "m")
    assert set(METHODS) >= {"platt", "beta", "isotonic", "temperature", "bayes-spline"}


def test_recalibrate_errors_exit_2(predictions, tmp_path):
    path, _ = predictions
    res = CliRunner().invoke(main, ["recalibrate", "--apply", str(path), "--proba", "p_a",
                                    "--out", str(tmp_path / "o.csv")])
    assert res.exit_code == 2 and "exactly one of --fit" in res.output
    assert not (tmp_path / "o.csv").exists()


def test_reliability_warns_on_probability_columns(predictions, tmp_path):
    path, frame = predictions
    renamed = frame.rename(columns={"outcome": "target"})
    csv = tmp_path / "probs.csv"
    renamed.to_csv(csv, index=False)
    res = CliRunner().invoke(main, ["reliability", str(csv), "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    assert "bayescal assess" in res.output and "lies in [0, 1]" in res.output


def test_assess_saturated_predictions_and_a_failed_posterior_says_what_to_do(tmp_path,
                                                                              monkeypatch):
    # Naive-Bayes-like predictions (mostly log-odds near +-34.5): `bayescal assess` raised a
    # raw ZeroDivisionError from calibration-in-the-large before.
    rng = np.random.default_rng(1)
    p = np.concatenate([np.full(100, 1e-15), np.full(100, 1 - 1e-15), rng.uniform(0.1, 0.9, 40)])
    y = np.concatenate([rng.random(100) < 0.2, rng.random(100) < 0.8, rng.random(40) < 0.5])
    path = tmp_path / "nb.csv"
    pd.DataFrame({"y": y.astype(int), "p_nb": p}).to_csv(path, index=False)
    res = _run("assess", path, "--proba", "p_nb", "--label", "y", "--bootstrap", "20",
               "--no-bayes")
    assert res.exit_code == 0, res.output
    assert "calibration-in-the-large" in res.output
    # a posterior that fails its check: the note names the CLI's remedy
    import warnings

    from bayescal.assessment import result
    from bayescal.inference.diagnostics import PosteriorDiagnosticsWarning

    real = result.assess

    def failing(*args, **kwargs):
        warnings.warn("BayesianSplineCalibrator posterior failed its diagnostics: Pareto k 0.9",
                      PosteriorDiagnosticsWarning, stacklevel=2)
        return real(*args, **{**kwargs, "bayesian": False})

    monkeypatch.setattr(result, "assess", failing)
    res = _run("assess", path, "--proba", "p_nb", "--label", "y", "--bootstrap", "20")
    assert res.exit_code == 0, res.output
    assert "Pareto k 0.9" in res.output and "--inference nuts" in res.output
