#!/bin/sh
# The benchmark harness's bookkeeping, without running any benchmark: how
# bench_row (bench/lib.sh) computes medians, ratios and met/missed for each
# kind of target, and what bench/run.sh prints and writes for a fake benchmark.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$TESTS_DIR/cli/lib.sh"
BENCH="$TESTS_DIR/../bench"
. "$BENCH/lib.sh"

printf '5\n1\n3\n' >"$TMP/odd"
printf '4\n1\n2\n3\n' >"$TMP/even"
echo 2 >"$TMP/two"
echo 100 >"$TMP/hundred"

# row TARGET FILE [FLOOR_FILE]: the tab-separated row bench_row records.
row() {
	if [ -n "${3:-}" ]; then set -- "$1" "$2" floor "$3"; else set -- "$1" "$2" "" ""; fi
	BENCH_GROUP=g BENCH_ROWS="$TMP/out" bench_row fig ms "$2" "$3" "$4" "$1" 2>"$TMP/err"
}
field() { cut -f"$1" "$TMP/out"; }

t "median, min and max of an odd count"
: >"$TMP/out"; row "" "$TMP/odd"; rc=$?
expect_rc 0
expect_out "$(printf 'g\tfig\t3\t3\t1\t5\tms\t\t\t\t\t-')"

t "median of an even count is the mean of the middle two"
: >"$TMP/out"; row "" "$TMP/even"
[ "$(field 4)" = "2.50" ] || fail "median $(field 4), expected 2.50"

t "ratio<=: met when median / floor median is at most the limit"
: >"$TMP/out"; row "ratio<=2" "$TMP/odd" "$TMP/two"
[ "$(field 9-12)" = "$(printf '2\t1.50x\t<= 2x\tyes')" ] || fail "row: $(field 9-12)"

t "ratio<=: missed above the limit"
: >"$TMP/out"; row "ratio<=1" "$TMP/odd" "$TMP/two"
[ "$(field 12)" = NO ] || fail "met: $(field 12)"

t "ratio>=: for throughputs, missed below the limit"
: >"$TMP/out"; row "ratio>=2" "$TMP/odd" "$TMP/two"
[ "$(field 11-12)" = "$(printf '>= 2x\tNO')" ] || fail "row: $(field 11-12)"

t "beyond<: the difference to the floor, in the unit"
: >"$TMP/out"; row "beyond<20" "$TMP/hundred" "$TMP/odd"
[ "$(field 10-12)" = "$(printf '+97 ms\t+ < 20 ms\tNO')" ] || fail "row: $(field 10-12)"
: >"$TMP/out"; row "beyond<2" "$TMP/odd" "$TMP/two"
[ "$(field 10-12)" = "$(printf '+1 ms\t+ < 2 ms\tyes')" ] || fail "row: $(field 10-12)"

t "<X judges the median, max<X the largest sample"
: >"$TMP/out"; row "<4" "$TMP/odd"
[ "$(field 12)" = yes ] || fail "<4: $(field 12)"
: >"$TMP/out"; row "max<4" "$TMP/odd"
[ "$(field 11-12)" = "$(printf 'max < 4 ms\tNO')" ] || fail "max<4: $(field 11-12)"

t "an unknown target, a missing floor or no samples is an error"
: >"$TMP/out"; row "fast" "$TMP/odd"; rc=$?
[ "$rc" -ne 0 ] || fail "unknown target accepted"
: >"$TMP/empty"; : >"$TMP/out"; row "" "$TMP/odd" "$TMP/empty"; rc=$?
[ "$rc" -ne 0 ] || fail "empty floor accepted"
: >"$TMP/out"; row "" "$TMP/empty"; rc=$?
[ "$rc" -ne 0 ] || fail "no samples accepted"

t "ms_between: milliseconds between two EPOCHREALTIME stamps"
[ "$(ms_between 10.999500 12.000750)" = "1001.250" ] || fail "got $(ms_between 10.999500 12.000750)"

# A fake benchmark directory: one benchmark that records two rows, one that fails.
mkdir -p "$TMP/bench"
cat >"$TMP/bench/fake.sh" <<EOS
. "$BENCH/lib.sh"
printf '1\n2\n3\n' >"\$BENCH_ROWS.s"
bench_row "quick thing" ms "\$BENCH_ROWS.s" "" "" "<50"
bench_row "slow thing" ms "\$BENCH_ROWS.s" "" "" "<1"
rm -f "\$BENCH_ROWS.s"
EOS
printf 'exit 1\n' >"$TMP/bench/broken.sh"

t "run.sh prints one table and writes the results file with the machine"
run env BENCH_DIR="$TMP/bench" BENCH_RESULTS="$TMP/results.md" BENCH_N=2 bash "$BENCH/run.sh" fake
expect_rc 0
expect_out_has "| figure "
expect_out_has "| fake: quick thing "
expect_out_has "2 figures, 1 targets met, 1 missed"
expect_out_has "- fake: slow thing: median 2 ms (min 1, max 3), target < 1 ms"
grep -q '| fake: slow thing .*| \*\*NO\*\* |$' "$TMP/out" || fail "no **NO** for the slow thing"
for want in "- cores (nproc): $(nproc)" "- kernel: $(uname -r)" "- memory: " "- CPU: " "- git commit: " \
	"- load average (1, 5, 15 min): " "BENCH_N=2" "Missed targets:" "| fake: quick thing "; do
	grep -qF -- "$want" "$TMP/results.md" || fail "results.md lacks: $want"
done

t "a failing benchmark fails the run and is named; the others' rows remain"
run env BENCH_DIR="$TMP/bench" BENCH_RESULTS="$TMP/results.md" bash "$BENCH/run.sh" broken fake
expect_rc 1
expect_out_has "failed benchmarks: broken"
expect_out_has "| fake: quick thing "
grep -qF "Failed benchmarks (their figures are missing or partial): broken" "$TMP/results.md" ||
	fail "results.md does not name the failed benchmark"

t "an unknown benchmark is a usage error"
run env BENCH_DIR="$TMP/bench" bash "$BENCH/run.sh" nosuch
expect_rc 2
expect_err_has "bench: no benchmark nosuch"

done_testing
