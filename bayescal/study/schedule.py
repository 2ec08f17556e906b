"""The order of a study's tasks and the number of workers that run them.

Largest tasks first
-------------------
Tasks (a classifier on one fold, every scenario; :class:`~bayescal.study.cells.Task`)
differ in cost by four orders of magnitude: naive Bayes on 200 rows takes
milliseconds, a 500-tree forest with DG calibration a minute, an exact-EP
Gaussian process on 2,000 rows minutes. Handing them out in spec order leaves
one worker alone with the last big task while the others idle. The
:class:`TaskQueue` hands out the task with the largest expected cost first
(longest processing time first, Graham 1969), whose makespan on ``m`` workers
is at most ``4/3 - 1/(3m)`` times the optimum.

Expected cost
-------------
:func:`estimate_task_cost` prices a task before anything has run, from the
training rows ``n`` and features ``d`` of its fold, the classifier (a table of
rough one-core costs per estimator class, :data:`FIT_COST`) and the fits each
scenario makes (:func:`scenario_fits`: ``split`` one fit on the reduced set,
``cv`` ``k`` fits, DG/DGG ``ceil(n_generated / held_out)`` bootstrap fits,
while ``raw``/``full``/``oob``/``internal`` share the fold's one fit). The
estimate only has to order tasks; once tasks of a (dataset, classifier) pair
have run, :meth:`TaskQueue.record` rescales the pair's remaining estimates by
their measured seconds (and other datasets' estimates of the classifier by the
classifier's ratio), so measured costs take over from the table.

Warm processes
--------------
Some models pay a large cost on their first fit in a process and little on
later ones: a PyMC model's PyTensor/nutpie compilation (BLR with NUTS: ~9 s
first, 0.2-0.6 s later fits of the same structure). :func:`task_warmups`
names these per task (:data:`PROCESS_WARMUP`); :meth:`TaskQueue.take` keeps a
model's tasks on the workers that have compiled it, so that ``-j 2`` pays
each compilation once rather than once per process. A cold worker takes
such a task only when nothing else is left for it and the model's waiting
work, split between two workers, saves more than the compilation costs
(``waiting > 2 x warm-up``), or when no other worker is busy (no task can
wait forever).

Workers
-------
:func:`default_workers` chooses the number of local workers when the person
running the study does not: one per available core, but never more than
there are tasks, and one (no worker processes at all) when a worker
process's expected start-up (:func:`worker_warmup`: imports, and the
compilation of a PyMC model it may have to run) would cost more than the parallel part saves
(:func:`expected_makespan`; the calling process is one of the workers): the
default must never be slower than one worker.

References
----------
Graham, R. L. (1969). Bounds on multiprocessing timing anomalies. *SIAM
Journal on Applied Mathematics* 17(2), 416-429.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from bayescal.study.cells import Task
from bayescal.study.imports import EstimatorSpec
from bayescal.study.spec import Spec
from bayescal.study.workers import available_cores

__all__ = ["FIT_COST", "PROCESS_WARMUP", "WORKER_WARMUP_SECONDS",
           "QueuedTask", "TaskQueue", "available_cores", "default_workers",
           "estimate_task_cost", "expected_makespan", "fit_cost", "process_warmup",
           "scenario_fits", "task_warmups", "worker_warmup"]

#: CPU seconds a fresh worker process spends on imports and first
#: compilations (scikit-learn, bayescal, numba caches) before it pays off
#: (measured, ``benchmarks/parallel.py``: imports 1.7, numba kernels loaded
#: from the disk cache 0.45, on a loaded machine; rounded up for the process
#: start and the data it receives).
WORKER_WARMUP_SECONDS = 5.0

#: The share of rows a bootstrap sample leaves out (``(1 - 1/n)^n -> 1/e``).
_OUT_OF_BOOTSTRAP = math.exp(-1.0)


def _param(params: dict[str, Any], name: str, default: Any) -> Any:
    value = params.get(name, default)
    return default if value is None else value


def _forest(n: int, d: int, p: dict[str, Any]) -> float:
    return int(_param(p, "n_estimators", 100)) * (1.5e-3 + 3e-7 * n * max(d, 1))


def _svc(n: int, d: int, p: dict[str, Any]) -> float:
    internal_cv = 5.0 if p.get("probability") else 1.0
    return internal_cv * (2e-3 + 1e-7 * n * n * max(d, 1) ** 0.5)


def _blr(n: int, d: int, p: dict[str, Any]) -> float:
    if p.get("inference") == "laplace":
        return 0.05 + 2e-6 * n * d
    steps = int(_param(p, "chains", 2)) * (int(_param(p, "draws", 1000))
                                           + int(_param(p, "tune", 1000)))
    return 0.5 + steps * (2e-4 + 2e-8 * n * d)


def _gpc(n: int, d: int, p: dict[str, Any]) -> float:
    from bayescal.probes.gp_classifier import AUTO_EXACT_MAX_ROWS
    from bayescal.probes.gp_hyper import SEARCH_ROWS

    inference = p.get("inference", "auto")
    if inference in ("mcmc", "hsgp"):
        return 1.0 + 2e-6 * n ** 2 * (int(_param(p, "draws", 500)) + int(_param(p, "tune", 500)))
    if inference == "sparse" or (inference == "auto" and n > AUTO_EXACT_MAX_ROWS):
        m = min(int(_param(p, "n_inducing", 400)), n)
        return 0.5 + 2e-7 * m * m * n
    # exact EP, the default kernel search (issue 26, benchmarks/gpc.py): the search on at
    # most SEARCH_ROWS rows, then above that one L-BFGS refinement on all n rows. Measured,
    # thesis data, d = 6, one BLAS thread, load average 9 on 2 cores: 0.09 / 0.20 / 0.78 /
    # 1.5 / 4.5 / 8.7 CPU-s at n = 200 / 300 / 500 / 1000 / 1500 / 2000 (one latent; a
    # K-class fit has K one-vs-rest latents)
    search = 6e-9 * min(n, SEARCH_ROWS) ** 3
    refine = 1.1e-9 * n ** 3 if n > SEARCH_ROWS else 0.0
    return 0.05 + search + refine


#: Rough one-core seconds of one fit of an estimator class on ``n`` rows and
#: ``d`` features, by class name (a nested estimator — a pipeline's steps, a
#: wrapper's estimator — adds its own). Classes not listed cost
#: ``0.01 + 1e-6 n d``. The figures only order tasks; measured seconds
#: replace them as the study runs (:meth:`TaskQueue.record`).
FIT_COST: dict[str, Callable[[int, int, dict[str, Any]], float]] = {
    "GaussianNB": lambda n, d, p: 1e-3 + 2e-7 * n * d,
    "StandardScaler": lambda n, d, p: 1e-4 + 1e-8 * n * d,
    "LogisticRegression": lambda n, d, p: 5e-3 + 2e-6 * n * d,
    "RandomForestClassifier": _forest,
    "ExtraTreesClassifier": _forest,
    "SVC": _svc,
    "MLPClassifier": lambda n, d, p: 0.2 + 2e-4 * n * max(d, 1) ** 0.5,
    "BayesianLogisticRegression": _blr,
    "BayesianGPClassifier": _gpc,
}


def _pymc_inference(p: dict[str, Any]) -> float:
    """A PyMC model's first fit in a process: compilation (NUTS/ADVI ~9 s, Laplace ~1.2 s)."""
    return 1.2 if p.get("inference") == "laplace" else 9.0


def _gpc_warmup(p: dict[str, Any]) -> float:
    return 9.0 if p.get("inference") in ("mcmc", "hsgp") else 0.0  # EP is NumPy: none


#: CPU seconds the first fit of an estimator class pays in a new process beyond
#: later fits of the same structure (PyMC models: PyTensor graph and nutpie/numba
#: compilation; measured with ``benchmarks/parallel.py --warmup-only`` on
#: ``benchmarks/thesis_small.toml``: BLR NUTS 8-9 CPU-s first, 0.2-0.6 later; BLR
#: Laplace 1.4, then 0.2), by class name. Classes not listed pay none worth
#: scheduling around (scikit-learn estimators; numba kernels load from the disk cache).
PROCESS_WARMUP: dict[str, Callable[[dict[str, Any]], float]] = {
    "BayesianLogisticRegression": _pymc_inference,
    "BayesianPlattCalibrator": _pymc_inference,
    "BayesianBetaCalibrator": _pymc_inference,
    "BayesianSplineCalibrator": _pymc_inference,
    "BayesianDirichletCalibrator": _pymc_inference,
    "BayesianGPClassifier": _gpc_warmup,
}


def _nested(value: Any) -> Iterator[EstimatorSpec]:
    if isinstance(value, EstimatorSpec):
        yield value
        for _, v in value.params:
            yield from _nested(v)
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _nested(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _nested(v)


def fit_cost(estimator: EstimatorSpec, n: int, d: int, overrides: dict[str, Any] | None = None
             ) -> float:
    """Expected one-core seconds of one fit of ``estimator`` (and what it nests).

    Parameters
    ----------
    estimator : EstimatorSpec
    n, d : int
        Training rows and features.
    overrides : dict, optional
        Parameters that replace the spec's for the top-level estimator.

    Returns
    -------
    float
    """
    total = 0.0
    for i, spec in enumerate(_nested(estimator)):
        params = spec.params_dict()
        if i == 0 and overrides:
            params.update(overrides)
        name = spec.path.rsplit(".", 1)[-1]
        cost = FIT_COST.get(name)
        total += cost(n, d, params) if cost is not None else 0.01 + 1e-6 * n * d
    return total


def process_warmup(estimator: EstimatorSpec | None) -> float:
    """CPU seconds a new process pays on its first fit of ``estimator`` (and what it nests).

    The sum of :data:`PROCESS_WARMUP` over the estimator and its nested
    estimators; 0 for ``None`` and for estimators without a compilation.
    """
    if estimator is None:
        return 0.0
    total = 0.0
    for spec in _nested(estimator):
        cost = PROCESS_WARMUP.get(spec.path.rsplit(".", 1)[-1])
        total += cost(spec.params_dict()) if cost is not None else 0.0
    return total


def task_warmups(spec: Spec, task: Task) -> dict[tuple[str, int], float]:
    """The process warm-ups ``task`` needs: ``{("classifier", c) | ("calibrator", s): seconds}``.

    One key per model that compiles on its first fit in a process
    (:func:`process_warmup` > 0): the task's classifier, and the calibrator
    of each of its scenarios. A worker that has run a task with a key has
    paid that warm-up (:meth:`TaskQueue.take`).
    """
    out: dict[tuple[str, int], float] = {}
    cost = process_warmup(spec.classifiers[task.classifier].estimator)
    if cost > 0:
        out[("classifier", task.classifier)] = cost
    for s in task.scenarios:
        cost = process_warmup(spec.scenarios[s].calibrator)
        if cost > 0:
            out[("calibrator", s)] = cost
    return out


def scenario_fits(kind: str, params: dict[str, Any], n: int) -> list[float]:
    """The fits a scenario makes beyond the fold's shared fit, as row counts.

    Parameters
    ----------
    kind : str
        The scenario kind (``raw``, ``split``, ``cv``, ``dg``, ...).
    params : dict
        The scenario's :class:`~bayescal.calibration.CalibratedClassifier`
        parameters (``split_fraction``, ``cv``, ``n_generated``, ...).
    n : int
        Training rows of the fold.

    Returns
    -------
    list of float
        The training rows of each extra fit (empty for the scenarios that
        reuse the fold's shared fit: ``raw``, ``full``, ``oob``, ``internal``).
    """
    if kind == "split":
        return [n * (1.0 - float(_param(params, "split_fraction", 0.3)))]
    if kind == "cv":
        k = int(_param(params, "cv", 5))
        return [n * (k - 1) / k] * k
    if kind in ("dg", "dgg"):
        held = max(n * _OUT_OF_BOOTSTRAP, 1.0)
        rounds = math.ceil(int(_param(params, "n_generated", 5000)) / held)
        return [float(n)] * rounds
    if kind == "wrapper":
        k = int(_param(params, "cv", 5))
        return [n * (k - 1) / k] * k
    return []


def estimate_task_cost(spec: Spec, task: Task, n: int, d: int) -> float:
    """Expected one-core seconds of ``task`` (the shared fit counted once).

    Parameters
    ----------
    spec : Spec
    task : Task
    n, d : int
        Training rows of the task's fold and features of its dataset.

    Returns
    -------
    float
    """
    cspec = spec.classifiers[task.classifier]
    base = dict(spec.datasets[task.dataset].override(cspec.name))
    shared: set[tuple[tuple[str, Any], ...]] = set()
    total = 0.0
    for s in task.scenarios:
        scenario = spec.scenarios[s]
        params = {**base, **dict(scenario.classifier_params)}
        key = tuple(sorted(params.items(), key=lambda kv: kv[0]))
        if scenario.kind != "split" and key not in shared:  # the fold's (shared) fit
            shared.add(key)
            total += fit_cost(cspec.estimator, n, d, params)
        source = scenario.wrapper.params if scenario.wrapper is not None else scenario.params
        for rows in scenario_fits(scenario.kind, dict(source), n):
            total += fit_cost(cspec.estimator, max(int(rows), 1), d, params)
    return total


@dataclass
class QueuedTask:
    """A task waiting in a :class:`TaskQueue`, with its expected cost."""

    task: Task
    train: Any
    test: Any
    estimate: float
    order: int = field(default=0)
    warmups: dict[Any, float] = field(default_factory=dict)
    #: warm-ups the worker that took it had not paid yet (:meth:`TaskQueue.take`)
    paid: float = 0.0


class TaskQueue:
    """Tasks handed out largest expected cost first, re-priced as they finish.

    Parameters
    ----------
    items : list of (Task, train, test)
    estimates : list of float
        Expected seconds of each task (:func:`estimate_task_cost`).
    warmups : list of dict, optional
        Each task's process warm-ups (:func:`task_warmups`); default none.

    Notes
    -----
    Ties keep spec order. :meth:`record` divides a finished task's measured
    seconds by its estimate; the remaining tasks of the same (dataset,
    classifier) are re-priced by the mean of these ratios, and tasks of the
    same classifier on datasets not measured yet by the classifier's mean
    ratio.

    :meth:`pop` ignores which worker asks; :meth:`take` and :meth:`done`
    serve several workers at once and keep the models that compile on their
    first fit on the workers that have compiled them (see the module's
    *Warm processes*).
    """

    def __init__(self, items: list[tuple[Task, Any, Any]], estimates: list[float],
                 warmups: list[dict[Any, float]] | None = None) -> None:
        if len(items) != len(estimates):
            raise ValueError(f"`estimates` must have one value per task ({len(items)}), "
                             f"got {len(estimates)}")
        if warmups is not None and len(warmups) != len(items):
            raise ValueError(f"`warmups` must have one dict per task ({len(items)}), "
                             f"got {len(warmups)}")
        warmups = warmups if warmups is not None else [{} for _ in items]
        self._waiting = [QueuedTask(t, tr, te, float(e), i, dict(w))
                         for i, ((t, tr, te), e, w)
                         in enumerate(zip(items, estimates, warmups, strict=True))]
        self._ratios: dict[tuple[int, ...], list[float]] = {}
        self._warm: dict[Any, set[Any]] = {}  # worker -> warm-up keys it has paid
        self._busy: set[Any] = set()
        self.total_estimate = float(sum(estimates))
        self.largest_estimate = float(max(estimates, default=0.0))

    def __len__(self) -> int:
        return len(self._waiting)

    def _price(self, item: QueuedTask) -> float:
        t = item.task
        for key in ((t.dataset, t.classifier), (t.classifier,)):
            ratios = self._ratios.get(key)
            if ratios:
                return item.estimate * sum(ratios) / len(ratios)
        return item.estimate

    def _largest(self, candidates: list[int]) -> int | None:
        """The candidate of the largest price; a model's first task counts its warm-up.

        The first task of a model no worker has compiled costs its warm-up
        too wherever it goes: counted, it is handed out earlier, so that the
        model's later (small) tasks are not all left for the end, where they
        would keep its one warm worker busy while the others idle.
        """
        if not candidates:
            return None
        paid = set().union(*self._warm.values())

        def price(i: int) -> tuple[float, int]:
            item = self._waiting[i]
            cold = sum(v for k, v in item.warmups.items() if k not in paid)
            return self._price(item) + cold, -item.order

        return max(candidates, key=price)

    def pop(self) -> QueuedTask:
        """Remove and return the waiting task of the largest current price."""
        if not self._waiting:
            raise IndexError("pop from an empty TaskQueue")
        best = self._largest(list(range(len(self._waiting))))
        assert best is not None
        return self._waiting.pop(best)

    def take(self, worker: Any) -> QueuedTask | None:
        """The task ``worker`` should run next, or None: let it wait for the others.

        Tasks whose process warm-ups are paid on ``worker`` or on no worker
        yet are its own; of a model warm only on other workers, a task is
        stolen only if the model's waiting work is more than twice its
        warm-up (splitting it then saves more than the warm-up costs). The
        worker takes the largest of its own tasks, except that it turns to
        the tasks only it will run (its models', which no one steals) as
        soon as they are half the other workers' share of the rest, so that
        they do not all wait for the end. Failing any, the largest
        stealable task; failing that, the largest task if no other worker
        is busy (nothing waits forever). Otherwise None: ``worker`` waits
        until another worker is :meth:`done`.

        Parameters
        ----------
        worker : hashable
            Who asks (any label, the same for all of one worker's calls).

        Returns
        -------
        QueuedTask or None
            None also when no task waits.
        """
        if not self._waiting:
            return None
        warm = self._warm.setdefault(worker, set())
        others = set().union(*(k for w, k in self._warm.items() if w != worker))
        work: dict[Any, float] = {}  # waiting work of each model
        prices = [self._price(item) for item in self._waiting]
        for item, price in zip(self._waiting, prices, strict=True):
            for k in item.warmups:
                work[k] = work.get(k, 0.0) + price
        own, steal, exclusive = [], [], []
        exclusive_work = flexible_work = 0.0
        for i, item in enumerate(self._waiting):
            unstealable = [k for k, v in item.warmups.items() if work[k] <= 2.0 * v]
            foreign = [k for k in item.warmups if k in others and k not in warm]
            if foreign:
                if not any(k in unstealable for k in foreign):
                    steal.append(i)
            elif any(k in warm and k not in others for k in unstealable):
                exclusive.append(i)
                exclusive_work += prices[i]
            else:
                own.append(i)
                flexible_work += prices[i]
        # only this worker will run its exclusive tasks: left to the end they would keep it
        # busy while the others idle; taken early, it simply returns to the shared ones.
        # Their prices are uncertain (the first one's seconds less a tabled warm-up), so it
        # turns to them once they are half the others' share of the rest.
        helpers = max(len(self._warm) - 1, 1)
        if exclusive and 2.0 * exclusive_work * helpers >= flexible_work:
            best = self._largest(exclusive)
        else:
            best = self._largest(own + exclusive)
        if best is None:
            best = self._largest(steal)
        if best is None and not (self._busy - {worker}):
            best = self._largest(list(range(len(self._waiting))))
        if best is None:
            return None
        item = self._waiting.pop(best)
        item.paid = sum(v for k, v in item.warmups.items() if k not in warm)
        warm.update(item.warmups)
        self._busy.add(worker)
        return item

    def done(self, worker: Any) -> None:
        """``worker`` has finished its task (call :meth:`record` for its seconds)."""
        self._busy.discard(worker)

    def record(self, item: QueuedTask, seconds: float) -> None:
        """Re-price the waiting tasks with the measured ``seconds`` of ``item``.

        The warm-ups its worker paid on it (``item.paid``) are not the
        task's own cost and are left out (at most 95 % of its seconds).
        """
        if not (seconds > 0 and item.estimate > 0 and math.isfinite(seconds)):
            return
        ratio = max(seconds - item.paid, 0.05 * seconds) / item.estimate
        t = item.task
        self._ratios.setdefault((t.dataset, t.classifier), []).append(ratio)
        self._ratios.setdefault((t.classifier,), []).append(ratio)

    def drain(self) -> Iterator[QueuedTask]:
        """Pop every task in turn (the largest first); :meth:`record` may run between."""
        while self._waiting:
            yield self.pop()


def worker_warmup(spec: Spec) -> float:
    """Expected seconds a fresh worker spends before its first task pays off.

    :data:`WORKER_WARMUP_SECONDS` (imports, numba caches), plus the largest
    :func:`process_warmup` of the spec's classifiers and calibrators: a new
    process compiles at most one such model, since the others stay on the
    process that compiled them (:meth:`TaskQueue.take`).
    """
    models = [c.estimator for c in spec.classifiers] + [s.calibrator for s in spec.scenarios]
    return WORKER_WARMUP_SECONDS + max((process_warmup(m) for m in models), default=0.0)


def default_workers(queue: TaskQueue, cores: int | None = None,
                    warmup: float = WORKER_WARMUP_SECONDS) -> int:
    """Local workers for a study when none are asked for.

    Parameters
    ----------
    queue : TaskQueue
        The tasks to run.
    cores : int, optional
        Available cores (default: :func:`available_cores`).
    warmup : float, default=WORKER_WARMUP_SECONDS
        Expected CPU seconds of each fresh worker process's start-up
        (:func:`worker_warmup`).

    Returns
    -------
    int
        The ``w <= min(cores, tasks)`` with the least expected makespan
        (:func:`expected_makespan`); 1 for a study too small for a worker's
        warm-up to pay off, so that the default is never expected to be
        slower than one worker.
    """
    cores = available_cores() if cores is None else cores
    best, best_time = 1, expected_makespan(queue, 1, warmup)
    for w in range(2, min(cores, len(queue)) + 1):
        expected = expected_makespan(queue, w, warmup)
        if expected < best_time:
            best, best_time = w, expected
    return best


def expected_makespan(queue: TaskQueue, workers: int, warmup: float) -> float:
    """Expected seconds of the queue's tasks on ``workers`` workers.

    The calling process is one of the workers (it computes tasks too; see
    :func:`bayescal.study.executors.local_processes`), so ``w`` workers start
    ``w - 1`` processes, each paying ``warmup`` before its first task. Tasks
    go to whichever worker is free, largest first, so the work (the tasks'
    ``total`` plus the warm-ups) spreads evenly, unless the largest task alone
    is longer:

    .. math:: T(1) = \\text{total}, \\qquad
              T(w) = \\max\\left(\\frac{\\text{total} + (w - 1)\\,\\text{warmup}}{w},
              \\ \\text{largest}\\right).

    Parameters
    ----------
    queue : TaskQueue
    workers : int
        Workers, the calling process included (at least 1).
    warmup : float
        Seconds of a fresh worker process's start-up.

    Returns
    -------
    float

    Examples
    --------
    >>> q = TaskQueue([(None, None, None)] * 4, [10.0] * 4)
    >>> expected_makespan(q, 1, 5.0), expected_makespan(q, 2, 5.0)
    (40.0, 22.5)
    """
    if workers < 1:
        raise ValueError(f"`workers` must be at least 1, got {workers}")
    total = queue.total_estimate
    if workers == 1:
        return total
    return max((total + (workers - 1) * warmup) / workers, queue.largest_estimate)
