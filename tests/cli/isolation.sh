#!/bin/sh
# Sandbox isolation, tried as code inside a sandbox would: the
# sandbox's root is an unprivileged host uid, the kernel surface is closed,
# and what the sandbox makes lands on the host disk owned by its range.
# Never changes a host sysctl: writes are same-value writes.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

# inside CMD: run CMD (a shell line) in the current sandbox; output in $TMP/out.
inside() {
	run allox run -- "$1"
}

# base_of ID: the first host uid of sandbox ID's range, from its record.
base_of() {
	jq -r '.uidBase // empty' "$STATE/$1/record.json"
}

run allox sandbox create -o json
ID=$(jq -r .id "$TMP/out")
[ -n "$ID" ] || { fail "create"; done_testing; exit 1; }
BASE=$(base_of "$ID")

t "sandbox root is an unprivileged host uid range, not host root"
[ -n "$BASE" ] && [ "$BASE" -ge 65536 ] || fail "uidBase $BASE"
inside 'cat /proc/self/uid_map /proc/self/gid_map'
expect_rc 0
[ "$(awk '{print $1, $2, $3}' "$TMP/out" | sort -u)" = "0 $BASE 65536" ] || fail "maps"
# Every process of the sandbox runs as the range's uids on the host.
p=$(jq -r .runtime.initPid "$STATE/$ID/record.json")
[ "$(awk '/^Uid:/ {print $2}' "/proc/$p/status")" = "$BASE" ] || fail "PID 1 runs as host uid $(awk '/^Uid:/ {print $2}' "/proc/$p/status")"
[ "$(claim=$(cat "/run/allox/uid-ranges/$BASE"); echo "$claim")" = "$STATE/$ID" ] || fail "claim file"

t "system files still look root-owned inside, the host's secrets are not there"
inside 'stat -c %u:%g /usr/bin/env /etc/passwd / /home/gem; id -u; head -1 /etc/passwd'
expect_out "0:0
0:0
0:0
0:0
0
root:x:0:0:root:/root:/bin/bash"
inside 'cat /etc/shadow'
[ "$rc" -ne 0 ] || fail "/etc/shadow readable"
grep -q 'root:' "$TMP/out" && fail "/etc/shadow content shown"
inside 'cat /etc/gshadow'
[ "$rc" -ne 0 ] || fail "/etc/gshadow readable"
# Whatever a host user may not read stays hidden, not only the well-known files.
secret=$(find /etc /var -xdev -type f ! -perm -o=r 2>/dev/null | head -1)
if [ -n "$secret" ]; then
	inside "cat '$secret'"
	[ "$rc" -ne 0 ] || fail "$secret readable"
fi

t "/proc/sys and the trigger files are read-only, Docker's masked paths are masked"
inside 'cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern'
[ "$rc" -ne 0 ] || fail "same-value write to kernel.core_pattern succeeded"
inside 'cat /proc/sys/kernel/hostname > /proc/sys/kernel/hostname'
[ "$rc" -ne 0 ] || fail "same-value write to kernel.hostname succeeded"
inside 'echo > /proc/sysrq-trigger'
[ "$rc" -ne 0 ] || fail "sysrq-trigger writable"
inside 'grep -E " /proc/(sys|irq|bus|sysrq-trigger) " /proc/self/mountinfo | grep -vc " ro[ ,]"'
[ "$(cat "$TMP/out")" = 0 ] || fail "a read-only /proc path is mounted writable"
inside 'for f in keys timer_list kcore sched_debug; do [ -e /proc/$f ] && wc -c < /proc/$f; done; true'
expect_rc 0
[ -z "$(tr -d '0\n' < "$TMP/out")" ] || fail "a masked /proc file has content: $(cat "$TMP/out")"

t "no mounts, a reduced capability set, no new user namespaces"
inside 'mkdir -p /tmp/cg && mount -t cgroup -o memory none /tmp/cg'
[ "$rc" -ne 0 ] || fail "cgroup mount"
inside 'mkdir -p /tmp/t && mount -t tmpfs none /tmp/t'
[ "$rc" -ne 0 ] || fail "tmpfs mount"
inside 'grep -E "^Cap(Inh|Eff|Bnd|Amb)" /proc/self/status'
# Docker's default set: chown dac_override fowner fsetid kill setgid setuid
# setpcap net_bind_service net_raw sys_chroot mknod audit_write setfcap;
# nothing inheritable or ambient (CVE-2022-24769).
expect_out "CapInh:	0000000000000000
CapEff:	00000000a80425fb
CapBnd:	00000000a80425fb
CapAmb:	0000000000000000"
inside 'unshare -U true'
[ "$rc" -ne 0 ] || fail "a new user namespace was created"
inside 'grep ^Seccomp: /proc/self/status'
expect_out "Seccomp:	2"

t "non-root users exist inside, and own files on the host as their range"
inside 'setpriv --reuid=65534 --regid=65534 --clear-groups id -u; touch f && chown 1000:1000 f && stat -c %u:%g f'
expect_out "65534
1000:1000"
[ "$(stat -c %u:%g "$STATE/$ID/writable/layer/top/home/gem/f")" = "$((BASE + 1000)):$((BASE + 1000))" ] || fail "host owner of f"

t "setuid-root and cap_setuid files made inside are not root's on the host"
inside 'cp /usr/bin/id /home/gem/suid && chmod 4755 /home/gem/suid && stat -c %u:%a /home/gem/suid'
expect_out "0:4755"
[ "$(stat -c %u "$STATE/$ID/writable/layer/top/home/gem/suid")" = "$BASE" ] || fail "host owner of the setuid file"
inside 'cp /usr/bin/id /home/gem/capfile && setcap cap_setuid+ep /home/gem/capfile && getcap /home/gem/capfile'
expect_out_has "cap_setuid=ep"
# The host sees a namespaced capability: it holds only for the range's root.
getcap -n "$STATE/$ID/writable/layer/top/home/gem/capfile" > "$TMP/cap" 2>&1
grep -q "\[rootid=$BASE\]" "$TMP/cap" || fail "host capability: $(cat "$TMP/cap")"

t "no fd of the sandbox's setup reaches its processes"
inside 'ls -l /proc/self/fd/ | grep -c "user:\[" ; true'
[ "$(head -1 "$TMP/out")" = 0 ] || fail "a user namespace fd is open in a command"
# PID 1's fds, from the host: inside, it is not dumpable.
p=$(jq -r .runtime.initPid "$STATE/$ID/record.json")
ls -l "/proc/$p/fd/" | grep -e "user:\[" -e seccomp -e "/idmap" > "$TMP/leaks"
[ ! -s "$TMP/leaks" ] || fail "the agent holds: $(cat "$TMP/leaks")"

t "two sandboxes never share a range; a checkpoint restored elsewhere keeps its owners"
inside 'mkdir -p /home/gem/d && chown 65534:65534 /home/gem/d && chown 1000:1000 /home/gem/f'
run allox checkpoint create --name owners -o json
expect_rc 0
CP=$(jq -r .id "$TMP/out")
run allox checkpoint restore "$CP" -o json
expect_rc 0
R=$(jq -r .id "$TMP/out")
RBASE=$(base_of "$R")
[ -n "$RBASE" ] && [ "$RBASE" != "$BASE" ] || fail "restored sandbox's range $RBASE (source $BASE)"
run allox run "$R" 'stat -c %u:%g /home/gem/f /home/gem/d /home/gem/suid /usr/bin/env'
expect_out "1000:1000
65534:65534
0:0
0:0"
# The layer on disk stays the capturing sandbox's: nothing in it is host root's.
find "$ALLOX_HOME/engine/layers" -mindepth 2 -user 0 > "$TMP/rootfiles"
[ ! -s "$TMP/rootfiles" ] || fail "host-root files in layers: $(head -3 "$TMP/rootfiles")"

t "an engine restart keeps each sandbox's range; new sandboxes get free ones"
old=$(engine_pid)
kill -9 "$old"
wait_until 10 gone "$old" || fail "engine survived kill -9"
run allox run "$ID" 'cat /proc/self/uid_map'
expect_rc 0
[ "$(awk '{print $2}' "$TMP/out")" = "$BASE" ] || fail "range after restart: $(cat "$TMP/out")"
run allox sandbox create -o json
N=$(jq -r .id "$TMP/out")
NBASE=$(base_of "$N")
[ -n "$NBASE" ] && [ "$NBASE" != "$BASE" ] && [ "$NBASE" != "$RBASE" ] || fail "new range $NBASE (live: $BASE $RBASE)"
run allox sandbox kill "$N"

t "sandboxes created at once all start, each with a range of its own"
# Starts run in parallel (no engine lock); each makes user namespaces
# with a forked helper, which must not hold another start's pipes hostage.
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	allox sandbox create -o json >"$TMP/par.$i" 2>&1 &
done
wait
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	jq -e .id "$TMP/par.$i" >/dev/null 2>&1 || fail "parallel create $i: $(cat "$TMP/par.$i")"
done
ids=$(cat "$TMP"/par.* | jq -r '.id // empty' 2>/dev/null)
[ "$(for i in $ids; do base_of "$i"; done | sort -u | wc -l)" = 12 ] || fail "ranges not distinct"
for i in $ids; do allox sandbox kill "$i" >/dev/null 2>&1; done

t "deleting a sandbox gives its range back"
run allox sandbox kill "$R"
expect_rc 0
[ ! -e "/run/allox/uid-ranges/$RBASE" ] || [ "$(cat "/run/allox/uid-ranges/$RBASE")" != "$STATE/$R" ] ||
	fail "claim of $R kept"

t "another engine (ALLOX_HOME under /var: bound, not overlaid) gets another range and hides /var's secrets"
secret=$(find /var -xdev -type f ! -perm -o=r ! -path '/var/tmp/*' 2>/dev/null | head -1)
VARHOME=$(mktemp -d /var/tmp/allox-isolation.XXXXXX)
(
	export ALLOX_HOME="$VARHOME"
	STATE="$ALLOX_HOME/engine/sandboxes"
	id=$(allox sandbox create -o json | jq -r .id) || echo "create failed" >&2
	[ "$(base_of "$id")" != "$BASE" ] || echo "both engines' sandboxes got range $BASE" >&2
	if [ -n "$secret" ]; then
		allox run -- "cat '$secret'" >/dev/null 2>&1 && echo "$secret readable" >&2
	fi
	allox run -- 'touch /var/x' >/dev/null 2>&1 && echo "/var writable" >&2
	stop_engine
) 2>"$TMP/varhome"
rm -rf "$VARHOME"
[ ! -s "$TMP/varhome" ] || fail "$(cat "$TMP/varhome")"

stop_engine

done_testing
