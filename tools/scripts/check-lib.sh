# Shared by check.sh and check-debug.sh: count a guest run's kselftest
# totals into $pass and $fail. A run that failed without any failing test
# counted (crash, timeout, kernel warning) counts as one. EXTRA (optional)
# goes after the counts, e.g. the run's seconds.
count() {
	local name=$1 log=$2 rc=$3 extra=${4:-} p f
	p=$(sed -n 's/.*# Totals: pass:\([0-9]*\) fail:\([0-9]*\).*/\1/p' "$log" | paste -sd+ | bc)
	f=$(sed -n 's/.*# Totals: pass:\([0-9]*\) fail:\([0-9]*\).*/\2/p' "$log" | paste -sd+ | bc)
	p=${p:-0} f=${f:-0}
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f))
	printf '%-34s %4d passed, %d failed%s%s\n' "$name" "$p" "$f" "$extra" \
		"$([ "$rc" != 0 ] && echo " (exit $rc, log $log)")"
}

# failures LOG: each failing test's own lines (assertions, TH_LOG lines,
# timeouts, signals) from its RUN line to its "not ok", then the totals.
failures() {
	awk '/^#  RUN /{ buf = ""; next }
	     /^not ok/{ printf "%s%s\n", buf, $0; buf = ""; next }
	     /^ok /{ buf = ""; next }
	     /^# FAIL/{ print; next }
	     /^# /{ buf = buf $0 "\n" }' "$1" | head -n 40
}
