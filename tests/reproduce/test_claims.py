"""Claims of a text as checks on a bar chart: parsing, evaluation by hand, bad input."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from bayescal.reproduce.claims import evaluate_check, load_claims, parse_check
from bayescal.reproduce.registry import DEFAULT_ROOT

BARS = pd.Series({("nb", "Raw"): 1.0, ("nb", "ENIR"): 0.6, ("nb", "E.full"): 0.5,
                  ("svm", "Raw"): 0.30, ("svm", "DG"): 0.32, ("svm", "CS"): 0.40,
                  ("gpc", "Raw"): 0.2})


def _per_dataset() -> pd.Series:
    # rf.CS below rf.Raw on data set "a" only
    rows = {("a", "rf", "Raw"): 0.5, ("a", "rf", "CS"): 0.4,
            ("b", "rf", "Raw"): 0.5, ("b", "rf", "CS"): 0.6,
            ("c", "rf", "Raw"): 0.5, ("c", "rf", "CS"): 0.5}
    return pd.Series(rows).rename_axis(["dataset", "classifier", "label"])


@pytest.mark.parametrize(("check", "holds"), [
    ("lt nb.E.full nb.ENIR", True),
    ("lt nb.ENIR,nb.E.full nb.Raw", True),          # max(0.6, 0.5) < 1.0
    ("lt nb.Raw,nb.E.full nb.ENIR", False),
    ("gt nb.Raw svm.Raw,gpc.Raw", True),
    ("gt svm.CS svm.Raw,svm.DG", True),              # 0.40 > max(0.30, 0.32)
    ("gt svm.Raw svm.DG", False),
    ("near svm.DG svm.Raw 0.1", True),               # |0.32 - 0.30| / 0.32 = 6.25 %
    ("near svm.DG svm.Raw 0.05", False),
    ("near svm.CS svm.Raw,svm.DG 0.26", True),       # 25 % and 20 %
    ("near svm.CS svm.Raw,svm.DG 0.2", False),
    ("worst nb.Raw", True),
    ("worst nb.ENIR", False),
    ("lt gpc.Raw nb.best,svm.best", True),           # best: nb 0.5, svm 0.30
    ("gt svm.best gpc.Raw", True),
])
def test_checks_by_hand(check, holds):
    assert evaluate_check(check, BARS).holds is holds


def test_count_lt_reads_each_data_set():
    per = _per_dataset()
    result = evaluate_check("count_lt rf.CS rf.Raw 1", pd.Series(dtype=float), per)
    assert result.holds and "on 1 of 3 data sets" in result.detail
    assert not evaluate_check("count_lt rf.CS rf.Raw 2", pd.Series(dtype=float), per).holds
    per[("b", "rf", "CS")] = math.nan
    nan = evaluate_check("count_lt rf.CS rf.Raw 1", pd.Series(dtype=float), per)
    assert not nan.holds and "1 undecided" in nan.detail


def test_a_nan_bar_makes_the_check_undecided():
    bars = BARS.copy()
    bars[("svm", "DG")] = math.nan
    for check in ("gt svm.CS svm.Raw,svm.DG", "lt gpc.Raw svm.best", "worst nb.Raw"):
        result = evaluate_check(check, bars)
        assert result.holds is False, check
    assert "undecided" in evaluate_check("gt svm.CS svm.DG", bars).detail


def test_detail_names_the_values():
    detail = evaluate_check("lt nb.E.full nb.ENIR", BARS).detail
    assert detail == "nb.E.full 0.5 < nb.ENIR 0.6"


@pytest.mark.parametrize(("check", "match"), [
    ("", "operator must be one of"),
    ("below nb.Raw svm.Raw", "operator must be one of"),
    ("lt nb.Raw", "takes 2 argument"),
    ("near nb.Raw svm.Raw", "takes 3 argument"),
    ("lt nbRaw svm.Raw", "is not 'classifier.label'"),
    ("lt nb. svm.Raw", "is not 'classifier.label'"),
    ("near nb.Raw svm.Raw ten", "a non-negative number"),
    ("near nb.Raw svm.Raw -0.1", "a non-negative number"),
    ("count_lt rf.CS rf.Raw 1.5", "a non-negative integer"),
    ("count_lt rf.CS rf.best 1", "'best' is not a scenario"),
    ("worst nb.Raw,svm.Raw", "compares single bars"),
])
def test_bad_checks(check, match):
    with pytest.raises(ValueError, match=match):
        parse_check(check)


def test_check_must_be_a_string():
    with pytest.raises(TypeError, match="`check` must be a string"):
        parse_check(["lt", "nb.Raw", "svm.Raw"])


def test_unknown_bar_and_missing_per_dataset():
    with pytest.raises(ValueError, match=r"no bar nb\.DGG"):
        evaluate_check("lt nb.DGG nb.Raw", BARS)
    with pytest.raises(ValueError, match="no bar of classifier 'rf'"):
        evaluate_check("lt rf.best nb.Raw", BARS)
    with pytest.raises(ValueError, match="needs the per-data-set values"):
        evaluate_check("count_lt rf.CS rf.Raw 1", BARS)


def test_the_reproduction_claims_load_and_parse():
    claims = load_claims(DEFAULT_ROOT / "seed000_figs12_13" / "paper.csv",
                         metrics=("fig12_claim", "fig13_claim"))
    assert len(claims) == 45
    assert all(c.source.startswith("000_3ea404f3c4f2e30a.txt §3.3.1") for c in claims)
    by = {(c.id, c.metric): c.check for c in claims}
    assert by["rf_dg_raises_logloss", "fig12_claim"] == "gt rf.DG rf.Raw"
    assert by["rf_dg_lowers_mse", "fig13_claim"] == "lt rf.DG rf.Raw"
    assert ("rf_dg_raises_logloss", "fig13_claim") not in by  # a Fig. 12 claim only


@pytest.mark.parametrize(("text", "match"), [
    ("claim,metric,source\nx,m,s\n", "needs the columns"),
    ("claim,metric,check,source\n", "needs the columns"),
    ("claim,metric,check,source\nx,m,lt a.b,s\n", r"line 2: check 'lt a.b'"),
    ("claim,metric,check,source\nx,m,lt a.b c.d,s\nx,m,gt a.b c.d,s\n", "appears twice"),
    ("claim,metric,check,source\nx,other,lt a.b c.d,s\n", "metric 'other' is not one of"),
])
def test_bad_claim_files(tmp_path, text, match):
    path = tmp_path / "paper.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        load_claims(path, metrics=("m",))
