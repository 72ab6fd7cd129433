// SPDX-License-Identifier: GPL-2.0
/*
 * What a revokable file costs, in guest instructions.  Run by 'make bench'
 * (kit/bench) in a QEMU guest started with -icount shift=0,sleep=off, where
 * the guest clock advances one nanosecond per instruction, so timing a call
 * counts its instructions.  Each call is timed alone
 * and a row is the fewest instructions any of its calls took, less what
 * timing an empty call takes: the cost of the call's own code path, the
 * same on every run.  A mean would also count the timer interrupts and
 * allocator refills that land in some calls, whose phase depends on all
 * the kernel did since boot and so differs between two kernels.  The same
 * binary runs on the base kernel, where O_REVOKABLE and the test device do
 * not exist; those rows print "-".
 *
 * Output, one line per measurement, tab-separated:
 *	timer	INSTRUCTIONS (subtracted from every other line)
 *	op	OPERATION	FILE	plain|revokable	INSTRUCTIONS
 *	revoke	WHAT	INSTRUCTIONS
 *	mem	FILE	plain|revokable	BYTES (slab memory per open file)
 * and with --trace OPERATION [FILE...] (kit/trace), for each call traced:
 *	trace	OPERATION	FILE	plain|revokable
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "revoke.h"

#define LOOPS	1000	/* calls timed per row */
#define WARMUP	100	/* calls before, untimed */

/* A file under test: a path, and whether it reads like a pipe. */
struct target {
	const char *name;
	const char *path;
	bool stream;
};

/*
 * A tmpfs of its own, mounted noatime: whether a read updates the access
 * time depends on the clock and on the writes before it, not on the file.
 */
#define BENCH_DIR	"/tmp/bench"

/*
 * Files whose contents are the same on both kernels: /proc/version, whose
 * banner names the build, would not compare.
 */
static const struct target targets[] = {
	{ "/dev/zero",	"/dev/zero" },
	{ "/dev/null",	"/dev/null" },
	{ "pipe",	BENCH_DIR "/fifo", true },
	{ "tmpfs",	BENCH_DIR "/file" },
	{ "procfs",	"/proc/cmdline" },		/* permanent */
	{ "proc entry",	"/proc/filesystems" },		/* removable */
	{ "sysfs",	"/sys/kernel/uevent_seqnum" },
	/*
	 * A bool: the attribute files of DEFINE_DEBUGFS_ATTRIBUTE() are
	 * nonseekable, and the calls here are at offset 0.
	 */
	{ "debugfs",	"/sys/kernel/debug/sched/verbose" },
	/* a seq_file, read through seq_read() on the base */
	{ "debugfs seq", "/sys/kernel/debug/x86/topo/domains" },
	/*
	 * A DEFINE_DEBUGFS_ATTRIBUTE() file, written through
	 * simple_attr_write() on the base: a "1" clears the WARN_ONCE()
	 * flags, on both kernels alike.  It has no get(): reads fail.
	 */
	{ "debugfs attr", "/sys/kernel/debug/clear_warn_once", true },
	{ "test device", TEST_REVOKE_DEV, true },
	{ "pty",	BENCH_DIR "/pty", true },	/* a link to the slave */
};

/* What an operation works on. */
struct bench {
	const struct target *t;
	int oflags;
	int fd;
	int pipe[2];		/* splice's other end */
	char buf[4096];
	int other;		/* what open and close work on */
};

typedef long (*op_fn)(struct bench *b);

static char page[4096];
static long long timer;	/* instructions that timing an empty call takes */
/* The pty's master: what is read from the slave is written here. */
static int pty_master = -1;

/* Where a stream's bytes to read are written: a pty's master, or itself. */
static int stream_feed(struct bench *b)
{
	return strcmp(b->t->path, BENCH_DIR "/pty") ? b->fd : pty_master;
}

static long op_read1(struct bench *b)
{
	return b->t->stream ? read(b->fd, b->buf, 1) : pread(b->fd, b->buf, 1, 0);
}

static long op_write1(struct bench *b)
{
	return b->t->stream ? write(b->fd, "1", 1) : pwrite(b->fd, "1", 1, 0);
}

static long op_read4k(struct bench *b)
{
	return b->t->stream ? -1 : pread(b->fd, b->buf, 4096, 0);
}

static long op_readv2(struct bench *b)
{
	struct iovec iov[2] = { { b->buf, 1 }, { b->buf + 1, 1 } };

	return b->t->stream ? readv(b->fd, iov, 2) : preadv(b->fd, iov, 2, 0);
}

static long op_poll0(struct bench *b)
{
	struct pollfd pfd = { .fd = b->fd, .events = POLLIN | POLLOUT };

	return poll(&pfd, 1, 0);
}

/* The device's own ioctl; FIONREAD elsewhere (ENOTTY is a result too). */
static long op_ioctl(struct bench *b)
{
	int n;
	long ret;

	if (!strcmp(b->t->path, TEST_REVOKE_DEV))
		return ioctl(b->fd, TEST_REVOKE_READY);
	ret = ioctl(b->fd, FIONREAD, &n);
	return ret < 0 && errno == ENOTTY ? 0 : ret;
}

/* open and close each time one file, the other untimed around it */
static long op_open(struct bench *b)
{
	b->other = open(b->t->path, b->oflags);
	return b->other;
}

static long op_close(struct bench *b)
{
	return close(b->other);
}

static long op_mmap(struct bench *b)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, b->fd, 0);

	return p == MAP_FAILED ? -1 : munmap(p, 4096);
}

/* 4 KiB from the file into a pipe, and out of it again to keep it empty. */
static long op_splice(struct bench *b)
{
	loff_t off = 0;
	long ret;

	if (b->t->stream)
		return -1;
	ret = splice(b->fd, &off, b->pipe[1], NULL, 4096, 0);
	if (ret > 0 && read(b->pipe[0], b->buf, ret) != ret)
		return -1;
	return ret;
}

static long op_none(struct bench *b)
{
	return 0;
}

static const struct {
	const char *name;
	op_fn fn;
	int fill;		/* bytes a stream needs per call */
	op_fn before, after;	/* untimed, around each call */
} ops[] = {
	{ "read 1 B",		op_read1, 1 },
	{ "write 1 B",		op_write1 },
	{ "read 4 KiB",		op_read4k },
	{ "readv 2x1 B",	op_readv2, 2 },
	{ "poll, no wait",	op_poll0 },
	{ "ioctl",		op_ioctl },
	{ "open",		op_open, 0, NULL, op_close },
	{ "close",		op_close, 0, op_open },
	{ "mmap+munmap",	op_mmap },
	{ "splice 4 KiB",	op_splice },
};

/*
 * The guest clock.  On x86 the TSC itself: QEMU's icount advances it by one
 * per instruction, while clock_gettime() scales it by the frequency the
 * kernel calibrated, which differs from boot to boot by a few parts per
 * million and moves when the calibration is refined.
 */
static unsigned long long now(void)
{
#ifdef __x86_64__
	unsigned int lo, hi;

	asm volatile("rdtsc" : "=a" (lo), "=d" (hi));
	return (unsigned long long)hi << 32 | lo;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
#endif
}

/* Keep a stream's buffer as the operation needs it: full enough, or empty. */
static void stream_fill(struct bench *b, int bytes)
{
	while (bytes > 0) {
		int n = bytes < 64 ? bytes : 64;

		if (write(stream_feed(b), page, n) != n)
			return;
		bytes -= n;
	}
}

static void drain(int fd, char *buf)
{
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	while (read(fd, buf, 4096) > 0)
		;
	fcntl(fd, F_SETFL, fl);
}

/* A pty's master gets what the slave wrote. */
static void stream_drain(struct bench *b)
{
	drain(b->fd, b->buf);
	if (stream_feed(b) != b->fd)
		drain(stream_feed(b), b->buf);
}

/* The fewest instructions any of @loops calls of @fn took, or -1 on error. */
static long long fewest(struct bench *b, int loops, op_fn fn, op_fn before,
			op_fn after)
{
	unsigned long long best = ~0ULL, t;
	int n;

	for (n = 0; n < loops; n++) {
		if (before && before(b) < 0)
			return -1;
		t = now();
		if (fn(b) < 0)
			return -1;
		t = now() - t;
		if (after && after(b) < 0)
			return -1;
		if (t < best)
			best = t;
	}
	return best;
}

/* Instructions of one call, or -1 if it does not apply. */
static long long measure(struct bench *b, int i)
{
	long long v;

	/*
	 * Idle first, so that an RCU grace period or deferred work that the
	 * previous row started is over: RCU's quiescent-state report in
	 * cond_resched() is longer while a grace period is in progress.  Then
	 * warm up: the first reads of a page cache page take other paths
	 * (atime, LRU activation in folio_mark_accessed()) than the next ones.
	 */
	usleep(50000);
	if (b->t->stream) {
		stream_drain(b);
		stream_fill(b, ops[i].fill * (WARMUP + LOOPS));
	}
	if (fewest(b, WARMUP, ops[i].fn, ops[i].before, ops[i].after) < 0)
		v = -1;
	else
		v = fewest(b, LOOPS, ops[i].fn, ops[i].before, ops[i].after);
	if (b->t->stream)
		stream_drain(b);
	return v < 0 ? -1 : v - timer;
}

/*
 * With --trace OPERATION, kit/trace single-steps the guest from one
 * getppid(TRACE_MARK) to the next: each traced call runs between two of
 * them, in the state in which measure() times it.  getppid() ignores its
 * argument; the shell's own calls have none.
 */
#define TRACE_MARK	0x7265766f6b65UL

static const char *trace_op;
/* The files to trace, by target name; all if none. */
static char **trace_files;
static int trace_nr_files;

static bool traced(const struct target *t)
{
	int i;

	for (i = 0; i < trace_nr_files; i++)
		if (!strcmp(trace_files[i], t->name))
			return true;
	return !trace_nr_files;
}

static void trace_call(struct bench *b, int i, bool revokable)
{
	/* As measure() does: idle, warm up, then the call. */
	usleep(50000);
	if (b->t->stream) {
		stream_drain(b);
		stream_fill(b, ops[i].fill * (WARMUP + 1));
	}
	if (fewest(b, WARMUP, ops[i].fn, ops[i].before, ops[i].after) < 0 ||
	    (ops[i].before && ops[i].before(b) < 0))
		return;
	syscall(SYS_getppid, TRACE_MARK);
	ops[i].fn(b);
	syscall(SYS_getppid, TRACE_MARK);
	if (ops[i].after)
		ops[i].after(b);
	if (b->t->stream)
		stream_drain(b);
	printf("trace\t%s\t%s\t%s\n", ops[i].name, b->t->name,
	       revokable ? "revokable" : "plain");
	fflush(stdout);
}

static void bench_target(const struct target *t, bool revokable)
{
	struct bench *b = calloc(1, sizeof(*b));
	int i;

	b->t = t;
	b->oflags = O_RDWR | O_NOCTTY | (revokable ? O_REVOKABLE : 0);
	b->fd = open(t->path, b->oflags);
	if (b->fd < 0) {
		b->oflags = O_RDONLY | (revokable ? O_REVOKABLE : 0);
		b->fd = open(t->path, b->oflags);
	}
	/*
	 * A file is revokable if it says so: not on the base kernel; always
	 * for the test device.
	 */
	if (b->fd >= 0 &&
	    !!(fcntl(b->fd, F_GETFL) & O_REVOKABLE) != revokable) {
		close(b->fd);
		b->fd = -1;
	}
	if (pipe(b->pipe))
		exit(1);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		long long v;

		if (trace_op) {
			if (b->fd >= 0 && !strcmp(ops[i].name, trace_op) &&
			    traced(t))
				trace_call(b, i, revokable);
			continue;
		}
		v = b->fd < 0 ? -1 : measure(b, i);

		printf("op\t%s\t%s\t%s\t", ops[i].name, t->name,
		       revokable ? "revokable" : "plain");
		if (v < 0)
			printf("-\n");
		else
			printf("%lld\n", v);
	}
	fflush(stdout);
	if (b->fd >= 0)
		close(b->fd);
	close(b->pipe[0]);
	close(b->pipe[1]);
	free(b);
}

/* Slab memory in use, in bytes, the CPUs' pending counts folded in. */
static long long slab_bytes(void)
{
	long long kb = -1;
	char line[128];
	FILE *f;
	int fd;

	fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);
	if (fd >= 0) {
		write(fd, "1", 1);
		close(fd);
	}
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

#define MEM_OPENS	4000

/*
 * Slab memory per open file of @t: what MEM_OPENS files open at once hold,
 * their struct file and what their driver and the core allocated at open,
 * over their number.  Slabs are counted in pages, so the figure is good to
 * a few bytes.
 */
static void bench_memory(const struct target *t, bool revokable)
{
	static int fds[MEM_OPENS];
	long long before, after;
	int flags, n, i;

	flags = O_RDWR | (revokable ? O_REVOKABLE : 0);
	fds[0] = open(t->path, flags);
	if (fds[0] < 0) {
		flags = O_RDONLY | (revokable ? O_REVOKABLE : 0);
		fds[0] = open(t->path, flags);
	}
	if (fds[0] >= 0 &&
	    !!(fcntl(fds[0], F_GETFL) & O_REVOKABLE) != revokable) {
		close(fds[0]);
		fds[0] = -1;
	}
	printf("mem\t%s\t%s\t", t->name, revokable ? "revokable" : "plain");
	if (fds[0] < 0) {
		printf("-\n");
		return;
	}
	close(fds[0]);
	usleep(50000);
	before = slab_bytes();
	for (n = 0; n < MEM_OPENS; n++) {
		fds[n] = open(t->path, flags);
		if (fds[n] < 0)
			break;
	}
	after = slab_bytes();
	for (i = 0; i < n; i++)
		close(fds[i]);
	if (n < MEM_OPENS || before < 0 || after < 0)
		printf("-\n");
	else
		printf("%lld\n", (after - before) / MEM_OPENS);
	fflush(stdout);
}

/*
 * One revoke(path) of a tmpfs file with @files revokable opens, while
 * @others other files are open, revokable too: best of a few.
 */
static void bench_revoke(int files, int others)
{
	unsigned long long best = ~0ULL, t;
	int *fds = calloc(files + others, sizeof(int));
	char path[64];
	int run, i;

	for (run = 0; run < 3; run++) {
		for (i = 0; i < others; i++) {
			snprintf(path, sizeof(path), BENCH_DIR "/other.%d", i);
			fds[files + i] = open(path, O_RDWR | O_CREAT | O_REVOKABLE,
					      0600);
		}
		for (i = 0; i < files; i++)
			fds[i] = open(BENCH_DIR "/file", O_RDWR | O_REVOKABLE);
		if (fds[0] < 0 || !(fcntl(fds[0], F_GETFL) & O_REVOKABLE))
			break;
		t = now();
		revoke_path(BENCH_DIR "/file");
		t = now() - t - timer;
		if (t < best)
			best = t;
		for (i = 0; i < files + others; i++)
			close(fds[i]);
	}
	printf("revoke\t%d open files of the inode, %d of others\t", files,
	       others);
	if (best == ~0ULL)
		printf("-\n");
	else
		printf("%llu\n", best);
	fflush(stdout);
	free(fds);
}

/*
 * A pty whose slave is raw, so that a byte written to the master is a
 * byte to read: the slave held open keeps its settings for the opens to
 * come, through the link BENCH_DIR/pty.
 */
static int open_pty(void)
{
	struct termios t;
	char name[64];
	int slave;

	pty_master = posix_openpt(O_RDWR | O_NOCTTY);
	if (pty_master < 0 || grantpt(pty_master) || unlockpt(pty_master) ||
	    ptsname_r(pty_master, name, sizeof(name)))
		return -1;
	slave = open(name, O_RDWR | O_NOCTTY);
	if (slave < 0 || tcgetattr(slave, &t))
		return -1;
	cfmakeraw(&t);
	if (tcsetattr(slave, TCSANOW, &t))
		return -1;
	return symlink(name, BENCH_DIR "/pty");
}

int main(int argc, char **argv)
{
	struct rlimit nofile = { 8192, 8192 };
	unsigned int i;
	int fd;

	setrlimit(RLIMIT_NOFILE, &nofile);
	timer = fewest(NULL, LOOPS, op_none, NULL, NULL);
	printf("timer\t%lld\n", timer);
	mkdir(BENCH_DIR, 0700);
	if (mount("bench", BENCH_DIR, "tmpfs", MS_NOATIME, NULL))
		fprintf(stderr, "revoke_bench: no tmpfs of its own: %m\n");
	mkfifo(BENCH_DIR "/fifo", 0600);
	if (open_pty() < 0)
		return 1;
	fd = open(BENCH_DIR "/file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, page, sizeof(page)) != sizeof(page))
		return 1;
	close(fd);

	if (argc >= 3 && !strcmp(argv[1], "--trace")) {
		trace_op = argv[2];
		trace_files = argv + 3;
		trace_nr_files = argc - 3;
	}
	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		bench_target(&targets[i], false);
		bench_target(&targets[i], true);
	}
	if (trace_op)
		return 0;
	bench_revoke(1, 0);
	bench_revoke(10, 0);
	bench_revoke(100, 0);
	bench_revoke(1000, 0);
	bench_revoke(1, 1000);
	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		bench_memory(&targets[i], false);
		bench_memory(&targets[i], true);
	}
	return 0;
}
