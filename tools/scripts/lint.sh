#!/usr/bin/env bash
# Static checks of the kernel code: checkpatch --strict, sparse, and the
# call and include graphs of the modules' files (no cycle: file-graph.py).
# Exceptions to checkpatch are listed in docs/drivers.md ("Style exceptions") and
# passed as --ignore here, each with its reason there.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
case "$1" in
checkpatch)
	cp=(perl "$2" --strict --no-tree --terse --show-types --quiet)
	status=0
	# shellcheck disable=SC2046
	"${cp[@]}" -f $(git ls-files 'drivers/*.[ch]') || status=1
	# uapi headers are user-space headers too: BIT() and u32 do not exist
	# there (docs/drivers.md, "Style exceptions").
	# shellcheck disable=SC2046
	"${cp[@]}" --ignore BIT_MACRO,PREFER_KERNEL_TYPES -f $(git ls-files 'uapi/*.h') || status=1
	# The device follows QEMU's style: QEMU's own checkpatch, from the
	# source tree tools/scripts/build-qemu.sh keeps in the cache.
	qcp=$(bash tools/scripts/build-qemu.sh --source)/scripts/checkpatch.pl
	for f in $(git ls-files 'qemu-device/*.[ch]'); do
		out=$(perl "$qcp" --no-tree --terse -f "$f" 2>&1) || { echo "$out"; status=1; }
	done
	exit $status
	;;
sparse)
	kdir=/usr/src/linux-headers-$(tools/scripts/kver.sh)
	out=$(make -s -C "$kdir" M="$top" CONFIG_DEBUG_INFO_BTF_MODULES= C=2 CHECK="sparse -Wno-decl" modules 2>&1)
	echo "$out"
	! echo "$out" | grep -E 'warning:|error:'
	;;
file-graph)
	# From the objects of a fresh build: each Kbuild .mod lists a module's.
	kdir=/usr/src/linux-headers-$(tools/scripts/kver.sh)
	make -s -C "$kdir" M="$top" CONFIG_DEBUG_INFO_BTF_MODULES= modules
	mapfile -t mods < <(git ls-files 'drivers/*Kbuild' | xargs -n1 dirname |
		while read -r d; do ls "$d"/*.mod 2>/dev/null; done)
	[ ${#mods[@]} -gt 0 ] || { echo "lint.sh: no module built" >&2; exit 1; }
	python3 tools/scripts/file-graph.py --includes drivers --includes uapi "${mods[@]}"
	;;
*)
	echo "lint.sh: unknown check '$1'" >&2
	exit 2
	;;
esac
