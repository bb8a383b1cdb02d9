#!/usr/bin/env bash
# Every flag that `walcut COMMAND --help` prints appears in man/walcut-COMMAND.1, and
# groff has nothing to say about any page.
set -uo pipefail
walcut=$1 man=$2
fail=0
for page in "$man"/*.1 "$man"/*.5 "$man"/*.7; do
  out=$(groff -man -ww -z "$page" 2>&1)
  if [ -n "$out" ]; then
    echo "groff warnings in $page:"; echo "$out"; fail=1
  fi
done
commands=$("$walcut" --help | awk '/^Subcommands:/{on=1;next} on && NF {print $1}')
[ -n "$commands" ] || { echo "no subcommands found in walcut --help"; exit 1; }
for cmd in $commands; do
  page="$man/walcut-$cmd.1"
  if [ ! -f "$page" ]; then echo "missing man page $page"; fail=1; continue; fi
  text=$(groff -man -Tutf8 "$page" 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g; s/.\x08//g')
  for flag in $("$walcut" "$cmd" --help | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[ ,]//' | sort -u); do
    case "$flag" in -h|--help) continue;; esac
    if ! grep -qF -- "$flag" <<<"$text"; then
      echo "walcut-$cmd.1 does not document $flag"; fail=1
    fi
  done
done
[ $fail -eq 0 ] && echo "man pages match --help for: $commands"
exit $fail
