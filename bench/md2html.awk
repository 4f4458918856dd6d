# SPDX-License-Identifier: GPL-2.0-or-later
# The small Markdown subset that bench/report.sh writes, as one HTML page:
# headings, paragraphs, "- " lists, pipe tables, images, links, `code` and
# **bold**. Not a general Markdown converter.
function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
function inline(s,   out) {
	s = esc(s)
	while (match(s, /!\[[^]]*\]\([^)]*\)/)) {
		out = substr(s, RSTART, RLENGTH); sub(/^!\[/, "", out)
		split(out, p, /\]\(/); sub(/\)$/, "", p[2])
		s = substr(s, 1, RSTART - 1) "<img alt=\"" p[1] "\" src=\"" p[2] "\">" substr(s, RSTART + RLENGTH)
	}
	while (match(s, /\[[^]]*\]\([^)]*\)/)) {
		out = substr(s, RSTART, RLENGTH); sub(/^\[/, "", out)
		split(out, p, /\]\(/); sub(/\)$/, "", p[2])
		s = substr(s, 1, RSTART - 1) "<a href=\"" p[2] "\">" p[1] "</a>" substr(s, RSTART + RLENGTH)
	}
	while (match(s, /`[^`]*`/)) s = substr(s, 1, RSTART - 1) "<code>" substr(s, RSTART + 1, RLENGTH - 2) "</code>" substr(s, RSTART + RLENGTH)
	while (match(s, /\*\*[^*]*\*\*/)) s = substr(s, 1, RSTART - 1) "<b>" substr(s, RSTART + 2, RLENGTH - 4) "</b>" substr(s, RSTART + RLENGTH)
	return s
}
function close_blocks() {
	if (inlist) print "</ul>"; if (intable) print "</table>"; if (inpara) print "</p>"
	inlist = intable = inpara = 0
}
BEGIN {
	print "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>split-lock study report</title>"
	print "<style>body{font-family:sans-serif;max-width:75em;margin:auto}table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 6px}img{max-width:32%}</style></head><body>"
}
/^#+ / { close_blocks(); n = index($0, " ") - 1; print "<h" n ">" inline(substr($0, n + 2)) "</h" n ">"; next }
/^\| *---/ { next }
/^\|/ {
	if (!intable) { close_blocks(); print "<table>"; intable = 1; tag = "th" } else tag = "td"
	line = $0; sub(/^\| */, "", line); sub(/ *\|$/, "", line); k = split(line, cells, / *\| */)
	printf "<tr>"; for (i = 1; i <= k; i++) printf "<%s>%s</%s>", tag, inline(cells[i]), tag; print "</tr>"
	next
}
/^- / { if (!inlist) { close_blocks(); print "<ul>"; inlist = 1 } print "<li>" inline(substr($0, 3)) "</li>"; next }
/^$/ { close_blocks(); next }
{ if (!inpara) { close_blocks(); print "<p>"; inpara = 1 } print inline($0) }
END { close_blocks(); print "</body></html>" }
