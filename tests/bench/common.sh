# What the benchmark scripts share, sourced by each after `set -euo pipefail`:
#   bench_walcut BUILD_DIR   sets walcut=BUILD_DIR/tools/walcut, or stops: it must be built
#   bench_rounds DEFAULT     sets rounds=$BENCH_ROUNDS, or DEFAULT
#   bench_machine            prints the machine line every table begins with
# shellcheck shell=bash

bench_walcut() {
  walcut=$1/tools/walcut
  [ -x "$walcut" ] || { echo "build first: cmake --preset release && cmake --build --preset release" >&2; exit 2; }
}

bench_rounds() {
  rounds=${BENCH_ROUNDS:-$1}
  [[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_ROUNDS must be a whole number, 1 or more" >&2; exit 2; }
}

bench_machine() {
  echo "machine: $(nproc) cores, $(awk '/model name/{sub(/.*: /,""); print; exit}' /proc/cpuinfo), $(free -g | awk '/Mem:/{print $2}') GiB RAM"
}
