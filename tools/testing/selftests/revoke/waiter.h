/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A thread that waits in the kernel (poll, read, ioctl, ...) while the
 * test revokes the file, and whether it came back within a second.
 */
#ifndef __REVOKE_WAITER_H
#define __REVOKE_WAITER_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "revoke.h"

struct waiter {
	pthread_t thread;
	int fd;		/* the file, or the epoll instance */
	int (*wait)(struct waiter *w);
	int ret;	/* what wait() returned */
	int err;	/* errno after it */
	int events;	/* and what it saw, for the pollers */
	pid_t tid;	/* the thread's, once it is about to wait */
};

static void *waiter_run(void *arg)
{
	struct waiter *w = arg;

	errno = 0;
	__atomic_store_n(&w->tid, gettid(), __ATOMIC_RELEASE);
	w->ret = w->wait(w);
	w->err = errno;
	return NULL;
}

/*
 * Whether task @tid (a process or a thread) comes to sleep within @ms
 * milliseconds ("S" or "D" in its stat), and has not exited.
 */
static inline bool task_sleeps_within(pid_t tid, int ms)
{
	char path[64], buf[256], *state;
	struct timespec now, end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	/* By the clock: among busy threads, each look may come late. */
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return false;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return false;
		buf[n] = '\0';
		state = strrchr(buf, ')');
		if (!state || state[2] == 'Z')
			return false;
		if (state[2] == 'S' || state[2] == 'D')
			return true;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			return false;
		usleep(10000);
	}
}

static inline bool task_sleeps(pid_t tid)
{
	return task_sleeps_within(tid, 10000);
}

/*
 * Wait until the waiter sleeps in its call, the only place it sleeps once
 * it has its thread id, or has left it; a second at most, for a waiter
 * that calls in a loop without sleeping.
 */
static inline void waiter_asleep(struct waiter *w)
{
	pid_t tid;

	while (!(tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE)))
		usleep(1000);
	task_sleeps_within(tid, 1000);
}

static inline void waiter_start(struct waiter *w, int fd,
				int (*wait)(struct waiter *w))
{
	w->fd = fd;
	w->wait = wait;
	w->ret = -2;
	w->err = 0;
	w->tid = 0;
	pthread_create(&w->thread, NULL, waiter_run, w);
	waiter_asleep(w);
}

/* Whether the waiter returned within a second. */
static inline bool waiter_done(struct waiter *w)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 1;
	return pthread_timedjoin_np(w->thread, NULL, &ts) == 0;
}

/* The waits of more than one test program. */
static inline int wait_read(struct waiter *w)
{
	char c;

	return read(w->fd, &c, 1);
}

/* poll(POLLIN) with no timeout; what it saw in w->events. */
static inline int wait_poll(struct waiter *w)
{
	struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
	int ret = poll(&pfd, 1, -1);

	w->events = pfd.revents;
	return ret;
}

/* epoll_wait() for @events, on an epoll instance of its own. */
static inline int wait_epoll_events(struct waiter *w, unsigned int events)
{
	struct epoll_event ev = { .events = events };
	int ep = epoll_create1(0), ret;

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, w->fd, &ev))
		return -1;
	ret = epoll_wait(ep, &ev, 1, -1);
	w->events = ev.events;
	close(ep);
	return ret;
}

static inline int wait_epoll_in(struct waiter *w)
{
	return wait_epoll_events(w, EPOLLIN);
}

static inline int wait_epoll_pri(struct waiter *w)
{
	return wait_epoll_events(w, EPOLLPRI);
}

static inline int wait_block(struct waiter *w)
{
	return ioctl(w->fd, TEST_REVOKE_BLOCK);
}

static inline int wait_cancel(struct waiter *w)
{
	return ioctl(w->fd, TEST_REVOKE_WAIT_CANCEL);
}

#endif /* __REVOKE_WAITER_H */
