/* recorder.c: start, writer thread, finish (see recorder.h).
 *
 * Threads: the program's threads reach us only through CUPTI's callbacks (buffers.c, session.c) and
 * the exit paths. The writer thread owns the trace writer and everything behind it: translation,
 * string interning, compression, device queries, NVML sampling, periodic flushes. Shutdown is a flag
 * plus a pipe: the exiting thread (or signal handler) sets the flag and waits on the pipe, with a
 * time limit, for the writer to finish the file.
 */
#include "preload/recorder.h"
#include "common/demangler.h"
#include "cupti/api_select.h"
#include "cupti/buffers.h"
#include "cupti/capture.h"
#include "cupti/libs.h"
#include "cupti/session.h"
#include "cupti/translate.h"
#include "preload/devices.h"
#include "preload/log.h"
#include "preload/metadata.h"
#include "preload/metrics.h"
#include "preload/nvml.h"
#include "preload/output.h"
#include "preload/signals.h"
#include "common/mangled.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { ST_IDLE, ST_RUNNING, ST_FINISHED, ST_OFF };

/* The trace file as we made it: only a regular file that this process created (output_open's
 * O_EXCL) may ever be removed, and only while the name still leads to that same file. */
struct made {
	int created;               /* a regular file of ours (not /dev/null, not a FIFO) */
	dev_t dev;
	ino_t ino;
	uint64_t header_bytes;     /* what the writer had on disk right after opening */
};

static struct {
	pthread_mutex_t mu;
	int config_loaded;
	struct gtp_config cfg;
	atomic_int state;
	char path[1024];
	struct gt_writer *w;
	struct made made;
	uint64_t closed_bytes;       /* gt_writer_bytes just before the final close */
	int write_failed;
	int write_failed_removed;    /* ... and the file was removed (nothing useful in it) */
	pthread_t writer;
	int writer_started;
	atomic_int final_how;      /* 0 until an end is requested */
	atomic_int final_status;
	int done_pipe[2];
	struct translator x;
	regex_t kernel_re;
	int kernel_re_ok;
	uint32_t pending_devices[64];
	int npending;
	atomic_int contexts_created; /* none by the end: the process never used a GPU (trace_unused) */
	uint64_t cupti_dropped;
	unsigned kinds_enabled;
	unsigned kinds_requested;    /* what session_start was asked for: a window attaches with it */
	atomic_int others_refused;   /* other CUPTI clients turned away while we recorded */
	atomic_int nvtx_attached;    /* NVTX hands its calls to CUPTI: windows must not detach */
} R = { .mu = PTHREAD_MUTEX_INITIALIZER, .done_pipe = { -1, -1 } };

const struct gtp_config *recorder_config(void)
{
	if (!R.config_loaded) {
		char msgs[2048];
		int n = config_load(&R.cfg, msgs, sizeof msgs);
		gtp_log_setup(R.cfg.quiet, R.cfg.debug);
		if (n) {
			/* One line per problem; each already says what was used instead. */
			for (char *line = strtok(msgs, "\n"); line; line = strtok(NULL, "\n"))
				gtp_error("%s", line);
		}
		R.config_loaded = 1;
	}
	return &R.cfg;
}

int recorder_running(void) { return atomic_load(&R.state) == ST_RUNNING; }

int recorder_nvtx_may_attach(void)
{
	atomic_store(&R.nvtx_attached, 1); /* before the check: a detach asked for after it waits */
	if (session_detached()) {
		gtp_debug("NVTX started while CUPTI was detached between windows: its ranges are not recorded");
		return 0;
	}
	return 1;
}

void recorder_note_collision(void) { atomic_fetch_add(&R.others_refused, 1); }

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CUPTI's time and the monotonic clock read together just before CUPTI was detached: while it is
 * detached its clock is extrapolated from them, since calling CUPTI would attach it again. */
static uint64_t detach_cupti_ns, detach_mono_ns;

static uint64_t cupti_now(void)
{
	if (session_detached())
		return detach_cupti_ns + (clock_ns(CLOCK_MONOTONIC) - detach_mono_ns);
	uint64_t t = 0;
	if (cupti_fn.cuptiGetTimestamp && cupti_fn.cuptiGetTimestamp(&t) != CUPTI_SUCCESS)
		t = 0;
	return t;
}

static int write_clock_sync(struct gt_writer *w)
{
	struct gt_clock_sync s = { .cupti_ns = cupti_now(), .realtime_ns = clock_ns(CLOCK_REALTIME),
		.monotonic_ns = clock_ns(CLOCK_MONOTONIC) };
	return gt_writer_add(w, GT_REC_CLOCK_SYNC, &s);
}

static int write_process_at(struct gt_writer *w, uint64_t timestamp, uint32_t event, int32_t status)
{
	struct gt_process p = { .timestamp = timestamp, .host_ns = clock_ns(CLOCK_REALTIME),
		.pid = (uint32_t)getpid(), .event = event, .status = status };
	return gt_writer_add(w, GT_REC_PROCESS, &p);
}

static int write_process(struct gt_writer *w, uint32_t event, int32_t status)
{
	return write_process_at(w, cupti_now(), event, status);
}

/* ---- callbacks from CUPTI and the translator ------------------------------------------------ */

static const char *api_name(void *ctx, CUpti_CallbackDomain d, uint32_t cbid)
{
	(void)ctx;
	const char *name = NULL;
	if (!cupti_fn.cuptiGetCallbackName ||
	    cupti_fn.cuptiGetCallbackName(d, cbid, &name) != CUPTI_SUCCESS)
		return NULL;
	return name;
}

static int keep_kernel(void *ctx, const char *name)
{
	(void)ctx;
	if (regexec(&R.kernel_re, name, 0, NULL, 0) == 0)
		return 1;
	/* Also try the demangled name, where the program brought libstdc++'s demangler, and only
	 * within the caps of common/mangled.h: a name that demangles to gigabytes is matched mangled. */
	if (gt_mangled_check(name, NULL) != GT_MANGLED_OK)
		return 0;
	gt_cxa_demangle_fn demangle = gt_demangler_find(GT_DEMANGLER_LOADED);
	int st = -1, keep = 0;
	char *d = demangle ? demangle(name, NULL, NULL, &st) : NULL;
	if (d && st == 0)
		keep = regexec(&R.kernel_re, d, 0, NULL, 0) == 0;
	free(d);
	return keep;
}

static void on_context_created(uint32_t device, uint32_t context, CUcontext ctx)
{
	(void)context;
	metrics_context_created(device, ctx);
	atomic_fetch_add(&R.contexts_created, 1);
	pthread_mutex_lock(&R.mu);
	if (R.npending < (int)(sizeof R.pending_devices / sizeof R.pending_devices[0]))
		R.pending_devices[R.npending++] = device;
	pthread_mutex_unlock(&R.mu);
	buffers_wake();
}

/* A context about to be destroyed (at exit CUDA's own teardown can come before our exit hook): a
 * PM sampler must not outlive it, so the device's sampler stops first (preload/metrics.h). */
static void on_context_destroying(uint32_t device, uint32_t context)
{
	(void)context;
	metrics_context_destroying(device);
}

/* ---- the writer thread ----------------------------------------------------------------------- */

/* Notes what we opened: whether it is a regular file we created, and which one. */
static void made_note(struct made *m, int fd)
{
	struct stat st;
	memset(m, 0, sizeof *m);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		m->created = 1; /* output_open opens an existing regular file never */
		m->dev = st.st_dev;
		m->ino = st.st_ino;
	}
}

/* Removes the trace file when it is still the regular file we created: a file that holds nothing
 * useful (no complete chunk) is worse than none, since it looks like a trace. 1 when removed. */
static int made_remove(const struct made *m, const char *path)
{
	struct stat st;
	if (!m->created || lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != m->dev ||
	    st.st_ino != m->ino)
		return 0;
	return unlink(path) == 0;
}

/* What the writer has completely on disk: header and whole chunks (a partial chunk is not counted). */
static uint64_t bytes_on_disk(void) { return R.w ? gt_writer_bytes(R.w) : R.closed_bytes; }

static void writer_failed(int rc)
{
	if (R.write_failed)
		return;
	int err = errno; /* the write's own, before anything below changes it */
	R.write_failed = rc;
	char cause[256];
	snprintf(cause, sizeof cause, "%s%s%s", gt_strerror(rc), rc == GT_ERR_IO ? ": " : "",
	         rc == GT_ERR_IO ? strerror(err) : "");
	/* Nothing complete reached the file: remove it (it is ours), which also gives the space back
	 * to the program at once; the writer's descriptor stays valid until it is abandoned. */
	if (bytes_on_disk() <= R.made.header_bytes && made_remove(&R.made, R.path)) {
		R.write_failed_removed = 1;
		gtp_error("writing trace '%s' failed (%s) before any record reached it; the file was "
		          "removed, recording stopped, the program goes on", R.path, cause);
	} else {
		gtp_error("writing trace '%s' failed (%s); recording stopped, the program goes on", R.path,
		          cause);
	}
	/* Stop producing records nobody can keep: less overhead for the program. */
	session_stop();
}

static void drain_buffers(void)
{
	struct cupti_buffer *b = buffers_take_completed();
	while (b) {
		struct cupti_buffer *next = b->next;
		if (!R.write_failed) {
			CUpti_Activity *rec = NULL;
			while (cupti_fn.cuptiActivityGetNextRecord(b->data, b->valid, &rec) == CUPTI_SUCCESS) {
				int rc = translate_record(&R.x, rec);
				if (rc) {
					writer_failed(rc);
					break;
				}
			}
		}
		if (b->dropped) {
			R.cupti_dropped += b->dropped;
			struct gt_dropped d = { .timestamp = cupti_now(), .count = b->dropped,
				.reason = GT_DROP_CUPTI };
			if (!R.write_failed) {
				int rc = gt_writer_add(R.w, GT_REC_DROPPED, &d);
				if (rc)
					writer_failed(rc);
			}
		}
		buffers_release(b);
		b = next;
	}
}

static void describe_pending_devices(void)
{
	uint32_t dev[64];
	pthread_mutex_lock(&R.mu);
	int n = R.npending;
	memcpy(dev, R.pending_devices, (size_t)n * sizeof dev[0]);
	R.npending = 0;
	pthread_mutex_unlock(&R.mu);
	for (int i = 0; i < n && !R.write_failed; i++) {
		int rc = devices_describe(R.w, dev[i]);
		rc = rc ? rc : metrics_device(R.w, dev[i]);
		if (rc)
			writer_failed(rc);
	}
	/* A first clock sample as soon as a device is known, so that even a short run says where the
	 * clocks stood (the periodic samples may never come). */
	if (n && !R.write_failed && R.cfg.sample_ms) {
		int rc = devices_sample(R.w, cupti_now());
		if (rc)
			writer_failed(rc);
	}
}

/* refused: buffer requests refused whose losses CUPTI did not count (0 when it did). */
static void write_report_line(const char *status, unsigned long long refused)
{
	if (!R.cfg.report_path[0])
		return;
	int fd = open(R.cfg.report_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	const struct translate_stats *s = &R.x.stats;
	/* One line per process: a newline in the path must not start another (the launcher prints
	 * the path as it stands here, escaped like every log line). */
	char shown[1024];
	gtp_escape(R.path, shown, sizeof shown);
	char line[1536];
	int n = snprintf(line, sizeof line,
	                 "pid=%d kernels=%llu memcpy=%llu memset=%llu bytes=%llu dropped=%llu "
	                 "refused=%llu status=%s path=%s\n",
	                 (int)getpid(), (unsigned long long)s->kernels, (unsigned long long)s->memcpys,
	                 (unsigned long long)s->memsets,
	                 (unsigned long long)(s->bytes_htod + s->bytes_dtoh + s->bytes_dtod +
	                                      s->bytes_other),
	                 (unsigned long long)R.cupti_dropped, refused, status, shown);
	if (n > 0) {
		ssize_t k = write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
		(void)k; /* the launcher says "no report" if it finds nothing */
	}
	close(fd);
}

/* A process that never created a CUDA context and recorded nothing (a torch.compile worker, a
 * tool that only asked how many GPUs there are: cuInit started the recorder) leaves no trace: an
 * empty x.1.gtrace beside the real one only misleads. NVTX ranges alone still make a trace. */
static int trace_unused(void)
{
	const struct translate_stats *s = &R.x.stats;
	return !atomic_load(&R.contexts_created) && !s->kernels && !s->memcpys && !s->memsets &&
	       !s->syncs && !s->nvtx && !s->memory_ops && !s->graphs && !s->tool_copies && !R.cupti_dropped;
}

static void finish_trace(int how, int status)
{
	/* A write failure stopped the session early: buffers CUPTI still held then are ours, not a
	 * sign of another client, and their records are lost with the rest of the run anyway. */
	int stopped_early = R.write_failed != 0;
	/* Everything still inside CUPTI, including records of work in flight. */
	session_flush(1);
	drain_buffers();
	describe_pending_devices();
	if (!R.write_failed) {
		int rc = metrics_finish(R.w, cupti_now(), how == RECORDER_END_SIGNAL);
		if (rc)
			writer_failed(rc);
	}
	if (!R.write_failed && R.cfg.sample_ms) {
		int rc = devices_sample(R.w, cupti_now()); /* and a last one: where the clocks ended */
		if (rc)
			writer_failed(rc);
	}
	struct buffers_stats bs;
	buffers_get_stats(&bs);
	/* Records lost to refused buffer requests: CUPTI 13 counts them in its own dropped count
	 * (measured on the H200: kept + dropped == launched exactly, tests/gpu/test_reliability_shutdown.sh).
	 * A CUPTI that refused buffers yet counted nothing has lost records of unknown number: said in
	 * the trace (a DROPPED record of count 0) and on the closing line, never "0 dropped". */
	int lost_uncounted = bs.refused && !R.cupti_dropped;
	/* Another client took over when its buffers came to us, or ours never came back though we
	 * flushed with the session running. */
	int collided = bs.foreign || (bs.outstanding && !stopped_early);
	if (!R.write_failed) {
		int rc = capture_finish(R.w);
		rc = rc ? rc : translate_finish(&R.x, cupti_now());
		char v[64];
		snprintf(v, sizeof v, "%llu", (unsigned long long)bs.requested);
		rc = rc ? rc : gt_writer_meta(R.w, "tracing.buffers_requested", v);
		snprintf(v, sizeof v, "%llu", (unsigned long long)bs.pool_misses);
		rc = rc ? rc : gt_writer_meta(R.w, "tracing.buffer_pool_misses", v);
		snprintf(v, sizeof v, "%llu", (unsigned long long)bs.refused);
		rc = rc ? rc : gt_writer_meta(R.w, "tracing.buffers_refused", v);
		if (collided) {
			/* Another CUPTI client registered its own buffer callbacks after us: CUPTI then
			 * delivers our buffers to it and its buffers to us. */
			snprintf(v, sizeof v, "%llu foreign, %llu of ours never returned",
			         (unsigned long long)bs.foreign, (unsigned long long)bs.outstanding);
			rc = rc ? rc : gt_writer_meta(R.w, "tracing.collision", v);
		}
		if (atomic_load(&R.others_refused)) {
			snprintf(v, sizeof v, "%d other CUPTI client(s) refused while gputrace recorded",
			         atomic_load(&R.others_refused));
			rc = rc ? rc : gt_writer_meta(R.w, "tracing.other_clients_refused", v);
		}
		if (lost_uncounted) {
			struct gt_dropped d = { .timestamp = cupti_now(), .count = 0,
				.reason = GT_DROP_BUFFER_LOST };
			rc = rc ? rc : gt_writer_add(R.w, GT_REC_DROPPED, &d);
		}
		rc = rc ? rc : write_clock_sync(R.w);
		rc = rc ? rc : write_process(R.w, how == RECORDER_END_SIGNAL ? GT_PROCESS_SIGNAL
		                                                              : GT_PROCESS_EXIT, status);
		R.closed_bytes = gt_writer_bytes(R.w);
		int crc = gt_writer_close(R.w);
		R.w = NULL;
		if (rc || crc)
			writer_failed(rc ? rc : crc);
	} else {
		gt_writer_abandon(R.w);
		R.w = NULL;
	}
	if (collided)
		gtp_error("another CUPTI client in this process (e.g. torch.profiler, Nsight) took over "
		          "activity collection: %llu of our buffers never came back, %llu of its came to "
		          "us; the trace '%s' is incomplete",
		          (unsigned long long)bs.outstanding, (unsigned long long)bs.foreign, R.path);
	if (!R.write_failed && !collided && trace_unused() && made_remove(&R.made, R.path)) {
		gtp_debug("'%s' removed: this process created no CUDA context and recorded nothing", R.path);
		write_report_line("unused", 0);
		return;
	}
	const struct translate_stats *s = &R.x.stats;
	if (!R.write_failed && !R.cfg.report_path[0])
		gtp_log("trace written to '%s': %llu kernels, %llu copies, %llu bytes copied, %llu dropped%s",
		        R.path, (unsigned long long)s->kernels, (unsigned long long)s->memcpys,
		        (unsigned long long)(s->bytes_htod + s->bytes_dtoh + s->bytes_dtod + s->bytes_other),
		        (unsigned long long)R.cupti_dropped,
		        lost_uncounted ? ", and more lost (CUPTI's buffer requests refused: the number is unknown)" : "");
	write_report_line(R.write_failed_removed ? "no-file" : R.write_failed ? "write-failed"
	                  : collided ? "collision" : "ok",
	                  lost_uncounted ? (unsigned long long)bs.refused : 0);
}

/* Windowed recording (GPUTRACE_WINDOW): the writer thread opens and closes windows on its clock.
 * Closing turns CUPTI's activity kinds off, hands over what the window recorded and marks the end;
 * the records of work launched inside a window but finished after it still arrive, and belong to it. */
struct window {
	int open;
	uint32_t index;            /* windows opened before this one */
	uint64_t next_edge;        /* mono_ms of the next open or close; UINT64_MAX without windows */
};

/* Closes a window by detaching CUPTI (session_detach): 1 when closed so, 0 when the program made
 * no CUDA call to detach in (try again soon), -1 when this CUPTI cannot detach. */
static int window_detach(struct window *win)
{
	detach_cupti_ns = cupti_now();
	detach_mono_ns = clock_ns(CLOCK_MONOTONIC);
	int r = session_detach(drain_buffers, 20);
	if (r != 0)
		return r < 0 ? -1 : 0;
	int rc = R.write_failed ? 0 : write_process(R.w, GT_PROCESS_WINDOW_CLOSE, (int32_t)win->index);
	if (rc)
		writer_failed(rc);
	return 1;
}

/* Opens a window on a detached CUPTI: attaches it again with the kinds asked for at start. */
static void window_attach(struct window *win)
{
	uint64_t opened = cupti_now();
	struct session_result res;
	char why[256];
	if (session_reattach(R.kinds_requested, R.cfg.latency, &res, why, sizeof why) != 0) {
		gtp_debug("window %u: CUPTI did not attach again (%s); the next period tries again",
		          win->index, why);
		return;
	}
	int rc = R.write_failed ? 0 : write_process_at(R.w, opened, GT_PROCESS_WINDOW_OPEN,
	                                               (int32_t)win->index);
	rc = rc ? rc : R.write_failed ? 0 : write_clock_sync(R.w); /* a fresh pairing per window */
	if (rc)
		writer_failed(rc);
}

static void window_edge(struct window *win, uint64_t now)
{
	int rc;
	if (win->open && !R.write_failed && !atomic_load(&R.nvtx_attached)) {
		int d = window_detach(win);
		if (d == 0) {
			win->next_edge = now + 10; /* no CUDA call to detach in yet */
			return;
		}
		if (d > 0) {
			win->index++;
			win->next_edge = now + (R.cfg.window_period_ms - R.cfg.window_on_ms);
			win->open = 0;
			return;
		}
	} else if (!win->open && session_detached()) {
		window_attach(win);
		win->next_edge = now + R.cfg.window_on_ms;
		win->open = 1;
		return;
	}
	if (win->open) {
		if (session_pause() != 0)
			gtp_debug("window %u: CUPTI refused to turn some activity off", win->index);
		rc = R.write_failed ? 0 : write_process(R.w, GT_PROCESS_WINDOW_CLOSE, (int32_t)win->index);
		session_flush(0);
		drain_buffers();
		win->index++;
		win->next_edge = now + (R.cfg.window_period_ms - R.cfg.window_on_ms);
	} else {
		/* The opening time is taken before the kinds are on, so that no record of the window
		 * starts before its window does (measured: 9 of 57,407 kernels did when taken after). */
		uint64_t opened = cupti_now();
		if (session_resume() != 0)
			gtp_debug("window %u: CUPTI refused to turn some activity on", win->index);
		rc = R.write_failed ? 0 : write_process_at(R.w, opened, GT_PROCESS_WINDOW_OPEN,
		                                           (int32_t)win->index);
		win->next_edge = now + R.cfg.window_on_ms;
	}
	win->open = !win->open;
	if (rc && !R.write_failed)
		writer_failed(rc);
}

static void *writer_main(void *arg)
{
	(void)arg;
	uint64_t now = mono_ms();
	uint64_t next_flush = now + R.cfg.flush_ms;
	uint64_t next_sample = R.cfg.sample_ms ? now : UINT64_MAX;
	struct window win = { .open = 1, .next_edge = R.cfg.window_period_ms ? now + R.cfg.window_on_ms
	                                                                     : UINT64_MAX };
	for (;;) {
		now = mono_ms();
		uint64_t until = next_flush < next_sample ? next_flush : next_sample;
		if (win.next_edge < until)
			until = win.next_edge;
		unsigned wait = until > now ? (unsigned)(until - now) : 0;
		/* A signal handler cannot wake us; look at the flag at least every 50 ms. */
		if (wait > 50)
			wait = 50;
		buffers_wait(wait);
		int how = atomic_load(&R.final_how);
		if (how) {
			finish_trace(how, atomic_load(&R.final_status));
			break;
		}
		drain_buffers();
		describe_pending_devices();
		if (!R.write_failed) {
			int rc = metrics_decode(R.w);
			if (rc)
				writer_failed(rc);
		} else {
			metrics_decode(NULL); /* nothing written: samplers released, their threads not kept waiting */
		}
		buffers_top_up(2);
		if (!R.write_failed) {
			int rc = capture_drain(R.w);
			if (rc)
				writer_failed(rc);
		}
		now = mono_ms();
		if (now >= win.next_edge)
			window_edge(&win, now);
		if (now >= next_sample) {
			if (!R.write_failed) {
				int rc = devices_sample(R.w, cupti_now());
				if (rc)
					writer_failed(rc);
			}
			next_sample = now + R.cfg.sample_ms;
		}
		if (now >= next_flush) {
			/* CUPTI hands over buffers whose records are complete; then one chunk goes to
			 * disk. What a SIGKILL loses is bounded by this period. */
			session_flush(0);
			drain_buffers();
			if (!R.write_failed) {
				/* A clock pairing per flush lets analysis measure how CUPTI's clock and the
				 * host's drift apart over a long run (gpuanalyze ranks aligns with them). */
				int rc = write_clock_sync(R.w);
				if (!rc)
					rc = gt_writer_flush(R.w);
				if (rc)
					writer_failed(rc);
			}
			next_flush = mono_ms() + R.cfg.flush_ms;
		}
	}
	char one = 1;
	ssize_t k = write(R.done_pipe[1], &one, 1);
	(void)k;
	return NULL;
}

/* ---- start ------------------------------------------------------------------------------------ */

/* Which API calls the trace holds, so that split's API column says what it measured. */
static void write_api_meta(struct gt_writer *w, const struct session_result *res)
{
	char v[256];
	unsigned apis = res->enabled & (SK_RUNTIME | SK_DRIVER);
	if (!apis)
		snprintf(v, sizeof v, "none");
	else if (res->enabled & SK_API_ALL)
		snprintf(v, sizeof v, "all");
	else if ((res->api_selected & apis) == apis)
		snprintf(v, sizeof v, "selected: " API_SELECT_SET_NAME " (%d runtime, %d driver calls)",
		         res->api_calls[0], res->api_calls[1]);
	else
		snprintf(v, sizeof v, "all (this CUPTI cannot select calls)");
	gt_writer_meta(w, "trace.api_calls", v);
}

/* Writes a trace that says why it holds no GPU activity, so that a user (or CI) who expected a file
 * finds one with the reason. */
static void write_empty_trace(const char *via, const char *reason)
{
	char path[1024], why[512];
	int fd = output_open_why(R.cfg.output, path, sizeof path, why, sizeof why);
	if (fd < 0) {
		/* The line that sent us here already says the program runs untraced. */
		gtp_debug("no trace saying why either: cannot create the trace file for '%s': %s",
		          R.cfg.output, why);
		snprintf(R.path, sizeof R.path, "%s", R.cfg.output);
		write_report_line("no-file", 0);
		return;
	}
	snprintf(R.path, sizeof R.path, "%s", path);
	struct made m;
	made_note(&m, fd);
	struct gt_writer *w;
	int rc = gt_writer_open_fd(&w, fd, NULL);
	if (rc == 0) {
		metadata_write(w, via);
		gt_writer_meta(w, "tracing.off", reason);
		write_process(w, GT_PROCESS_TRACING_OFF, 0);
		rc = gt_writer_close(w);
	} else {
		int err = errno;
		close(fd);
		errno = err;
	}
	if (rc) {
		/* Header or chunk not written (a full disk): nothing readable is left; say so once. */
		int err = errno;
		int removed = made_remove(&m, path);
		gtp_debug("no trace saying why either: writing '%s' failed (%s%s%s)%s", path,
		          gt_strerror(rc), rc == GT_ERR_IO ? ": " : "", rc == GT_ERR_IO ? strerror(err) : "",
		          removed ? "; the file was removed" : "");
		write_report_line(removed ? "no-file" : "write-failed", 0);
		return;
	}
	write_report_line("off", 0);
}

static void go_off(const char *via, const char *reason, int write_trace)
{
	gtp_error("%s; the program runs untraced", reason);
	if (write_trace)
		write_empty_trace(via, reason);
	atomic_store(&R.state, ST_OFF);
}

static void on_exit_hook(int status, void *arg)
{
	(void)arg;
	recorder_finish(RECORDER_END_EXIT, status, 0);
}

/* The phases of recorder_start(), called with R.mu held: each returns 0, or -1 once it has gone off
 * (said why, closed what it opened). */

/* Loads CUPTI and the CUDA driver (NVML too, if there is one). */
static int start_libs(const struct gtp_config *c, const char *via)
{
	char why[1600];
	if (libs_load_cupti(c->cupti_path, why, sizeof why) != 0) {
		go_off(via, why, 1);
		return -1;
	}
	if (libs_load_cuda(why, sizeof why) != 0) {
		go_off(via, why, 1);
		return -1;
	}
	nvml_open(); /* optional: PCIe and clocks are "unknown" without it */
	return 0;
}

/* Creates the trace file and writes its header. */
static int start_file(const struct gtp_config *c, const char *via)
{
	char cause[512], why[1600];
	int fd = output_open_why(c->output, R.path, sizeof R.path, cause, sizeof cause);
	if (fd < 0) {
		char reason[1600];
		snprintf(reason, sizeof reason, "cannot create the trace file for '%s': %s", c->output,
		         cause);
		go_off(via, reason, 0);
		/* So that the launcher knows the recorder ran (it must not add "never initialised CUDA"). */
		snprintf(R.path, sizeof R.path, "%s", c->output);
		write_report_line("no-file", 0);
		return -1;
	}
	made_note(&R.made, fd);
	int rc = gt_writer_open_fd(&R.w, fd, NULL);
	if (rc) {
		/* The header did not fit (a full disk): the file holds nothing; remove it if ours. */
		int err = errno;
		close(fd);
		int removed = made_remove(&R.made, R.path);
		snprintf(why, sizeof why, "cannot write the trace '%s': %s%s%s%s", R.path, gt_strerror(rc),
		         rc == GT_ERR_IO ? ": " : "", rc == GT_ERR_IO ? strerror(err) : "",
		         removed ? " (the file was removed)" : "");
		go_off(via, why, 0);
		write_report_line(removed ? "no-file" : "write-failed", 0);
		return -1;
	}
	R.made.header_bytes = gt_writer_bytes(R.w);
	return 0;
}

/* Writes the process's metadata and sets up the translation of CUPTI records and the activity buffers. */
static int start_translation(const struct gtp_config *c, const char *via)
{
	metadata_write(R.w, via);
	translate_init(&R.x, R.w);
	R.x.api_name = api_name;
	R.x.tool_copy = capture_owns_copy;
	if (c->kernel_filter[0] && regcomp(&R.kernel_re, c->kernel_filter, REG_EXTENDED | REG_NOSUB) == 0) {
		R.kernel_re_ok = 1;
		R.x.keep_kernel = keep_kernel;
	}
	if (buffers_init(c->buffer_bytes, 4, c->buffers_max) != 0 || pipe2(R.done_pipe, O_CLOEXEC) != 0) {
		gt_writer_meta(R.w, "tracing.off", "out of memory for activity buffers");
		gt_writer_close(R.w);
		R.w = NULL;
		go_off(via, "cannot allocate activity buffers", 0);
		return -1;
	}
	return 0;
}

/* Sets up shadow capture (*cap: its result, < 0 off) and subscribes to CUPTI, enabling the kinds. */
static int start_session(const struct gtp_config *c, const char *via, struct session_result *res, int *cap)
{
	char why[1600];
	metrics_configure(c); /* before the first context-created callback */
	struct session_hooks hooks = { .context_created = on_context_created,
		.context_destroying = on_context_destroying };
	struct capture_config cc = { .pattern = c->shadow, .max_per_kernel = c->shadow_max,
		.max_bytes = c->shadow_bytes, .wake_writer = buffers_wake };
	*cap = capture_setup(&cc, &hooks, why, sizeof why);
	if (*cap < 0)
		gtp_error("shadow capture off: %s", why);
	/* Windows detach CUPTI between them (session_detach) where they can, else switch the kinds off
	 * and on; either way they record the API calls the defaults record (session.c, set_api_kind). */
	unsigned want = c->kinds;
	R.kinds_requested = want;
	int rc = session_start(want, c->latency, &hooks, res, why, sizeof why);
	if (rc) {
		gt_writer_meta(R.w, "tracing.off", why);
		write_process(R.w, GT_PROCESS_TRACING_OFF, rc);
		gt_writer_close(R.w);
		R.w = NULL;
		go_off(via, why, 0);
		write_report_line(res->other_client[0] || rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
		                      ? "collision" : "off", 0);
		return -1;
	}
	R.kinds_enabled = res->enabled;
	return 0;
}

/* Writes what the session records (kinds, settings), the clock sync and the process's start. */
static void write_session_meta(const struct gtp_config *c, const struct session_result *res, int cap)
{
	char kinds[256], buf[64];
	config_kind_names(res->enabled, kinds, sizeof kinds);
	gt_writer_meta(R.w, "trace.activities", kinds);
	if (res->failed) {
		config_kind_names(res->failed, kinds, sizeof kinds);
		gt_writer_meta(R.w, "trace.activities_refused", kinds);
		gtp_log("CUPTI refused these activity kinds: %s", kinds);
	}
	write_api_meta(R.w, res);
	gt_writer_meta(R.w, "trace.thread_ids", res->os_thread_ids ? "os" : "cupti");
	gt_writer_meta(R.w, "trace.latency_timestamps", res->latency ? "1" : "0");
	if (c->window_period_ms) {
		snprintf(buf, sizeof buf, "%u/%u", c->window_on_ms, c->window_period_ms);
		gt_writer_meta(R.w, "trace.window_ms", buf);
	}
	gt_writer_meta(R.w, "trace.kernel_filter", R.kernel_re_ok ? c->kernel_filter : "");
	snprintf(buf, sizeof buf, "%u", c->flush_ms);
	gt_writer_meta(R.w, "trace.flush_ms", buf);
	snprintf(buf, sizeof buf, "%zu", c->buffer_bytes);
	gt_writer_meta(R.w, "trace.buffer_bytes", buf);
	gt_writer_meta(R.w, "trace.shadow", cap == 0 ? c->shadow : "");
	write_clock_sync(R.w);
	write_process(R.w, GT_PROCESS_START, 0);
	if (c->window_period_ms)
		write_process(R.w, GT_PROCESS_WINDOW_OPEN, 0); /* the first window opens at start */
}

/* Starts the writer thread, with every signal blocked. */
static int start_writer(const char *via)
{
	/* The writer thread takes no signals: asynchronous ones go to the program's threads, whose
	 * handler then waits for the writer. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&R.writer, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		session_stop();
		gt_writer_meta(R.w, "tracing.off", "cannot start the writer thread");
		gt_writer_close(R.w);
		R.w = NULL;
		go_off(via, "cannot start the writer thread", 0);
		return -1;
	}
	R.writer_started = 1;
	return 0;
}

void recorder_start(const char *via)
{
	const struct gtp_config *c = recorder_config();
	pthread_mutex_lock(&R.mu);
	if (atomic_load(&R.state) != ST_IDLE || c->disabled) {
		pthread_mutex_unlock(&R.mu);
		return;
	}
	struct session_result res;
	int cap;
	if (start_libs(c, via) || start_file(c, via) || start_translation(c, via) ||
	    start_session(c, via, &res, &cap)) {
		pthread_mutex_unlock(&R.mu);
		return;
	}
	write_session_meta(c, &res, cap);
	if (start_writer(via)) {
		pthread_mutex_unlock(&R.mu);
		return;
	}
	atomic_store(&R.state, ST_RUNNING);
	if (on_exit(on_exit_hook, NULL) != 0)
		gtp_debug("on_exit failed; the destructor will finish the trace");
	signals_install();
	gtp_debug("recording to '%s' (%s; kinds %#x)", R.path, via, res.enabled);
	pthread_mutex_unlock(&R.mu);
}

/* ---- finish ----------------------------------------------------------------------------------- */

void recorder_finish(int how, int status, int in_signal)
{
	if (atomic_load(&R.state) != ST_RUNNING)
		return;
	if (R.writer_started && pthread_equal(pthread_self(), R.writer))
		return; /* the writer cannot wait for itself */
	/* Before the writer is told to finish: it releases the samplers while its loop still runs. In
	 * this thread, which has a context, not in the writer; not in a signal handler (it waits). */
	if (!in_signal)
		metrics_stop();
	int expected = 0;
	if (!atomic_compare_exchange_strong(&R.final_how, &expected, how)) {
		/* Someone else is finishing (a signal during exit): wait for the same pipe below. */
	} else {
		atomic_store(&R.final_status, status);
	}
	if (!in_signal)
		buffers_wake();
	unsigned limit = R.cfg.exit_timeout_ms;
	struct pollfd p = { .fd = R.done_pipe[0], .events = POLLIN };
	int waited = 0;
	for (;;) {
		int r = poll(&p, 1, (int)limit);
		if (r < 0 && errno == EINTR)
			continue;
		waited = r > 0;
		break;
	}
	atomic_store(&R.state, ST_FINISHED);
	if (!waited) {
		if (in_signal)
			gtp_log_raw("the trace could not be finished in time; it ends at its last flush");
		else
			gtp_error("the trace '%s' could not be finished within %u ms; it ends at its last "
			          "flush", R.path, limit);
		return;
	}
	if (!in_signal && R.writer_started) {
		pthread_join(R.writer, NULL);
		R.writer_started = 0;
	}
}

/* ---- fork -------------------------------------------------------------------------------------- */

static void fork_prepare(void)
{
	pthread_mutex_lock(&R.mu);
	buffers_fork_prepare();
}

static void fork_parent(void)
{
	buffers_fork_parent();
	pthread_mutex_unlock(&R.mu);
}

static void fork_child(void)
{
	pthread_mutex_init(&R.mu, NULL);
	buffers_after_fork_child();
	capture_after_fork_child();
	if (atomic_load(&R.state) == ST_RUNNING) {
		/* The parent had initialised CUDA: CUDA cannot be used in this child, and the writer
		 * thread and the trace file are the parent's. Record nothing here. */
		R.w = NULL;
		R.writer_started = 0;
		atomic_store(&R.state, ST_OFF);
		devices_reset();
		metrics_forget();
	}
	/* An idle parent leaves an idle child: the child's own cuInit starts its own trace. */
}

void recorder_install_fork_handlers(void)
{
	if (pthread_atfork(fork_prepare, fork_parent, fork_child) != 0)
		gtp_debug("pthread_atfork failed");
}
