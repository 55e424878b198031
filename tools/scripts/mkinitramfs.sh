#!/usr/bin/env bash
# Build the base guest initramfs: busybox, the modules, the tools and the
# selftests with the shared libraries they need.
# usage: mkinitramfs.sh OUT.cpio.gz MODULE.ko... -- TOOL... -- SELFTEST...
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
shift
mods=() tools=() tests=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do mods+=("$1"); shift; done
shift || true
while [ $# -gt 0 ] && [ "$1" != -- ]; do tools+=("$1"); shift; done
shift || true
tests=("$@")

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib/modules/mcmgpu,opt/mcmgpu/bin,opt/mcmgpu/selftests,etc,run}
cp /bin/busybox "$root/bin/busybox"
for a in $("$root/bin/busybox" --list); do
	[ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
done
install -m 755 "$top/tools/guest/init" "$root/init"

# Load order = order given (mcmgpu first, then its auxiliary drivers).
: >"$root/lib/modules/mcmgpu/load-order"
for m in "${mods[@]}"; do
	cp "$m" "$root/lib/modules/mcmgpu/"
	basename "$m" .ko >>"$root/lib/modules/mcmgpu/load-order"
done

copy_libs() {
	local lib
	for lib in $(ldd "$1" 2>/dev/null | grep -oE '/[^ ]+' | sort -u); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
for t in "${tools[@]}"; do
	cp "$t" "$root/opt/mcmgpu/bin/"
	copy_libs "$t"
done
for t in "${tests[@]}"; do
	cp "$t" "$root/opt/mcmgpu/selftests/"
	copy_libs "$t"
done
# pciutils' lspci, which decodes extended capabilities (ATS, PASID) that
# busybox's does not.
rm -f "$root/bin/lspci"
cp /usr/bin/lspci "$root/usr/bin/lspci"
copy_libs /usr/bin/lspci
for ids in /usr/share/misc/pci.ids /usr/share/hwdata/pci.ids; do
	[ -e "$ids" ] || continue
	mkdir -p "$root$(dirname "$ids")"
	cp -L "$ids" "$root$ids"
done
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"

# Reproducible: fixed times, no inode numbers, no gzip time stamp, so an
# unchanged guest hashes the same (make run keeps results across builds).
find "$root" -exec touch -h -d @0 {} +
(cd "$root" && find . | LC_ALL=C sort |
	cpio -o -H newc --quiet -R 0:0 --reproducible) |
	gzip -1 -n >"$out.tmp"
mv "$out.tmp" "$out"
