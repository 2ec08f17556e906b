"""Seed 000 Tables 3-5 reproductions: the transcription, read off the seed by eye."""

from __future__ import annotations

from bayescal.reproduce import load_reproduction


def _values(rep_id: str) -> dict[tuple[str, ...], str]:
    rep = load_reproduction(rep_id)
    return {(p["block"], p["dataset"], p["classifier"], p["method"], p["metric"]): p["value"]
            for p in rep.paper}


def test_tables3_4_transcription_spot_checks():
    value = _values("seed000_tables3_4")
    assert len(value) == 2 * 4 * 3  # tables x methods x metrics
    assert value["table3", "mushroom", "nb", "raw", "CR"] == "97.4"
    assert value["table3", "mushroom", "nb", "ir_split", "Logloss"] == "0.376"
    assert value["table3", "mushroom", "nb", "dgg", "MSE"] == "0.044"
    assert value["table4", "biodegradation", "nb", "raw", "Logloss"] == "13.77"
    assert value["table4", "biodegradation", "nb", "dg", "MSE"] == "0.268"
    assert value["table4", "biodegradation", "nb", "dgg", "CR"] == "84.7"


def test_table5_transcription_spot_checks():
    rep = load_reproduction("seed000_table5")
    value = _values("seed000_table5")
    # NB, SVM, RF, NN: 5 + 7 + 6 + 5 cells; BLR and GPC raw only
    assert len(value) == 25
    assert value["table5", "synthetic", "nb", "enir_split", "MSE"] == "0.129"
    assert value["table5", "synthetic", "svm", "platt_split", "MSE"] == "0.074"
    assert value["table5", "synthetic", "svm", "platt_full", "MSE"] == "0.053"
    assert value["table5", "synthetic", "rf", "enir_oob", "MSE"] == "0.041"
    assert value["table5", "synthetic", "nn", "enir_split", "MSE"] == "0.106"
    assert value["table5", "synthetic", "gpc", "raw", "MSE"] == "0.041"
    assert all(p["source"].startswith("000_3ea404f3c4f2e30a.txt §3.3.1 Table 5")
               for p in rep.paper)
    assert rep.metrics["MSE"]["cube"] == "mse_true"
