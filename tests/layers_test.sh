#!/usr/bin/env bash
# The floors depend downward only: libwal -> libcut -> recovery -> sim -> app -> tools. A file
# may include its own floor and those below it, never one above; and each floor's
# CMake target links only the floors below. Fails naming every include that reaches up.
set -euo pipefail
root=${1:?usage: layers_test.sh SOURCE_DIR}
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
[ $status -eq 0 ] && echo "layers: every include points down"
exit $status
