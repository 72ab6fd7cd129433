// SPDX-License-Identifier: GPL-2.0
/*
 * Calls blocked in a revokable file when it is revoked.  A call sleeping
 * interruptibly is kicked out without the sleeping code's help (a reader
 * of the test device) and its syscall restarts into the revoked file; a
 * call that does not wake for signals is waited for, also by a revoker
 * killed meanwhile, or cut short by a revoke cancellation, or woken on
 * the waitqueue the file is polled on.  A method may revoke its own file.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "revoke.h"
#include "dev_fixture.h"
#include "waiter.h"

static int wait_revoked(struct waiter *w)
{
	return ioctl(w->fd, TEST_REVOKE_WAIT_REVOKED);
}

static int wait_revoke(struct waiter *w)
{
	return revoke_fd(w->fd);
}

/* Whether the test device's release count reaches @releases within 1 s. */
static bool released(int releases)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (test_revoke_param("releases") == releases)
			return true;
		usleep(10000);
	}
	return false;
}

/* The device's read sleeps interruptibly and knows nothing of revoke. */
TEST_F(dev, reader)
{
	struct waiter w;

	waiter_start(&w, self->fd, wait_read);
	ASSERT_EQ(revoke_fd(self->fd), 0);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 1);
}

/*
 * A call of the file made and returned: epoll_wait() on an eventfd no one
 * writes to then sleeps 1.5 s, unless a kick ends it early with EINTR.
 */
static int wait_elsewhere(struct waiter *w)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(0), efd = eventfd(0, 0);

	if (ep < 0 || efd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev))
		return -2;
	ioctl(w->fd, TEST_REVOKE_READY);
	return epoll_wait(ep, &ev, 1, 1500);
}

/*
 * The kick reaches the tasks inside the file's calls and no other: a
 * thread that called the file and left, asleep in epoll_wait() since, is
 * not woken, while a reader of the file is kicked out.
 */
TEST_F(dev, kick_spares_a_task_that_left)
{
	struct waiter reader, left;

	waiter_start(&left, self->fd, wait_elsewhere);
	waiter_start(&reader, self->fd, wait_read);
	ASSERT_EQ(revoke_fd(self->fd), 0);
	ASSERT_TRUE(waiter_done(&reader));
	EXPECT_EQ(reader.ret, 0);
	ASSERT_EQ(pthread_join(left.thread, NULL), 0);
	EXPECT_EQ(left.ret, 0);
	EXPECT_EQ(left.err, 0);
}

static int wait_eintr(struct waiter *w)
{
	return ioctl(w->fd, TEST_REVOKE_WAIT_EINTR);
}

static void on_sigusr1(int sig)
{
}

/*
 * A driver's wait that gives -EINTR, not -ERESTARTSYS, on a signal is
 * ended by the kick too, and its call returns what an ioctl of a revoked
 * file returns: the kick is no signal, and must not show as an EINTR the
 * caller has no handler for.  A real signal still gives EINTR.
 */
TEST_F(dev, kick_is_not_eintr)
{
	struct sigaction sa = { .sa_handler = on_sigusr1 };
	struct waiter w;

	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	waiter_start(&w, self->fd, wait_eintr);
	ASSERT_EQ(pthread_kill(w.thread, SIGUSR1), 0);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, -1);
	EXPECT_EQ(w.err, EINTR);

	waiter_start(&w, self->fd, wait_eintr);
	ASSERT_EQ(revoke_fd(self->fd), 0);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, -1);
	EXPECT_EQ(w.err, EIO);
}

/* A call deaf to the kick is waited for; revoke returns once it left. */
TEST_F(dev, uncooperative_call_is_waited_for)
{
	struct waiter call, revoker;
	int other = open(TEST_REVOKE_DEV, O_RDWR);

	ASSERT_GE(other, 0);
	waiter_start(&call, self->fd, wait_block);
	waiter_start(&revoker, self->fd, wait_revoke);
	EXPECT_FALSE(waiter_done(&revoker));
	EXPECT_EQ(test_revoke_param("releases"), self->releases);

	ASSERT_EQ(ioctl(other, TEST_REVOKE_UNBLOCK), 0);
	ASSERT_TRUE(waiter_done(&call));
	EXPECT_EQ(call.ret, 0);
	ASSERT_TRUE(waiter_done(&revoker));
	EXPECT_EQ(revoker.ret, 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 1);
	EXPECT_EQ(close(other), 0);
}

static int wait_revoke_path(struct waiter *w)
{
	return revoke_path(TEST_REVOKE_DEV);
}

/*
 * A revoke of the device's path closes every file's gate and kicks every
 * call before it waits for any: while a call deaf to the kick holds it on
 * the first file, a reader of the second is out at once, and the second
 * takes no new call.
 */
TEST_F(dev, path_revoke_shuts_every_file_first)
{
	struct waiter call, reader, revoker;
	int second = open(TEST_REVOKE_DEV, O_RDWR), third;

	ASSERT_GE(second, 0);
	waiter_start(&call, self->fd, wait_block);
	waiter_start(&reader, second, wait_read);
	waiter_start(&revoker, self->fd, wait_revoke_path);
	EXPECT_TRUE(waiter_done(&reader));
	EXPECT_EQ(reader.ret, 0);
	EXPECT_EQ(ioctl(second, TEST_REVOKE_READY), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_FALSE(waiter_done(&revoker));

	/* A file opened after the revoke began is not revoked. */
	third = open(TEST_REVOKE_DEV, O_RDWR);
	ASSERT_GE(third, 0);
	ASSERT_EQ(ioctl(third, TEST_REVOKE_UNBLOCK), 0);
	ASSERT_TRUE(waiter_done(&call));
	ASSERT_TRUE(waiter_done(&revoker));
	EXPECT_EQ(revoker.ret, 0);
	EXPECT_EQ(close(third), 0);
	EXPECT_EQ(close(second), 0);
}

/*
 * A call of @fd blocked in the device (in *@call), and a child revoking
 * @fd killed while it waits for that call: the wait status of the child,
 * or -1.
 */
static int kill_revoker_of_blocked_call(int fd, struct waiter *call)
{
	int status;
	pid_t pid;

	waiter_start(call, fd, wait_block);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		_exit(revoke_fd(fd) ? 1 : 0);
	usleep(200000);
	if (waitpid(pid, &status, WNOHANG) != 0 || kill(pid, SIGKILL) ||
	    waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/*
 * Close the fixture's file, revoked and not released, whose close releases
 * it; the fixture gets a file of its own again.
 */
static void close_releases(struct __test_metadata *_metadata,
			   struct _test_data_dev *self)
{
	EXPECT_EQ(close(self->fd), 0);
	self->fd = open(TEST_REVOKE_DEV, O_RDWR);
	ASSERT_GE(self->fd, 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 1);
}

/*
 * A revoker killed while it waits leaves the file revoked; the calls in
 * flight leave, and the next revoke (or the last close) releases the
 * driver.  No worker is left behind to do it.
 */
TEST_F(dev, killed_revoker)
{
	int other = open(TEST_REVOKE_DEV, O_RDWR);
	struct waiter call;
	int status;
	char c;

	ASSERT_GE(other, 0);
	status = kill_revoker_of_blocked_call(self->fd, &call);
	ASSERT_NE(status, -1);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	/* Revoked, not released yet: the call is still in the driver. */
	EXPECT_EQ(read(self->fd, &c, 1), 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases);
	ASSERT_EQ(ioctl(other, TEST_REVOKE_UNBLOCK), 0);
	ASSERT_TRUE(waiter_done(&call));
	EXPECT_EQ(call.ret, 0);
	EXPECT_FALSE(released(self->releases + 1));
	EXPECT_EQ(revoke_fd(self->fd), 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 1);
	EXPECT_EQ(close(other), 0);
}

static int wait_close(struct waiter *w)
{
	return close(w->fd);
}

/*
 * A revoker that finds a file in its final fput, its driver's ->release
 * still running, waits for the release killably: killed, it dies at once.
 */
TEST_F(dev, killed_revoker_of_a_file_being_released)
{
	int closing = open(TEST_REVOKE_DEV, O_RDWR);
	struct waiter closer;
	int status, other, i;
	pid_t pid;

	ASSERT_GE(closing, 0);
	ASSERT_EQ(ioctl(closing, TEST_REVOKE_BLOCK_RELEASE), 0);
	waiter_start(&closer, closing, wait_close);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(revoke_path(TEST_REVOKE_DEV) ? 1 : 0);
	usleep(200000);
	ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0);
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	for (i = 0; i < 100 && !waitpid(pid, &status, WNOHANG); i++)
		usleep(10000);
	EXPECT_LT(i, 100);

	other = open(TEST_REVOKE_DEV, O_RDWR);
	ASSERT_GE(other, 0);
	ASSERT_EQ(ioctl(other, TEST_REVOKE_UNBLOCK), 0);
	if (i == 100)
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ASSERT_TRUE(waiter_done(&closer));
	EXPECT_EQ(closer.ret, 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 2);
	EXPECT_EQ(close(other), 0);
}

/*
 * O_ASYNC turned off while the file is being revoked: the gate refuses the
 * driver's ->fasync, and F_SETFL leaves FASYNC to the driver to clear, so
 * revoke sees it set and takes the file off the driver's fasync list
 * before its ->release; otherwise the driver's next signal would go
 * through the freed file.
 */
TEST_F(dev, fasync_off_while_revoking)
{
	int other = open(TEST_REVOKE_DEV, O_RDWR);
	struct waiter call, revoker;
	char c;

	ASSERT_GE(other, 0);
	ASSERT_NE(signal(SIGIO, SIG_IGN), SIG_ERR);
	ASSERT_EQ(fcntl(self->fd, F_SETOWN, getpid()), 0);
	ASSERT_EQ(fcntl(self->fd, F_SETFL, O_RDWR | O_ASYNC), 0);
	waiter_start(&call, self->fd, wait_block);
	waiter_start(&revoker, self->fd, wait_revoke);
	EXPECT_FALSE(waiter_done(&revoker));
	EXPECT_EQ(read(self->fd, &c, 1), 0);

	EXPECT_EQ(fcntl(self->fd, F_SETFL, O_RDWR), 0);
	ASSERT_EQ(ioctl(other, TEST_REVOKE_UNBLOCK), 0);
	ASSERT_TRUE(waiter_done(&call));
	ASSERT_TRUE(waiter_done(&revoker));
	EXPECT_EQ(revoker.ret, 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 1);
	EXPECT_EQ(test_revoke_param("fasync_left"), 0);
	/* Signals the files left on the list. */
	EXPECT_EQ(write(other, "x", 1), 1);
	EXPECT_EQ(close(other), 0);
}

/* The same when the revoker is revoke(2) of the device, killed meanwhile. */
TEST_F(dev, fasync_off_after_killed_revoker)
{
	int other = open(TEST_REVOKE_DEV, O_RDWR);
	struct waiter call;

	ASSERT_GE(other, 0);
	ASSERT_NE(signal(SIGIO, SIG_IGN), SIG_ERR);
	ASSERT_EQ(fcntl(self->fd, F_SETOWN, getpid()), 0);
	ASSERT_EQ(fcntl(self->fd, F_SETFL, O_RDWR | O_ASYNC), 0);
	ASSERT_NE(kill_revoker_of_blocked_call(self->fd, &call), -1);

	EXPECT_EQ(fcntl(self->fd, F_SETFL, O_RDWR), 0);
	ASSERT_EQ(ioctl(other, TEST_REVOKE_UNBLOCK), 0);
	ASSERT_TRUE(waiter_done(&call));
	close_releases(_metadata, self);
	EXPECT_EQ(test_revoke_param("fasync_left"), 0);
	EXPECT_EQ(write(other, "x", 1), 1);
	EXPECT_EQ(close(other), 0);
}

/*
 * A POSIX lock kept by the driver (->lock), on a file whose revoker was
 * killed: the close's unlock reaches the driver through the closed gate,
 * and no lock record outlives the file.
 */
TEST_F(dev, lock_of_killed_revoker_file_goes_with_close)
{
	struct flock fl = {
		.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1,
	};
	int other = open(TEST_REVOKE_DEV, O_RDWR);
	struct waiter call;
	int status;
	pid_t pid;

	ASSERT_GE(other, 0);
	ASSERT_EQ(fcntl(self->fd, F_SETLK, &fl), 0);
	ASSERT_NE(kill_revoker_of_blocked_call(self->fd, &call), -1);
	ASSERT_EQ(ioctl(other, TEST_REVOKE_UNBLOCK), 0);
	ASSERT_TRUE(waiter_done(&call));
	close_releases(_metadata, self);
	/* Another owner finds the range free. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(fcntl(other, F_GETLK, &fl) || fl.l_type != F_UNLCK);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(close(other), 0);
}

/* revoke_enter_cancellation(): revoke cuts the call short. */
TEST_F(dev, cancellation)
{
	struct waiter call;

	waiter_start(&call, self->fd, wait_cancel);
	ASSERT_EQ(revoke_fd(self->fd), 0);
	ASSERT_TRUE(waiter_done(&call));
	EXPECT_EQ(call.ret, -1);
	EXPECT_EQ(call.err, ECANCELED);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 1);
}

/*
 * A call sleeping until file_revoked() on a waitqueue the file is polled
 * on (here by epoll) is woken by revoke; signals do not wake it.
 */
TEST_F(dev, file_revoked_on_polled_waitqueue)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct waiter call;
	int ep = epoll_create1(0);

	ASSERT_GE(ep, 0);
	ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &ev), 0);
	waiter_start(&call, self->fd, wait_revoked);
	ASSERT_EQ(revoke_fd(self->fd), 0);
	ASSERT_TRUE(waiter_done(&call));
	EXPECT_EQ(call.ret, 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 1);
	EXPECT_EQ(close(ep), 0);
}

/*
 * A method that revokes its own file and the device's others, as a
 * "remove" attribute does: no deadlock, and lockdep is quiet.
 */
TEST_F(dev, self_revoke)
{
	int other = open(TEST_REVOKE_DEV, O_RDWR);
	char c;

	ASSERT_GE(other, 0);
	/* revoke_inode()'s count: this file and the other */
	EXPECT_EQ(ioctl(self->fd, TEST_REVOKE_SELF), 2);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 2);
	EXPECT_EQ(read(self->fd, &c, 1), 0);
	EXPECT_EQ(ioctl(self->fd, TEST_REVOKE_READY), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(read(other, &c, 1), 0);
	EXPECT_EQ(close(other), 0);
}

TEST_HARNESS_MAIN
