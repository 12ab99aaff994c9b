# SPDX-License-Identifier: GPL-2.0-or-later
# Who may bind, and who owns what the kernel creates (issue: should the
# daemon run as a dedicated user?).  Evidence on the real module:
#  1. an unprivileged uid holding CAP_SYS_ADMIN cannot even open the device
#     (its node is 0600 root: CAP_SYS_ADMIN does not bypass file modes);
#  2. opened as root and bound as uid 4242 with only CAP_SYS_ADMIN, the
#     kernel creates the cache tree as 4242 (its credentials are the
#     binder's);
#  3. a cache a root daemon made (every existing one) stays root's, and
#     bound as 4242 the kernel cannot look into it: lookups fail EACCES.
# So running as a dedicated user would need a recursive chown of every
# existing cache first; man/cachefilesd.8 (SECURITY) says what we chose.
. /vm/glib.sh
U=4242
SP="/usr/bin/setpriv --reuid=$U --regid=$U --clear-groups --inh-caps=+sys_admin --ambient-caps=+sys_admin"

# 1. Straight as the user.
out=$($SP "$CFSIM" bind-as $U /fs/never user0 0 2>&1)
log "$out"
echo "$out" | grep -q '^open as uid 4242: Permission denied'
verdict $? "uid $U with CAP_SYS_ADMIN cannot open /dev/cachefiles (mode 0600 root)"

# 2. Opened as root, bound as the user.
DIR=$FS/usercache
mkdir -p "$DIR"
chown $U:$U "$DIR"
r0=$(nreg)
"$CFSIM" bind-as $U "$DIR" user1 1 > /tmp/bindas.out 2>&1 &
P=$!
remember_pid $P
wait_until 20 reg_above "$r0"
verdict $? "bound as uid $U after opening the device as root"
wait $P
cat /tmp/bindas.out >&2
grep -q '^capabilities dropped: ok' /tmp/bindas.out
verdict $? "every capability dropped after bind"
owners=$(stat -c '%u:%g' "$DIR/cache" "$DIR/graveyard" | sort -u)
[ "$owners" = "$U:$U" ]
verdict $? "the kernel created DIR/cache and DIR/graveyard as uid $U ($owners)"

# 3. A cache a root daemon made, bound as the user.
DIR2=$FS/rootcache
mkdir -p "$DIR2"
conf_limits "$DIR2" roottest > /tmp/root.conf
cfd_bind /tmp/root.conf /out/user-root.log
share_mount && read_files $DATA/small/02.txt $DATA/small/03.txt; drop_caches; share_umount
cfd_stop "$CFD_PID"
find "$DIR2" -exec stat -c '%u:%g %a %n' {} \; >&2
chown $U:$U "$DIR2"
d0=$(dmesg_lines)
"$CFSIM" bind-as $U "$DIR2" roottest 10 > /tmp/bindas3.out 2>&1 &
P=$!
sleep 3
share_mount && read_files $DATA/small/02.txt $DATA/small/04.txt; drop_caches; share_umount
wait $P
cat /tmp/bindas3.out >&2
dmesg_since "$d0" >&2
find "$DIR2" -exec stat -c '%u:%g %a %n' {} \; >&2
cp /tmp/bindas3.out /out/user-bindas3.txt
dmesg_since "$d0" > /out/user-dmesg3.txt
dmesg_since "$d0" | grep -q 'CacheFiles: Lookup .* failed with error -13'
verdict $? "a cache a root daemon made is unreadable to the kernel once bound as uid $U (EACCES)"
[ "$FAILED" -eq 0 ]
