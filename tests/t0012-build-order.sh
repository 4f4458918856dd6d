#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What make test, make bench and the other guest targets need is built
# with what does not depend on each other overlapping (make -j, nproc
# jobs): the host and guest tools and QEMU beside the kernel; the kernel
# variants only after the main kernel, whose objects they take from the
# compiler cache (built beside it, each would compile everything). Read
# from make's database and dry runs: nothing is built.
. "$(dirname "$0")/lib.sh"
make -pnq -C "$T_ROOT" kernel >"$T_TMP/db" 2>/dev/null
t_ok "kernel-nofix builds after the kernel" grep -qx 'kernel-nofix: kernel' "$T_TMP/db"
t_ok "kernel-defwarn builds after the kernel" grep -qx 'kernel-defwarn: kernel' "$T_TMP/db"
t_ok "QEMU does not wait for the kernel" grep -qx "qemu:" "$T_TMP/db"
# par TARGET WHAT: make -n TARGET builds WHAT with -j$(nproc), silently
# (-s: make's "Nothing to be done" would land in make test's TAP stream).
par() {
	make -n -C "$T_ROOT" "$1" 2>&1 | grep -q -- "-s -j\$(nproc) $2\$" && return 0
	echo "make -n $1 does not build '$2' with -s -j\$(nproc):"
	make -n -C "$T_ROOT" "$1" 2>&1 | grep -- "$2" | head -n 3
	return 1
}
t_ok "make test builds its prerequisites in parallel" par test "all kernel kernel-nofix kernel-defwarn qemu initramfs build/host/test-.*"
t_ok "make bench-sweep builds its prerequisites in parallel" par bench-sweep "all kernel qemu initramfs"
t_ok "make validate-model builds its prerequisites in parallel" par validate-model "all kernel qemu initramfs"
