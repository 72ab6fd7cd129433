// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs (kernfs) files on the revokable-file core.  The test device
 * creates /sys/kernel/test_revoke/ and removes it on request; the removal
 * revokes the open files of its attributes: calls in flight are waited
 * for, new ones fail with -ENODEV, as before revoke(2) existed, and
 * poll reports DEFAULT_POLLMASK | POLLERR | POLLPRI, so that the
 * sysfs_notify() idiom (select() on exceptfds) sees a removed attribute.
 * A bin attribute's mapping raises SIGBUS after.  A "remove" attribute
 * written by three threads at once removes the directory once, and each
 * write that got into the attribute returns only once the directory is
 * gone, as kernfs_remove_self() promises.  revoke(2) of a sysfs path
 * revokes its files without removing it, and of one open file that file
 * only.  Every /sys file opens and reads.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "race.h"
#include "read_tree.h"
#include "revoke.h"
#include "waiter.h"

#define DIR	TEST_REVOKE_SYSFS
#define VALUE	TEST_REVOKE_SYSFS "value"
#define BLOB	TEST_REVOKE_SYSFS "blob"
#define REMOVE	TEST_REVOKE_SYSFS "remove"

/* What poll gives a file of a removed attribute. */
#define REMOVED_POLL	(POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM | \
			 POLLERR | POLLPRI)

/*
 * The test device (@ctl), its sysfs directory created afresh, and "value"
 * open (@fd).  Afterwards the directory is removed and no call reached the
 * device's attributes once their removal had returned.
 */
FIXTURE(sysfs) {
	int ctl;
	int fd;
};

FIXTURE_SETUP(sysfs)
{
	self->fd = -1;
	self->ctl = open(TEST_REVOKE_DEV, O_RDWR);
	if (self->ctl < 0 && errno == ENOENT)
		SKIP(return, "no " TEST_REVOKE_DEV " (CONFIG_TEST_REVOKE)");
	ASSERT_GE(self->ctl, 0);
	ASSERT_EQ(ioctl(self->ctl, TEST_REVOKE_SYSFS_REMOVE), 0);
	ASSERT_EQ(ioctl(self->ctl, TEST_REVOKE_SYSFS_ADD), 0);
	self->fd = open(VALUE, O_RDWR);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(sysfs)
{
	if (self->ctl < 0)
		return;
	EXPECT_EQ(ioctl(self->ctl, TEST_REVOKE_SYSFS_REMOVE), 0);
	if (self->fd >= 0)
		EXPECT_EQ(close(self->fd), 0);
	EXPECT_EQ(close(self->ctl), 0);
	EXPECT_EQ(test_revoke_param("late_calls"), 0);
}

static int remove_dir(int ctl)
{
	return ioctl(ctl, TEST_REVOKE_SYSFS_REMOVE);
}

static int read_value(int fd)
{
	char buf[16] = "";

	if (pread(fd, buf, sizeof(buf) - 1, 0) < 0)
		return -1;
	return atoi(buf);
}

/* Calls reach the attribute until its removal, then fail with -ENODEV. */
TEST_F(sysfs, calls_then_errors)
{
	struct pollfd pfd = { .fd = self->fd, .events = REMOVED_POLL };
	int blob = open(BLOB, O_RDONLY);
	char buf[8];

	ASSERT_GE(blob, 0);
	ASSERT_EQ(write(self->fd, "5", 1), 1);
	EXPECT_EQ(read_value(self->fd), 5);
	EXPECT_EQ(lseek(self->fd, 0, SEEK_SET), 0);
	EXPECT_EQ(read(blob, buf, sizeof(buf)), sizeof(buf));

	ASSERT_EQ(remove_dir(self->ctl), 0);
	EXPECT_EQ(read(self->fd, buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(write(self->fd, "6", 1), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(lseek(self->fd, 0, SEEK_SET), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(fsync(self->fd), 0);
	EXPECT_EQ(poll(&pfd, 1, 0), 1);
	EXPECT_EQ(pfd.revents, REMOVED_POLL);
	EXPECT_EQ(read(blob, buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, blob, 0),
		  MAP_FAILED);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(open(VALUE, O_RDONLY), -1);
	EXPECT_EQ(errno, ENOENT);
	EXPECT_EQ(close(blob), 0);
}

static int wait_poll_pri(struct waiter *w)
{
	struct pollfd pfd = { .fd = w->fd, .events = POLLPRI };
	int ret = poll(&pfd, 1, -1);

	w->events = pfd.revents;
	return ret;
}

/* The sysfs_notify() idiom: select() on exceptfds only. */
static int wait_select_except(struct waiter *w)
{
	fd_set efds;
	int ret;

	FD_ZERO(&efds);
	FD_SET(w->fd, &efds);
	ret = select(w->fd + 1, NULL, NULL, &efds, NULL);
	w->events = FD_ISSET(w->fd, &efds) ? POLLPRI : 0;
	return ret;
}

/* Pollers for a change, each on a file of its own, read first. */
static void start_pollers(struct __test_metadata *_metadata,
			  struct waiter *w, int *fd)
{
	int (*wait[3])(struct waiter *) = {
		wait_poll_pri, wait_select_except, wait_epoll_pri
	};
	int i;

	for (i = 0; i < 3; i++) {
		fd[i] = open(VALUE, O_RDONLY);
		ASSERT_GE(fd[i], 0);
		ASSERT_GE(read_value(fd[i]), 0);
		waiter_start(&w[i], fd[i], wait[i]);
	}
}

/* A store's sysfs_notify() wakes pollers through the core's proxy. */
TEST_F(sysfs, pollers_notified)
{
	struct waiter w[3];
	int fd[3], i;

	start_pollers(_metadata, w, fd);
	ASSERT_EQ(write(self->fd, "7", 1), 1);
	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(waiter_done(&w[i]));
		EXPECT_EQ(w[i].ret, 1);
		EXPECT_TRUE(w[i].events & POLLPRI);
		EXPECT_EQ(read_value(fd[i]), 7);
		EXPECT_EQ(close(fd[i]), 0);
	}
}

/*
 * The removal wakes them too, and they see the attribute changed: select()
 * on exceptfds returns, where it would otherwise sleep for ever.
 */
TEST_F(sysfs, pollers_removed)
{
	struct waiter w[3];
	int fd[3], i;

	start_pollers(_metadata, w, fd);
	ASSERT_EQ(remove_dir(self->ctl), 0);
	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(waiter_done(&w[i]));
		EXPECT_EQ(w[i].ret, 1);
		EXPECT_TRUE(w[i].events & POLLPRI);
		EXPECT_EQ(close(fd[i]), 0);
	}
	EXPECT_TRUE(w[0].events & POLLERR);
	EXPECT_TRUE(w[2].events & EPOLLERR);
}

/* Reads and writes of "value" in a loop until one fails; its errno. */
static int wait_read_write_loop(struct waiter *w)
{
	for (;;) {
		if (read_value(w->fd) < 0)
			return errno;
		if (pwrite(w->fd, "1", 1, 0) < 0)
			return errno;
	}
}

/*
 * Readers and writers busy in the attribute, whose show and store sleep:
 * the removal waits for those in flight, and each loop stops with ENODEV.
 */
TEST_F(sysfs, readers_writers)
{
	struct waiter w[4];
	int fd[4], i;

	for (i = 0; i < 4; i++) {
		fd[i] = i ? open(VALUE, O_RDWR) : self->fd;
		ASSERT_GE(fd[i], 0);
		waiter_start(&w[i], fd[i], wait_read_write_loop);
	}
	ASSERT_EQ(remove_dir(self->ctl), 0);
	for (i = 0; i < 4; i++) {
		ASSERT_TRUE(waiter_done(&w[i]));
		EXPECT_EQ(w[i].ret, ENODEV);
		if (i)
			EXPECT_EQ(close(fd[i]), 0);
	}
}

/* A bin attribute's mapping works until the removal: SIGBUS after. */
TEST_F(sysfs, bin_mmap)
{
	int blob = open(BLOB, O_RDONLY);
	char *p;

	ASSERT_GE(blob, 0);
	p = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, blob, 0);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_EQ(touch_signal(p), 0);
	EXPECT_EQ(close(blob), 0);
	ASSERT_EQ(remove_dir(self->ctl), 0);
	EXPECT_EQ(touch_signal(p), SIGBUS);
	EXPECT_EQ(munmap(p, getpagesize()), 0);
}

static pthread_barrier_t remove_barrier;

struct remover {
	pthread_t thread;
	int fd;
	ssize_t ret;
	int err;
	int gone;	/* the directory was gone when the write returned */
};

static void *remove_one(void *arg)
{
	struct remover *r = arg;

	pthread_barrier_wait(&remove_barrier);
	r->ret = write(r->fd, "1", 1);
	r->err = errno;
	r->gone = access(DIR, F_OK) && errno == ENOENT;
	return NULL;
}

/*
 * Three threads write "remove" at once, each through a file of its own:
 * one removes the directory, and every write that got into the attribute
 * returns once the winner's store is done, the directory gone; a write
 * that came after the attribute's removal fails with ENODEV.
 */
TEST_F(sysfs, remove_self_three)
{
	int removals = test_revoke_param("self_removals");
	struct remover r[3];
	int i, in = 0;

	ASSERT_EQ(pthread_barrier_init(&remove_barrier, NULL, 3), 0);
	for (i = 0; i < 3; i++) {
		r[i].fd = open(REMOVE, O_WRONLY);
		ASSERT_GE(r[i].fd, 0);
	}
	for (i = 0; i < 3; i++)
		ASSERT_EQ(pthread_create(&r[i].thread, NULL, remove_one, &r[i]), 0);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(pthread_join(r[i].thread, NULL), 0);
		if (r[i].ret == 1) {
			in++;
			EXPECT_TRUE(r[i].gone);
		} else {
			EXPECT_EQ(r[i].ret, -1);
			EXPECT_EQ(r[i].err, ENODEV);
		}
		EXPECT_EQ(close(r[i].fd), 0);
	}
	EXPECT_GE(in, 1);
	EXPECT_EQ(test_revoke_param("self_removals"), removals + 1);
	EXPECT_EQ(access(DIR, F_OK), -1);
	pthread_barrier_destroy(&remove_barrier);
}

/*
 * revoke(2) on an attribute's path revokes its open files; the attribute
 * stays, and opens afresh.
 */
TEST_F(sysfs, revoke_path)
{
	int other = open(VALUE, O_RDONLY);

	ASSERT_GE(other, 0);
	ASSERT_EQ(revoke_path(VALUE), 0);
	EXPECT_EQ(read_value(self->fd), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(read_value(other), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(close(other), 0);

	other = open(VALUE, O_RDWR);
	ASSERT_GE(other, 0);
	EXPECT_EQ(write(other, "3", 1), 1);
	EXPECT_EQ(read_value(other), 3);
	EXPECT_EQ(close(other), 0);
}

/*
 * revoke(2) of one open file (REVOKE_FILE) cuts off that file, its
 * mappings included, and nothing else: the other files of the attribute,
 * and their mappings, keep working.
 */
TEST_F(sysfs, revoke_one_file)
{
	int other = open(VALUE, O_RDWR);
	int blob[2];
	char *p[2];
	int i;

	ASSERT_GE(other, 0);
	for (i = 0; i < 2; i++) {
		blob[i] = open(BLOB, O_RDONLY);
		ASSERT_GE(blob[i], 0);
		p[i] = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED,
			    blob[i], 0);
		ASSERT_NE(p[i], MAP_FAILED);
		EXPECT_EQ(touch_signal(p[i]), 0);
	}

	ASSERT_EQ(revoke_fd(self->fd), 0);
	EXPECT_EQ(read_value(self->fd), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(write(other, "5", 1), 1);
	EXPECT_EQ(read_value(other), 5);
	EXPECT_EQ(revoke_fd(self->fd), 0);

	ASSERT_EQ(revoke_fd(blob[0]), 0);
	EXPECT_EQ(touch_signal(p[0]), SIGBUS);
	EXPECT_EQ(touch_signal(p[1]), 0);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(munmap(p[i], getpagesize()), 0);
		EXPECT_EQ(close(blob[i]), 0);
	}
	EXPECT_EQ(close(other), 0);
}

/* Run revoke(2) of @fd (REVOKE_FILE) or of "value" (-1) in a child. */
static pid_t revoke_in_child(int fd)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit((fd < 0 ? revoke_path(VALUE) : revoke_fd(fd)) ? errno : 0);
	return pid;
}

/* A child blocked in a store to @fd until TEST_REVOKE_UNBLOCK. */
static pid_t block_store(int fd)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(write(fd, "block", 5) == 5 ? 0 : errno);
	return pid;
}

/* Unblock the store: it and the revoker that waits for it succeed. */
static void unblock_store(struct __test_metadata *_metadata, int ctl,
			  pid_t writer, pid_t revoker)
{
	int status;

	ASSERT_EQ(ioctl(ctl, TEST_REVOKE_UNBLOCK), 0);
	ASSERT_EQ(waitpid(writer, &status, 0), writer);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(waitpid(revoker, &status, 0), revoker);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * A revoke of a file killed while it waits for a call leaves the file to
 * the next revoke, which waits for that call as the killed one did, and
 * does not take the file for revoked already.
 */
TEST_F(sysfs, killed_revoker_then_path)
{
	pid_t writer, revoker;
	int status;

	writer = block_store(self->fd);
	ASSERT_GE(writer, 0);
	ASSERT_TRUE(task_sleeps(writer));

	revoker = revoke_in_child(self->fd);
	ASSERT_GE(revoker, 0);
	if (!task_sleeps(revoker)) {
		waitpid(revoker, &status, 0);
		TH_LOG("REVOKE_FILE did not wait: status %#x", status);
		ASSERT_TRUE(false);
	}
	ASSERT_EQ(kill(revoker, SIGKILL), 0);
	ASSERT_EQ(waitpid(revoker, &status, 0), revoker);
	EXPECT_TRUE(WIFSIGNALED(status));

	revoker = revoke_in_child(-1);
	ASSERT_GE(revoker, 0);
	/* It waits for the write too. */
	EXPECT_TRUE(task_sleeps(revoker));
	usleep(100000);
	EXPECT_EQ(waitpid(revoker, &status, WNOHANG), 0);

	unblock_store(_metadata, self->ctl, writer, revoker);
	EXPECT_EQ(read_value(self->fd), -1);
	EXPECT_EQ(errno, ENODEV);
}

/*
 * revoke(2) of the path closes every file's gate before it waits for any:
 * while a store deaf to the kick holds it on one file, another file
 * refuses a new call at once.
 */
TEST_F(sysfs, path_revoke_shuts_every_file_first)
{
	int second = open(VALUE, O_RDWR), status;
	pid_t writer, revoker;

	ASSERT_GE(second, 0);
	writer = block_store(self->fd);
	ASSERT_GE(writer, 0);
	ASSERT_TRUE(task_sleeps(writer));

	revoker = revoke_in_child(-1);
	ASSERT_GE(revoker, 0);
	ASSERT_TRUE(task_sleeps(revoker));
	EXPECT_EQ(read_value(second), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(waitpid(revoker, &status, WNOHANG), 0);

	unblock_store(_metadata, self->ctl, writer, revoker);
	EXPECT_EQ(close(second), 0);
}

/* Opens, calls, maps and closes the attributes, until told to stop. */
static void *open_loop(void *arg)
{
	size_t page = getpagesize();
	struct race *r = arg;
	char buf[16];
	void *p;
	int fd;

	while (!race_stopped(r)) {
		fd = open(VALUE, O_RDWR);
		if (fd >= 0) {
			race_opened(r);
			pread(fd, buf, sizeof(buf), 0);
			pwrite(fd, "1", 1, 0);
			close(fd);
		}
		fd = open(BLOB, O_RDONLY);
		if (fd >= 0) {
			p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
			if (p != MAP_FAILED)
				munmap(p, page);
			read(fd, buf, sizeof(buf));
			close(fd);
		}
	}
	return NULL;
}

static int remove_add(struct race *r)
{
	return remove_dir(r->ctl) ?: ioctl(r->ctl, TEST_REVOKE_SYSFS_ADD);
}

/*
 * Removals racing opens, calls, mappings and closes from three threads
 * (race.h): the fixture then finds no call after a removal returned.
 */
TEST_F_TIMEOUT(sysfs, removal_races_opens, 150)
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
 * Every readable file under /sys, read once, the test device's too: on
 * the debug kernel, KASAN and lockdep watch each open, read and release
 * through the core.
 */
TEST_F_TIMEOUT(tree, read_every_sys_file, 300)
{
	int files = read_tree_with_device("/sys", TEST_REVOKE_SYSFS_ADD,
					  TEST_REVOKE_SYSFS_REMOVE);

	TH_LOG("%d files read", files);
	EXPECT_GT(files, 1000);
}

TEST_HARNESS_MAIN
