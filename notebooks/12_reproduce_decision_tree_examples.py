# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Reproduction: Sigg (2022), decision-tree lecture notes, the worked examples
#
# Sigg (2022), *CS-C3240 Machine Learning D: Non-parametric methods* (Aalto
# University lecture notes) works three examples by hand:
#
# * **information gain** on a 30-row table ("at work or not?" from WiFi, Acc, Audio,
#   Light): label entropy 0.997, information values 0.868 / 0.756 / 0.884 / 0.948,
#   gains 0.129 / 0.241 / 0.113 / 0.049 (section "Decision trees");
# * the **confidence interval of an observed rate** p' = 0.75 at c = 0.8 (z = 1.28):
#   [0.732, 0.767] for n = 1000 and [0.691, 0.801] for n = 100 (section "Confidence on
#   a prediction");
# * C4.5's **pessimistic error** (c = 25 %, z = 0.69) for pruning: leaves 0.47, 0.72,
#   0.47, combined 0.51, parent 0.46, "0.46 < 0.51 => prune children away" (section
#   "Estimating error rates").
#
# The registered reproduction is `models/reproductions/seed001_worked_examples/`
# (`bayescal reproduce seed001_worked_examples`; no data directory, milliseconds). The
# lecture prints rounded results of exact arithmetic, so a value agrees when ours,
# computed from the lecture's own inputs, rounds to the printed digits.

# %%
import os
import tempfile
from itertools import product
from pathlib import Path

import numpy as np
import pandas as pd

from bayescal.reproduce import load_reproduction
from bayescal.reproduce.runner import run_reproduction
from bayescal.reproduce.decision_trees import (
    AT_WORK,
    entropy,
    information_value,
    pessimistic_error,
)

out = Path(os.environ.get("BAYESCAL_NOTEBOOK_OUT") or tempfile.mkdtemp()) / "seed001"
rep = load_reproduction("seed001_worked_examples")
lines: list[str] = []
record = run_reproduction(rep, out, echo=lines.append)
print("\n".join(lines))
# judged against the lecture's printed digits only
assert record["verdict"] == "partly reproduced (2 of 3 checks)", record["verdict"]

# %% [markdown]
# ## What reproduces
#
# The label entropy, the WiFi and Acc information values and gains, both confidence
# intervals, the three leaves' pessimistic errors, their weighted combination and the
# pruning decision all agree to the printed digits. The order check holds too: the
# lecture's ranking of the attributes by gain (Acc first, so the tree splits on Acc)
# survives in ours for every pair but the Audio/Light one discussed next.

# %% [markdown]
# ## Disagreement 1: Audio and Light, the printed listing against the printed gains
#
# From the lecture's own 30-row listing, Audio's information value is 0.937 and
# Light's 0.918, not 0.884 and 0.948. The counts below are those of the listing; the
# cell after searches every split of the 16 'Work' and 14 'Not at work' rows that
# gives the printed values.

# %%
rows = np.array(AT_WORK, dtype=object)
labels = rows[:, 5]
for j, name in ((3, "Audio"), (4, "Light")):
    counts = pd.crosstab(rows[:, j], labels)
    print(name, f"information value {information_value(rows[:, j], labels):.3f}")
    print(counts.to_string(), "\n")


def value_of(groups):
    n = sum(sum(g) for g in groups)
    return sum(sum(g) / n * entropy(np.repeat(["w", "n"], g)) for g in groups if sum(g))


light = [((a, b), (16 - a, 14 - b)) for a, b in product(range(17), range(15))
         if 0 < a + b < 30 and abs(value_of([(a, b), (16 - a, 14 - b)]) - 0.948) < 5e-4]
print("Light splits giving 0.948:", light)
assert ((4, 7), (12, 7)) in light  # the listing has outdoor (4, 8), indoor (12, 6)

# %% [markdown]
# The printed 0.948 for Light is outdoor 4 Work / 7 Not, indoor 12 / 7: one 'Not at
# work' row moved from outdoor to indoor against the listing (4 / 8, 12 / 6). Audio's
# 0.884 likewise needs other counts than the listing's (quiet 8 / 6, medium 6 / 3,
# loud 2 / 5), e.g. quiet 8 / 6, medium 5 / 1, loud 3 / 7. The lecture's slides show the
# table in several versions while building the tree; its gains were computed from one
# that differs from the final listing in a few Audio and Light entries. Our functions
# are right on the listing (the WiFi and Acc values, which use the same code, agree to
# the digit): this is a disagreement in the source, reported as such.

# %% [markdown]
# ## Disagreement 2: the parent node's pessimistic error, 0.46
#
# With the lecture's formula and its z = 0.69, the parent (q' = 5/14) gives 0.449,
# which rounds to 0.45. No single z reproduces all of the lecture's figures: 0.47 for
# 2/6 and 0.72 for 1/2 need z near 0.69, 0.46 for 5/14 needs z near 0.74.

# %%
z_grid = np.arange(0.30, 1.20, 0.001)
fits = [z for z in z_grid if abs(pessimistic_error(2, 6, z=z) - 0.47) < 0.005
        and abs(pessimistic_error(1, 2, z=z) - 0.72) < 0.005
        and abs(pessimistic_error(5, 14, z=z) - 0.46) < 0.005]
print(f"parent at z = 0.69: {pessimistic_error(5, 14):.4f}; z fitting all three: {fits}")
assert not fits and round(pessimistic_error(5, 14), 2) == 0.45
# the decision the lecture draws holds either way: 0.449 (or 0.46) < 0.51
