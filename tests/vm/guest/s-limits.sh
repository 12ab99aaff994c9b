# SPDX-License-Identifier: GPL-2.0-or-later
# Limits listed in an order the kernel refuses one command at a time (it
# checks stop < cull < run < 100 against the values in force, which start
# at 1/5/7): raising ones written stop-first, lowering ones written run-first.
# The daemon must send them in a safe order and bind.
. /vm/glib.sh
DIR=$FS/limits
LOG=/out/limits-daemon.log
mkdir -p "$DIR"
printf 'dir %s\ntag vmraise\nbstop 3%%\nbcull 7%%\nbrun 10%%\nfstop 3%%\nfcull 7%%\nfrun 10%%\n' "$DIR" > /tmp/raise.conf
printf 'dir %s\ntag vmlower\nbrun 4%%\nbcull 3%%\nbstop 2%%\nfrun 4%%\nfcull 3%%\nfstop 2%%\n' "$DIR" > /tmp/lower.conf

for kind in raise lower; do
	echo "--- $kind: $(tr '\n' ';' < /tmp/$kind.conf)" >> "$LOG"
	d0=$(dmesg_lines)
	if cfd_bind "/tmp/$kind.conf" "$LOG"; then bound=yes; else bound=no; fi
	sleep 1
	refused=$(dmesg_since "$d0" | grep -c 'Free space limits must be in range')
	if [ $bound = yes ] && alive "$CFD_PID" && [ "$refused" -eq 0 ] &&
	   dmesg | grep -q "File cache on vm$kind registered"; then
		ok "limits written in $kind order that the kernel refuses one by one: the daemon binds"
	else
		not_ok "limits written in $kind order that the kernel refuses one by one: the daemon binds"
		diag "bound=$bound, kernel refused $refused limit commands"
		dmesg_since "$d0" | sed 's/^/#   dmesg: /'
		diag_file "$LOG"
	fi
	cfd_stop "$CFD_PID" TERM
	wait_until 10 sh -c "! grep -q ' A vm$kind\$' /proc/fs/fscache/caches"
done

# A dir that is a symbolic link: the kernel does not follow a final link at
# bind (ENOTDIR); the daemon binds the link's target instead.
ln -s "$DIR" /fs/limits-link
printf 'dir /fs/limits-link\ntag vmlink\n' > /tmp/link.conf
echo "--- link: $(tr '\n' ';' < /tmp/link.conf)" >> "$LOG"
if cfd_bind /tmp/link.conf "$LOG" && dmesg | grep -q "File cache on vmlink registered" &&
   grep -q "symbolic link: binding $DIR" "$LOG"; then
	ok "a dir that is a symbolic link: the daemon binds its target"
else
	not_ok "a dir that is a symbolic link: the daemon binds its target"
	diag_file "$LOG"
fi
cfd_stop "$CFD_PID" TERM
wait_until 10 sh -c "! grep -q ' A vmlink\$' /proc/fs/fscache/caches"
[ "$FAILED" -eq 0 ]
