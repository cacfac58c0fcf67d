#!/bin/sh
# scripts/manpage.sh TRACELLOC > tracelloc.8: the man page, made from the
# binary's own --help, so the two never disagree. The sections --help does
# not have (exit status, examples, safety) are written here.
set -eu
bin=${1:-./tracelloc}
version=$("$bin" --version | head -1 | awk '{ print $2 }')

cat <<HEAD
.TH TRACELLOC 8 "" "tracelloc $version" "System Administration"
.SH NAME
tracelloc \\- which call stacks of a process hold heap memory that was never freed
HEAD

# --help: the usage lines, a paragraph, then option lines ("  -x, --long ARG   text")
# and their continuations (text indented to the text column), and headings
"$bin" --help | awk '
function esc(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); sub(/^\./, "\\\\\\&.", s); sub(/^'"'"'/, "\\\\\\&'"'"'", s); return s }
NR == 1 || /^       tracelloc / {
	if (NR == 1) print ".SH SYNOPSIS"
	sub(/^Usage: +/, ""); sub(/^ +/, "")
	print ".B " esc($0); print ".br"; next
}
!desc && /^$/ { desc = 1; print ".SH DESCRIPTION"; next }
desc == 1 && /^[^ ]/ { print esc($0); next }
desc == 1 && /^$/ { desc = 2; print ".SH OPTIONS"; next }
desc == 2 && /^  +-/ && !(match($0, /^ +/) && RLENGTH >= 20) {
	line = $0; sub(/^ +/, "", line)
	# the option and its argument, then the text after two spaces or more
	if (match(line, /  +/)) { opt = substr(line, 1, RSTART - 1); text = substr(line, RSTART + RLENGTH) }
	else { opt = line; text = "" }
	print ".TP"; print ".B " esc(opt); if (text != "") print esc(text); next
}
desc == 2 && match($0, /^ +/) && RLENGTH >= 20 { line = $0; sub(/^ +/, "", line); print esc(line); next }
desc == 2 && /^[^ ]/ { print ".PP"; print ".B " esc($0); next }
desc == 2 && /^$/ { next }
'

cat <<'TAIL'
.SH EXIT STATUS
0 when the trace ran and every output was written; 1 when tracing could not
start (no such process, no permission, a kernel without what is needed, a
process with no allocator tracelloc knows) or an output could not be written;
2 for bad options. Each failure is one line on standard error.
.SH EXAMPLES
.nf
tracelloc \-p $(pidof app)
tracelloc \-\-follow\-forks \-\- ./server
tracelloc \-p 1234 \-\-sort growth \-\-snapshot\-every 60 /var/tmp/heap
tracelloc \-p 1234 \-\-pprof heap.pb.gz \-d 30
.fi
.SH SAFETY
The kernel puts breakpoints into the traced process's own copy of the
allocator's code; nothing else of it changes, and the breakpoints go when
tracelloc exits, however it exits. A command tracelloc started is stopped for
a moment at each exec; with \-\-follow\-forks each new child is, until its
probes are attached.
.SH SEE ALSO
.BR heaptrack (1),
.BR valgrind (1),
.BR bpftool (8)
TAIL
