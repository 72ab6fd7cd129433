// SPDX-License-Identifier: GPL-2.0
/*
 * Revokable files: poll forwarding.
 *
 * A driver's ->poll puts the poller on the driver's waitqueues, and its
 * ->release may free them: a poller still there would then touch freed
 * memory (the PSI bug, CVE-2023-54019).  So the proxy puts the poller on
 * the file's own waitqueue, which lives as long as the file, and hangs a
 * hook owned by the state on each driver waitqueue the driver polls with,
 * to forward the driver's wakeups.  The hooks come off before the driver is
 * released, revoked or not, and revoke wakes every poller.
 *
 * This file owns the hooks: adding them from the driver's ->poll,
 * forwarding wakeups, letting go of a waitqueue the driver frees
 * (POLLFREE), waking the driver's waitqueues for revoke, and taking the
 * hooks off.  The poll proxy itself is in fs/revoke_fops.c.
 *
 * Copyright (C) 2026 The revokable files authors
 */

#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "revoke_internal.h"

struct revoke_poll_hook {
	/* in poll->hooks: added under poll->wq.lock, walked under RCU */
	struct list_head node;
	struct revoke_poll *poll;
	/* the driver's waitqueue; NULL once the driver let go of it (POLLFREE) */
	wait_queue_head_t *head;
	/* the revokable file's poll forwarding @head is of, if it is one */
	struct revoke_poll *src;
	wait_queue_entry_t wait;
	struct rcu_head rcu;
};

/*
 * The poll table the driver's ->poll gets: the caller's, redirected.  A
 * driver that polls another revokable file passes it on: the outermost
 * table, whose caller may sleep, is the root of the nested ones.
 */
struct revoke_poll_table {
	poll_table pt;
	struct revoke_poll *poll;
	struct revoke_poll_table *root;
	/* the nested file's poll forwarding, while it queues on @pt */
	struct revoke_poll *src;
	/* the root's: allocated where the poller may sleep, for a new hook */
	struct revoke_poll_hook *spare;
	/* the root's: a hook could not be allocated */
	bool failed;
};

/*
 * A hook on a nested revokable file's waitqueue wakes ours under that
 * waitqueue's lock, of the same class: lockdep wants a subclass per level
 * of nesting, as epoll's ep_poll_safewake() gives.  The levels of one
 * chain of wakeups are counted per CPU: the chain runs under the driver's
 * waitqueue lock, interrupts off.
 */
#ifdef CONFIG_DEBUG_LOCK_ALLOC
static DEFINE_PER_CPU(u8, revoke_poll_nests);

static int revoke_poll_nest(struct revoke_poll_hook *hook)
{
	int nests = hook->src ? __this_cpu_read(revoke_poll_nests) + 1 : 0;

	return min(nests, MAX_LOCKDEP_SUBCLASSES - 1);
}

static int revoke_poll_nests_swap(int nests)
{
	int old = __this_cpu_read(revoke_poll_nests);

	__this_cpu_write(revoke_poll_nests, nests);
	return old;
}
#else
static int revoke_poll_nest(struct revoke_poll_hook *hook)
{
	return 0;
}

static int revoke_poll_nests_swap(int nests)
{
	return 0;
}
#endif

static int revoke_poll_wake(wait_queue_entry_t *wait, unsigned int mode,
			    int sync, void *key)
{
	struct revoke_poll_hook *hook = container_of(wait, struct revoke_poll_hook,
						     wait);
	int nests = revoke_poll_nest(hook);
	struct revoke_poll *poll = hook->poll;
	__poll_t mask = key_to_poll(key);
	unsigned long flags;

	spin_lock_irqsave_nested(&poll->wq.lock, flags, nests);
	nests = revoke_poll_nests_swap(nests);
	__wake_up_locked_key(&poll->wq, mode, poll_to_key(mask & ~POLLFREE));
	revoke_poll_nests_swap(nests);
	spin_unlock_irqrestore(&poll->wq.lock, flags);
	if (!(mask & POLLFREE))
		return 0;
	/*
	 * The driver frees the waitqueue after an RCU grace period (see
	 * wake_up_pollfree()): let go of it as epoll does.  Setting ->head is
	 * the last access, revoke_poll_unhook() may free the hook right after.
	 */
	list_del_init(&wait->entry);
	/* Pairs with smp_load_acquire() in revoke_poll_hook_del(). */
	smp_store_release(&hook->head, NULL);
	return 0;
}

/* A driver may hold a spinlock around poll_wait(): no sleeping here. */
VISIBLE_IF_KUNIT struct revoke_poll_hook *revoke_poll_hook_atomic(void)
{
	KUNIT_STATIC_STUB_REDIRECT(revoke_poll_hook_atomic);
	return kmalloc(sizeof(struct revoke_poll_hook),
		       GFP_ATOMIC | __GFP_ACCOUNT | __GFP_NOWARN);
}

static struct revoke_poll_hook *revoke_poll_hooked(struct revoke_poll *poll,
						   wait_queue_head_t *head)
{
	struct revoke_poll_hook *hook;

	list_for_each_entry(hook, &poll->hooks, node)
		if (READ_ONCE(hook->head) == head)
			return hook;
	return NULL;
}

/* Take @hook off the driver's waitqueue, if the driver did not already. */
static void revoke_poll_hook_del(struct revoke_poll_hook *hook)
{
	wait_queue_head_t *head;

	/* A head the driver let go of is freed after RCU. */
	rcu_read_lock();
	/* Pairs with smp_store_release() in revoke_poll_wake(). */
	head = smp_load_acquire(&hook->head);
	if (head)
		remove_wait_queue(head, &hook->wait);
	rcu_read_unlock();
}

/*
 * poll_wait() of the driver's ->poll: hook @head if it is not yet.  A hook
 * goes on the driver's waitqueue before it is on poll->hooks, where
 * other pollers look for it: a poller that finds it there may sleep, the
 * driver's wakeups reach it.  Hooks the driver let go of (POLLFREE) are
 * freed here, so that their number stays that of the driver's waitqueues.
 */
static void revoke_poll_queue(struct file *file, wait_queue_head_t *head,
			      poll_table *pt)
{
	struct revoke_poll_table *rpt = container_of(pt, struct revoke_poll_table,
						     pt);
	struct revoke_poll_table *root = rpt->root;
	struct revoke_poll *poll = rpt->poll;
	struct revoke_poll_hook *hook, *old, *next;
	unsigned long flags;
	bool hooked;

	spin_lock_irqsave(&poll->wq.lock, flags);
	hooked = revoke_poll_hooked(poll, head);
	spin_unlock_irqrestore(&poll->wq.lock, flags);
	if (hooked)
		return;

	hook = root->spare ?: revoke_poll_hook_atomic();
	root->spare = NULL;
	if (!hook) {
		root->failed = true;
		return;
	}
	hook->poll = poll;
	hook->head = head;
	hook->src = rpt->src;
	init_waitqueue_func_entry(&hook->wait, revoke_poll_wake);
	/* Not under poll->wq.lock: revoke_poll_wake() nests it in head->lock. */
	add_wait_queue(head, &hook->wait);

	spin_lock_irqsave(&poll->wq.lock, flags);
	hooked = revoke_poll_hooked(poll, head);
	if (!hooked)
		list_add_rcu(&hook->node, &poll->hooks);
	list_for_each_entry_safe(old, next, &poll->hooks, node) {
		/* Pairs with smp_store_release() in revoke_poll_wake(). */
		if (!smp_load_acquire(&old->head)) {
			list_del_rcu(&old->node);
			kfree_rcu(old, rcu);
		}
	}
	spin_unlock_irqrestore(&poll->wq.lock, flags);
	if (hooked) {
		/* Another poller hooked it meanwhile. */
		revoke_poll_hook_del(hook);
		root->spare = hook;
	}
}

/**
 * revoke_poll_init - set up poll forwarding for one open file
 * @poll: the file's, in state that lives as long as the file
 */
void revoke_poll_init(struct revoke_poll *poll)
{
	init_waitqueue_head(&poll->wq);
	INIT_LIST_HEAD(&poll->hooks);
}

/**
 * revoke_poll_call - call a driver's ->poll, its pollers queued on @poll
 * @poll: the file's poll forwarding
 * @file: the file
 * @pt: the caller's poll table, which queues the caller (pt->_qproc)
 * @driver_poll: the driver's ->poll
 *
 * The caller is queued on @poll's waitqueue, not the driver's; hooks on
 * the driver's waitqueues forward its wakeups.  Called inside the file's
 * gate, so that revoke_poll_unhook() does not race it.
 *
 * A hook that cannot be allocated inside the driver's ->poll, which may
 * hold a spinlock, is allocated here and the driver polled again (a
 * ->poll may be called any number of times; the masks of the rounds are
 * or-ed, so that an event one round consumed is not lost): each round
 * hooks one more of its waitqueues.  The caller may sleep, since it
 * queues itself to; those of select() and epoll allocate with GFP_KERNEL
 * too.  A driver that polls another revokable file with the table it got
 * is in that ->poll: the nested call leaves the retry to the outermost.
 *
 * Return: the driver's mask; with EPOLLERR only if a hook could not be
 * allocated even here, where select() and epoll_ctl() would fail with
 * -ENOMEM: a task being killed, or a memory cgroup at its limit.
 */
noinline __poll_t revoke_poll_call(struct revoke_poll *poll, struct file *file,
				   poll_table *pt,
				   __poll_t (*driver_poll)(struct file *,
							   poll_table *))
{
	struct revoke_poll_table rpt = { .poll = poll, .root = &rpt };
	__poll_t ret = 0;

	if (pt->_qproc == revoke_poll_queue) {
		struct revoke_poll_table *outer;

		outer = container_of(pt, struct revoke_poll_table, pt);
		rpt.root = outer->root;
		outer->src = poll;
		poll_wait(file, &poll->wq, pt);
		outer->src = NULL;
	} else {
		poll_wait(file, &poll->wq, pt);
	}
	init_poll_funcptr(&rpt.pt, revoke_poll_queue);
	rpt.pt._key = pt->_key;
	if (rpt.root != &rpt)
		return driver_poll(file, &rpt.pt);
	for (;;) {
		ret |= driver_poll(file, &rpt.pt);
		if (!rpt.failed)
			break;
		rpt.failed = false;
		if (!rpt.spare)
			rpt.spare = kmalloc(sizeof(*rpt.spare),
					    GFP_KERNEL_ACCOUNT);
		if (!rpt.spare)
			return ret | EPOLLERR;
	}
	kfree(rpt.spare);
	return ret;
}

/*
 * Wake the driver's waitqueues the file's pollers are hooked on, for a
 * call in flight that sleeps on one of them until file_revoked().  Called
 * with the gate closed; pollers in flight may still add hooks.
 */
void revoke_poll_wake_driver(struct revoke_poll *poll)
{
	struct revoke_poll_hook *hook;
	wait_queue_head_t *head;

	/* A head the driver let go of is freed after RCU. */
	rcu_read_lock();
	list_for_each_entry_rcu(hook, &poll->hooks, node) {
		/* Pairs with smp_store_release() in revoke_poll_wake(). */
		head = smp_load_acquire(&hook->head);
		if (head)
			wake_up_all(head);
	}
	rcu_read_unlock();
}

/*
 * Before the driver is released: no call is in flight and none can start,
 * so no hook is added meanwhile, and revoke_poll_wake_driver() is done.
 */
void revoke_poll_unhook(struct revoke_poll *poll)
{
	struct revoke_poll_hook *hook, *next;

	list_for_each_entry_safe(hook, next, &poll->hooks, node) {
		revoke_poll_hook_del(hook);
		kfree(hook);
	}
	INIT_LIST_HEAD(&poll->hooks);
}
