# Shared helpers for benchmarks (bash, sourced): timing from $EPOCHREALTIME
# (no fork per stamp, so start-up figures of a few ms are not swamped by the
# clock), and result rows for the harness. Each benchmark records a figure's
# samples, one per line, in a file and hands the file to bench_row; bench/run.sh
# collects the rows of every benchmark and prints one table.

# The decimal point of $EPOCHREALTIME follows the locale.
export LC_ALL=C

# ms_between T0 T1: milliseconds between two $EPOCHREALTIME stamps.
ms_between() {
	local d=$((10#${2/./} - 10#${1/./}))
	printf '%d.%03d\n' $((d / 1000)) $((d % 1000))
}

# time_n N FILE CMD...: run CMD N times, write each duration (ms) to FILE.
time_n() {
	local n=$1 file=$2 i t0 t1
	shift 2
	: >"$file"
	for ((i = 0; i < n; i++)); do
		t0=$EPOCHREALTIME
		"$@" >/dev/null 2>&1 || { echo "bench: command failed: $*" >&2; return 1; }
		t1=$EPOCHREALTIME
		ms_between "$t0" "$t1" >>"$file"
	done
}

# time_alt N FILE1 CMD1 [FILE2 CMD2 ...]: like time_n for several commands
# (each one word: a function or a program), taking their samples in turn, so
# a burst of load from elsewhere on the shared machine hits a figure and its
# floor alike instead of one block of samples.
time_alt() {
	local n=$1 i j t0 t1
	shift
	local -a pairs=("$@")
	for ((j = 0; j < ${#pairs[@]}; j += 2)); do : >"${pairs[j]}"; done
	for ((i = 0; i < n; i++)); do
		for ((j = 0; j < ${#pairs[@]}; j += 2)); do
			t0=$EPOCHREALTIME
			"${pairs[j + 1]}" >/dev/null 2>&1 || { echo "bench: command failed: ${pairs[j + 1]}" >&2; return 1; }
			t1=$EPOCHREALTIME
			ms_between "$t0" "$t1" >>"${pairs[j]}"
		done
	done
}

# median FILE: the median of the numbers in FILE, one per line.
median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

work=""   # set by bench_home
# bench_home: a private ALLOX_HOME with a work directory ($work) and a
# trap that kills its sandboxes, stops its engine and removes it.
bench_home() {
	ALLOX_HOME="$(mktemp -d /tmp/allox-bench.XXXXXX)"
	export ALLOX_HOME
	work="$ALLOX_HOME/work"
	mkdir -p "$work"
	trap bench_cleanup EXIT
	# Interrupted or terminated, still clean up (through the EXIT trap).
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

bench_cleanup() {
	"$ALLOX_CLI" sandbox list -o raw 2>/dev/null | cut -f1 | while read -r id; do
		"$ALLOX_CLI" sandbox kill "$id" >/dev/null 2>&1
	done
	kill "$(cat "$ALLOX_HOME/run/engine.pid" 2>/dev/null)" 2>/dev/null
	rm -rf "$ALLOX_HOME"
}

rss_kib() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

# bench_row NAME UNIT FILE [FLOOR_NAME FLOOR_FILE [TARGET]]: record one figure
# for the harness: the median, min and max of the samples in FILE, the floor's
# median (its samples measured in this same run, in FLOOR_FILE), their ratio,
# and whether TARGET is met. TARGET is one of
#   ratio<=X  ratio>=X   median / floor median (lower or higher is better)
#   beyond<X             median - floor median, in UNIT
#   <X  <=X              median, in UNIT
#   max<X                the largest sample, in UNIT
# or empty (a figure shown for reference). The row goes to $BENCH_ROWS, a
# tab-separated file: group, name, samples, median, min, max, unit, floor name,
# floor median, ratio, target, met.
bench_row() {
	local name=$1 unit=$2 file=$3 floor_name=${4:-} floor_file=${5:-} target=${6:-}
	local floor_samples=""
	[ -n "$floor_file" ] && floor_samples=$(sort -g "$floor_file" | tr '\n' ' ')
	sort -g "$file" | awk -v group="${BENCH_GROUP:-$(basename "$0" .sh)}" -v name="$name" -v unit="$unit" \
		-v fname="$floor_name" -v fsamples="$floor_samples" -v target="$target" '
	function med(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	function fmt(v) { v += 0; if (v == int(v)) return sprintf("%d", v); return v >= 100 || v <= -100 ? sprintf("%.0f", v) : v >= 10 || v <= -10 ? sprintf("%.1f", v) : sprintf("%.2f", v) }
	NF { v[++n] = $1 }
	END {
		if (n == 0) { print "bench: no samples for " name > "/dev/stderr"; exit 1 }
		m = med(v, n); lo = v[1]; hi = v[n]
		fm = ""; ratio = ""
		if (fname != "") {
			fn = split(fsamples, f, " ")
			if (fn == 0) { print "bench: no floor samples for " name > "/dev/stderr"; exit 1 }
			fm = med(f, fn)
		}
		met = "-"; text = ""
		if (target ~ /^beyond</) {
			lim = substr(target, 8); d = m - fm; ratio = (d >= 0 ? "+" : "") fmt(d) " " unit
			text = "+ < " lim " " unit; met = d < lim + 0 ? "yes" : "NO"
		} else if (fm != "" && fm + 0 > 0) {
			ratio = sprintf(m / fm < 0.1 ? "%.3fx" : "%.2fx", m / fm)
		}
		if (target ~ /^ratio<=/) {
			lim = substr(target, 8); text = "<= " lim "x"; met = fm + 0 > 0 && m / fm <= lim + 0 ? "yes" : "NO"
		} else if (target ~ /^ratio>=/) {
			lim = substr(target, 8); text = ">= " lim "x"; met = fm + 0 > 0 && m / fm >= lim + 0 ? "yes" : "NO"
		} else if (target ~ /^<=/) {
			lim = substr(target, 3); text = "<= " lim " " unit; met = m <= lim + 0 ? "yes" : "NO"
		} else if (target ~ /^</) {
			lim = substr(target, 2); text = "< " lim " " unit; met = m < lim + 0 ? "yes" : "NO"
		} else if (target ~ /^max</) {
			lim = substr(target, 5); text = "max < " lim " " unit; met = hi < lim + 0 ? "yes" : "NO"
		} else if (target != "" && target !~ /^beyond</) {
			print "bench: unknown target " target > "/dev/stderr"; exit 1
		}
		printf "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", group, name, n, fmt(m), fmt(lo), fmt(hi), unit,
			fname, fm == "" ? "" : fmt(fm), ratio, text, met
	}' >>"${BENCH_ROWS:-/dev/stdout}"
}

# bench_value NAME UNIT VALUE [TARGET]: a figure with one sample.
bench_value() {
	local f
	f=$(mktemp /tmp/allox-bench-value.XXXXXX)
	echo "$3" >"$f"
	bench_row "$1" "$2" "$f" "" "" "${4:-}"
	rm -f "$f"
}
