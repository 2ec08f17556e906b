"""The self-contained HTML page of one or more assessments (inline SVG, no network).

Every string from a data file (model and column names) is escaped; figures are
inline SVG drawn by matplotlib; a Content-Security-Policy forbids loading
anything, as bayescal's study report does.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

__all__ = ["assessment_page", "assessment_table_html", "figure_svg"]

_CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        "base-uri 'none'; form-action 'none'")

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px;
       padding: 0 1em; color: #222; line-height: 1.4; }
h2 { border-bottom: 2px solid #ccc; margin-top: 1.6em; }
table.assessment { border-collapse: collapse; font-size: 0.88em; margin: 0.6em 0; }
table.assessment th, table.assessment td { border: 1px solid #ccc; padding: 0.2em 0.5em;
       text-align: right; }
table.assessment th { background: #f3f3f3; } table.assessment td.label { text-align: left; }
table.assessment tr.group td { background: #fafafa; font-weight: bold; text-align: left; }
.note { color: #444; font-size: 0.92em; max-width: 60em; }
.figures { display: flex; flex-wrap: wrap; gap: 1em; } .figures svg { max-width: 560px;
       height: auto; }
"""


def figure_svg(fig: Any, alt: str = "calibration curves") -> str:
    """A matplotlib figure as inline ``<svg>`` markup, as the study report draws its
    figures (:func:`bayescal.report.figure_output.inline_svg`: real text of at least
    9 pt, dense artists rasterised, no external links)."""
    from bayescal.report.figure_output import inline_svg

    return inline_svg(fig, alt)


def _cell(value: float | None) -> str:
    from bayescal.assessment.formatting import format_number

    return "" if value is None else html.escape(format_number(value))


def assessment_table_html(assessments: list[Any]) -> str:
    """One table: a row per statistic, for each model estimate, interval and p-value."""
    from bayescal.assessment.formatting import format_p_value

    first = assessments[0]
    pct = f"{100 * first.level:g}%"
    head = "".join(
        f'<th colspan="3">{html.escape(a.name)} (n={a.n})</th>' for a in assessments)
    sub = "".join(f"<th>estimate</th><th>{pct} interval</th><th>p</th>" for _ in assessments)
    rows, group = [], None
    width = 3 * len(assessments) + 2
    for stat in first.statistics:
        if stat.group != group:
            group = stat.group
            rows.append(f'<tr class="group"><td colspan="{width}">{html.escape(group)}</td></tr>')
        cells = []
        for a in assessments:
            try:
                s = a[stat.name]
            except KeyError:
                cells.append("<td></td><td></td><td></td>")
                continue
            interval = ("" if s.interval is None else
                        f"[{_cell(s.interval[0])}, {_cell(s.interval[1])}]")
            pv = "" if s.p_value is None else html.escape(format_p_value(s.p_value))
            cells.append(f"<td>{_cell(s.estimate)}</td><td>{interval}</td><td>{pv}</td>")
        ideal = "" if stat.ideal is None else f"{stat.ideal:g}"
        rows.append(f'<tr><td class="label">{html.escape(stat.label)}</td><td>{ideal}</td>'
                    f'{"".join(cells)}<td class="label">{html.escape(stat.method)}</td></tr>')
    return (f'<table class="assessment"><thead><tr><th>statistic</th><th>ideal</th>{head}'
            f"<th>interval / test</th></tr><tr><th></th><th></th>{sub}<th></th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def assessment_page(assessments: list[Any], *, title: str, source: str = "") -> str:
    """The full HTML page: the table and one calibration figure per model.

    Parameters
    ----------
    assessments : list of Assessment
        One per model, assessed on the same rows.
    title : str
        Page title (escaped).
    source : str, default=""
        Where the predictions came from (escaped).

    Returns
    -------
    str
    """
    from importlib.metadata import version

    import matplotlib.pyplot as plt

    from bayescal.assessment.figure import plot_assessment

    __version__ = version("bayescal")

    figures = []
    if len(assessments) > 1:
        fig, ax = plt.subplots(figsize=(5.2, 5.0))
        colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for i, a in enumerate(assessments):
            plot_assessment(a, ax=ax, colour=colours[i % len(colours)], legend=False,
                            bins=False)
        ax.legend(loc="upper left", fontsize="x-small", frameon=False)
        ax.set_title("all models")
        figures.append(figure_svg(fig, "calibration curves of all models"))
        plt.close(fig)
    for a in assessments:
        fig, ax = plt.subplots(figsize=(5.2, 5.0))
        plot_assessment(a, ax=ax)
        ax.set_title(a.name)
        figures.append(figure_svg(fig, f"calibration curves of {a.name}"))
        plt.close(fig)
    esc = html.escape
    first = assessments[0]
    settings = first.settings
    note = (
        "Calibration curves: the Bayesian penalised-spline calibration map (posterior mean "
        f"and pointwise {100 * first.level:g}% credible band), the LOWESS curve of "
        "rms::val.prob (iter=0) and equal-mass bins. Intervals: Wald (logistic "
        "recalibration), Poisson (O/E), DeLong (c-statistic), percentile bootstrap "
        f"({settings.get('n_bootstrap')} resamples; LOWESS errors, ECE, Brier, log loss) and "
        "posterior (Bayesian curve). Hierarchy after Van Calster et al. (2016), "
        "'A calibration hierarchy for risk models was defined: from utopia to empirical data'."
    )
    return (
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{esc(title)}</h1>"
        f'<p class="note">{esc(source)} bayescal {esc(__version__)}.</p>'
        f"<h2>Statistics</h2>{assessment_table_html(assessments)}"
        f'<p class="note">{esc(note)}</p>'
        f'<h2>Calibration curves</h2><div class="figures">{"".join(figures)}</div>'
        "</body></html>"
    )


def write_page(path: Path, assessments: list[Any], *, title: str, source: str = "") -> None:
    """Write :func:`assessment_page` to ``path`` (UTF-8)."""
    Path(path).write_text(assessment_page(assessments, title=title, source=source),
                          encoding="utf-8")
