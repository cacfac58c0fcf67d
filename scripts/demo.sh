#!/bin/sh
# make demo: start the leaky demo service, trace it for a few seconds, show the flamegraph file.
set -eu
cd "$(dirname "$0")/.."

build/demo >/dev/null &
demo_pid=$!
trap 'kill $demo_pid 2>/dev/null || true' EXIT INT TERM
sleep 1

echo "\$ sudo ./tracelloc -p $demo_pid --duration 4 --interval 2 --top 2 --flamegraph demo.fg --svg demo.svg"
./tracelloc -p "$demo_pid" --duration 4 --interval 2 --top 2 --flamegraph demo.fg --svg demo.svg
echo
echo "\$ cat demo.fg"
cat demo.fg
echo
echo "demo.svg: open it in a browser"
