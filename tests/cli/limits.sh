#!/bin/sh
# Resource limits against a real local engine: what
# sandbox create sends, what sandbox get shows, what lands in the sandbox's
# cgroups on the host, and that it holds inside: a fork loop under --pids,
# an allocation over --memory, CPU time over --cpu. Kill removes the
# cgroups, also with a cgroup made below the sandbox's own.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

SOCK="$ALLOX_HOME/run/engine.sock"
: "${ALLOX_ENGINE:?ALLOX_ENGINE must point at the allox-engine binary}"

# cgdir CONTROLLER ID: the sandbox's cgroup of CONTROLLER (v1 hierarchy, else
# its cgroup2 directory); empty when there is none.
cgdir() {
	if [ -d "/sys/fs/cgroup/$1/allox/$2" ]; then
		echo "/sys/fs/cgroup/$1/allox/$2"
	else
		for d in /sys/fs/cgroup/unified/allox/"$2" /sys/fs/cgroup/allox/"$2"; do
			[ -f "$d/cgroup.controllers" ] && grep -qw "$1" "$d/../cgroup.subtree_control" 2>/dev/null &&
				{ echo "$d"; return; }
		done
	fi
}

# Values as the kernel shows them, whichever cgroup version holds them.
cpu_quota() { # ID: microseconds per 100 ms, or "max"
	d=$(cgdir cpu "$1")
	if [ -f "$d/cpu.cfs_quota_us" ]; then
		[ "$(cat "$d/cpu.cfs_period_us")" = 100000 ] || echo "period $(cat "$d/cpu.cfs_period_us")"
		q=$(cat "$d/cpu.cfs_quota_us")
		[ "$q" = -1 ] && q=max
		echo "$q"
	elif [ -f "$d/cpu.max" ]; then
		cut -d' ' -f1 "$d/cpu.max"
	fi
}
pids_max() { d=$(cgdir pids "$1"); cat "$d/pids.max" 2>/dev/null; }
mem_limit() {
	d=$(cgdir memory "$1")
	if [ -f "$d/memory.limit_in_bytes" ]; then
		cat "$d/memory.limit_in_bytes"
	else
		cat "$d/memory.max" 2>/dev/null
	fi
}
mem_peak() {
	d=$(cgdir memory "$1")
	cat "$d/memory.max_usage_in_bytes" "$d/memory.peak" 2>/dev/null | head -1
}

have_cgroups=1
for c in cpu memory pids; do
	[ -n "$(ls -d /sys/fs/cgroup/$c /sys/fs/cgroup/unified/cgroup.controllers /sys/fs/cgroup/cgroup.controllers 2>/dev/null)" ] ||
		have_cgroups=0
done

# create_api JSON-LIMITS: POST /sandboxes with these resourceLimits (the
# spec requires the object, not any key); the answer in $TMP/api, the
# status in $code.
create_api() {
	body='{"image":{"uri":"host"},"entrypoint":["tail","-f","/dev/null"],"resourceLimits":'"$1"'}'
	code=$(curl -s -o "$TMP/api" -w '%{http_code}' --unix-socket "$SOCK" -X POST -H 'Content-Type: application/json' \
		-d "$body" http://x/v1/sandboxes)
}

# id_of FILE: the "id" of a create answer; a name no cgroup has when there is
# none, so that paths built from it never name allox/ itself.
id_of() {
	i_id=$(jq -r '.id // empty' "$1" 2>/dev/null)
	echo "${i_id:-no-such-sandbox}"
}

kill_api() {
	curl -s -o /dev/null --unix-socket "$SOCK" -X DELETE "http://x/v1/sandboxes/$1"
}

t "sandbox get shows the limits in force: allox-cli's defaults and the engine's pids default"
run allox sandbox create -o json
expect_rc 0
D=$(id_of "$TMP/out")
run allox sandbox get "$D" -o json
expect_rc 0
expect_out "{
  \"id\": \"$D\",
  \"state\": \"Running\",
  \"image\": \"host\",
  \"cpu\": \"1\",
  \"memory\": \"2Gi\",
  \"pids\": \"1024\",
  \"disk\": \"10Gi\",
  \"network\": \"isolated\"
}"
run allox sandbox get "$D"
expect_out_has "pids:    1024"
run allox sandbox get "$D" -o yaml
expect_out_has "pids: '1024'"
if [ "$have_cgroups" = 1 ]; then
	[ "$(pids_max "$D")" = 1024 ] || fail "pids.max is $(pids_max "$D"), not 1024"
	[ "$(cpu_quota "$D")" = 100000 ] || fail "cpu quota is $(cpu_quota "$D"), not 100000 (1 CPU)"
	[ "$(mem_limit "$D")" = 2147483648 ] || fail "memory limit is $(mem_limit "$D")"
fi

t "the engine's defaults apply to API clients that give no limits, and its answers carry resourceLimits"
create_api '{}'
[ "$code" = 202 ] || fail "create: $code $(cat "$TMP/api")"
N=$(id_of "$TMP/api")
jq -e '.resourceLimits == {"memory": "2Gi", "pids": "1024", "ephemeral-storage": "10Gi"}' "$TMP/api" >/dev/null || fail "create answer: $(cat "$TMP/api")"
curl -s --unix-socket "$SOCK" "http://x/v1/sandboxes/$N" >"$TMP/api"
jq -e '.resourceLimits == {"memory": "2Gi", "pids": "1024", "ephemeral-storage": "10Gi"}' "$TMP/api" >/dev/null || fail "get answer: $(cat "$TMP/api")"
if [ "$have_cgroups" = 1 ]; then
	[ "$(pids_max "$N")" = 1024 ] || fail "pids.max is $(pids_max "$N")"
	[ "$(cpu_quota "$N")" = max ] || fail "cpu quota is $(cpu_quota "$N") without a cpu limit"
	[ "$(mem_limit "$N")" = 2147483648 ] || fail "memory limit is $(mem_limit "$N")"
fi
kill_api "$N"
# Keys the engine does not enforce (gpu) are refused by name, not ignored.
create_api '{"cpu":"500m","memory":"64Mi","gpu":"1"}'
[ "$code" = 400 ] || fail "create with gpu: $code $(cat "$TMP/api")"
jq -e '.message | startswith("resourceLimits.gpu")' "$TMP/api" >/dev/null || fail "gpu message: $(cat "$TMP/api")"
create_api '{"cpu":"500m","memory":"64Mi","pids":"32","ephemeral-storage":"100Mi"}'
[ "$code" = 202 ] || fail "create: $code $(cat "$TMP/api")"
N=$(id_of "$TMP/api")
jq -e '.resourceLimits == {"cpu": "500m", "memory": "64Mi", "pids": "32", "ephemeral-storage": "100Mi"}' "$TMP/api" >/dev/null ||
	fail "create answer: $(cat "$TMP/api")"
if [ "$have_cgroups" = 1 ]; then
	[ "$(cpu_quota "$N")" = 50000 ] || fail "cpu quota for 500m is $(cpu_quota "$N"), not 50000"
	[ "$(pids_max "$N")" = 32 ] || fail "pids.max is $(pids_max "$N")"
	[ "$(mem_limit "$N")" = 67108864 ] || fail "memory limit is $(mem_limit "$N")"
fi
kill_api "$N"

t "sandbox create --cpu --memory --pids --disk: sent, shown and written to the cgroups"
run allox sandbox create --cpu 0.5 --memory 256Mi --pids 64 --disk 100Mi -o json
expect_rc 0
ID=$(id_of "$TMP/out")
run allox sandbox get -o json
expect_out "{
  \"id\": \"$ID\",
  \"state\": \"Running\",
  \"image\": \"host\",
  \"cpu\": \"0.5\",
  \"memory\": \"256Mi\",
  \"pids\": \"64\",
  \"disk\": \"100Mi\",
  \"network\": \"isolated\"
}"
jq -e '.resourceLimits == {"cpu": "0.5", "memory": "256Mi", "pids": "64", "ephemeral-storage": "100Mi"}' \
	"$STATE/$ID/record.json" >/dev/null || fail "record: $(jq -c .resourceLimits "$STATE/$ID/record.json")"
if [ "$have_cgroups" = 1 ]; then
	[ "$(cpu_quota "$ID")" = 50000 ] || fail "cpu quota for 0.5 is $(cpu_quota "$ID"), not 50000"
	[ "$(pids_max "$ID")" = 64 ] || fail "pids.max is $(pids_max "$ID"), not 64"
	[ "$(mem_limit "$ID")" = 268435456 ] || fail "memory limit is $(mem_limit "$ID"), not 256Mi"
fi

t "GET /metrics reports the limits in force: 0.5 CPU and 256 MiB, not the host's"
port=$(jq -r .runtime.agentPort "$STATE/$ID/record.json")
token=$(jq -r .runtime.token "$STATE/$ID/record.json")
curl -s --max-time 10 -H "X-EXECD-ACCESS-TOKEN: $token" "http://127.0.0.1:$port/metrics" >"$TMP/metrics"
jq -e '.cpu_count == 0.5 and .mem_total_mib == 256 and .mem_used_mib > 0 and .mem_used_mib <= 256' \
	"$TMP/metrics" >/dev/null || fail "metrics: $(cat "$TMP/metrics")"

t "the sandbox is in its cpu cgroup, and its cgroups belong to root, not writable by others"
init=$(jq -r .runtime.initPid "$STATE/$ID/record.json")
if [ -d /sys/fs/cgroup/cpu/allox ]; then
	grep -q ":cpu[,:].*/allox/$ID\$" "/proc/$init/cgroup" || fail "init not in the cpu cgroup: $(cat "/proc/$init/cgroup")"
fi
for d in /sys/fs/cgroup/*/allox/"$ID" /sys/fs/cgroup/allox/"$ID"; do
	[ -d "$d" ] || continue
	[ "$(stat -c %u "$d")" = 0 ] || fail "$d is owned by $(stat -c %u "$d")"
	bad=$(find "$d" \( ! -user 0 -o ! -group 0 -o -perm -o+w \) -print 2>/dev/null | head -3)
	[ -z "$bad" ] || fail "not root's, or writable by others: $bad"
done

t "a 100-process fork loop under --pids 64 fails inside, and the sandbox keeps working"
run allox run --timeout 60s -- sh -c 'for i in $(seq 100); do sleep 5 & done; wait'
[ "$rc" -ne 0 ] || fail "all 100 forks succeeded"
grep -qi "fork\|resource temporarily unavailable" "$TMP/err" "$TMP/out" || fail "no fork failure reported"
if [ "$have_cgroups" = 1 ]; then
	d=$(cgdir pids "$ID")
	grep -q '^max [1-9]' "$d/pids.events" || fail "pids.max was never hit: $(cat "$d/pids.events")"
fi
wait_until 15 sh -c '[ "$("$ALLOX_CLI" run -- echo alive 2>/dev/null)" = alive ]' || fail "the sandbox does not run commands after the fork loop"
# The sleeps that did start outlive the command by up to 5 s: let them end
# before the next cases, which need processes of their own.
if [ "$have_cgroups" = 1 ] && [ -f "$(cgdir pids "$ID")/pids.current" ]; then
	wait_until 15 sh -c '[ "$(cat "$1")" -lt 16 ]' sh "$(cgdir pids "$ID")/pids.current" ||
		fail "still $(cat "$(cgdir pids "$ID")/pids.current") processes"
else
	sleep 6
fi

t "a 400 MiB allocation under --memory 256Mi fails, the host sees at most 256Mi used, the sandbox keeps working"
# Touch every page: a bytearray of zeros alone is never charged.
run allox run --timeout 60s -- python3 -c 'b = bytearray(400 << 20)
for i in range(0, len(b), 4096): b[i] = 1
print("allocated")'
[ "$rc" -ne 0 ] || fail "allocated 400 MiB under a 256 MiB limit"
grep -q allocated "$TMP/out" && fail "the allocation completed"
if [ "$have_cgroups" = 1 ]; then
	peak=$(mem_peak "$ID")
	[ -n "$peak" ] && [ "$peak" -le 268435456 ] || fail "peak memory use $peak is over the limit"
fi
run allox run -- echo alive
expect_rc 0
expect_out alive

t "a write past --disk 100Mi fails with ENOSPC inside, and the sandbox keeps working once the file is removed"
run allox run --timeout 60s -- sh -c 'df -k / | tail -1; dd if=/dev/zero of=/home/gem/fill bs=1M count=150 2>&1; echo "dd=$?"; du -k /home/gem/fill'
grep -q "No space left on device" "$TMP/out" || fail "no ENOSPC"
grep -qx "dd=1" "$TMP/out" || fail "dd did not fail"
# The file system the sandbox sees is the 100 MiB disk, and what fit stays under it.
size=$(awk 'NR == 1 { print $2 }' "$TMP/out")
[ -n "$size" ] && [ "$size" -le 102400 ] && [ "$size" -ge 81920 ] || fail "/ is $size KiB, not about 100 MiB"
used=$(awk 'END { print $1 }' "$TMP/out")
[ -n "$used" ] && [ "$used" -le 102400 ] || fail "$used KiB written under a 100 MiB disk"
img="$STATE/$ID/writable.img"
[ "$(stat -c %s "$img")" = 104857600 ] || fail "the image is $(stat -c %s "$img") bytes"
run allox run -- sh -c 'rm /home/gem/fill && dd if=/dev/zero of=/home/gem/again bs=1M count=50 2>&1 && echo written'
expect_rc 0
expect_out_has written
# discard: what the sandbox removed went back to the host.
[ "$(du -k "$img" | cut -f1)" -lt 81920 ] || fail "the image holds $(du -k "$img" | cut -f1) KiB after the file was removed"
run allox run -- rm /home/gem/again
expect_rc 0

t "--cpu 0.5: two busy loops get at most half a CPU between them"
# Two loops for 2 s would use up to 4 s of CPU on an idle 2-core host; the
# quota allows 1 s (plus a period of slack). The shell reads what its
# waited-for children used (utime + stime of them, /proc/self/stat fields
# 16 and 17, in clock ticks). On a host too busy to give them half a CPU
# the quota is never reached: then only the bound is checked.
if [ -f "$(cgdir cpu "$ID")/cpu.stat" ]; then
	hz=$(getconf CLK_TCK)
	run allox run -- sh -c '(timeout 2 sh -c "while :; do :; done" & timeout 2 sh -c "while :; do :; done" & wait)
		read -r l < /proc/$$/stat; set -- ${l##*) }; echo $(( ${14} + ${15} ))'
	used=$(tail -1 "$TMP/out")
	case $used in '' | *[!0-9]*) fail "no CPU time read: $(cat "$TMP/out" "$TMP/err")"; used=0 ;; esac
	[ "$used" -le $((hz * 12 / 10)) ] || fail "the loops used $used ticks (of $hz a second) in 2 s under a 0.5 CPU quota"
	thr=$(awk '$1 == "nr_throttled" { print $2 }' "$(cgdir cpu "$ID")/cpu.stat")
	if [ "$used" -ge $((hz * 8 / 10)) ]; then
		[ "${thr:-0}" -gt 0 ] || fail "at the quota but never throttled: $(cat "$(cgdir cpu "$ID")/cpu.stat")"
	fi
else
	echo "# skipped: no cpu cgroup" >&2
fi

# A sandbox started after it: its setup copied the host's mounts, $ID's disk included.
run allox sandbox create -o json
expect_rc 0
LATER=$(id_of "$TMP/out")

t "kill removes the sandbox's cgroups, also with cgroups made inside them"
made=""
for d in /sys/fs/cgroup/*/allox/"$ID" /sys/fs/cgroup/allox/"$ID"; do
	[ -d "$d" ] || continue
	mkdir -p "$d/inner/deeper" && made="$made $d"
done
# A member of the sandbox (its entrypoint) moves into one of them.
ep=$(cat "/proc/$init/task/$init/children" 2>/dev/null | awk '{ print $1 }')
if [ -n "$ep" ] && [ -d /sys/fs/cgroup/pids/allox/"$ID"/inner/deeper ]; then
	echo "$ep" >/sys/fs/cgroup/pids/allox/"$ID"/inner/deeper/cgroup.procs || fail "cannot move $ep"
fi
[ -n "$made" ] || echo "# skipped: no cgroup to make a child in" >&2
run allox sandbox kill "$ID" -o json
expect_rc 0
left=$(ls -d /sys/fs/cgroup/*/allox/"$ID" /sys/fs/cgroup/allox/"$ID" 2>/dev/null)
[ -z "$left" ] || fail "left behind: $left"
[ -n "$ep" ] && alive "$ep" && fail "the process in the inner cgroup survived"
grep -q "cannot remove the cgroups" "$ALLOX_HOME/engine.log" && fail "the engine could not remove them: $(grep 'cannot remove' "$ALLOX_HOME/engine.log")"

t "kill releases the disk: no mount and no loop device stay, also while a sandbox started after it runs"
disk_of() { # ID: a line of mountinfo or a loop device that still holds its disk
	grep -F "$STATE/$1/writable " /proc/self/mountinfo
	grep -lF "$1/writable.img" /sys/block/loop*/loop/backing_file 2>/dev/null
}
no_disk() { [ -z "$(disk_of "$1")" ]; }
wait_until 10 no_disk "$ID" || fail "left behind: $(disk_of "$ID")"
[ ! -e "$STATE/$ID" ] || fail "$STATE/$ID is still there"
pid=$(jq -r .runtime.pid "$STATE/$LATER/record.json")
grep -q ' - ext4 /dev/loop' "/proc/$pid/mountinfo" && fail "the later sandbox's setup holds disks: $(grep ' - ext4 /dev/loop' "/proc/$pid/mountinfo")"
[ -n "$(disk_of "$LATER")" ] || fail "the later sandbox has no disk"
run allox sandbox kill "$LATER"
expect_rc 0
wait_until 10 no_disk "$LATER" || fail "left behind: $(disk_of "$LATER")"

t "defaults.cpu, defaults.memory, defaults.pids and defaults.disk are used when the option is absent"
run allox config set defaults.cpu 250m
expect_rc 0
run allox config set defaults.memory 300Mi
expect_rc 0
run allox config set defaults.pids 100
expect_rc 0
run allox config set defaults.disk 1Gi
expect_rc 0
grep -q '^pids = 100$' "$ALLOX_HOME/config.toml" || fail "pids not stored as an integer: $(cat "$ALLOX_HOME/config.toml")"
run allox sandbox create --memory 128Mi -o json
expect_rc 0
C=$(id_of "$TMP/out")
run allox sandbox get "$C" -o json
jq -e '.cpu == "250m" and .memory == "128Mi" and .pids == "100" and .disk == "1Gi"' "$TMP/out" >/dev/null || fail "get: $(cat "$TMP/out")"
if [ "$have_cgroups" = 1 ]; then
	[ "$(cpu_quota "$C")" = 25000 ] || fail "cpu quota is $(cpu_quota "$C"), not 25000"
	[ "$(pids_max "$C")" = 100 ] || fail "pids.max is $(pids_max "$C")"
fi
run allox sandbox kill "$C"
expect_rc 0
# "" leaves a limit to the server: the engine's pids default comes back.
run allox config set defaults.pids ""
expect_rc 0
run allox config set defaults.cpu ""
expect_rc 0
run allox sandbox create -o json
expect_rc 0
C=$(id_of "$TMP/out")
run allox sandbox get "$C" -o json
jq -e '(has("cpu") | not) and .memory == "300Mi" and .pids == "1024" and .disk == "1Gi"' "$TMP/out" >/dev/null || fail "get: $(cat "$TMP/out")"
run allox sandbox kill "$C"
run allox config show -o json
jq -e '.resolved.default_cpu == "" and .resolved.default_memory == "300Mi" and .resolved.default_disk == "1Gi"' "$TMP/out" >/dev/null ||
	fail "config show: $(cat "$TMP/out")"
rm -f "$ALLOX_HOME/config.toml"

t "bad limits: 400 SANDBOX::INVALID_PARAMETER from the engine"
for bad in '{"cpu":"fast"}' '{"cpu":"0"}' '{"cpu":"1.2345"}' '{"memory":"lots"}' '{"memory":"1Mi"}' '{"pids":"-1"}' \
	'{"pids":"8"}' '{"pids":"1k"}' '{"ephemeral-storage":"big"}' '{"cpu":1}'; do
	create_api "$bad"
	[ "$code" = 400 ] || fail "$bad: status $code: $(cat "$TMP/api")"
	jq -e '.code == "SANDBOX::INVALID_PARAMETER" and (.message | test("^resourceLimits"))' "$TMP/api" >/dev/null ||
		fail "$bad: $(cat "$TMP/api")"
done
create_api '{"cpu":"fast"}'
jq -e '.message == "resourceLimits.cpu '"'fast'"': expected a number of CPUs such as 1, 0.5 or 500m"' "$TMP/api" >/dev/null ||
	fail "message: $(cat "$TMP/api")"
create_api '{"pids":"8"}'
jq -e '.message == "resourceLimits.pids '"'8'"': must be from 16 to 4194304"' "$TMP/api" >/dev/null || fail "message: $(cat "$TMP/api")"

t "bad limits: a usage error (exit 2) from the CLI, before any engine starts"
fresh="$TMP/fresh"
for args in "--cpu fast" "--cpu 0" "--memory 12" "--memory 2GB" "--pids 8" "--pids many" "--disk 5X"; do
	# shellcheck disable=SC2086
	run env ALLOX_HOME="$fresh" "$ALLOX_CLI" sandbox create $args
	[ "$rc" -eq 2 ] || fail "$args: exit $rc"
	opt=${args%% *}
	grep -q "^Error: invalid value '${args#* }' for $opt: " "$TMP/err" || fail "$args: $(cat "$TMP/err")"
done
[ ! -e "$fresh/run/engine.pid" ] || fail "an engine was started for a usage error"
run allox config set defaults.memory 12
expect_rc 2
expect_err_has "Invalid value '12' for defaults.memory: must be at least 32Mi"
run allox config set defaults.cpu fast
expect_rc 2
run allox config set defaults.pids 8
expect_rc 2

t "allox-engine --default-cpu, --default-memory, --default-pids"
run "$ALLOX_ENGINE" --home "$TMP/other" --default-memory 12x
expect_rc 2
expect_err_has "invalid value '12x' for --default-memory: expected a size such as 512Mi, 2Gi or 100M"
[ ! -e "$TMP/other/run" ] || fail "the engine started"
expect_clean_stop
"$ALLOX_ENGINE" --default-cpu 250m --default-memory none --default-pids 200 || fail "engine did not start"
create_api '{}'
[ "$code" = 202 ] || fail "create: $code $(cat "$TMP/api")"
N=$(id_of "$TMP/api")
jq -e '.resourceLimits == {"cpu": "250m", "pids": "200", "ephemeral-storage": "10Gi"}' "$TMP/api" >/dev/null || fail "create answer: $(cat "$TMP/api")"
if [ "$have_cgroups" = 1 ]; then
	[ "$(cpu_quota "$N")" = 25000 ] || fail "cpu quota is $(cpu_quota "$N")"
	[ "$(pids_max "$N")" = 200 ] || fail "pids.max is $(pids_max "$N")"
	[ "$(mem_limit "$N")" -gt 4611686018427387904 ] 2>/dev/null || [ "$(mem_limit "$N")" = max ] ||
		fail "memory limited to $(mem_limit "$N") with --default-memory none"
fi
kill_api "$N"
expect_clean_stop

done_testing
