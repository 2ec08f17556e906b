"""Sphinx configuration of the bayescal documentation.

Build locally (warnings are errors, as in CI)::

    pip install -e ".[docs]"
    sphinx-build -W -b html docs docs/_build/html

The API reference is generated from the docstrings at build time (autosummary):
one page per package listing the names of its ``__all__``, and one page per name.
Generated pages go to ``docs/api/generated/`` (git-ignored).

The example gallery (``docs/examples/plot_*.py``) runs at build time; its pages
and figures go to ``docs/auto_examples/`` (git-ignored) and every method page
embeds the figure of its example. The site loads nothing from the network:
the theme serves its own fonts and icons, and MathJax comes from the
``sphinx-mathjax-offline`` wheel.
"""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if (ROOT / "bayescal" / "__init__.py").is_file():  # a checkout: document this tree
    sys.path.insert(0, str(ROOT))

project = "bayescal"
author = "bayescal developers"
copyright = "bayescal developers"  # noqa: A001 (Sphinx's name)
try:
    release = importlib.metadata.version("bayescal")
except importlib.metadata.PackageNotFoundError:  # pragma: no cover - not installed
    release = "0.1.0"
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # Ships MathJax 3 (tex-chtml and its fonts) inside the wheel and copies it to
    # _static/mathjax: maths renders with no network at build or view time.
    "sphinx-mathjax-offline",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
# examples/ holds the gallery's sources; sphinx-gallery writes their pages to
# auto_examples/ (git-ignored) at build time.
exclude_patterns = ["_build", "_templates", "examples"]
templates_path = ["_templates"]

# MyST: $...$ and $$...$$ maths, ::: fences for directives.
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# autosummary: a page per public name; a package documents the names of its __all__.
autosummary_generate = True
autosummary_ignore_module_all = False
autosummary_imported_members = True
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc Parameters section gives the types

# numpydoc renders Parameters/Returns/...; the class page lists members itself.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# Validation: the checks that catch wrong documentation rather than missing or style:
#   PR02 a documented parameter does not exist
#   PR10 "name: type" without the space before the colon (a broken parameter entry)
#   GL06 unknown section name                      GL07 sections in the wrong order
# PR03 (parameters documented in signature order) is left out: keyword-only estimator
# arguments are documented in reading order, which need not follow the signature.
# PR01 (every parameter documented) is left out: result dataclasses and NamedTuples
# document their fields under "Attributes", and short helpers in validation document
# their arguments in the summary; enforcing it would add boilerplate, not information.
# Style checks (summary punctuation, "See Also" descriptions, Examples present) are
# left to review. Private names are not part of the reference.
numpydoc_validation_checks = {"PR02", "PR10", "GL06", "GL07"}
# Module-level constants that are dataclass instances (e.g. DIAGNOSTIC_THRESHOLDS)
# carry their class's docstring, whose Parameters do not match an instance; the
# Mapping methods PosteriorDiagnostics inherits come from a frozen stdlib module
# without source, which numpydoc's validation cannot read.
numpydoc_validation_exclude = {
    r"\._[a-z]",
    r"\.__[a-z]+__$",
    r"\.[A-Z][A-Z0-9_]+$",
    r"PosteriorDiagnostics\.(get|items|keys|values)$",
}

# The executed example gallery: every script in examples/ runs at build time and
# its figures are embedded in the gallery and in the method pages
# (docs/methods/*.md show ``auto_examples/images/sphx_glr_plot_<page>_001.png``).
# Nothing generated is committed. The scripts use tiny data, frequentist fits and
# the Laplace approximation for the Bayesian probes, so the whole gallery runs in
# well under a minute on one core.
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "download_all_examples": False,
    "show_memory": False,
    "remove_config_comments": True,
    "min_reported_time": 5,
    # The computation-times pages load jQuery and DataTables from CDNs: not written.
    "write_computation_times": False,
    # 2x images for high-density screens, beside the 1x PNG every browser reads.
    "image_srcset": ["2x"],
}

html_theme = "pydata_sphinx_theme"
html_title = f"bayescal {release}"
html_static_path = ["_static"]
html_css_files = ["bayescal.css"]
html_theme_options = {
    # Nothing is fetched from a network host: no icon links, no version switcher,
    # no analytics; the theme's fonts and icons are served from _static.
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False
# Pages without sub-pages get the whole width (no empty section navigation).
html_sidebars = {
    page: []
    for page in ("index", "user_guide", "study_spec", "concepts", "gallery", "architecture",
                 "references")
}

nitpicky = False
suppress_warnings: list[str] = []
