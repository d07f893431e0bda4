#!/bin/bash
# The guest side of the power-cut test (`make e2e-power`; docs/development.md#power-cuts). It runs
# INSIDE the VM at every boot (vm-e2e.sh with VM_MAX_BOOTS, E2E_BOOT counts them): boot 1 sets the
# service up; each later boot checks what the last cut left, then asks the host for the next one
# (packaging/e2e/host-power.sh writes memories and kills qemu at a random moment). Some cuts land
# during other work, started here before the host cuts: a consolidation, a backup, an import, an
# agent delete, checkpoints of large batches. The host counts the acknowledged memories; this side
# checks each agent file and that the interrupted work left a consistent state.
#   E2E_CUTS (10)  power cuts in all
#   E2E_SYNC       storage.synchronous to run with; empty keeps the package's default
set -u
CUTS=${E2E_CUTS:-10}
BOOT=${E2E_BOOT:-1}
API=http://127.0.0.1:8080
CONF=/etc/dormouse/dormouse.yaml
FAILED=/var/lib/e2e-power-failed   # on the root disk: failures outlive the boots
WHAT=/var/lib/e2e-power-what       # the work the last cut interrupted
ok()  { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; echo "boot $BOOT: $*" >> "$FAILED"; sync "$FAILED"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
wait_for() { local n=$(( $1 * 5 )); shift; for _ in $(seq 1 "$n"); do "$@" && return 0; sleep 0.2; done; "$@"; }
ready() { curl -fsS -o /dev/null --max-time 5 "$API/readyz"; }
post() { curl -sS --max-time 120 -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' "$@"; }
yesterday() { date -u -d yesterday +%F; }
# scenario N: what cut N interrupts; every other cut is plain writes
scenario() {
  local s=(writes consolidate writes backup writes import writes delete writes checkpoint)
  echo "${s[$(( ($1 - 1) % ${#s[@]} ))]}"
}

setup() {
  echo "### boot 1: serve on the forwarded port${E2E_SYNC:+, synchronous $E2E_SYNC}"
  sed -i 's/^listen: .*/listen: 0.0.0.0:8080/; s/^  allow_open: false$/  allow_open: true/' "$CONF"
  [ -z "${E2E_SYNC:-}" ] || sed -i "s/^  synchronous: .*/  synchronous: $E2E_SYNC/" "$CONF"
  grep -E '^listen:|^  synchronous:|^  allow_open:' "$CONF"
  systemctl restart dormouse.service
  check "dormouse ready on :8080" wait_for 120 ready
  # the import scenario's file: an export of 200 memories
  local i body=""
  for i in $(seq 1 200); do body+="${body:+,}{\"content\":\"import seed memory $i\"}"; done
  check "seed agent stored" test "$(post -d "{\"memories\":[$body]}" "$API/v1/agents/seed/memories")" = 201
  curl -fsS --max-time 60 "$API/v1/agents/seed/export" > /var/lib/e2e-seed.ndjson
  check "seed export taken" grep -q dormouse-export-end /var/lib/e2e-seed.ndjson
  sync
}

# after_cut: what the last cut (boot-1) left.
after_cut() {
  local cut=$((BOOT - 1)) what; what=$(cat "$WHAT" 2>/dev/null || echo unknown)
  echo "### boot $BOOT: after cut $cut (during $what)"
  check "dormouse ready after the cut" wait_for 180 ready
  journalctl -b -u dormouse.service --no-pager -o cat | head -n 30
  local integrity; integrity=$(runuser -u dormouse -- dormouse doctor --data /var/lib/dormouse 2>&1 | grep -E '^[A-Z]+ +integrity ')
  echo "$integrity"
  check "every agent file passes integrity_check" bash -c '! grep -qv "^OK" <<<"$1"' _ "$integrity"
  check "the power agent was checked" grep -qE '^OK +integrity power( |$)' <<<"$integrity"
  check "the host finds every acknowledged memory (cut $cut)" e2e-host-check "verify $cut"
  local recovered="recovered from an unclean stop: agents checked"
  wait_for 120 bash -c "journalctl -b -u dormouse.service -o cat | grep -q '$recovered'"
  check "the journal reports the recovery from the power cut, every agent checked" bash -c \
    "journalctl -b -u dormouse.service -o cat | grep '$recovered' | grep 'cause=\"power cut or reboot' | grep -q 'failing=0'"
  case "$what" in
    consolidate) local code; code=$(post -d "{\"date\":\"$(yesterday)\"}" "$API/v1/agents/power/consolidate")
      check "consolidating $(yesterday) again succeeds (HTTP $code)" test "$code" = 200
      check "no catch-up was skipped as busy" bash -c '! journalctl -b -u dormouse.service -o cat | grep -q "catch-up skipped: agent busy"' ;;
    backup) check "a backup after the cut succeeds" systemctl start dormouse-backup.service ;;
    import) local a n bad=0
      for a in $(curl -fsS "$API/v1/agents" | grep -o '"imp-[0-9-]*"' | tr -d '"'); do
        n=$(curl -fsS "$API/v1/agents/$a/stats" | sed -n 's/.*"memories":\([0-9]*\).*/\1/p')
        echo "$a: ${n:-?} memories"; [ "$n" = 0 ] || [ "$n" = 200 ] || bad=1
      done
      check "each import is whole or absent" test "$bad" -eq 0 ;;
    delete) local a bad=0
      for a in $(curl -fsS "$API/v1/agents" | grep -o '"del-[0-9-]*"' | tr -d '"'); do
        curl -fsS -o /dev/null "$API/v1/agents/$a/stats" || { echo "$a does not open"; bad=1; }
      done
      check "every agent a delete left behind opens" test "$bad" -eq 0 ;;
  esac
}

# interrupt WHAT: start the work the next cut lands in, in the background.
interrupt() {
  case "$1" in
    consolidate)
      local i body=""; for i in $(seq 1 500); do
        body+="${body:+,}{\"content\":\"yesterday $BOOT I met Ana $i about the garden\",\"timestamp\":\"$(yesterday)T12:00:00Z\"}"; done
      post -d "{\"memories\":[$body]}" "$API/v1/agents/power/memories" >/dev/null
      while :; do post -d "{\"date\":\"$(yesterday)\"}" "$API/v1/agents/power/consolidate" >/dev/null; done & ;;
    backup) while :; do systemctl start dormouse-backup.service; done & ;;
    import) local k=0; while :; do k=$((k + 1))
        curl -sS -o /dev/null -H 'Content-Type: application/x-ndjson' --data-binary @/var/lib/e2e-seed.ndjson \
          "$API/v1/agents/imp-$BOOT-$k/import"; done & ;;
    delete) local k=0; while :; do k=$((k + 1))
        post -d '{"content":"to be deleted"}' "$API/v1/agents/del-$BOOT-$k/memories" >/dev/null
        curl -sS -o /dev/null -X DELETE "$API/v1/agents/del-$BOOT-$k"; done & ;;
    checkpoint) local i body=""; for i in $(seq 1 1000); do body+="${body:+,}{\"content\":\"batch line $i of a large tool log\"}"; done
      while :; do post -d "{\"memories\":[$body]}" "$API/v1/agents/bulk/memories" >/dev/null; done & ;;
  esac
}

if [ "$BOOT" -eq 1 ]; then setup; else after_cut; fi
if [ "$BOOT" -le "$CUTS" ]; then
  what=$(scenario "$BOOT")
  echo "$what" > "$WHAT"; sync "$WHAT"
  echo "### cut $BOOT: during $what"
  interrupt "$what"
  sleep 1
  e2e-host-check "cut $BOOT $what"   # the host kills the VM: this does not return
  bad "the host did not cut the power"
fi
echo "### $CUTS power cuts"
if [ -s "$FAILED" ]; then cat "$FAILED"; exit 1; fi
echo "every check passed"
