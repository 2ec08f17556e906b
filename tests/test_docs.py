"""The documentation site builds with warnings as errors and covers the public API.

The build runs ``sphinx-build -W -b html`` on a copy of ``docs/`` (so generated
API pages never land in the repository) with the bayescal that the tests import.
Build locally with ``sphinx-build -W -b html docs docs/_build/html``.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
DOCS = REPO_ROOT / "docs"

# The packages whose ``__all__`` the API reference lists, one page per name.
DOCUMENTED = (
    "datasets",
    "metrics",
    "calibration",
    "probes",
    "inference",
    "missing",
    "selection",
    "stats",
    "cube",
    "study",
    "report",
    "assessment",
    "validation",
    "contracts",
    "clipping",
    "threads",
    "cli",
)


def test_api_page_lists_every_documented_package():
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    listed = {line.strip() for line in text.splitlines() if line.startswith("   bayescal.")}
    assert listed == {f"bayescal.{name}" for name in DOCUMENTED}


def test_gallery_lists_every_notebook():
    text = (DOCS / "gallery.md").read_text(encoding="utf-8")
    missing = [
        nb.name for nb in sorted((REPO_ROOT / "notebooks").glob("*.py")) if nb.name not in text
    ]
    assert not missing, f"notebooks missing from docs/gallery.md: {missing}"


def test_every_method_page_is_in_the_methods_index():
    index = (DOCS / "methods" / "index.md").read_text(encoding="utf-8")
    pages = sorted(p.stem for p in (DOCS / "methods").glob("*.md") if p.stem != "index")
    assert pages and [p for p in pages if f"\n{p}\n" not in index] == []


def test_every_method_page_embeds_the_figure_of_its_gallery_example():
    pages = sorted(p.stem for p in (DOCS / "methods").glob("*.md") if p.stem != "index")
    examples = {p.stem for p in (DOCS / "examples").glob("plot_*.py")}
    without_example = [p for p in pages if f"plot_{p}" not in examples]
    assert not without_example, f"method pages without an example script: {without_example}"
    not_embedded = [
        p
        for p in pages
        if f"../auto_examples/images/sphx_glr_plot_{p}_001.png"
        not in (DOCS / "methods" / f"{p}.md").read_text(encoding="utf-8")
    ]
    assert not not_embedded, (
        f"method pages that do not show their example's figure: {not_embedded}"
    )


def _build_docs(tmp: Path) -> Path:
    """``sphinx-build -W`` on a copy of docs/; the output directory.

    The copy keeps generated pages (the API reference, the executed gallery) out of the
    repository; the gallery scripts run in the build's own process.
    """
    source = tmp / "docs"
    shutil.copytree(
        DOCS,
        source,
        ignore=shutil.ignore_patterns(
            "_build", "generated", "auto_examples", "sg_execution_times.rst"
        ),
    )
    out = tmp / "html"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p
    )
    env["MPLBACKEND"] = "Agg"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-b",
            "html",
            "-q",
            str(source),
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, f"sphinx-build failed:\n{done.stderr[-6000:]}"
    return out


@pytest.mark.slow
def test_docs_build_without_warnings(tmp_path):
    """One build and every check of the built site, in one test: under pytest-xdist a
    module-scoped fixture would build the site once per worker."""
    out = _build_docs(tmp_path)
    _check_api_reference(out)
    _check_method_pages_show_figures(out)
    _check_nothing_loaded_from_a_network_host(out)
    _check_maths_typeset_with_every_host_blocked(out, tmp_path)


def _check_maths_typeset_with_every_host_blocked(out: Path, tmp: Path) -> None:
    """Headless Chromium, every host name unresolvable, typesets a method page's maths."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but no Chromium binary was found (apt-get install chromium)")
        return  # outside CI the build checks above still ran
    done = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={tmp / 'chromium-profile'}",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--virtual-time-budget=10000",
            "--dump-dom",
            (out / "methods" / "platt.html").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    typeset = done.stdout.count("<mjx-container")
    assert typeset >= 5, (
        f"MathJax typeset {typeset} formulas offline; Chromium said:\n{done.stderr[-2000:]}"
    )


def _check_api_reference(out: Path) -> None:
    generated = out / "api" / "generated"
    missing = []
    for short in DOCUMENTED:
        module = importlib.import_module(f"bayescal.{short}")
        assert (generated / f"bayescal.{short}.html").is_file(), short
        for name in getattr(module, "__all__", ()):
            if not (generated / f"bayescal.{short}.{name}.html").is_file():
                page = (generated / f"bayescal.{short}.html").read_text(encoding="utf-8")
                if f"bayescal.{short}.{name}" not in page:
                    missing.append(f"bayescal.{short}.{name}")
    assert not missing, f"public names missing from the API reference: {missing}"
    for page in (
        "index",
        "user_guide",
        "concepts",
        "gallery",
        "architecture",
        "methods/corp",
        "auto_examples/index",
        "study_spec",
        "references",
        "tutorials/own_data",
        "tutorials/own_predictions",
    ):
        assert (out / f"{page}.html").is_file(), page


def _image_sources(html: str) -> list[str]:
    """The ``src`` of every ``<img>`` of a page (its article and its chrome)."""
    return re.findall(r"<img\b[^>]*\bsrc=\"([^\"]+)\"", html)


def _check_method_pages_show_figures(out: Path) -> None:
    """Every method page shows at least one image drawn at build time."""
    pages = sorted(p.stem for p in (DOCS / "methods").glob("*.md") if p.stem != "index")
    without = []
    for page in pages:
        html_file = out / "methods" / f"{page}.html"
        sources = _image_sources(html_file.read_text(encoding="utf-8"))
        drawn = [
            src
            for src in sources
            if (html_file.parent / src).is_file()
            and (html_file.parent / src).stat().st_size > 5000
        ]
        if not drawn:
            without.append(page)
    assert not without, f"method pages without a figure: {without}"
    # The figures come from the build, not from the repository.
    committed = [p for p in DOCS.rglob("*.png") if "auto_examples" not in p.parts]
    assert not committed, f"figures committed under docs/: {committed}"


_NETWORK = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)


def _external_assets(html: str) -> list[str]:
    """Scripts, stylesheets, preloads, icons and images a page loads from a network host."""
    found = []
    for tag in re.findall(r"<(?:script|link|img|iframe|source)\b[^>]*>", html, re.IGNORECASE):
        if tag.lower().startswith("<link") and not re.search(
            r"rel=\"(?:stylesheet|preload|modulepreload|icon|shortcut icon|manifest)\"", tag
        ):
            continue  # navigation links (next, prev, index) load nothing
        for url in re.findall(r"\b(?:src|href|srcset)=\"([^\"]+)\"", tag, re.IGNORECASE):
            if _NETWORK.match(url.strip()):
                found.append(url)
    found += re.findall(r"@import\s+(?:url\()?[\"']?((?:https?:)?//[^\"')\s]+)", html)
    return found


def test_external_asset_scan_finds_network_hosts():
    page = (
        '<script src="https://cdn.example.org/mathjax.js"></script>'
        '<script src="_static/local.js"></script>'
        '<link rel="stylesheet" href="//fonts.example.org/a.css">'
        '<link rel="next" href="https://example.org/next.html">'
        '<img src="http://example.org/a.png">'
        "<style>@import url(https://example.org/b.css);</style>"
    )
    assert _external_assets(page) == [
        "https://cdn.example.org/mathjax.js",
        "//fonts.example.org/a.css",
        "http://example.org/a.png",
        "https://example.org/b.css",
    ]


def _check_nothing_loaded_from_a_network_host(out: Path) -> None:
    """No page's scripts, stylesheets or images come from a network host."""
    pages = sorted(out.rglob("*.html"))
    assert len(pages) > 100
    offenders = {}
    for page in pages:
        found = _external_assets(page.read_text(encoding="utf-8"))
        if found:
            offenders[str(page.relative_to(out))] = found
    assert not offenders, f"pages that load from a network host: {offenders}"
    # Maths is rendered by the MathJax copy shipped with the site.
    platt = (out / "methods" / "platt.html").read_text(encoding="utf-8")
    assert '<script defer="defer" src="../_static/mathjax/tex-chtml.js"></script>' in platt
    assert (out / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert any((out / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").iterdir())
    # Style sheets reach no network host either (fonts and icons are local).
    for css in (out / "_static").rglob("*.css"):
        text = css.read_text(encoding="utf-8", errors="replace")
        remote = re.findall(r"url\(\s*[\"']?((?:https?:)?//[^\"')\s]+)", text)
        assert not remote, f"{css.relative_to(out)} loads {remote}"


# ----------------------------------------------------------------- the spec format page

_MINIMAL_SPEC = {
    "study": 'name = "probe"\nseed = 1',
    "datasets.d": 'source = "breast_cancer"',
    "classifiers.nb": 'class = "sklearn.naive_bayes.GaussianNB"',
    "scenarios.raw": 'kind = "raw"',
}


def _allowed_keys(section: str, extra: str = "") -> set[str]:
    """The keys the parser accepts in ``section``, as its own error message lists them.

    A valid minimal spec gets one unknown key in ``section``; the parser's
    ``SpecError`` names the keys allowed there. Nothing is copied from the parser's
    source, so the page is checked against what it does.
    """
    from bayescal.study.spec import SpecError, parse_spec

    tables = {"": "", **_MINIMAL_SPEC}  # top-level keys come before the first table
    body = "\n".join(line for line in (tables.get(section, ""), extra) if line)
    tables[section] = body + "\nzz_not_a_key = 1"
    text = "\n".join(
        f"[{name}]\n{content}" if name else content for name, content in tables.items()
    )
    with pytest.raises(SpecError, match="unknown key; allowed here: ") as info:
        parse_spec(text)
    return {key.strip() for key in info.value.reason.split("allowed here:")[1].split(",")}


def _documented(section: str) -> dict[str, list[str]]:
    """The rows of the page's table under ``## `[section]` ``: key -> cells."""
    text = (DOCS / "study_spec.md").read_text(encoding="utf-8")
    heading = f"## `[{section}]`"
    assert heading in text, f"docs/study_spec.md has no section {heading}"
    part = text.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in part.splitlines():
        match = re.match(r"\| `(\w+)` \|(.*)\|$", line)
        if match:
            rows[match.group(1)] = [cell.strip() for cell in match.group(2).split("|")]
    return rows


# Keys documented ahead of the parser change that adds them; they may be accepted or not.
_DOCUMENTED_AHEAD: dict[str, set[str]] = {}


def test_spec_page_lists_every_key_the_parser_accepts():
    from bayescal.study.spec import PROTOCOL_KINDS

    protocol = set()
    for kind in PROTOCOL_KINDS:
        protocol |= _allowed_keys("protocol", f'kind = "{kind}"')
    sections = {
        "study": _allowed_keys("study"),
        "protocol": protocol,
        "datasets.<name>": _allowed_keys("datasets.d"),
        "classifiers.<name>": _allowed_keys("classifiers.nb"),
        "scenarios.<name>": _allowed_keys("scenarios.raw"),
        "metrics": _allowed_keys("metrics"),
        "tests": _allowed_keys("tests"),
    }
    for section, allowed in sections.items():
        documented = set(_documented(section))
        ahead = _DOCUMENTED_AHEAD.get(section, set())
        assert documented - ahead == allowed - ahead, (
            f"[{section}]: keys the parser accepts but docs/study_spec.md does not list: "
            f"{sorted(allowed - documented)}; listed but refused: {sorted(documented - allowed)}"
        )
    # and the top level has exactly the documented sections
    text = (DOCS / "study_spec.md").read_text(encoding="utf-8")
    top = {m.split(".")[0] for m in re.findall(r"^## `\[([\w.<>]+)\]`", text, re.MULTILINE)}
    assert top == _allowed_keys("")


def test_spec_page_defaults_are_the_codes():
    import dataclasses
    import tomllib

    from bayescal.study.spec import DatasetSpec, MetricsSpec, ProtocolSpec, TestsSpec

    checked = 0
    for section, cls in (
        ("protocol", ProtocolSpec),
        ("datasets.<name>", DatasetSpec),
        ("metrics", MetricsSpec),
        ("tests", TestsSpec),
    ):
        defaults = {
            f.name: f.default
            for f in dataclasses.fields(cls)
            if f.default is not dataclasses.MISSING
        }
        for key, cells in _documented(section).items():
            literal = re.fullmatch(r"`([^`]+)`", cells[1])
            if key not in defaults or not literal:
                continue  # "required", "–" (not set) or described in words
            documented = tomllib.loads(f"v = {literal.group(1)}")["v"]
            expected = defaults[key]
            expected = list(expected) if isinstance(expected, tuple) else expected
            expected = (
                {} if key in ("clip", "overrides", "params") and expected == [] else expected
            )
            assert documented == expected, (
                f"[{section}] {key}: page {documented!r}, code {expected!r}"
            )
            checked += 1
    assert checked >= 10


def test_run_help_points_to_the_spec_format_page():
    from click.testing import CliRunner

    from bayescal.cli import main

    result = CliRunner().invoke(main, ["run", "--help"])
    assert result.exit_code == 0, result.output
    page = re.search(r"docs/(\w+)\.md", result.output)
    assert page and page.group(1) == "study_spec", result.output
    assert (DOCS / "study_spec.md").is_file()


def _code_blocks(page: Path, language: str) -> list[str]:
    """The fenced ``language`` blocks of a Markdown page, in order."""
    text = page.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def test_own_data_tutorial_writes_its_file_and_its_spec_loads(tmp_path, monkeypatch):
    """The tutorial's Python writes the CSV its spec names, and the spec passes every check."""
    from bayescal.datasets import load_dataset
    from bayescal.study.spec import load_spec

    page = DOCS / "tutorials" / "own_data.md"
    monkeypatch.chdir(tmp_path)
    exec(compile(_code_blocks(page, "python")[0], str(page), "exec"), {})
    (spec_text,) = _code_blocks(page, "toml")
    (tmp_path / "tumours.toml").write_text(spec_text, encoding="utf-8")
    spec = load_spec(tmp_path / "tumours.toml")
    assert [d.source for d in spec.datasets] == ["tumours.csv"]
    assert spec.n_cells == 40  # the count the tutorial's output shows
    data = load_dataset("tumours.csv", data_dir=tmp_path, binary="malignant")
    assert data.X.shape == (569, 7) and data.class_names == ["not malignant", "malignant"]


def test_spec_page_example_loads():
    import tomllib

    from bayescal.study.spec import parse_spec

    blocks = _code_blocks(DOCS / "study_spec.md", "toml")
    spec = parse_spec(blocks[0], path="study_spec.md")
    assert spec.name == "quickstart" and spec.metrics.probe == "blr"
    for block in blocks[1:]:  # fragments: each is valid TOML
        tomllib.loads(block)


# Source documents are cited by author, year and title (docs/references.md), never by
# their file names or as "seed 004".
_SOURCE_FILE_NAME = re.compile(r"\b00[0-4]_[0-9a-f]{16}\.txt|\b[Ss]eeds? +`*00[0-4]\b")
# Every module is checked (the reproduce and report branches have landed).
_NOT_YET_CHECKED: tuple[str, ...] = ()


def test_docs_and_docstrings_cite_sources_not_file_names():
    assert _SOURCE_FILE_NAME.search("as in seed ``004``, Eq. 1")
    assert _SOURCE_FILE_NAME.search("Seed ``003_ae04b9c089c5a27c.txt`` §4")
    assert not _SOURCE_FILE_NAME.search("bayescal reproduce seed004_tables1_4; random seed 0")
    paths = [
        *DOCS.rglob("*.md"),
        *DOCS.rglob("*.rst"),
        *(DOCS / "examples").glob("*.py"),
        *(REPO_ROOT / "bayescal").rglob("*.py"),
    ]
    hits = []
    for path in paths:
        rel = path.relative_to(REPO_ROOT).as_posix()
        if rel.startswith(_NOT_YET_CHECKED) or "/auto_examples/" in rel or "/generated/" in rel:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _SOURCE_FILE_NAME.search(line):
                hits.append(f"{rel}:{number}: {line.strip()}")
    assert not hits, "cite the source by author and year (docs/references.md):\n" + "\n".join(hits)


def test_method_page_signatures_name_real_parameters_and_values():
    """``bayescal.pkg.Name(param="a" | "b")`` on a method page: the name, the parameter
    and every quoted value exist (values checked against ``_parameter_constraints``)."""
    wrong = []
    for page in sorted((DOCS / "methods").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"`bayescal\.(\w+)\.(\w+)\(([^`]*)\)`", text):
            package, name, args = match.groups()
            obj = getattr(importlib.import_module(f"bayescal.{package}"), name, None)
            if obj is None:
                wrong.append(f"{page.stem}: bayescal.{package} has no {name}")
                continue
            parameters = inspect.signature(obj).parameters
            constraints = getattr(obj, "_parameter_constraints", {})
            for arg in re.finditer(r'(\w+)=((?:"[^"]*"(?:\s*\|\s*"[^"]*")*)|[^,]+)', args):
                key, value = arg.groups()
                if key not in parameters:
                    wrong.append(f"{page.stem}: {name} has no parameter {key!r}")
                    continue
                allowed = " ".join(str(c) for c in constraints.get(key, ()))
                for option in re.findall(r'"([^"]*)"', value):
                    if constraints.get(key) and f"'{option}'" not in allowed:
                        wrong.append(f"{page.stem}: {name}({key}={option!r}): allowed {allowed}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow  # fits a gradient-boosting model: about 2 s at rest, 10 s under load
def test_own_predictions_tutorial_writes_the_files_it_assesses(tmp_path, monkeypatch):
    """The tutorial's Python writes the two predictions files its commands read."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    page = DOCS / "tutorials" / "own_predictions.md"
    monkeypatch.chdir(tmp_path)
    with threadpool_limits(1):  # gradient boosting's OpenMP threads, on a shared machine
        exec(compile(_code_blocks(page, "python")[0], str(page), "exec"), {})
    for name, rows in (("calibration.csv", 750), ("test.csv", 750)):
        frame = pd.read_csv(tmp_path / name)
        assert list(frame.columns) == ["outcome", "p_nb", "p_gb"] and len(frame) == rows
        assert set(frame["outcome"]) == {"no", "yes"}
        assert frame[["p_nb", "p_gb"]].stack().between(0, 1).all()
    text = page.read_text(encoding="utf-8")
    assert "n=750, events=131" in text  # the output the page shows is of this file
    assert (pd.read_csv(tmp_path / "test.csv")["outcome"] == "yes").sum() == 131
