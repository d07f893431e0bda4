#!/bin/bash
# vm-e2e.sh - boot a throw-away Debian (systemd) VM, install a .deb into it,
# run a test script inside the guest, collect results, power off.
#
# Usage: vm-e2e.sh PATH/TO/pkg.deb amd64|arm64 PATH/TO/guest-test.sh
# `make e2e-vm [ARCH=arm64]` builds the .deb and runs it with
# packaging/e2e/guest-test.sh (docs/development.md#the-booted-vm-test).
#
# Guest side: the .deb is installed with `dpkg -i` after the system reached
# multi-user.target, then guest-test.sh is run with bash as root; its exit code
# is the test result.  The guest has NO network except slirp with
# restrict=on (no outbound traffic), so every dependency of the .deb must be
# baked into the image with VM_EXTRA_PKGS.
#
# Environment knobs (all optional):
#   VM_DIR=$TMPDIR/dormouse-vm  work area (cache/, runs/)
#   VM_CACHE=$VM_DIR/cache      cached base images (keyed on recipe+arch+pkgs)
#   VM_SUITE=bookworm           Debian suite for the guest
#   VM_MIRROR=                  Debian mirror URL; default: the first 'URIs:'/'deb' line of this host's apt sources
#   VM_EXTRA_PKGS=""            comma-separated extra packages baked into image
#   VM_PORT=auto                host 127.0.0.1:PORT is forwarded to guest :VM_GUEST_PORT
#   VM_GUEST_PORT=8080
#   VM_HOST_CHECK=""            host-side script, run (with NAME as $1 and VM_PORT,
#                               VM_RUN in env) each time the guest test calls
#                               `e2e-host-check NAME`; the guest gets its exit code.
#                               Default: curl -f http://127.0.0.1:$VM_PORT$VM_HEALTH_PATH
#   VM_HEALTH_PATH=/healthz
#   VM_MEM=1024  VM_SMP=2       guest RAM (MiB) / vCPUs
#   VM_ARM_CPU=cortex-a72       -cpu for arm64 (TCG); "max,pauth-impdef=on" also works
#   VM_ACCEL=auto               kvm|tcg|auto. auto = kvm when guest arch == host arch,
#                               /dev/kvm is writable and is not the software "kvm_pvm"
#                               (sandboxes); TCG otherwise (always for arm64 on x86)
#   VM_X86_CPU=                 amd64 -cpu (default host for kvm, max for tcg)
#   VM_TIMEOUT=                 overall guest timeout (default 300 amd64, 1200 arm64)
#   VM_KEEP=0                   1 = keep the run directory on success
#   VM_REBUILD=0                1 = ignore cached image
#   VM_INSTALL_DEPS=1           apt-get install missing host tools
#   VM_COLLECT=0                1 = always save systemd-analyze blame/critical-chain (always on failure)
#   VM_APPEND=""                extra kernel command line
#   VM_ROOT_CACHE=unsafe        QEMU cache mode of the root disk; writeback for power
#                               cuts (unsafe drops the guest's flushes, and with them
#                               qcow2's metadata: a cut would corrupt more than a Pi's)
#   VM_GUEST_ENV=""             extra NAME=VALUE words added to the guest test's env
#   VM_MAX_BOOTS=1              power cuts: a host check that exits 200 has killed
#                               qemu (VM_QEMU_PID); the same disks boot again, up to
#                               this many boots in all. The guest test sees E2E_BOOT.
#
# Guest test contract: runs as root with cwd=/mnt/e2e (the e2e disk), env
# E2E_DIR, E2E_OUT (files written there come back to RUN/out/), E2E_BOOT (1,
# then 2, ... after each power cut: the .deb is installed at boot 1 only);
# may call `e2e-host-check NAME`.  Host needs: root, mmdebstrap, qemu, e2fsprogs, curl.
# arm64 image builds (not cached runs) register the qemu-aarch64 binfmt_misc
# handler on the host if it is missing (global kernel state).
#
# Exit code: 0 if install + guest test + host checks passed; 98 = dpkg -i
# failed, 97 = guest harness problem, 1 = timeout/no result, else test's rc.
set -euo pipefail

usage() { echo "usage: $0 PKG.deb amd64|arm64 GUEST-TEST.sh" >&2; exit 2; }
[ $# -eq 3 ] || usage
DEB=$(readlink -f "$1"); ARCH=$2; TEST=$(readlink -f "$3")
[ -f "$DEB" ] || { echo "no such .deb: $1" >&2; exit 2; }
[ -f "$TEST" ] || { echo "no such test script: $3" >&2; exit 2; }
case "$ARCH" in amd64|arm64) ;; *) usage ;; esac

VM_DIR=${VM_DIR:-${TMPDIR:-/tmp}/dormouse-vm}
CACHE=${VM_CACHE:-$VM_DIR/cache}
SUITE=${VM_SUITE:-bookworm}
host_mirror() {  # the mirror this host's apt already uses
  local u
  u=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -1)
  [ -n "$u" ] || u=$(awk '$1=="deb"{for(i=2;i<=NF;i++) if ($i ~ /^https?:/) {print $i; exit}}' /etc/apt/sources.list 2>/dev/null | grep -v security | head -1)
  echo "$u"
}
MIRROR=${VM_MIRROR:-$(host_mirror)}
[ -n "$MIRROR" ] || { echo "no Debian mirror found in /etc/apt; set VM_MIRROR" >&2; exit 2; }
EXTRA_PKGS=${VM_EXTRA_PKGS:-}
GUEST_PORT=${VM_GUEST_PORT:-8080}
MEM=${VM_MEM:-1024}
SMP=${VM_SMP:-2}
ARM_CPU=${VM_ARM_CPU:-cortex-a72}
KEEP=${VM_KEEP:-0}
if [ "$ARCH" = amd64 ]; then TIMEOUT=${VM_TIMEOUT:-300}; else TIMEOUT=${VM_TIMEOUT:-1200}; fi

RECIPE_VERSION=4   # bump when the image recipe below changes
T0=$(date +%s.%N)
ts() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
log() { echo "[vm-e2e +$(ts "$T0")s] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------- host tools
host_deps() {
  local pkgs=() c p
  for c in mmdebstrap:mmdebstrap mkfs.ext4:e2fsprogs debugfs:e2fsprogs qemu-img:qemu-utils \
           arch-test:arch-test curl:curl; do
    command -v "${c%%:*}" >/dev/null || pkgs+=("${c##*:}")
  done
  if [ "$ARCH" = amd64 ]; then
    command -v qemu-system-x86_64 >/dev/null || pkgs+=(qemu-system-x86)
  else
    command -v qemu-system-aarch64 >/dev/null || pkgs+=(qemu-system-arm)
    command -v qemu-aarch64-static >/dev/null || pkgs+=(qemu-user-static)
  fi
  if [ ${#pkgs[@]} -gt 0 ]; then
    [ "${VM_INSTALL_DEPS:-1}" = 1 ] || die "missing host packages: ${pkgs[*]}"
    log "installing host packages: ${pkgs[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
  fi
}

# arm64 image build runs arm64 maintainer scripts via qemu-user + binfmt_misc.
ensure_binfmt_arm64() {
  arch-test arm64 >/dev/null 2>&1 && return 0
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || die "cannot mount binfmt_misc"
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register \
      || die "cannot register qemu-aarch64 binfmt handler"
  fi
  arch-test arm64 >/dev/null 2>&1 || die "arm64 binaries still not runnable via binfmt"
  log "registered qemu-aarch64 binfmt_misc handler"
}

# ---------------------------------------------------------------- image build
# Guest-side runner. NOT baked into the image: it travels on the e2e disk with
# the .deb, so changing it does not invalidate the cached image. The image only
# has the tiny e2e-boot stub + e2e-runner.service (write_boot_stub).
guest_runner() {
  cat <<'RUNNER'
#!/bin/bash
# Host <-> guest channels:
#   /dev/virtio-ports/e2e.log  progress + results (host file guest.log)
#   /dev/virtio-ports/e2e.ctl  host -> guest lines: "rc N" answers, "poweroff"
#   LABEL=e2e disk (/mnt/e2e)  .deb, test.sh, e2e.env in; out/ (results) back
up() { cut -d' ' -f1 /proc/uptime; }
ms() { awk '{printf "%d", $1 * 1000}' /proc/uptime; }   # monotonic: tests may move the wall clock
LOGDEV=/dev/virtio-ports/e2e.log CTLDEV=/dev/virtio-ports/e2e.ctl
for _ in $(seq 1 300); do [ -e "$LOGDEV" ] && break; sleep 0.1; done
exec > >(tee -a "$LOGDEV") 2>&1
echo "E2E-RUNNER-START uptime=$(up)"
state=$(systemctl is-system-running --wait)
echo "E2E-BOOTED state=$state uptime=$(up)"
systemd-analyze time || true
[ "$state" = running ] || systemctl --failed --no-pager
set -a; . /mnt/e2e/e2e.env; set +a   # the test sees E2E_* and VM_GUEST_ENV's words
install -m 755 /mnt/e2e/e2e-host-check /usr/local/bin/e2e-host-check
OUT=/mnt/e2e/out; mkdir -p "$OUT"
rc=0
# the boot count lives on the root disk, which survives a power cut
E2E_BOOT=$(( $(cat /var/lib/e2e-boot 2>/dev/null || echo 0) + 1 ))
echo "$E2E_BOOT" > /var/lib/e2e-boot && sync /var/lib/e2e-boot
echo "E2E-BOOT n=$E2E_BOOT"
irc=0
if [ "$E2E_BOOT" -eq 1 ]; then
  echo "== dpkg -i $E2E_DEB"
  t=$(ms)
  dpkg -i "/mnt/e2e/$E2E_DEB" 2>&1 | tee "$OUT/install.log"
  irc=${PIPESTATUS[0]}
  echo "E2E-INSTALLED rc=$irc took_ms=$(( $(ms) - t ))"
fi
if [ "$irc" -ne 0 ]; then
  rc=98
else
  echo "== guest test script"
  t=$(ms)
  (cd /mnt/e2e && E2E_DIR=/mnt/e2e E2E_OUT="$OUT" E2E_BOOT=$E2E_BOOT bash /mnt/e2e/test.sh) 2>&1 | tee -a "$OUT/test.log"
  rc=${PIPESTATUS[0]}
  echo "E2E-TESTED rc=$rc took_ms=$(( $(ms) - t ))"
fi
echo "$rc" > "$OUT/rc"
t=$(ms)
journalctl -b --no-pager -o short-monotonic > "$OUT/journal.txt" 2>&1
if [ "${E2E_COLLECT:-0}" = 1 ] || [ "$rc" -ne 0 ]; then
  systemd-analyze blame --no-pager > "$OUT/blame.txt" 2>&1
  systemd-analyze critical-chain --no-pager > "$OUT/critical-chain.txt" 2>&1
  systemctl list-units --failed --no-pager > "$OUT/failed-units.txt" 2>&1
fi
cd / && sync && umount /mnt/e2e
echo "E2E-COLLECTED took_ms=$(( $(ms) - t ))"
echo "E2E-DONE rc=$rc uptime=$(up)"
# keep the VM up until the host says so (host checks, then "poweroff")
if [ -e "$CTLDEV" ]; then timeout "${E2E_HOLD:-300}" head -n1 "$CTLDEV" >/dev/null || true; fi
echo "E2E-POWEROFF uptime=$(up)"
systemctl poweroff
RUNNER
}

# helper for guest tests: make the HOST run its check now (VM stays up)
guest_host_check_helper() {
  cat <<'HELPER'
#!/bin/bash
# usage (inside guest test): e2e-host-check [NAME]  -> exit code of the host check
# The marker goes to stdout, which the runner pipes to the host log channel.
name=${1:-check}
echo "E2E-HOST-CHECK $name"
IFS= read -r reply < /dev/virtio-ports/e2e.ctl || reply="rc 99"
echo "host check '$name': $reply"
exit "${reply#rc }"
HELPER
}

# Baked into the image: wait for the e2e disk, mount it, run its runner.sh.
write_boot_stub() {
  local root=$1
  mkdir -p "$root/usr/local/sbin"
  cat > "$root/usr/local/sbin/e2e-boot" <<'STUB'
#!/bin/bash
fail() {  # tell the host right away instead of letting it time out
  echo "E2E-DONE rc=97 ($*)" | tee /dev/virtio-ports/e2e.log >&2; sleep 1; systemctl poweroff; exit 1
}
for _ in $(seq 1 300); do [ -e /dev/disk/by-label/e2e ] && break; sleep 0.1; done
mkdir -p /mnt/e2e && mount LABEL=e2e /mnt/e2e || fail "e2e disk missing"
# copy out: the runner unmounts the disk at the end; /run is noexec -> run via bash
cp /mnt/e2e/runner.sh /run/e2e-runner || fail "no runner.sh on e2e disk"
exec bash /run/e2e-runner
STUB
  chmod 755 "$root/usr/local/sbin/e2e-boot"
  cat > "$root/etc/systemd/system/e2e-runner.service" <<'UNIT'
[Unit]
Description=VM e2e test runner
After=multi-user.target

[Service]
Type=exec
ExecStart=/usr/local/sbin/e2e-boot
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
UNIT
}

customize_rootfs() {
  local root=$1
  echo e2e-vm > "$root/etc/hostname"
  printf '127.0.0.1 localhost\n127.0.1.1 e2e-vm\n::1 localhost ip6-localhost\n' > "$root/etc/hosts"
  printf '/dev/vda / ext4 rw,noatime 0 1\n' > "$root/etc/fstab"
  sed -i 's/^root:[^:]*:/root::/' "$root/etc/shadow"      # console login w/o password (debug)
  mkdir -p "$root/etc/systemd/network"
  printf '[Match]\nName=en* eth*\n\n[Network]\nDHCP=ipv4\n' > "$root/etc/systemd/network/20-wired.network"
  # host's systemctl --root only creates symlinks, so this works for a foreign-arch root too
  write_boot_stub "$root"
  systemctl --root="$root" enable systemd-networkd.service e2e-runner.service >/dev/null 2>&1
  # periodic jobs that would otherwise run during the test (dpkg-db-backup fires at first boot)
  systemctl --root="$root" mask apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer >/dev/null 2>&1 || true
}

build_image() {
  local dir=$1 kpkg tmp rootfs
  if [ "$ARCH" = amd64 ]; then kpkg=linux-image-cloud-amd64; else kpkg=linux-image-cloud-arm64; fi
  [ "$ARCH" = amd64 ] || ensure_binfmt_arm64
  tmp=$(mktemp -d "$VM_DIR/build.XXXXXX")
  rootfs=$tmp/rootfs
  mkdir -p "$CACHE/apt-$ARCH"
  log "building $ARCH $SUITE image with mmdebstrap (extra: ${EXTRA_PKGS:-none})"
  local include="systemd-sysv,udev,dbus,iproute2,curl,$kpkg"
  [ -n "$EXTRA_PKGS" ] && include="$include,$EXTRA_PKGS"
  # small initramfs: only the virtio + ext4 modules we need; the hook's $1
  # is mmdebstrap's (the root directory), expanded by the hook's shell.
  # shellcheck disable=SC2016
  mmdebstrap --mode=root --arch="$ARCH" --variant=apt --include="$include" \
    --essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d"; echo MODULES=list > "$1/etc/initramfs-tools/conf.d/vm.conf"; printf "virtio_pci\nvirtio_mmio\nvirtio_blk\nvirtio_net\nvirtio_console\next4\n" >> "$1/etc/initramfs-tools/modules"' \
    --setup-hook="mkdir -p \"\$1/var/cache/apt/archives/\"" \
    --setup-hook="sync-in $CACHE/apt-$ARCH /var/cache/apt/archives/" \
    --customize-hook="sync-out /var/cache/apt/archives $CACHE/apt-$ARCH" \
    "$SUITE" "$rootfs" "$MIRROR" > "$tmp/mmdebstrap.log" 2>&1 \
    || { tail -30 "$tmp/mmdebstrap.log" >&2; die "mmdebstrap failed (log: $tmp/mmdebstrap.log)"; }
  log "rootfs done ($(du -sh "$rootfs" | cut -f1))"
  customize_rootfs "$rootfs"
  cp "$rootfs"/boot/vmlinuz-* "$tmp/vmlinuz"
  cp "$rootfs"/boot/initrd.img-* "$tmp/initrd.img"
  # ext4 image straight from the directory: no loop mount needed
  mkfs.ext4 -q -F -L root -d "$rootfs" "$tmp/root.raw" 2G
  rm -rf "$rootfs"
  log "root.raw done ($(du -h "$tmp/root.raw" | cut -f1) used of 2G sparse)"
  mkdir -p "$(dirname "$dir")"
  rm -rf "$dir"; mv "$tmp" "$dir"
}

# ---------------------------------------------------------------- run
pick_port() {
  local p
  if [ -n "${VM_PORT:-}" ] && [ "${VM_PORT}" != auto ]; then echo "$VM_PORT"; return; fi
  for _ in $(seq 1 50); do
    p=$(( 20000 + RANDOM % 20000 ))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  die "no free port found"
}

host_deps
mkdir -p "$VM_DIR" "$CACHE"
KEY=$( { echo "$RECIPE_VERSION $ARCH $SUITE $MIRROR $EXTRA_PKGS"; declare -f write_boot_stub customize_rootfs build_image; } | sha256sum | cut -c1-12)
IMG=$CACHE/image-$ARCH-$KEY
if [ "${VM_REBUILD:-0}" = 1 ] || [ ! -f "$IMG/root.raw" ]; then
  build_image "$IMG"
else
  log "using cached image $IMG"
fi
T_IMG=$(ts "$T0")

mkdir -p "$VM_DIR/runs"
RUN=$(mktemp -d "$VM_DIR/runs/$ARCH.XXXXXX")
mkdir -p "$RUN/share"
cp "$DEB" "$RUN/share/"
cp "$TEST" "$RUN/share/test.sh"
guest_runner > "$RUN/share/runner.sh"
guest_host_check_helper > "$RUN/share/e2e-host-check"
PORT=$(pick_port)
cat > "$RUN/share/e2e.env" <<EOF
E2E_DEB=$(basename "$DEB")
E2E_GUEST_PORT=$GUEST_PORT
E2E_HOLD=$TIMEOUT
E2E_COLLECT=${VM_COLLECT:-0}
EOF
for kv in ${VM_GUEST_ENV:-}; do
  [[ "$kv" =~ ^[A-Z_][A-Z0-9_]*=[A-Za-z0-9_.,:/-]*$ ]] || die "VM_GUEST_ENV: not NAME=VALUE: $kv"
  echo "$kv" >> "$RUN/share/e2e.env"
done
SHARE_MB=$(( $(du -sm "$RUN/share" | cut -f1) * 2 + 64 ))
mkfs.ext4 -q -F -L e2e -d "$RUN/share" "$RUN/share.img" "${SHARE_MB}M"
qemu-img create -q -f qcow2 -b "$IMG/root.raw" -F raw "$RUN/overlay.qcow2"
: > "$RUN/guest.log"
mkfifo "$RUN/ctl.in" "$RUN/ctl.out"

APPEND="root=/dev/vda rw fsck.mode=skip quiet systemd.show_status=auto panic=-1 ${VM_APPEND:-}"
ACCEL_MODE=${VM_ACCEL:-auto}
if [ "$ACCEL_MODE" = auto ]; then
  ACCEL_MODE=tcg
  case "$ARCH:$(uname -m)" in amd64:x86_64|arm64:aarch64)
    # kvm_pvm = software "PVM" nested KVM (seen in sandboxes): stock Debian
    # kernels spend minutes in early boot there and die on emulation errors.
    if [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ]; then ACCEL_MODE=kvm; fi ;;
  esac
fi
case "$ARCH" in
  amd64)
    if [ "$ACCEL_MODE" = kvm ]; then ACCEL=(-accel kvm -cpu "${VM_X86_CPU:-host}")
    else ACCEL=(-accel "tcg,thread=multi" -cpu "${VM_X86_CPU:-max}"); fi
    QEMU=(qemu-system-x86_64 -M q35 "${ACCEL[@]}")
    APPEND="$APPEND console=ttyS0" ;;
  arm64)
    if [ "$ACCEL_MODE" = kvm ]; then ACCEL=(-accel kvm -cpu host)     # arm64 host (untested here)
    else ACCEL=(-accel "tcg,thread=multi" -cpu "$ARM_CPU"); fi
    QEMU=(qemu-system-aarch64 -M virt "${ACCEL[@]}")
    APPEND="$APPEND console=ttyAMA0" ;;
esac
log "accelerator: $ACCEL_MODE"
QEMU+=(-smp "$SMP" -m "$MEM" -nodefaults -display none -no-reboot
  -kernel "$IMG/vmlinuz" -initrd "$IMG/initrd.img" -append "$APPEND"
  -drive "file=$RUN/overlay.qcow2,if=none,id=root,format=qcow2,cache=${VM_ROOT_CACHE:-unsafe}" -device "virtio-blk-pci,drive=root"
  -drive "file=$RUN/share.img,if=none,id=share,format=raw" -device "virtio-blk-pci,drive=share"
  -nic "user,model=virtio-net-pci,restrict=on,hostfwd=tcp:127.0.0.1:$PORT-:$GUEST_PORT"
  -device virtio-rng-pci
  -serial "file:$RUN/console.log"
  -device virtio-serial-pci
  -chardev "file,id=e2elog,path=$RUN/guest.log" -device "virtserialport,chardev=e2elog,name=e2e.log"
  -chardev "pipe,id=e2ectl,path=$RUN/ctl" -device "virtserialport,chardev=e2ectl,name=e2e.ctl"
  -pidfile "$RUN/qemu.pid")
printf '%q ' "${QEMU[@]}" > "$RUN/qemu-cmdline.txt"

log "booting $ARCH VM (run dir $RUN, host 127.0.0.1:$PORT -> guest :$GUEST_PORT)"
T_START=$(date +%s.%N)
"${QEMU[@]}" > "$RUN/qemu.stderr" 2>&1 &
QPID=$!
BOOTS=1
# power_on_again: after a host check cut the power (rc 200), boot the same
# disks; the boot's log moves to guest.boot-N.log.
power_on_again() {
  kill -9 "$QPID" 2>/dev/null || true
  wait "$QPID" 2>/dev/null || true
  mv "$RUN/guest.log" "$RUN/guest.boot-$BOOTS.log"; : > "$RUN/guest.log"
  BOOTS=$((BOOTS + 1)); handled=0; T_BOOT=""; T_START=$(date +%s.%N)
  log "power cut; boot $BOOTS of the same disks"
  "${QEMU[@]}" >> "$RUN/qemu.stderr" 2>&1 &
  QPID=$!
}
# shellcheck disable=SC2317  # run by the trap
cleanup() { kill "$QPID" 2>/dev/null || true; }
trap cleanup EXIT

T_BOOT="" T_DONE="" GRC="" HRC=0 handled=0
deadline=$(( $(date +%s) + TIMEOUT ))
host_check() {   # $1 = name given by the guest
  local r=0
  if [ -n "${VM_HOST_CHECK:-}" ]; then
    VM_PORT=$PORT VM_RUN=$RUN VM_QEMU_PID=$QPID bash "$VM_HOST_CHECK" "$1" >> "$RUN/host-check.log" 2>&1 || r=$?
  else  # default: the forwarded health endpoint must answer
    curl -fsS --max-time 10 "http://127.0.0.1:$PORT${VM_HEALTH_PATH:-/healthz}" >> "$RUN/host-check.log" 2>&1 || r=$?
    echo >> "$RUN/host-check.log"
  fi
  echo "$r"
}
while :; do
  if [ -z "$T_BOOT" ] && grep -q '^E2E-BOOTED' "$RUN/guest.log"; then
    T_BOOT=$(ts "$T_START"); log "guest systemd reached 'running' ${T_BOOT}s after qemu start ($(grep '^E2E-BOOTED' "$RUN/guest.log"))"
  fi
  n=$(grep -c '^E2E-HOST-CHECK' "$RUN/guest.log" || true)
  while [ "$handled" -lt "$n" ]; do
    handled=$((handled + 1))
    name=$(grep '^E2E-HOST-CHECK' "$RUN/guest.log" | sed -n "${handled}p" | cut -d' ' -f2-)
    r=$(host_check "$name")
    log "host check '$name' (127.0.0.1:$PORT) rc=$r"
    if [ "$r" -eq 200 ]; then   # the check cut the power
      [ "$BOOTS" -lt "${VM_MAX_BOOTS:-1}" ] || { log "power cut with no boot left (VM_MAX_BOOTS)"; HRC=200; break 2; }
      power_on_again; break
    fi
    [ "$r" -eq 0 ] || HRC=$r
    echo "rc $r" > "$RUN/ctl.in"
  done
  if grep -q '^E2E-DONE' "$RUN/guest.log"; then
    T_DONE=$(ts "$T_START"); GRC=$(sed -n 's/^E2E-DONE rc=\([0-9]*\).*/\1/p' "$RUN/guest.log" | head -1); break
  fi
  kill -0 "$QPID" 2>/dev/null || { log "qemu exited early"; break; }
  [ "$(date +%s)" -lt "$deadline" ] || { log "timeout after ${TIMEOUT}s"; break; }
  sleep 0.2
done

if [ -n "$T_DONE" ]; then
  log "guest tests finished ${T_DONE}s after qemu start, guest rc=$GRC"
  echo poweroff > "$RUN/ctl.in"
  if [ "$ARCH" = amd64 ]; then n=150; else n=600; fi
  for _ in $(seq 1 "$n"); do kill -0 "$QPID" 2>/dev/null || break; sleep 0.2; done
fi
if kill -0 "$QPID" 2>/dev/null; then log "VM did not power off; killing qemu"; kill "$QPID"; sleep 1; kill -9 "$QPID" 2>/dev/null || true; fi
wait "$QPID" 2>/dev/null || true
trap - EXIT
T_END=$(ts "$T_START")

# pull results back out of the share disk without mounting it
debugfs -R "rdump /out $RUN" "$RUN/share.img" >/dev/null 2>&1 || true
rm -f "$RUN/ctl.in" "$RUN/ctl.out"

echo "------------------------------------------------------------ guest output" >&2
for f in $(ls -v "$RUN"/guest.boot-*.log 2>/dev/null) "$RUN/guest.log"; do sed 's/^/  guest| /' "$f" >&2; done
echo "------------------------------------------------------------" >&2
g() { sed -n "s/^$1 .*took_ms=\([0-9]*\).*/\1/p" "$RUN/guest.log" | head -1; }
log "TIMES image=${T_IMG}s boot_to_systemd_running=${T_BOOT:-n/a}s dpkg_i=$(g E2E-INSTALLED)ms test=$(g E2E-TESTED)ms collect=$(g E2E-COLLECTED)ms guest_done=${T_DONE:-n/a}s vm_exit=${T_END}s total=$(ts "$T0")s"
log "artifacts: $RUN (console.log, guest.log, out/{install,test}.log, out/journal.txt, out/blame.txt)"
[ -z "$GRC" ] && { log "FAIL: guest never reported a result (see $RUN/console.log and qemu.stderr)"; exit 1; }
rc=$GRC; [ "$rc" -eq 0 ] && rc=$HRC
if [ "$rc" -eq 0 ]; then
  log "PASS"; [ "$KEEP" = 1 ] || rm -f "$RUN/overlay.qcow2" "$RUN/share.img"
else
  log "FAIL rc=$rc"
fi
exit "$rc"
