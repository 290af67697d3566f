# Benchmarks (not timed tests): make bench [BENCH='startup lifecycle'] [BENCH_N=10]
# runs bench/run.sh, the one harness: one table, and bench/results.md when
# every benchmark ran. They are listed one by one: a directory named like the
# phony `bench` target made `make dist` run every benchmark.
BENCHMARK_FILES = bench/lib.sh bench/run.sh bench/results.md bench/startup.sh bench/parallel.sh \
	bench/lifecycle.sh bench/transfer.sh bench/checkpoint.sh bench/jupyter.sh bench/complete.sh \
	bench/browser.sh bench/mcp.sh bench/agent_memory.sh
EXTRA_DIST += $(BENCHMARK_FILES)
bench: all
	ALLOX_CLI='$(abs_top_builddir)/allox-cli' bash $(top_srcdir)/bench/run.sh $(BENCH)
bench-complete: all
	ALLOX_CLI='$(abs_top_builddir)/allox-cli' bash $(top_srcdir)/bench/run.sh complete
bench-mcp: all
	ALLOX_CLI='$(abs_top_builddir)/allox-cli' bash $(top_srcdir)/bench/run.sh mcp
.PHONY: bench bench-complete bench-mcp
