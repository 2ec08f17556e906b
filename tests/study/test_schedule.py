"""Tests of bayescal.study.schedule: largest-first task order, cost estimates, workers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bayescal.study import executors, parse_spec, run
from bayescal.study.cells import Task
from bayescal.study.runner import task_queue
from bayescal.study.schedule import (
    WORKER_WARMUP_SECONDS,
    TaskQueue,
    default_workers,
    estimate_task_cost,
    expected_makespan,
    scenario_fits,
    task_warmups,
    worker_warmup,
)

from .conftest import TINY_SPEC
from .test_runner import assert_same_cube

#: Two classifiers of very different cost: a 300-tree forest and naive Bayes.
SKEWED_SPEC = TINY_SPEC.replace(
    '[classifiers.lr]\nclass = "sklearn.linear_model.LogisticRegression"\nparams = { C = 0.5 }',
    '[classifiers.rf]\nclass = "sklearn.ensemble.RandomForestClassifier"\n'
    'params = { n_estimators = 300 }')


def _task(c: int, fold: int = 0) -> Task:
    return Task(0, c, 0, fold, (0,))


def test_queue_pops_largest_first_ties_in_spec_order():
    items = [(_task(0, f), None, None) for f in range(5)]
    queue = TaskQueue(items, [1.0, 5.0, 3.0, 5.0, 0.5])
    assert [q.task.fold for q in queue.drain()] == [1, 3, 2, 0, 4]
    assert len(queue) == 0
    with pytest.raises(IndexError, match="empty TaskQueue"):
        queue.pop()


def test_queue_reprices_by_measured_seconds():
    # classifier 0 estimated big but measured small: classifier 1 goes before it
    items = [(_task(0, 0), None, None), (_task(0, 1), None, None),
             (_task(1, 0), None, None), (Task(1, 0, 0, 0, (0,)), None, None)]
    queue = TaskQueue(items, [10.0, 10.0, 4.0, 10.0])
    first = queue.pop()
    assert (first.task.classifier, first.task.fold) == (0, 0)
    queue.record(first, 1.0)  # ratio 0.1 for (dataset 0, classifier 0) and classifier 0
    # (0,0,f1) now costs 1; (1, c0) on another dataset also 1 (classifier ratio); c1 costs 4
    assert queue.pop().task.classifier == 1
    rest = [queue.pop() for _ in range(2)]
    assert {(q.task.dataset, q.task.fold) for q in rest} == {(0, 1), (1, 0)}
    queue.record(rest[0], float("nan"))  # ignored, not an error


def test_queue_bad_input():
    with pytest.raises(ValueError, match=r"`estimates` must have one value per task \(1\), got 2"):
        TaskQueue([(_task(0), None, None)], [1.0, 2.0])


def test_scenario_fits_oracle():
    assert scenario_fits("raw", {}, 100) == []
    assert scenario_fits("full", {}, 100) == []
    assert scenario_fits("split", {"split_fraction": 0.25}, 100) == [75.0]
    assert scenario_fits("cv", {"cv": 4}, 100) == [75.0] * 4
    # DG: bootstrap rounds hold out n/e rows each until n_generated are collected
    rounds = math.ceil(5000 / (180 * math.exp(-1)))
    assert scenario_fits("dg", {}, 180) == [180.0] * rounds
    assert len(scenario_fits("dgg", {"n_generated": 500}, 180)) == math.ceil(500 / (180 / math.e))


COST_SPEC = """
[study]
name = "costs"
seed = 1

[protocol]
kind = "kfold"
n_splits = 10

[datasets.synthetic]
generator = "bayescal.datasets.make_thesis_synthetic"
params = { n_per_class = 100 }

[classifiers.nb]
class = "sklearn.naive_bayes.GaussianNB"

[classifiers.rf]
class = "sklearn.ensemble.RandomForestClassifier"
params = { n_estimators = 500, oob_score = true }

[classifiers.gpc]
class = "bayescal.probes.BayesianGPClassifier"
params = { inference = "auto" }

[scenarios.raw]
kind = "raw"

[scenarios.enir_full]
kind = "full"
calibrator = { class = "bayescal.calibration.ENIRCalibrator" }
classifiers = ["nb", "rf"]

[scenarios.enir_oob]
kind = "oob"
calibrator = { class = "bayescal.calibration.ENIRCalibrator" }
classifiers = ["rf"]

[scenarios.enir_dg]
kind = "dg"
calibrator = { class = "bayescal.calibration.ENIRCalibrator" }
classifiers = ["nb", "rf"]
"""


def test_estimates_order_classifiers_and_scenarios():
    spec = parse_spec(COST_SPEC)
    names = [c.name for c in spec.classifiers]
    raw, full, oob, dg = range(4)

    def cost(clf: str, scenarios: tuple[int, ...], n: int = 180, d: int = 6) -> float:
        return estimate_task_cost(spec, Task(0, names.index(clf), 0, 0, scenarios), n, d)

    assert cost("nb", (raw,)) < cost("rf", (raw,)) < cost("rf", (raw, dg))
    assert cost("gpc", (raw,), n=1500) > 10 * cost("gpc", (raw,), n=300)
    # raw, full and oob share the fold's one fit: adding full and oob adds no fit
    assert cost("rf", (raw, full, oob)) == pytest.approx(cost("rf", (raw,)))
    assert cost("rf", (raw, dg)) == pytest.approx(
        cost("rf", (raw,)) * (1 + len(scenario_fits("dg", {}, 180))))


def test_default_workers():
    items = [(_task(0, f), None, None) for f in range(4)]
    small = TaskQueue(items, [1.0] * 4)  # 4 s of work: (4 + 5) / 2 > 4, a warm-up does not pay
    big = TaskQueue(items, [10.0] * 4)
    assert default_workers(small, cores=2, warmup=5.0) == 1
    assert default_workers(big, cores=2, warmup=5.0) == 2  # (40 + 5) / 2 < 40
    assert default_workers(big, cores=16, warmup=5.0) == 4  # (40 + 15) / 4, never above 4 tasks
    assert default_workers(big, cores=2, warmup=45.0) == 1  # (40 + 45) / 2 > 40
    # one task dominates: a second worker helps (it takes the small ones), a third cannot
    skewed = TaskQueue(items, [30.0, 1.0, 1.0, 1.0])
    assert default_workers(skewed, cores=4, warmup=5.0) == 2  # max(38 / 2, 30) < 33
    assert default_workers(TaskQueue(items[:1], [1e6]), cores=2) == 1


def test_expected_makespan_closed_form():
    items = [(_task(0, f), None, None) for f in range(4)]
    queue = TaskQueue(items, [10.0, 6.0, 3.0, 1.0])
    assert expected_makespan(queue, 1, 5.0) == 20.0  # the calling process alone: no warm-up
    assert expected_makespan(queue, 2, 5.0) == 12.5  # (20 + 5) / 2
    assert expected_makespan(queue, 3, 5.0) == 10.0  # max((20 + 10) / 3, largest 10)
    assert expected_makespan(queue, 4, 0.0) == 10.0  # the largest task bounds it
    # never below the largest task, never below the even share of the work
    for w in range(1, 6):
        t = expected_makespan(queue, w, 2.0)
        assert t >= queue.largest_estimate and t >= queue.total_estimate / w
    with pytest.raises(ValueError, match="`workers` must be at least 1, got 0"):
        expected_makespan(queue, 0, 5.0)


def test_worker_warmup_counts_the_largest_compiling_model():
    assert worker_warmup(parse_spec(TINY_SPEC)) == WORKER_WARMUP_SECONDS
    # EP's GPC compiles nothing; a NUTS BLR is the largest model a new worker may compile
    assert worker_warmup(parse_spec(COST_SPEC)) == WORKER_WARMUP_SECONDS
    with_blr = COST_SPEC + ('\n[classifiers.blr]\nclass = "bayescal.probes.BayesianLogisticRegression"'
                            '\n\n[classifiers.blr_laplace]\nclass = '
                            '"bayescal.probes.BayesianLogisticRegression"\n'
                            'params = { inference = "laplace" }\n')
    assert worker_warmup(parse_spec(with_blr)) == WORKER_WARMUP_SECONDS + 9.0


def test_runs_dispatch_largest_first(tmp_path, monkeypatch):
    spec = parse_spec(SKEWED_SPEC)
    dispatched: list[int] = []
    original = executors.run_task

    def spy(spec_, task, *args, **kwargs):
        dispatched.append(task.classifier)
        return original(spec_, task, *args, **kwargs)

    monkeypatch.setattr(executors, "run_task", spy)
    run(spec, tmp_path / "seq", n_jobs=1, progress=False)
    rf = [c.name for c in spec.classifiers].index("rf")
    n_rf = dispatched.count(rf)
    assert n_rf == 6 and dispatched[:n_rf] == [rf] * n_rf  # every forest before naive Bayes


def test_task_queue_prices_the_runner_tasks():
    from bayescal.cube.store import StoreLayout
    from bayescal.study.runner import _prepare, _tasks

    spec = parse_spec(SKEWED_SPEC)
    datasets, splits, _ = _prepare(spec)
    tasks = _tasks(spec, StoreLayout.from_spec(spec), splits, set())
    queue = task_queue(spec, tasks, datasets)
    assert len(queue) == len(tasks) == 12
    prices = [q.estimate for q in queue.drain()]
    assert prices == sorted(prices, reverse=True) and np.isfinite(prices).all()


@pytest.mark.slow
def test_two_workers_give_the_one_worker_cube_and_cell_seconds(tmp_path):
    spec = parse_spec(SKEWED_SPEC)
    one = run(spec, tmp_path / "one", n_jobs=1, progress=False)
    two = run(spec, tmp_path / "two", n_jobs=2, progress=False)
    assert_same_cube(one, two)
    for tree in (one, two):
        m = tree["metrics"]
        done = m["done"].values
        seconds = m["cell_seconds"].values[done]
        assert np.isfinite(seconds).all() and (seconds > 0).all()
        assert np.isfinite(m["cell_cpu_seconds"].values[done]).all()
        assert np.isnan(m["cell_seconds"].values[~done]).all()  # not applicable


def _simulate(queue: TaskQueue, workers: list[str], cost) -> tuple[float, dict[int, str]]:
    """Run ``queue`` on ``workers`` on a simulated clock; ``cost(item, cold)`` seconds.

    ``cold``: the warm-ups the worker had not paid. Returns the makespan and
    the worker of each task (by its order).
    """
    import heapq

    clock, free, events, ran = 0.0, list(workers), [], {}
    paid: dict[str, set] = {w: set() for w in workers}
    while len(queue) or events:
        for w in list(free):
            item = queue.take(w)
            if item is None:
                continue
            free.remove(w)
            cold = {k: v for k, v in item.warmups.items() if k not in paid[w]}
            paid[w].update(item.warmups)
            ran[item.order] = w
            heapq.heappush(events, (clock + cost(item, cold), w, item))
        if not events:
            raise AssertionError("every worker waits and tasks are left: deadlock")
        clock, w, item = heapq.heappop(events)
        queue.record(item, cost(item, {}))
        queue.done(w)
        free.insert(0, w)  # done and its next take in one step, as the executor does
    return clock, ran


def _probe_queue(n_big: int, n_probe: int, big: float, probe: float, warmup: float
                 ) -> TaskQueue:
    items = [(_task(0, f), None, None) for f in range(n_big)]
    items += [(_task(1, f), None, None) for f in range(n_probe)]
    warm = [{}] * n_big + [{("classifier", 1): warmup}] * n_probe
    return TaskQueue(items, [big] * n_big + [probe] * n_probe, warm)


def _cost(item, cold) -> float:
    return item.estimate + sum(cold.values())


def test_take_keeps_a_compiled_model_on_one_worker_and_balances():
    # 8 forests of 2 s, 10 probe fits of 0.2 s that cost 9 s of compilation per process
    queue = _probe_queue(8, 10, 2.0, 0.2, 9.0)
    makespan, ran = _simulate(queue, ["local", "p1"], _cost)
    probe_workers = {ran[i] for i in range(8, 18)}
    assert len(probe_workers) == 1  # compiled once
    # total work 16 + 2 + 9 = 27 on two workers: the ideal 13.5, within one forest
    assert makespan <= 13.5 + 2.0
    # largest first without affinity compiles in both processes and ends later
    blind = _probe_queue(8, 10, 2.0, 0.2, 9.0)
    blind_span, _ = _simulate(_Blind(blind), ["local", "p1"], _cost)
    assert makespan < blind_span


class _Blind:
    """A queue that ignores warm-ups (the old largest-first hand-out), for comparison."""

    def __init__(self, queue: TaskQueue) -> None:
        self.q = queue

    def __len__(self) -> int:
        return len(self.q)

    def take(self, worker):
        return self.q.pop() if len(self.q) else None

    def record(self, item, seconds):
        self.q.record(item, seconds)

    def done(self, worker):
        pass


def test_take_steals_a_model_whose_work_outweighs_its_warmup():
    # 20 probe fits of 3 s with a 2 s warm-up: splitting them pays
    queue = _probe_queue(0, 20, 0.0, 3.0, 2.0)
    makespan, ran = _simulate(queue, ["local", "p1"], _cost)
    assert set(ran.values()) == {"local", "p1"}
    assert makespan <= 30 + 2 + 3.0


def test_take_waits_rather_than_recompile_and_never_deadlocks():
    items = [(_task(1, f), None, None) for f in range(3)]
    queue = TaskQueue(items, [0.2] * 3, [{("classifier", 1): 9.0}] * 3)
    first = queue.take("local")
    assert first is not None and first.paid == 9.0
    assert queue.take("p1") is None  # 0.4 s left: not worth 9 s of compilation; local busy
    queue.record(first, 9.5)
    queue.done("local")
    # re-priced without the warm-up it paid: 0.5 s, not 9.5 s
    assert queue._price(queue._waiting[0]) == pytest.approx(0.5)
    # local is idle now: p1 may take a task rather than wait for nobody
    forced = queue.take("p1")
    assert forced is not None and forced.paid == 9.0
    # two models, each warm on another worker, both idle: someone still takes them
    items = [(_task(1, 0), None, None), (_task(2, 0), None, None), (_task(3, 0), None, None)]
    keys = [{("classifier", 1): 5.0}, {("classifier", 2): 5.0},
            {("classifier", 1): 5.0, ("classifier", 2): 5.0}]
    queue = TaskQueue(items, [20.0, 20.0, 0.1], keys)
    a, b = queue.take("a"), queue.take("b")
    assert {a.task.classifier, b.task.classifier} == {1, 2}
    queue.done("a")
    assert queue.take("a") is None  # needs model 2, compiled by b, and b is busy
    queue.done("b")
    assert queue.take("b").task.classifier == 3  # no one else busy: taken


def test_take_bad_input_and_empty_queue():
    with pytest.raises(ValueError, match=r"`warmups` must have one dict per task \(1\), got 0"):
        TaskQueue([(_task(0), None, None)], [1.0], [])
    assert TaskQueue([], []).take("local") is None


def test_task_warmups_name_the_compiling_models():
    spec = parse_spec(COST_SPEC.replace(
        'params = { inference = "auto" }',
        'params = { inference = "auto" }\n\n[classifiers.blr]\n'
        'class = "bayescal.probes.BayesianLogisticRegression"\n'
        'params = { inference = "laplace" }\n\n[classifiers.blr_nuts]\n'
        'class = "bayescal.probes.BayesianLogisticRegression"\n\n'
        '[classifiers.gp_mcmc]\nclass = "bayescal.probes.BayesianGPClassifier"\n'
        'params = { inference = "mcmc" }'
    ) + '\n[scenarios.bayes_platt]\nkind = "full"\n'
        'calibrator = { class = "bayescal.probes.BayesianPlattCalibrator" }\n'
        'classifiers = ["nb"]\n')
    names = [c.name for c in spec.classifiers]
    scen = [s.name for s in spec.scenarios]

    def warm(clf: str, scenarios: tuple[int, ...] = (0,)) -> dict:
        return task_warmups(spec, Task(0, names.index(clf), 0, 0, scenarios))

    assert warm("nb") == {} and warm("rf") == {} and warm("gpc") == {}  # EP: NumPy
    assert warm("blr") == {("classifier", names.index("blr")): 1.2}
    assert warm("blr_nuts") == {("classifier", names.index("blr_nuts")): 9.0}
    assert warm("gp_mcmc") == {("classifier", names.index("gp_mcmc")): 9.0}
    s = scen.index("bayes_platt")
    assert warm("nb", (0, s)) == {("calibrator", s): 9.0}
    # through a Pipeline too
    pipe = parse_spec(TINY_SPEC.replace(
        'class = "sklearn.linear_model.LogisticRegression"\nparams = { C = 0.5 }',
        'class = "sklearn.pipeline.Pipeline"\nparams = { steps = [["blr", { class = '
        '"bayescal.probes.BayesianLogisticRegression", params = { inference = "laplace" } }]] }'))
    assert task_warmups(pipe, Task(0, 1, 0, 0, (0,))) == {("classifier", 1): 1.2}
