/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Removals of an object racing three threads that open, call and close
 * its files, for REVOKE_RACE_SECONDS (default 1; the kit's debug kernel
 * races for a minute) and at least 20 removals: the debug kernel under
 * TCG has made as few as 2 in a second.
 */
#ifndef __REVOKE_RACE_H
#define __REVOKE_RACE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

struct race {
	int ctl;		/* for the test's own use: the test device */
	int stop;		/* set when the threads are to stop */
	int opened;		/* opens that succeeded, see race_opened() */
	int rounds;		/* removals made */
	long seconds;		/* how long they took */
};

static inline bool race_stopped(struct race *r)
{
	return __atomic_load_n(&r->stop, __ATOMIC_RELAXED);
}

static inline void race_opened(struct race *r)
{
	__atomic_fetch_add(&r->opened, 1, __ATOMIC_RELAXED);
}

/*
 * Run @loop(@r) in three threads while @remove_add(@r) removes the object
 * and makes it again.  Returns 0, or -1 if @remove_add failed (errno).
 */
static inline int race_removals(struct race *r, void *(*loop)(void *),
				int (*remove_add)(struct race *r))
{
	const char *env = getenv("REVOKE_RACE_SECONDS");
	int i, ret = 0, seconds = env ? atoi(env) : 1;
	struct timespec start, now;
	pthread_t threads[3];

	r->stop = 0;
	r->opened = 0;
	r->rounds = 0;
	for (i = 0; i < 3; i++)
		if (pthread_create(&threads[i], NULL, loop, r))
			return -1;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		ret = remove_add(r);
		r->rounds++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!ret && (now.tv_sec - start.tv_sec < seconds || r->rounds < 20));
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 3; i++)
		pthread_join(threads[i], NULL);
	r->seconds = now.tv_sec - start.tv_sec;
	return ret;
}

#endif /* __REVOKE_RACE_H */
