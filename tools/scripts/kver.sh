#!/usr/bin/env bash
# Print the guest kernel version: the newest one with both a Debian image
# in /boot and matching headers in /usr/src (same ABI version).
set -euo pipefail
for h in $(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -rV); do
	v=${h#/usr/src/linux-headers-}
	if [ -e "/boot/vmlinuz-$v" ]; then
		echo "$v"
		exit 0
	fi
done
echo "kver: no linux-image/linux-headers pair of one version installed" >&2
exit 1
