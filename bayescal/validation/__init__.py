"""Input checks shared by every part of bayescal.

Every public function and estimator validates its input here, so that the same
bad input gets the same clear error everywhere (DESIGN.md, "Bad input"): a
``ValueError`` (or ``TypeError`` for a wrong type) whose message names the
argument, shows the offending value, says what was expected and, where one
exists, the remedy. Nothing is clipped, dropped or coerced silently.

The checks return validated NumPy arrays (``float64`` for scores and
probabilities, ``int64`` for labels) and never modify their input.
"""

from __future__ import annotations

from bayescal.validation.arrays import (
    check_array_1d,
    check_consistent_length,
    check_matrix,
    check_min_samples,
    check_sample_weight,
    describe_bad_values,
    in_unit_interval,
)
from bayescal.validation.estimator_data import (
    check_classification_data,
    check_features,
)
from bayescal.validation.labels import (
    check_labels,
    check_n_classes_present,
    check_targets,
    encode_labels,
)
from bayescal.validation.multilabel import (
    check_indicator_matrix,
    check_probability_columns,
)
from bayescal.validation.parameters import (
    check_choice,
    check_fraction,
    check_positive_int,
    check_positive_number,
)
from bayescal.validation.probabilities import (
    ROW_SUM_TOLERANCE,
    check_binary_scores,
    check_probability_matrix,
    check_probability_pair,
)

__all__ = [
    "check_array_1d",
    "check_consistent_length",
    "check_matrix",
    "check_min_samples",
    "check_sample_weight",
    "describe_bad_values",
    "in_unit_interval",
    "ROW_SUM_TOLERANCE",
    "check_binary_scores",
    "check_probability_matrix",
    "check_probability_pair",
    "check_labels",
    "check_n_classes_present",
    "check_targets",
    "encode_labels",
    "check_indicator_matrix",
    "check_probability_columns",
    "check_choice",
    "check_fraction",
    "check_positive_int",
    "check_positive_number",
    "check_classification_data",
    "check_features",
]
