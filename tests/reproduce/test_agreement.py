"""Agreement figures on hand-made tables with known values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayescal.reproduce import agreement, comparison_table


def _table():
    # two rows of three methods; row r1 has a tie in the paper (a == b)
    return pd.DataFrame({
        "r": ["r0"] * 3 + ["r1"] * 3,
        "method": ["a", "b", "c"] * 2,
        "paper": [1.0, 2.0, 4.0, 3.0, 3.0, 0.0],
        "ours": [1.1, 2.2, 3.6, 0.5, 2.5, 1.0],
        "paper_text": ["1.00", "2.00", "4.00", "3.0", "3.0", "0.0"],
    })


def test_known_figures():
    a = agreement(_table(), row=["r"])
    # best: r0 a (paper) / a (ours) matched; r1 paper best c (0.0), ours a (0.5): not
    assert (a.rows, a.best_matched) == (2, 1)
    # pairs: r0 3 pairs all in order; r1 leaves out the paper's tie (a, b); (a, c) is
    # reversed (paper a > c, ours a < c), (b, c) in order
    assert (a.pairs, a.pairs_in_order) == (5, 4)
    # ratios where the paper is not zero: 1.1, 1.1, 0.9, 0.5/3, 2.5/3
    ratios = np.array([1.1, 1.1, 0.9, 0.5 / 3, 2.5 / 3])
    assert a.n_ratios == 5
    assert a.ratio_median == pytest.approx(np.median(ratios)) == pytest.approx(1.0 * 0.9)
    assert (a.ratio_min, a.ratio_max) == (pytest.approx(1 / 6), pytest.approx(1.1))
    assert a.ratio_mean == pytest.approx(ratios.mean())
    assert a.best_share == 0.5 and a.pairs_share == 0.8


def test_reversed_order_and_higher_is_better():
    t = _table()
    t.loc[t["r"] == "r0", "ours"] = [3.0, 2.0, 1.0]  # every r0 pair reversed
    a = agreement(t, row=["r"])
    assert (a.pairs_in_order, a.pairs) == (1, 5)
    assert a.best_matched == 0
    # higher is better: r0's best is c in both; r1's paper best are a and b (a tie),
    # ours b (2.5): both matched; the order of pairs does not depend on the direction
    h = agreement(_table(), row=["r"], lower_is_better=False)
    assert (h.best_matched, h.pairs_in_order) == (2, 4)


def test_ties_at_the_papers_precision_count_on_both_sides():
    t = pd.DataFrame({"r": [0, 0, 0], "method": ["a", "b", "c"],
                      "paper": [1.0, 1.2, 2.0], "ours": [1.041, 1.039, 2.0]})
    assert agreement(t, row=["r"]).best_matched == 0  # b is our strict best
    t["paper_text"] = ["1.0", "1.2", "2.0"]  # one decimal: ours a and b tie at 1.0
    a = agreement(t, row=["r"])
    assert a.best_matched == 1
    assert a.pairs_in_order == 2  # pairs are compared unrounded: (a, b) reversed


def test_ties_of_ours_and_failed_cells_count_against():
    t = _table()
    t.loc[1, "ours"] = 1.1  # ties a in r0: (a, b) no longer in order
    t.loc[5, "ours"] = np.nan  # a failed cell: r1 not matched, its pairs out of order
    a = agreement(t, row=["r"])
    assert a.pairs_in_order == 2 and a.best_matched == 1


@pytest.mark.parametrize(("table", "match"), [
    (pd.DataFrame({"r": [0], "method": ["a"], "paper": [1.0]}), "lacks the column"),
    (pd.DataFrame({"r": [0, 0], "method": ["a", "a"], "paper": [1.0, 2.0],
                   "ours": [1.0, 2.0]}), "holds a \\(row, method\\) twice"),
])
def test_bad_tables(table, match):
    with pytest.raises(ValueError, match=match):
        agreement(table, row=["r"])


def test_comparison_table_prints_ours_at_the_papers_precision():
    text = comparison_table(_table(), row=["r"])
    assert "1.00 | 1.10" in text and "3.0 | 2.5" in text
    t = _table()
    t.loc[0, "ours"] = np.nan
    assert "| failed" in comparison_table(t, row=["r"])
