"""bayescal.report: plots, tables and the HTML report.

Plotting functions import matplotlib when called, and the names below are
imported on first use (PEP 562), so that importing this package, or one of
its command modules for the ``bayescal`` command line, stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bayescal._lazy import lazy_attributes

if TYPE_CHECKING:
    from bayescal.report.calibration_map import plot_calibration_map
    from bayescal.report.comparison import plot_metric_comparison
    from bayescal.report.corp import plot_corp_reliability_diagram
    from bayescal.report.cube_figures import plot_instance_intervals
    from bayescal.report.diagnostics import diagnostics_table, plot_rank_histogram, plot_trace
    from bayescal.report.html import build_report
    from bayescal.report.reliability import plot_reliability_diagram
    from bayescal.report.smooth_reliability import plot_smooth_reliability_diagram
    from bayescal.report.truth import plot_true_vs_predicted

#: Public name -> module that defines it.
_LAZY = {
    "build_report": "bayescal.report.html",
    "diagnostics_table": "bayescal.report.diagnostics",
    "plot_calibration_map": "bayescal.report.calibration_map",
    "plot_corp_reliability_diagram": "bayescal.report.corp",
    "plot_instance_intervals": "bayescal.report.cube_figures",
    "plot_metric_comparison": "bayescal.report.comparison",
    "plot_rank_histogram": "bayescal.report.diagnostics",
    "plot_reliability_diagram": "bayescal.report.reliability",
    "plot_smooth_reliability_diagram": "bayescal.report.smooth_reliability",
    "plot_trace": "bayescal.report.diagnostics",
    "plot_true_vs_predicted": "bayescal.report.truth",
}

__all__ = [
    "build_report",
    "diagnostics_table",
    "plot_calibration_map",
    "plot_corp_reliability_diagram",
    "plot_instance_intervals",
    "plot_metric_comparison",
    "plot_rank_histogram",
    "plot_reliability_diagram",
    "plot_smooth_reliability_diagram",
    "plot_trace",
    "plot_true_vs_predicted",
]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
