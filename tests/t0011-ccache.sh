#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The compiler cache of the kernel and QEMU builds (scripts/lib-build.sh
# use_ccache) changes nothing that is built and serves every cache entry:
# its settings (cache in $SLB_CACHE/ccache, base_dir $SLB_CACHE; none with
# SLB_CCACHE=0); the cache keys do not depend on it; an object of the
# cached kernel (kernel/fork.o: __FILE__ of a header in a WARN) and of the
# cached QEMU (-g: the paths in its debug information) compiled by its own
# saved command is the same byte for byte without ccache, through ccache
# (a miss) and again (a hit), and in another cache entry (the nofix kernel;
# a hit). Without the build scripts' path maps the ccache objects say
# ../src/ where the plain ones do not. The object checks need the cached
# builds made by this tree's scripts (else skipped).
. "$(dirname "$0")/lib.sh"
command -v ccache >/dev/null || { t_skip "compiler cache" "no ccache (make deps)"; exit 0; }
cache=$(bash -c '. "$0/scripts/lib.sh"; echo "$SLB_CACHE"' "$T_ROOT")
t_ok "use_ccache: cache in \$SLB_CACHE/ccache, base_dir \$SLB_CACHE, ccache's gcc first on PATH" sh -c "
	settings_out=\$(bash -c '. \"$T_ROOT/scripts/lib.sh\"; . \"$T_ROOT/scripts/lib-build.sh\"; use_ccache 2>/dev/null; echo \$CCACHE_DIR \$CCACHE_BASEDIR \${PATH%%:*}')
	[ \"\$settings_out\" = '$cache/ccache $cache /usr/lib/ccache' ] || { echo \"got: \$settings_out\"; exit 1; }"
t_ok "SLB_CCACHE=0: no compiler cache" sh -c "[ \"\$(SLB_CCACHE=0 bash -c '. \"$T_ROOT/scripts/lib.sh\"; . \"$T_ROOT/scripts/lib-build.sh\"; use_ccache; echo \"\${CCACHE_DIR:-none} \${PATH%%:*}\"')\" != '$cache/ccache /usr/lib/ccache' ]"
keys() { "$T_ROOT/scripts/build-kernel.sh" --path; "$T_ROOT/scripts/build-kernel.sh" --variant nofix --path; "$T_ROOT/scripts/build-qemu.sh" --path; }
t_ok "the cache keys are the same with and without ccache" sh -c "[ \"\$(SLB_CCACHE=0 PATH=/usr/bin:/bin; $(declare -f keys); keys)\" = \"\$($(declare -f keys); keys)\" ]"

# compile_as DIR CMD OUT MODE: run the saved compile command CMD in DIR with
# its output (and dependency file) in OUT; MODE plain (no ccache), or
# ccache (use_ccache's settings, the test's own cache directory).
export CC_TMP=$T_TMP/ccache
compile_as() {
	local dir=$1 cmd=$2 out=$3 mode=$4
	if [ "$mode" = plain ]; then
		(cd "$dir" && SLB_CCACHE=0 bash -c "$cmd") >"$out.log" 2>&1
	else
		(cd "$dir" && bash -c '. "$0/scripts/lib.sh"; . "$0/scripts/lib-build.sh"; use_ccache 2>/dev/null; export CCACHE_DIR=$CC_TMP; bash -c "$1"' "$T_ROOT" "$cmd") >"$out.log" 2>&1
	fi
}
# same A B: files A and B are identical (else what differs, as strings).
same() { cmp -s "$1" "$2" && return 0; echo "$1 and $2 differ:"; diff <(strings "$1") <(strings "$2") | head -n 8; return 1; }
hits() { CCACHE_DIR=$CC_TMP ccache --print-stats | awk -F'\t' '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { n += $2 } END { print n + 0 }'; }

# The kernel: kernel/fork.o's kbuild command (.fork.o.cmd), its -o and
# dependency file sent to $T_TMP. Every mention of the object is replaced:
# the command ends with objtool on it, which must process the test's copy
# (not the cached object) for the two to compare.
kdir=$("$T_ROOT/scripts/build-kernel.sh" --path)
kcmd() { sed -n 's/^savedcmd_kernel\/fork.o := //p' "$1/build/kernel/.fork.o.cmd" | sed "s#-Wp,-MMD,kernel/.fork.o.d#-Wp,-MMD,$2.d#; s# kernel/fork\.o\( \|\$\)# $2\1#g"; }
if [ ! -f "$kdir/.done" ] || ! grep -q 'fmacro-prefix-map=../src/=' "$kdir/build/kernel/.fork.o.cmd" 2>/dev/null; then
	t_skip "kernel objects with and without ccache (5 tests)" "no kernel built by this tree's build-kernel.sh (make kernel)"
else
	k=$T_TMP/k
	compile_as "$kdir/build" "$(kcmd "$kdir" "$k-plain.o")" "$k-plain.o" plain
	t_ok "kernel: kernel/fork.o compiled again without ccache equals the cached build's" same "$k-plain.o" "$kdir/build/kernel/fork.o"
	compile_as "$kdir/build" "$(kcmd "$kdir" "$k-miss.o")" "$k-miss.o" ccache
	t_ok "kernel: through ccache (a miss), the same object" same "$k-miss.o" "$k-plain.o"
	compile_as "$kdir/build" "$(kcmd "$kdir" "$k-hit.o")" "$k-hit.o" ccache
	t_ok "kernel: through ccache again (a hit), the same object" sh -c "[ \"\$($(declare -f hits); hits)\" = 1 ] && cmp '$k-hit.o' '$k-plain.o'"
	ndir=$("$T_ROOT/scripts/build-kernel.sh" --variant nofix --path)
	if [ -f "$ndir/.done" ] && grep -q 'fmacro-prefix-map=../src/=' "$ndir/build/kernel/.fork.o.cmd" 2>/dev/null; then
		compile_as "$ndir/build" "$(kcmd "$ndir" "$k-nofix.o")" "$k-nofix.o" ccache
		t_ok "kernel: in another cache entry (nofix), a hit, the same object" sh -c "[ \"\$($(declare -f hits); hits)\" = 2 ] && cmp '$k-nofix.o' '$k-plain.o'"
	else
		t_skip "kernel: in another cache entry (nofix)" "no nofix kernel built by this tree's build-kernel.sh"
	fi
	# Without the build script's map, ccache's relative paths show.
	compile_as "$kdir/build" "$(kcmd "$kdir" "$k-nomap.o" | sed 's# -fmacro-prefix-map=../src/=##')" "$k-nomap.o" ccache
	t_ok "kernel: without the map of ../src/, a ccache object names ../src/ (the map is what makes them equal)" \
		sh -c "! cmp -s '$k-nomap.o' '$k-plain.o' && strings '$k-nomap.o' | grep -q '^\.\./src/include/'"
fi

# QEMU: an object's command from compile_commands.json (-g), its output
# and dependency file sent to $T_TMP.
qdir=$(dirname "$(dirname "$("$T_ROOT/scripts/build-qemu.sh" --path)")")
qobj=libqemuutil.a.p/util_cutils.c.o
qcmd() { jq -r --arg o "$qobj" '.[] | select(.output == $o) | .command' "$qdir/build/compile_commands.json" | sed "s#$qobj#$1#g"; }
if [ ! -f "$qdir/.done" ] || ! grep -q 'fdebug-prefix-map' "$qdir/build/compile_commands.json" 2>/dev/null; then
	t_skip "QEMU objects with and without ccache (4 tests)" "no QEMU built by this tree's build-qemu.sh (make qemu)"
else
	q=$T_TMP/q
	compile_as "$qdir/build" "$(qcmd "$q-plain.o")" "$q-plain.o" plain
	t_ok "QEMU: $qobj compiled again without ccache equals the cached build's" same "$q-plain.o" "$qdir/build/$qobj"
	compile_as "$qdir/build" "$(qcmd "$q-miss.o")" "$q-miss.o" ccache
	t_ok "QEMU: through ccache (a miss), the same object (debug information too)" same "$q-miss.o" "$q-plain.o"
	before=$(hits)
	compile_as "$qdir/build" "$(qcmd "$q-hit.o")" "$q-hit.o" ccache
	t_ok "QEMU: through ccache again (a hit), the same object" sh -c "[ \"\$($(declare -f hits); hits)\" = $((before + 1)) ] && cmp '$q-hit.o' '$q-plain.o'"
	# Without the build script's maps, ccache's relative paths show.
	nomap() { qcmd "$1" | sed 's# -f[a-z]*-prefix-map=[^ ]*##g'; }
	compile_as "$qdir/build" "$(nomap "$q-nomap-plain.o")" "$q-nomap-plain.o" plain
	compile_as "$qdir/build" "$(nomap "$q-nomap.o")" "$q-nomap.o" ccache
	t_ok "QEMU: without the maps, a ccache object's debug information names ../src/ where the plain one has the cache entry" \
		sh -c "! cmp -s '$q-nomap.o' '$q-nomap-plain.o' && strings -a '$q-nomap.o' | grep -q '^\.\./src/include' &&
		strings -a '$q-nomap-plain.o' | grep -q '^$qdir/src/include'"
fi
