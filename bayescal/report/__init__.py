"""bayescal.report: plots, tables and the HTML report.

Plotting functions import matplotlib when called, so importing this package
stays light.
"""

from bayescal.report.calibration_map import plot_calibration_map
from bayescal.report.comparison import plot_metric_comparison
from bayescal.report.corp import plot_corp_reliability_diagram
from bayescal.report.cube_figures import plot_instance_intervals
from bayescal.report.diagnostics import diagnostics_table, plot_rank_histogram, plot_trace
from bayescal.report.html import build_report
from bayescal.report.reliability import plot_reliability_diagram
from bayescal.report.smooth_reliability import plot_smooth_reliability_diagram
from bayescal.report.truth import plot_true_vs_predicted

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
