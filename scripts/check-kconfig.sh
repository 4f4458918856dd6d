#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Check that every option a Kconfig fragment sets survived into the final
# .config with that value: merge_config.sh and olddefconfig drop options
# whose dependencies are missing without a word.
#   check-kconfig.sh CONFIG FRAGMENT...
# Prints one line per lost option, naming the fragment, the option, the
# wanted and the actual value. A later fragment overrides an earlier one.
# Exit 0 all survived, 1 some lost, 2 usage.
set -uo pipefail
SLB_PROG=check-kconfig
. "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || usage_error "usage: check-kconfig.sh CONFIG FRAGMENT..."
config=$1
shift
[ -f "$config" ] || usage_error "CONFIG '$config' does not exist"
# The value each option should have: the last fragment that sets it wins,
# as in merge_config.sh.
declare -A want=() from=()
order=()
for frag in "$@"; do
	[ -f "$frag" ] || usage_error "FRAGMENT '$frag' does not exist"
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) opt=${line%%=*} val=$line ;;
		"# CONFIG_"*" is not set") opt=${line#\# } opt=${opt%% *} val="" ;;
		*) continue ;;
		esac
		[ -n "${from[$opt]+set}" ] || order+=("$opt")
		want[$opt]=$val from[$opt]=$frag
	done <"$frag"
done
bad=0
for opt in "${order[@]}"; do
	got=$(grep -E "^$opt=" "$config" || true)
	if [ "$got" != "${want[$opt]}" ]; then
		printf '%s: error: %s: %s did not survive olddefconfig (wanted %s, got %s)\n' \
			"$SLB_PROG" "${from[$opt]#"$SLB_ROOT"/}" "$opt" "${want[$opt]:-unset}" "${got:-unset}" >&2
		bad=1
	fi
done
exit $bad
