#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report.html in a real browser (Debian's chromium, headless): a report of a
# synthetic run (tests/fake-run.sh, no guest) loads every image it shows
# (naturalWidth > 0), opens with the Decision (the first section, its
# paragraph on the first screen of a 1366x900 window) and styles its
# tables. A small script appended to a copy of the page writes what it
# found into the DOM, which chromium --dump-dom prints. A copy with one
# plot removed shows that a broken image is caught. Skipped when chromium
# is not installed (scripts/deps.sh installs it).
. "$(dirname "$0")/lib.sh"
if ! command -v chromium >/dev/null; then
	t_skip "report.html in headless Chromium" "chromium is not installed (make deps)"
	exit 0
fi
"$T_ROOT/tests/fake-run.sh" "$T_TMP/run" baseline:100:10:6:none aligned:100:10:6:completed \
	split-off:100:60:6:completed split-on:100:10:6:sigbus:0 aligned-on:100:10:6:completed >/dev/null
t_ok "the report of a synthetic run is made" sh -c "'$T_ROOT/bench/report/report.sh' '$T_TMP/run' >/dev/null 2>'$T_TMP/report.err'"

# browse RUN: RUN/check.html (report.html and the probe) through chromium;
# the probe's line on stdout: "images N broken N [srcs] h2 TEXT top PX
# height PX zebra COLOUR".
browse() {
	local ud
	ud=$(mktemp -d "$T_TMP/chromium.XXXXXX")
	sed 's|</body></html>||' "$1/report.html" >"$1/check.html"
	cat >>"$1/check.html" <<'EOF'
<script>
window.addEventListener('load', function () {
	var imgs = Array.prototype.slice.call(document.images);
	var bad = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
		.map(function (i) { return i.getAttribute('src'); });
	var h = document.querySelector('h2'), p = h ? h.nextElementSibling : null;
	var row = document.querySelector('tbody tr:nth-child(2)');
	var out = document.createElement('pre');
	out.id = 'slb-check';
	out.textContent = 'images ' + imgs.length + ' broken ' + bad.length + ' [' + bad.join(' ') + ']' +
		' h2 ' + (h ? h.textContent : '-') + ' top ' + (p ? Math.round(p.getBoundingClientRect().top) : -1) +
		' height ' + window.innerHeight +
		' zebra ' + (row ? getComputedStyle(row).backgroundColor.replace(/ /g, '') : '-');
	document.body.appendChild(out);
});
</script>
</body></html>
EOF
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$ud" \
		--window-size=1366,900 --virtual-time-budget=5000 --dump-dom "file://$1/check.html" 2>"$T_TMP/chromium.err" |
		sed -n 's|.*<pre id="slb-check">\(.*\)</pre>.*|\1|p'
}
browse "$T_TMP/run" >"$T_TMP/probe"
t_ok "chromium rendered the page and ran the probe" grep -q '^images ' "$T_TMP/probe"
t_ok "every <img> loaded (naturalWidth > 0), the summary plot among them" \
	sh -c "grep -q '^images [1-9][0-9]* broken 0 \[\]' '$T_TMP/probe' && grep -q '<img src=\"plots/summary.png\"' '$T_TMP/run/report.html'"
decision_first() {
	local top height
	read -r top height < <(sed -n 's/.* h2 Decision top \([0-9]*\) height \([0-9]*\) .*/\1 \2/p' "$T_TMP/probe")
	[ -n "$top" ] && [ "$top" -lt "$height" ] || { cat "$T_TMP/probe"; return 1; }
}
t_ok "the Decision is the first section, its paragraph on the first screen" decision_first
t_ok "the tables have zebra rows (the report's stylesheet)" sh -c "! grep -q 'zebra rgba(0,0,0,0)' '$T_TMP/probe' && grep -q 'zebra rgb(' '$T_TMP/probe'"
# The probe catches a broken image.
cp -r "$T_TMP/run" "$T_TMP/broken"
rm "$T_TMP/broken/plots/overlay.png"
browse "$T_TMP/broken" >"$T_TMP/probe.broken"
t_ok "... and a missing plot is caught as a broken image" grep -q 'broken 1 \[plots/overlay.png\]' "$T_TMP/probe.broken"
