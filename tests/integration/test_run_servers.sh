#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `nagle-trace run` with the servers an incident is usually about, from
# Debian's packages, as they come: nginx with its stock configuration (its
# workers switch to www-data), PostgreSQL (initdb and postgres as their own
# user, pgbench started through --ready), beanstalkd with a client that
# writes the `put` line and the job body separately, `redis-server
# --daemonize yes` (followed, stopped at the end), and a server that writes
# its reply in two parts (the hold is at the target; only nodelay-target
# removes it, and the comparison says why quickack cannot). Under plain
# `unshare -Urn` the stock nginx fails, and the run names the one-uid user
# namespace and the way out.
#
# The servers that switch user run under real root (CI runs as root): that
# is the invocation docs/run.md gives for them.
set -eu
. "$(dirname "$0")/lib.sh"
: "${NT_SOURCE_DIR:?NT_SOURCE_DIR must point at the source tree}"
need_unshare
need_root
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$PG_BIN" ] || PG_BIN=/nonexistent
for t in nginx beanstalkd redis-server redis-benchmark pgbench pg_isready runuser python3 \
	"$PG_BIN/initdb" "$PG_BIN/postgres" mosquitto mosquitto_pub newuidmap newgidmap; do
	need_tool "$t"
done
jsonschema_python || fail "python3-jsonschema is not installed (README's setup command installs it)"
PROGS="$NT_SOURCE_DIR/tests/programs"
SECONDS=0

# run [unshare | mounts SCRIPT | mapauto SCRIPT] ARGS...: nagle-trace run, as
# real root, under `unshare -Urn` when the first word is "unshare"; "mounts"
# runs SCRIPT first in a private mount namespace of the test's, as real root;
# "mapauto" gives that namespace an /etc/subuid and /etc/subgid range for root
# and runs SCRIPT and nagle-trace under `unshare --map-auto -Urnm`. $rc,
# stdout in $NT_TMP/out, stderr in $NT_TMP/err. Nothing is mounted on the host.
cat >"$NT_TMP/mapauto.sh" <<'SH'
# mapauto.sh SCRIPT CMD...: in the test's mount namespace, a subordinate
# range for root over /etc/subuid and /etc/subgid (a tmpfs's files bound over
# them), then SCRIPT and CMD under `unshare --map-auto -Urnm`.
set -eu
script=$1
shift
d=$(mktemp -d)
mount -t tmpfs nt-subid "$d"
for f in subuid subgid; do
	[ -e /etc/$f ] || { echo "no /etc/$f to bind a range over (the passwd package makes it)" >&2; exit 1; }
	echo "root:100000:65536" >"$d/$f"
	mount --bind "$d/$f" /etc/$f
done
exec unshare --map-auto -Urnm sh -euc "$script"'
exec "$@"' sh "$@"
SH

run() {
	local pre=()
	case $1 in
	unshare)
		pre=(unshare -Urn)
		shift
		;;
	mounts)
		pre=(unshare -m --propagation private sh -euc "$2"'
exec "$0" "$@"')
		shift 2
		;;
	mapauto)
		pre=(unshare -m --propagation private sh "$NT_TMP/mapauto.sh" "$2")
		shift 2
		;;
	esac
	set +e
	"${pre[@]}" "$NAGLE_TRACE" run "$@" >"$NT_TMP/out" 2>"$NT_TMP/err"
	rc=$?
	set -e
}

said() {
	grep -qE -- "$2" "$1" || {
		cat "$1" >&2
		fail "$(basename "$1") lacks /$2/"
	}
}

ok() {
	[ "$rc" = 0 ] || {
		cat "$NT_TMP/err" "$NT_TMP/out" >&2
		fail "$1: exit $rc, want 0"
	}
}

# row FILE FIX: the comparison row of FIX in a text report.
row() {
	grep -E "^$2 +exit" "$1" || fail "no comparison row for $2 in $1"
}

# stalls FILE FIX: its stall count.
stalls() {
	row "$1" "$2" | awk '{ print $4 }'
}

validate() {
	"$py" - "$NT_SOURCE_DIR/docs" "$@" <<'PY'
import json, os, sys, warnings
import jsonschema
warnings.simplefilter("ignore", DeprecationWarning)
run = json.load(open(os.path.join(sys.argv[1], "nagle-trace-run.schema.json")))
analyze = json.load(open(os.path.join(sys.argv[1], "nagle-trace-analyze.schema.json")))
resolver = jsonschema.RefResolver.from_schema(run, store={analyze["$id"]: analyze})
v = jsonschema.Draft202012Validator(run, resolver=resolver)
bad = 0
for path in sys.argv[2:]:
    for e in sorted(v.iter_errors(json.load(open(path))), key=str)[:5]:
        print(path, "schema:", "/".join(map(str, e.absolute_path)), e.message[:200], file=sys.stderr)
        bad = 1
sys.exit(bad)
PY
}

# no_process NAME: no process of that name is left, within a second.
no_process() {
	for _ in $(seq 10); do
		pgrep -x "$1" >/dev/null || return 0
		sleep 0.1
	done
	fail "a $1 process outlived the run: $(pgrep -ax "$1")"
}

# 1. nginx, stock configuration, under plain `unshare -Urn`: its chown() to
# www-data fails there (one uid mapped); the run says why and how to run it.
run unshare --target 'nginx -g "daemon off;"' --client 'true' --brief
[ "$rc" = 3 ] || fail "nginx under unshare -Urn: exit $rc, want 3"
said "$NT_TMP/err" "the target never listened: it exited first"
said "$NT_TMP/err" "maps a single uid .*sudo nagle-trace run .*unshare --map-auto --map-root-user"
no_process nginx

# 2. The same nginx as real root, with a client that writes each request's
# headers and their closing blank line separately: 19 of 20 requests stall,
# nodelay and quickack remove them, and the conclusion names the cheaper.
# Its pid file goes to the run's own /run: the host's /run/nginx.pid (a
# running nginx's, or none) is left as it was.
host_pid=$(cat /run/nginx.pid 2>&1 || true)
run --target 'nginx -g "daemon off;"' --client "bash $PROGS/http_split.sh target 80 20" \
	--fix none,nodelay,quickack --brief -o "$NT_TMP/nginx.txt"
ok "nginx"
said "$NT_TMP/nginx.txt" "listened on (0\.0\.0\.0|::) port 80 after"
s=$(stalls "$NT_TMP/nginx.txt" none)
[ "$s" -ge 15 ] || fail "nginx: $s stalls without a fix, want 15..20"
[ "$(stalls "$NT_TMP/nginx.txt" nodelay)" = 0 ] || fail "nginx: nodelay left stalls"
[ "$(stalls "$NT_TMP/nginx.txt" quickack)" = 0 ] || fail "nginx: quickack left stalls"
said "$NT_TMP/nginx.txt" "^none +exit 0 +[0-9]+ client [0-9]+ "
said "$NT_TMP/nginx.txt" "^conclusion: (nodelay|quickack) removed the stalls at the least cost"
said "$NT_TMP/nginx.txt" "the data was held at the client"
if grep -q "^target: Terminated" "$NT_TMP/err"; then
	fail "the shell's \"Terminated\" still reaches stderr"
fi
[ "$(cat /run/nginx.pid 2>&1 || true)" = "$host_pid" ] || fail "the run changed the host's /run/nginx.pid"
no_process nginx

# 3. nginx as it starts by default: it forks into the background. Followed,
# not reported failed, and stopped at the end.
run --target 'nginx' --client "bash $PROGS/http_split.sh target 80 3" --brief
ok "nginx daemonized"
said "$NT_TMP/out" "forked into the background .*followed, and stopped at the end"
no_process nginx

# 4. PostgreSQL: initdb and postgres as the postgres user (both refuse
# root), pgbench started once pg_isready answers. The cluster is the test's
# own: its pg_hba.conf gets the lab's network.
chmod 0711 "$NT_TMP"
pg=$NT_TMP/pg
mkdir -m 0700 "$pg" && chown postgres: "$pg"
t0=$SECONDS
pgtarget="runuser -u postgres -- sh -c '$PG_BIN/initdb -D $pg/db -A trust -U postgres --no-sync >/dev/null &&
echo \"host all all 192.0.2.0/24 trust\" >>$pg/db/pg_hba.conf &&
exec $PG_BIN/postgres -D $pg/db -c listen_addresses=\"*\" -k $pg'"
run --target "$pgtarget" --ready 'pg_isready -q -h target -U postgres' \
	--client 'pgbench -h target -U postgres -i -q postgres && pgbench -h target -U postgres -c 1 -t 50 postgres' \
	--wait-port 5432 --listen-timeout 30 --format json -o "$NT_TMP/pg.json"
ok "postgres with --ready"
validate "$NT_TMP/pg.json" || fail "the PostgreSQL run's JSON does not match the schema"
json_check "$NT_TMP/pg.json" '
r = doc["run"]
assert r["listener"]["port"] == 5432, r["listener"]
assert r["ready"]["cmd"].startswith("pg_isready") and r["ready"]["tries"] >= 1, r["ready"]
assert r["ready"]["wait_ns"] >= r["listener"]["wait_ns"], r["ready"]
assert r["client"]["exit_status"] == 0, r["client"]
assert r["exchanges"]["count"] >= 50, r["exchanges"]
'
said "$NT_TMP/out" "number of transactions actually processed: 50/50"
echo "PostgreSQL (initdb + start + pgbench) took $((SECONDS - t0)) s" >&2
no_process postgres

# 5. beanstalkd with a client writing the put line and the job body
# separately: 19 of 20 stall; nodelay and quickack bring them to 0.
run unshare --target 'beanstalkd -l 0.0.0.0 -p 11300' \
	--client "bash $PROGS/beanstalk_put.sh target 11300 20" --fix none,nodelay,quickack \
	--brief -o "$NT_TMP/bs.txt"
ok "beanstalkd"
s=$(stalls "$NT_TMP/bs.txt" none)
[ "$s" -ge 15 ] || fail "beanstalkd: $s stalls without a fix, want 15..20"
[ "$(stalls "$NT_TMP/bs.txt" nodelay)" = 0 ] || fail "beanstalkd: nodelay left stalls"
[ "$(stalls "$NT_TMP/bs.txt" quickack)" = 0 ] || fail "beanstalkd: quickack left stalls"
said "$NT_TMP/out" "beanstalk_put.sh: 20 jobs put"

# 6. redis-server --daemonize yes: its command exits 0 at once; followed,
# and nothing of it is left after the run.
run unshare --target 'redis-server --port 6380 --daemonize yes --save "" --protected-mode no' \
	--client 'redis-benchmark -h target -p 6380 -c 1 -n 200 -q -t set' --brief
ok "redis --daemonize yes"
said "$NT_TMP/out" "forked into the background"
said "$NT_TMP/out" "exit status 0 after"
no_process redis-server

# 7. A server that writes its reply in two parts, a client that writes each
# request in one: the hold is at the target. nodelay and quickack cannot
# help (the comparison says why, with the kernel rule), nodelay-target can.
run unshare --target "python3 $PROGS/server.py 7000 --split-reply" \
	--client "python3 $PROGS/client.py target 7000 20 --one-write" \
	--fix none,nodelay,quickack,nodelay-target --brief -o "$NT_TMP/split.txt"
ok "split reply"
# At least 15 of 20 (more than 20 on a busy machine: a late reply can stall twice).
said "$NT_TMP/split.txt" "^none +exit 0 +[0-9]+ target [0-9]+ "
[ "$(stalls "$NT_TMP/split.txt" none)" -ge 15 ] || fail "split reply: fewer than 15 stalls"
[ "$(stalls "$NT_TMP/split.txt" quickack)" -ge 15 ] || fail "quickack removed a hold at the target"
[ "$(stalls "$NT_TMP/split.txt" nodelay-target)" = 0 ] || fail "nodelay-target left stalls"
said "$NT_TMP/split.txt" "^  quickack: cannot help a hold at the target: .*__tcp_ack_snd_check\(\)"
said "$NT_TMP/split.txt" "^  nodelay: cannot help a hold at the target: .*tcp_nagle_check\(\) runs on the sender"
said "$NT_TMP/split.txt" "^  none: [0-9]+ stalls of [0-9.]+ ms each on average hide behind a request -> answer p50"
said "$NT_TMP/split.txt" "^conclusion: nodelay-target removed the stalls at the least cost"
run unshare --target "python3 $PROGS/server.py 7000 --split-reply" \
	--client "python3 $PROGS/client.py target 7000 20 --one-write" \
	--fix none,nodelay-target --format json -o "$NT_TMP/split.json"
ok "split reply, json"
validate "$NT_TMP/split.json" || fail "the comparison's JSON does not match the schema"
json_check "$NT_TMP/split.json" '
c = doc["conclusion"]
assert c["held"] == "target" and c["best"] == "nodelay-target", c
assert c["stalls_before"] >= 15 and c["stalls_after"] == 0, c
rows = {r["fix"]: r for r in doc["comparison"]}
assert rows["none"]["held_target"] >= 15 and rows["none"]["held_client"] == 0, rows["none"]
# The stall behind a healthy median, request by request: the answer began
# at once (its first segment was not held), its tail lost a delayed ACK.
sr = doc["runs"][0]["run"]["stalled_requests"]
assert len(sr) == rows["none"]["stalls"], (len(sr), rows["none"])
for x in sr:
    assert x["held"] == "target" and x["request"] >= 1, x
    assert x["answer_ns"] < 20e6 < DELACK_LO_NS < x["stall_ns"], x
'

# 7b. A stall behind a healthy median the other way: every third request is
# written in two parts, so p50 is a fast request's while a third of them
# stall. Not every second: with 10 of 20 stalled, p50 is the slowest fast
# request, and one that a busy machine held 14 ms put it past a quarter of
# the stall (CI). Named, each stalled request with its own request -> answer
# time.
run unshare --target "python3 $PROGS/server.py 7000" \
	--client "python3 $PROGS/client.py target 7000 20 --split-every 3" --brief -o "$NT_TMP/half.txt"
ok "third split"
said "$NT_TMP/half.txt" "^  none: [0-9]+ stalls of [0-9.]+ ms each on average hide behind a request -> answer p50 of [0-9.]+ ms: only [0-9]+ of 20 requests stalled, and those took [0-9]{2}\.[0-9]+ ms"
said "$NT_TMP/half.txt" "^          6 +[0-9.]+ +[0-9]{2}\.[0-9]+  client 4 B "
run unshare --target "python3 $PROGS/server.py 7000" \
	--client "python3 $PROGS/client.py target 7000 20 --split-every 3" --format json -o "$NT_TMP/half.json"
ok "third split, json"
json_check "$NT_TMP/half.json" '
sr = doc["run"]["stalled_requests"]
assert 4 <= len(sr) <= 6, sr
assert all(x["request"] % 3 == 0 and x["answer_ns"] > DELACK_LO_NS for x in sr), sr
assert doc["run"]["exchanges"]["p50_ns"] < 20e6, doc["run"]["exchanges"]
'

# 8. --ready-log: the client waits for the target's line; a --ready that
# never succeeds ends the run within --listen-timeout, named.
run unshare --target "python3 $PROGS/server.py 7000" --client 'true' \
	--ready-log 'listening on port [0-9]+$' --brief
ok "--ready-log"
said "$NT_TMP/out" "--ready-log .* matched"
run unshare --target "python3 $PROGS/server.py 7000" --client 'true' --ready false \
	--listen-timeout 4 --brief
[ "$rc" = 3 ] || fail "--ready false: exit $rc, want 3"
said "$NT_TMP/err" "listened but was not ready within --listen-timeout 4.000 s: --ready \"false\" never exited 0"
run unshare --target true --client true --ready-log '('
[ "$rc" = 2 ] || fail "--ready-log '(': exit $rc, want 2"
said "$NT_TMP/err" "--ready-log: \"\(\" is not a regular expression"
# 9. mosquitto with Debian's configuration, as real root. It drops to the
# mosquitto user and then writes /run/mosquitto/mosquitto.pid, in the
# directory its unit's ExecStartPre makes: the run's own /run has it, and the
# host's /run is left alone. As shipped it has no listener, so mosquitto 2
# listens on the loopback only ("local only mode"), which the run names.
# Debian's file says where a listener goes (conf.d/); the test's is bound over
# conf.d in a mount namespace of its own, with its own log and database
# directories, so that nothing of the host's changes.
# The host's /run/mosquitto, if its own broker runs: the same before and after.
host_run() { ls -la --time-style=+%s.%N /run/mosquitto 2>&1 | sed 1d; cat /run/mosquitto/mosquitto.pid 2>&1 || true; }
host_mq=$(host_run)
mq=$NT_TMP/mq
mkdir -p "$mq/conf.d" "$mq/log" "$mq/lib"
printf 'listener 1883\nallow_anonymous true\n' >"$mq/conf.d/lab.conf"
chown mosquitto "$mq/log" "$mq/lib"
mqmounts="mount --bind $mq/log /var/log/mosquitto; mount --bind $mq/lib /var/lib/mosquitto"
run mounts "$mqmounts" --target 'mosquitto -c /etc/mosquitto/mosquitto.conf' --client true \
	--listen-timeout 3 --brief
[ "$rc" = 3 ] || fail "mosquitto without a listener: exit $rc, want 3"
# Local only mode listens on 127.0.0.1 and ::1: the run names the one it saw
# first, which depends on when it looked between mosquitto's two bind()s.
said "$NT_TMP/out" "never listened where the client could reach it \(it listened on (127\.0\.0\.1|::1) port 1883\)"
run mounts "$mqmounts; mount --bind $mq/conf.d /etc/mosquitto/conf.d" \
	--target 'mosquitto -c /etc/mosquitto/mosquitto.conf' \
	--client "python3 $PROGS/mqtt_publish.py target 1883 20" --fix none,nodelay,quickack \
	--brief -o "$NT_TMP/mq.txt"
ok "mosquitto"
if grep -q "Unable to write pid file" "$NT_TMP/err"; then
	fail "mosquitto could not write its pid file in the run's /run"
fi
said "$NT_TMP/mq.txt" "listened on (0\.0\.0\.0|::) port 1883 after"
said "$NT_TMP/out" "mqtt_publish.py: 20 messages in"
s=$(stalls "$NT_TMP/mq.txt" none)
[ "$s" -ge 15 ] || fail "mosquitto: $s stalls without a fix, want 15..20"
[ "$(stalls "$NT_TMP/mq.txt" nodelay)" = 0 ] || fail "mosquitto: nodelay left stalls"
[ "$(stalls "$NT_TMP/mq.txt" quickack)" = 0 ] || fail "mosquitto: quickack left stalls"
[ "$(host_run)" = "$host_mq" ] || fail "the run changed the host's /run/mosquitto"
no_process mosquitto
run unshare --target 'mosquitto -c /etc/mosquitto/mosquitto.conf' --client true --brief
[ "$rc" = 3 ] || fail "mosquitto under unshare -Urn: exit $rc, want 3"
said "$NT_TMP/err" "target: .*Error setting groups whilst dropping privileges"
said "$NT_TMP/err" "maps a single uid"

# 10. `unshare --map-auto`: uid 0 and a subordinate range of 65535 ids, so
# nginx's workers become www-data and runuser becomes postgres. nginx's own
# directories are the host's, owned by users the namespace does not map:
# tmpfs over them, in the namespace nagle-trace runs in (the docs' command).
nginx_state=$(stat -c '%U %a' /var/lib/nginx /var/log/nginx)
run mapauto 'mount -t tmpfs nginx-log /var/log/nginx; mount -t tmpfs nginx-lib /var/lib/nginx' \
	--target 'nginx -g "daemon off;"' --client "bash $PROGS/http_split.sh target 80 20" \
	--fix none,nodelay --brief -o "$NT_TMP/ma.txt"
ok "nginx under --map-auto"
s=$(stalls "$NT_TMP/ma.txt" none)
[ "$s" -ge 15 ] || fail "nginx under --map-auto: $s stalls without a fix, want 15..20"
[ "$(stalls "$NT_TMP/ma.txt" nodelay)" = 0 ] || fail "nginx under --map-auto: nodelay left stalls"
[ "$(stat -c '%U %a' /var/lib/nginx /var/log/nginx)" = "$nginx_state" ] ||
	fail "the --map-auto run changed the host's nginx directories"
no_process nginx
pgma=$NT_TMP/pgma
mkdir -m 0711 "$pgma"
run mapauto "mkdir -m 0700 $pgma/c && chown postgres: $pgma/c" \
	--target "${pgtarget//$pg/$pgma/c}" --ready 'pg_isready -q -h target -U postgres' \
	--client 'pgbench -h target -U postgres -i -q postgres && pgbench -h target -U postgres -c 1 -t 50 postgres' \
	--wait-port 5432 --listen-timeout 30 --brief
ok "postgres under --map-auto"
said "$NT_TMP/err" "number of transactions actually processed: 50/50"
[ "$(stat -c %u "$pgma/c")" -ge 100000 ] || fail "the cluster is not owned by a subordinate uid"
no_process postgres
echo "test_run_servers: $SECONDS s" >&2
echo "ok"
