#!/usr/bin/env bash
# testdata/tiny is what walcut-testgen writes today: regenerate it and compare bytes,
# so a format change cannot leave the committed WALs (and their golden output) stale.
set -euo pipefail
gen=$1 testdata=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen" tiny "$tmp/tiny"
if ! diff -r "$tmp/tiny" "$testdata/tiny" >/dev/null; then
  echo "testdata/tiny differs from what walcut-testgen writes; regenerate with:" >&2
  echo "  rm -rf testdata/tiny && $gen tiny testdata/tiny && WALCUT_UPDATE_GOLDEN=1 ctest -R Golden" >&2
  diff -r "$tmp/tiny" "$testdata/tiny" >&2 || true
  exit 1
fi
echo "testdata/tiny is current"
