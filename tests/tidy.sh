#!/usr/bin/env bash
# The house's C++ habits on the files a change touches: clang-format (.clang-format) and
# clang-tidy (.clang-tidy, with the compile commands of the tidy preset's tree), each
# finding an error. The change is what differs from BASE (default: the commit before HEAD,
# what CI checks; the working tree's edits count too). A header is checked through the
# source files of its floor that include it.
#
#   tests/tidy.sh [BASE]        cmake --preset tidy first (it only configures)
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD~1}
db=build/tidy
pick() { for t in "$@"; do command -v "$t" >/dev/null && { echo "$t"; return; }; done; echo "tests/tidy.sh: none of $* found" >&2; exit 2; }
format=$(pick clang-format-14 clang-format)
tidy=$(pick clang-tidy-14 clang-tidy)
[ -f "$db/compile_commands.json" ] || { echo "tests/tidy.sh: run \"cmake --preset tidy\" first" >&2; exit 2; }
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  # A clone of one commit has nothing to compare with: every file's format is checked (a
  # few seconds), and clang-tidy, minutes over the whole tree, is not run; said loudly.
  echo "tidy: NOTE: no commit $base in this clone (a shallow one?): the format of every C++ file is checked," \
       "clang-tidy is NOT run (give BASE, or deepen the clone)" >&2
  git ls-files -z '*.cc' '*.h' | xargs -0 "$format" --dry-run -Werror
  echo "tidy: format clean; clang-tidy not run"
  exit 0
fi
mapfile -t changed < <(git diff --name-only --diff-filter=ACMR "$base" -- '*.cc' '*.h' | grep -v '^tests/fuzz/corpus/' || true)
if [ ${#changed[@]} -eq 0 ]; then
  echo "tidy: no C++ file changed since $base"
  exit 0
fi
echo "tidy: ${#changed[@]} C++ file(s) changed since $base"
"$format" --dry-run -Werror "${changed[@]}"
# The sources to run clang-tidy on: each changed source, and for each changed header the
# sources that include it, all of them in the compile commands.
declare -A sources=()
for f in "${changed[@]}"; do
  case $f in
    *.cc) sources[$f]=1 ;;
    *.h) while read -r s; do sources[$s]=1; done < <(git grep -l --fixed-strings "#include \"$f\"" -- '*.cc' || true) ;;
  esac
done
# A source of the change missing from the compile commands is an error (but the fuzz
# targets', which the tidy tree does not build: clang-format only).
here=$(pwd -P)
known=()
for s in "${!sources[@]}"; do
  if grep -qF "\"file\": \"$here/$s\"" "$db/compile_commands.json"; then
    known+=("$s")
  elif [[ $s != tests/fuzz/* ]]; then
    echo "tests/tidy.sh: $s is not in $db/compile_commands.json (a new file? run \"cmake --preset tidy\")" >&2
    exit 2
  fi
done
if [ ${#known[@]} -eq 0 ]; then
  echo "tidy: format checked; no source of the change is compiled in $db"
  exit 0
fi
echo "tidy: clang-tidy on ${#known[@]} source file(s)"
printf '%s\n' "${known[@]}" | sort | xargs -P "$(nproc)" -n 4 "$tidy" -p "$db" --quiet
echo "tidy: clean"
