#!/usr/bin/env bash
# The floors depend downward only: libwal -> libcut -> recovery -> sim -> app -> tools. A file
# may include its own floor and those below it, never one above; and each floor's
# CMake target links only the floors below. Fails naming every include that reaches up.
set -euo pipefail
if [ "${1:-}" = --self-test ]; then
  # A tree whose libcut includes recovery/ and whose app links walcut::tools must fail, naming both.
  t=$(mktemp -d)
  trap 'rm -rf "$t"' EXIT
  for f in libwal libcut recovery sim app tools; do mkdir -p "$t/$f" && : >"$t/$f/CMakeLists.txt"; done
  echo '#include "recovery/restore.h"' >"$t/libcut/x.h"
  echo 'target_link_libraries(walcut_app PUBLIC walcut::tools walcut::wal)' >"$t/app/CMakeLists.txt"
  if out=$("$0" "$t"); then echo "self-test: a tree reaching up passed"; exit 1; fi
  grep -q "libcut/x.h includes recovery/" <<<"$out" && grep -q "app/CMakeLists.txt links walcut::tools" <<<"$out" ||
    { echo "self-test: not both named: $out"; exit 1; }
  echo "self-test: $out" | tr '\n' ' '; echo
  exit 0
fi
root=${1:?usage: layers_test.sh SOURCE_DIR | --self-test}
floors=(libwal libcut recovery sim app tools)
status=0
for i in "${!floors[@]}"; do
  floor=${floors[$i]}
  allowed="${floors[*]:0:$((i + 1))}"
  while IFS= read -r line; do
    file=${line%%:*}
    inc=$(sed -E 's|.*#include "([a-z]+)/.*|\1|' <<<"$line")
    case " $allowed " in
      *" $inc "*) ;;
      *) case " ${floors[*]} " in
           *" $inc "*) echo "$file includes $inc/, a floor above $floor"; status=1 ;;
         esac ;;
    esac
  done < <(grep -HE '^#include "[a-z]+/' "$root/$floor"/*.cc "$root/$floor"/*.h 2>/dev/null || true)
done
# The same of the CMake targets: a floor's CMakeLists.txt names only the floors below it
# (walcut::wal is libwal, walcut::cut libcut, walcut::<floor> the others).
target_floor() { case $1 in wal) echo libwal ;; cut) echo libcut ;; *) echo "$1" ;; esac; }
for i in "${!floors[@]}"; do
  floor=${floors[$i]}
  below="${floors[*]:0:$i}"
  for name in $(grep -v ALIAS "$root/$floor/CMakeLists.txt" | grep -oE 'walcut::[a-z]+' | sort -u); do
    linked=$(target_floor "${name#walcut::}")
    [ "$linked" = "$floor" ] && continue
    case " $below " in
      *" $linked "*) ;;
      *) echo "$floor/CMakeLists.txt links $name, not a floor below $floor"; status=1 ;;
    esac
  done
done
[ $status -eq 0 ] && echo "layers: every include and every link points down"
exit $status
