"""``python -m bayescal.study run|show`` (the same commands as ``bayescal``)."""

from bayescal.study.commands import main

if __name__ == "__main__":
    main()
