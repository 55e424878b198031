#!/usr/bin/env bash
# Build qemu-system-x86_64 from Debian's qemu source package with
# qemu-device/ added as hw/mcmgpu/. The source and build tree live in a
# cache outside the clone, keyed by the source version, so a device change
# rebuilds incrementally. Prints the path of the binary on stdout.
# --fuzz: instead, QEMU's libFuzzer binary qemu-fuzz-x86_64 (clang,
# --enable-fuzzing --enable-sanitizers) in its own build tree beside it.
# --plugins: instead, qemu-system-x86_64 with TCG plugins (--enable-plugins)
# in a third tree, linked as qemu-system-x86_64-plugins (tcg-profile.sh).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${MCMGPU_CACHE:-$HOME/.cache/mcmgpu}
log() { echo "build-qemu: $*" >&2; }

ver=$(apt-get source --print-uris qemu 2>/dev/null |
	awk '/\.dsc / { sub(/^qemu_/, "", $2); sub(/\.dsc$/, "", $2); print $2 }' | head -n 1)
[ -n "$ver" ] || { log "cannot resolve the qemu source version (deb-src missing?)"; exit 1; }
dir=$cache/qemu-$ver
src=$dir/src
build=$dir/build
target=qemu-system-x86_64
link=$target
extra=()
if [ "${1:-}" = "--fuzz" ]; then
	build=$dir/build-fuzz
	target=qemu-fuzz-x86_64
	link=$target
	extra=(--cc=clang --cxx=clang++ --enable-fuzzing --enable-sanitizers)
elif [ "${1:-}" = "--plugins" ]; then
	build=$dir/build-plugins
	link=qemu-system-x86_64-plugins
	extra=(--enable-plugins)
fi

if [ ! -f "$src/.mcmgpu-extracted" ]; then
	log "fetching Debian qemu source $ver"
	rm -rf "$dir/dl" "$src"
	mkdir -p "$dir/dl"
	(cd "$dir/dl" && apt-get source -qq qemu >/dev/null 2>&1)
	mv "$(find "$dir/dl" -mindepth 1 -maxdepth 1 -type d -name 'qemu-*' | head -n 1)" "$src"
	rm -rf "$dir/dl"
	touch "$src/.mcmgpu-extracted"
fi
# --source: fetch the source if needed and print its path (checkpatch).
if [ "${1:-}" = "--source" ]; then
	echo "$src"
	exit 0
fi

# Copy a file only when its content changed, so ninja sees no change otherwise.
sync_file() {
	if ! cmp -s "$1" "$2"; then
		mkdir -p "$(dirname "$2")"
		cp "$1" "$2"
	fi
}
# hw/mcmgpu mirrors qemu-device/ (the glue, model/ the freestanding
# models) and uapi/; a file gone from the clone goes from the mirror too,
# so a stale header never shadows the one its source moved to.
mkdir -p "$src/hw/mcmgpu/uapi" "$src/hw/mcmgpu/model"
for d in "" model/; do
	for f in "$top/qemu-device/$d"*; do
		[ -f "$f" ] && sync_file "$f" "$src/hw/mcmgpu/$d$(basename "$f")"
	done
	for f in "$src/hw/mcmgpu/$d"*; do
		[ -f "$f" ] && [ ! -e "$top/qemu-device/$d$(basename "$f")" ] && rm -f "$f"
	done
done
for f in "$top"/uapi/*.h; do
	sync_file "$f" "$src/hw/mcmgpu/uapi/$(basename "$f")"
done
# The kernel modules' cores the models call (model/DRIVER_CORES, paths
# from the top), each with its header, into hw/mcmgpu/drivers/.
mkdir -p "$src/hw/mcmgpu/drivers"
while read -r f; do
	[ -n "$f" ] || continue
	sync_file "$top/$f" "$src/hw/mcmgpu/drivers/$(basename "$f")"
	sync_file "$top/${f%.c}.h" "$src/hw/mcmgpu/drivers/$(basename "${f%.c}.h")"
done <"$top/qemu-device/model/DRIVER_CORES"
grep -q "^subdir('mcmgpu')" "$src/hw/meson.build" ||
	echo "subdir('mcmgpu')" >>"$src/hw/meson.build"
grep -q "'hw/mcmgpu'," "$src/meson.build" ||
	sed -i "s|^    'hw/misc',|&\n    'hw/mcmgpu',|" "$src/meson.build"
grep -q "^source mcmgpu/Kconfig" "$src/hw/Kconfig" ||
	sed -i 's|^source misc/Kconfig|&\nsource mcmgpu/Kconfig|' "$src/hw/Kconfig"

if [ ! -f "$build/build.ninja" ]; then
	log "configuring (x86_64-softmmu, minimal features)"
	rm -rf "$build"
	mkdir -p "$build"
	(cd "$build" && "$src/configure" --target-list=x86_64-softmmu \
		--without-default-features --disable-docs --disable-werror \
		--disable-user --enable-tcg "${extra[@]}" >"$build/configure.log" 2>&1) ||
		{ log "configure failed, see $build/configure.log"; tail -n 20 "$build/configure.log" >&2; exit 1; }
fi
if ! ninja -C "$build" "$target" >"$build/ninja.log" 2>&1; then
	log "build failed, see $build/ninja.log"
	grep -E 'error|Error' "$build/ninja.log" | head -n 20 >&2
	exit 1
fi
# The device must compile without warnings (QEMU's own -Werror is off).
if grep -q 'hw/mcmgpu/.*warning:' "$build/ninja.log"; then
	log "warnings in qemu-device/:"
	grep -A4 'hw/mcmgpu/.*warning:' "$build/ninja.log" >&2
	exit 1
fi
ln -sfn "$build/$target" "$cache/$link"
echo "$build/$target"
