#!/bin/bash
# Start-up: `allox-cli --version` next to /bin/true (the cost of any process)
# and Debian's Python importing click, rich and httpx (the start-up floor of
# the original Python tool). Target: at most 1/20 of the Python floor.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-10}
work=$(mktemp -d /tmp/allox-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
export ALLOX_HOME="$work/home"

/usr/bin/python3 -c 'import click, rich, httpx' ||
	{ echo "bench: python3-click, python3-rich and python3-httpx are needed (bootstrap installs them)" >&2; exit 1; }
"$ALLOX_CLI" --version >/dev/null || exit 1   # warm the page cache
version() { "$ALLOX_CLI" --version; }
python_floor() { /usr/bin/python3 -c 'import click, rich, httpx'; }
set -- "$work/true" /bin/true "$work/version" version "$work/python" python_floor

# What loading shared libraries costs before main: an empty main linked
# with nothing but libc, with libcurl alone, with every library allox-cli
# still loads (its NEEDED entries), and with the shared builds of the six
# that configure links statically (--disable-static-deps); skipped without a
# C compiler or those libraries.
loader=""
echo 'int main(void) { return 0; }' >"$work/empty.c"
needed=$(readelf -d "$ALLOX_CLI" | awk '/NEEDED/ { gsub(/[][]/, "", $5); printf " -l:%s", $5 }')
static_deps="-ljansson -lyaml -lhttp_parser -lncursesw -ltinfo -lreadline"
if ${CC:-cc} -O2 -o "$work/empty_libc" "$work/empty.c" 2>/dev/null &&
	${CC:-cc} -O2 -o "$work/empty_curl" "$work/empty.c" -Wl,--no-as-needed -lcurl 2>/dev/null &&
	${CC:-cc} -O2 -o "$work/empty_all" "$work/empty.c" -Wl,--no-as-needed $needed 2>/dev/null &&
	${CC:-cc} -O2 -o "$work/empty_shared" "$work/empty.c" -Wl,--no-as-needed $needed $static_deps 2>/dev/null; then
	loader=yes
	set -- "$@" "$work/libc" "$work/empty_libc" "$work/curl" "$work/empty_curl" "$work/all" "$work/empty_all" \
		"$work/shared" "$work/empty_shared"
fi
time_alt "$N" "$@" || exit 1

bench_row "/bin/true" ms "$work/true"
bench_row "python3 -c 'import click, rich, httpx'" ms "$work/python"
bench_row "allox-cli --version vs /bin/true" ms "$work/version" "/bin/true" "$work/true"
bench_row "allox-cli --version vs Python floor" ms "$work/version" "python3 import click, rich, httpx" "$work/python" "ratio<=0.05"
if [ -n "$loader" ]; then
	bench_row "empty C main, libc only" ms "$work/libc"
	bench_row "empty C main + libcurl" ms "$work/curl" "empty main, libc only" "$work/libc"
	bench_row "empty C main + allox-cli's $(echo "$needed" | wc -w) shared libraries" ms "$work/all" "allox-cli --version" "$work/version"
	bench_row "empty C main + those + 6 shared (jansson ... readline)" ms "$work/shared" "allox-cli --version" "$work/version"
fi
bench_value "allox-cli shared libraries (ldd)" libs "$(ldd "$ALLOX_CLI" | wc -l)"
[ -n "$loader" ] && bench_value "empty C main + libcurl: shared libraries (ldd)" libs "$(ldd "$work/empty_curl" | wc -l)"
exit 0
