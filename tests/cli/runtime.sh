#!/bin/sh
# The local sandbox runtime (src/engine/runtime*.c) driven through
# tests/engine/rt_test: isolation, freeze/thaw, kill, state removal, layers,
# rootfs images, limits, and the cgroup2 / no-cgroup fallbacks.
# Needs root, bubblewrap and overlayfs; skips (77) otherwise.
set -u

RT=${RT_TEST:-$(pwd)/tests/engine/rt_test}
export LC_ALL=C
. "${TESTS_DIR:-tests}/cli/agent_lib.sh"

if [ "$(id -u)" != 0 ] || [ ! -x /usr/bin/bwrap ]; then
	echo "SKIP: needs root and /usr/bin/bwrap"
	exit 77
fi
if [ ! -x "$RT" ]; then
	echo "rt_test not found at $RT (set RT_TEST)" >&2
	exit 1
fi

TMP=$(mktemp -d /tmp/rt-test.XXXXXX)
H=$TMP/home                 # ALLOX_HOME
SB=$H/engine/sandboxes
P=${TMP##*.}                # cgroup names are global: ids are unique per run
VARHOME=""
VARSUB=""
mkdir -p "$SB"

cleanup() {
	for hj in "$SB"/*/handle.json ${VARHOME:+"$VARHOME"/engine/sandboxes/*/handle.json}; do
		[ -f "$hj" ] && "$RT" kill "${hj%/handle.json}" >/dev/null 2>&1
	done
	rm -rf "$TMP"
	[ -n "$VARHOME" ] && rm -rf "$VARHOME"
	if [ -n "$VARSUB" ]; then
		umount "$VARSUB" 2>/dev/null
		rmdir "$VARSUB" 2>/dev/null
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

sd() { echo "$SB/$P-$1"; }  # state dir of sandbox NAME (id $P-NAME)

fail_context() {
	[ -s "$TMP/err" ] && sed 's/^/  stderr: /' "$TMP/err" >&2
}

# start_opts NAME IMAGE [rt_test options...] -- ARGV...: start sandbox $SB/NAME;
# sets $rc, output in $TMP/out and $TMP/err.
start_opts() {
	sname=$1
	image=$2
	shift 2
	opts=""
	while [ "$1" != "--" ]; do
		opts="$opts $1"
		shift
	done
	shift
	mkdir -p "$(sd "$sname")"
	# shellcheck disable=SC2086
	"$RT" start $opts "$(sd "$sname")" "$image" -- "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
}

field() { # field NAME KEY: a number from NAME's handle.json
	sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" "$(sd "$1")/handle.json"
}

gem() { # gem NAME FILE: path of /home/gem/FILE of sandbox NAME on the host
	echo "$(sd "$1")/writable/layer/top/home/gem/$2"
}

has() { [ -e "$(gem "$1" "$2")" ]; }

counter_gt() { [ "$(counter "$1")" -gt "$2" ]; }

counter() { # counter NAME: the value the sandbox's counter loop last wrote
	c=""
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		c=$(cat "$(gem "$1" counter)" 2>/dev/null)
		[ -n "$c" ] && break
		sleep 0.02
	done
	echo "${c:-0}"
}

gone() { # gone PID [START]: no such process, a zombie or dead one, or (with START) a later one with its pid
	# Busy hosts reuse pids within seconds: a process of another test may hold it by now.
	set -- "$1" "${2:-}" "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null)"
	[ -z "$3" ] && return 0
	case $3 in Z* | X*) return 0 ;; esac
	[ -n "$2" ] && [ "$(echo "$3" | cut -d' ' -f20)" != "$2" ]
}

no_trace() { # no_trace NAME MARKER: nothing of sandbox NAME is left on the host
	gone "$(field "$1" pid)" "$(field "$1" start)" || fail "process $(field "$1" pid) (bwrap) still alive"
	gone "$(field "$1" init_pid)" "$(field "$1" init_start)" || fail "process $(field "$1" init_pid) (init) still alive"
	for c in freezer memory pids cpu unified; do
		[ ! -e "/sys/fs/cgroup/$c/allox/$P-$1" ] || fail "cgroup $c/allox/$P-$1 left"
	done
	if grep -l "$(sd "$1")" /proc/[0-9]*/mountinfo >/dev/null 2>&1; then
		fail "mounts of $(sd "$1") left in $(grep -l "$(sd "$1")" /proc/[0-9]*/mountinfo 2>/dev/null | head -3)"
	fi
	# The bracket keeps grep from matching its own command line.
	if grep -l "[$(printf %.1s "$2")]${2#?}" /proc/[0-9]*/cmdline >/dev/null 2>&1; then
		fail "processes with $2 left"
	fi
}

COUNTER='i=0; while :; do i=$((i+1)); echo $i > /home/gem/counter; sleep 0.05; done'
ID=a-0123456789abcdef
HOSTS_SUM=$(md5sum /etc/hosts)
touch "$TMP/host-tmp-canary"

# ---------------------------------------------------------------- isolation
t "host sandbox starts and reports its handle"
start_opts "$ID" host -- /bin/sh -c '
	o=/home/gem/out
	echo rt-changed >> /etc/hosts && echo ok > $o.etc
	echo x > /usr/bin/allox-rt-x && echo ok > $o.usr
	echo f > /home/gem/f
	cat /proc/sys/kernel/hostname > $o.hostname
	ls -A /root > $o.root; ls -A /tmp > $o.tmp; ls -A /var/tmp > $o.vartmp
	ls -A /home > $o.home; ls -A /mnt > $o.mnt; ls -A /run > $o.run
	for p in /work /media "'"$H"'" "'"$TMP"'"; do [ -e "$p" ] && echo "$p"; done > $o.visible
	ls /proc | grep "^[0-9][0-9]*$" > $o.pids
	tr "\0" " " < /proc/1/cmdline > $o.pid1
	echo to-console
	echo ready > $o.ready
	'"$COUNTER # rt-marker-$P-a"
[ "$rc" -eq 0 ] || fail "start failed ($rc)"
grep -q '"init_pid":[1-9]' "$TMP/out" || fail "no init_pid in $(cat "$TMP/out")"
grep -q '"cgroup":true' "$TMP/out" || fail "no cgroup on a host with v1 freezer"
wait_for 50 has "$ID" out.ready || fail "sandbox script did not finish"

t "writes inside land in the sandbox's layer, not on the host"
has "$ID" out.etc || fail "writing /etc/hosts failed inside"
has "$ID" out.usr || fail "writing /usr/bin/allox-rt-x failed inside"
[ "$(md5sum /etc/hosts)" = "$HOSTS_SUM" ] || fail "host /etc/hosts changed"
[ ! -e /usr/bin/allox-rt-x ] || fail "host got /usr/bin/allox-rt-x"
grep -q rt-changed "$(sd "$ID")/writable/layer/etc/hosts" || fail "copy-up of /etc/hosts not in writable/layer/etc"
[ -f "$(sd "$ID")/writable/layer/usr/bin/allox-rt-x" ] || fail "/usr/bin/allox-rt-x not in layer/usr"
[ -f "$(gem "$ID" f)" ] || fail "/home/gem/f not in layer/top"

t "hostname is the first 12 characters of the id"
[ "$(cat "$(gem "$ID" out.hostname)")" = "$(printf %.12s "$P-$ID")" ] || fail "hostname: $(cat "$(gem "$ID" out.hostname)")"

t "host /root, /tmp, /var/tmp, /home, ALLOX_HOME and /work are invisible"
[ ! -s "$(gem "$ID" out.root)" ] || fail "/root shows: $(cat "$(gem "$ID" out.root)")"
[ ! -s "$(gem "$ID" out.tmp)" ] || fail "/tmp shows: $(cat "$(gem "$ID" out.tmp)")"
[ ! -s "$(gem "$ID" out.vartmp)" ] || fail "/var/tmp shows: $(cat "$(gem "$ID" out.vartmp)")"
[ "$(cat "$(gem "$ID" out.home)")" = gem ] || fail "/home shows: $(cat "$(gem "$ID" out.home)")"
[ ! -s "$(gem "$ID" out.visible)" ] || fail "visible: $(cat "$(gem "$ID" out.visible)")"
[ ! -s "$(gem "$ID" out.mnt)" ] || fail "/mnt shows: $(cat "$(gem "$ID" out.mnt)")"
[ ! -s "$(gem "$ID" out.run)" ] || fail "/run shows: $(cat "$(gem "$ID" out.run)")"

t "/proc shows only the sandbox's processes, argv is PID 1"
n=$(wc -l < "$(gem "$ID" out.pids)")
grep -qx 1 "$(gem "$ID" out.pids)" || fail "no PID 1 in /proc"
[ "$n" -le 5 ] || fail "$n processes visible: $(tr '\n' ' ' < "$(gem "$ID" out.pids)")"
grep -q '^/.allox/bin/sh -c' "$(gem "$ID" out.pid1)" || fail "PID 1 is $(cat "$(gem "$ID" out.pid1)")"

t "stdout goes to console.log"
grep -q to-console "$(sd "$ID")/console.log" || fail "console.log lacks output"

t "a second sandbox doesn't see the first one's files"
start_opts b host -- /bin/sh -c '[ -e /home/gem/f ] && echo seen > /home/gem/seen; grep -c rt-changed /etc/hosts > /home/gem/hosts; echo done > /home/gem/done'
[ "$rc" -eq 0 ] || fail "start failed ($rc)"
wait_for 50 has b done || fail "sandbox b did not finish"
! has b seen || fail "b sees a's /home/gem/f"
[ "$(cat "$(gem b hosts)")" = 0 ] || fail "b sees a's /etc/hosts change"

t "the sandbox survives its starter and is nobody's child"
bw=$(field "$ID" pid)
[ "$("$RT" alive "$(sd "$ID")")" = 1 ] || fail "not alive after rt_test exited"
ppid=$(sed 's/.*) . \([0-9]*\) .*/\1/' "/proc/$bw/stat")
[ "$ppid" != $$ ] || fail "bwrap is the test shell's child"
sid=$(sed 's/.*) . [0-9]* [0-9]* \([0-9]*\) .*/\1/' "/proc/$bw/stat")
mysid=$(sed 's/.*) . [0-9]* [0-9]* \([0-9]*\) .*/\1/' /proc/$$/stat)
[ "$sid" != "$mysid" ] || fail "bwrap shares the starter's session"

# ---------------------------------------------------------------- freeze
t "freeze stops every process (cgroup v1 freezer)"
wait_for 30 counter_gt "$ID" 2 || fail "counter not running"
"$RT" freeze "$(sd "$ID")" 2>"$TMP/err" || fail "freeze failed"
[ "$(cat "/sys/fs/cgroup/freezer/allox/$P-$ID/freezer.state")" = FROZEN ] || fail "freezer.state not FROZEN"
c1=$(counter "$ID")
sleep 0.5
c2=$(counter "$ID")
[ "$c1" = "$c2" ] || fail "counter moved while frozen: $c1 -> $c2"

t "thaw resumes"
"$RT" thaw "$(sd "$ID")" 2>"$TMP/err" || fail "thaw failed"
wait_for 30 counter_gt "$ID" "$c2" || fail "counter stuck after thaw at $c2"

# ---------------------------------------------------------------- kill / remove
t "kill of a frozen sandbox leaves no process, mount or cgroup"
"$RT" freeze "$(sd "$ID")" 2>"$TMP/err" || fail "freeze failed"
t0=$(date +%s)
"$RT" kill "$(sd "$ID")" 2>"$TMP/err" || fail "kill failed"
[ $(($(date +%s) - t0)) -le 6 ] || fail "kill took too long"
no_trace "$ID" "rt-marker-$P-a"
[ "$("$RT" alive "$(sd "$ID")")" = 0 ] || fail "still alive"
"$RT" kill "$(sd "$ID")" 2>"$TMP/err" || fail "second kill is not a no-op"

t "remove_state deletes everything without following symlinks"
mkdir "$TMP/canary" && touch "$TMP/canary/keep"
ln -s "$TMP/canary" "$(gem "$ID" link)"
ln -s "$TMP/canary/keep" "$(gem "$ID" filelink)"
(cd "$(gem "$ID" "")" && i=0 && while [ $i -lt 1500 ]; do mkdir d && cd d || exit 1; i=$((i + 1)); done) ||
	fail "cannot build the deep tree"
"$RT" remove "$(sd "$ID")" 2>"$TMP/err" || fail "remove failed"
[ ! -e "$(sd "$ID")" ] || fail "$SB/$ID still exists"
[ -f "$TMP/canary/keep" ] || fail "symlink target was removed"
"$RT" remove "$(sd "$ID")" 2>"$TMP/err" || fail "removing a missing dir is an error"
"$RT" kill "$(sd b)" >/dev/null 2>&1
"$RT" remove "$(sd b)" 2>"$TMP/err" || fail "remove of b failed"

# ---------------------------------------------------------------- restart
t "a restarted sandbox keeps its writable layer; stale cgroups are recreated"
start_opts rs host --pids 8 -- /bin/sh -c "echo kept > /home/gem/kept; echo done > /home/gem/done # rt-marker-$P-rs"
wait_for 50 has rs done || fail "first run did not finish"
"$RT" kill "$(sd rs)" 2>"$TMP/err" || fail "kill failed"
mkdir /sys/fs/cgroup/pids/allox/$P-rs && echo 3 > /sys/fs/cgroup/pids/allox/$P-rs/pids.max   # as after a crash
rm "$(gem rs done)"
start_opts rs host -- /bin/sh -c 'cat /home/gem/kept > /home/gem/again; echo done > /home/gem/done'
[ "$rc" -eq 0 ] || fail "restart failed ($rc)"
[ "$(cat /sys/fs/cgroup/pids/allox/$P-rs/pids.max 2>/dev/null)" = max ] || fail "stale pids.max kept"
wait_for 50 has rs done || fail "second run did not finish"
[ "$(cat "$(gem rs again)")" = kept ] || fail "layer not kept across restarts"
"$RT" kill "$(sd rs)" 2>"$TMP/err" || fail "kill failed"
no_trace rs "rt-marker-$P-rs"

# ---------------------------------------------------------------- fds and env
t "only kept fds reach PID 1; env is clean plus spec env"
export RT_LEAK=1
exec 7>"$TMP/fd7"
start_opts fds host --keep-fd 7 --env FOO=bar --env HOME=/home/gem -- /bin/sh -c '
	echo via-fd7 >&7
	ls /proc/self/fd | tr "\n" " " > /home/gem/fds
	echo "$FOO|$HOME|$PATH|${RT_LEAK:-}" > /home/gem/env
	echo done > /home/gem/done'
exec 7>&-
unset RT_LEAK
[ "$rc" -eq 0 ] || fail "start failed ($rc)"
wait_for 50 has fds done || fail "sandbox did not finish"
[ "$(cat "$(gem fds fds)")" = "0 1 2 3 7 " ] || fail "fds inside: $(cat "$(gem fds fds)")"
grep -q via-fd7 "$TMP/fd7" || fail "fd 7 not passed through"
[ "$(cat "$(gem fds env)")" = "bar|/home/gem|/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin|" ] ||
	fail "env inside: $(cat "$(gem fds env)")"
"$RT" kill "$(sd fds)" 2>"$TMP/err" || fail "kill failed"

# ---------------------------------------------------------------- layers
t "checkpoint layers stack above the image, topmost first, whiteouts hide"
L1=$TMP/layers/l1
L2=$TMP/layers/l2
mkdir -p "$L1/top/home/gem" "$L1/etc" "$L2/etc" "$L2/usr/share"
echo one > "$L1/etc/which"
echo two > "$L2/etc/which"
echo layer > "$L1/top/home/gem/from-layer"
echo usr > "$L2/usr/share/from-layer"
mknod "$L1/etc/hostname" c 0 0   # an overlay whiteout, as a captured upper has
start_opts lay host --layer "$L1" --layer "$L2" -- /bin/sh -c '
	{ cat /etc/which /home/gem/from-layer /usr/share/from-layer; [ -e /etc/hostname ] && echo hostname-visible
	  [ -e /etc/hosts ] && echo hosts; } > /home/gem/seen 2>&1
	echo done > /home/gem/done'
[ "$rc" -eq 0 ] || fail "start failed ($rc)"
wait_for 50 has lay done || fail "sandbox did not finish"
[ "$(tr '\n' ' ' < "$(gem lay seen)")" = "one layer usr hosts " ] || fail "saw: $(cat "$(gem lay seen)")"
"$RT" kill "$(sd lay)" 2>"$TMP/err" || fail "kill failed"

t "/dev is bwrap's: devices, /proc/self/fd links, ptys, shm; a device node anywhere else stays unusable"
# The setup child builds /dev itself (rootfs_dev.c) and bwrap binds the root
# with --dev-bind: every other mount must carry its own nodev.
mkdir -p "$(sd devs)/writable/layer/top/home/gem"
mknod "$(sd devs)/writable/layer/top/home/gem/null-copy" c 1 3
# A layer made by hand belongs to a uid range we pick, outside the claimed ones.
UB=$((0x3ff00000))
chown -R $UB:$UB "$(sd devs)/writable/layer"
start_opts devs host --uid-base $UB -- /bin/sh -c '
	cd /dev && ls -A | tr "\n" " " > /home/gem/names
	for n in full null random tty urandom zero; do [ -c /dev/$n ] && printf "%s " $n; done > /home/gem/nodes
	echo x > /dev/null && head -c 16 /dev/urandom | wc -c > /home/gem/urandom
	readlink /dev/fd /dev/stdin /dev/ptmx | tr "\n" " " > /home/gem/links
	/usr/bin/python3 -c "import os; m, s = os.openpty(); print(os.ttyname(s))" > /home/gem/pty 2>&1
	echo shm > /dev/shm/probe && cat /dev/shm/probe > /home/gem/shm
	(echo x > /home/gem/null-copy) 2> /home/gem/nodev-err; echo $? > /home/gem/nodev-rc
	awk "\$5 == \"/\" || \$5 == \"/usr\" || \$5 == \"/dev\" || \$5 == \"/home/gem\" { print \$5, \$6 }" /proc/self/mountinfo > /home/gem/flags
	echo done > /home/gem/done'
[ "$rc" -eq 0 ] || fail "start failed ($rc)"
wait_for 50 has devs done || fail "sandbox did not finish: $(cat "$(sd devs)/console.log")"
[ "$(cat "$(gem devs names)")" = "core fd full null ptmx pts random shm stderr stdin stdout tty urandom zero " ] ||
	fail "names: $(cat "$(gem devs names)")"
[ "$(cat "$(gem devs nodes)")" = "full null random tty urandom zero " ] || fail "nodes: $(cat "$(gem devs nodes)")"
[ "$(cat "$(gem devs urandom)")" = 16 ] || fail "urandom: $(cat "$(gem devs urandom)")"
[ "$(cat "$(gem devs links)")" = "/proc/self/fd /proc/self/fd/0 pts/ptmx " ] || fail "links: $(cat "$(gem devs links)")"
grep -q '^/dev/pts/[0-9]*$' "$(gem devs pty)" || fail "pty: $(cat "$(gem devs pty)")"
[ "$(cat "$(gem devs shm)")" = shm ] || fail "shm: $(cat "$(gem devs shm)")"
[ "$(cat "$(gem devs nodev-rc)")" != 0 ] || fail "a device node in the layer was usable"
grep -q "Permission denied" "$(gem devs nodev-err)" || fail "nodev: $(cat "$(gem devs nodev-err)")"
[ "$(wc -l < "$(gem devs flags)")" -ge 3 ] || fail "mounts: $(cat "$(gem devs flags)")"
while read -r mp opts; do
	case ",$opts," in *,nodev,*) ;; *) fail "$mp lacks nodev: $opts" ;; esac
done < "$(gem devs flags)"
"$RT" kill "$(sd devs)" 2>"$TMP/err" || fail "kill failed"

# ---------------------------------------------------------------- rootfs
t "rootfs image: own tree, host agent runs through the host loader"
R=$TMP/rootfs
mkdir -p "$R/etc"
echo from-rootfs > "$R/etc/marker"
start_opts rfs "rootfs:$R" -- /bin/sh -c '
	read l < /etc/marker; echo "$l" > /home/gem/marker
	for f in /* /.allox/*; do echo "$f"; done > /home/gem/root
	[ -e /usr/bin ] && echo host-usr-visible >> /home/gem/root
	echo done > /home/gem/done'
[ "$rc" -eq 0 ] || fail "start failed ($rc)"
wait_for 50 has rfs done || fail "sandbox did not finish: $(cat "$(sd rfs)/console.log")"
[ "$(cat "$(gem rfs marker)")" = from-rootfs ] || fail "marker: $(cat "$(gem rfs marker)")"
grep -q '^/.allox/ld.so$' "$(gem rfs root)" || fail "no /.allox/ld.so: $(cat "$(gem rfs root)")"
grep -q host-usr-visible "$(gem rfs root)" && fail "host /usr visible in a rootfs image"
[ ! -e "$R/home" ] || fail "rootfs image was modified"
"$RT" kill "$(sd rfs)" 2>"$TMP/err" || fail "kill failed"

# ---------------------------------------------------------------- limits
t "memory, pids and cpu limits are written and enforced"
start_opts lim host --mem 67108864 --pids 16 --cpu 250 -- /bin/sh -c '
	python3 -c "b = b\"x\" * (256 << 20)" 2>/dev/null; echo $? > /home/gem/mem
	(for i in $(seq 40); do sleep 5 & done; wait) 2>/dev/null
	echo done > /home/gem/done # rt-marker-'"$P"'-lim'
[ "$rc" -eq 0 ] || fail "start failed ($rc)"
[ "$(cat /sys/fs/cgroup/memory/allox/$P-lim/memory.limit_in_bytes)" = 67108864 ] || fail "memory limit not set"
[ "$(cat /sys/fs/cgroup/pids/allox/$P-lim/pids.max)" = 16 ] || fail "pids.max not set"
if [ -d /sys/fs/cgroup/cpu/allox ]; then
	[ "$(cat /sys/fs/cgroup/cpu/allox/$P-lim/cpu.cfs_quota_us)" = 25000 ] || fail "cpu quota not set"
	[ "$(cat /sys/fs/cgroup/cpu/allox/$P-lim/cpu.cfs_period_us)" = 100000 ] || fail "cpu period not set"
fi
wait_for 150 has lim done || fail "sandbox did not finish"
[ "$(cat "$(gem lim mem)")" = 137 ] || fail "256 MiB allocation under a 64 MiB limit exited $(cat "$(gem lim mem)")"
grep -q '^max [1-9]' /sys/fs/cgroup/pids/allox/$P-lim/pids.events || fail "fork never hit pids.max"
"$RT" kill "$(sd lim)" 2>"$TMP/err" || fail "kill failed"
no_trace lim "rt-marker-$P-lim"

# ---------------------------------------------------------------- errors
t "setup errors come back as messages and leave nothing behind"
start_opts err1 host --keep-fd 57 -- /bin/true
[ "$rc" -eq 1 ] && grep -q "cannot pass fd 57 to the sandbox: Bad file descriptor" "$TMP/err" || fail "keep-fd error: $(cat "$TMP/err")"
printf '#!/nonexistent/interpreter\n' > "$TMP/bad.sh"
chmod +x "$TMP/bad.sh"
start_opts err2 host -- "$TMP/bad.sh"
[ "$rc" -eq 1 ] && grep -q "bwrap: execvp /.allox/bin/bad.sh" "$TMP/err" || fail "bwrap error: $(cat "$TMP/err")"
start_opts err3 rootfs:/nonexistent -- /bin/true
[ "$rc" -eq 1 ] && grep -q "rootfs image /nonexistent" "$TMP/err" || fail "rootfs error: $(cat "$TMP/err")"
start_opts err4 host -- relative/agent
[ "$rc" -eq 1 ] && grep -q "absolute host path" "$TMP/err" || fail "argv error: $(cat "$TMP/err")"
for n in err1 err2 err3 err4; do
	for c in freezer memory pids cpu; do
		[ ! -e "/sys/fs/cgroup/$c/allox/$P-$n" ] || fail "cgroup $c/allox/$P-$n left"
	done
done
start_opts dup host -- /bin/sh -c "sleep 30 # rt-marker-$P-dup"
start_opts dup host -- /bin/true
[ "$rc" -eq 1 ] && grep -q "already running" "$TMP/err" || fail "double start: $(cat "$TMP/err")"
"$RT" kill "$(sd dup)" 2>"$TMP/err" || fail "kill failed"
no_trace dup "rt-marker-$P-dup"

# ---------------------------------------------------------------- ALLOX_HOME in /var
t "ALLOX_HOME inside /var: /var is read-only, ALLOX_HOME covered"
VARHOME=$(mktemp -d /var/lib/allox-rt-test.XXXXXX)
mkdir -p "$VARHOME/engine/sandboxes/$P-vh" && touch "$VARHOME/secret"
# A host mount below /var must not come into the sandbox with the read-only
# bind of /var: a remount makes only the top mount read-only (and nodev).
VARSUB=$(mktemp -d /var/lib/allox-rt-sub.XXXXXX)
mount -t tmpfs -o size=64k tmpfs "$VARSUB" && touch "$VARSUB/host-mounted"
"$RT" start "$VARHOME/engine/sandboxes/$P-vh" host -- /bin/sh -c '
	ls -A "'"$VARHOME"'" > /home/gem/home 2>&1
	ls -A "'"$VARSUB"'" > /home/gem/sub 2>&1; touch "'"$VARSUB"'/x" 2>/dev/null && echo writable > /home/gem/subw
	touch /var/rt-x 2>/dev/null && echo writable > /home/gem/var
	ls /var/lib > /dev/null && echo listed > /home/gem/varlib
	echo done > /home/gem/done' >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] || fail "start failed ($rc)"
grep -q '/var is read-only' "$TMP/out" || fail "no note: $(cat "$TMP/out")"
vg=$VARHOME/engine/sandboxes/$P-vh/writable/layer/top/home/gem
wait_for 50 [ -e "$vg/done" ] || fail "sandbox did not finish"
# Empty, or not even listable (a 0700 directory is also in the host mask).
! grep -q -e secret -e engine "$vg/home" || fail "ALLOX_HOME visible: $(cat "$vg/home")"
[ ! -e "$vg/var" ] || fail "/var writable"
[ -e "$vg/varlib" ] || fail "/var/lib not listable"
[ ! -e /var/rt-x ] || fail "host /var changed"
grep -q host-mounted "$vg/sub" && fail "a host mount below /var came into the sandbox"
[ ! -e "$vg/subw" ] && [ ! -e "$VARSUB/x" ] || fail "a host mount below /var was writable from the sandbox"
"$RT" kill "$VARHOME/engine/sandboxes/$P-vh" 2>"$TMP/err" || fail "kill failed"
umount "$VARSUB" && rmdir "$VARSUB" && VARSUB=""

# ---------------------------------------------------------------- DNS
t "a resolv.conf symlink into /run resolves inside (systemd-resolved hosts)"
mkdir -p "$(sd dns)" "$TMP/fake-etc"
unshare -m sh -c '
	T=$1 RT=$2 SD=$3
	cp -a /etc/. "$T/fake-etc/" && ln -sf ../run/resolve-test/resolv.conf "$T/fake-etc/resolv.conf" &&
	mount --bind "$T/fake-etc" /etc && mount -t tmpfs tmpfs /run && mkdir /run/resolve-test &&
	echo "nameserver 192.0.2.53" > /run/resolve-test/resolv.conf || exit 9
	"$RT" start "$SD" host -- /bin/sh -c "cat /etc/resolv.conf > /home/gem/dns; ls /run > /home/gem/run" >/dev/null || exit 1
	i=0; while [ ! -s "$SD/writable/layer/top/home/gem/run" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	"$RT" kill "$SD"
' sh "$TMP" "$RT" "$(sd dns)" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] || fail "script failed ($rc)"
[ "$(cat "$(gem dns dns)")" = "nameserver 192.0.2.53" ] || fail "resolv.conf inside: $(cat "$(gem dns dns)")"
[ "$(cat "$(gem dns run)")" = resolve-test ] || fail "/run inside: $(cat "$(gem dns run)")"

# ---------------------------------------------------------------- fallbacks
# Each runs in a private mount namespace without some cgroup hierarchies, as
# on hosts that lack them; the runtime finds hierarchies through mountinfo.
fallback() { # fallback NAME UMOUNTS... : counter sandbox, freeze, thaw, kill; results in $TMP/NAME.*
	fname=$1
	shift
	mkdir -p "$(sd "$fname")"
	COUNTER=$COUNTER P=$P unshare -m sh -c '
		set -u
		RT=$1 SD=$2 R=$3
		shift 3
		cnt() {
			for _ in 1 2 3 4 5 6 7 8 9 10; do
				c=$(cat "$SD/writable/layer/top/home/gem/counter" 2>/dev/null); [ -n "$c" ] && break; sleep 0.02
			done
			echo "${c:-0}"
		}
		for m in "$@"; do umount "$m" || exit 9; done
		"$RT" start "$SD" host -- /bin/sh -c "$COUNTER # rt-marker-$P-fb" > "$R.start" 2>&1 || exit 1
		sleep 0.4
		"$RT" freeze "$SD" > "$R.freeze" 2>&1 || echo failed >> "$R.freeze"
		for p in $(ls /sys/fs/cgroup/unified/allox/*/cgroup.procs 2>/dev/null); do cat "$p"; done > "$R.v2procs"
		cat /sys/fs/cgroup/unified/allox/*/cgroup.events > "$R.events" 2>/dev/null
		ip=$(sed -n "s/.*\"init_pid\":\([0-9]*\).*/\1/p" "$SD/handle.json")
		sed "s/.*) \(.\).*/\1/" /proc/$ip/stat > "$R.state"
		c1=$(cnt); sleep 0.5; c2=$(cnt)
		echo "$c1 $c2" > "$R.frozen"
		"$RT" thaw "$SD" > "$R.thaw" 2>&1 || echo failed >> "$R.thaw"
		sleep 0.5; c3=$(cnt)
		echo "$c2 $c3" > "$R.thawed"
		"$RT" kill "$SD" > "$R.kill" 2>&1 || echo failed >> "$R.kill"
		ls /sys/fs/cgroup/unified/allox/ > "$R.v2left" 2>&1
		exit 0
	' sh "$RT" "$(sd "$fname")" "$TMP/$fname" "$@"
	rc=$?
}

check_fallback() { # check_fallback NAME: frozen counter stood still, thawed moved, kill clean
	[ "$rc" -eq 0 ] || fail "fallback script failed ($rc): $(cat "$TMP/$1.start" 2>/dev/null)"
	! grep -q failed "$TMP/$1.freeze" "$TMP/$1.thaw" "$TMP/$1.kill" ||
		fail "freeze/thaw/kill: $(cat "$TMP/$1.freeze" "$TMP/$1.thaw" "$TMP/$1.kill")"
	set -- "$1" $(cat "$TMP/$1.frozen") $(cat "$TMP/$1.thawed")
	[ "$#" -eq 5 ] && [ "$2" = "$3" ] || fail "counter moved while frozen: $2 -> $3"
	[ "$#" -eq 5 ] && [ "$5" -gt "$4" ] || fail "counter stuck after thaw"
	no_trace "$1" "rt-marker-$P-fb"
}

t "without a v1 freezer, cgroup2's cgroup.freeze is used"
fallback v2f /sys/fs/cgroup/freezer
check_fallback v2f
grep -q '"cgroup":true' "$TMP/v2f.start" || fail "not using cgroups: $(cat "$TMP/v2f.start")"
grep -q 'frozen 1' "$TMP/v2f.events" || fail "cgroup.events: $(cat "$TMP/v2f.events")"
[ -s "$TMP/v2f.v2procs" ] || fail "sandbox not in a cgroup2 group"
! grep -qx "$P-v2f" "$TMP/v2f.v2left" || fail "cgroup2 dir left"

t "without any cgroups, SIGSTOP/SIGCONT of the pid namespace is used"
fallback nocg /sys/fs/cgroup/freezer /sys/fs/cgroup/memory /sys/fs/cgroup/pids /sys/fs/cgroup/cpu /sys/fs/cgroup/unified
check_fallback nocg
grep -q '"cgroup":false' "$TMP/nocg.start" || fail "claims cgroups: $(cat "$TMP/nocg.start")"
grep -q 'SIGSTOP' "$TMP/nocg.start" || fail "no note: $(cat "$TMP/nocg.start")"
[ "$(cat "$TMP/nocg.state")" = T ] || fail "PID 1 state while frozen: $(cat "$TMP/nocg.state")"

summary
