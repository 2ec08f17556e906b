"""The report in headless Chromium.

1. The report of a real (small) study opens: every figure renders, no console errors,
   nothing injected from the spec runs. A screenshot is written to
   ``test-artifacts/report-browser.png`` at the repository root (git-ignored).
2. The quick-start report reads well at 1400 px wide: under 12 000 px tall as delivered
   (sections folded), no figure text under 9 px with every section open, no empty panel,
   no request for anything outside the page. Its first screen is written to
   ``test-artifacts/report-first-screen.png``.

Needs Debian's ``chromium`` (``apt-get install chromium``; ``.ci/run`` installs it and
sets ``CI=true``). Where no Chromium binary is found the test is skipped with the reason,
unless the ``CI`` environment variable is set (to anything but ``""``, ``0``, ``false`` or
``no``): there a missing browser fails the test, so CI never skips it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from bayescal.report import build_report  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"

# The quick-start study, cut down to stay fast: the same two datasets (one with true
# probabilities), two of its classifiers, raw and Platt-calibrated, 3-fold CV. The comment
# tries to inject markup through the spec text, which the report must escape.
SPEC = """
[study]
name = "browser_check"
seed = 3
# <script>document.title = "injected"</script> <img src="x" onerror="throw 1">

[protocol]
kind = "kfold"
n_splits = 3

[datasets.breast_cancer]
source = "breast_cancer"

[datasets.synthetic]
generator = "bayescal.datasets.make_thesis_synthetic"
params = { n_per_class = 100 }

[classifiers.nb]
class = "sklearn.naive_bayes.GaussianNB"

[classifiers.lr]
class = "sklearn.pipeline.Pipeline"
params = { steps = [["scale", { class = "sklearn.preprocessing.StandardScaler" }],
                    ["lr", { class = "sklearn.linear_model.LogisticRegression" }]] }

[scenarios.raw]
kind = "raw"

[scenarios.sigmoid_cv]
kind = "wrapper"
wrapper = { class = "sklearn.calibration.CalibratedClassifierCV", params = { method = "sigmoid", cv = 3, ensemble = false } }

[metrics]
names = ["brier", "log_loss", "ece", "accuracy"]

[tests]
names = ["corrected_resampled_ttest"]
baseline = "raw"
metrics = ["brier", "log_loss"]
"""

# Injected into a copy of the page (with inline scripts allowed for it alone; images stay
# restricted to data: URIs): counts decoded images, records errors and policy violations.
PROBE = """<script>
window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push('error: ' + e.message); });
document.addEventListener('securitypolicyviolation', function (e) {
  window.__errors.push('blocked: ' + e.blockedURI + ' by ' + e.violatedDirective); });
window.addEventListener('load', function () {
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  var figs = Array.prototype.slice.call(document.querySelectorAll('svg.figure'));
  var drawn = figs.filter(function (f) { var b = f.getBBox(); return b.width > 0 && b.height > 0; });
  var out = document.createElement('pre');
  out.id = 'probe-result';
  out.textContent = JSON.stringify({images: figs.length, decoded: drawn.length,
    errors: window.__errors, title: document.title,
    first_section: document.querySelector('section, details').id});
  document.body.appendChild(out);
});
</script>"""

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
    "--virtual-time-budget=15000",
]


def _in_ci() -> bool:
    """Whether the ``CI`` environment variable says this is a CI run."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _chromium() -> str:
    """Path of the Chromium binary; skip (outside CI) or fail (in CI) when there is none."""
    path = shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )
    if path is None:
        remedy = "apt-get install -y chromium (.ci/run does it)"
        if not _in_ci():
            pytest.skip(f"no Chromium binary found and CI is not set; to run it: {remedy}")
        pytest.fail(f"CI is set but no Chromium binary was found; headless Chromium is needed: {remedy}")
    return path


@pytest.mark.parametrize(
    ("ci", "expected"),
    [(None, "skip"), ("", "skip"), ("false", "skip"), ("0", "skip"), ("true", "fail"), ("1", "fail")],
)
def test_missing_chromium_skips_only_outside_ci(monkeypatch, tmp_path, ci, expected):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(Path, "exists", lambda self: False)
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    outcome = pytest.skip.Exception if expected == "skip" else pytest.fail.Exception
    with pytest.raises(outcome, match="Chromium"):
        _chromium()


def _run(args: list[str], profile: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_chromium(), *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.mark.browser
def test_report_of_a_study_renders_in_headless_chromium(tmp_path, capsys):
    from bayescal.study import run

    _chromium()  # skip or fail before the study runs when there is no browser
    spec = tmp_path / "browser_check.toml"
    spec.write_text(SPEC)
    tree = run(spec, tmp_path / "store", n_jobs=1, progress=False)
    page = build_report(tree, tmp_path / "report", progress=False, dpi=60)
    n_images = page.read_text().count('<svg role="img"')
    # (friedman, signed-rank) x 2 classifiers, (spread, reliability, CORP) x 2 datasets,
    # calibration maps x 2, truth x 1
    assert n_images == 2 * 2 + 2 * 3 + 2 + 1

    # 1. screenshot of the page exactly as built
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report-browser.png"
    shot.unlink(missing_ok=True)
    done = _run(
        ["--window-size=1400,5000", f"--screenshot={shot}", page.as_uri()],
        tmp_path / "profile-shot",
    )
    with capsys.disabled():
        print(f"\nreport screenshot: {shot}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000

    # 2. the probe: every image decoded, no errors, nothing injected ran
    html = page.read_text()
    assert "default-src 'none';" in html
    probed = html.replace(
        "default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';", 1
    ).replace("<head>", "<head>" + PROBE, 1)
    probe_page = tmp_path / "report" / "probe.html"
    probe_page.write_text(probed, encoding="utf-8")
    done = _run(["--dump-dom", probe_page.as_uri()], tmp_path / "profile-probe")
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'<pre id="probe-result">(.*?)</pre>', done.stdout, re.S)
    assert found, f"the probe did not report; Chromium said:\n{done.stderr[-2000:]}"
    result = json.loads(
        found.group(1)
        .replace("&quot;", '"')
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
    )
    assert result["images"] == n_images
    assert result["decoded"] == n_images, result
    assert result["errors"] == [], result
    assert result["title"] == "bayescal report: browser_check"  # the spec's <script> is text
    assert result["first_section"] == "summary"  # the answer comes first
    console_errors = [
        line
        for line in done.stderr.splitlines()
        if "CONSOLE" in line and ("Error" in line or "Uncaught" in line)
    ]
    assert console_errors == []


# Measures the quick-start report as a reader gets it (sections folded), then with every
# section open: figure text size on screen, panels without data, requests for resources.
MEASURE = """<script>
window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push('error: ' + e.message); });
document.addEventListener('securitypolicyviolation', function (e) {
  window.__errors.push('blocked: ' + e.blockedURI + ' by ' + e.violatedDirective); });
window.addEventListener('load', function () {
  var r = {width: document.documentElement.clientWidth,
           folded_height: document.documentElement.scrollHeight,
           sections: document.querySelectorAll('details.section').length,
           open_sections: document.querySelectorAll('details.section[open]').length};
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  r.open_height = document.documentElement.scrollHeight;
  var sizes = [];
  document.querySelectorAll('svg.figure text').forEach(function (t) {
    if (!t.textContent.trim()) return;
    var m = t.getScreenCTM();
    var px = parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(m.a * m.a + m.b * m.b);
    sizes.push([px, t.textContent]);
  });
  sizes.sort(function (a, b) { return a[0] - b[0]; });
  r.n_texts = sizes.length;
  r.smallest_texts = sizes.slice(0, 3);
  r.n_figures = document.querySelectorAll('svg.figure').length;
  r.widest_figure = Math.max.apply(null, Array.prototype.map.call(
    document.querySelectorAll('svg.figure'), function (f) { return f.getBoundingClientRect().width; }));
  var panels = document.querySelectorAll('svg.figure g.axes');
  r.n_panels = panels.length;
  r.empty_panels = Array.prototype.filter.call(panels, function (g) {
    return !g.querySelector('[clip-path], image'); }).map(function (g) {
    return g.closest('svg').getAttribute('aria-label'); });
  r.resources = performance.getEntriesByType('resource').map(function (e) { return e.name; });
  r.errors = window.__errors;
  var out = document.createElement('pre');
  out.id = 'probe-result';
  out.textContent = JSON.stringify(r);
  document.body.appendChild(out);
});
</script>"""


def _probe(page: Path, script: str, tmp_path: Path, name: str) -> dict:
    """Open a copy of ``page`` with ``script`` allowed to run; return what it reports."""
    html = page.read_text(encoding="utf-8")
    assert "default-src 'none';" in html
    probed = html.replace(
        "default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';", 1
    ).replace("<head>", "<head>" + script, 1)
    copy = tmp_path / f"{name}.html"
    copy.write_text(probed, encoding="utf-8")
    done = _run(["--window-size=1400,1000", "--host-resolver-rules=MAP * ~NOTFOUND",
                 "--dump-dom", copy.as_uri()], tmp_path / f"profile-{name}")
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'<pre id="probe-result">(.*?)</pre>', done.stdout, re.S)
    assert found, f"the probe did not report; Chromium said:\n{done.stderr[-2000:]}"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&")
                      .replace("&lt;", "<").replace("&gt;", ">"))


@pytest.mark.browser
@pytest.mark.slow
def test_quickstart_report_reads_well_at_1400_px(quickstart_report, tmp_path, capsys):
    _chromium()
    r = _probe(quickstart_report, MEASURE, tmp_path, "measure")
    with capsys.disabled():
        print(f"\nquick-start report at {r['width']} px wide: {r['folded_height']} px tall "
              f"folded, {r['open_height']} px with every section open; smallest figure text "
              f"{r['smallest_texts'][0][0]:.1f} px; {r['n_panels']} panels in "
              f"{r['n_figures']} figures")
    assert r["width"] >= 1380  # the window is 1400 px (minus a scroll bar)
    # as delivered: the first screen's answer, every other section folded
    assert r["sections"] >= 8 and r["open_sections"] == 0
    assert r["folded_height"] < 12_000
    # every section open: the figures are laid out, and no text in them is under 9 px
    assert r["n_figures"] >= 15 and r["n_texts"] > 500
    assert r["smallest_texts"][0][0] >= 9.0, r["smallest_texts"]
    assert r["widest_figure"] <= r["width"]
    # no panel without data (placeholders such as "not applicable" or "no finished cell")
    assert r["n_panels"] > 60 and r["empty_panels"] == [], r["empty_panels"]
    page = quickstart_report.read_text(encoding="utf-8")
    figure_text = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", page))
    for placeholder in ("not applicable", "not run", "no finished cell", "nothing to draw"):
        assert placeholder not in figure_text, placeholder
    assert "Nothing to show" not in page
    # nothing requested from outside the page, nothing blocked, no script error
    assert r["resources"] == [] and r["errors"] == [], (r["resources"], r["errors"])

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report-first-screen.png"
    shot.unlink(missing_ok=True)
    done = _run(["--window-size=1400,900", "--hide-scrollbars", f"--screenshot={shot}",
                 quickstart_report.as_uri()], tmp_path / "profile-first-screen")
    assert done.returncode == 0 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
