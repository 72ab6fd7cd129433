// SPDX-License-Identifier: GPL-2.0
/*
 * What a revokable file costs, in guest instructions.  Run by 'make bench'
 * (kit/bench) in a QEMU guest started with -icount shift=0,sleep=off, where
 * the guest clock advances one nanosecond per instruction: a loop timed
 * with clock_gettime() gives instructions per operation.  Each row is the
 * best of a few runs, so that a timer interrupt landing in one does not
 * count.  The same binary runs on the base kernel, where O_REVOKABLE and
 * the test device do not exist; those rows print "-".
 *
 * Output, one line per measurement, tab-separated:
 *	op	OPERATION	FILE	plain|revokable	INSTRUCTIONS
 *	revoke	WHAT	INSTRUCTIONS
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "revoke.h"

#define LOOPS	1000	/* operations per run */
#define RUNS	7	/* runs per row; the best counts */

/* A file under test: a path, and whether it reads like a pipe. */
struct target {
	const char *name;
	const char *path;
	bool stream;
};

/*
 * Files whose contents are the same on both kernels: /proc/version, whose
 * banner names the build, would not compare.
 */
static const struct target targets[] = {
	{ "/dev/zero",	"/dev/zero" },
	{ "/dev/null",	"/dev/null" },
	{ "pipe",	"/tmp/bench.fifo", true },
	{ "tmpfs",	"/tmp/bench.file" },
	{ "procfs",	"/proc/cmdline" },
	{ "sysfs",	"/sys/kernel/uevent_seqnum" },
	{ "debugfs",	"/sys/kernel/debug/sched/verbose" },
	{ "test device", TEST_REVOKE_DEV, true },
};

/* What an operation works on. */
struct bench {
	const struct target *t;
	int oflags;
	int fd;
	int pipe[2];		/* splice's other end */
	char buf[4096];
	int fds[LOOPS + 1];	/* what open and close work on */
	int nfds;
};

typedef long (*op_fn)(struct bench *b);

static char page[4096];

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

static long op_open(struct bench *b)
{
	int fd = open(b->t->path, b->oflags);

	if (fd < 0)
		return -1;
	b->fds[b->nfds++] = fd;
	return 0;
}

static long op_close(struct bench *b)
{
	return b->nfds ? close(b->fds[--b->nfds]) : -1;
}

/* Untimed, around the runs of open and close. */
static void open_all(struct bench *b)
{
	while (b->nfds <= LOOPS && op_open(b) == 0)
		;
}

static void close_all(struct bench *b)
{
	while (b->nfds)
		op_close(b);
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

static const struct {
	const char *name;
	op_fn fn;
	int fill;	/* bytes a stream needs per operation */
	void (*setup)(struct bench *b);		/* before each run */
	void (*cleanup)(struct bench *b);	/* after each run */
} ops[] = {
	{ "read 1 B",		op_read1, 1 },
	{ "write 1 B",		op_write1 },
	{ "read 4 KiB",		op_read4k },
	{ "readv 2x1 B",	op_readv2, 2 },
	{ "poll, no wait",	op_poll0 },
	{ "ioctl",		op_ioctl },
	{ "open",		op_open, 0, NULL, close_all },
	{ "close",		op_close, 0, open_all, close_all },
	{ "mmap+munmap",	op_mmap },
	{ "splice 4 KiB",	op_splice },
};

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Keep a stream's buffer as the operation needs it: full enough, or empty. */
static void stream_fill(struct bench *b, int bytes)
{
	while (bytes > 0) {
		int n = bytes < 64 ? bytes : 64;

		if (write(b->fd, page, n) != n)
			return;
		bytes -= n;
	}
}

static void stream_drain(struct bench *b)
{
	int fl = fcntl(b->fd, F_GETFL);

	fcntl(b->fd, F_SETFL, fl | O_NONBLOCK);
	while (read(b->fd, b->buf, sizeof(b->buf)) > 0)
		;
	fcntl(b->fd, F_SETFL, fl);
}

/* Instructions per operation, or a negative number if it does not apply. */
static double measure(struct bench *b, int i)
{
	unsigned long long best = ~0ULL, t;
	int run, n;
	bool ok;

	if (b->t->stream)
		stream_fill(b, ops[i].fill);
	if (ops[i].setup)
		ops[i].setup(b);
	ok = ops[i].fn(b) >= 0;
	if (ops[i].cleanup)
		ops[i].cleanup(b);
	if (!ok)
		return -1;
	for (run = 0; run < RUNS; run++) {
		if (b->t->stream) {
			stream_drain(b);
			stream_fill(b, ops[i].fill * LOOPS);
		}
		if (ops[i].setup)
			ops[i].setup(b);
		t = now();
		for (n = 0; n < LOOPS; n++)
			ops[i].fn(b);
		t = now() - t;
		if (ops[i].cleanup)
			ops[i].cleanup(b);
		if (t < best)
			best = t;
	}
	if (b->t->stream)
		stream_drain(b);
	return (double)best / LOOPS;
}

static void bench_target(const struct target *t, bool revokable)
{
	struct bench *b = calloc(1, sizeof(*b));
	int i;

	b->t = t;
	b->oflags = O_RDWR | (revokable ? O_REVOKABLE : 0);
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
		double v = b->fd < 0 ? -1 : measure(b, i);

		printf("op\t%s\t%s\t%s\t", ops[i].name, t->name,
		       revokable ? "revokable" : "plain");
		if (v < 0)
			printf("-\n");
		else
			printf("%.1f\n", v);
	}
	fflush(stdout);
	if (b->fd >= 0)
		close(b->fd);
	close(b->pipe[0]);
	close(b->pipe[1]);
	free(b);
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
			snprintf(path, sizeof(path), "/tmp/bench.other.%d", i);
			fds[files + i] = open(path, O_RDWR | O_CREAT | O_REVOKABLE,
					      0600);
		}
		for (i = 0; i < files; i++)
			fds[i] = open("/tmp/bench.file", O_RDWR | O_REVOKABLE);
		if (fds[0] < 0 || !(fcntl(fds[0], F_GETFL) & O_REVOKABLE))
			break;
		t = now();
		revoke_path("/tmp/bench.file");
		t = now() - t;
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

int main(void)
{
	struct rlimit nofile = { 4096, 4096 };
	unsigned int i;
	int fd;

	setrlimit(RLIMIT_NOFILE, &nofile);
	mkfifo("/tmp/bench.fifo", 0600);
	fd = open("/tmp/bench.file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, page, sizeof(page)) != sizeof(page))
		return 1;
	close(fd);

	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		bench_target(&targets[i], false);
		bench_target(&targets[i], true);
	}
	bench_revoke(1, 0);
	bench_revoke(10, 0);
	bench_revoke(100, 0);
	bench_revoke(1000, 0);
	bench_revoke(1, 1000);
	return 0;
}
