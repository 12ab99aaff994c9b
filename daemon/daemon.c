// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon.c: the daemon's life, from the pidfile lock to exit.
 *
 * Start-up: lock the pidfile, detach (the parent waits until the child has
 * bound the cache, so that a failed bind fails the command), open the
 * device, configure and bind, tell the service manager, open DIR/cache and
 * DIR/graveyard, move into DIR/cache for good, drop capabilities.  Then a
 * libevent loop: the device (state changed), signals, the graveyard's
 * inotify descriptor, the cull engine's steps and its scan descriptor, the
 * control socket and its clients, and the watchdog when the unit asks for
 * one.  Nothing else wakes an idle daemon: the metrics file is rewritten
 * only after a scan, at the end of a culling episode, and at most every
 * METRICS_MIN_MS while culling.
 */
#include "daemon/checkenv.h"
#include "config/config.h"
#include "cull/target.h"
#include "daemon/control.h"
#include "daemon/daemon.h"
#include "daemon/engine.h"
#include "daemon/metrics.h"
#include "cull/graveyard.h"
#include "kernel/channel.h"
#include "lib/log.h"
#include "daemon/notify.h"
#include "daemon/options.h"
#include "daemon/pidfile.h"
#include "daemon/priv.h"
#include "daemon/status.h"
#include "lib/util.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include <event2/event.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define BUSY_WAIT_MS 10000	/* how long a previous instance may take to withdraw */
#define STATUS_MIN_MS 1000	/* STATUS= at most this often while the phase holds */
#define MALFORMED_MAX 10	/* malformed state lines in a row before giving up */
#define METRICS_MIN_MS 5000	/* the metrics file at most this often while culling */
#define REREAD_MIN_MS 100	/* a failed state read is retried after this, */
#define REREAD_MAX_MS 5000	/* doubling up to this */
#define GY_RETRY_MIN_S 5	/* a graveyard pass given up on an error: again after this, */
#define GY_RETRY_MAX_S 600	/* doubling up to this */

struct daemon {
	const struct options *opt;
	struct config *cfg;		/* in force; the engine may keep the pointer */
	char config_path[PATH_MAX];
	struct pidfile *pf;
	int report_fd;			/* pipe to the waiting parent, or -1 */

	struct kchan *k;
	struct graveyard *gy;
	struct engine *eng;
	/*
	 * The totals of engines that a reload to nocull ended: counters
	 * "since the daemon started" (status, metrics) go on from them.
	 */
	struct engine_snap carry;
	int rootfd;			/* DIR, opened before bind (bind_cache) */
	int accounted;			/* account_final() has run */
	int rootfd_errno;		/* why rootfd is -1 */
	int cachefd;

	struct kstate st;		/* latest state; released counters accumulate */
	int have_st;
	int malformed;			/* malformed state lines in a row */
	unsigned read_errors;		/* failed state reads in a row */
	unsigned reread_ms;		/* the delay before the next retry */
	int gy_dirty;			/* something arrived during a pass */
	unsigned gy_retry_s;		/* the next retry's delay; 0: none given up */
	int engfd;			/* descriptor ev_engfd watches, or -1 */
	int phase;			/* cull flag last shown in STATUS=, -1 none */
	uint64_t status_ms;
	uint64_t start_ms;		/* for the uptime */
	uint64_t start_s;		/* the same moment by the wall clock, read once */
	int stopping;			/* stop() was called, perhaps before the loop ran */
	int stopped_waiting;		/* TERM or INT ended a wait of the start */
	sigset_t sigmask;		/* restored once the loop owns the signals */
	int exit_status;

	int ctl_fd;			/* the control socket before the loop takes it */
	struct control *ctl;

	/* A culling episode: from something asking until nothing does. */
	int ep_active;
	uint64_t ep_t0, ep_culled, ep_bytes, ep_busy;

	uint64_t metrics_ms;		/* last written; 0: never */
	uint64_t metrics_scans;		/* scans finished at that time */
	struct engine_vol *vols;	/* METRICS_VOLS_MAX, allocated on first use */

	struct event_base *base;
	struct event *ev_dev, *ev_term, *ev_int, *ev_hup;
	struct event *ev_gy, *ev_gywork, *ev_step, *ev_engfd, *ev_wd, *ev_status;
	struct event *ev_metrics;
	struct event *ev_reread;
};

static void step_engine(struct daemon *d);

/* ---- leaving ---- */

static void
stop(struct daemon *d, int status)
{
	d->exit_status = status;
	d->stopping = 1;
	notify_stopping();
	event_base_loopbreak(d->base);
}

static void
cache_dead(struct daemon *d)
{
	log_errx("cache is dead (EIO), exiting so that the service manager restarts it");
	stop(d, 1);
}

/* ---- state and status ---- */

/*
 * Errors a state read may outlive: the kernel's transient ones, and an EIO
 * after which the probe found the cache alive.  Anything else (EOF: the
 * cache was unbound; a broken channel) ends the daemon.
 */
static int
read_transient(const struct daemon *d, int err)
{
	switch (err) {
	case EIO:
		return !kernel_dead(d->k);
	case ENOMEM:
	case EBUSY:
	case EAGAIN:
	case EINTR:
	case ESTALE:
	case ENOENT:
	case EMSGSIZE:
	case ENOBUFS:
		return 1;
	default:
		return 0;
	}
}

/*
 * A state read failed for a reason that may pass.  The device stays
 * readable while its flag is set, so a loop that read again at once could
 * spin: stop watching it and retry from a timer, 100 ms doubling to 5 s;
 * the last good state stands meanwhile.  Logged at 1, 2, 4, 8... in a row.
 */
static void
reread_in(struct daemon *d, unsigned ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };

	evtimer_add(d->ev_reread, &tv);
}

static void
read_failed(struct daemon *d, int err)
{
	d->read_errors++;
	d->reread_ms = d->reread_ms == 0 ? REREAD_MIN_MS :
	    d->reread_ms * 2 > REREAD_MAX_MS ? REREAD_MAX_MS : d->reread_ms * 2;
	if ((d->read_errors & (d->read_errors - 1)) == 0)
		log_warnx("kernel device: read: %s (%u in a row); retrying in %u ms",
			  strerror(err), d->read_errors, d->reread_ms);
	event_del(d->ev_dev);
	reread_in(d, d->reread_ms);
}

static void
read_worked(struct daemon *d)
{
	if (d->read_errors == 0)
		return;
	log_info("kernel device: state reads work again after %u failures", d->read_errors);
	d->read_errors = 0;
	d->reread_ms = 0;
	evtimer_del(d->ev_reread);
	if (event_add(d->ev_dev, NULL) == -1)
		fatalx("event loop: cannot watch the kernel device");
}

/*
 * Read the state line: 0 when d->st is fresh, 1 when the line was malformed
 * or the read failed for a passing reason and the last good state stands
 * (a retry is scheduled), -1 when the daemon is stopping.  The real device
 * never returns a short line (it fails the read instead), so a run of
 * malformed lines means a broken channel: exit and let the service manager
 * restart us, rather than sit inert.
 */
static int
read_state(struct daemon *d)
{
	struct kstate st;
	int r = kernel_read_state(d->k, &st);

	if (r == 0)
		read_worked(d);
	if (r == 0) {
		st.freleased = u64_sat_add(st.freleased, d->have_st ? d->st.freleased : 0);
		st.breleased = u64_sat_add(st.breleased, d->have_st ? d->st.breleased : 0);
		d->st = st;
		d->have_st = 1;
		d->malformed = 0;
		return 0;
	}
	if (r == -EBADMSG && ++d->malformed < MALFORMED_MAX) {
		/*
		 * Logged by the channel.  The read cleared the kernel's flag, so
		 * nothing may wake us again while the kernel asks for culling:
		 * ask again soon.  The engine still steps, so the scan's wake-up
		 * is taken.
		 */
		reread_in(d, REREAD_MIN_MS);
		return 1;
	}
	if (r == -EBADMSG) {
		log_errx("kernel device: %d malformed state lines in a row; exiting", MALFORMED_MAX);
		stop(d, 1);
		return -1;
	}
	if (r != -ENODATA && read_transient(d, -r)) {
		read_failed(d, -r);
		return 1;
	}
	if (r == -EIO)
		cache_dead(d);
	else if (r == -ENODATA)
		log_errx("kernel device: the cache is no longer bound");
	else
		log_errx("kernel device: read: %s", strerror(-r));
	if (r != -EIO)
		stop(d, 1);
	return -1;
}

/* The counters "since the daemon started" of from, added to to's. */
static void
add_totals(struct engine_snap *to, const struct engine_snap *from)
{
	to->scans += from->scans;
	to->culled += from->culled;
	to->culled_bytes += from->culled_bytes;
	to->busy += from->busy;
	to->vanished += from->vanished;
	to->moved += from->moved;
}

/* The one snapshot of the daemon's state: everything that shows it reads this. */
static void
fill_status(const struct daemon *d, struct status *s)
{
	memset(s, 0, sizeof(*s));
	s->uptime_ms = now_ms() - d->start_ms;
	s->start_s = d->start_s;
	/* The path the kernel bound (links resolved): what a tool can compare with. */
	s->dir = d->k != NULL ? kernel_dir(d->k) : d->cfg->dir;
	s->tag = d->cfg->tag;
	s->culling_enabled = d->eng != NULL;
	s->kernel_cull = d->have_st && d->st.cull;
	memcpy(s->limit_pct, d->cfg->limit, sizeof(s->limit_pct));
	if (target_fsfree(d->cachefd, &s->fs) == -1)
		log_warn("%s/cache: statvfs", d->cfg->dir);
	if (d->eng != NULL)
		engine_snapshot(d->eng, &s->eng);
	/* A state read can learn of it first; the engine only by a batch. */
	if (d->eng != NULL && d->k != NULL && kernel_dead(d->k))
		s->eng.state = EFSM_DEAD;
	add_totals(&s->eng, &d->carry);
}

/* ---- culling episodes and the metrics file ---- */

static void
write_metrics(struct daemon *d, const struct status *s)
{
	size_t n = 0;

	evtimer_del(d->ev_metrics);
	d->metrics_ms = now_ms();
	d->metrics_scans = s->eng.scans;
	if (d->eng != NULL) {
		if (d->vols == NULL)
			d->vols = xcalloc(METRICS_VOLS_MAX, sizeof(*d->vols));
		n = engine_volumes(d->eng, d->vols, METRICS_VOLS_MAX);
		if (n > METRICS_VOLS_MAX)
			n = METRICS_VOLS_MAX;
	}
	metrics_write(d->cfg->metrics_file, s, d->vols, n);
}

static void
log_episode(const struct daemon *d, const struct engine_snap *e, const char *end)
{
	uint64_t ms = now_ms() - d->ep_t0;

	log_info("culled %llu objects, %.1f MiB in %llu.%llu s (%llu busy, skipped)%s",
		 (unsigned long long)(e->culled - d->ep_culled),
		 (double)(e->culled_bytes - d->ep_bytes) / (1024.0 * 1024.0),
		 (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000 / 100),
		 (unsigned long long)(e->busy - d->ep_busy), end);
}

/*
 * An episode runs while the kernel asks, a goal asked over the socket is
 * pending, or the engine culls (the age limit): one log line when it ends.
 * One step may begin and end it (a first batch that brings free space
 * back above the run limits), so it is counted from the last look at
 * which none ran, and culls since that look make one too.  Its time runs
 * from the start of the step it began in (step_engine).  1: it ended.
 */
static int
episode(struct daemon *d, const struct status *s)
{
	const struct engine_snap *e = &s->eng;
	int active = d->eng != NULL && (s->kernel_cull || e->goals > 0 ||
		     e->state == EFSM_CULLING || e->state == EFSM_RETRYING_BUSY);
	int moved = e->culled != d->ep_culled || e->busy != d->ep_busy;
	int ended = d->eng != NULL && !active && (d->ep_active || moved);

	if (ended)
		log_episode(d, e, "");
	if (!active) {
		d->ep_culled = e->culled;
		d->ep_bytes = e->culled_bytes;
		d->ep_busy = e->busy;
	}
	d->ep_active = active;
	return ended;
}

/* After each step: the episode's log line, and the metrics file when due. */
static void
account(struct daemon *d, int force_metrics)
{
	struct status s;
	int ended, active;
	uint64_t now, wait;

	fill_status(d, &s);
	ended = episode(d, &s);
	active = d->ep_active;
	if (d->cfg->metrics_file[0] == '\0')
		return;
	now = now_ms();
	if (force_metrics || d->metrics_ms == 0 || ended ||
	    s.eng.scans != d->metrics_scans ||
	    (active && now - d->metrics_ms >= METRICS_MIN_MS)) {
		write_metrics(d, &s);
		return;
	}
	if (active && !evtimer_pending(d->ev_metrics, NULL)) {
		/* The last word of a busy stretch: one timer, only while culling. */
		struct timeval tv;

		wait = METRICS_MIN_MS - (now - d->metrics_ms);
		tv.tv_sec = (time_t)(wait / 1000);
		tv.tv_usec = (suseconds_t)(wait % 1000) * 1000;
		evtimer_add(d->ev_metrics, &tv);
	}
}

/*
 * The loop has ended (a stop, a dead cache): the episode under way gets
 * its line and the metrics file its last figures, or the culls made since
 * the last of each would show in neither.
 */
static void
account_final(struct daemon *d)
{
	struct status s;

	if (d->accounted)
		return;
	d->accounted = 1;
	fill_status(d, &s);
	s.ending = 1;
	if (d->eng != NULL && (d->ep_active || s.eng.culled != d->ep_culled ||
	    s.eng.busy != d->ep_busy))
		log_episode(d, &s.eng, "; cut short");
	if (d->cfg->metrics_file[0] != '\0')
		write_metrics(d, &s);
}

static void
on_metrics(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	account(arg, 1);
}

static void
update_status(struct daemon *d, int force)
{
	struct status s;
	char line[512];
	uint64_t now = now_ms();
	int phase = d->have_st && d->st.cull, changed;

	if (!force && phase == d->phase && now - d->status_ms < STATUS_MIN_MS) {
		/* Show the last word once the window ends: one timer, only after activity. */
		uint64_t wait = STATUS_MIN_MS - (now - d->status_ms);
		struct timeval tv = { (time_t)(wait / 1000), (long)(wait % 1000) * 1000 };

		if (!evtimer_pending(d->ev_status, NULL))
			evtimer_add(d->ev_status, &tv);
		return;
	}
	evtimer_del(d->ev_status);
	/* At the first read only a request is news: no "done" before any culling. */
	if (phase != d->phase && (d->phase != -1 || phase))
		log_info("%s", phase ? "the kernel asks for culling" : "culling done: free space is above the run limits");
	changed = phase != d->phase && d->phase != -1;
	d->phase = phase;
	d->status_ms = now;
	fill_status(d, &s);
	status_format_line(&s, line, sizeof(line));
	notify_status("%s", line);
	/*
	 * The kernel's request begun or ended shows at once: an episode
	 * shorter than the 5 s between writes would not show otherwise, and
	 * with culling off no step writes at all.
	 */
	if (changed && d->cfg->metrics_file[0] != '\0')
		write_metrics(d, &s);
}

static void
on_status(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	update_status(arg, 1);
}

/* ---- the cull engine ---- */

static void
watch_engine_fd(struct daemon *d);

/*
 * The device became readable, the scan finished, or a step was scheduled:
 * in each case read the state first, then let the engine act on it.
 */
static void
on_wake(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;

	(void)fd;
	(void)what;
	if (read_state(d) >= 0)
		step_engine(d);
}

/* The retry of a failed state read: watch the device again, then read. */
static void
on_reread(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;

	if (event_add(d->ev_dev, NULL) == -1)
		fatalx("event loop: cannot watch the kernel device");
	on_wake(fd, what, arg);
}

static void
watch_engine_fd(struct daemon *d)
{
	int fd = d->eng != NULL ? engine_fd(d->eng) : -1;

	if (fd == d->engfd)
		return;
	if (d->ev_engfd != NULL) {
		event_free(d->ev_engfd);
		d->ev_engfd = NULL;
	}
	d->engfd = fd;
	if (fd < 0)
		return;
	d->ev_engfd = event_new(d->base, fd, EV_READ | EV_PERSIST, on_wake, d);
	if (d->ev_engfd == NULL || event_add(d->ev_engfd, NULL) == -1)
		fatalx("event loop: cannot watch the cull engine");
}

static void
schedule(struct daemon *d, enum engine_next next, unsigned delay_ms)
{
	struct timeval tv = { delay_ms / 1000, (long)(delay_ms % 1000) * 1000 };

	switch (next) {
	case ENGINE_IDLE:
		event_del(d->ev_step);
		return;
	case ENGINE_AGAIN:
		tv.tv_sec = 0;
		tv.tv_usec = 0;
		break;
	case ENGINE_TIMER:
		break;
	}
	/* A zero timer, not event_active(): pending signals and I/O go first. */
	evtimer_add(d->ev_step, &tv);
}

/*
 * One engine step with the latest state, then a fresh read so that the
 * kernel re-runs its space check after a batch of culls.  The engine sees
 * every state: if the read changed something (the flag, released objects),
 * it gets another step at once, whether it declared itself idle or armed a
 * timer.  The read cleared the kernel's state-changed flag, so the device
 * will not wake us for what it said: a release during a pass, read after
 * the pass had armed a 30 s back-off, was otherwise culled 30 s late.
 */
static void
step_engine(struct daemon *d)
{
	struct kstate seen;
	enum engine_next next;
	unsigned delay = 0;

	if (d->eng == NULL || !d->have_st) {
		update_status(d, 0);
		/* nocull: no scans or episodes write the metrics file; once now. */
		if (d->eng == NULL)
			account(d, 0);
		return;
	}
	/*
	 * Before the step, as the step may end what it begins: "the kernel
	 * asks for culling" for the state just read, and the episode's start.
	 */
	update_status(d, 0);
	if (!d->ep_active)
		d->ep_t0 = now_ms();
	seen = d->st;
	d->st.freleased = d->st.breleased = 0;
	next = engine_step(d->eng, &seen, &delay);
	if (kernel_dead(d->k)) {
		cache_dead(d);
		return;
	}
	if (engine_cache_lost(d->eng)) {
		stop(d, 1);	/* the engine said why */
		return;
	}
	if (seen.cull || next != ENGINE_IDLE) {
		if (read_state(d) == -1)
			return;
		if (next != ENGINE_AGAIN && (d->st.cull != seen.cull ||
		    d->st.freleased != 0 || d->st.breleased != 0))
			next = ENGINE_AGAIN;
	}
	schedule(d, next, delay);
	watch_engine_fd(d);
	account(d, 0);
	control_poll(d->ctl);
	update_status(d, 0);
}

/* ---- the control socket ---- */

static size_t
ctl_status(void *arg, char *buf, size_t size)
{
	struct status s;

	fill_status(arg, &s);
	return status_format_json(&s, buf, size);
}

static int
ctl_cull(void *arg, const struct goal *g, const char **err)
{
	struct daemon *d = arg;
	int id;

	if (d->eng == NULL) {
		*err = "culling is disabled (nocull or -N)";
		return -1;
	}
	if ((id = engine_goal_add(d->eng, g)) < 0) {
		*err = "too many goals are active, or the cache cannot be measured";
		return -1;
	}
	/*
	 * The episode starts now (an idle engine runs no step that would
	 * stamp its start), and the engine steps promptly towards the goal.
	 */
	if (!d->ep_active)
		d->ep_t0 = now_ms();
	account(d, 0);
	schedule(d, ENGINE_AGAIN, 0);
	return id;
}

static int
ctl_poll(void *arg, int id, struct engine_goal_report *r, const char **err)
{
	struct daemon *d = arg;

	if (d->eng == NULL) {
		*err = "culling was disabled; the goal is withdrawn";
		return -1;
	}
	if (engine_goal_poll(d->eng, id, r) < 0) {
		*err = "the goal was lost";
		return -1;
	}
	return r->state != ENGINE_GOAL_PENDING;
}

static void
ctl_cancel(void *arg, int id)
{
	struct daemon *d = arg;

	if (d->eng != NULL) {
		engine_goal_cancel(d->eng, id);
		schedule(d, ENGINE_AGAIN, 0);	/* perhaps nothing is wanted any more */
	}
}

static int
ctl_rescan(void *arg, const char **err)
{
	struct daemon *d = arg;

	if (d->eng == NULL) {
		*err = "culling is disabled (nocull or -N): no scans";
		return -1;
	}
	if (engine_rescan(d->eng) < 0) {
		*err = "no scan could be started";
		return -1;
	}
	log_info("control: rescan asked");
	watch_engine_fd(d);
	schedule(d, ENGINE_AGAIN, 0);
	return 0;
}

static const struct control_ops ctl_ops = {
	.status = ctl_status, .cull = ctl_cull, .poll = ctl_poll,
	.cancel = ctl_cancel, .rescan = ctl_rescan,
};

/* ---- graveyard ---- */

static void
on_gy_work(evutil_socket_t fd, short what, void *arg)
{
	static const struct timeval now = { 0, 0 };
	struct daemon *d = arg;
	int more;

	(void)fd;
	(void)what;
	more = graveyard_work(d->gy, GRAVEYARD_BATCH);
	if (graveyard_lost(d->gy)) {
		/* Logged; restarted, the daemon binds DIR as it is now. */
		stop(d, 1);
		return;
	}
	if (more == GRAVEYARD_RETRY) {
		/* Not at once: the error may last; an arrival meanwhile tries sooner. */
		struct timeval later;

		d->gy_retry_s = d->gy_retry_s == 0 ? GY_RETRY_MIN_S :
		    d->gy_retry_s >= GY_RETRY_MAX_S / 2 ? GY_RETRY_MAX_S : d->gy_retry_s * 2;
		later.tv_sec = d->gy_retry_s;
		later.tv_usec = 0;
		evtimer_add(d->ev_gywork, &later);
		return;
	}
	d->gy_retry_s = 0;
	if (!more && d->gy_dirty) {
		/* An arrival during the pass may sit where readdir had passed. */
		d->gy_dirty = 0;
		more = 1;
	}
	if (more)
		evtimer_add(d->ev_gywork, &now);
}

static void
on_gy_notify(evutil_socket_t fd, short what, void *arg)
{
	static const struct timeval now = { 0, 0 };
	struct daemon *d = arg;

	(void)fd;
	(void)what;
	if (graveyard_drain(d->gy) > 0) {
		d->gy_dirty = 1;
		/* Now, also when a retry after an error is pending later. */
		evtimer_add(d->ev_gywork, &now);
	}
}

/* ---- signals ---- */

static void
on_term(evutil_socket_t sig, short what, void *arg)
{
	(void)what;
	/* The last episode's line before the last line. */
	account_final(arg);
	log_notice("Daemon Terminated (signal %d)", (int)sig);
	stop(arg, 0);
}

static void
on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	notify_watchdog();
}

static void
reload_error(void *arg, const char *msg)
{
	(void)arg;
	log_warnx("%s", msg);
}

/*
 * Does dir, as a start would resolve it, name the directory bound?  By the
 * path the kernel was given: "/a/b/" and a link to it are no change, and
 * a link re-pointed under an unchanged line is one.
 */
static int
same_dir_bound(const struct daemon *d, const char *dir)
{
	char real[PATH_MAX];

	if (realpath(dir, real) == NULL)
		return strcmp(dir, d->cfg->dir) == 0;	/* gone: the line is what changed, or not */
	return strcmp(real, kernel_dir(d->k)) == 0;
}

/* Settings the kernel fixed at bind: log each change and keep the bound value. */
static void
keep_bound(struct daemon *d, struct config *n)
{
	const struct config *o = d->cfg;
	const char *later = "it takes effect at the next start (the kernel fixed it at bind)";
	int i;

	if (!same_dir_bound(d, n->dir))
		log_warnx("reload: dir changed to %s; %s", n->dir, later);
	if (strcmp(o->tag, n->tag) != 0)
		log_warnx("reload: tag changed to \"%s\"; %s", n->tag[0] ? n->tag :
			  "CacheFiles\" (the kernel's default, no tag line)", later);
	if (strcmp(o->secctx, n->secctx) != 0)
		log_warnx("reload: secctx changed; %s", later);
	if (strcmp(o->control_socket, n->control_socket) != 0)
		log_warnx("reload: control_socket changed to %s; it takes effect at the next start",
			  n->control_socket[0] ? n->control_socket : "none");
	memcpy(n->control_socket, o->control_socket, sizeof(n->control_socket));
	for (i = 0; i < LIM_COUNT; i++)
		if (o->limit[i] != n->limit[i])
			log_warnx("reload: %s changed from %u%% to %u%%; %s", config_limit_name(i),
				  o->limit[i], n->limit[i], later);
	memcpy(n->dir, o->dir, sizeof(n->dir));
	memcpy(n->tag, o->tag, sizeof(n->tag));
	memcpy(n->secctx, o->secctx, sizeof(n->secctx));
	memcpy(n->limit, o->limit, sizeof(n->limit));
}

/* The kernel takes "debug" at any time: apply a new mask at once. */
static void
apply_kernel_debug(struct daemon *d, struct config *n)
{
	int r;

	if (n->debug == d->cfg->debug)
		return;
	r = kernel_cmd(d->k, "debug %#llx", (unsigned long long)n->debug);
	if (r < 0) {
		log_warnx("reload: kernel refused debug %#llx: %s; keeping %#llx",
			  (unsigned long long)n->debug, strerror(-r),
			  (unsigned long long)d->cfg->debug);
		n->debug = d->cfg->debug;
	} else {
		log_info("reload: kernel debug mask set to %#llx", (unsigned long long)n->debug);
	}
}

static void
apply_nocull(struct daemon *d, const struct config *n)
{
	if (n->nocull && d->eng != NULL) {
		struct engine_snap e;

		log_info("reload: nocull: culling stops");
		event_del(d->ev_step);
		engine_snapshot(d->eng, &e);
		add_totals(&d->carry, &e);
		engine_free(d->eng);
		d->eng = NULL;
		d->ep_active = 0;
		watch_engine_fd(d);
		control_poll(d->ctl);	/* waiting clients learn that their goals went */
	} else if (!n->nocull && d->eng == NULL) {
		log_info("reload: culling enabled");
		d->eng = engine_new(d->cfg, d->cachefd, d->k);
		if (d->eng == NULL)
			log_warnx("reload: the cull engine could not start");
	}
}

static void
reload(struct daemon *d)
{
	struct config *n;
	struct stat sb;
	int errors;

	log_info("SIGHUP: reloading %s", d->config_path);
	/* A FIFO there would hold the whole daemon until someone writes to it. */
	if (stat(d->config_path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		log_warnx("%s: not a regular file; keeping the configuration in force",
			  d->config_path);
		return;
	}
	n = xmalloc(sizeof(*n));
	errors = config_load(n, d->config_path, reload_error, d);
	if (errors) {
		log_warnx("%s: configuration has %d error%s; keeping the configuration in force",
			  d->config_path, errors, errors == 1 ? "" : "s");
		free(n);
		return;
	}
	if (d->opt->nocull)
		n->nocull = 1;
	keep_bound(d, n);
	apply_kernel_debug(d, n);
	*d->cfg = *n;
	free(n);
	apply_nocull(d, d->cfg);
	if (d->eng != NULL) {
		engine_reconfigure(d->eng, d->cfg);
		if (d->have_st)
			step_engine(d);
	}
	account(d, 1);
	update_status(d, 1);
	log_info("configuration reloaded");
}

static void
on_hup(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	reload(arg);
}

/* ---- start-up ---- */

static volatile sig_atomic_t waited_child;

/* kill() is async-signal-safe: sent from here, no signal waits for a loop. */
static void
on_parent_sig(int sig)
{
	if (waited_child > 0)
		kill((pid_t)waited_child, sig);
}

/*
 * The waiting parent: SIGTERM or SIGINT (a Ctrl-C at the terminal, which
 * the child in its own session never sees) goes to the child, which then
 * ends its start as asked; the parent exits with what the child reports.
 * One that came before the fork is pending here and goes as soon as the
 * mask lets it.
 */
static void
parent_wait(int rfd, pid_t pid)
{
	struct sigaction sa;
	sigset_t stop;
	int status;
	ssize_t n;
	pid_t r;
	char c;

	waited_child = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_parent_sig;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_UNBLOCK, &stop, NULL);
	while ((n = read(rfd, &c, 1)) == -1 && errno == EINTR)
		;
	if (n == 1)
		_exit(0);
	while ((r = waitpid(pid, &status, 0)) == -1 && errno == EINTR)
		;
	if (r == -1 || !WIFEXITED(status))
		_exit(1);	/* unknown, or killed: a failure, never garbage */
	_exit(WEXITSTATUS(status));
}

/*
 * Fork; the parent exits 0 once the child reports a bound cache, else with
 * the child's status: 0 when it was stopped, as asked, before it bound.
 */
static int
detach(struct daemon *d)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == -1) {
		log_err("detach: pipe");
		return -1;
	}
	if ((pid = fork()) == -1) {
		log_err("detach: fork");
		return -1;
	}
	if (pid > 0) {
		close(p[1]);
		parent_wait(p[0], pid);
	}
	close(p[0]);
	d->report_fd = p[1];
	if (setsid() == -1)
		log_warn("detach: setsid");
	return 0;
}

/*
 * Let go of the starter's terminal or pipe: "$(cachefilesd -d)" or
 * "cachefilesd -d | cat" must not wait for the daemon to end, so only
 * standard error stays, and only when debugging (as 0.10.10 did).
 */
static void
null_stdio(int keep_stderr)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd == -1) {
		log_warn("/dev/null: open");
		return;
	}
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	if (!keep_stderr)
		dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

/* The child is up: release the parent and let go of the terminal. */
static void
report_started(struct daemon *d)
{
	if (d->report_fd < 0)
		return;
	if (write(d->report_fd, "R", 1) != 1)
		log_warn("detach: report to parent");
	close(d->report_fd);
	d->report_fd = -1;
	null_stdio(d->opt->debug > 0);
}

/* A relative -f path must survive the move into DIR/cache. */
static int
absolute_config_path(struct daemon *d, const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return snprintf_checked(d->config_path, sizeof(d->config_path), "%s", path) < 0 ? -1 : 0;
	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		log_err("getcwd");
		return -1;
	}
	if (snprintf_checked(d->config_path, sizeof(d->config_path), "%s/%s", cwd, path) < 0) {
		log_errx("%s: path too long", path);
		return -1;
	}
	return 0;
}

/*
 * Open DIR/cache and DIR/graveyard, in the DIR opened before bind, without
 * following a symlink at either name.
 */
static int
open_dirs(struct daemon *d)
{
	d->cachefd = openat(d->rootfd, "cache", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->cachefd == -1)
		log_err("%s/cache: open", d->cfg->dir);
	else
		d->gy = graveyard_open(d->rootfd, "graveyard");
	if (d->gy != NULL) {
		char path[PATH_MAX];

		/* Emptied only while it is DIR/graveyard, by the path the kernel was given. */
		if (snprintf_checked(path, sizeof(path), "%s/graveyard", kernel_dir(d->k)) != -1)
			graveyard_at(d->gy, path);
	}
	if (d->cachefd == -1 || d->gy == NULL)
		return -1;
	/* The kernel resolves cull names in our cwd: it is DIR/cache from now on. */
	if (fchdir(d->cachefd) == -1) {
		log_err("%s/cache: fchdir", d->cfg->dir);
		return -1;
	}
	return 0;
}

static int
open_root(const char *path)
{
	return open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/*
 * Is the DIR opened before bind still what the path the kernel was given
 * names after it?  The kernel resolves that path once, at bind, somewhere
 * between the two looks; if a directory in it was moved or swapped
 * meanwhile, nobody can tell which directory it bound, and culling in the
 * one opened here could empty a tree the kernel never took.  The path has
 * no symbolic links in it (kernel_configure() resolved them): only a
 * rename or a mount changes what it names.  Left: a directory swapped
 * and swapped back within the bind, by someone who may rename above DIR.
 */
static int
root_unmoved(struct daemon *d)
{
	struct stat before, after;
	int fd = open_root(kernel_dir(d->k));
	int same;

	if (fd == -1) {
		log_err("%s: open after bind", kernel_dir(d->k));
		return 0;
	}
	if (d->rootfd == -1) {
		/* Not there before bind (made meanwhile?): as unsure as a moved one. */
		log_errx("%s: open before bind: %s; which directory the kernel bound is "
			 "not known; exiting", kernel_dir(d->k), strerror(d->rootfd_errno));
		close(fd);
		return 0;
	}
	same = fstat(d->rootfd, &before) == 0 && fstat(fd, &after) == 0 &&
	    before.st_dev == after.st_dev && before.st_ino == after.st_ino;
	close(fd);
	if (!same)
		log_errx("%s was moved or replaced while the cache was being bound: the kernel "
			 "may have bound another directory; not culling in either; exiting",
			 kernel_dir(d->k));
	return same;
}

static int
bind_cache(struct daemon *d)
{
	int r;

	if ((d->k = kernel_open(daemon_transport, NULL, BUSY_WAIT_MS)) == NULL) {
		d->stopped_waiting = stop_pending();
		return -1;
	}
	if ((r = kernel_configure(d->k, d->cfg)) < 0) {
		/*
		 * A line the kernel refuses (a secctx it does not know, say) is
		 * refused again at every start: status 2, as 0.10.10 gave, so
		 * that the unit does not restart it in a loop.  Not a shortage.
		 */
		if (r != -ENOMEM && r != -EIO && r != -EINTR && r != -EAGAIN)
			d->exit_status = EXIT_CONFIG;
		return -1;
	}
	/* Failing here leaves the cause to bind (no such directory, say). */
	d->rootfd = open_root(kernel_dir(d->k));
	d->rootfd_errno = errno;
	if (kernel_bind(d->k) < 0)
		return -1;
	/*
	 * This line, "Daemon Started" and "Daemon Terminated" begin as
	 * 0.10.10's did: log watchers match them.  Its "About to bind cache"
	 * is left out: a failed start stays one line, the cause.
	 */
	log_info("Bound cache: tag %s on %s",
		 d->cfg->tag[0] ? d->cfg->tag : "CacheFiles", d->cfg->dir);
	if (!root_unmoved(d))
		return -1;
	notify_ready();
	return 0;
}

/* A new event, armed unless it is a timer without a delay (armed later). */
static struct event *
add_event(struct daemon *d, int fd, short what, event_callback_fn cb,
	  const struct timeval *tv)
{
	struct event *ev = event_new(d->base, fd, what, cb, d);
	int arm = (what & (EV_READ | EV_SIGNAL)) != 0 || tv != NULL;

	if (ev == NULL || (arm && event_add(ev, tv) == -1))
		fatalx("event loop: cannot add an event");
	return ev;
}

static int
setup_loop(struct daemon *d)
{
	static const struct timeval now = { 0, 0 };
	uint64_t wd = notify_watchdog_usec();
	struct timeval wdtv;

	if ((d->base = event_base_new()) == NULL) {
		log_errx("event loop: event_base_new failed");
		return -1;
	}
	d->ev_dev = add_event(d, kernel_fd(d->k), EV_READ | EV_PERSIST, on_wake, NULL);
	d->ev_term = add_event(d, SIGTERM, EV_SIGNAL | EV_PERSIST, on_term, NULL);
	d->ev_int = add_event(d, SIGINT, EV_SIGNAL | EV_PERSIST, on_term, NULL);
	d->ev_hup = add_event(d, SIGHUP, EV_SIGNAL | EV_PERSIST, on_hup, NULL);
	if (graveyard_fd(d->gy) >= 0)
		d->ev_gy = add_event(d, graveyard_fd(d->gy), EV_READ | EV_PERSIST,
				     on_gy_notify, NULL);
	d->ev_gywork = add_event(d, -1, 0, on_gy_work, &now);
	d->ev_step = add_event(d, -1, 0, on_wake, NULL);
	d->ev_status = add_event(d, -1, 0, on_status, NULL);
	d->ev_metrics = add_event(d, -1, 0, on_metrics, NULL);
	d->ev_reread = add_event(d, -1, 0, on_reread, NULL);
	if (wd > 0) {
		/* Twice per interval, as sd_watchdog_enabled(3) advises. */
		wdtv.tv_sec = (time_t)(wd / 2 / 1000000);
		wdtv.tv_usec = (suseconds_t)(wd / 2 % 1000000);
		d->ev_wd = add_event(d, -1, EV_PERSIST, on_watchdog, &wdtv);
		log_debug(1, "watchdog: every %llu ms", (unsigned long long)(wd / 2000));
	}
	return 0;
}

static int
start(struct daemon *d)
{
	/*
	 * The kernel binds a read-only directory and fails only when it first
	 * creates an object: refuse it here, with the cause named.
	 */
	if (checkenv_writable(d->cfg->dir) == -1) {
		d->exit_status = EXIT_CONFIG;
		return -1;
	}
	/* Before the bind: a path that cannot be used stops us with the kernel untouched. */
	if (d->cfg->control_socket[0] != '\0' &&
	    (d->ctl_fd = control_listen(d->cfg->control_socket)) == -1) {
		d->stopped_waiting = stop_pending();
		return -1;
	}
	if (bind_cache(d) == -1 || open_dirs(d) == -1)
		return -1;
	if (d->pf != NULL && pidfile_write(d->pf) == -1)
		return -1;
	if (priv_drop(d->cachefd, graveyard_dirfd(d->gy), kernel_dir(d->k)) == -1)
		return -1;
	if (setup_loop(d) == -1)
		return -1;
	if (d->ctl_fd >= 0) {
		struct control_ops ops = ctl_ops;

		ops.arg = d;
		d->ctl = control_new(d->base, d->ctl_fd, d->cfg->control_socket, &ops);
		d->ctl_fd = -1;
	}
	sigprocmask(SIG_SETMASK, &d->sigmask, NULL);
	if (d->cfg->nocull) {
		log_info("culling disabled (nocull or -N): the cache is bound but never culled");
	} else if ((d->eng = engine_new(d->cfg, d->cachefd, d->k)) == NULL) {
		log_errx("the cull engine could not start");
		return -1;
	}
	/* Only now: every step that can fail the start is behind us. */
	report_started(d);
	if (read_state(d) >= 0)
		step_engine(d);
	else
		account(d, 1);
	return 0;
}

static void
free_event(struct event **ev)
{
	if (*ev != NULL)
		event_free(*ev);
	*ev = NULL;
}

static void
cleanup(struct daemon *d)
{
	struct event **evs[] = { &d->ev_dev, &d->ev_term, &d->ev_int, &d->ev_hup,
		&d->ev_gy, &d->ev_gywork, &d->ev_step, &d->ev_engfd, &d->ev_wd, &d->ev_status,
		&d->ev_metrics, &d->ev_reread };
	size_t i;

	/* Clients first: their goals are withdrawn from a live engine. */
	control_free(d->ctl);
	d->ctl = NULL;
	if (d->ctl_fd >= 0) {
		close(d->ctl_fd);
		unlink(d->cfg->control_socket);
	}
	for (i = 0; i < ARRAY_SIZE(evs); i++)
		free_event(evs[i]);
	free(d->vols);
	if (d->eng != NULL)
		engine_free(d->eng);
	graveyard_free(d->gy);
	/* Closing the device withdraws the cache. */
	kernel_close(d->k);
	if (d->cachefd >= 0)
		close(d->cachefd);
	if (d->rootfd >= 0)
		close(d->rootfd);
	if (d->base != NULL)
		event_base_free(d->base);
	pidfile_remove(d->pf);
	if (d->report_fd >= 0)
		close(d->report_fd);
}

/*
 * Descriptors as a daemon needs them.  0, 1 and 2 must be open, or the
 * device or the pidfile could land there, where detaching points /dev/null
 * and -s writes log lines.  Nothing else is kept that we did not open
 * (daemon(7)); the syslog connection goes too, first, and is opened again,
 * lest syslog() write to a number the device gets next.
 */
static void
sane_descriptors(const struct options *opt)
{
	int fd;

	closelog();
	for (fd = 0; fd <= STDERR_FILENO; fd++)
		if (fcntl(fd, F_GETFD) == -1 && open("/dev/null", O_RDWR) != fd)
			fatal("/dev/null: open as descriptor %d", fd);
	if (close_range(STDERR_FILENO + 1, ~0U, 0) == -1) {
		int max = (int)sysconf(_SC_OPEN_MAX);

		for (fd = STDERR_FILENO + 1; fd < max && fd < 65536; fd++)
			close(fd);
	}
	log_init("cachefilesd", opt->to_stderr, opt->debug);
}

/*
 * Culling keeps a descriptor open on each directory it culls in (up to
 * 4096, see cull/victims.c), so that LRU order, which jumps between
 * directories, does not reopen them.  Services start with a soft limit of
 * 1024 and a far higher hard one: raise the soft limit towards the hard
 * one, as systemd asks of programs that want more.  Only the soft limit
 * moves, which neither SELinux nor AppArmor mediates.
 */
static void
raise_nofile(void)
{
	struct rlimit rl;
	rlim_t want = 8192;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		log_debug(1, "descriptor limit: setrlimit: %s", strerror(errno));
}

/* The pidfile: -p, or the default when detaching; none with -n unless -p. */
static const char *
pidfile_path(const struct options *opt)
{
	if (opt->foreground && !opt->pidfile_set)
		return NULL;
	return opt->pidfile != NULL ? opt->pidfile : DEFAULT_PIDFILE;
}

int
daemon_run(const struct options *opt, struct config *cfg)
{
	struct daemon dd, *d = &dd;
	const char *pidpath = pidfile_path(opt);
	sigset_t held;
	pid_t holder;

	memset(d, 0, sizeof(*d));
	d->opt = opt;
	d->cfg = cfg;
	d->report_fd = -1;
	d->rootfd = -1;
	d->cachefd = -1;
	d->engfd = -1;
	d->ctl_fd = -1;
	d->phase = -1;
	d->exit_status = 1;
	d->start_ms = now_ms();
	d->start_s = (uint64_t)time(NULL);
	sane_descriptors(opt);
	raise_nofile();
	signal(SIGPIPE, SIG_IGN);
	/*
	 * Until the loop owns them, TERM, INT and HUP wait: READY=1 goes out
	 * before the loop exists, and a reload then must not kill the daemon.
	 */
	sigemptyset(&held);
	sigaddset(&held, SIGTERM);
	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGHUP);
	sigprocmask(SIG_BLOCK, &held, &d->sigmask);
	if (absolute_config_path(d, opt->config) == -1)
		return 1;
	/* Locked before the device is opened: a second instance fails fast. */
	if (pidpath != NULL && (d->pf = pidfile_open(pidpath, &holder)) == NULL)
		return 1;
	if (!opt->foreground && opt->to_stderr && opt->debug == 0)
		log_warnx("-s without -n or -d: standard error is closed once the "
			  "detached daemon has bound the cache; its messages after that go nowhere");
	if (!opt->foreground && detach(d) == -1) {
		pidfile_close(d->pf);
		return 1;
	}
	if (start(d) == -1) {
		/*
		 * Stopped while it waited for a previous instance: a stop asked
		 * for, not a failure (systemctl stop during the start).
		 */
		if (d->stopped_waiting) {
			log_notice("Daemon Terminated (stopped before it bound the cache)");
			d->exit_status = 0;
		} else if (d->exit_status != EXIT_CONFIG) {
			d->exit_status = EXIT_FAILED;
		}
	} else if (!d->stopping) {
		/* A loopbreak before the loop runs is forgotten: hence the flag. */
		log_notice("Daemon Started");
		d->exit_status = 0;
		if (event_base_dispatch(d->base) == -1) {
			log_errx("event loop failed");
			d->exit_status = 1;
		}
		account_final(d);
	}
	cleanup(d);
	return d->exit_status;
}
