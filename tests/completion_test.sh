#!/usr/bin/env bash
# The completion scripts are valid shell and name every flag of every subcommand that
# --help prints.
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
[ $fail -eq 0 ] && echo "completion covers every flag of: $commands"
exit $fail
