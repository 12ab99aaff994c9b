/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim.h: the parts of cfsim, the CacheFiles kernel simulator used by the
 * integration tests (see docs/simulator-protocol.md).
 *
 *   simdev.c    the device model: command parser, bind, limits, the state
 *               line, the space check, cull/inuse, the control requests
 *   simserve.c  "cfsim serve": the sockets and the poll loop
 *   simtools.c  "cfsim ctl" and "cfsim notify-listen"
 *   conform.c   "cfsim conform": one fixed sequence through kernel/channel.c,
 *               over the device's or the simulator's transport
 *   simtransport.c  the channel's transport to the simulator (simtransport.h),
 *               also linked into the test daemon and test_kernel
 *   link-sim.c  not part of cfsim: makes the test daemon, cachefilesd-sim,
 *               use the simulator's transport (docs/kernel-seam.md)
 *   cfsim.c     main(), the log
 */
#ifndef CFSIM_SIM_H
#define CFSIM_SIM_H

#include <stddef.h>
#include <sys/types.h>

#define SIM_CMD_MAX 4095	/* PAGE_SIZE - 1 on x86-64 */
#define SIM_LINE_MAX 256	/* the kernel formats the state line into 256 bytes */
#define SIM_CTL_MAX 4096	/* one control request or reply */

/* Behaviour switches of "cfsim serve", set from its command line. */
struct simopts {
	int estale;		/* a missing name in cull/inuse gives ESTALE (newest kernels) */
	int eperm;		/* every open fails with EPERM (no CAP_SYS_ADMIN) */
	int old_kernel;		/* <= 5.16: no released counters, block limits in pages */
	int xattr_check;	/* bind fails EOPNOTSUPP when DIR refuses user.* xattrs */
	int fail_bind;		/* errno every bind fails with after its checks, 0 = none */
	unsigned busy_ms;	/* opens fail EBUSY for this long after start */
	unsigned withdraw_ms;	/* ... and for this long after each close */
	unsigned cull_delay_ms;	/* each cull takes this long (a slow kernel) */
};
extern struct simopts simopt;

/* cfsim.c: the operation log (--log, else stderr), one line an event. */
int sim_log_open(const char *path);
void sim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *errname(int err);

/* simdev.c: one open of the device at a time. */
void dev_open(pid_t pid);
void dev_close(void);
/* One write() of len bytes by process pid: 0 or an errno. */
int dev_write(const char *buf, size_t len, pid_t pid);
/* One read() with a buffer of size bytes: 0 (out/outlen set) or an errno. */
int dev_read(size_t size, char *out, size_t outsz, size_t *outlen);
/* 1 when the state-changed flag went from clear to set since the last call. */
int dev_take_notify(void);
/* A control request (see docs); writes the reply, returns 0 or -1 on error. */
int dev_control(const char *req, char *reply, size_t replysz);

/* simfault.c: injected faults (docs/simulator-protocol.md, "Fault injection"). */
int fault_add(const char *spec, char *why, size_t whysz);	/* rule number or -1 */
int fault_clear(void);						/* rules removed */
int fault_list(char *out, size_t sz);
unsigned long fault_injected(void);
/* The errno to inject into this command (word: its first word), or 0; sleeps when slow. */
int fault_on_write(const char *cmd, const char *word, int probe);
/* The same for a read; *malformed when the line must be malformed. */
int fault_on_read(int *malformed);

/* The subcommands. */
int serve_main(int argc, char **argv);
int ctl_main(int argc, char **argv);
int notify_main(int argc, char **argv);
int client_main(int argc, char **argv);
int populate_main(int argc, char **argv);
int conform_main(int argc, char **argv);
int tree_main(int argc, char **argv);
int bindas_main(int argc, char **argv);

#endif
