// SPDX-License-Identifier: GPL-2.0
/*
 * A file that read(2) reads must read by every other read call too:
 * readv(2) and preadv2(2) with two segments, pread(2), splice(2) into a
 * pipe and sendfile(2) into a pipe.  A file with only the legacy ->read
 * method has no ->splice_read, so splice and sendfile give -EINVAL; the
 * kernel moves such files onto ->read_iter, and this test finds the ones
 * left behind.
 *
 * Each readable regular file under /proc (all of it but other processes'
 * directories), /proc/self (with net/ and task/), /sys and debugfs
 * (mounted if it is not) is read once by read(2), up to 64 KiB,
 * and then once by each of the other calls, each on a fresh descriptor,
 * for the same amount.  A file read(2) cannot read is skipped.  A call
 * that fails with EINVAL fails the file ("# FAIL <path>: <call>: EINVAL");
 * other errors are information only ("# info ...").  A short list of files
 * whose contents do not change between two opens is read to the end (or
 * 64 KiB) by each call, and must give read(2)'s bytes.
 *
 * Every call is cut short by a SIGALRM after a second, and each tree has a
 * time budget, READ_VARIANTS_SECONDS (default 30), after which its walk
 * stops, so that the test takes seconds on QEMU TCG.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../../kselftest_harness.h"

#define READ_SIZE	65536
#define DEBUGFS		"/sys/kernel/debug"
#define DEBUGFS_MAGIC	0x64626720

/*
 * READ is the reference, PREAD the first variant: its ESPIPE tells how the
 * others give the offset.
 */
enum variant { READ, PREAD, READV, PREADV2, SPLICE, SENDFILE, NR_VARIANTS };

static const char * const variant_name[NR_VARIANTS] = {
	[READ]		= "read",
	[PREAD]		= "pread",
	[READV]		= "readv",
	[PREADV2]	= "preadv2",
	[SPLICE]	= "splice",
	[SENDFILE]	= "sendfile",
};

#define V(variant)	(1u << (variant))

/*
 * Files excused from some calls' EINVAL, matched by fnmatch(3) with
 * FNM_PATHNAME, each with the reason read from the file's fops.  Keep it
 * short: an entry hides a file the kernel may still have to convert.
 */
static const struct exception {
	const char *pattern;
	unsigned int variants;
	const char *why;
} exceptions[] = {
	{ NULL }
};

/*
 * Files not read at all, for what reading them does; each read of the
 * walk is made six times.
 */
static const char * const not_read[] = {
	/* takes the kernel log from its other readers (syslog(2)) */
	"/proc/kmsg",
	/* hot_add_show() creates a zram device for each read */
	"/sys/class/zram-control/hot_add",
	NULL
};

/*
 * Files whose contents are the same for every open in this process, so
 * every call must give read(2)'s bytes.  /proc/self/maps is stable only
 * because nothing is mapped or allocated between the reads of one file:
 * the buffers are static and the pipe is made before the walk.
 */
static const char * const stable_files[] = {
	"/proc/version",
	"/proc/cmdline",
	"/proc/filesystems",
	"/proc/self/cmdline",
	"/proc/self/environ",
	"/proc/self/auxv",
	"/proc/self/comm",
	"/proc/self/loginuid",
	"/proc/self/sessionid",
	"/proc/self/personality",
	"/proc/self/limits",
	"/proc/self/maps",
	"/proc/bus/pci/*/*",
	"/proc/irq/default_smp_affinity",
	"/proc/self/task/*/cmdline",
	"/proc/self/task/*/environ",
	"/proc/self/task/*/auxv",
	"/proc/self/task/*/comm",
	"/proc/self/task/*/maps",
	"/sys/kernel/notes",
	"/sys/kernel/btf/vmlinux",
	"/sys/kernel/fscaps",
	"/sys/devices/system/cpu/possible",
	"/sys/devices/system/cpu/present",
	"/sys/devices/system/cpu/kernel_max",
	"/sys/power/state",
	DEBUGFS "/fault_around_bytes",
	DEBUGFS "/sched/features",
	DEBUGFS "/sched/verbose",
	DEBUGFS "/sched/base_slice_ns",
	DEBUGFS "/sched/migration_cost_ns",
	DEBUGFS "/sched/nr_migrate",
	DEBUGFS "/dynamic_debug/control",
	NULL
};

/* The state of one tree's walk: nftw's callback takes no argument. */
struct walk {
	const char *root;
	const char *alias;	/* for root in the paths printed and matched */
	bool own_pid_only;	/* not the /proc/<pid> of other processes */
	int files;		/* read by read(2), then by the variants */
	int failed;		/* files with an EINVAL or different bytes */
	int skipped;		/* readable by mode, but open or read failed */
	int info;		/* calls failing with another errno */
	int excused;		/* EINVALs excused by exceptions[] */
	bool stopped;		/* the time budget ran out */
	time_t deadline;
	int pipefd[2];
};

static struct walk *walk;

/* Static, so that reading /proc/self/maps does not change it. */
static char expect[READ_SIZE], got[READ_SIZE], scratch[4096];

static void on_alarm(int sig)
{
}

#define E(e)	{ e, #e }
static const struct {
	int err;
	const char *name;
} errno_names[] = {
	E(EINVAL), E(EIO), E(EAGAIN), E(EPERM), E(EACCES), E(ESPIPE),
	E(EOPNOTSUPP), E(ENODEV), E(ENXIO), E(ENOENT), E(EINTR), E(EFAULT),
	E(ENODATA), E(EBUSY), E(ENOMEM), E(EBADF), E(EOVERFLOW), E(ENOTTY),
	E(ETIMEDOUT), E(ENOSPC), E(ESRCH), E(ERANGE), E(E2BIG), E(ENOEXEC),
	E(ENOTCONN), E(EPIPE),
	{ 524, "ENOTSUPP" },	/* the kernel's own, leaked by drivers */
};

#undef E

static const char *errno_name(int err)
{
	static char buf[16];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

static bool match_any(const char * const *patterns, const char *path)
{
	for (; *patterns; patterns++)
		if (!fnmatch(*patterns, path, FNM_PATHNAME))
			return true;
	return false;
}

static const char *excused(const char *path, enum variant v)
{
	const struct exception *e;

	for (e = exceptions; e->pattern; e++)
		if ((e->variants & V(v)) && !fnmatch(e->pattern, path, FNM_PATHNAME))
			return e->why;
	return NULL;
}

/* Reads the @n bytes just put in the pipe to @buf; how many it read. */
static ssize_t drain_pipe(char *buf, ssize_t n)
{
	ssize_t done = 0, r;

	while (done < n) {
		r = read(walk->pipefd[0], buf + done, n - done);
		if (r <= 0)
			break;
		done += r;
	}
	return done;
}

/*
 * One call of @v on @fd, for @len bytes at offset @pos, into @buf.  A
 * file without pread (@seekable false) is read at its position instead:
 * preadv2 with offset -1, splice and sendfile without an offset, which
 * would give ESPIPE or EINVAL for the missing FMODE_PREAD, not for the
 * missing method.
 */
static ssize_t call_variant(int fd, enum variant v, bool seekable, char *buf,
			    size_t len, loff_t pos)
{
	/* 1 byte, then the rest: a segment boundary in almost every file. */
	struct iovec iov[2] = {
		{ .iov_base = buf, .iov_len = 1 },
		{ .iov_base = buf + 1, .iov_len = len - 1 },
	};
	loff_t loff = pos;
	off_t off = pos;
	ssize_t n;

	switch (v) {
	case READ:
		return read(fd, buf, len);
	case PREAD:
		return pread(fd, buf, len, pos);
	case READV:
		return readv(fd, iov, 2);
	case PREADV2:
		return preadv2(fd, iov, 2, seekable ? pos : -1, 0);
	case SPLICE:
		n = splice(fd, seekable ? &loff : NULL, walk->pipefd[1], NULL,
			   len, 0);
		break;
	case SENDFILE:
		n = sendfile(walk->pipefd[1], fd, seekable ? &off : NULL, len);
		break;
	default:
		abort();
	}
	return n > 0 ? drain_pipe(buf, n) : n;
}

/*
 * Reads @path by @v on a fresh descriptor into @buf, within a second: one
 * call for READ_SIZE bytes or, with @whole, calls until end of file or
 * READ_SIZE bytes.  Reading to the end lets a stable file's bytes compare
 * however the calls split them: readv of a legacy ->read makes one ->read
 * per segment, and seq_file returns at most its buffer's worth per call.
 * The bytes read, or -1 with errno if the first call failed, or -2 with
 * errno if the open did.
 */
static ssize_t read_by(const char *path, enum variant v, bool seekable,
		       bool whole, char *buf)
{
	ssize_t n, done = 0;
	int fd, err;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -2;
	alarm(1);
	do {
		n = call_variant(fd, v, seekable, buf + done, READ_SIZE - done,
				 done);
		if (n > 0)
			done += n;
	} while (whole && n > 0 && done < READ_SIZE);
	err = errno;
	alarm(0);
	close(fd);
	/* No bytes may stay behind for the next file: the read end is O_NONBLOCK. */
	while (read(walk->pipefd[0], scratch, sizeof(scratch)) > 0)
		;
	errno = err;
	return done ? done : n;
}

static int check_file(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	bool seekable = true, failed = false, whole;
	static char name[PATH_MAX];
	ssize_t expected, n;
	const char *why;
	int err, v;

	if (time(NULL) > walk->deadline) {
		walk->stopped = true;
		return FTW_STOP;
	}
	if (type == FTW_D) {
		if (walk->own_pid_only && ftw->level == 1 &&
		    strspn(path + ftw->base, "0123456789") ==
		    strlen(path + ftw->base))
			return FTW_SKIP_SUBTREE;
		/* tracefs, automounted there: not debugfs, and blocking reads */
		if (!strcmp(path, DEBUGFS "/tracing"))
			return FTW_SKIP_SUBTREE;
		return FTW_CONTINUE;
	}
	/* No write-only files: read(2) fails for them, or should. */
	if (type != FTW_F || !S_ISREG(st->st_mode) || !(st->st_mode & 0444) ||
	    match_any(not_read, path))
		return FTW_CONTINUE;

	if (walk->alias)
		snprintf(name, sizeof(name), "%s%s", walk->alias,
			 path + strlen(walk->root));
	else
		snprintf(name, sizeof(name), "%s", path);
	whole = match_any(stable_files, name);

	expected = read_by(path, READ, true, whole, expect);
	if (expected < 0) {
		walk->skipped++;
		return FTW_CONTINUE;
	}
	walk->files++;

	for (v = PREAD; v < NR_VARIANTS; v++) {
		n = read_by(path, v, seekable, whole, got);
		err = errno;
		if (n == -2) {
			fprintf(stderr, "# info %s: open for %s: %s\n", name,
				variant_name[v], errno_name(err));
			walk->info++;
		} else if (n < 0 && v == PREAD && err == ESPIPE) {
			/* not FMODE_PREAD: the others read at the position */
			seekable = false;
		} else if (n < 0 && err == EINVAL) {
			why = excused(name, v);
			if (why) {
				fprintf(stderr, "# excused %s: %s: EINVAL: %s\n",
					name, variant_name[v], why);
				walk->excused++;
			} else {
				fprintf(stderr,
					"# FAIL %s: %s: EINVAL, read(2) gave %zd bytes\n",
					name, variant_name[v], expected);
				failed = true;
			}
		} else if (n < 0) {
			fprintf(stderr, "# info %s: %s: %s\n", name,
				variant_name[v], errno_name(err));
			walk->info++;
		} else if (whole && (n != expected || memcmp(got, expect, n))) {
			fprintf(stderr,
				"# FAIL %s: %s: %zd bytes differ from read(2)'s %zd\n",
				name, variant_name[v], n, expected);
			failed = true;
		}
	}
	if (failed)
		walk->failed++;
	return FTW_CONTINUE;
}

/*
 * Walks @w->root with check_file(), within its filesystem, without
 * following symlinks: 0, or -1 with errno if the root cannot be walked.
 */
static int walk_tree(struct walk *w)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	const char *env = getenv("READ_VARIANTS_SECONDS");
	int seconds = env ? atoi(env) : 30;
	struct timespec start, end;
	int ret;

	if (sigaction(SIGALRM, &sa, NULL) || pipe2(w->pipefd, O_CLOEXEC))
		return -1;
	/* Room for a whole READ_SIZE splice, whatever the page size. */
	fcntl(w->pipefd[1], F_SETPIPE_SZ, READ_SIZE);
	fcntl(w->pipefd[0], F_SETFL, O_NONBLOCK);
	w->deadline = time(NULL) + seconds;
	walk = w;

	clock_gettime(CLOCK_MONOTONIC, &start);
	ret = nftw(w->root, check_file, 16,
		   FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL);
	clock_gettime(CLOCK_MONOTONIC, &end);

	close(w->pipefd[0]);
	close(w->pipefd[1]);
	if (ret == -1)
		return -1;
	if (w->stopped)
		fprintf(stderr,
			"# %s: time budget of %d s spent, walk stopped early (READ_VARIANTS_SECONDS)\n",
			w->alias ?: w->root, seconds);
	fprintf(stderr,
		"# %s: %d files, %d failed, %d skipped, %d info, %d excused, %.1f s\n",
		w->alias ?: w->root, w->files, w->failed, w->skipped, w->info, w->excused,
		(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9);
	return 0;
}

FIXTURE(tree) {};
FIXTURE_SETUP(tree) {}
FIXTURE_TEARDOWN(tree) {}

/*
 * All of /proc but the processes' directories, which proc_self reads for
 * one process: kcore, kpage*, version, sys/, tty/, bus/, irq/, ...
 */
TEST_F_TIMEOUT(tree, proc, 60)
{
	struct walk w = { .root = "/proc", .own_pid_only = true };

	ASSERT_EQ(walk_tree(&w), 0);
	EXPECT_GT(w.files, 0);
	EXPECT_EQ(w.failed, 0);
}

/*
 * This process's directory, net/ and task/<tid>/ too.  nftw does not
 * follow the /proc/self symlink (glibc drops a trailing slash), so the
 * walk is of /proc/<pid>, printed and matched as /proc/self.
 */
TEST_F_TIMEOUT(tree, proc_self, 60)
{
	struct walk w = { .alias = "/proc/self" };
	char root[32];

	snprintf(root, sizeof(root), "/proc/%d", getpid());
	w.root = root;

	ASSERT_EQ(walk_tree(&w), 0);
	EXPECT_GT(w.files, 0);
	EXPECT_EQ(w.failed, 0);
}

/* sysfs only: FTW_MOUNT leaves debugfs, tracefs, cgroup, ... out. */
TEST_F_TIMEOUT(tree, sys, 60)
{
	struct walk w = { .root = "/sys" };

	ASSERT_EQ(walk_tree(&w), 0);
	EXPECT_GT(w.files, 0);
	EXPECT_EQ(w.failed, 0);
}

/* debugfs, mounted for the test (and unmounted after) if it is not. */
TEST_F_TIMEOUT(tree, debugfs, 60)
{
	struct walk w = { .root = DEBUGFS };
	bool mounted = false;
	struct statfs sfs;
	int ret;

	if (statfs(DEBUGFS, &sfs) || sfs.f_type != DEBUGFS_MAGIC) {
		if (mount("debugfs", DEBUGFS, "debugfs", 0, NULL))
			SKIP(return, "debugfs not mounted at " DEBUGFS
			     " and mounting it failed: %s", strerror(errno));
		mounted = true;
	}
	ret = walk_tree(&w);
	if (mounted)
		umount2(DEBUGFS, MNT_DETACH);
	ASSERT_EQ(ret, 0);
	EXPECT_EQ(w.failed, 0);
}

TEST_HARNESS_MAIN
