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

rss_kib() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

row() {
	printf '%-34s %12s %12s %9s   %s\n' "$@"
}
