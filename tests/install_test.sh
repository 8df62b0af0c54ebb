#!/usr/bin/env bash
# Install and consume: installs the build into a temporary prefix, then configures, builds and
# runs examples/cpp-thermostat, a project of its own that finds the package with
# find_package(hysim) and links hysim::hysim; it checks its own results (exit 0). The installed
# Python module (when built) imports and runs.
#   install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?usage: install_test.sh BUILD_DIR SOURCE_DIR}
source=${2:?usage: install_test.sh BUILD_DIR SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log"
for f in lib/libhysim.a lib/cmake/hysim/hysimConfig.cmake include/hysim/simulator.hpp bin/hysim \
         share/hysim/models/pwm-servo.hym share/hysim/examples/thermostat.hym; do
  [[ -e $tmp/prefix/$f ]] || { echo "FAIL not installed: $f"; exit 1; }
done
# No installed header reaches a header that is not installed (the private logger).
for h in $(cd "$tmp/prefix/include" && find hysim -name '*.hpp'); do
  for inc in $(sed -n 's/^#include "\(hysim\/[^"]*\)".*/\1/p' "$tmp/prefix/include/$h"); do
    [[ -e $tmp/prefix/include/$inc ]] || { echo "FAIL installed $h includes $inc, which is not installed"; exit 1; }
  done
done
cmake -S "$source/examples/cpp-thermostat" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/consumer" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
"$tmp/consumer/thermostat"
# The installed program runs an installed model file.
"$tmp/prefix/bin/hysim" run "$tmp/prefix/share/hysim/examples/thermostat.hym" --t-end 3 | tail -1
# ... and finds the rule tables from any working directory with its prefix moved (installed at
# a prefix other than the configured one, then renamed): beside itself first, then the source
# tree it was built from (src/hysim/study/shpakov.cpp, table_dirs).
mv "$tmp/prefix" "$tmp/moved"
(cd / && "$tmp/moved/bin/hysim" reproduce shpakov | tail -1) || { echo "FAIL reproduce shpakov from a moved prefix"; exit 1; }
mv "$tmp/moved" "$tmp/prefix"
# The installed Python package, when it was built, imports and runs from the prefix (under the
# sanitizers with their runtime preloaded and no leak check in Python: tests/CMakeLists.txt).
if compgen -G "$tmp/prefix/lib/python3/dist-packages/hysim/_core*.so" >/dev/null; then
  PYTHONPATH="$tmp/prefix/lib/python3/dist-packages" LD_PRELOAD="${HYSIM_PYTHON_PRELOAD:-}" \
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" /usr/bin/python3 -c '
import hysim, hysim.dask
r = hysim.Model("bouncing-ball").run(t_end=3.0, trajectory=False)
assert r["reason"] == "reached t_end" and r["stats"]["events"] == 1, r["message"]
print("installed python package:", r["message"])'
fi
echo "ok install and consume"
