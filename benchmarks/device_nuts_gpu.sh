#!/bin/bash
# The device check of issue 26 (BLR at n = 10^6 on a lent GPU): install the wheels carried in
# .whl (PyMC, PyTensor, ArviZ, blackjax; JAX and numpyro are the machine's own), print the
# versions, run benchmarks/nuts_gpu.py (arguments passed on).
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 PYTENSOR_FLAGS=base_compiledir=/tmp/pytensor
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "import numpy, scipy, numba, xarray, sklearn, pandas, jax, numpyro, pymc, pytensor, blackjax; print({m.__name__: m.__version__ for m in (numpy, scipy, numba, xarray, sklearn, pandas, jax, numpyro, pymc, pytensor, blackjax)}); print(jax.devices())"
timeout ${GPU_LIMIT:-420} python3 benchmarks/nuts_gpu.py "$@" 2>&1 | grep -v -i warn | tee $OUT/nuts_gpu.log
