"""Fixtures of the command tests: the tiny study spec of tests/study."""

from tests.study.conftest import tiny_spec_path  # noqa: F401  (a fixture, registered by import)
