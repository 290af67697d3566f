#!/bin/bash
# The benchmark harness behind `make bench`: runs each benchmark (all of them,
# or those named as arguments, e.g. `bench/run.sh startup lifecycle`), collects
# the rows they record (bench/lib.sh: bench_row), and prints one table: each
# figure's median, min and max over BENCH_N runs, the floor or peer measured in
# the same run, the ratio, the target and whether it is met. A run of every
# benchmark also writes the table, with the machine it ran on, to
# bench/results.md (BENCH_RESULTS to write elsewhere). BENCH_DIR: where the
# benchmark scripts are (this directory; the harness's own test sets it).
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=${BENCH_DIR:-$here}
: "${ALLOX_CLI:?set ALLOX_CLI to the allox-cli binary}"
export ALLOX_CLI
export BENCH_N=${BENCH_N:-10}
export LC_ALL=C
all="startup complete lifecycle parallel transfer checkpoint jupyter browser mcp"
benches=${*:-$all}
results=${BENCH_RESULTS:-}
[ $# -eq 0 ] && results=${results:-$here/results.md}

rows=$(mktemp /tmp/allox-bench-rows.XXXXXX)
trap 'rm -f "$rows"' EXIT
export BENCH_ROWS=$rows

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
t0=$EPOCHREALTIME
failed=""
loads=""
for b in $benches; do
	[ -f "$dir/$b.sh" ] || { echo "bench: no benchmark $b (have: $all)" >&2; exit 2; }
	echo "bench: $b (BENCH_N=$BENCH_N)" >&2
	# What the previous one left dirty (a 1 GiB transfer, 50 sandboxes'
	# state) is written now, not during this one's timings.
	sync
	loads="$loads $b $(cut -d' ' -f1 /proc/loadavg);"
	BENCH_GROUP=$b bash "$dir/$b.sh" || { failed="$failed $b"; echo "bench: $b failed" >&2; }
done
t1=$EPOCHREALTIME
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# table: the rows as one Markdown table, columns padded to line up on a terminal.
table() {
	awk -F'\t' '
	BEGIN { OFS = "" }
	{ for (i = 1; i <= NF; i++) c[NR, i] = $i; rows = NR }
	END {
		split("figure|n|median|min|max|unit|floor or peer|floor median|ratio|target|met", h, "|")
		# Columns: name, n, median, min, max, unit, floor name, floor median, ratio, target, met.
		split("2 3 4 5 6 7 8 9 10 11 12", src, " ")
		# Numbers line up on the right.
		split("2 3 4 5 8 9", rc, " "); for (k in rc) right[rc[k]] = 1
		for (j = 1; j <= 11; j++) w[j] = length(h[j])
		for (r = 1; r <= rows; r++) {
			cell[r, 1] = c[r, 1] ": " c[r, 2]
			for (j = 2; j <= 11; j++) cell[r, j] = c[r, src[j]]
			if (cell[r, 11] == "NO") cell[r, 11] = "**NO**"
			for (j = 1; j <= 11; j++) if (length(cell[r, j]) > w[j]) w[j] = length(cell[r, j])
		}
		line = "|"; sep = "|"
		for (j = 1; j <= 11; j++) {
			line = line " " sprintf("%-" w[j] "s", h[j]) " |"
			dash = ""; for (k = 0; k < w[j]; k++) dash = dash "-"
			sep = sep (right[j] ? "-" dash ":|" : "-" dash "-|")
		}
		print line; print sep
		for (r = 1; r <= rows; r++) {
			line = "|"
			for (j = 1; j <= 11; j++)
				line = line " " sprintf("%" (right[j] ? "" : "-") w[j] "s", cell[r, j]) " |"
			print line
		}
	}' "$rows"
}

missed() {
	awk -F'\t' '$12 == "NO" { printf "- %s: %s: median %s %s (min %s, max %s)%s, target %s\n", $1, $2, $4, $7, $5, $6,
		$9 == "" ? "" : ", " $8 " " $9 " " $7 ", ratio " $10, $11 }' "$rows"
}

secs=$(( (10#${t1/./} - 10#${t0/./}) / 1000000 ))
summary="$(wc -l <"$rows") figures, $(awk -F'\t' '$12 == "yes"' "$rows" | wc -l) targets met, $(awk -F'\t' '$12 == "NO"' "$rows" | wc -l) missed; ${secs} s"
echo
table
echo
echo "$summary"
missed
[ -n "$failed" ] && echo "failed benchmarks:$failed"

if [ -n "$results" ]; then
	commit=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
	[ -n "$(git -C "$here/.." status --porcelain --untracked-files=no 2>/dev/null)" ] && commit="$commit (with uncommitted changes)"
	{
		echo "# allox-cli benchmark results"
		echo
		echo "Written by \`make bench\` (bench/run.sh); overwritten by each full run. How to read it: docs/design.md, \"Benchmarks\"."
		echo
		echo "- date: $started"
		echo "- git commit: $commit"
		echo "- CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
		echo "- cores (nproc): $(nproc)"
		echo "- memory: $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
		echo "- kernel: $(uname -r)"
		echo "- load average (1, 5, 15 min): $load_before before, $load_after after; 1 min at each start:$loads"
		echo "- samples per figure: BENCH_N=$BENCH_N unless the n column says otherwise; duration ${secs} s"
		echo
		table
		echo
		echo "$summary."
		if grep -q "	NO$" "$rows"; then
			echo
			echo "Missed targets:"
			echo
			missed
		fi
		if [ -n "$failed" ]; then
			echo
			echo "Failed benchmarks (their figures are missing or partial):$failed"
		fi
	} >"$results"
	echo "bench: wrote $results" >&2
fi
[ -z "$failed" ]
