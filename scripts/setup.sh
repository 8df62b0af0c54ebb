#!/usr/bin/env bash
# Installs what is missing (Debian packages), configures and builds hysim into build/.
# Used by both README commands and by CI; safe to run again (it only does what is missing).
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to the clone, so a clone anywhere reuses what earlier builds compiled.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}

packages=(
  g++ gcc cmake make ccache   # gcc: `cc` compiles model files to native code (docs/model-language.md)
  universal-ctags       # scripts/size_check.sh reads the length of every class and function
  libboost-dev          # Boost.Odeint, Boost.Multiprecision (header-only)
  libspdlog-dev
  libeigen3-dev         # Eigen: the dense and sparse LU of the implicit solvers (rosenbrock4, ndf)
  nlohmann-json3-dev
  libcli11-dev
  libssl-dev            # libcrypto's SHA-256 checks every cached model object (docs/security.md)
  libgtest-dev
  libsundials-dev       # SUNDIALS CVODE, the peer in `hysim compare` (strategy cvode)
  libsuitesparse-dev    # KLU, CVODE's sparse direct solver (strategy cvode on a sparse Jacobian pattern)
  gnuplot-nox           # draws the work-precision and step-log figures (PNG)
  pybind11-dev python3-dev python3-numpy python3-pytest   # the Python module and its tests (docs/python.md)
  python3-matplotlib    # examples/python/pwm_strategies.py draws its figure
  python3-distributed   # hysim.dask.sweep: a sweep on a Dask cluster (docs/sweeps.md)
)

scripts/install-packages.sh "${packages[@]}"

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build -j "${HYSIM_JOBS:-2}" >> build.log 2>&1 || { tail -n 60 build.log; exit 1; }
echo "setup: built build/hysim (log: build.log)"
