#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/check-kconfig.sh names every fragment option that did not survive
# into the final .config (merge_config.sh drops them silently).
. "$(dirname "$0")/lib.sh"
CK=$T_ROOT/scripts/check-kconfig.sh
printf 'CONFIG_A=y\nCONFIG_B=y\n# CONFIG_C is not set\nCONFIG_D="x"\n' >"$T_TMP/.config"
printf 'CONFIG_A=y\n# CONFIG_C is not set\nCONFIG_D="x"\n' >"$T_TMP/good.config"
printf 'CONFIG_A=y\nCONFIG_E=y\n# CONFIG_B is not set\nCONFIG_D="y"\n' >"$T_TMP/bad.config"
t_ok "a fragment that survived passes" "$CK" "$T_TMP/.config" "$T_TMP/good.config"
"$CK" "$T_TMP/.config" "$T_TMP/bad.config" 2>"$T_TMP/err"
rc=$?
t_ok "a fragment with lost options fails (exit 1)" test "$rc" = 1
t_ok "it names the dropped option" grep -q 'CONFIG_E did not survive olddefconfig (wanted CONFIG_E=y, got unset)' "$T_TMP/err"
t_ok "it names an option that should be off but is on" grep -q 'CONFIG_B did not survive olddefconfig (wanted unset, got CONFIG_B=y)' "$T_TMP/err"
t_ok "it names an option with another value" grep -q 'CONFIG_D did not survive olddefconfig (wanted CONFIG_D="y", got CONFIG_D="x")' "$T_TMP/err"
t_ok "options that survived are not named" sh -c "! grep -q CONFIG_A '$T_TMP/err'"
t_ok "the real rt-config fragments survived in the cached kernel" sh -c "[ ! -f '$("$T_ROOT/scripts/build-kernel.sh" --path)/build/.config' ] || '$CK' '$("$T_ROOT/scripts/build-kernel.sh" --path)/build/.config' '$T_ROOT'/rt-config/*.config"
# A later fragment overrides an earlier one (merge_config.sh's order), as
# the kernel variants' fragments do (rt-config/variants/).
printf 'CONFIG_B=y\n# CONFIG_E is not set\n' >"$T_TMP/first.config"
printf '# CONFIG_B is not set\nCONFIG_E=y\n' >"$T_TMP/later.config"
printf '# CONFIG_B is not set\nCONFIG_E=y\n' >"$T_TMP/merged"
t_ok "a later fragment's value is the one checked" "$CK" "$T_TMP/merged" "$T_TMP/first.config" "$T_TMP/later.config"
t_ok "... and a mismatch names the fragment that set it" sh -c "! '$CK' '$T_TMP/.config' '$T_TMP/first.config' '$T_TMP/later.config' 2>&1 | grep -q first.config && '$CK' '$T_TMP/.config' '$T_TMP/first.config' '$T_TMP/later.config' 2>&1 | grep -q 'later.config: CONFIG_B did not survive'"
