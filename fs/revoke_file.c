// SPDX-License-Identifier: GPL-2.0
/*
 * Revokable files: revoking one file, and releasing its driver.
 *
 * Revoking a file closes its gate, kicks the calls in flight out of the
 * driver, waits for them to leave, tears down what outlives a call
 * (mappings, locks) and runs the driver's ->release, once, early; the
 * final fput() releases a file that was not revoked.  The first revoker
 * to close the gate kicks, the first to find the calls gone releases, and
 * every revoker returns once the driver is released, whoever released it.
 * The state and the gate's slow paths are in fs/revoke.c, but the last
 * call out of a revoked file, revoke_left_dead(), which may finish the
 * revoke; domains, which revoke their files together, are in
 * fs/revoke_domain.c.
 *
 * Copyright (C) 2026 The revokable files authors
 */

#include <linux/atomic.h>
#include <linux/filelock.h>
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/wait_bit.h>

#include "revoke_internal.h"

static int revoke_claim(struct revokable_file *rf, bool killable);
static int revoke_finish(struct revokable_file *rf, bool killable);
static bool revoke_idle(struct revokable_file *rf, int own);
static bool revoke_released(struct revokable_file *rf);
static bool revoke_released_or_unclaimed(struct revokable_file *rf);
static int revoke_wait_calls(struct revokable_file *rf,
			     bool (*done)(struct revokable_file *rf),
			     bool killable);

/* No call in flight, takedowns included. */
static bool revoke_no_calls(struct revokable_file *rf)
{
	return revoke_idle(rf, 0);
}

/*
 * Wait on @rf until @done(@rf), killably if @killable: 0, or -EINTR.
 * Every change a revoker waits for wakes &rf->gate.active.
 */
static int revoke_wait(struct revokable_file *rf,
		       bool (*done)(struct revokable_file *rf), bool killable)
{
	if (!killable) {
		wait_var_event(&rf->gate.active, done(rf));
		return 0;
	}
	return wait_var_event_killable(&rf->gate.active, done(rf)) ? -EINTR : 0;
}

/**
 * revoke_left_dead - a call left a revoked file
 * @gate: the file's gate
 *
 * Wake the revokers waiting for it.  The call of a method that revoked its
 * own file finishes the revoke (see revoke_one()), once the other calls
 * have left, killably: it is in the caller's syscall, out of the driver.
 * Any other call leaves it to a revoker or to the final fput(), wherever
 * the call was (a page fault, __fput()).  For the gate's inline paths in
 * <linux/revoke_gate.h> only.
 *
 * Context: Process context, or a page fault.
 */
noinline void revoke_left_dead(struct revoke_gate *gate)
{
	struct revokable_file *rf = gate_revokable(gate);

	/* The outermost of the method's own nested calls finishes. */
	if (unlikely(READ_ONCE(rf->self) == current) &&
	    !revoke_in_call(rf)) {
		if (!revoke_wait_calls(rf, revoke_no_calls, true) &&
		    revoke_claim(rf, true) > 0)
			revoke_finish(rf, true);
		WRITE_ONCE(rf->self, NULL);
		/* Revokers waiting for the release test ->self: see revoke_one(). */
		smp_mb();
	}
	wake_up_var(&rf->gate.active);
}

/*
 * Releasing the driver.  Two parties race to do it: revoke, and the final
 * fput() of a file that was not revoked.  The first to set REVOKE_RELEASED
 * calls ->release; a revoker that lost waits for REVOKE_DONE, so that when
 * revoke returns the driver's ->release has run, exactly once.  A final
 * fput() that loses waits for the revoker to be done (revoke_fop_release()),
 * which only one that could not hold the file can make it do
 * (revoke_unpinned()).
 */
static void revoke_release_driver(struct revokable_file *rf)
{
	struct file *file = rf->file;

	revoke_poll_unhook(&rf->poll);
	/* Done already by __fput() unless the gate refused it. */
	if ((file->f_flags & FASYNC) && rf->real->fasync)
		rf->real->fasync(-1, file, 0);
	if (rf->real->release)
		rf->real->release(file_inode(file), file);
}

/*
 * The driver is released.  Every wait of the revokers is on @active, woken
 * here too: for the calls to leave, the takedowns, the release.
 */
static void revoke_done(struct revokable_file *rf)
{
	/* ->release's accesses first: a waiter may free what they touch. */
	smp_mb__before_atomic();
	set_bit(REVOKE_DONE, &rf->flags);
	/* Order the bit before wake_up_var() looks for waiters. */
	smp_mb__after_atomic();
	wake_up_var(&rf->gate.active);
}

/* What file->f_op points to once the state is gone. */
static const struct file_operations revoke_released_fops;

/*
 * Remove what outlives the calls: the file's mappings, and every lock and
 * lease taken through the file, whoever owns it (fasync goes with the
 * driver, see revoke_release_driver()).  The gate is closed and
 * REVOKE_RELEASED claimed, so the driver's methods are called by this
 * task only (see revoke_enter_takedown()).
 */
static void revoke_remove_locks(struct revokable_file *rf)
{
	WRITE_ONCE(rf->teardown, current);
	locks_remove_file_all(rf->file);
	WRITE_ONCE(rf->teardown, NULL);
}

/* 0, or -EINTR: killed, the rest is the next revoker's or __fput()'s. */
static int revoke_teardown(struct revokable_file *rf, bool killable)
{
	int err = revoke_unmap(rf, killable);

	if (err)
		return err;
	revoke_remove_locks(rf);
	return 0;
}

/**
 * revoke_fop_release - the proxy's ->release
 * @inode: the file's inode
 * @file: the file, at its final fput()
 *
 * Releases the driver unless a revoker did, and frees the state.  __fput()
 * reads file->f_op once more after it (fops_put()), so f_op is pointed away
 * from the proxy, which is in the driver's module, before the state puts
 * that module: a revoked file holds it until it is closed.
 *
 * Return: 0.
 */
int revoke_fop_release(struct inode *inode, struct file *file)
{
	struct revokable_file *rf = file_revokable(file);
	struct module *owner = rf->real->owner;

	/*
	 * A revoker that claimed the release could not hold the file
	 * (revoke_unpinned()): wait, for it uses the file, unless it gives
	 * the claim back (killed).
	 */
	if (!revoke_claim(rf, false))
		goto released;
	/*
	 * Revoked, and its revoker killed: no call and no mapping is left,
	 * and the closers' unlocks were takedowns, but remove the locks all
	 * the same, so that no lock record outlives the file.
	 */
	if (test_bit(REVOKE_DEAD, &rf->flags))
		revoke_remove_locks(rf);
	/*
	 * A driver released at the last close only may free the domain in
	 * its ->release (a sound card's, with its last file): out of it
	 * first.  No revoker releases such a file, nor waits for its
	 * release; one that found it in the domain keeps the domain alive
	 * itself (see revoke_domain_del()).
	 */
	if (rf->results->release_at_close)
		revoke_domain_del(rf);
	revoke_release_driver(rf);
released:
	revoke_domain_del(rf);
	revoke_done(rf);
	/* Out of the domain first: ->release may free it (kernfs'). */
	file->f_op = &revoke_released_fops;
	/* No state to reach any more: file_revoked() is false, as for a plain file. */
	file->f_mode &= ~FMODE_REVOKABLE;
	file->f_revoke_gate = NULL;
	revoke_put(rf);
	module_put(owner);
	return 0;
}
EXPORT_SYMBOL_GPL(revoke_fop_release);

/*
 * Give the claim on the release back: a killed revoker leaves it to the
 * next revoker or to __fput(), which may be waiting for it.
 */
static int revoke_unclaim(struct revokable_file *rf)
{
	clear_bit_unlock(REVOKE_RELEASED, &rf->flags);
	/* Order the bit before wake_up_var() looks for waiters. */
	smp_mb__after_atomic();
	wake_up_var(&rf->gate.active);
	return -EINTR;
}

/*
 * Claim the release of @rf, or wait for the revoker or __fput() that
 * claimed it first to finish it; a revoker killed with the claim gives it
 * back (revoke_unclaim()), and this one takes it then, rather than wait
 * for the final fput().  1 if claimed, 0 if released by another, -EINTR
 * if killed while it waited.
 */
static int revoke_claim(struct revokable_file *rf, bool killable)
{
	while (test_and_set_bit(REVOKE_RELEASED, &rf->flags)) {
		if (revoke_wait(rf, revoke_released_or_unclaimed, killable))
			return -EINTR;
		if (revoke_released(rf))
			return 0;
	}
	return 1;
}

/*
 * With the release claimed (revoke_claim()), once no call of a revoked
 * file is in the driver: tear down and release the driver.  0, or -EINTR
 * if killed while it waited for a takedown (an unlock may sleep in the
 * driver), the claim given back.  The caller holds the file, or claimed
 * its release before __fput() did (revoke_unpinned()).
 */
static int revoke_finish(struct revokable_file *rf, bool killable)
{
	/* Takedowns that came before the claim, see revoke_enter_takedown(). */
	if (revoke_wait(rf, revoke_no_calls, killable) ||
	    revoke_teardown(rf, killable))
		return revoke_unclaim(rf);
	revoke_release_driver(rf);
	revoke_domain_del(rf);
	revoke_done(rf);
	return 0;
}

static bool revoke_released(struct revokable_file *rf)
{
	/* Pairs with revoke_done(). */
	return test_bit_acquire(REVOKE_DONE, &rf->flags);
}

static bool revoke_released_or_unclaimed(struct revokable_file *rf)
{
	return revoke_released(rf) || !test_bit(REVOKE_RELEASED, &rf->flags);
}

/* Wait for whoever claimed the release of @rf: a revoker, or __fput(). */
int revoke_wait_released(struct revokable_file *rf, bool killable)
{
	return revoke_wait(rf, revoke_released, killable);
}

/* No call in flight but the revoker's @own (its call, its kick). */
static bool revoke_idle(struct revokable_file *rf, int own)
{
	return atomic_read(&rf->gate.active) == REVOKE_BIAS + own;
}

/* Kick the tasks noted in calls of @rf, but the revoker's own call. */
static void revoke_kick_tasks(struct revokable_file *rf)
{
	struct revoke_call *call;
	struct task_struct *t;

	/*
	 * @caller is cleared before its call leaves: a task read here was
	 * in the call, and is freed after RCU.
	 */
	rcu_read_lock();
	t = READ_ONCE(rf->gate.caller);
	if (t && t != current && !(t->flags & PF_KTHREAD))
		set_notify_signal(t);
	rcu_read_unlock();

	spin_lock(&rf->callers_lock);
	list_for_each_entry(call, &rf->callers, node) {
		t = call->task;
		if (t != current && !(t->flags & PF_KTHREAD))
			set_notify_signal(t);
	}
	spin_unlock(&rf->callers_lock);
}

/*
 * Get the calls in flight of a revoked file out of the driver.  Calls
 * sleeping interruptibly are kicked without the driver's help: the tasks
 * the file noted in its calls get TIF_NOTIFY_SIGNAL, as io_uring does it,
 * so their waits end with -ERESTARTSYS and the syscall restarts into the
 * closed gate, to return what a revoked file returns (a wait ending with
 * -EINTR gives that too: see revoke_result()).  A task that left
 * the file between the look at it and the kick is kicked for nothing: an
 * interruptible wait of its ends early, as for a signal with SA_RESTART.
 * Kernel threads never return to user space to clear the flag and are not
 * kicked.  Then calls that cooperate: their cancellations run, the
 * domain's kick hook, and the driver's waitqueues the file is polled on
 * are woken, for drivers that wait for file_revoked().
 */
static void revoke_kick(struct revokable_file *rf, int own)
{
	struct revoke_cancellation *c;

	/* Pairs with the full barrier of the increment in revoke_enter(). */
	smp_mb__after_atomic();
	if (revoke_idle(rf, own))
		return;

	revoke_kick_tasks(rf);

	mutex_lock(&rf->cancel_lock);
	while ((c = list_first_entry_or_null(&rf->cancellations,
					     struct revoke_cancellation, node))) {
		list_del_init(&c->node);
		c->cancel(rf->file, c->data);
	}
	mutex_unlock(&rf->cancel_lock);

	if (rf->kick)
		rf->kick(rf->file);
	revoke_poll_wake_driver(&rf->poll);
}

/* When revoke_wait_calls() kicks the calls' tasks again. */
struct revoke_rekick {
	unsigned long next;
	unsigned long delay;
};

/*
 * Sleep until woken or the next kick is due, then kick if it is, however
 * often the wait was woken meanwhile: refused calls wake it at will.
 */
static void revoke_wait_kick(struct revokable_file *rf,
			     struct revoke_rekick *k)
{
	long left = (long)(k->next - jiffies);

	if (left > 0)
		schedule_timeout(left);
	if (time_before(jiffies, k->next))
		return;
	revoke_kick_tasks(rf);
	k->delay = min(k->delay * 2, (unsigned long)HZ);
	k->next = jiffies + k->delay;
}

/*
 * Wait for calls in flight to leave, as revoke_wait() does.  A call counted
 * when the gate closed may not have noted its task yet (see
 * revoke_gate_enter_idle()), and would have missed the kick: the wait kicks
 * the calls' tasks again, 1, 2, 4... jiffies apart, up to a second.
 */
static int revoke_wait_calls(struct revokable_file *rf,
			     bool (*done)(struct revokable_file *rf),
			     bool killable)
{
	unsigned int state = killable ? TASK_KILLABLE : TASK_UNINTERRUPTIBLE;
	struct revoke_rekick k = { .next = jiffies + 1, .delay = 1 };

	if (done(rf))
		return 0;
	return ___wait_var_event(&rf->gate.active, done(rf), state, 0, 0,
				 revoke_wait_kick(rf, &k)) ? -EINTR : 0;
}

/*
 * Close the gate: new calls fail, pollers are woken, calls are kicked.  The
 * kick counts as a call in flight, so that no other revoker releases the
 * driver before it is done.
 */
static void revoke_close(struct revokable_file *rf, int own)
{
	atomic_add(REVOKE_BIAS + 1, &rf->gate.active);
	/*
	 * Every poller, exclusive or not, polls again and finds it revoked,
	 * whatever events it waits for.
	 */
	if (wq_has_sleeper(&rf->poll.wq))
		__wake_up(&rf->poll.wq, TASK_NORMAL, 0,
			  poll_to_key(REVOKED_POLL | rf->results->poll));
	revoke_kick(rf, own + 1);
	/* The kick leaves as a refused call does, waking other revokers. */
	revoke_refused(rf);
}

/*
 * The calls in flight have left, but for the call of a method revoking
 * its own file, which finishes the revoke as it leaves.
 */
static bool revoke_calls_left(struct revokable_file *rf)
{
	struct task_struct *self = READ_ONCE(rf->self);

	return revoke_idle(rf, self ? revoke_calls_of(rf, self) : 0);
}

/* No call in flight but the caller's own. */
static bool revoke_own_calls_left(struct revokable_file *rf)
{
	return revoke_idle(rf, revoke_calls_of(rf, current));
}

/* The release is done, or the method's call that was to do it gave up. */
static bool revoke_self_gone(struct revokable_file *rf)
{
	return revoke_released(rf) || !READ_ONCE(rf->self);
}

/*
 * Close @rf's gate and kick its calls, unless a revoker did: revoke_one()'s
 * first step, which a domain's revoke takes for all its files before it
 * waits for any (see __revoke_domain_files()).
 */
void revoke_shut(struct revokable_file *rf)
{
	if (!test_and_set_bit(REVOKE_DEAD, &rf->flags))
		revoke_close(rf, revoke_calls_of(rf, current));
}

/*
 * Revoke one file the caller holds a reference on.  The first revoker
 * closes the gate and kicks the calls in flight; every revoker then waits
 * for those calls to leave, and the first to find them gone tears down and
 * releases the driver while the others wait for it to be done.  So each
 * revoker returns only once the driver is released, whoever released it.
 *
 * A revoker killed while it waits returns -EINTR and leaves the file
 * revoked: the next revoker, or the final fput(), releases the driver.
 * No call finishes a revoke as it leaves (it may be a page fault holding
 * mmap_lock, or a call from __fput() itself), but for the one below.
 *
 * A method may revoke its own file (a "remove" attribute): the first to do
 * so (@rf->self) waits for the other calls, and leaves the release to its
 * own call, which finishes the revoke as it leaves (revoke_left_dead()),
 * having waited for the other calls again: the method, and the helpers
 * around it (simple_attr_write(), seq_file), may use the file's private
 * data until then.  Other revokers wait for that call to finish, but for
 * a revoker of @d, the domain being revoked, inside a method of another
 * file of it: two methods revoking their domain would wait for each other.
 * A second method revoking its own file returns at once, and its call is
 * waited for by the first one's.  A file is the caller's own if the caller
 * is in a call of it, nested in other calls or not.
 */
int revoke_one(struct revokable_file *rf, struct revoke_domain *d,
	       bool killable)
{
	int own;
	int err;

	revoke_shut(rf);
	own = revoke_calls_of(rf, current);
	/* Its driver is released by the final fput(), see revoke_results. */
	if (own && rf->results->release_at_close)
		return revoke_wait_calls(rf, revoke_own_calls_left, killable);
	if (own) {
		if (cmpxchg(&rf->self, NULL, current))
			return 0;
		/* Revokers waiting for the calls count this one out now. */
		wake_up_var(&rf->gate.active);
		return revoke_wait_calls(rf, revoke_own_calls_left, killable);
	}

	/*
	 * The gates of a kind of domain are one lock class; a revoke from
	 * inside a call of another file of that class (a "remove" method
	 * revoking its whole domain) waits as subclass 1, or lockdep would
	 * take it for a recursive read-write deadlock.
	 */
	revoke_gate_lockdep(&rf->gate,
			    rwsem_acquire(rf->gate.dep_map,
					  lock_is_held(rf->gate.dep_map), 0,
					  _RET_IP_));
	revoke_gate_lockdep(&rf->gate,
			    rwsem_release(rf->gate.dep_map, _RET_IP_));
	if (rf->results->release_at_close) {
		err = revoke_wait_calls(rf, revoke_calls_left, killable);
		/* No more SIGIO: the calls are gone, the final fput() is not. */
		if (!err && (rf->file->f_flags & FASYNC) && rf->real->fasync)
			rf->real->fasync(-1, rf->file, 0);
		return err;
	}
	for (;;) {
		err = revoke_wait_calls(rf, revoke_calls_left, killable);
		if (err)
			return err;
		/* Pairs with smp_mb() in revoke_left_dead(). */
		smp_rmb();
		if (!READ_ONCE(rf->self))
			break;
		/*
		 * The method's call finishes, or gives up when killed; a
		 * method of the same domain does not wait for it, or two
		 * methods revoking their domain would wait for each other.
		 */
		if (d && revoke_in_domain_call(d))
			return 0;
		err = revoke_wait(rf, revoke_self_gone, killable);
		if (err || revoke_released(rf))
			return err;
	}
	err = revoke_claim(rf, killable);
	if (err <= 0)
		return err;
	return revoke_finish(rf, killable);
}

/*
 * Revoke a file in its final fput(), which the caller cannot hold: claim
 * its release first, so that __fput(), in revoke_fop_release(), waits for this
 * revoker and the file stays until it is done; if __fput() or another
 * revoker claimed it, wait for them.  No call can reach it but __fput()'s
 * own takedowns (epoll, aio, io_uring, splice and mappings hold the file).
 * A revoker inside a call or the release of this very file (a ->release
 * removing its own object) waits for itself: not handled.
 */
int revoke_unpinned(struct revokable_file *rf, bool killable)
{
	int err = revoke_claim(rf, killable);

	if (err <= 0)
		return err;
	if (!test_and_set_bit(REVOKE_DEAD, &rf->flags))
		revoke_close(rf, 0);
	err = revoke_wait_calls(rf, revoke_calls_left, killable);
	/* The claim back to __fput(), which releases the driver itself. */
	if (err || rf->results->release_at_close) {
		revoke_unclaim(rf);
		return err;
	}
	return revoke_finish(rf, killable);
}

/**
 * revoke_file - revoke one open file description
 * @file: the file; the caller holds a reference
 *
 * Context: Process context; sleeps killably until the calls in flight have
 * left.
 * A file its filesystem gates in its own state is revoked by its
 * super_operations->revoke.
 *
 * Return: 0 once the file is revoked and its driver released (called from
 * a method of @file, once that method returns); -EINVAL if @file is not
 * revokable; -EINTR if a fatal signal cut the wait short, in which case
 * the file is revoked and its driver released by the next revoke or the
 * final fput().
 */
int revoke_file(struct file *file)
{
	struct revokable_file *rf = file_revokable_or_null(file);
	const struct super_operations *sop = file_inode(file)->i_sb->s_op;

	if (rf)
		return revoke_one(rf, NULL, true);
	/* A file its filesystem gates itself (kernfs') */
	if ((file->f_op->fop_flags & FOP_REVOKE_BY_OPEN) && sop->revoke)
		return sop->revoke(file_inode(file), file);
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(revoke_file);

/**
 * revoke_file_shut - cut one open file off, without waiting
 * @file: the file, revokable; the caller holds it, or a lock its driver's
 *	->release takes
 *
 * New calls of @file fail as on a revoked file, and its calls in flight
 * are kicked, as revoke_file() does first; nothing is waited for and the
 * driver is not released.  For a driver that cuts its files off holding
 * a lock their calls take, and gets them out of its waits itself: tty
 * hangup.  revoke_file() of @file afterwards waits for the calls.
 *
 * Context: Process context; may sleep.
 */
void revoke_file_shut(struct file *file)
{
	revoke_shut(file_revokable(file));
}
EXPORT_SYMBOL_GPL(revoke_file_shut);
