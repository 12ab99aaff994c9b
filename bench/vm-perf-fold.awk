# SPDX-License-Identifier: GPL-2.0-or-later
# bench/vm-perf-fold.awk: fold a cull round's samples (VMB_PERF=1 writes
# vmb-cull-*.perf.script, perf script -F comm,tid,ip,sym) by thread and by the
# system call they were taken in ("user" outside the kernel, "other" for
# kernel time in no system call: interrupts, faults).  At perf's 250 Hz a
# sample is 4 ms of CPU.
#   awk -f bench/vm-perf-fold.awk build/vm-bench/boot/out/vmb-cull-ours-200000-1-1.perf.script
function flush(    i, c) {
	if (n == 0)
		return
	c = "other"
	for (i = 1; i <= n; i++)
		if (fr[i] ~ /^(__x64_sys_|__do_sys_|__se_sys_|ksys_)/) {
			c = fr[i]
			break
		}
	if (c == "other" && addr[1] !~ /^ffff/)
		c = "user"
	sub(/^(__x64_sys_|__do_sys_|__se_sys_|ksys_)/, "", c)
	cnt[tid " " c]++
	all[c]++
	total++
	n = 0
}
# a sample's first line: "COMM TID" (COMM may hold blanks), or "TID" alone
/^[^\t]/ && $NF ~ /^[0-9]+$/ { flush(); tid = NF > 1 ? $NF "/" $1 : $1; next }
/^$/ { flush(); next }
{ n++; addr[n] = $1; fr[n] = $2 }
END {
	flush()
	for (k in cnt)
		printf "%6d  tid %s\n", cnt[k], k | "sort -k3,3 -k1rn"
	close("sort -k3,3 -k1rn")
	for (k in all)
		printf "%6d  all %s\n", all[k], k | "sort -rn"
	close("sort -rn")
	printf "%6d  samples\n", total
}
