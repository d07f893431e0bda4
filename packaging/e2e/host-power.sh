#!/bin/bash
# The host side of the power-cut test (`make e2e-power`): vm-e2e.sh runs it for each
# `e2e-host-check NAME` of packaging/e2e/guest-power.sh, with VM_PORT (forwarded to the guest's
# daemon), VM_RUN (the run directory) and VM_QEMU_PID.
#   cut N WHAT  writers store memories through the forwarded port; at a random moment, kill -9 of
#               qemu: what the guest had not synced is lost, as on an unplugged Pi. Exits 200.
#   verify N    every memory acknowledged (201) before any cut so far is in the agent; one line
#               of figures per cut in VM_RUN/power-results.txt. Exits 1 if one is lost.
# E2E_WRITERS (4) concurrent writers; E2E_CUT_MIN_MS / E2E_CUT_MAX_MS (2000 / 8000) the window.
set -u
read -r cmd n what <<<"$1"
API=http://127.0.0.1:$VM_PORT/v1/agents/power
ACKED=$VM_RUN/power-acked.txt     # one marker per acknowledged memory
RESULTS=$VM_RUN/power-results.txt
STOP=$VM_RUN/power-stop

# writer CUT W: store memories until STOP exists; a marker counts as acknowledged once its 201 came.
writer() {
  local i=0 m code
  while [ ! -e "$STOP" ]; do
    i=$((i + 1)); m=pc-$1-$2-$i
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 -H 'Content-Type: application/json' \
      -d "{\"content\":\"power cut memory $m\"}" "$API/memories")
    [ "$code" = 201 ] && echo "$m" >> "$ACKED"
  done
}

cut() {
  local w min=${E2E_CUT_MIN_MS:-2000} max=${E2E_CUT_MAX_MS:-8000} at
  rm -f "$STOP"; touch "$ACKED"
  local before; before=$(wc -l < "$ACKED")
  for w in $(seq 1 "${E2E_WRITERS:-4}"); do writer "$n" "$w" & done
  at=$(( min + (RANDOM * 32768 + RANDOM) % (max - min + 1) ))
  sleep "$(awk -v ms="$at" 'BEGIN{printf "%.3f", ms / 1000}')"
  kill -9 "$VM_QEMU_PID"
  touch "$STOP"; wait
  echo "cut $n during $what at ${at}ms: $(( $(wc -l < "$ACKED") - before )) acknowledged" | tee -a "$RESULTS.cuts"
  exit 200
}

verify() {
  local present=$VM_RUN/power-present-$n.txt acked=$VM_RUN/power-acked-sorted.txt
  curl -fsS --max-time 300 "$API/export" | grep -o 'pc-[0-9]*-[0-9]*-[0-9]*' | sort -u > "$present" \
    || { echo "verify $n: export failed"; exit 1; }
  sort -u "$ACKED" > "$acked"
  local a l e
  a=$(grep -c "^pc-$n-" "$acked")
  l=$(comm -23 "$acked" "$present" | wc -l)
  e=$(comm -13 "$acked" "$present" | grep -c "^pc-$n-")
  echo "cut $n ($what): acknowledged $a, lost (all cuts so far) $l, kept unacknowledged $e" | tee -a "$RESULTS"
  comm -23 "$acked" "$present" | head -n 20
  [ "$l" -eq 0 ]
}

case "$cmd" in
  cut) cut ;;
  verify) what=$(sed -n "s/^cut $n during \([a-z]*\) .*/\1/p" "$RESULTS.cuts" | tail -n 1); verify ;;
  *) echo "unknown host check: $1"; exit 2 ;;
esac
