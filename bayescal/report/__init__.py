"""bayescal.report: plots, tables and the HTML report.

Plotting functions import matplotlib when called, so importing this package
stays light.
"""

from bayescal.report.reliability import plot_reliability_diagram

__all__ = ["plot_reliability_diagram"]
