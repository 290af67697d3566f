# Helpers shared by the conformance tests (sourced; they count into passed/failed
# and read TMP, set by the test).

ok() {
	passed=$((passed + 1))
	echo "ok: $1"
}

# not_ok NAME WHY [FILE...]: count a failure and show the files that explain it.
not_ok() {
	failed=$((failed + 1))
	echo "FAIL: $1: $2" >&2
	shift 2
	for f in "$@"; do
		[ -s "$f" ] || continue
		echo "--- $(basename "$f")" >&2
		tail -n 40 "$f" >&2
		[ -z "$(tail -c 1 "$f")" ] || echo >&2
	done
}

# Process state letter (R, S, Z...) or nothing once it is gone.
proc_state() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1
}

alive() {
	st=$(proc_state "$1")
	[ -n "$st" ] && [ "$st" != Z ]
}

finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}

# jq-like reading with node (prism needs node anyway): jv FILE EXPR prints
# the value of the JavaScript expression EXPR, where d is the parsed file.
jv() {
	node -e '
		const fs = require("fs");
		let d;
		try { d = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); } catch (e) { process.exit(3); }
		const v = eval(process.argv[2]);
		process.stdout.write(typeof v === "string" ? v : JSON.stringify(v === undefined ? null : v));
	' "$1" "$2" 2>/dev/null
}

# jtrue FILE EXPR: EXPR is true of the parsed file.
jtrue() {
	[ "$(jv "$1" "$2")" = true ]
}

free_port() {
	node -e '
		const s = require("net").createServer();
		s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });
	'
}

# wait_http URL SECONDS PID: until URL answers anything over HTTP (bounded).
wait_http() {
	_end=$(($(date +%s) + $2))
	while [ "$(date +%s)" -lt "$_end" ]; do
		alive "$3" || return 1
		curl -s -o /dev/null --max-time 2 "$1" && return 0
		sleep 0.3
	done
	return 1
}
