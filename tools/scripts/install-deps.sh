#!/usr/bin/env bash
# Install what the build needs; idempotent and quiet when everything is present.
# The deb-src entry is derived from the machine's own apt sources, never hard-coded.
set -euo pipefail

pkgs=(build-essential bc kmod cpio busybox-static libpci-dev pciutils
      meson ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev python3-venv
      pkg-config flex bison seabios qemu-system-data ipxe-qemu dpkg-dev
      linux-source-6.1 gnuplot-nox sparse xz-utils clang libclang-rt-14-dev
      libelf-dev parallel)

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

log() { echo "install-deps: $*" >&2; }

apt_updated=0
apt_update() {
	if [ "$apt_updated" -eq 0 ]; then
		log "apt-get update"
		"${sudo_cmd[@]}" apt-get update -qq >/dev/null
		apt_updated=1
	fi
}

# Add deb-src entries mirroring the existing binary sources.
ensure_deb_src() {
	local out=/etc/apt/sources.list.d/mcmgpu-deb-src.sources
	local legacy=/etc/apt/sources.list.d/mcmgpu-deb-src.list
	[ -e "$out" ] || [ -e "$legacy" ] && return 0
	if grep -rqsE '^Types:.*deb-src' /etc/apt/sources.list.d/ ||
	   grep -qsE '^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list; then
		return 0
	fi
	local f tmp
	tmp=$(mktemp)
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		# Keep only stanzas with Debian's own keyring (skip third-party repos).
		awk 'BEGIN{RS=""; ORS="\n\n"} /debian-archive-keyring/ {
			sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f" >>"$tmp"
	done
	if [ -s "$tmp" ]; then
		"${sudo_cmd[@]}" install -m 644 "$tmp" "$out"
	else
		grep -hsE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
			sed 's/^deb /deb-src /' >"$tmp" || true
		[ -s "$tmp" ] || { rm -f "$tmp"; log "no apt sources to derive deb-src from"; return 1; }
		"${sudo_cmd[@]}" install -m 644 "$tmp" "$legacy"
	fi
	rm -f "$tmp"
	apt_updated=0
	log "added deb-src entries derived from the existing apt sources"
}

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done

# Guest kernel: the image and headers of one ABI version.
if ! ls /boot/vmlinuz-*-amd64 >/dev/null 2>&1 ||
   ! ls -d /usr/src/linux-headers-*-amd64 >/dev/null 2>&1; then
	missing+=(linux-image-amd64 linux-headers-amd64)
fi

if [ "${#missing[@]}" -gt 0 ]; then
	apt_update
	log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
fi

ensure_deb_src
if [ "$apt_updated" -eq 0 ] && ! apt-cache showsrc qemu >/dev/null 2>&1; then
	apt_update
fi
exit 0
