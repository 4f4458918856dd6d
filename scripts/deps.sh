#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Install every Debian package the project needs (as root, apt-get).
# Idempotent and silent when nothing is missing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$SLB_ROOT/scripts/lib-build.sh"

PACKAGES=(
	# guest kernel
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	cpio dwarves kmod xz-utils lz4
	# compiler cache of the kernel and QEMU builds (scripts/lib.sh use_ccache)
	ccache
	# guest userspace
	busybox-static rt-tests stress-ng libc6-dev
	# rtla timerlat, the second measurement (study.sh --measure)
	rtla
	# emulator: stock (firmware, comparison) and the build of our patched one
	qemu-system-x86 dpkg-dev meson ninja-build libglib2.0-dev
	libpixman-1-dev libfdt-dev pkg-config python3
	# study, plots, report (report.html: GitHub-flavoured Markdown), tests;
	# ssh targets (TARGET=ssh:..., and the test's sshd)
	gnuplot-nox jq procps cmark-gfm openssh-client openssh-server
	# report.html checked in a real browser, headless (t0023)
	chromium
	# RUNNER=slurm (sbatch, squeue, scancel, scontrol) and t4006's one-node
	# Slurm (slurmctld, slurmd, munged)
	slurm-wlm munge
)

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]}; run 'make deps' as root"
say "installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
say "packages installed"
