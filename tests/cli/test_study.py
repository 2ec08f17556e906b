"""Tests of the click commands ``run`` and ``show`` (bayescal.cli.study)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from bayescal.cli import main
from bayescal.cli.study import summary_frame
from bayescal.study import open_results
from bayescal.study.bundled import QUICKSTART


def test_run_then_show(tiny_spec_path, tmp_path):
    store = tmp_path / "store"
    runner = CliRunner()
    out = runner.invoke(main, ["run", str(tiny_spec_path), "--store", str(store), "--jobs", "1",
                               "--quiet"])
    assert out.exit_code == 0, out.output
    assert ("study 'tiny' (complete): 18 done, 0 failed, 0 unconverged, 6 not applicable, "
            "0 to do") in out.output and "brier" in out.output
    shown = runner.invoke(main, ["show", str(store), "--metric", "log_loss"])
    assert shown.exit_code == 0, shown.output
    assert "(complete): 18 done" in shown.output and "log_loss" in shown.output
    # plain text: no Markdown escapes or HTML tags, 100 columns at most
    table = shown.output.splitlines()[2:]
    assert not any(t in shown.output for t in ("\\_", "<u>", "**", "<b>", "|"))
    assert max(map(len, table)) <= 100
    assert table[0].split() == ["classifier", "scenario", "blobs", "iris"]
    assert [line.split()[:2] for line in table[2:5]] == [["nb", "raw"], ["nb", "sigmoid_cv"],
                                                         ["lr", "raw"]]
    legend = table.index("means over folds; * best (lower is better); ! unconverged; - not run")
    # the binary metrics' positive class is stated (blobs has two classes, iris three)
    stated = " ".join(table[legend + 1:])
    assert stated.startswith("Positive class (code 1) of each two-class data set: blobs '1'")
    assert "iris" not in stated
    again = runner.invoke(main, ["run", str(tiny_spec_path), "--store", str(store), "-j", "1",
                                 "-q"])
    assert again.exit_code != 0 and "--resume" in again.output
    resumed = runner.invoke(main, ["run", str(tiny_spec_path), "--store", str(store), "-j",
                                   "1", "-q", "--resume"])
    assert resumed.exit_code == 0, resumed.output
    # export formats: the table alone on stdout, the status line on stderr
    for fmt, first in (("csv", "metric,classifier,scenario,dataset,mean,best,significant,"
                                "unconverged"), ("md", "log\\_loss"), ("latex", "% log\\_loss"),
                       ("html", "<table class='results'>")):
        exported = runner.invoke(main, ["show", str(store), "-m", "log_loss", "--format", fmt])
        assert exported.exit_code == 0, exported.output
        assert exported.stdout.splitlines()[0].startswith(first), (fmt, exported.stdout[:200])
        assert "(complete): 18 done" not in exported.stdout
        assert "(complete): 18 done" in exported.stderr
    rows = runner.invoke(main, ["show", str(store), "--format", "csv"]).stdout.splitlines()
    assert len(rows) == 1 + 3 * 2, "\n".join(rows)  # no blank line at the end
    bad = runner.invoke(main, ["show", str(store), "--metric", "nonsense"])
    assert bad.exit_code != 0 and "no metric 'nonsense'" in bad.output


def test_summary_frame_is_the_fold_mean(tiny_spec_path, tmp_path):
    runner = CliRunner()
    runner.invoke(main, ["run", str(tiny_spec_path), "--store", str(tmp_path / "s"), "-j", "1",
                         "-q"])
    tree = open_results(tmp_path / "s")
    frame = summary_frame(tree, "brier")
    assert list(frame.columns) == ["raw", "sigmoid_cv"]
    expected = tree["metrics"]["brier"].sel(dataset="iris", classifier="nb",
                                             scenario="raw").mean()
    assert frame.loc[("iris", "nb"), "raw"] == pytest.approx(float(expected))
    assert np.isnan(frame.loc[("iris", "lr"), "sigmoid_cv"])


def test_broken_spec_is_a_clean_error(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[study]\nseed = 1\n[protocol]\nkind = "bootstrap"\n')
    out = CliRunner().invoke(main, ["run", str(path), "--store", str(tmp_path / "s")])
    assert out.exit_code == 1
    assert f"{path}: protocol.kind: unknown protocol 'bootstrap'" in out.output
    assert not (tmp_path / "s").exists()  # nothing started


def test_show_of_a_non_store(tmp_path):
    out = CliRunner().invoke(main, ["show", str(tmp_path)])
    assert out.exit_code != 0 and "not a bayescal study store" in out.output


def test_quickstart_is_bundled():
    assert QUICKSTART.is_file()


def test_reduced_quickstart_completes_without_failures(tmp_path):
    """The bundled quick-start, shrunk (3 folds, small forests, fewer DGG samples)."""
    from pathlib import Path

    from bayescal.study import parse_spec, run

    text = (Path(str(QUICKSTART)).read_text()
            .replace("n_splits = 5", "n_splits = 3")
            .replace("n_estimators = 100", "n_estimators = 10")
            .replace("n_generated = 2000", "n_generated = 300")
            .replace('source = "breast_cancer"', 'source = "breast_cancer"\nmax_samples = 150')
            .replace('inference = "nuts", draws = 2000', 'inference = "nuts", draws = 150, '
                     'tune = 150'))
    assert 'draws = 150, tune = 150' in text
    tree = run(parse_spec(text), tmp_path / "qs", n_jobs=1, progress=False)
    m = tree["metrics"].to_dataset()
    assert tree.attrs["errors"] == "{}", tree.attrs["errors"]
    # the cube says how each Bayesian cell's posterior was computed ("auto" resolved)
    samplers = json.loads(tree.attrs["samplers"])
    assert set(samplers) == {"breast_cancer/blr/raw", "synthetic/blr/raw"}
    assert set(samplers.values()) <= {"nutpie", "nutpie-glm", "pymc"}, samplers
    # the probe runs only in the raw scenario; every applicable cell is done
    applicable = m["applicable"].broadcast_like(m["brier"])
    assert not bool(applicable.sel(classifier="blr").drop_sel(scenario="raw").any())
    assert bool(m["done"].where(applicable, True).all()) and not bool(m["failed"].any())
    cells = m.where(applicable)
    for metric in ("brier", "log_loss"):
        assert bool(np.isfinite(cells[metric]).sum() == applicable.sum())
    assert bool(np.isfinite(cells["rmse_true"].sel(dataset="synthetic")).sum()
                == applicable.sel(dataset="synthetic").sum())
    assert np.isnan(m["rmse_true"].sel(dataset="breast_cancer")).all()
    # the reference probe judges every other cell, never itself (NaN: not applicable)
    probe_rmse = cells["probe_rmse"]
    assert bool(np.isnan(probe_rmse.sel(classifier="blr", scenario="raw")).all())
    assert bool(np.isnan(cells["probe_coverage"].sel(classifier="blr", scenario="raw")).all())
    assert bool(np.isfinite(probe_rmse.sel(classifier="nb")).all())
    # every scenario but the split refits on all training data: the same raw fit
    sklearn_cells = m.sel(classifier=["nb", "rf", "lr"])
    raw = sklearn_cells["fit_seconds"].sel(scenario="raw")
    assert bool((sklearn_cells["fit_seconds"].sel(scenario="isotonic_full") >= 0.5 * raw).all())
