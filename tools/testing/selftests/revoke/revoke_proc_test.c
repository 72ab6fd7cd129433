// SPDX-License-Identifier: GPL-2.0
/*
 * procfs files, revoked by removal and by revoke(2).  The test device
 * creates /proc/test_revoke/ and removes it with proc_remove() on
 * request; the removal waits for the calls in flight, runs ->proc_release
 * of each open file once, before it returns, wakes the pollers, and new
 * calls fail as they always did: -EIO, -EINVAL for lseek, -ENOTTY for
 * ioctl, and DEFAULT_POLLMASK for poll.  revoke(2) of a /proc path does
 * the same to its open files, and the entry stays.
 * Every /proc file of the kernel opens and reads.
 *
 * REVOKE_RACE_SECONDS (default 1) is how long removals race opens; the
 * kit's debug kernel runs it for a minute.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "revoke.h"
#include "race.h"
#include "read_tree.h"
#include "waiter.h"

#define PIPE	TEST_REVOKE_PROC "pipe"
#define STATE	TEST_REVOKE_PROC "state"
#define SEQ	TEST_REVOKE_PROC "seq"
#define LINK	TEST_REVOKE_PROC "link"

/* What poll gives a file of a removed entry: DEFAULT_POLLMASK. */
#define REMOVED_POLL	(POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)

/*
 * The test device (@ctl), its /proc directory created afresh, and "pipe"
 * open and emptied (@fd).  Afterwards the directory is removed, no call
 * reached the device for a released file and no poller was left on a
 * freed waitqueue; every file opened by the test was released.
 */
FIXTURE(proc) {
	int ctl;
	int fd;
	int open_files;	/* of the device, before the test */
	int releases;
};

FIXTURE_SETUP(proc)
{
	char buf[64];

	self->fd = -1;
	self->open_files = test_revoke_open_files();
	self->ctl = open(TEST_REVOKE_DEV, O_RDWR);
	if (self->ctl < 0 && errno == ENOENT)
		SKIP(return, "no " TEST_REVOKE_DEV " (CONFIG_TEST_REVOKE)");
	ASSERT_GE(self->ctl, 0);
	ASSERT_EQ(ioctl(self->ctl, TEST_REVOKE_PROC_REMOVE), 0);
	ASSERT_EQ(ioctl(self->ctl, TEST_REVOKE_PROC_ADD), 0);
	self->fd = open(PIPE, O_RDWR | O_NONBLOCK);
	ASSERT_GE(self->fd, 0);
	while (read(self->fd, buf, sizeof(buf)) > 0)
		;
	ASSERT_EQ(fcntl(self->fd, F_SETFL, O_RDWR), 0);
	self->releases = test_revoke_param("releases");
}

FIXTURE_TEARDOWN(proc)
{
	if (self->ctl < 0)
		return;
	EXPECT_EQ(ioctl(self->ctl, TEST_REVOKE_PROC_REMOVE), 0);
	if (self->fd >= 0)
		EXPECT_EQ(close(self->fd), 0);
	EXPECT_EQ(close(self->ctl), 0);
	EXPECT_EQ(test_revoke_param("late_calls"), 0);
	EXPECT_EQ(test_revoke_param("pollers_left"), 0);
	EXPECT_EQ(test_revoke_open_files(), self->open_files);
}

static int remove_dir(int ctl)
{
	return ioctl(ctl, TEST_REVOKE_PROC_REMOVE);
}

/* Here w->fd is the test device: the removal itself waits. */
static int wait_remove(struct waiter *w)
{
	return remove_dir(w->fd);
}

/*
 * Calls reach the driver until the removal, then fail as a removed proc
 * entry's always did; the files are released once, by the removal.
 */
TEST_F(proc, calls_then_errors)
{
	int other = open(PIPE, O_RDWR);
	struct pollfd pfd = { .events = REMOVED_POLL | POLLPRI };
	char buf[8] = "";

	ASSERT_GE(other, 0);
	ASSERT_EQ(write(self->fd, "abc", 3), 3);
	EXPECT_EQ(ioctl(other, TEST_REVOKE_READY), 3);
	EXPECT_EQ(lseek(other, 0, SEEK_SET), 0);
	ASSERT_EQ(read(other, buf, sizeof(buf)), 3);
	EXPECT_STREQ(buf, "abc");

	ASSERT_EQ(remove_dir(self->ctl), 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 2);
	EXPECT_EQ(read(self->fd, buf, 1), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(write(self->fd, "x", 1), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(ioctl(self->fd, TEST_REVOKE_READY), -1);
	EXPECT_EQ(errno, ENOTTY);
	EXPECT_EQ(lseek(self->fd, 0, SEEK_SET), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, self->fd, 0),
		  MAP_FAILED);
	EXPECT_EQ(errno, EIO);
	pfd.fd = self->fd;
	EXPECT_EQ(poll(&pfd, 1, 0), 1);
	EXPECT_EQ(pfd.revents, REMOVED_POLL);
	EXPECT_EQ(open(PIPE, O_RDWR), -1);
	EXPECT_EQ(errno, ENOENT);
	EXPECT_EQ(close(other), 0);
	/* closing does not release again */
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 2);
}

/*
 * The entry has ->proc_read and ->proc_write only: io_submit() refuses it
 * with EINVAL, as it always did (libaio users fall back to a thread on
 * that), before the removal and after.
 */
TEST_F(proc, aio_refuses_legacy_methods)
{
	const long refused = -3000 - EINVAL;	/* see aio_one() */
	char buf[8] = "";

	EXPECT_EQ(aio_one(self->fd, IOCB_CMD_PWRITE, "abc", 3), refused);
	EXPECT_EQ(aio_one(self->fd, IOCB_CMD_PREAD, buf, sizeof(buf)), refused);
	ASSERT_EQ(remove_dir(self->ctl), 0);
	EXPECT_EQ(aio_one(self->fd, IOCB_CMD_PREAD, buf, sizeof(buf)), refused);
	EXPECT_EQ(aio_one(self->fd, IOCB_CMD_PWRITE, "abc", 3), refused);
}

/*
 * revoke(2) waits for a reader asleep in the driver (procfs kicks no
 * call); killed meanwhile, it revokes nothing: the reader gets what is
 * written next, and the file keeps working.
 */
TEST_F(proc, killed_revoke_revokes_nothing)
{
	int other = open(PIPE, O_RDWR);
	struct waiter w;
	pid_t revoker;
	int status;
	char c;

	ASSERT_GE(other, 0);
	waiter_start(&w, self->fd, wait_read);
	usleep(100000);
	revoker = fork();
	ASSERT_GE(revoker, 0);
	if (revoker == 0)
		_exit(revoke_path(PIPE) ? errno : 0);
	usleep(200000);
	EXPECT_EQ(waitpid(revoker, &status, WNOHANG), 0);
	ASSERT_EQ(kill(revoker, SIGKILL), 0);
	ASSERT_EQ(waitpid(revoker, &status, 0), revoker);
	EXPECT_TRUE(WIFSIGNALED(status));

	ASSERT_EQ(write(other, "k", 1), 1);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, 1);
	EXPECT_EQ(test_revoke_param("releases"), self->releases);
	ASSERT_EQ(write(other, "l", 1), 1);
	ASSERT_EQ(read(self->fd, &c, 1), 1);
	EXPECT_EQ(c, 'l');
	EXPECT_EQ(close(other), 0);
}

static int wait_select(struct waiter *w)
{
	fd_set rfds, efds;
	int ret;

	FD_ZERO(&rfds);
	FD_ZERO(&efds);
	FD_SET(w->fd, &rfds);
	FD_SET(w->fd, &efds);
	ret = select(w->fd + 1, &rfds, NULL, &efds, NULL);
	w->events = (FD_ISSET(w->fd, &rfds) ? POLLIN : 0) |
		    (FD_ISSET(w->fd, &efds) ? POLLPRI : 0);
	return ret;
}

/*
 * Pollers through poll(), select() and epoll, waiting for input, are
 * woken by the removal and see the file readable, as DEFAULT_POLLMASK
 * says; none is left on the driver's waitqueue, which ->release frees.
 */
TEST_F(proc, pollers)
{
	struct waiter p, s, e;

	waiter_start(&p, self->fd, wait_poll);
	waiter_start(&s, self->fd, wait_select);
	waiter_start(&e, self->fd, wait_epoll_in);
	ASSERT_EQ(remove_dir(self->ctl), 0);
	ASSERT_TRUE(waiter_done(&p));
	ASSERT_TRUE(waiter_done(&s));
	ASSERT_TRUE(waiter_done(&e));
	EXPECT_EQ(p.ret, 1);
	EXPECT_EQ(p.events, POLLIN);
	EXPECT_EQ(s.ret, 1);
	EXPECT_EQ(s.events, POLLIN);
	EXPECT_EQ(e.ret, 1);
	EXPECT_EQ(e.events, EPOLLIN);
	EXPECT_EQ(test_revoke_param("pollers_left"), 0);
}

/* Writes and reads in a loop until one fails; its errno. */
static int wait_write_loop(struct waiter *w)
{
	char c;

	for (;;) {
		if (write(w->fd, "w", 1) < 0)
			return errno;
		if (read(w->fd, &c, 1) < 0)
			return errno;
	}
}

/* Writers and readers busy in the driver: each stops with -EIO. */
TEST_F(proc, writers)
{
	struct waiter w[3];
	int i;

	for (i = 0; i < 3; i++)
		waiter_start(&w[i], self->fd, wait_write_loop);
	ASSERT_EQ(remove_dir(self->ctl), 0);
	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(waiter_done(&w[i]));
		EXPECT_EQ(w[i].ret, EIO);
	}
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 1);
}

/* The removal waits for a call in flight that does not wake for it. */
TEST_F(proc, removal_waits_for_call)
{
	struct waiter call, remover;

	waiter_start(&call, self->fd, wait_block);
	waiter_start(&remover, self->ctl, wait_remove);
	EXPECT_FALSE(waiter_done(&remover));
	EXPECT_EQ(test_revoke_param("releases"), self->releases);
	/* The entry is gone already. */
	EXPECT_EQ(access(PIPE, F_OK), -1);
	EXPECT_EQ(errno, ENOENT);

	ASSERT_EQ(ioctl(self->ctl, TEST_REVOKE_UNBLOCK), 0);
	ASSERT_TRUE(waiter_done(&call));
	EXPECT_EQ(call.ret, 0);
	ASSERT_TRUE(waiter_done(&remover));
	EXPECT_EQ(remover.ret, 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 1);
}

/*
 * proc_create_single() and proc_create_seq() files, ->proc_read_iter:
 * read, readv and splice, then -EIO, splice too.
 */
TEST_F(proc, seq_files)
{
	int state = open(STATE, O_RDONLY);
	int seq = open(SEQ, O_RDONLY);
	char a[8] = "", b[64] = "", buf[64] = "";
	struct iovec iov[2] = {
		{ .iov_base = a, .iov_len = 6 },
		{ .iov_base = b, .iov_len = sizeof(b) - 1 },
	};
	size_t total = 0;
	int pipefd[2];
	ssize_t n;

	ASSERT_GE(state, 0);
	ASSERT_GE(seq, 0);
	ASSERT_GT(readv(state, iov, 2), 6);
	EXPECT_STREQ(a, "opens ");

	ASSERT_EQ(pipe(pipefd), 0);
	ASSERT_GT(splice(state, &(loff_t){0}, pipefd[1], NULL, 64, 0), 6);
	ASSERT_GT(read(pipefd[0], buf, sizeof(buf) - 1), 6);
	EXPECT_EQ(strncmp(buf, "opens ", 6), 0);

	/* "0\n" to "999\n": 3890 bytes, read 64 at a time. */
	while ((n = read(seq, buf, sizeof(buf))) > 0)
		total += n;
	EXPECT_EQ(n, 0);
	EXPECT_EQ(total, 3890);
	EXPECT_EQ(lseek(seq, 0, SEEK_SET), 0);
	ASSERT_EQ(read(seq, buf, 2), 2);

	ASSERT_EQ(remove_dir(self->ctl), 0);
	EXPECT_EQ(read(state, buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(splice(state, &(loff_t){0}, pipefd[1], NULL, 64, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(read(seq, buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(lseek(seq, 0, SEEK_SET), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(close(state), 0);
	EXPECT_EQ(close(seq), 0);
	EXPECT_EQ(close(pipefd[0]), 0);
	EXPECT_EQ(close(pipefd[1]), 0);
}

/*
 * ->proc_mmap is called; the removal zaps the mapping, and its faults
 * raise SIGBUS without reaching the driver (the fixture counts late
 * calls).
 */
TEST_F(proc, mmap)
{
	char *p = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		       MAP_SHARED, self->fd, 0);

	ASSERT_NE(p, MAP_FAILED);
	p[0] = 'p';
	EXPECT_EQ(touch_signal(p), 0);
	ASSERT_EQ(remove_dir(self->ctl), 0);
	EXPECT_EQ(touch_signal(p), SIGBUS);
	EXPECT_EQ(munmap(p, getpagesize()), 0);
}

/*
 * revoke(2) on a /proc entry's path revokes the files opened plainly; the
 * entry stays, and opens afresh.
 */
TEST_F(proc, revoke_path)
{
	int other = open(PIPE, O_RDWR);
	char c;

	ASSERT_GE(other, 0);
	ASSERT_EQ(revoke_path(PIPE), 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 2);
	EXPECT_EQ(read(self->fd, &c, 1), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(write(other, "x", 1), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(close(other), 0);

	other = open(PIPE, O_RDWR);
	ASSERT_GE(other, 0);
	ASSERT_EQ(write(other, "y", 1), 1);
	ASSERT_EQ(read(other, &c, 1), 1);
	EXPECT_EQ(c, 'y');
	EXPECT_EQ(close(other), 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 3);
}

/*
 * A /proc entry's files are revoked all together, by path: O_REVOKABLE
 * is refused, and so is revoke(2) of one file (REVOKE_FILE), which would
 * hold back the calls of everyone's files of the entry; the file works.
 */
TEST_F(proc, one_file_is_not_revoked)
{
	char c;

	EXPECT_EQ(open(PIPE, O_RDWR | O_REVOKABLE), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	EXPECT_EQ(revoke_fd(self->fd), -1);
	EXPECT_EQ(errno, EINVAL);
	ASSERT_EQ(write(self->fd, "z", 1), 1);
	ASSERT_EQ(read(self->fd, &c, 1), 1);
	EXPECT_EQ(c, 'z');
	EXPECT_EQ(test_revoke_param("releases"), self->releases);
}

/*
 * An open through a descriptor of the removed entry (/proc/self/fd/N of
 * an O_PATH one), which no lookup revalidates, fails as an open by name
 * does, without reaching the proc_ops.
 */
TEST_F(proc, reopen_after_removal)
{
	int path_fd = open(PIPE, O_PATH);
	char name[64];

	ASSERT_GE(path_fd, 0);
	ASSERT_EQ(remove_dir(self->ctl), 0);
	snprintf(name, sizeof(name), "/proc/self/fd/%d", path_fd);
	EXPECT_EQ(open(name, O_RDWR), -1);
	EXPECT_EQ(errno, ENOENT);
	EXPECT_EQ(close(path_fd), 0);
}

/* A symlink entry reads until its removal, then fails with EINVAL. */
TEST_F(proc, symlink)
{
	int fd = open(LINK, O_PATH | O_NOFOLLOW);
	char buf[16] = "";

	ASSERT_GE(fd, 0);
	ASSERT_EQ(readlinkat(fd, "", buf, sizeof(buf) - 1), 4);
	EXPECT_STREQ(buf, "pipe");
	ASSERT_EQ(remove_dir(self->ctl), 0);
	EXPECT_EQ(readlinkat(fd, "", buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(close(fd), 0);
}

/* Opens "pipe" and "seq", calls them and closes them, until told to stop. */
static void *open_loop(void *arg)
{
	struct race *r = arg;
	char buf[16];
	int fd;

	while (!race_stopped(r)) {
		fd = open(PIPE, O_RDWR | O_NONBLOCK);
		if (fd >= 0) {
			race_opened(r);
			read(fd, buf, 1);
			ioctl(fd, TEST_REVOKE_READY);
			close(fd);
		}
		fd = open(SEQ, O_RDONLY);
		if (fd >= 0) {
			read(fd, buf, sizeof(buf));
			close(fd);
		}
	}
	return NULL;
}

static int remove_add(struct race *r)
{
	return remove_dir(r->ctl) ?: ioctl(r->ctl, TEST_REVOKE_PROC_ADD);
}

/*
 * Removals racing opens, calls and closes from three threads (race.h):
 * the fixture then finds no call for a released file, and every open
 * released once.
 */
TEST_F_TIMEOUT(proc, removal_races_opens, 150)
{
	struct race r = { .ctl = self->ctl };

	ASSERT_EQ(race_removals(&r, open_loop, remove_add), 0);
	TH_LOG("%d removals, %d opens in %ld s", r.rounds, r.opened, r.seconds);
	EXPECT_GT(r.opened, 0);
}

FIXTURE(tree) {};
FIXTURE_SETUP(tree) {}
FIXTURE_TEARDOWN(tree) {}

/*
 * Every readable file under /proc, read once, the test device's too: on
 * the debug kernel, KASAN and lockdep watch each open, read and release.
 */
TEST_F_TIMEOUT(tree, read_every_proc_file, 300)
{
	int files = read_tree_with_device("/proc", TEST_REVOKE_PROC_ADD,
					  TEST_REVOKE_PROC_REMOVE);

	TH_LOG("%d files read", files);
	EXPECT_GT(files, 100);
}

/*
 * /proc/kpageflags copies its 8-byte entries out a batch at a time: one
 * 4 KiB read gives what 512 reads of an entry give, and so does a readv()
 * whose segments split entries.  The flags of the first 2 MiB of memory
 * seldom change, but may (a page taken or freed meanwhile): the reads are
 * made again, up to ten times, until 4 KiB reads before and after them
 * agree.
 */
TEST_F(tree, kpageflags_batches)
{
	static unsigned char whole[4096], one[4096], split[4096], after[4096];
	struct iovec iov[3] = {
		{ split, 3 }, { split + 3, 5 }, { split + 8, 4088 },
	};
	int fd = open("/proc/kpageflags", O_RDONLY);
	int i, try;

	if (fd < 0)
		SKIP(return, "no /proc/kpageflags: %s", strerror(errno));
	for (try = 0; try < 10; try++) {
		ASSERT_EQ(pread(fd, whole, sizeof(whole), 0), sizeof(whole));
		for (i = 0; i < sizeof(one); i += 8)
			ASSERT_EQ(pread(fd, one + i, 8, i), 8);
		ASSERT_EQ(preadv(fd, iov, 3, 0), sizeof(split));
		ASSERT_EQ(pread(fd, after, sizeof(after), 0), sizeof(after));
		if (!memcmp(whole, after, sizeof(after)))
			break;
	}
	EXPECT_EQ(memcmp(whole, one, sizeof(one)), 0);
	EXPECT_EQ(memcmp(whole, split, sizeof(split)), 0);
	EXPECT_EQ(close(fd), 0);
}

/*
 * A fault in the middle of a read of /proc/kpagecount fails it with
 * EFAULT after the entries before the fault were copied, as put_user()
 * copied them one at a time; read(2) leaves the position on an error.
 */
TEST_F(tree, kpagecount_fault)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = open("/proc/kpagecount", O_RDONLY);
	unsigned long long first[2];
	char *buf;

	if (fd < 0)
		SKIP(return, "no /proc/kpagecount: %s", strerror(errno));
	ASSERT_EQ(pread(fd, first, sizeof(first), 0), sizeof(first));
	buf = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(buf, MAP_FAILED);
	ASSERT_EQ(munmap(buf + page, page), 0);
	memset(buf + page - 16, 0xff, 16);
	EXPECT_EQ(read(fd, buf + page - 16, 64), -1);
	EXPECT_EQ(errno, EFAULT);
	EXPECT_EQ(memcmp(buf + page - 16, first, 16), 0);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 0);
	EXPECT_EQ(munmap(buf, page), 0);
	EXPECT_EQ(close(fd), 0);
}

TEST_HARNESS_MAIN
