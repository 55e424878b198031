#!/usr/bin/env bash
# Build the debug guest kernel (issue 9, item 2): Debian's linux-source-6.1,
# the same version as the guest kernel, configured as tinyconfig plus
# tools/guest/debug-kernel.config (KASAN, lockdep, kmemleak, UBSAN, fault
# injection). Source and build tree live in a cache outside the clone, keyed
# by the source package version and the config fragment, so a second call is
# a no-op. Prints the build tree's path on stdout (bzImage at
# arch/x86/boot/bzImage; external modules build with make -C that path).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${MCMGPU_CACHE:-$HOME/.cache/mcmgpu}
fragment=$top/tools/guest/debug-kernel.config
tarball=/usr/src/linux-source-6.1.tar.xz
log() { echo "build-debug-kernel: $*" >&2; }

[ -r "$tarball" ] || { log "missing $tarball (run 'make deps')"; exit 1; }
pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
# Bump recipe when the way the kernel is configured or built changes.
recipe=1
key=$( (echo "recipe $recipe"; cat "$fragment") | sha256sum | cut -c1-12)
dir=$cache/linux-debug-$pkgver-$key
kdir=$dir/linux-source-6.1

if [ -f "$dir/.built" ]; then
	ln -sfn "$dir" "$cache/linux-debug"
	echo "$kdir"
	exit 0
fi

start=$(date +%s)
if [ ! -f "$dir/.extracted" ]; then
	log "extracting $tarball ($pkgver)"
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir"
	touch "$dir/.extracted"
fi

log "configuring: tinyconfig + $(basename "$fragment")"
make -s -C "$kdir" tinyconfig >/dev/null
(cd "$kdir" && scripts/kconfig/merge_config.sh -m .config "$fragment" >/dev/null)
make -s -C "$kdir" olddefconfig >/dev/null
# Kconfig drops what it cannot satisfy without a word: insist on each line.
bad=0
while IFS= read -r line; do
	case "$line" in ''|'#'*) continue ;; esac
	sym=${line%%=*} val=${line#*=}
	if [ "$val" = n ]; then
		got=$(grep -E "^$sym=|^# $sym is not set" "$kdir/.config" || true)
		case "$got" in ''|"# $sym is not set") ;; *) log "$sym: wanted n, got '$got'"; bad=1 ;; esac
	elif ! grep -qxF "$line" "$kdir/.config"; then
		log "$sym: wanted '$val', got '$(grep -E "^$sym=" "$kdir/.config" || echo 'not set')'"
		bad=1
	fi
done <"$fragment"
[ "$bad" = 0 ] || { log "the config fragment cannot be satisfied; fix $fragment"; exit 1; }

log "building bzImage and modules with $(nproc) jobs (about 20 min on 2 cores, once)"
if ! make -C "$kdir" -j"$(nproc)" bzImage modules >"$dir/build.log" 2>&1; then
	log "build failed, see $dir/build.log"
	grep -E 'error|Error' "$dir/build.log" | head -n 20 >&2
	exit 1
fi
echo "$(( $(date +%s) - start ))" >"$dir/build-seconds"
touch "$dir/.built"
ln -sfn "$dir" "$cache/linux-debug"
log "built $(make -s -C "$kdir" kernelrelease) in $(cat "$dir/build-seconds") s"
echo "$kdir"
