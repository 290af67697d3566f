#!/bin/sh
# Jupyter in a sandbox: the first call of a session (which starts its
# kernel) and the warm print(1) round trip, medians, next to `run -- true`,
# the cost of any call. Target: warm round trip under 20 ms beyond it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-20}
FIRST_N=${BENCH_FIRST_N:-5}
bench_home

"$ALLOX_CLI" sandbox create >/dev/null || exit 1

time_n "$N" "$work/run" "$ALLOX_CLI" run -- true || exit 1

# Each first call in a new session starts a kernel.
: > "$work/first"
i=0
while [ "$i" -lt "$FIRST_N" ]; do
	t0=$(now_ns)
	"$ALLOX_CLI" aio jupyter run --session "first-$i" -c 'print(1)' >/dev/null || { echo "bench: first call failed" >&2; exit 1; }
	t1=$(now_ns)
	echo "scale=3; ($t1 - $t0) / 1000000" | bc >> "$work/first"
	i=$((i + 1))
done

"$ALLOX_CLI" aio jupyter run -c 'print(1)' >/dev/null || exit 1
time_n "$N" "$work/warm" "$ALLOX_CLI" aio jupyter run -c 'print(1)' || exit 1

run_ms=$(median "$work/run")
first=$(median "$work/first")
warm=$(median "$work/warm")
beyond=$(echo "scale=3; $warm - $run_ms" | bc)

echo "allox-cli Jupyter benchmark (medians: $N warm calls, $FIRST_N kernel starts; $(nproc) cores, $(uname -r))"
row "benchmark" "median" "run -- true" "beyond" "target"
row "run -- true" "${run_ms} ms" "" "" ""
row "jupyter first call (kernel start)" "${first} ms" "" "" ""
row "jupyter warm print(1)" "${warm} ms" "${run_ms} ms" "${beyond} ms" "< 20 ms beyond"
