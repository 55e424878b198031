#!/usr/bin/env bash
# Live migration (the guest runs while its RAM is copied) of a guest that
# writes memory all along: N runs, each must come back and finish its
# command. Run it with and without the device (--no-device) to tell our
# device's faults from QEMU's. usage: live-migrate-check.sh [--no-device] N
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
args=()
[ "${1:-}" = --no-device ] && { args+=(--no-device); shift; }
n=${1:?usage: live-migrate-check.sh [--no-device] N}
bad=0
log=$(mktemp)
for i in $(seq 1 "$n"); do
	MCMGPU_MIGRATE_LIVE=1 "$top/tools/vm-run" --no-build --migrate --timeout 120 \
		"${args[@]}" -- sh -c '
		rmmod gpu_rc barre_iommu mcmgpu 2>/dev/null
		(while :; do dd if=/dev/zero of=/tmp/f bs=1M count=64 2>/dev/null; rm -f /tmp/f; done) &
		echo @@MCMGPU-MIGRATE@@; read x; kill %1
		ls / >/dev/null && cat /proc/meminfo >/dev/null && echo LIVE-MIGRATION-OK' >"$log" 2>&1
	if grep -q LIVE-MIGRATION-OK "$log"; then
		echo "run $i: ok"
	else
		bad=$((bad + 1))
		echo "run $i: the guest did not survive: $(grep -m1 -E 'BUG|panic|general protection|Oops' "$log")"
	fi
done
rm -f "$log"
echo "live-migrate-check: $bad of $n runs failed${args:+ (no device)}"
[ "$bad" = 0 ]
