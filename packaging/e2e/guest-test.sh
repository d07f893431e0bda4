#!/bin/bash
# Runs INSIDE a booted Debian 12 VM as root, after `dpkg -i dormouse_*.deb`
# succeeded (packaging/e2e/vm-e2e.sh; `make e2e-vm`). Exit code = result.
# Uses only what the base image has (systemd, curl, dpkg, apt).
set -u
fail=0
ok()    { echo "ok   - $*"; }
bad()   { echo "FAIL - $*"; fail=1; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
hdr()   { echo; echo "### $*"; }
ms()    { awk '{printf "%d", $1 * 1000}' /proc/uptime; }
# wait_for SECONDS CMD...: poll until CMD succeeds
wait_for() { local n=$(( $1 * 5 )); shift; for _ in $(seq 1 "$n"); do "$@" && return 0; sleep 0.2; done; "$@"; }
prop()  { systemctl show -p "$2" --value "$1"; }
has()   { grep -q -- "$1" <<<"$2"; }  # has PATTERN TEXT
API=http://127.0.0.1:7733
ADMIN=alice
as_admin() { runuser -u "$ADMIN" -- "$@"; }
TIMERS=$(cd /usr/lib/systemd/system && ls dormouse*.timer 2>/dev/null)
DEB=$(ls /mnt/e2e/dormouse_*.deb | head -1)

hdr "installed package"
dpkg -s dormouse | grep -E '^(Package|Version|Architecture|Status):'
echo "timers shipped: ${TIMERS:-none}"
check "dormouse version = package version" \
  test "$(dormouse version)" = "dormouse $(dpkg-query -W -f='${Version}' dormouse)"

hdr "system user and directories"
getent passwd dormouse
check "system user dormouse exists (home /var/lib/dormouse, nologin)" \
  bash -c 'getent passwd dormouse | grep -q ":/var/lib/dormouse:/usr/sbin/nologin$"'
check "user is a system user (uid < 1000)" test "$(id -u dormouse)" -lt 1000
stat -c '%A %U:%G %n' /var/lib/dormouse /etc/dormouse /etc/dormouse/dormouse.yaml /etc/default/dormouse
check "/var/lib/dormouse is dormouse:dormouse 0750" test "$(stat -c '%a %U:%G' /var/lib/dormouse)" = "750 dormouse:dormouse"
check "/etc/default/dormouse is root-only 0600" test "$(stat -c '%a %U' /etc/default/dormouse)" = "600 root"
check "/var/backups/dormouse is dormouse:dormouse 0700" test "$(stat -c '%a %U:%G' /var/backups/dormouse)" = "700 dormouse:dormouse"
check "the shipped config puts backups in /var/backups/dormouse" grep -q '^  dir: /var/backups/dormouse$' /etc/dormouse/dormouse.yaml
check "changelog.Debian.gz is in /usr/share/doc/dormouse" bash -c "zcat /usr/share/doc/dormouse/changelog.Debian.gz | head -n 1 | grep -q '^dormouse ($(dpkg-query -W -f='${Version}' dormouse)) '"
check "conffiles are exactly the two in /etc" \
  test "$(dpkg-query -W -f='${Conffiles}\n' dormouse | awk 'NF{print $1}' | sort | tr '\n' ' ')" = "/etc/default/dormouse /etc/dormouse/dormouse.yaml "

hdr "dormouse.service: READY handshake, watchdog"
systemctl status --no-pager dormouse.service | head -n 12
check "dormouse.service active (READY=1 received)" systemctl is-active --quiet dormouse.service
check "dormouse.service enabled" systemctl is-enabled --quiet dormouse.service
systemctl show -p Type,NotifyAccess,User,WatchdogUSec,MainPID,StatusText,NRestarts,StateDirectoryMode dormouse.service
check "StatusText came through" bash -c '[[ "$(systemctl show -p StatusText --value dormouse.service)" == serving* ]]'
check "watchdog armed (WatchdogUSec=30s)" test "$(prop dormouse.service WatchdogUSec)" = 30s
check "runs as dormouse" test "$(stat -c %U "/proc/$(prop dormouse.service MainPID)")" = dormouse

hdr "timers"
systemctl list-timers --all --no-pager
for t in $TIMERS; do
  check "$t enabled" systemctl is-enabled --quiet "$t"
  check "$t active" systemctl is-active --quiet "$t"
  check "list-timers shows $t with a next run" \
    bash -c "systemctl list-timers --no-pager --no-legend '$t' | grep -q '$t' && [ -n \"\$(systemctl show -p NextElapseUSecRealtime --value '$t')\" ]"
done
if [ -e /usr/lib/systemd/system/dormouse-consolidate.timer ]; then
  next=$(prop dormouse-consolidate.timer NextElapseUSecRealtime)
  echo "dormouse-consolidate.timer NextElapseUSecRealtime=$next"
  check "consolidation timer next run at 00:00:00 (+ randomized delay)" bash -c "[[ '$next' == *' 00:0'[0-5]':'* ]]"
fi

hdr "systemd-analyze verify / security on the installed units"
out=$(systemd-analyze verify /usr/lib/systemd/system/dormouse*.service /usr/lib/systemd/system/dormouse*.timer 2>&1); vrc=$?
echo "rc=$vrc output: ${out:-<none>}"
check "systemd-analyze verify clean" test "$vrc" -eq 0 -a -z "$out"
score=$(systemd-analyze security --no-pager dormouse.service 2>&1 | sed -n 's/.*Overall exposure level for dormouse.service: \([0-9.]*\).*/\1/p')
echo "exposure: $score"
check "systemd-analyze security exposure <= 2.0" awk -v s="$score" 'BEGIN{exit !(s != "" && s <= 2.0)}'

hdr "health endpoints on 127.0.0.1:7733"
for p in /healthz /readyz; do
  echo "GET $p -> $(curl -sS --max-time 5 -w ' [%{http_code}]' "$API$p")"
  check "GET $p = 200" curl -fsS -o /dev/null --max-time 5 "$API$p"
done

hdr "web page: the timers as the sandboxed service sees them (systemctl show over D-Bus)"
curl -fsS --max-time 10 -o /tmp/index.html "$API/" && sed -n '/<h2>Timers<\/h2>/,/<\/table>/p' /tmp/index.html
check "GET / shows dormouse-consolidate.timer's next run" \
  bash -c "grep -A3 '<td>dormouse-consolidate.timer</td>' /tmp/index.html | grep -q '<td>20[0-9][0-9]-'"

hdr "CLI as a non-root admin user ($ADMIN)"
useradd --create-home --shell /bin/bash "$ADMIN"
check "ingest as $ADMIN" as_admin dormouse ingest --agent main --role user "Alice keeps the spare key under the blue flowerpot"
check "ingest from stdin as $ADMIN" as_admin bash -c 'echo "The wifi password changed on Monday" | dormouse ingest --agent main --session notes'
recall=$(as_admin dormouse recall --agent main --json "where is the spare key?" 2>&1); echo "$recall" | head -c 600; echo
check "recall as $ADMIN finds the memory" grep -q "blue flowerpot" <<<"$recall"
check "agent file owned by dormouse, 0600" test "$(stat -c '%a %U' /var/lib/dormouse/agents/main.db)" = "600 dormouse"
check "$ADMIN cannot read the data directory (0750 dormouse)" bash -c "! runuser -u $ADMIN -- ls /var/lib/dormouse >/dev/null 2>&1"

hdr "watchdog pings arrive (only while /healthz and the store answer)"
# The daemon pings every 15 s; the first ping comes right after READY.
start=$(prop dormouse.service ExecMainStartTimestampMonotonic)
wd=$(prop dormouse.service WatchdogTimestampMonotonic)
echo "ExecMainStart=$start WatchdogTimestamp=$wd (monotonic us)"
check "a WATCHDOG=1 ping was received" test "${wd:-0}" -gt 0
check "journal: watchdog enabled" bash -c "journalctl -u dormouse.service --no-pager -o cat | grep -q 'systemd watchdog enabled'"

if [ -e /usr/lib/systemd/system/dormouse-consolidate.service ]; then
  hdr "systemctl start dormouse-consolidate (the timer's job)"
  # A memory of a past day, so the job has a day to consolidate (today's wait for midnight).
  check "ingest a memory dated two days ago" as_admin dormouse ingest --agent main --at "$(date -d '12:00 2 days ago' -Iseconds)" "Bob fixed the garden fence on Saturday"
  t=$(ms); systemctl start dormouse-consolidate.service; src=$?
  echo "rc=$src took $(( $(ms) - t )) ms"
  check "consolidation job succeeded" test "$src" -eq 0 -a "$(prop dormouse-consolidate.service Result)" = success
  journalctl -u dormouse-consolidate.service --no-pager -o cat | tail -n 8
  check "journal shows the consolidation run" \
    bash -c '[ -n "$(journalctl -u dormouse-consolidate.service --no-pager -o cat | grep -v -e "^Starting" -e "^Finished" -e "Deactivated")" ]'
  # Native journal entries: the run's fields, the level as PRIORITY.
  entry=$(journalctl -u dormouse-consolidate.service --no-pager -o json SYSLOG_IDENTIFIER=dormouse | grep '"MESSAGE":"consolidated ' | tail -n 1)
  echo "$entry" | tr ',' '\n' | grep -E '"(PRIORITY|SYSLOG_IDENTIFIER|MESSAGE|AGENT|RUN_ID|DAY|MEMORIES|CODE_FUNC)"'
  check "journal entry of the run has AGENT=main" grep -q '"AGENT":"main"' <<<"$entry"
  check "journal entry of the run has RUN_ID=" grep -qE '"RUN_ID":"[1-9][0-9]*"' <<<"$entry"
  check "journal entry of the run has PRIORITY=6 (info)" grep -q '"PRIORITY":"6"' <<<"$entry"
  check "journalctl AGENT=main finds the daemon's and the job's entries" \
    bash -c '[ "$(journalctl --no-pager -o cat AGENT=main | wc -l)" -ge 1 ]'
  metrics=$(curl -fsS --max-time 10 "$API/metrics")
  echo "$metrics" | grep -E '^dormouse_consolidation_(runs_total|tokens_total|duration_seconds_count)' | head
  check "/metrics counts the job's run (runs by outcome)" grep -qE '^dormouse_consolidation_runs_total\{agent="main",outcome="ok"\} [1-9]' <<<"$metrics"
  check "/metrics has the run duration histogram" grep -qE '^dormouse_consolidation_duration_seconds_count\{agent="main"\} [1-9]' <<<"$metrics"
fi

hdr "daemon logs to the journal natively"
journalctl -u dormouse.service --no-pager -o json SYSLOG_IDENTIFIER=dormouse | grep '"MESSAGE":"health summary' | head -n 1 | tr ',' '\n' | grep -E '"(PRIORITY|MESSAGE|STATE|AGENTS|MEMORIES)"'
check "daemon entries carry SYSLOG_IDENTIFIER=dormouse and PRIORITY" \
  bash -c 'journalctl -u dormouse.service --no-pager -o verbose SYSLOG_IDENTIFIER=dormouse | grep -qE "^ *PRIORITY=[0-7]$"'
check "health summary logged with its fields (STATE=)" \
  bash -c 'journalctl -u dormouse.service --no-pager -o verbose SYSLOG_IDENTIFIER=dormouse | grep -qE "^ *STATE=(ok|degraded|failing)$"'
check "a request id comes back in X-Request-Id" bash -c "curl -fsS -D - -o /dev/null -H 'X-Request-Id: e2e-req-1' $API/healthz | grep -qi '^x-request-id: e2e-req-1'"
st=$(prop dormouse.service StatusText); echo "StatusText=$st"
check "STATUS= has agents, memories, backlog, last consolidation" \
  bash -c "[[ '$st' == serving*agents*memories*unconsolidated*'last consolidated day'* ]]"
health=$(curl -sS --max-time 10 "$API/health"); echo "$health" | head -c 400; echo
check "/health has per-agent consolidation totals" grep -q '"consolidation_runs"' <<<"$health"

hdr "backup: the timer's job, verified copies, restore"
if [ -e /usr/lib/systemd/system/dormouse-backup.service ]; then
  next=$(prop dormouse-backup.timer NextElapseUSecRealtime)
  echo "dormouse-backup.timer NextElapseUSecRealtime=$next"
  check "backup timer next run at 03:00 (+ randomized delay)" bash -c "[[ '$next' == *' 03:'[01]?':'* ]]"
  t=$(ms); systemctl start dormouse-backup.service; brc=$?
  echo "rc=$brc took $(( $(ms) - t )) ms"
  journalctl -u dormouse-backup.service --no-pager -o cat | tail -n 4
  check "backup job succeeded" test "$brc" -eq 0 -a "$(prop dormouse-backup.service Result)" = success
  ls -la /var/backups/dormouse/main/ 2>&1
  b=$(ls /var/backups/dormouse/main/main-*.db 2>/dev/null | tail -n 1)
  check "a backup of main exists in /var/backups/dormouse" test -n "$b"
  check "no backup inside the data directory" test ! -e /var/lib/dormouse/backups
  check "backup file dormouse 0600, its directory 0700" \
    bash -c "[ \"\$(stat -c '%a %U' '$b')\" = '600 dormouse' ] && [ \"\$(stat -c '%a' /var/backups/dormouse/main)\" = 700 ]"
  check "journal: the backup entry has AGENT=main" \
    bash -c 'journalctl -u dormouse-backup.service --no-pager -o verbose SYSLOG_IDENTIFIER=dormouse | grep -qE "^ *AGENT=main$"'
  as_dm() { runuser -u dormouse -- "$@"; }
  as_dm dormouse restore --data /var/lib/dormouse --agent main --list
  check "restore refused while the daemon runs" bash -c "! runuser -u dormouse -- dormouse restore --data /var/lib/dormouse --agent main 2>&1 | tee /dev/stderr | grep -q restored"
  as_admin dormouse ingest --agent main "Carol borrowed the ladder after the backup"
  systemctl stop dormouse.service
  out=$(as_dm dormouse restore --data /var/lib/dormouse --agent main 2>&1); rrc=$?; echo "$out"
  check "restore with the daemon stopped" test "$rrc" -eq 0
  check "the replaced file is kept aside" bash -c 'ls /var/lib/dormouse/agents/main.db.replaced-* >/dev/null'
  systemctl start dormouse.service
  wait_for 10 curl -fsS -o /dev/null --max-time 2 "$API/readyz"
  recall=$(as_admin dormouse recall --agent main --json "spare key" 2>&1)
  check "restored agent recalls what the backup held" grep -q "blue flowerpot" <<<"$recall"
  recall=$(as_admin dormouse recall --agent main --json "who borrowed the ladder" 2>&1)
  check "and not what came after it" bash -c "! grep -q 'borrowed the ladder' <<<'$recall'"
fi

hdr "restore drill: the weekly timer"
check "dormouse-drill.timer shipped" test -e /usr/lib/systemd/system/dormouse-drill.service
check "dormouse-drill.timer enabled" systemctl is-enabled --quiet dormouse-drill.timer
next=$(prop dormouse-drill.timer NextElapseUSecRealtime)
echo "dormouse-drill.timer NextElapseUSecRealtime=$next"
check "drill timer next run on a Sunday at 04:00 (+ randomized delay)" bash -c "[[ '$next' == Sun*' 04:'[0-3]?':'* ]]"

hdr "dormouse doctor"
out=$(runuser -u dormouse -- dormouse doctor --data /var/lib/dormouse 2>&1); drc=$?; echo "$out"
check "doctor as dormouse passes" test "$drc" -eq 0
check "doctor: consolidation timer" has '^OK *dormouse-consolidate.timer' "$out"
check "doctor: backup timer" has '^OK *dormouse-backup.timer' "$out"
check "doctor checked the integrity of main" has '^OK *integrity main' "$out"
check "doctor: backup directory" has '^OK *backup directory' "$out"
out=$(dormouse doctor --data /var/lib/dormouse --watch /home/alice/notes 2>&1); drc=$?; echo "$out"
check "doctor exits non-zero for a watched folder hidden in /home" test "$drc" -ne 0
check "doctor gives the drop-in for it" has 'BindReadOnlyPaths=/home/alice/notes' "$out"

hdr "systemctl reload: SIGHUP re-reads the configuration, same process"
pid0=$(prop dormouse.service MainPID)
check "systemctl reload dormouse" systemctl reload dormouse.service
wait_for 10 bash -c "journalctl -u dormouse.service --no-pager -o cat | grep -q '^reloaded'"
check "journal: reloaded" bash -c "journalctl -u dormouse.service --no-pager -o cat | grep -q '^reloaded'"
check "same process, still active after the reload" \
  bash -c "systemctl is-active --quiet dormouse.service && [ \"\$(systemctl show -p MainPID --value dormouse.service)\" = $pid0 ]"
check "ready after the reload" curl -fsS -o /dev/null --max-time 5 "$API/readyz"

hdr "kill -9: systemd restarts it, acknowledged memories survive"
pid1=$(prop dormouse.service MainPID)
t=$(ms)
systemctl kill -s SIGKILL dormouse.service
wait_for 30 bash -c "p=\$(systemctl show -p MainPID --value dormouse.service); [ \"\$p\" != 0 ] && [ \"\$p\" != $pid1 ] && systemctl is-active --quiet dormouse.service"
echo "back after $(( $(ms) - t )) ms"
systemctl show -p MainPID,NRestarts,ActiveState,Result dormouse.service
check "restarted by systemd (NRestarts=1, new PID)" \
  bash -c "[ \"\$(systemctl show -p NRestarts --value dormouse.service)\" = 1 ] && [ \"\$(systemctl show -p MainPID --value dormouse.service)\" != $pid1 ]"
wait_for 10 curl -fsS -o /dev/null --max-time 2 "$API/readyz"
check "ready again" curl -fsS -o /dev/null --max-time 5 "$API/readyz"
recall=$(as_admin dormouse recall --agent main --json "spare key" 2>&1)
check "memory still there after SIGKILL" grep -q "blue flowerpot" <<<"$recall"
recovered="recovered from an unclean stop: agents checked"
wait_for 20 bash -c "journalctl -u dormouse.service --no-pager -o cat | grep -q '$recovered'"
journalctl -u dormouse.service --no-pager -o cat | grep -E 'did not stop cleanly|WAL replayed|agents checked' | tail -n 3
check "journal: the restart found the kill and checked the agents" \
  bash -c "journalctl -u dormouse.service --no-pager -o cat | grep '$recovered' | grep -q 'failing=0'"

hdr "a clock set back (a Pi without a real-time clock, before NTP)"
timedatectl set-ntp false 2>/dev/null || true
real=$(date +%s); t=$(ms)
date -u -s '1970-01-02 00:00:00' >/dev/null
date -u
undated=$(curl -sS --max-time 10 -w '\n%{http_code}' -H 'Content-Type: application/json' \
  -d '{"content":"the boiler was serviced"}' "$API/v1/agents/main/memories")
echo "$undated"
check "an undated memory is refused with 503 clock_implausible" \
  bash -c '[ "$(tail -n 1 <<<"$1")" = 503 ] && grep -q clock_implausible <<<"$1"' _ "$undated"
check "a memory with its own timestamp is stored" test "$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' \
  -H 'Content-Type: application/json' -d '{"content":"the boiler was serviced","timestamp":"2026-03-01T10:00:00Z"}' \
  "$API/v1/agents/main/memories")" = 201
crc=0; runuser -u dormouse -- dormouse consolidate --data /var/lib/dormouse --agent main > /tmp/e2e-clock.txt 2>&1 || crc=$?
cat /tmp/e2e-clock.txt
check "consolidation refuses to run on the 1970 clock" bash -c "[ $crc -ne 0 ] && grep -q 'not consolidating until the clock is set' /tmp/e2e-clock.txt"
out=$(runuser -u dormouse -- dormouse doctor --data /var/lib/dormouse 2>&1)
check "doctor fails the clock and says how to fix it" \
  bash -c "grep -q '^FAIL *clock ' <<<\"\$1\" && grep -q 'timedatectl set-ntp true' <<<\"\$1\"" _ "$out"
date -u -s "@$(( real + ($(ms) - t) / 1000 ))" >/dev/null
date -u
# Timers whose next run the jump passed start now: let them finish before going on.
wait_for 120 bash -c '! systemctl list-units --no-legend --plain --state=activating,active "dormouse-*.service" | grep -q .'
systemctl reset-failed 'dormouse-*.service' 2>/dev/null || true
check "with the clock back, an undated memory is stored" test "$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' \
  -H 'Content-Type: application/json' -d '{"content":"the boiler was serviced"}' "$API/v1/agents/main/memories")" = 201

hdr "replication to a file:// target: a restore drill, then a dead card"
rep=/srv/dormouse-replica
install -d -o dormouse -g dormouse -m 0700 "$rep"
mkdir -p /etc/systemd/system/dormouse.service.d
printf '[Service]\nReadWritePaths=%s\n' "$rep" > /etc/systemd/system/dormouse.service.d/e2e-replica.conf
sed -i "s#^  url: \"\"\$#  url: file://$rep#" /etc/dormouse/dormouse.yaml
check "replication.url set to file://$rep" grep -q "^  url: file://$rep\$" /etc/dormouse/dormouse.yaml
systemctl daemon-reload
systemctl restart dormouse.service
wait_for 30 curl -fsS -o /dev/null --max-time 2 "$API/readyz"
check "Litestream runs beside the daemon" wait_for 30 bash -c "curl -fsS $API/health | grep -q '\"replication\":{[^}]*\"running\":true'"
check "a memory is stored with replication on" test "$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' \
  -H 'Content-Type: application/json' -d '{"content":"the spare tyre is under the stairs"}' "$API/v1/agents/main/memories")" = 201
wait_for 30 bash -c "curl -fsS $API/health | grep -q '\"agent\":\"main\",\"state\":\"replicating\",\"lag_seconds\":0[,}]'"
curl -fsS "$API/health" | grep -o '"replication":.*' | head -c 600; echo
check "main's replica caught up (lag 0)" bash -c "curl -fsS $API/health | grep -q '\"agent\":\"main\",\"state\":\"replicating\",\"lag_seconds\":0[,}]'"
check "the replica is in $rep" bash -c "ls -R '$rep' | grep -q main"
drc=0; systemctl start dormouse-drill.service || drc=$?
journalctl -u dormouse-drill.service --no-pager -o cat | grep '^drill ' | tail -n 2
check "the restore drill of main passes" \
  bash -c "[ $drc -eq 0 ] && journalctl -u dormouse-drill.service --no-pager -o cat | grep -q '^drill main: ok'"
check "/health shows the drill" wait_for 10 bash -c "curl -fsS $API/health | grep -q '\"last_drill\":{[^}]*\"ok\":true'"
systemctl stop dormouse.service
mv /var/lib/dormouse/agents /var/lib/dormouse/agents.dead   # the card is gone
out=$(runuser -u dormouse -- dormouse restore --from-replica --all --data /var/lib/dormouse 2>&1); rrc=$?
echo "$out"
check "restore --from-replica --all brings the agents back" test "$rrc" -eq 0
systemctl start dormouse.service
wait_for 30 curl -fsS -o /dev/null --max-time 2 "$API/readyz"
recall=$(as_admin dormouse recall --agent main --json "where is the spare tyre" 2>&1)
check "the restored agent has the memory stored with replication on" grep -q "under the stairs" <<<"$recall"
recall=$(as_admin dormouse recall --agent main --json "spare key" 2>&1)
check "and the ones before it" grep -q "blue flowerpot" <<<"$recall"
sed -i "s#^  url: file://$rep\$#  url: \"\"#" /etc/dormouse/dormouse.yaml
rm -f /etc/systemd/system/dormouse.service.d/e2e-replica.conf
rmdir /etc/systemd/system/dormouse.service.d 2>/dev/null || true
rm -rf /var/lib/dormouse/agents.dead
systemctl daemon-reload
systemctl restart dormouse.service
wait_for 30 curl -fsS -o /dev/null --max-time 2 "$API/readyz"

hdr "watchdog: a failing liveness check withholds the pings and systemd restarts it"
# Test-only drop-in so the stall shows in seconds, not 30 s. The shipped unit
# is unchanged. The daemon runs as dormouse without CAP_DAC_OVERRIDE, so an
# unreadable agents directory makes its store check fail (/healthz still
# answers): only the liveness check can notice.
mkdir -p /run/systemd/system/dormouse.service.d
printf '[Service]\nWatchdogSec=6s\nTimeoutAbortSec=5s\n' > /run/systemd/system/dormouse.service.d/e2e-watchdog.conf
systemctl daemon-reload
systemctl restart dormouse.service
wait_for 10 curl -fsS -o /dev/null --max-time 2 "$API/readyz"
check "watchdog now 6s" test "$(prop dormouse.service WatchdogUSec)" = 6s
n0=$(prop dormouse.service NRestarts); pid1=$(prop dormouse.service MainPID)
sleep 8   # more than the interval: a healthy daemon is not restarted
check "healthy daemon kept alive by its pings" bash -c "systemctl is-active --quiet dormouse.service && [ \"\$(systemctl show -p MainPID --value dormouse.service)\" = $pid1 ]"
t=$(ms)
chmod 000 /var/lib/dormouse/agents
wait_for 40 bash -c "journalctl -u dormouse.service --no-pager -o cat | grep -q 'Watchdog timeout'"
echo "watchdog fired after $(( $(ms) - t )) ms"
chmod 700 /var/lib/dormouse/agents
journalctl -u dormouse.service --no-pager -o cat | grep -E 'liveness check failed|Watchdog timeout' | head -n 3
check "daemon logged the failing check" bash -c "journalctl -u dormouse.service --no-pager -o cat | grep -q 'liveness check failed'"
check "systemd: Watchdog timeout" bash -c "journalctl -u dormouse.service --no-pager -o cat | grep -q 'Watchdog timeout'"
wait_for 40 bash -c "[ \"\$(systemctl show -p NRestarts --value dormouse.service)\" -gt $n0 ] && systemctl is-active --quiet dormouse.service && curl -fsS -o /dev/null --max-time 2 $API/readyz"
echo "back after $(( $(ms) - t )) ms"
systemctl show -p MainPID,NRestarts,ActiveState,Result dormouse.service
check "restarted by systemd after the stall" bash -c "[ \"\$(systemctl show -p NRestarts --value dormouse.service)\" -gt $n0 ] && systemctl is-active --quiet dormouse.service"
recall=$(as_admin dormouse recall --agent main --json "spare key" 2>&1)
check "memory still there after the watchdog restart" grep -q "blue flowerpot" <<<"$recall"
rm -rf /run/systemd/system/dormouse.service.d
systemctl daemon-reload
systemctl restart dormouse.service

hdr "upgrade to a newer version keeps data and config; the daemon restarts"
ver=$(dpkg-query -W -f='${Version}' dormouse)
newver="$ver+e2e1"
sed -i 's/^log_level: info$/log_level: debug/' /etc/dormouse/dormouse.yaml
echo "DORMOUSE_E2E_MARK=1" >> /etc/default/dormouse
work=$(mktemp -d)
dpkg-deb -R "$DEB" "$work/pkg" && sed -i "s/^Version: .*/Version: $newver/" "$work/pkg/DEBIAN/control" \
  && dpkg-deb -Znone -b "$work/pkg" "$work/new.deb" >/dev/null
pid1=$(prop dormouse.service MainPID)
t=$(ms)
check "dpkg -i of $newver" bash -c "dpkg -i '$work/new.deb' </dev/null"
echo "upgrade took $(( $(ms) - t )) ms"
rm -rf "$work"
check "version is now $newver" test "$(dpkg-query -W -f='${Version}' dormouse)" = "$newver"
check "daemon restarted on upgrade (new PID)" bash -c "[ \"\$(systemctl show -p MainPID --value dormouse.service)\" != $pid1 ] && systemctl is-active --quiet dormouse.service"
check "edited dormouse.yaml kept" grep -q '^log_level: debug$' /etc/dormouse/dormouse.yaml
check "edited /etc/default/dormouse kept" grep -q '^DORMOUSE_E2E_MARK=1$' /etc/default/dormouse
wait_for 10 curl -fsS -o /dev/null --max-time 2 "$API/readyz"
recall=$(as_admin dormouse recall --agent main --json "spare key" 2>&1)
check "memory still there after upgrade" grep -q "blue flowerpot" <<<"$recall"
for t in $TIMERS; do check "$t still enabled and active" bash -c "systemctl is-enabled --quiet $t && systemctl is-active --quiet $t"; done

hdr "apt remove: stops it, keeps data and config"
t=$(ms)
apt-get remove -y -q dormouse </dev/null 2>&1 | tail -n 3
echo "remove took $(( $(ms) - t )) ms"
check "daemon stopped" bash -c '! systemctl is-active --quiet dormouse.service'
check "nothing listens on 7733" bash -c "! curl -s -o /dev/null --max-time 2 $API/healthz"
check "binary gone" test ! -e /usr/bin/dormouse
check "unit file gone" test ! -e /usr/lib/systemd/system/dormouse.service
for t in $TIMERS; do check "$t stopped" bash -c "! systemctl is-active --quiet $t"; done
check "data kept (/var/lib/dormouse/agents/main.db)" test -s /var/lib/dormouse/agents/main.db
check "config kept" test -f /etc/dormouse/dormouse.yaml -a -f /etc/default/dormouse
check "user kept" getent passwd dormouse
dpkg -l dormouse | tail -n 1

hdr "dpkg -P: purge removes data and config, keeps the backups"
t=$(ms)
out=$(dpkg -P dormouse 2>&1); echo "$out"
echo "purge took $(( $(ms) - t )) ms"
check "purge says the backups are kept" has 'backups in /var/backups/dormouse are kept' "$out"
check "backups kept in /var/backups/dormouse" bash -c 'ls /var/backups/dormouse/main/main-*.db >/dev/null'
check "the kept backup is an SQLite file" \
  bash -c 'b=$(ls /var/backups/dormouse/main/main-*.db | tail -n 1); [ -s "$b" ] && head -c 16 "$b" | grep -q "SQLite format 3"'
check "package gone" bash -c '! dpkg -s dormouse >/dev/null 2>&1'
check "/var/lib/dormouse removed" test ! -e /var/lib/dormouse
check "/etc/dormouse removed" test ! -e /etc/dormouse
check "/etc/default/dormouse removed" test ! -e /etc/default/dormouse
check "no dormouse unit left enabled" bash -c '! ls /etc/systemd/system/*/dormouse* /etc/systemd/system/dormouse* 2>/dev/null | grep -q .'
check "no failed units" bash -c '[ -z "$(systemctl list-units --failed --no-legend --plain dormouse\* 2>/dev/null)" ]'

hdr "journal"
journalctl --no-pager -o short-monotonic -u dormouse.service -u 'dormouse-consolidate.*' -u 'dormouse-backup.*' | tail -n 40

echo
[ "$fail" -eq 0 ] && echo "guest tests: all passed" || echo "guest tests: FAILURES"
exit "$fail"
