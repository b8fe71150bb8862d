#!/usr/bin/env bash
# Builds the Debian package agent-dispatch_<version>_<arch>.deb from the
# source tree: installs what is missing (tools/setup.sh), configures a fresh
# build folder (removed first, so nothing of an earlier build leaks in),
# builds only what the package holds (agent-dispatch, ad-keeper, the man
# pages and the completion) without sanitizers and without the test suite,
# with Debian's hardening flags (dpkg-buildflags), and runs cpack. The
# package's path is the last line printed. docs/packaging.md says what it
# holds; `apt install ./agent-dispatch_*.deb` installs it.
# Usage: tools/package.sh [--out DIR] [--build-dir DIR] [cmake -D options...]
#   --out DIR        where the .deb goes (default: the current folder)
#   --build-dir DIR  the build folder (default: build-package)
set -euo pipefail
usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
out=$(pwd)
build_dir=build-package
cmake_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --build-dir) build_dir=${2:?--build-dir needs a folder}; shift 2 ;;
    -D*) cmake_args+=("$1"); shift ;;
    *) usage ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."

bash tools/setup.sh
if [ -n "$(git status --porcelain 2>/dev/null)" ]; then
  echo "package: warning: the source tree has uncommitted changes; the package holds them" >&2
fi

# Debian's hardening flags (stack protector, fortify, relro, bindnow, PIE).
# The build type's -O2 -g1 comes after them and wins: the package's programs
# are stripped, so full debug information would only cost compile time.
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
CXXFLAGS="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CXXFLAGS)"
LDFLAGS=$(dpkg-buildflags --get LDFLAGS)
export CXXFLAGS LDFLAGS

rm -rf "$build_dir"
cmake -S . -B "$build_dir" -G Ninja -DAD_SANITIZE=OFF -DAD_BUILD_TESTS=OFF -DAD_PACKAGE=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
  "${cmake_args[@]}"
cmake --build "$build_dir" -j "$(nproc)" --target agent-dispatch ad-keeper package-docs
cpack --config "$build_dir/CPackConfig.cmake" -B "$build_dir/cpack"
deb=$(ls "$build_dir"/cpack/agent-dispatch_*.deb)
mv -f "$deb" "$out/"
echo "package: built $out/$(basename "$deb")"
