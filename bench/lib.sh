# Shared helpers for benchmarks: timing in nanoseconds, medians, a result table.
now_ns() {
	date +%s%N
}

# median FILE: the median of the numbers in FILE, one per line.
median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# time_n N FILE CMD...: run CMD N times, append each duration (ms) to FILE.
time_n() {
	n=$1 file=$2
	shift 2
	: > "$file"
	i=0
	while [ "$i" -lt "$n" ]; do
		t0=$(now_ns)
		"$@" >/dev/null 2>&1 || { echo "bench: command failed: $*" >&2; return 1; }
		t1=$(now_ns)
		echo "scale=3; ($t1 - $t0) / 1000000" | bc >> "$file"
		i=$((i + 1))
	done
}

# bench_home: a private ALLOX_HOME with a work directory ($work) and a
# trap that kills its current sandbox, stops its engine and removes it.
bench_home() {
	ALLOX_HOME="$(mktemp -d /tmp/allox-bench.XXXXXX)"
	export ALLOX_HOME
	work="$ALLOX_HOME/work"
	mkdir -p "$work"
	trap '"$ALLOX_CLI" sandbox kill >/dev/null 2>&1; kill "$(cat "$ALLOX_HOME/run/engine.pid" 2>/dev/null)" 2>/dev/null; rm -rf "$ALLOX_HOME"' EXIT
}

rss_kib() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

row() {
	printf '%-34s %12s %12s %9s   %s\n' "$@"
}
