#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Check that every option a Kconfig fragment sets survived into the final
# .config with that value: merge_config.sh and olddefconfig drop options
# whose dependencies are missing without a word.
#   check-kconfig.sh CONFIG FRAGMENT...
# Prints one line per lost option, naming the fragment, the option, the
# wanted and the actual value. Exit 0 all survived, 1 some lost, 2 usage.
set -uo pipefail
SLB_PROG=check-kconfig
. "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || usage_error "usage: check-kconfig.sh CONFIG FRAGMENT..."
config=$1
shift
[ -f "$config" ] || usage_error "CONFIG '$config' does not exist"
bad=0
for frag in "$@"; do
	[ -f "$frag" ] || usage_error "FRAGMENT '$frag' does not exist"
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) opt=${line%%=*} want=$line ;;
		"# CONFIG_"*" is not set") opt=${line#\# } opt=${opt%% *} want="" ;;
		*) continue ;;
		esac
		got=$(grep -E "^$opt=" "$config" || true)
		if [ "$got" != "$want" ]; then
			printf '%s: error: %s: %s did not survive olddefconfig (wanted %s, got %s)\n' \
				"$SLB_PROG" "${frag#"$SLB_ROOT"/}" "$opt" "${want:-unset}" "${got:-unset}" >&2
			bad=1
		fi
	done <"$frag"
done
exit $bad
