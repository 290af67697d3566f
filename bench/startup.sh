#!/bin/bash
# Start-up: `allox-cli --version` next to /bin/true (the cost of any process)
# and Debian's Python importing click, rich and httpx (the start-up floor of
# the original Python tool). Target: at most 1/20 of the Python floor.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-10}
work=$(mktemp -d /tmp/allox-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
export ALLOX_HOME="$work/home"

/usr/bin/python3 -c 'import click, rich, httpx' ||
	{ echo "bench: python3-click, python3-rich and python3-httpx are needed (bootstrap installs them)" >&2; exit 1; }
"$ALLOX_CLI" --version >/dev/null || exit 1   # warm the page cache
time_n "$N" "$work/true" /bin/true || exit 1
time_n "$N" "$work/version" "$ALLOX_CLI" --version || exit 1
time_n "$N" "$work/python" /usr/bin/python3 -c 'import click, rich, httpx' || exit 1
# What the dynamic loader costs: --version with every library bound at start-up.
time_n "$N" "$work/now" env LD_BIND_NOW=1 "$ALLOX_CLI" --version || exit 1

bench_row "/bin/true" ms "$work/true"
bench_row "python3 -c 'import click, rich, httpx'" ms "$work/python"
bench_row "allox-cli --version vs /bin/true" ms "$work/version" "/bin/true" "$work/true"
bench_row "allox-cli --version vs Python floor" ms "$work/version" "python3 import click, rich, httpx" "$work/python" "ratio<=0.05"
bench_row "allox-cli --version, LD_BIND_NOW=1" ms "$work/now" "allox-cli --version" "$work/version"
bench_value "allox-cli shared libraries (ldd)" libs "$(ldd "$ALLOX_CLI" | wc -l)"
