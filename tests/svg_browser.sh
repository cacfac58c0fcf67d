#!/bin/bash
# The SVG flamegraph in a real browser: headless Chromium opens what
# `tracelloc --svg` wrote for the demo service, runs its script, zooms and
# searches through URL parameters (file.svg?z=REGEX, ?s=REGEX), and takes a
# screenshot.
#
#	tests/svg_browser.sh [FILE.svg]
#
# Builds nothing: run `make all build/demo` first. It attaches to the demo for
# 3 s (root), unless given an SVG to check instead; then the checks that need
# the demo's frames run only if it is the demo's. Installs Debian's chromium
# (and xmllint) when missing.
# TRACELLOC=... runs another binary; SVG_KEEP=DIR keeps the SVG, the DOMs and
# the screenshot in DIR. Ends with "svg_browser: N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 2

TL=${TRACELLOC:-./tracelloc}
DEMO=build/demo
WIDTH=1200			# what svg.c draws
AVAIL=1180.00			# the frames' width: WIDTH less the padding
HIGHLIGHT='rgb(230,0,230)'	# a frame matched by a search
TIMEOUT=90			# seconds for one browser run

passed=0
failed=0
demo_pid=
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tracelloc-svg.XXXXXX") || exit 2
chmod 755 "$WORK"
trap '[ -n "$demo_pid" ] && kill "$demo_pid" 2>/dev/null; rm -rf "$WORK"' EXIT

ok() {
	echo "ok   $1"
	passed=$((passed + 1))
}

not_ok() {
	echo "FAIL $1: $2"
	failed=$((failed + 1))
}

finish() {
	if [ -n "${SVG_KEEP:-}" ]; then
		mkdir -p "$SVG_KEEP" && cp "$WORK"/*.svg "$WORK"/*.html "$WORK"/*.png "$SVG_KEEP"/ 2>/dev/null
		echo "kept in $SVG_KEEP"
	fi
	echo "svg_browser: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

# Debian packages, installed only when a command is missing
need() {
	local cmd=$1 pkg=$2

	command -v "$cmd" >/dev/null 2>&1 && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "svg_browser: $cmd missing: install $pkg (as root)" >&2
		return 1
	fi
	echo "svg_browser: installing $pkg"
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get install -y -qq --no-install-recommends "$pkg" fonts-dejavu-core ||
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "$pkg" fonts-dejavu-core; }
	} >"$WORK/apt.log" 2>&1 || { tail -5 "$WORK/apt.log" >&2; return 1; }
	command -v "$cmd" >/dev/null 2>&1
}

# chromium URL-ARGS... : headless, no network, a profile of its own
browser() {
	local profile

	profile=$(mktemp -d "$WORK/profile.XXXXXX")
	timeout "$TIMEOUT" chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$profile" "$@" 2>>"$WORK/chromium.log"
}

# dom NAME QUERY: the DOM after the script ran on FILE?QUERY, one frame a line
dom() {
	browser --dump-dom "file://$SVG$2" >"$WORK/$1.raw.html" || return 1
	# a frame's title holds a line break: join, then break before each frame
	tr '\n' ' ' <"$WORK/$1.raw.html" | sed 's/<g class="f/\n&/g' >"$WORK/$1.html"
	[ -s "$WORK/$1.html" ]
}

# root_attr NAME ATTR: an attribute of the <svg> element in a DOM
root_attr() {
	grep -m1 -o "<svg [^>]*>" "$WORK/$1.html" | grep -o " $2=\"[^\"]*\"" | cut -d'"' -f2
}

# frame_line NAME FRAME: the line of the first frame named FRAME
frame_line() {
	grep -m1 -F "<title>$2 " "$WORK/$1.html"
}

# --------------------------------------------------------- the SVG itself

if ! need chromium chromium; then
	not_ok "chromium" "not installed and cannot be installed"
	finish
fi
need xmllint libxml2-utils || echo "svg_browser: no xmllint: well-formedness unchecked"

if [ $# -ge 1 ]; then
	SVG=$(realpath "$1")
	# the demo's, traced as below (an SVG that SVG_KEEP kept)?
	DEMO_FRAMES=false
	grep -q '<title>read_request' "$SVG" && grep -q '<title>calloc' "$SVG" &&
		DEMO_FRAMES=true
else
	SVG=$WORK/demo.svg
	DEMO_FRAMES=true
	if ! "$TL" --help 2>/dev/null | grep -q -- '--svg'; then
		not_ok "tracelloc --svg" "$TL has no --svg option"
		finish
	fi
	if [ ! -x "$DEMO" ]; then
		not_ok "demo" "$DEMO missing: run make $DEMO"
		finish
	fi
	# attached to the running service, as a user would; allocated bytes, so
	# that read_request and open_session both show, for zoom to hide one;
	# allocator frames, for a callee narrower than its caller
	"$DEMO" >/dev/null &
	demo_pid=$!
	sleep 0.5
	if timeout 60 "$TL" -p "$demo_pid" -d 3 -m allocated --allocator-frame --svg "$SVG" \
		>"$WORK/trace.log" 2>&1 &&
		[ -s "$SVG" ]; then
		ok "tracelloc --svg wrote $(wc -c <"$SVG") bytes"
	else
		not_ok "tracelloc --svg" "no SVG; its output: $(tail -3 "$WORK/trace.log" | tr '\n' ' ')"
		finish
	fi
	kill "$demo_pid" 2>/dev/null
	wait "$demo_pid" 2>/dev/null
	demo_pid=
fi

if ! head -c 100 "$SVG" | grep -q '^<?xml version="1.0"'; then
	not_ok "XML" "no XML declaration"
elif command -v xmllint >/dev/null 2>&1 && ! xmllint --noout "$SVG" 2>"$WORK/xmllint.log"; then
	not_ok "XML" "xmllint: $(head -2 "$WORK/xmllint.log" | tr '\n' ' ')"
else
	ok "well-formed XML"
fi

# the namespace is a name, not a resource; nothing else may point outside
if grep -qE 'href|url\(|@import| src=' "$SVG" ||
	[ "$(grep -o 'http' "$SVG" | wc -l)" -ne 1 ]; then
	not_ok "self-contained" "refers to something outside: $(grep -oE '.{20}(href|url\(|@import| src=|http).{20}' "$SVG" | head -3)"
else
	ok "self-contained: no external resources"
fi

# ---------------------------------------------------------- in the browser

frames_in_file=$(grep -c '<g class="f"' "$SVG")
if ! dom plain ""; then
	not_ok "load" "chromium could not dump the page: $(tail -2 "$WORK/chromium.log")"
	finish
fi
ready=$(root_attr plain data-ready)
frames=$(root_attr plain data-frames)
error=$(root_attr plain data-error)
if [ "$ready" != 1 ]; then
	not_ok "load" "the script did not run to its end (data-ready '$ready', error '$error')"
elif [ "$frames" != "$frames_in_file" ] || [ "${frames:-0}" -lt 1 ]; then
	not_ok "load" "the script saw $frames frames, the file has $frames_in_file"
else
	ok "loads; its script ran and found $frames frames"
fi

if $DEMO_FRAMES; then
	missing=""
	for f in main handle_request read_request open_session malloc calloc; do
		frame_line plain "$f" >/dev/null || missing="$missing $f"
	done
	if [ -n "$missing" ]; then
		not_ok "demo frames" "missing:$missing"
	else
		ok "the demo's functions are frames"
	fi
fi

# zoom_check FRAME CALLER OTHER: zoomed into FRAME, it and its CALLER span the
# width, the root is dimmed as a caller, OTHER (off FRAME's path) is hidden
zoom_check() {
	local frame=$1 caller=$2 other=$3 name=zoom_$1 width caller_width root

	if ! dom "$name" "?z=^${frame}\$"; then
		not_ok "zoom" "no page"
		return
	fi
	width=$(frame_line "$name" "$frame" | grep -o '<rect [^>]*' | grep -o ' width="[^"]*"' | cut -d'"' -f2)
	caller_width=$(frame_line "$name" "$caller" | grep -o '<rect [^>]*' | grep -o ' width="[^"]*"' |
		cut -d'"' -f2)
	root=$(frame_line "$name" all)
	if [ "$(root_attr "$name" data-zoom)" != "$frame" ]; then
		not_ok "zoom" "data-zoom is '$(root_attr "$name" data-zoom)', want '$frame'"
	elif [ "$width" != "$AVAIL" ]; then
		not_ok "zoom" "$frame is $width px wide, want $AVAIL"
	elif [ "$caller_width" != "$AVAIL" ]; then
		not_ok "zoom" "its caller $caller is $caller_width px wide, want $AVAIL"
	elif ! grep -q '^<g class="f p"' <<<"$root"; then
		not_ok "zoom" "the root is not shown as a caller: ${root:0:80}"
	elif ! grep -q '^<g class="f h"' <<<"$(frame_line "$name" "$other")"; then
		not_ok "zoom" "$other is still shown"
	else
		ok "zoom into $frame: full width, callers dimmed, $(root_attr "$name" data-hidden) frames hidden"
	fi
}

if $DEMO_FRAMES; then
	zoom_check read_request handle_request open_session
	# calloc, under open_session (11% of the width) only: the caller widens
	zoom_check calloc open_session read_request
fi

# search: one function, everything, nothing
search_for=read_request
if ! $DEMO_FRAMES; then
	:
elif dom search "?s=^${search_for}\$"; then
	matched=$(root_attr search data-matched)
	pct=$(root_attr search data-matched-pct)
	highlighted=$(grep -c "fill=\"$HIGHLIGHT\"" "$WORK/search.html")
	if [ "$matched" != 1 ] || [ "$highlighted" != 1 ]; then
		not_ok "search" "^$search_for\$: $matched matched, $highlighted highlighted, want 1"
	elif ! awk -v p="$pct" 'BEGIN { exit !(p > 0 && p <= 100) }'; then
		not_ok "search" "share $pct%"
	elif ! grep -q "Matched: $pct%" "$WORK/search.html"; then
		not_ok "search" "the page does not say 'Matched: $pct%'"
	else
		ok "search ^$search_for\$: 1 frame, $pct%"
	fi
else
	not_ok "search" "no page"
fi
if dom search_all "?s=." && dom search_none "?s=no_such_function_xyz"; then
	all=$(root_attr search_all data-matched)
	all_pct=$(root_attr search_all data-matched-pct)
	none=$(root_attr search_none data-matched)
	if [ "$all" != $((frames - 1)) ] || [ "$all_pct" != "100.00" ]; then
		not_ok "search" "'.' matched $all frames ($all_pct%), want $((frames - 1)) (100.00%)"
	elif [ "$none" != 0 ]; then
		not_ok "search" "no_such_function_xyz matched $none frames"
	else
		ok "search '.': every frame but the root, 100%; a name absent: none"
	fi
else
	not_ok "search" "no page"
fi

# a screenshot: a page with frames is far from blank (a white one is ~4 KiB)
if browser --screenshot="$WORK/screenshot.png" --window-size=$WIDTH,700 "file://$SVG" >/dev/null &&
	[ -s "$WORK/screenshot.png" ]; then
	size=$(wc -c <"$WORK/screenshot.png")
	if [ "$size" -lt 12000 ]; then
		not_ok "screenshot" "only $size bytes: blank?"
	else
		ok "screenshot: $size bytes"
	fi
else
	not_ok "screenshot" "none taken: $(tail -2 "$WORK/chromium.log")"
fi

# --------------------------------------------------------- the timeline (--timeline)

# tests/targets/phases: a leak, a cache, a 1 MB burst freed 100 ms later,
# churn; the burst is the band that held most, so the first
TIMELINE=$WORK/timeline.html
PHASES=build/tests/phases
if [ $# -ge 1 ]; then
	: # an SVG given: no tracing
elif [ ! -x "$PHASES" ]; then
	not_ok "timeline" "$PHASES missing: run make targets"
elif timeout 60 "$TL" -i 0.1 -t 0 --timeline "$TIMELINE" -- "$PHASES" >"$WORK/timeline.log" 2>&1 &&
	[ -s "$TIMELINE" ]; then
	ok "tracelloc --timeline wrote $(wc -c <"$TIMELINE") bytes"
	if browser --dump-dom "file://$TIMELINE?band=0" >"$WORK/timeline.dom.html" &&
		tr '\n' ' ' <"$WORK/timeline.dom.html" | grep -q '<pre id="stack">site_burst'; then
		ok "timeline: band 0 is the burst, its stack shown (?band=0)"
	else
		not_ok "timeline" "band 0's stack not shown: $(grep -o '<pre id="stack">[^<]*' "$WORK/timeline.dom.html" | head -c 200)"
	fi
	bands=$(grep -c '<path class="band"' "$TIMELINE")
	legend=$(grep -o '<li [^>]*>[^<]*' "$TIMELINE" | sed 's/.*>//' | tr '\n' ',')
	if [ "$bands" -ge 4 ] && [[ $legend == site_burst,site_cache,site_leak,* ]] &&
		grep -q '<polyline id="rss"' "$TIMELINE"; then
		ok "timeline: $bands bands (burst, cache, leak first), the RSS line"
	else
		not_ok "timeline" "$bands bands, legend $legend"
	fi
	points=$(grep -o '^var T=\[[^]]*' "$TIMELINE" | tr ',' '\n' | wc -l)
	if [ "$points" -ge 30 ]; then
		ok "timeline: $points points, one per 0.1 s interval"
	else
		not_ok "timeline" "only $points points over 3.5 s at -i 0.1"
	fi
	if browser --screenshot="$WORK/timeline.png" --window-size=1140,760 "file://$TIMELINE" >/dev/null &&
		[ "$(wc -c <"$WORK/timeline.png")" -gt 12000 ]; then
		ok "timeline: screenshot, $(wc -c <"$WORK/timeline.png") bytes"
	else
		not_ok "timeline" "no screenshot, or a blank one"
	fi
else
	not_ok "tracelloc --timeline" "no file; its output: $(tail -3 "$WORK/timeline.log" | tr '\n' ' ')"
fi

finish
