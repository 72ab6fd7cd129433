// SPDX-License-Identifier: GPL-2.0
/*
 * The open files of removed and revoked debugfs files.  The test device
 * creates /sys/kernel/debug/test_revoke/ and removes it on request:
 * calls in flight are waited for, or cancelled, new ones fail with -EIO,
 * pollers are woken, and each ->release runs once, at the file's last
 * close, as in 6.12.  revoke(2) of the path of a debugfs_create_file()
 * file releases its open files early without removing it.  The files have
 * their driver's read methods (->read_iter, spliced), not its ->mmap.
 * Every debugfs file of the kernel opens and reads.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "revoke.h"
#include "race.h"
#include "read_tree.h"
#include "waiter.h"

#define PIPE	TEST_REVOKE_DEBUGFS "pipe"
#define STATE	TEST_REVOKE_DEBUGFS "state"
#define VALUE	TEST_REVOKE_DEBUGFS "value"
#define REMOVE	TEST_REVOKE_DEBUGFS "remove"

/*
 * The test device (@ctl), its debugfs directory created afresh, and
 * "pipe" open and emptied (@fd).  Afterwards the directory is removed, no
 * call reached the device for a released file and no poller was left on
 * a freed waitqueue; every file opened by the test was released.
 */
FIXTURE(debugfs) {
	int ctl;
	int fd;
	int open_files;	/* of the device, before the test */
	int opens;
	int releases;
};

FIXTURE_SETUP(debugfs)
{
	char buf[64];

	self->fd = -1;
	self->open_files = test_revoke_open_files();
	self->ctl = open(TEST_REVOKE_DEV, O_RDWR);
	if (self->ctl < 0 && errno == ENOENT)
		SKIP(return, "no " TEST_REVOKE_DEV " (CONFIG_TEST_REVOKE)");
	ASSERT_GE(self->ctl, 0);
	ASSERT_EQ(ioctl(self->ctl, TEST_REVOKE_DEBUGFS_REMOVE), 0);
	ASSERT_EQ(ioctl(self->ctl, TEST_REVOKE_DEBUGFS_ADD), 0);
	self->fd = open(PIPE, O_RDWR | O_NONBLOCK);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, "no " PIPE " (CONFIG_DEBUG_FS, debugfs mounted)");
	ASSERT_GE(self->fd, 0);
	while (read(self->fd, buf, sizeof(buf)) > 0)
		;
	ASSERT_EQ(fcntl(self->fd, F_SETFL, O_RDWR), 0);
	self->opens = test_revoke_param("opens");
	self->releases = test_revoke_param("releases");
}

FIXTURE_TEARDOWN(debugfs)
{
	if (self->ctl < 0)
		return;
	EXPECT_EQ(ioctl(self->ctl, TEST_REVOKE_DEBUGFS_REMOVE), 0);
	if (self->fd >= 0)
		EXPECT_EQ(close(self->fd), 0);
	EXPECT_EQ(close(self->ctl), 0);
	EXPECT_EQ(test_revoke_param("late_calls"), 0);
	EXPECT_EQ(test_revoke_param("pollers_left"), 0);
	EXPECT_EQ(test_revoke_open_files(), self->open_files);
}

static int remove_dir(int ctl)
{
	return ioctl(ctl, TEST_REVOKE_DEBUGFS_REMOVE);
}

/* Here w->fd is the test device: the removal itself waits. */
static int wait_remove(struct waiter *w)
{
	return remove_dir(w->fd);
}

/* Reads, writes, ioctls and seeks reach the driver until the removal. */
TEST_F(debugfs, calls_then_eio)
{
	int other = open(PIPE, O_RDWR);
	char buf[8] = "";

	ASSERT_GE(other, 0);
	ASSERT_EQ(write(self->fd, "abc", 3), 3);
	EXPECT_EQ(ioctl(other, TEST_REVOKE_READY), 3);
	EXPECT_EQ(lseek(other, 0, SEEK_SET), 0);
	ASSERT_EQ(read(other, buf, sizeof(buf)), 3);
	EXPECT_STREQ(buf, "abc");

	ASSERT_EQ(remove_dir(self->ctl), 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases);
	EXPECT_EQ(read(self->fd, buf, 1), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(write(self->fd, "x", 1), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(ioctl(self->fd, TEST_REVOKE_READY), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(lseek(self->fd, 0, SEEK_SET), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(open(PIPE, O_RDWR), -1);
	EXPECT_EQ(errno, ENOENT);
	/* the last close releases, as it always did */
	EXPECT_EQ(close(other), 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 1);
}

/* A poller is woken, and sees the file hung up. */
TEST_F(debugfs, poller)
{
	struct waiter w;

	waiter_start(&w, self->fd, wait_poll);
	ASSERT_EQ(remove_dir(self->ctl), 0);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, 1);
	EXPECT_TRUE(w.events & POLLHUP);
	EXPECT_TRUE(w.events & POLLERR);
	EXPECT_EQ(test_revoke_param("pollers_left"), 0);
}

/* debugfs_enter_cancellation(): the removal cuts the call short. */
TEST_F(debugfs, cancellation)
{
	struct waiter w;

	waiter_start(&w, self->fd, wait_cancel);
	ASSERT_EQ(remove_dir(self->ctl), 0);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, -1);
	EXPECT_EQ(w.err, ECANCELED);
	EXPECT_EQ(test_revoke_param("releases"), self->releases);
}

/* The removal waits for a call in flight that does not wake for it. */
TEST_F(debugfs, removal_waits_for_call)
{
	struct waiter call, remover;

	waiter_start(&call, self->fd, wait_block);
	waiter_start(&remover, self->ctl, wait_remove);
	EXPECT_FALSE(waiter_done(&remover));
	EXPECT_EQ(test_revoke_param("releases"), self->releases);
	/* The file is gone already, and its directory not locked. */
	EXPECT_EQ(access(PIPE, F_OK), -1);
	EXPECT_EQ(errno, ENOENT);

	ASSERT_EQ(ioctl(self->ctl, TEST_REVOKE_UNBLOCK), 0);
	ASSERT_TRUE(waiter_done(&call));
	EXPECT_EQ(call.ret, 0);
	ASSERT_TRUE(waiter_done(&remover));
	EXPECT_EQ(remover.ret, 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases);
}

/*
 * A seq_file with ->read_iter and ->splice_read only, which debugfs'
 * former proxy did not forward, and a DEFINE_DEBUGFS_ATTRIBUTE file made
 * with debugfs_create_file_unsafe(): both read, then -EIO.
 */
TEST_F(debugfs, read_iter_and_attribute)
{
	int state = open(STATE, O_RDONLY);
	int value = open(VALUE, O_RDONLY);
	char a[8] = "", b[64] = "", buf[64] = "";
	struct iovec iov[2] = {
		{ .iov_base = a, .iov_len = 6 },
		{ .iov_base = b, .iov_len = sizeof(b) - 1 },
	};
	int pipefd[2];

	ASSERT_GE(state, 0);
	ASSERT_GE(value, 0);
	ASSERT_GT(readv(state, iov, 2), 6);
	EXPECT_STREQ(a, "opens ");
	EXPECT_EQ(atoi(b), self->opens);

	ASSERT_EQ(pipe(pipefd), 0);
	ASSERT_GT(splice(state, &(loff_t){0}, pipefd[1], NULL, 64, 0), 6);
	ASSERT_GT(read(pipefd[0], buf, sizeof(buf) - 1), 6);
	EXPECT_EQ(strncmp(buf, "opens ", 6), 0);

	memset(buf, 0, sizeof(buf));
	ASSERT_GT(read(value, buf, sizeof(buf) - 1), 0);
	EXPECT_EQ(atoi(buf), self->opens);

	ASSERT_EQ(remove_dir(self->ctl), 0);
	EXPECT_EQ(read(state, buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(splice(state, &(loff_t){0}, pipefd[1], NULL, 64, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(read(value, buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(close(state), 0);
	EXPECT_EQ(close(value), 0);
	EXPECT_EQ(close(pipefd[0]), 0);
	EXPECT_EQ(close(pipefd[1]), 0);
}

/*
 * debugfs' proxy has no ->mmap, as before: a removed file's mappings need
 * no zapping.
 */
TEST_F(debugfs, no_mmap)
{
	EXPECT_EQ(mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, self->fd, 0),
		  MAP_FAILED);
	EXPECT_EQ(errno, ENODEV);
}

/* Opens "pipe", calls it and closes it, until told to stop. */
static void *open_loop(void *arg)
{
	struct race *r = arg;
	char c;
	int fd;

	while (!race_stopped(r)) {
		fd = open(PIPE, O_RDWR | O_NONBLOCK);
		if (fd < 0)
			continue;	/* between a removal and the next add */
		race_opened(r);
		read(fd, &c, 1);
		ioctl(fd, TEST_REVOKE_READY);
		close(fd);
	}
	return NULL;
}

static int remove_add(struct race *r)
{
	return remove_dir(r->ctl) ?: ioctl(r->ctl, TEST_REVOKE_DEBUGFS_ADD);
}

/*
 * Removals racing with opens, calls and closes from three threads
 * (race.h): the fixture then finds no call for a released file, and every
 * open released once.
 */
TEST_F_TIMEOUT(debugfs, removal_races_opens, 150)
{
	struct race r = { .ctl = self->ctl };

	ASSERT_EQ(race_removals(&r, open_loop, remove_add), 0);
	TH_LOG("%d removals, %d opens in %ld s", r.rounds, r.opened, r.seconds);
	EXPECT_GE(r.rounds, 20);
	EXPECT_GT(r.opened, r.rounds);
}

/*
 * revoke(2) on a debugfs path revokes its open files; the file stays, and
 * opens afresh.  Not one open file alone, nor one opened O_REVOKABLE: the
 * gate is the file's.
 */
TEST_F(debugfs, revoke_path)
{
	int other = open(PIPE, O_RDWR);
	char c;

	ASSERT_GE(other, 0);
	EXPECT_EQ(revoke_fd(other), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(open(PIPE, O_RDWR | O_REVOKABLE), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
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
 * The open files of a debugfs_create_file_unsafe() file have their
 * driver's methods, which the proxy does not gate: revoke(2) passes them
 * by.
 */
TEST_F(debugfs, unsafe_file_is_not_revoked)
{
	int value = open(VALUE, O_RDONLY);
	char buf[32] = "";

	ASSERT_GE(value, 0);
	EXPECT_EQ(revoke_path(VALUE), 0);
	EXPECT_GT(read(value, buf, sizeof(buf) - 1), 0);
	EXPECT_EQ(close(value), 0);
}

static int wait_block_pipe(struct waiter *w)
{
	return ioctl(w->fd, TEST_REVOKE_BLOCK);
}

static int wait_revoke_pipe(struct waiter *w)
{
	return revoke_path(PIPE);
}

/*
 * revoke(2) of "pipe" and the removal of its directory together, while
 * two calls of two files of it block: both wait for both calls, one of
 * them killed, the other let go; revoke(2) then releases both files,
 * which no call reaches after it.
 */
TEST_F(debugfs, revoke_and_removal_wait_for_calls)
{
	struct waiter second, revoker, remover;
	int other = open(PIPE, O_RDWR);
	int status;
	pid_t first;
	char c;

	ASSERT_GE(other, 0);
	first = fork();
	ASSERT_GE(first, 0);
	if (!first)
		_exit(ioctl(self->fd, TEST_REVOKE_BLOCK) ? 1 : 0);
	usleep(200000);
	waiter_start(&second, other, wait_block_pipe);
	waiter_start(&revoker, self->fd, wait_revoke_pipe);
	waiter_start(&remover, self->ctl, wait_remove);
	EXPECT_FALSE(waiter_done(&remover));

	/* The first call goes; the second is still in the driver. */
	ASSERT_EQ(kill(first, SIGKILL), 0);
	ASSERT_EQ(waitpid(first, &status, 0), first);
	EXPECT_FALSE(waiter_done(&remover));
	EXPECT_FALSE(waiter_done(&revoker));

	ASSERT_EQ(ioctl(self->ctl, TEST_REVOKE_UNBLOCK), 0);
	ASSERT_TRUE(waiter_done(&second));
	ASSERT_TRUE(waiter_done(&remover));
	EXPECT_EQ(remover.ret, 0);
	ASSERT_TRUE(waiter_done(&revoker));
	EXPECT_EQ(revoker.ret, 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 2);
	EXPECT_EQ(read(other, &c, 1), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(close(other), 0);
}

FIXTURE(tree) {};
FIXTURE_SETUP(tree) {}
FIXTURE_TEARDOWN(tree) {}

/*
 * Every file of the kernel's debugfs, read once: on the debug kernel,
 * KASAN and lockdep watch each open, read and release (read_tree.h).
 */
TEST_F_TIMEOUT(tree, read_every_debugfs_file, 300)
{
	int files;

	if (access("/sys/kernel/debug/sched", F_OK))
		SKIP(return, "debugfs not mounted at /sys/kernel/debug");
	files = read_tree("/sys/kernel/debug");
	TH_LOG("%d files read", files);
	EXPECT_GT(files, 10);
}

TEST_HARNESS_MAIN
