#!/usr/bin/env bash
# LibTorch's own C++ API tests (test/cpp/api of PyTorch 1.13.1, the source of Debian's
# libtorch-dev) ported to nabla by scripts/port_from_libtorch.sh and nothing else, compiled
# and run; prints the per-file table (docs/compat.md keeps the latest) and the reasons.
# The tests come from Debian's source package at run time and are never committed.
#
#   scripts/libtorch_tests.sh [--baseline] [FILE...]
#
# Work goes to build-libtorch-tests/ (the sources, nabla's install, each side's build and
# results). Without --baseline, the LibTorch side's results from an earlier run are reused
# when present (it changes only with the Debian package); FILE... limits the run to some
# test files (e.g. `modules optim`). About 15 minutes per side on 2 cores. A full run fails
# when fewer tests pass than scripts/libtorch_tests.floor records (a regression).
set -euo pipefail
cd "$(dirname "$0")/.."
work=build-libtorch-tests
baseline=0
if [ "${1:-}" = "--baseline" ]; then baseline=1; shift; fi
bash scripts/setup.sh --with-libtorch >/dev/null
mkdir -p "$work"
if [ ! -d "$work/src/test/cpp/api" ]; then
  # Debian's source package: a deb-src list of our own, so the system's stays untouched.
  apt_dir=$(mktemp -d)
  mkdir -p "$apt_dir/lists/partial"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
    >"$apt_dir/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt_dir/lists")
  apt-get "${apt_opts[@]}" update >/dev/null
  (cd "$apt_dir" && apt-get "${apt_opts[@]}" source --download-only pytorch >/dev/null 2>&1 || true)
  tarball=$(ls "$apt_dir"/pytorch_1.13.1*.orig.tar.* 2>/dev/null | head -1)
  [ -n "$tarball" ] || { echo "libtorch_tests: could not fetch Debian's pytorch source" >&2; exit 1; }
  mkdir -p "$work/src"
  tar -xf "$tarball" -C "$work/src" --strip-components=1 pytorch-1.13.1/test/cpp/api \
    pytorch-1.13.1/test/cpp/common
  rm -rf "$apt_dir"
fi
# nabla, installed where the harness's pkg-config finds it.
cmake -S . -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DNABLA_CUDA=OFF >/dev/null
cmake --build "$work/build" -j"$(nproc)" --target nabla nabla_models >/dev/null
cmake --install "$work/build" --prefix "$work/prefix" >/dev/null
if [ $baseline -eq 1 ] || [ ! -f "$work/libtorch.json" ]; then
  python3 scripts/libtorch_tests.py --work "$work" --side libtorch "$@"
fi
python3 scripts/libtorch_tests.py --work "$work" --side nabla --prefix "$PWD/$work/prefix" "$@"
floor=0
[ $# -eq 0 ] && [ -f scripts/libtorch_tests.floor ] && floor=$(cat scripts/libtorch_tests.floor)
python3 scripts/libtorch_tests.py --work "$work" --report --floor "$floor"
