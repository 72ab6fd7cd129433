// SPDX-License-Identifier: GPL-2.0
/*
 * Polling a revokable file: a poller waits on the file's own waitqueue,
 * which the core feeds from the driver's, and revoke wakes it with
 * POLLIN | POLLOUT | POLLERR | POLLHUP, in poll(), select() and epoll (level,
 * edge and EPOLLEXCLUSIVE).  The test device frees its waitqueue in
 * ->release, as the PSI trigger did (CVE-2023-54019), and counts the pollers
 * it finds still queued there then: none may be.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include "../kselftest_harness.h"
#include "revoke.h"
#include "dev_fixture.h"
#include "waiter.h"

/* What poll(POLLIN) reports of a revoked file: what it asked, and more. */
#define REVOKED	(POLLIN | POLLERR | POLLHUP)

static int wait_select(struct waiter *w)
{
	fd_set rfds;
	int ret;

	FD_ZERO(&rfds);
	FD_SET(w->fd, &rfds);
	ret = select(w->fd + 1, &rfds, NULL, NULL, NULL);
	w->events = FD_ISSET(w->fd, &rfds) ? POLLIN : 0;
	return ret;
}

static int wait_epoll(struct waiter *w)
{
	struct epoll_event ev = {};
	int ret = epoll_wait(w->fd, &ev, 1, -1);

	w->events = ev.events;
	return ret;
}

static int epoll_for(int fd, unsigned int events)
{
	struct epoll_event ev = { .events = events };
	int ep = epoll_create1(0);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		return -1;
	return ep;
}

/* The driver's wakeups reach a poller through the file's waitqueue. */
TEST_F(dev, poll_forwarded)
{
	struct waiter w;
	int other = open(TEST_REVOKE_DEV, O_RDWR);

	ASSERT_GE(other, 0);
	waiter_start(&w, self->fd, wait_poll);
	ASSERT_EQ(write(other, "x", 1), 1);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, 1);
	EXPECT_EQ(w.events, POLLIN);
	EXPECT_EQ(close(other), 0);
}

TEST_F(dev, poll_revoked)
{
	struct waiter w;

	waiter_start(&w, self->fd, wait_poll);
	ASSERT_EQ(revoke_fd(self->fd), 0);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, 1);
	EXPECT_EQ(w.events & REVOKED, REVOKED);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 1);
}

TEST_F(dev, select_revoked)
{
	struct waiter w;

	waiter_start(&w, self->fd, wait_select);
	ASSERT_EQ(revoke_path(TEST_REVOKE_DEV), 0);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, 1);
	EXPECT_EQ(w.events, POLLIN);
}

/* Level-triggered: a revoked file stays ready. */
TEST_F(dev, epoll_level_revoked)
{
	struct epoll_event ev;
	struct waiter w;
	int ep = epoll_for(self->fd, EPOLLIN);

	ASSERT_GE(ep, 0);
	waiter_start(&w, ep, wait_epoll);
	ASSERT_EQ(revoke_fd(self->fd), 0);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, 1);
	EXPECT_EQ(w.events & (EPOLLIN | EPOLLERR | EPOLLHUP),
		  EPOLLIN | EPOLLERR | EPOLLHUP);
	EXPECT_EQ(epoll_wait(ep, &ev, 1, 0), 1);
	EXPECT_EQ(close(ep), 0);
}

/* Edge-triggered: revoke is one edge. */
TEST_F(dev, epoll_edge_revoked)
{
	struct epoll_event ev;
	struct waiter w;
	int ep = epoll_for(self->fd, EPOLLIN | EPOLLET);

	ASSERT_GE(ep, 0);
	waiter_start(&w, ep, wait_epoll);
	ASSERT_EQ(revoke_fd(self->fd), 0);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, 1);
	EXPECT_EQ(w.events & (EPOLLIN | EPOLLHUP), EPOLLIN | EPOLLHUP);
	EXPECT_EQ(epoll_wait(ep, &ev, 1, 0), 0);
	EXPECT_EQ(close(ep), 0);
}

/* EPOLLEXCLUSIVE waiters are all woken: the file is gone for each. */
TEST_F(dev, epoll_exclusive_revoked)
{
	struct waiter w[2];
	int ep[2], i;

	for (i = 0; i < 2; i++) {
		ep[i] = epoll_for(self->fd, EPOLLIN | EPOLLEXCLUSIVE);
		ASSERT_GE(ep[i], 0);
		waiter_start(&w[i], ep[i], wait_epoll);
	}
	ASSERT_EQ(revoke_fd(self->fd), 0);
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(waiter_done(&w[i]));
		EXPECT_EQ(w[i].ret, 1);
		EXPECT_EQ(close(ep[i]), 0);
	}
}

/*
 * The PSI shape: an epoll instance keeps its entry on the file's waitqueue
 * after revoke, while the driver frees its own in ->release.  The driver's
 * later wakeups and the epoll's later waits touch only what lives on.
 */
TEST_F(dev, epoll_outlives_driver_waitqueue)
{
	struct epoll_event ev;
	int other = open(TEST_REVOKE_DEV, O_RDWR);
	int ep = epoll_for(self->fd, EPOLLIN);

	ASSERT_GE(other, 0);
	ASSERT_GE(ep, 0);
	EXPECT_EQ(epoll_wait(ep, &ev, 1, 0), 0);
	ASSERT_EQ(revoke_fd(self->fd), 0);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 1);
	EXPECT_EQ(write(other, "x", 1), 1);
	EXPECT_EQ(epoll_wait(ep, &ev, 1, 0), 1);
	EXPECT_EQ(ev.events & (EPOLLERR | EPOLLHUP), EPOLLERR | EPOLLHUP);
	EXPECT_EQ(close(ep), 0);
	EXPECT_EQ(close(other), 0);
}

TEST_HARNESS_MAIN
