#!/usr/bin/env bash
# The completion scripts are valid shell, name every flag of every subcommand that --help
# prints, and complete the values of options that take a fixed set, and cut ids.
set -uo pipefail
walcut=$1
fail=0
bash_script=$("$walcut" completion bash) || { echo "walcut completion bash failed"; exit 1; }
bash -n <<<"$bash_script" || { echo "bash completion script does not parse"; fail=1; }
"$walcut" completion zsh | grep -q bashcompinit || { echo "zsh script lacks bashcompinit"; fail=1; }
commands=$("$walcut" --help | awk '/^Subcommands:/{on=1;next} on && NF {print $1}')
for cmd in $commands; do
  grep -q "^    $cmd) opts=" <<<"$bash_script" || { echo "completion lacks subcommand $cmd"; fail=1; continue; }
  line=$(grep "^    $cmd) opts=" <<<"$bash_script")
  # The option column of --help: "  -o,--output TEXT ..." -> -o --output
  for flag in $("$walcut" "$cmd" --help | sed -n 's/^  \(-[^ ]*\).*/\1/p' | tr ',' '\n' | sort -u); do
    grep -qE -- "[\" ]$flag[\" ]" <<<"$line" || { echo "completion of $cmd lacks $flag"; fail=1; }
  done
done
# The function really completes: a prefix of a flag expands to it.
source <(echo "$bash_script")
COMP_WORDS=(walcut dump --sta); COMP_CWORD=2; _walcut
[ "${COMPREPLY[*]}" = "--stats" ] || { echo "completing 'walcut dump --sta' gave '${COMPREPLY[*]}'"; fail=1; }
# Values: an option's fixed set ("TEXT:{a,b}" in --help), dump's record types, the shell.
expect() {  # expect "WANTED" WORD...: completing the words (the last being completed) gives WANTED
  local want=$1
  shift
  COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _walcut
  [ "${COMPREPLY[*]}" = "$want" ] || { echo "completing '$*' gave '${COMPREPLY[*]}', not '$want'"; fail=1; }
}
expect "time offset" walcut cuts --axis ""
expect "COMMITTED" walcut txs c --state CO
expect "cut-start cut-finish" walcut dump --type cut-
expect "zsh" walcut completion z
expect "binary json" walcut cuts x --summary y --summary-format ""
for cmd in $commands; do
  "$walcut" "$cmd" --help | sed -n 's/^  .*--\([a-z-]*\) [A-Z]*:{\([^}]*\)}.*/\1 \2/p' | while read -r opt vals; do
    grep -qF "\"$cmd --$opt\") vals=\"${vals//,/ }" <<<"$bash_script" || { echo "no value completion for $cmd --$opt"; exit 1; }
  done || fail=1
done
# Cut ids, from the directory named on the line.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$walcut" simulate -q -o "$scratch/c" --nodes 3 --txs 300 --cuts 2 --partitions 8
ids=$("$walcut" cuts --json "$scratch/c" | grep -o '"id":"[0-9a-f-]*"' | cut -d'"' -f4 | tr '\n' ' ')
[ -n "$ids" ] || { echo "the scratch cluster has no cut"; fail=1; }
expect "${ids% }" "$walcut" check "$scratch/c" --cut ""
expect "${ids% }" "$walcut" prune "$scratch/c" --before ""
first=${ids%% *}
# The directory may come after the word completed.
COMP_WORDS=("$walcut" restore --cut "${first:0:8}" "$scratch/c"); COMP_CWORD=3; _walcut
[ "${COMPREPLY[*]}" = "$first" ] || { echo "completing a cut id before its directory gave '${COMPREPLY[*]}'"; fail=1; }
[ $fail -eq 0 ] && echo "completion covers every flag and value set of: $commands"
exit $fail
