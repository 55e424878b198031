#!/usr/bin/env bash
# Counts the guest instructions a command runs under TCG, by symbol of the
# guest kernel, its modules and user space: one guest boot runs only the
# baseline (boot and power-off), another runs CMD; the difference is CMD's.
#   tools/scripts/tcg-profile.sh [-n UNITS] [--top K] [vm-run options] -- CMD [ARG...]
# Builds QEMU with TCG plugins in the cache (build-qemu.sh --plugins, about
# 7 minutes the first time) and the tb_insns plugin beside it.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${MCMGPU_CACHE:-$HOME/.cache/mcmgpu}
units=1
ntop=30
vmopts=()
while [ $# -gt 0 ]; do
	case $1 in
	-n) units=${2:?-n needs a number}; shift 2 ;;
	--top) ntop=${2:?--top needs a number}; shift 2 ;;
	-h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	*) vmopts+=("$1"); shift ;;
	esac
done
[ $# -gt 0 ] || { echo "tcg-profile: no command (see --help)" >&2; exit 2; }
case $units in ''|*[!0-9.]*) echo "tcg-profile: -n must be a number, got '$units'" >&2; exit 2 ;; esac

"$top/tools/scripts/build-qemu.sh" --plugins >/dev/null
src=$("$top/tools/scripts/build-qemu.sh" --source)
plugin=$cache/tcg-profile/libtb_insns.so
mkdir -p "$cache/tcg-profile"
if [ ! -f "$plugin" ] || [ "$top/tools/scripts/tcg-profile/tb_insns.c" -nt "$plugin" ]; then
	read -r -a glib <<<"$(pkg-config --cflags --libs glib-2.0)"
	cc -O2 -Wall -Werror -shared -fPIC -o "$plugin" \
		"$top/tools/scripts/tcg-profile/tb_insns.c" -I"$src/include/qemu" \
		"${glib[@]}"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
profile() {	# profile NAME CMD...: one boot with the plugin, CMD run in it
	local name=$1
	shift
	mkdir -p "$work/$name"
	cat >"$work/qemu" <<-WRAP
	#!/bin/sh
	exec "$cache/qemu-system-x86_64-plugins" -plugin "$plugin,out=$work/$name/tb_insns.txt" "\$@"
	WRAP
	chmod +x "$work/qemu"
	echo "tcg-profile: $name run..." >&2
	# shellcheck disable=SC2016 # expanded in the guest
	MCMGPU_QEMU=$work/qemu "$top/tools/vm-run" --no-build --out "$work/$name/out" \
		${vmopts[@]+"${vmopts[@]}"} -- sh -c \
		'"$@" >/dev/null; s=$?; cat /proc/kallsyms >"$MCMGPU_OUT/kallsyms"; exit $s' \
		sh "$@"
	mv "$work/$name/out/kallsyms" "$work/$name/"
}
profile base true
profile run "$@"
python3 "$top/tools/scripts/tcg-profile/symbolize.py" -n "$units" --top "$ntop" \
	"$work/base" "$work/run"
