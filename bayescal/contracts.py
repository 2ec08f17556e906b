"""Estimator contracts declared once and read back from the estimator.

The ``input`` vocabulary of scores (:data:`SCORE_INPUTS`): a calibrator
declares the values it reads in its ``_parameter_constraints``
(:func:`input_constraint`), and :func:`accepted_inputs` reads them back. And
whether an estimator's ``predict_interval`` has nominal coverage
(:func:`has_credible_interval`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "SCORE_INPUTS",
    "accepted_inputs",
    "check_score_input",
    "has_credible_interval",
    "input_constraint",
]


#: What a calibrator's scores are (the one ``input`` vocabulary of bayescal):
#: ``"score"``, a probability in [0, 1] read as it is; ``"logit"``, a probability
#: in [0, 1] read on the log-odds scale ``log(s / (1 - s))``; ``"decision"``, any
#: finite real number (a decision function, a margin, a logit) read as it is.
SCORE_INPUTS = ("score", "logit", "decision")


def input_constraint(*values: str) -> list[Any]:
    """The ``_parameter_constraints`` entry of ``input``: the one declaration of its values.

    A calibrator declares the members of :data:`SCORE_INPUTS` its method reads
    here and nowhere else; :func:`accepted_inputs` reads them back (for
    :func:`bayescal.calibration.calibrator_for`, the error remedies and the
    conformance test).

    Parameters
    ----------
    *values : str
        Members of :data:`SCORE_INPUTS`.

    Returns
    -------
    list

    Raises
    ------
    ValueError
        If a value is not in :data:`SCORE_INPUTS` (a programming error in a class).
    """
    from bayescal._compat.param_validation import StrOptions

    unknown = [v for v in values if v not in SCORE_INPUTS]
    if not values or unknown:
        raise ValueError(
            f"`values` must be members of {list(SCORE_INPUTS)!r}; got {list(values)!r}."
        )
    return [StrOptions(set(values))]


def accepted_inputs(estimator: Any) -> tuple[str, ...]:
    """The ``input`` values an estimator (or class) accepts, in :data:`SCORE_INPUTS` order.

    Read from the ``"input"`` entry of its ``_parameter_constraints`` (declared
    with :func:`input_constraint`); an estimator without an ``input``
    parameter reads probabilities only: ``("score",)``.

    Parameters
    ----------
    estimator : estimator instance or class

    Returns
    -------
    tuple of str
    """
    entry = getattr(estimator, "_parameter_constraints", {}).get("input")
    if entry is None:
        return ("score",)
    options: set[str] = set()
    for constraint in entry:
        options |= set(getattr(constraint, "options", ()))
    return tuple(v for v in SCORE_INPUTS if v in options)


def check_score_input(value: Any, allowed: Sequence[str], owner: str, remedy: str = "") -> str:
    """Validate an ``input`` parameter against the inputs a calibrator supports.

    Parameters
    ----------
    value : object
        The ``input`` parameter.
    allowed : sequence of str
        The members of :data:`SCORE_INPUTS` the calibrator accepts.
    owner : str
        Calibrator name for the message.
    remedy : str, optional
        What to do instead when ``value`` is a valid input the method cannot use
        (e.g. beta calibration needs probabilities).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``value`` is not in ``allowed``.
    """
    if value in allowed:
        return value
    if value in SCORE_INPUTS:
        raise ValueError(
            f"`input`={value!r} is not supported by {owner}, which accepts "
            f"{list(allowed)!r}. {remedy}".rstrip()
        )
    raise ValueError(
        f"The 'input' parameter of {owner} must be a str among {list(allowed)!r}; "
        f"got {value!r}. 'score': probabilities in [0, 1]; 'logit': probabilities read "
        "on the log-odds scale; 'decision': any real number (e.g. decision_function)."
    )


def has_credible_interval(estimator: Any) -> bool:
    """Whether ``estimator.predict_interval(X, prob)`` gives an interval of mass ``prob``.

    True for the Bayesian estimators (credible intervals); False for an
    estimator without ``predict_interval`` and for one whose interval has no
    nominal coverage and so refuses ``prob`` (the Venn-ABERS pair, which sets
    ``_interval_has_coverage = False``). Callers that pass ``prob`` (the study
    runner, the calibration-map plot) ask this first.
    """
    return hasattr(estimator, "predict_interval") and getattr(
        estimator, "_interval_has_coverage", True
    )
