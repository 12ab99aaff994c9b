# SPDX-License-Identifier: GPL-2.0-or-later
# bench/vm-sched-split.awk: split a cull round's time by task, from the task
# switches VMB_SCHED=1 keeps in its .trace.  The guest has one clock and, by
# default, one vCPU: whoever a switch hands the CPU to holds it until the
# next switch, so the gaps between switches add up to each task's time on
# the CPU ("swapper/0" is the idle task: waiting on the disk, or nothing to
# do).  FROM and TO are seconds after the round's "vmb start" marker
# (default: the whole trace); jbd2 commits and the kernel's unlinks in the
# window are counted too.  Tasks are named COMM/PID; with several vCPUs the
# switches of every CPU are summed.
#   awk -v FROM=0 -v TO=10.7 -f bench/vm-sched-split.awk \
#       build/vm-bench/boot/out/vmb-cull-ours-200000-1-1.trace
function field(name,    re) {
	re = name "=[^ ]+"
	if (!match($0, re))
		return ""
	return substr($0, RSTART + length(name) + 1, RLENGTH - length(name) - 1)
}
# the line's timestamp: "COMM-PID [CPU] FLAGS TIME: event: ..."
function raw(    t) {
	t = $0
	sub(/^.*\] [^ ]* +/, "", t)
	sub(/:.*/, "", t)
	return t + 0
}
function stamp() {
	return raw() - start
}
BEGIN {
	if (FROM == "")
		FROM = -1e9
	if (TO == "")
		TO = 1e9
}
/tracing_mark_write: vmb start$/ { start = raw() }
/ sched_switch: / {
	t = stamp()
	cpu = $0
	sub(/^[^[]*\[/, "", cpu)
	sub(/\].*/, "", cpu)
	if ((cpu in owner) && t > FROM && since[cpu] < TO) {
		a = since[cpu] < FROM ? FROM : since[cpu]
		b = t > TO ? TO : t
		oncpu[owner[cpu]] += b - a
		total += b - a
	}
	owner[cpu] = field("next_comm") "/" field("next_pid")
	since[cpu] = t
	next
}
/ jbd2_start_commit: / { t = stamp(); if (t > FROM && t < TO) commits++ }
/ cachefiles_unlink: / { t = stamp(); if (t > FROM && t < TO) unlinks++ }
END {
	for (k in oncpu)
		printf "%9.3f s  %5.1f %%  %s\n", oncpu[k], total ? 100 * oncpu[k] / total : 0, k | "sort -rn"
	close("sort -rn")
	printf "%9.3f s  switched  (%d jbd2 commits, %d unlinks in the window)\n", total, commits, unlinks
}
