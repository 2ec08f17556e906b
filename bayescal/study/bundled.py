"""The study specs shipped inside the package (``bayescal/study/specs/``)."""

from __future__ import annotations

from importlib.resources import files

__all__ = ["QUICKSTART"]

#: The bundled quick-start spec, which ``bayescal run`` runs when given no spec:
#: scikit-learn's breast-cancer set and the seed thesis' synthetic set; naive
#: Bayes, random forest, logistic regression; raw, Platt on CV scores, isotonic
#: on a split and on the full training set, ENIR on DGG data; 5-fold CV.
QUICKSTART = files("bayescal.study") / "specs" / "quickstart.toml"
