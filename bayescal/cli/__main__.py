"""``python -m bayescal.cli``: the ``bayescal`` command."""

from bayescal.cli import entry

if __name__ == "__main__":  # pragma: no cover
    entry()
