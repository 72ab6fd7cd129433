// SPDX-License-Identifier: GPL-2.0
/*
 * Revoke racing with everything else: in each round, threads read, write,
 * poll, epoll, ioctl, seek, mmap and touch, and close and reopen files of
 * the test device and a revokable tmpfs file, while the main thread
 * revokes them at a random moment; the threads go on against the revoked
 * files for a while.  Afterwards no call may have reached the device for
 * a released file, no poller may have been left on a waitqueue it freed,
 * and every open must have been released exactly once.  Rounds run for
 * REVOKE_RACE_SECONDS seconds (default 5); the kit's debug kernel (KASAN,
 * lockdep, KFENCE) runs it for a minute.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "revoke.h"

#define NR_FILES	4	/* of the test device; one more on tmpfs */
#define TMPFS_FILE	"/tmp/revoke_race"

struct race {
	int fd[NR_FILES + 1];
	atomic_bool stop;
};

static __thread sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, 1);
}

static int any_fd(struct race *r)
{
	return r->fd[rand() % (NR_FILES + 1)];
}

/*
 * The last file of the device blocks in read() while it is empty: revoke
 * kicks the reader out.
 */
static void *reader(void *arg)
{
	struct race *r = arg;
	char buf[16];

	while (!r->stop)
		pread(any_fd(r), buf, sizeof(buf), 0);
	return NULL;
}

static void *writer(void *arg)
{
	struct race *r = arg;

	while (!r->stop)
		write(any_fd(r), "x", 1);
	return NULL;
}

static void *poller(void *arg)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct race *r = arg;
	struct pollfd pfd[NR_FILES + 1];
	int ep = epoll_create1(0), i;

	for (i = 0; i <= NR_FILES; i++) {
		pfd[i].fd = r->fd[i];
		pfd[i].events = POLLIN | POLLOUT;
		epoll_ctl(ep, EPOLL_CTL_ADD, r->fd[i], &ev);
	}
	while (!r->stop) {
		poll(pfd, NR_FILES + 1, 1);
		epoll_wait(ep, &ev, 1, 1);
	}
	close(ep);
	return NULL;
}

static void *ioctler(void *arg)
{
	struct race *r = arg;

	while (!r->stop) {
		ioctl(any_fd(r), TEST_REVOKE_READY);
		lseek(any_fd(r), 0, SEEK_SET);
	}
	return NULL;
}

/* Map a page, touch it; SIGBUS once the file is revoked. */
static void *mapper(void *arg)
{
	struct race *r = arg;
	char *p;

	while (!r->stop) {
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			 any_fd(r), 0);
		if (p == MAP_FAILED)
			continue;
		/* An access the compiler keeps: p is not changed after sigsetjmp. */
		if (!sigsetjmp(bus_jmp, 1))
			__atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
		munmap(p, 4096);
	}
	return NULL;
}

/* Close one file of the device and open it again, while revoke runs. */
static void *reopener(void *arg)
{
	struct race *r = arg;
	int fd;

	while (!r->stop) {
		fd = open(TEST_REVOKE_DEV, O_RDWR | O_NONBLOCK);
		if (fd < 0)
			continue;
		dup2(fd, r->fd[0]);
		close(fd);
		usleep(100);
	}
	return NULL;
}

static void *(*const workers[])(void *) = {
	reader, writer, poller, ioctler, mapper, reopener,
};

#define NR_WORKERS	ARRAY_SIZE(workers)

/* One round; false if a file could not be opened. */
static bool race_round(struct race *r, unsigned int round)
{
	pthread_t thread[NR_WORKERS];
	unsigned int i;

	for (i = 0; i < NR_FILES; i++) {
		r->fd[i] = open(TEST_REVOKE_DEV, O_RDWR |
				(i < NR_FILES - 1 ? O_NONBLOCK : 0));
		if (r->fd[i] < 0)
			return false;
	}
	r->fd[NR_FILES] = open(TMPFS_FILE, O_RDWR | O_CREAT | O_REVOKABLE,
			       0600);
	if (r->fd[NR_FILES] < 0 || ftruncate(r->fd[NR_FILES], 4096))
		return false;
	r->stop = false;
	for (i = 0; i < NR_WORKERS; i++)
		pthread_create(&thread[i], NULL, workers[i], r);

	usleep(rand() % 5000);
	/* Every other round, one file at a time, the others by path. */
	if (round % 2)
		revoke_fd(r->fd[1]);
	revoke_path(TEST_REVOKE_DEV);
	revoke_path(TMPFS_FILE);
	usleep(2000);

	r->stop = true;
	for (i = 0; i < NR_WORKERS; i++)
		pthread_join(thread[i], NULL);
	for (i = 0; i <= NR_FILES; i++)
		close(r->fd[i]);
	return true;
}

FIXTURE(race) {
};

FIXTURE_SETUP(race)
{
}

FIXTURE_TEARDOWN(race)
{
}

/* The harness' own timeout: a minute of rounds, and room to spare. */
TEST_F_TIMEOUT(race, revoke_races_every_call, 150)
{
	const char *env = getenv("REVOKE_RACE_SECONDS");
	int seconds = env ? atoi(env) : 5;
	struct sigaction sa = { .sa_handler = on_sigbus };
	unsigned int rounds = 0;
	struct race r;
	time_t end;
	int fd;

	fd = open(TEST_REVOKE_DEV, O_RDWR);
	if (fd < 0 && errno == ENOENT)
		SKIP(return, "no " TEST_REVOKE_DEV " (CONFIG_TEST_REVOKE)");
	ASSERT_GE(fd, 0);
	close(fd);
	ASSERT_EQ(sigaction(SIGBUS, &sa, NULL), 0);
	signal(SIGPIPE, SIG_IGN);
	srand(getpid());

	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		ASSERT_TRUE(race_round(&r, rounds));
		rounds++;
	}
	unlink(TMPFS_FILE);
	TH_LOG("%u rounds in %d s", rounds, seconds);
	EXPECT_EQ(test_revoke_param("late_calls"), 0);
	EXPECT_EQ(test_revoke_param("pollers_left"), 0);
	/* Every open released once; a final fput() may still be queued. */
	for (fd = 0; fd < 100; fd++) {
		if (test_revoke_param("releases") == test_revoke_param("opens"))
			break;
		usleep(10000);
	}
	EXPECT_EQ(test_revoke_param("releases"), test_revoke_param("opens"));
}

TEST_HARNESS_MAIN
