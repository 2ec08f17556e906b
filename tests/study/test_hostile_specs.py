"""Hostile study specs: code execution, file writes, path tricks, huge grids, deep nesting.

A spec is data, not code (``DESIGN.md``, "Safety"). Each spec below is refused
while it is loaded — before any dataset, estimator or store exists — with one
:class:`SpecError` line naming the key; nothing it asks for runs (the marker
file it would create stays absent). A few go through ``bayescal run`` too.
"""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner

from bayescal.study.spec import DEFAULT_MAX_CELLS, MAX_NESTING, SpecError, load_spec, parse_spec

from .conftest import TINY_SPEC

GENERATOR_SPEC = """
[study]
name = "hostile"
seed = 1

[datasets.d]
generator = "{generator}"
params = {params}

[classifiers.nb]
class = "sklearn.naive_bayes.GaussianNB"

[scenarios.raw]
kind = "raw"
"""


def _generator(generator: str, params: str = "{}") -> str:
    return GENERATOR_SPEC.replace("{generator}", generator).replace("{params}", params)


def _replace(old: str, new: str) -> str:
    assert old in TINY_SPEC, old
    return TINY_SPEC.replace(old, new, 1)


# (id, spec text with {marker} where it would write, key, reason pattern)
HOSTILE = [
    # code execution through a callable
    ("private test helper runs source code",
     _generator("sklearn.utils._testing.assert_run_python_script_without_output",
                "{ source_code = \"open(r'{marker}', 'w').write('pwned')\" }"),
     "datasets.d.generator", "not a dataset generator"),
    ("private module even when public-looking",
     _generator("sklearn.utils._testing.assert_run_python_script_without_output".replace(
         "assert_run_python_script_without_output", "MinimalClassifier")),
     "datasets.d.generator", "not a dataset generator"),
    ("os.system generator", _generator("os.system", "{ command = \"touch '{marker}'\" }"),
     "datasets.d.generator", "not a dataset generator"),
    ("builtins.exec generator", _generator("builtins.exec", "{ source = \"1\" }"),
     "datasets.d.generator", "not a dataset generator"),
    ("a public sklearn function that is no generator",
     _generator("sklearn.utils.validation.check_array", "{ array = [[1.0]] }"),
     "datasets.d.generator", "not a dataset generator"),
    ("generator fetching from the network and writing a cache",
     _generator("sklearn.datasets.fetch_openml", "{ name = \"iris\", data_home = \"{marker}\" }"),
     "datasets.d.generator", "not a dataset generator"),
    ("registered generator with an argument it does not take",
     _generator("sklearn.datasets.make_classification", "{ source_code = \"1\" }"),
     "datasets.d.params", "unknown parameter 'source_code'"),
    ("classifier under a private module",
     _replace("sklearn.naive_bayes.GaussianNB", "sklearn.utils._testing.MinimalClassifier"),
     "classifiers.nb", "private module"),
    ("classifier is a function",
     _replace("sklearn.naive_bayes.GaussianNB", "sklearn.datasets.make_classification"),
     "classifiers.nb", "not an estimator class"),
    ("classifier is a class but no estimator",
     _replace("sklearn.naive_bayes.GaussianNB", "sklearn.utils.Bunch"),
     "classifiers.nb", "not an estimator class"),
    ("classifier outside the allow-list", _replace("sklearn.naive_bayes.GaussianNB",
                                                    "subprocess.Popen"),
     "classifiers.nb", "outside the allowed modules"),
    ("nested estimator under a private module",
     _replace('params = { method = "sigmoid", cv = 2, ensemble = false }',
              'params = { estimator = { class = "sklearn.utils._testing.MinimalClassifier" } }'),
     "scenarios.sigmoid_cv.wrapper", "private module"),
    ("dotted path with a trailing newline",
     _replace('class = "sklearn.naive_bayes.GaussianNB"',
              'class = "sklearn.naive_bayes.GaussianNB\\n"'),
     "classifiers.nb", "not a dotted path"),
    # file writes
    ("generator writing a file at a chosen path",
     _generator("sklearn.datasets.dump_svmlight_file",
                "{ X = [[1.0]], y = [1.0], f = \"{marker}\" }"),
     "datasets.d.generator", "not a dataset generator"),
    ("estimator cache directory",
     _replace('class = "sklearn.linear_model.LogisticRegression"\nparams = { C = 0.5 }',
              'class = "sklearn.pipeline.Pipeline"\nparams = { memory = "{marker}", steps = '
              '[["lr", { class = "sklearn.linear_model.LogisticRegression" }]] }'),
     "classifiers.lr", "would make it write files"),
    ("cache directory through a scenario's classifier parameters",
     _replace('classifiers = ["nb"]', 'classifiers = ["nb"]\nclassifier_params = '
              '{ memory = "{marker}" }'),
     "scenarios.sigmoid_cv.classifier_params", "unknown parameter 'memory'"),
    ("estimator under a private module through classifier parameters",
     _replace('class = "sklearn.linear_model.LogisticRegression"\nparams = { C = 0.5 }',
              'class = "sklearn.pipeline.Pipeline"\nparams = { steps = [["lr", '
              '{ class = "sklearn.linear_model.LogisticRegression" }]] }')
     + '\n[scenarios.swap]\nkind = "raw"\nclassifiers = ["lr"]\nclassifier_params = '
       '{ steps = [["x", { class = "sklearn.utils._testing.MinimalClassifier" }]] }\n',
     "scenarios.swap.classifier_params", "private module"),
    # path tricks (names become directory and file names of the store)
    ("dataset name climbing out", _replace("[datasets.iris]", '[datasets."../evil"]'),
     "datasets.../evil", "must match"),
    ("dataset name with a slash", _replace("[datasets.iris]", '[datasets."a/b"]'),
     "datasets.a/b", "must match"),
    ("dataset name ending in a newline", _replace("[datasets.iris]", '[datasets."iris\\n"]'),
     "datasets.iris\n", "must match"),
    ("classifier name with a NUL", _replace("[classifiers.nb]", '[classifiers."nb\\u0000"]'),
     "classifiers.nb\x00", "must match"),
    ("source reading a system file", _replace('source = "iris"', 'source = "/etc/passwd"'),
     "datasets.iris.source", "not a supported data file"),
    ("source reading a device", _replace('source = "iris"', 'source = "/dev/zero"'),
     "datasets.iris.source", "no file"),
    ("study name of dots", _replace('name = "tiny"', 'name = ".."'), "study.name", "must match"),
    ("study name ending in a newline", _replace('name = "tiny"', 'name = "tiny\\n"'),
     "study.name", "must match"),
    ("name too long", _replace("[datasets.iris]", f"[datasets.{'a' * 300}]"),
     f"datasets.{'a' * 300}", "at most 100 characters"),
    ("spec widening the allow-list", _replace("seed = 11", 'seed = 11\nallow_modules = ["os"]'),
     "study.allow_modules", "cannot widen"),
    # huge grids and sizes
    ("Monte-Carlo CV repeated 1e9 times",
     _replace('kind = "kfold"\nn_splits = 3', 'kind = "mccv"\nn_repeats = 1000000000'),
     "protocol", "--max-cells"),
    ("k-fold of 1e9 folds", _replace("n_splits = 3", "n_splits = 1000000000"),
     "protocol", "--max-cells"),
    ("generator of 1e12 rows",
     _generator("sklearn.datasets.make_classification", "{ n_samples = 1000000000000 }"),
     "datasets.d.params", "above the limit"),
    ("ECE with 1e12 bins", _replace("[metrics]\n", "[metrics]\nece_bins = 1000000000000\n"),
     "metrics.ece_bins", "must lie in"),
    # deep nesting
    ("arrays nested 1000 deep", TINY_SPEC + "\n[extra]\nx = " + "[" * 1000 + "]" * 1000 + "\n",
     "<toml>", "nested deeper than"),
    ("inline tables nested 1000 deep",
     TINY_SPEC + "\n[extra]\nx = " + "{ a = " * 1000 + "1" + " }" * 1000 + "\n",
     "<toml>", "nested deeper than"),
    ("parameters nested past the limit",
     _replace("{ C = 0.5 }", "{ C = " + "[" * (MAX_NESTING + 2) + "]" * (MAX_NESTING + 2) + " }"),
     "<toml>", "nested deeper than"),
    ("tables nested past the limit",
     TINY_SPEC + "\n[" + ".".join(f"t{i}" for i in range(MAX_NESTING + 3)) + "]\nx = 1\n",
     "<toml>", "nested deeper than"),
]


def _check_refused(info: pytest.ExceptionInfo[SpecError], key: str, reason: str) -> None:
    import re

    assert info.value.key == key
    assert re.search(reason, info.value.reason), info.value.reason
    assert "\n" not in str(info.value).replace(key, "")  # one line (the key may hold one)


@pytest.mark.parametrize(("text", "key", "reason"), [h[1:] for h in HOSTILE],
                         ids=[h[0] for h in HOSTILE])
def test_hostile_spec_is_refused_in_one_line_and_runs_nothing(tmp_path, text, key, reason):
    marker = tmp_path / "pwned"
    path = tmp_path / "hostile.toml"
    path.write_text(text.replace("{marker}", str(marker)), encoding="utf-8")
    start = time.perf_counter()
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert time.perf_counter() - start < 30.0  # refused up front, not after spinning (load)
    _check_refused(info, key, reason)
    assert not marker.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hostile.toml"]


def test_spec_too_large_is_refused(tmp_path):
    path = tmp_path / "big.toml"
    path.write_text(TINY_SPEC + "\n# " + "x" * (2 << 20) + "\n")
    with pytest.raises(SpecError, match="larger than the limit") as info:
        load_spec(path)
    assert info.value.key == "<file>"
    with pytest.raises(SpecError, match="above the limit") as info:
        parse_spec(path.read_text())
    assert info.value.key == "<file>"


def test_spec_not_utf8_is_one_line(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(TINY_SPEC.replace("tiny", "t\xe9").encode("latin-1"))
    with pytest.raises(SpecError, match="not UTF-8") as info:
        load_spec(path)
    assert "\n" not in str(info.value)


def test_cell_limit_counts_the_whole_grid_and_can_be_raised():
    # 2 datasets x (2 classifiers x raw + the wrapper for nb) x 3 folds = 18 cells
    assert parse_spec(TINY_SPEC).n_cells == 18
    with pytest.raises(SpecError, match="18 cells, above the limit of 17") as info:
        parse_spec(TINY_SPEC, max_cells=17)
    assert info.value.key == "<grid>"
    assert parse_spec(TINY_SPEC, max_cells=18).n_cells == 18
    huge = _replace('kind = "kfold"\nn_splits = 3', 'kind = "mccv"\nn_repeats = 1000000000')
    assert parse_spec(huge, max_cells=10**12).protocol.repeats == 10**9  # the flag's choice
    assert DEFAULT_MAX_CELLS >= 10_000  # the shipped studies fit comfortably
    with pytest.raises(ValueError, match="`max_cells` must be a positive integer"):
        parse_spec(TINY_SPEC, max_cells=0)


# ------------------------------------------------------------ through the command line

CLI_CASES = [h for h in HOSTILE if h[0] in (
    "private test helper runs source code", "generator writing a file at a chosen path",
    "Monte-Carlo CV repeated 1e9 times", "arrays nested 1000 deep", "estimator cache directory")]


@pytest.mark.parametrize(("text", "key", "reason"), [h[1:] for h in CLI_CASES],
                         ids=[h[0] for h in CLI_CASES])
def test_bayescal_run_refuses_hostile_spec_in_one_line(tmp_path, text, key, reason):
    from bayescal.cli import main

    marker = tmp_path / "pwned"
    path = tmp_path / "hostile.toml"
    path.write_text(text.replace("{marker}", str(marker)))
    start = time.perf_counter()
    out = CliRunner().invoke(main, ["run", str(path), "--store", str(tmp_path / "s"), "-q"])
    assert time.perf_counter() - start < 60.0  # interpreter imports on a loaded machine
    assert out.exit_code == 1, out.output
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and key in lines[0], out.output
    assert "Traceback" not in out.output
    assert not marker.exists() and not (tmp_path / "s").exists()


def test_max_cells_flag_of_bayescal_run(tmp_path, tiny_spec_path):
    from bayescal.cli import main

    out = CliRunner().invoke(main, ["run", str(tiny_spec_path), "--store", str(tmp_path / "s"),
                                    "-q", "--max-cells", "10"])
    assert out.exit_code == 1
    assert out.output.count("\n") == 1 and "18 cells, above the limit of 10" in out.output
    assert not (tmp_path / "s").exists()
    out = CliRunner().invoke(main, ["run", str(tiny_spec_path), "--max-cells", "0"])
    assert out.exit_code == 2 and "--max-cells" in out.output


def test_registered_generators_all_resolve_and_are_public():
    import inspect

    from bayescal.study.generators import GENERATORS, resolve_generator
    from bayescal.study.imports import DEFAULT_ALLOWED_MODULES

    for path in GENERATORS:
        func = resolve_generator(path, DEFAULT_ALLOWED_MODULES)
        assert inspect.isfunction(func) and not any(p.startswith("_") for p in path.split("."))
        params = inspect.signature(func).parameters
        assert not any(n in params for n in ("f", "data_home", "path", "file")), path


def test_only_the_operator_widens_the_generators():
    import os

    from bayescal.study.generators import resolve_generator

    with pytest.raises(ValueError, match="not a dataset generator"):
        resolve_generator("os.getcwd", ("sklearn", "bayescal"))
    # --allow-module os: the person running the study trusts the whole package
    assert resolve_generator("os.getcwd", ("sklearn", "bayescal", "os")) is os.getcwd
    with pytest.raises(ValueError, match="private module"):
        resolve_generator("os._exit", ("sklearn", "bayescal", "os"))


def test_build_estimator_checks_and_builds_its_overrides(tmp_path):
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB

    from bayescal.study.imports import EstimatorSpec, build_estimator

    allowed = ("sklearn",)
    lr = EstimatorSpec("sklearn.linear_model.LogisticRegression")
    pipe = EstimatorSpec("sklearn.pipeline.Pipeline", (("steps", (("m", lr),)),))
    with pytest.raises(ValueError, match="would make it write files"):
        build_estimator(pipe, allowed, memory=str(tmp_path / "cache"))
    with pytest.raises(ValueError, match="unknown parameter 'source_code'"):
        build_estimator(lr, allowed, source_code="1")
    built = build_estimator(pipe, allowed,
                            steps=(("m", EstimatorSpec("sklearn.naive_bayes.GaussianNB")),))
    assert isinstance(built.steps[0][1], GaussianNB)
    assert isinstance(build_estimator(pipe, allowed).steps[0][1], LogisticRegression)
    assert list(tmp_path.iterdir()) == []
