// SPDX-License-Identifier: GPL-2.0
/*
 * Revokable files.
 *
 * A file made revokable when it is opened (O_REVOKABLE, FOP_REVOKABLE, or
 * its ->open calling revoke_file_install()) gets a struct revokable_file.
 * It holds a copy of the file's file_operations, the proxy, installed as
 * file->f_op before the file is visible: every proxy method enters the
 * file's gate, calls the driver's method and leaves.  Revoking closes the
 * gate, waits for the calls in flight, tears down what outlives calls and
 * runs the driver's ->release, once, early.  Files that are not revokable
 * never get here.
 *
 * Copyright (C) 2026 The revokable files authors
 */

#include <linux/atomic.h>
#include <linux/file.h>
#include <linux/filelock.h>
#include <linux/fs.h>
#include <linux/io_uring/cmd.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/revoke.h>
#include <linux/rhashtable.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/syscalls.h>
#include <linux/wait_bit.h>

/* Added to revokable_file.active when the file is revoked. */
#define REVOKE_BIAS	INT_MIN

/* revokable_file.flags */
enum {
	REVOKE_DEAD,		/* the gate is closed for good */
	REVOKE_RELEASED,	/* the driver's release was claimed */
	REVOKE_DONE,		/* ... and has returned */
};

struct revoke_inode_domain;
struct revoke_vm;

/*
 * The state of one revokable file.  Allocated at open, freed at the final
 * fput() (revoke_release()), or later, when the last revoker looking at it
 * lets go.  Nothing else holds it: no worker, no timer.
 */
struct revokable_file {
	/* calls in flight; REVOKE_BIAS is added once the file is revoked */
	atomic_t active;
	/* the task in the file's one call, if it came to an idle file */
	struct task_struct *caller;
	/* @caller's calls nested in that one; only @caller changes it */
	unsigned int caller_nested;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	/* the gate's lock class: its domain's, see revoke_domain_init() */
	struct lockdep_map *dep_map;
#endif
	/* REVOKE_* bits */
	unsigned long flags;
	/* one for the file, one per revoker holding the state */
	refcount_t ref;
	struct file *file;
	/* the driver's methods; the file's reference on their owner is ours */
	const struct file_operations *real;
	/* the domain while the file is in it; changed under domain->lock */
	struct revoke_domain *domain;
	/* the per-inode domain @domain belongs to, or NULL if embedded */
	struct revoke_inode_domain *inode_domain;
	/* in domain->files until the driver is released */
	struct list_head node;
	/* the file's place in domain->files, see __revoke_domain() */
	u64 seq;
	/* the task tearing the file down, which may still call the driver */
	struct task_struct *teardown;
	/* the task whose call revoked the file: it finishes as it leaves */
	struct task_struct *self;
	/* the mappings' state, from the first mmap() on */
	struct revoke_vm *vm;
	/* pollers wait here, never on the driver's waitqueues */
	wait_queue_head_t poll_wq;
	/* struct revoke_poll_hook on the driver's waitqueues, see revoke_poll() */
	struct list_head poll_hooks;
	/* the domain's kick hook, see revoke_kick() */
	void (*kick)(struct file *file);
	/* protects @cancellations, and runs them */
	struct mutex cancel_lock;
	/* struct revoke_cancellation of calls in flight */
	struct list_head cancellations;
	/* protects @callers */
	spinlock_t callers_lock;
	/* struct revoke_call of the calls in flight but @caller's */
	struct list_head callers;
	/* file->f_op: @real's methods, each through the gate */
	struct file_operations proxy;
};

static inline struct revokable_file *file_revokable(const struct file *file)
{
	return container_of(file->f_op, struct revokable_file, proxy);
}

static inline struct revokable_file *file_revokable_or_null(const struct file *file)
{
	return file->f_mode & FMODE_REVOKABLE ? file_revokable(file) : NULL;
}

static void revoke_vm_free(struct revoke_vm *vm);

static void revoke_put(struct revokable_file *rf)
{
	if (!refcount_dec_and_test(&rf->ref))
		return;
	revoke_vm_free(rf->vm);
	kfree(rf);
}

/*
 * Per-inode domains, for revoke(2): an rhashtable keyed by the inode, so
 * that struct inode does not grow.  An entry is created by the first
 * revokable open of its inode and freed when it has no file and no revoker
 * left; each file in the domain holds a reference.  Lookups are under RCU;
 * insertion and removal under revoke_inodes_lock.
 */
struct revoke_inode_domain {
	struct rhash_head hash;
	const struct inode *inode;
	refcount_t ref;
	struct revoke_domain domain;
	struct rcu_head rcu;
};

static const struct rhashtable_params revoke_inode_params = {
	.key_len	= sizeof(const struct inode *),
	.key_offset	= offsetof(struct revoke_inode_domain, inode),
	.head_offset	= offsetof(struct revoke_inode_domain, hash),
	.automatic_shrinking = true,
};

static struct rhashtable revoke_inodes;
static DEFINE_MUTEX(revoke_inodes_lock);

static struct revoke_inode_domain *revoke_inode_domain_find(const struct inode *inode)
{
	struct revoke_inode_domain *id;

	rcu_read_lock();
	id = rhashtable_lookup(&revoke_inodes, &inode, revoke_inode_params);
	if (id && !refcount_inc_not_zero(&id->ref))
		id = NULL;
	rcu_read_unlock();
	return id;
}

static struct revoke_inode_domain *revoke_inode_domain_get(const struct inode *inode)
{
	struct revoke_inode_domain *id, *new;

	id = revoke_inode_domain_find(inode);
	if (id)
		return id;

	new = kmalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return ERR_PTR(-ENOMEM);
	new->inode = inode;
	refcount_set(&new->ref, 1);
	revoke_domain_init(&new->domain);

	/* Under the lock, an entry in the table has a reference left. */
	mutex_lock(&revoke_inodes_lock);
	id = rhashtable_lookup_get_insert_fast(&revoke_inodes, &new->hash,
					       revoke_inode_params);
	if (id && !IS_ERR(id))
		refcount_inc(&id->ref);
	mutex_unlock(&revoke_inodes_lock);
	if (!id)
		return new;
	kfree(new);
	return id;
}

static void revoke_inode_domain_put(struct revoke_inode_domain *id)
{
	if (!refcount_dec_and_mutex_lock(&id->ref, &revoke_inodes_lock))
		return;
	rhashtable_remove_fast(&revoke_inodes, &id->hash, revoke_inode_params);
	mutex_unlock(&revoke_inodes_lock);
	kfree_rcu(id, rcu);
}

/**
 * __revoke_domain_init - initialise a domain embedded in a filesystem object
 * @domain: the domain
 * @dep_map: the lock class of its files' gates (see revoke_domain_init())
 *
 * Called through revoke_domain_init(), which gives each of its callers a
 * lock class.
 */
void __revoke_domain_init(struct revoke_domain *domain,
			  struct lockdep_map *dep_map)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	domain->dep_map = dep_map;
#endif
	spin_lock_init(&domain->lock);
	INIT_LIST_HEAD(&domain->files);
	domain->seq = 0;
	domain->kick = NULL;
	atomic_set(&domain->users, 0);
}
EXPORT_SYMBOL_GPL(__revoke_domain_init);

/*
 * Take @rf out of its domain: once revoke released its driver, or at the
 * final fput(), one after the other (a revoker holds a reference on the
 * file).  Until then a revoked file stays in its domain, so that a revoker
 * coming later, the removal of the domain's object above all, finds it and
 * waits for REVOKE_DONE, set after this.  The domain is alive while @rf is
 * in it.
 */
static void revoke_domain_del(struct revokable_file *rf)
{
	struct revoke_domain *d = rf->domain;

	if (!d)
		return;
	spin_lock(&d->lock);
	list_del_init(&rf->node);
	rf->domain = NULL;
	spin_unlock(&d->lock);
	if (rf->inode_domain)
		revoke_inode_domain_put(rf->inode_domain);
}

/*
 * The gate.  A call enters by incrementing @active, and is in if the value
 * it found was not negative; it is negative for good once revoke has added
 * REVOKE_BIAS, and the revoker then waits for @active to come down to
 * REVOKE_BIAS.  A call that is refused, and one that leaves a revoked file,
 * find @active negative and take the slow path, revoke_refused() or
 * revoke_left_dead().  The gate is annotated for lockdep as a read lock,
 * like kernfs' active reference, of its domain's lock class (see
 * revoke_domain_init()), so that a revoke that waits for a call of the
 * revoker's own, or two methods revoking each other's domains, are
 * reported.
 */

static int revoke_finish(struct revokable_file *rf, bool killable);

static bool revoke_idle(struct revokable_file *rf, int own);
static bool revoke_released(struct revokable_file *rf);
static int revoke_wait_calls(struct revokable_file *rf,
			     bool (*done)(struct revokable_file *rf),
			     bool killable);
static bool revoke_in_call(struct revokable_file *rf);

/* No call in flight, takedowns included. */
static bool revoke_no_calls(struct revokable_file *rf)
{
	return revoke_idle(rf, 0);
}

/*
 * Wait on @rf until @done(@rf), killably if @killable: 0, or -EINTR.
 * Every change a revoker waits for wakes &rf->active.
 */
static int revoke_wait(struct revokable_file *rf,
		       bool (*done)(struct revokable_file *rf), bool killable)
{
	if (!killable) {
		wait_var_event(&rf->active, done(rf));
		return 0;
	}
	return wait_var_event_killable(&rf->active, done(rf)) ? -EINTR : 0;
}

/*
 * A call left a revoked file: wake the revokers waiting for it.  The call
 * of a method that revoked its own file finishes the revoke (see
 * revoke_one()), once the other calls have left, killably: it is in the
 * caller's syscall, out of the driver.  Any other call leaves it to a
 * revoker or to the final fput(), wherever the call was (a page fault,
 * __fput()).
 */
static noinline void revoke_left_dead(struct revokable_file *rf)
{
	/* The outermost of the method's own nested calls finishes. */
	if (unlikely(READ_ONCE(rf->self) == current) &&
	    !revoke_in_call(rf)) {
		if (!revoke_wait_calls(rf, revoke_no_calls, true) &&
		    revoke_finish(rf, true) == -EBUSY)
			revoke_wait(rf, revoke_released, true);
		WRITE_ONCE(rf->self, NULL);
		/* Revokers waiting for the release test ->self: see revoke_one(). */
		smp_mb();
	}
	wake_up_var(&rf->active);
}

/*
 * A call that came to a revoked file and did not reach the driver, or a
 * takedown that did (see revoke_enter_takedown()), leaves.
 */
static noinline void revoke_refused(struct revokable_file *rf)
{
	atomic_dec(&rf->active);
	/* Pairs with the barrier in the revokers' wait_var_event(). */
	smp_mb__after_atomic();
	wake_up_var(&rf->active);
}

/*
 * The gate is on every proxied call: a call costs the proxy's frame, one
 * atomic increment whose old value is tested, one atomic decrement whose
 * result's sign is tested, and two stores noting the calling task (see
 * make bench).
 *
 * The file notes the tasks inside its calls, so that revoke can kick them
 * out of an interruptible sleep in the driver (see revoke_kick()) without
 * looking at any other task.  The call that finds the file idle, the
 * common case, takes @caller: a store on entry and one on leaving.  A call
 * that finds others in flight lists itself in @callers, under
 * @callers_lock, out of line, unless it is nested in the task's own call
 * that holds @caller (a splice calling ->read_iter).  @caller is stored
 * after the increment, so a revoker may find a call counted and not noted
 * yet: it kicks again while it waits (revoke_wait_calls()).  A task in
 * nested calls (a driver calling into another revokable file, or into the
 * same one through the VFS) is noted by each file.
 */
struct revoke_call {
	/* the task in the call, if it is not revokable_file.caller */
	struct task_struct *task;
	/*
	 * In revokable_file.callers, or empty for a call nested in the
	 * task's own call that holds revokable_file.caller; unused if @task
	 * is NULL.  Not first: GCC realigns the stack of every proxy for a
	 * struct that starts with a 16-byte struct.
	 */
	struct list_head node;
};

static __always_inline void revoke_enter_idle(struct revokable_file *rf)
{
	WRITE_ONCE(rf->caller, current);
	rwsem_acquire_read(rf->dep_map, 0, 1, _RET_IP_);
}

static __always_inline void revoke_leave_idle(struct revokable_file *rf)
{
	rwsem_release(rf->dep_map, _RET_IP_);
	WRITE_ONCE(rf->caller, NULL);
	/* Fully ordered before revoke_left_dead() wakes the revokers. */
	if (unlikely(atomic_add_negative(-1, &rf->active)))
		revoke_left_dead(rf);
}

/*
 * A call that did not find the file idle: refused (false) if the file is
 * revoked, or in, listed among the callers.  A call nested in the task's
 * own call of the file, which holds @caller, is noted already.
 */
static noinline bool revoke_enter_busy(struct revokable_file *rf, int calls,
				       struct revoke_call *call)
{
	if (calls < 0) {
		revoke_refused(rf);
		return false;
	}
	call->task = current;
	if (READ_ONCE(rf->caller) == current) {
		INIT_LIST_HEAD(&call->node);
		WRITE_ONCE(rf->caller_nested, rf->caller_nested + 1);
	} else {
		spin_lock(&rf->callers_lock);
		list_add_tail(&call->node, &rf->callers);
		spin_unlock(&rf->callers_lock);
	}
	rwsem_acquire_read(rf->dep_map, 0, 1, _RET_IP_);
	return true;
}

static noinline void revoke_leave_busy(struct revokable_file *rf,
				       struct revoke_call *call)
{
	rwsem_release(rf->dep_map, _RET_IP_);
	if (!list_empty(&call->node)) {
		spin_lock(&rf->callers_lock);
		list_del(&call->node);
		spin_unlock(&rf->callers_lock);
	} else {
		WRITE_ONCE(rf->caller_nested, rf->caller_nested - 1);
	}
	if (atomic_add_negative(-1, &rf->active))
		revoke_left_dead(rf);
}

/*
 * Enter and leave, for the methods written out below.  The others, made
 * by REVOKE_PROXY(), do the same with the idle case inline and the rest
 * out of line.
 */
static __always_inline bool revoke_enter(struct revokable_file *rf,
					 struct revoke_call *call)
{
	int calls = atomic_fetch_inc(&rf->active);

	if (likely(!calls)) {
		call->task = NULL;
		revoke_enter_idle(rf);
		return true;
	}
	return revoke_enter_busy(rf, calls, call);
}

static __always_inline void revoke_leave(struct revokable_file *rf,
					 struct revoke_call *call)
{
	if (likely(!call->task))
		revoke_leave_idle(rf);
	else
		revoke_leave_busy(rf, call);
}

/*
 * How many calls of @rf @task is in: nested ones (a splice calling the
 * file's ->write_iter, through the VFS) count one each.  @task is only
 * compared, never followed.
 */
static int revoke_calls_of(struct revokable_file *rf, struct task_struct *task)
{
	struct revoke_call *call;
	int calls = 0;

	if (READ_ONCE(rf->caller) == task)
		calls = 1 + READ_ONCE(rf->caller_nested);
	spin_lock(&rf->callers_lock);
	list_for_each_entry(call, &rf->callers, node)
		calls += call->task == task;
	spin_unlock(&rf->callers_lock);
	return calls;
}

/* Whether the current task is inside a call of @rf. */
static bool revoke_in_call(struct revokable_file *rf)
{
	return revoke_calls_of(rf, current);
}

/*
 * Whether the current task is inside a call of a file of @d, which the
 * caller holds.
 */
static bool revoke_in_domain_call(struct revoke_domain *d)
{
	struct revokable_file *rf;
	bool in = false;

	spin_lock(&d->lock);
	list_for_each_entry(rf, &d->files, node) {
		in = revoke_in_call(rf);
		if (in)
			break;
	}
	spin_unlock(&d->lock);
	return in;
}

/*
 * Takedowns.  The driver's lock, flock, setlease and fasync methods also
 * take down what the file set up: unlocks, lease removal and fasync off,
 * made by each close() (locks_remove_posix()), by __fput() before
 * ->release and by the revoker's teardown.  They reach the driver through
 * a closed gate too, as long as it is not released, or a lock record kept
 * by the driver would outlive the file.  A takedown counts itself in
 * @active, then checks REVOKE_RELEASED; whoever claims REVOKE_RELEASED
 * waits for the takedowns that came before (revoke_finish()), so no call
 * reaches the driver under its ->release.  They are not noted as callers:
 * they do not sleep waiting for anything revoke could end.  The revoker's
 * own teardown calls go straight through.
 */
enum revoke_entry {
	REVOKE_REFUSED,		/* not in: the file is revoked */
	REVOKE_ENTERED,		/* in through the gate */
	REVOKE_TAKEDOWN,	/* a takedown of a revoked file */
	REVOKE_TEARDOWN,	/* the revoker's own teardown */
};

static enum revoke_entry revoke_enter_takedown(struct revokable_file *rf,
					       struct revoke_call *call,
					       bool takedown)
{
	if (revoke_enter(rf, call))
		return REVOKE_ENTERED;
	if (READ_ONCE(rf->teardown) == current)
		return REVOKE_TEARDOWN;
	if (!takedown)
		return REVOKE_REFUSED;
	atomic_inc(&rf->active);
	/* Pairs with test_and_set_bit(REVOKE_RELEASED) in revoke_finish(). */
	smp_mb__after_atomic();
	if (!test_bit(REVOKE_RELEASED, &rf->flags))
		return REVOKE_TAKEDOWN;
	revoke_refused(rf);
	return REVOKE_REFUSED;
}

static void revoke_leave_takedown(struct revokable_file *rf,
				  struct revoke_call *call,
				  enum revoke_entry entry)
{
	if (entry == REVOKE_ENTERED)
		revoke_leave(rf, call);
	else if (entry == REVOKE_TAKEDOWN)
		revoke_refused(rf);
}

/* A revoked character device reads as end of file, like a hung-up tty. */
static ssize_t revoked_read(struct file *file)
{
	return S_ISCHR(file_inode(file)->i_mode) ? 0 : -EIO;
}

#define REVOKED_POLL	(EPOLLIN | EPOLLRDNORM | EPOLLOUT | EPOLLWRNORM | \
			 EPOLLERR | EPOLLHUP)

/*
 * The proxy methods: enter, call the driver, leave.  REVOKE_PROXY() writes
 * one out from the driver's method's return type, the proxy's name, how
 * to find the file's state from the arguments, what a revoked file
 * returns, the driver's method, the prototype and the argument list.  The
 * call that finds the file idle runs inline; any other, refused or finding
 * calls in flight, is handed whole to a twin out of line (a tail call), so
 * that the common path keeps nothing alive across the driver's method but
 * the state.  Methods of other shapes are written out.
 */
#define PROTO(args...)	args
#define ARGS(args...)	args

#define REVOKE_PROXY(ret_t, name, rf_of, refused, method, proto, args)	\
static noinline ret_t revoke_##name##_busy(struct revokable_file *rf,	\
					  int calls, proto)		\
{									\
	struct revoke_call call;					\
	ret_t ret;							\
									\
	if (!revoke_enter_busy(rf, calls, &call))			\
		return refused;						\
	ret = method(args);						\
	revoke_leave_busy(rf, &call);					\
	return ret;							\
}									\
									\
static ret_t revoke_##name(proto)					\
{									\
	struct revokable_file *rf = rf_of;				\
	int calls = atomic_fetch_inc(&rf->active);			\
	ret_t ret;							\
									\
	if (unlikely(calls))						\
		return revoke_##name##_busy(rf, calls, args);		\
	revoke_enter_idle(rf);						\
	ret = method(args);						\
	revoke_leave_idle(rf);						\
	return ret;							\
}

/* The same, for a method that returns nothing. */
#define REVOKE_PROXY_VOID(name, rf_of, method, proto, args)		\
static noinline void revoke_##name##_busy(struct revokable_file *rf,	\
					  int calls, proto)		\
{									\
	struct revoke_call call;					\
									\
	if (!revoke_enter_busy(rf, calls, &call))			\
		return;							\
	method(args);							\
	revoke_leave_busy(rf, &call);					\
}									\
									\
static void revoke_##name(proto)					\
{									\
	struct revokable_file *rf = rf_of;				\
	int calls = atomic_fetch_inc(&rf->active);			\
									\
	if (unlikely(calls)) {						\
		revoke_##name##_busy(rf, calls, args);			\
		return;							\
	}								\
	revoke_enter_idle(rf);						\
	method(args);							\
	revoke_leave_idle(rf);						\
}

REVOKE_PROXY(loff_t, llseek, file_revokable(file), -EIO, rf->real->llseek,
	     PROTO(struct file *file, loff_t offset, int whence),
	     ARGS(file, offset, whence));

REVOKE_PROXY(ssize_t, read, file_revokable(file), revoked_read(file),
	     rf->real->read,
	     PROTO(struct file *file, char __user *buf, size_t len,
		   loff_t *pos),
	     ARGS(file, buf, len, pos));

REVOKE_PROXY(ssize_t, write, file_revokable(file), -EIO, rf->real->write,
	     PROTO(struct file *file, const char __user *buf, size_t len,
		   loff_t *pos),
	     ARGS(file, buf, len, pos));

REVOKE_PROXY(ssize_t, read_iter, file_revokable(iocb->ki_filp),
	     revoked_read(iocb->ki_filp), rf->real->read_iter,
	     PROTO(struct kiocb *iocb, struct iov_iter *to),
	     ARGS(iocb, to));

REVOKE_PROXY(ssize_t, write_iter, file_revokable(iocb->ki_filp), -EIO,
	     rf->real->write_iter,
	     PROTO(struct kiocb *iocb, struct iov_iter *from),
	     ARGS(iocb, from));

REVOKE_PROXY(int, iterate_shared, file_revokable(file), -EIO,
	     rf->real->iterate_shared,
	     PROTO(struct file *file, struct dir_context *ctx),
	     ARGS(file, ctx));

/*
 * poll.  A driver's ->poll puts the poller on the driver's waitqueues, and
 * its ->release may free them: a poller still there would then touch freed
 * memory (the PSI bug, CVE-2023-54019).  So the proxy puts the poller on
 * the file's own waitqueue, which lives as long as the file, and hangs a
 * hook owned by the state on each driver waitqueue the driver polls with,
 * to forward the driver's wakeups.  The hooks come off before the driver is
 * released, revoked or not, and revoke wakes every poller.
 */
struct revoke_poll_hook {
	/* in rf->poll_hooks: added under rf->poll_wq.lock, walked under RCU */
	struct list_head node;
	struct revokable_file *rf;
	/* the driver's waitqueue; NULL once the driver let go of it (POLLFREE) */
	wait_queue_head_t *head;
	wait_queue_entry_t wait;
	struct rcu_head rcu;
};

/* The poll table the driver's ->poll gets: the caller's, redirected. */
struct revoke_poll_table {
	poll_table pt;
	struct revokable_file *rf;
	bool failed;
};

static int revoke_poll_wake(wait_queue_entry_t *wait, unsigned int mode,
			    int sync, void *key)
{
	struct revoke_poll_hook *hook = container_of(wait, struct revoke_poll_hook,
						     wait);
	__poll_t mask = key_to_poll(key);

	__wake_up(&hook->rf->poll_wq, mode, 1, poll_to_key(mask & ~POLLFREE));
	if (!(mask & POLLFREE))
		return 0;
	/*
	 * The driver frees the waitqueue after an RCU grace period (see
	 * wake_up_pollfree()): let go of it as epoll does.  Setting ->head is
	 * the last access, revoke_poll_unhook() may free the hook right after.
	 */
	list_del_init(&wait->entry);
	/* Pairs with smp_load_acquire() in revoke_poll_unhook(). */
	smp_store_release(&hook->head, NULL);
	return 0;
}

static struct revoke_poll_hook *revoke_poll_hooked(struct revokable_file *rf,
						   wait_queue_head_t *head)
{
	struct revoke_poll_hook *hook;

	list_for_each_entry(hook, &rf->poll_hooks, node)
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
 * goes on the driver's waitqueue before it is on rf->poll_hooks, where
 * other pollers look for it: a poller that finds it there may sleep, the
 * driver's wakeups reach it.  Hooks the driver let go of (POLLFREE) are
 * freed here, so that their number stays that of the driver's waitqueues.
 */
static void revoke_poll_queue(struct file *file, wait_queue_head_t *head,
			      poll_table *pt)
{
	struct revoke_poll_table *rpt = container_of(pt, struct revoke_poll_table,
						     pt);
	struct revokable_file *rf = rpt->rf;
	struct revoke_poll_hook *hook, *old, *next;
	unsigned long flags;
	bool hooked;

	spin_lock_irqsave(&rf->poll_wq.lock, flags);
	hooked = revoke_poll_hooked(rf, head);
	spin_unlock_irqrestore(&rf->poll_wq.lock, flags);
	if (hooked)
		return;

	/* GFP_ATOMIC: a driver may hold a spinlock around poll_wait(). */
	hook = kmalloc(sizeof(*hook), GFP_ATOMIC | __GFP_ACCOUNT);
	if (!hook) {
		rpt->failed = true;
		return;
	}
	hook->rf = rf;
	hook->head = head;
	init_waitqueue_func_entry(&hook->wait, revoke_poll_wake);
	/* Not under poll_wq.lock: revoke_poll_wake() nests it in head->lock. */
	add_wait_queue(head, &hook->wait);

	spin_lock_irqsave(&rf->poll_wq.lock, flags);
	hooked = revoke_poll_hooked(rf, head);
	if (!hooked)
		list_add_rcu(&hook->node, &rf->poll_hooks);
	list_for_each_entry_safe(old, next, &rf->poll_hooks, node) {
		/* Pairs with smp_store_release() in revoke_poll_wake(). */
		if (!smp_load_acquire(&old->head)) {
			list_del_rcu(&old->node);
			kfree_rcu(old, rcu);
		}
	}
	spin_unlock_irqrestore(&rf->poll_wq.lock, flags);
	if (hooked) {
		/* Another poller hooked it meanwhile. */
		revoke_poll_hook_del(hook);
		kfree(hook);
	}
}

/* A caller that queues itself: onto the file's waitqueue, not the driver's. */
static noinline __poll_t revoke_poll_queued(struct revokable_file *rf,
					    struct file *file, poll_table *pt)
{
	struct revoke_poll_table rpt;
	__poll_t ret;

	poll_wait(file, &rf->poll_wq, pt);
	init_poll_funcptr(&rpt.pt, revoke_poll_queue);
	rpt.pt._key = pt->_key;
	rpt.rf = rf;
	rpt.failed = false;
	ret = rf->real->poll(file, &rpt.pt);
	/* The poller could miss the driver's wakeups: tell it something is wrong. */
	return rpt.failed ? ret | EPOLLERR : ret;
}

/*
 * Only a caller that queues itself (pt->_qproc) is redirected, out of
 * line; the others, like a poll() with no timeout, call the driver with
 * their own table.
 */
static __always_inline __poll_t revoke_poll_driver(struct file *file,
						   struct poll_table_struct *pt)
{
	struct revokable_file *rf = file_revokable(file);

	if (pt && pt->_qproc)
		return revoke_poll_queued(rf, file, pt);
	return rf->real->poll(file, pt);
}

REVOKE_PROXY(__poll_t, poll, file_revokable(file), REVOKED_POLL,
	     revoke_poll_driver,
	     PROTO(struct file *file, struct poll_table_struct *pt),
	     ARGS(file, pt));

/*
 * Wake the driver's waitqueues the file's pollers are hooked on, for a
 * call in flight that sleeps on one of them until file_revoked().  Called
 * with the gate closed; pollers in flight may still add hooks.
 */
static void revoke_poll_wake_driver(struct revokable_file *rf)
{
	struct revoke_poll_hook *hook;
	wait_queue_head_t *head;

	/* A head the driver let go of is freed after RCU. */
	rcu_read_lock();
	list_for_each_entry_rcu(hook, &rf->poll_hooks, node) {
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
static void revoke_poll_unhook(struct revokable_file *rf)
{
	struct revoke_poll_hook *hook, *next;

	list_for_each_entry_safe(hook, next, &rf->poll_hooks, node) {
		revoke_poll_hook_del(hook);
		kfree(hook);
	}
	INIT_LIST_HEAD(&rf->poll_hooks);
}

REVOKE_PROXY(long, unlocked_ioctl, file_revokable(file), -EIO,
	     rf->real->unlocked_ioctl,
	     PROTO(struct file *file, unsigned int cmd, unsigned long arg),
	     ARGS(file, cmd, arg));

REVOKE_PROXY(long, compat_ioctl, file_revokable(file), -EIO,
	     rf->real->compat_ioctl,
	     PROTO(struct file *file, unsigned int cmd, unsigned long arg),
	     ARGS(file, cmd, arg));

/*
 * Mappings outlive the mmap() call that made them, so their vm_ops are
 * gated too: the driver's mmap runs through the gate, then the VMA gets the
 * file's proxy vm_ops, which enter the gate and return SIGBUS once the file
 * is revoked.  Revoke zaps the file's VMAs after the calls in flight, the
 * faults among them, have left: the next access faults into the closed
 * gate.  The vm_ops methods that are not calls into the driver on behalf of
 * an access (open, close, may_split, mremap, name, find_special_page) would
 * run after revoke, on munmap() or fork(); a driver that has them cannot be
 * mapped through a revokable file, as kernfs refuses a bin file with ->close.
 */
#ifdef CONFIG_MMU
struct revoke_vm {
	spinlock_t lock;		/* protects @real and @mms */
	/* the driver's vm_ops, the same for every mapping of the file */
	const struct vm_operations_struct *real;
	/* vma->vm_ops of the file's mappings: @real's, through the gate */
	struct vm_operations_struct proxy;
	/* address spaces that may be mapping the file, see revoke_unmap() */
	struct list_head mms;
};

struct revoke_mm {
	struct list_head node;
	struct mm_struct *mm;
};

static struct revokable_file *vma_revokable(struct vm_area_struct *vma)
{
	return file_revokable(vma->vm_file);
}

REVOKE_PROXY(vm_fault_t, vm_fault, vma_revokable(vmf->vma), VM_FAULT_SIGBUS,
	     rf->vm->real->fault,
	     PROTO(struct vm_fault *vmf),
	     ARGS(vmf));

REVOKE_PROXY(vm_fault_t, vm_huge_fault, vma_revokable(vmf->vma),
	     VM_FAULT_SIGBUS, rf->vm->real->huge_fault,
	     PROTO(struct vm_fault *vmf, unsigned int order),
	     ARGS(vmf, order));

REVOKE_PROXY(vm_fault_t, vm_page_mkwrite, vma_revokable(vmf->vma),
	     VM_FAULT_SIGBUS, rf->vm->real->page_mkwrite,
	     PROTO(struct vm_fault *vmf),
	     ARGS(vmf));

REVOKE_PROXY(vm_fault_t, vm_pfn_mkwrite, vma_revokable(vmf->vma),
	     VM_FAULT_SIGBUS, rf->vm->real->pfn_mkwrite,
	     PROTO(struct vm_fault *vmf),
	     ARGS(vmf));

/* A revoked mapping has no driver left to object. */
REVOKE_PROXY(int, vm_mprotect, vma_revokable(vma), 0, rf->vm->real->mprotect,
	     PROTO(struct vm_area_struct *vma, unsigned long start,
		   unsigned long end, unsigned long newflags),
	     ARGS(vma, start, end, newflags));

REVOKE_PROXY(unsigned long, vm_pagesize, vma_revokable(vma), PAGE_SIZE,
	     rf->vm->real->pagesize,
	     PROTO(struct vm_area_struct *vma),
	     ARGS(vma));

REVOKE_PROXY(int, vm_access, vma_revokable(vma), -EIO, rf->vm->real->access,
	     PROTO(struct vm_area_struct *vma, unsigned long addr, void *buf,
		   int len, int write),
	     ARGS(vma, addr, buf, len, write));

#ifdef CONFIG_NUMA
REVOKE_PROXY(int, vm_set_policy, vma_revokable(vma), -EIO,
	     rf->vm->real->set_policy,
	     PROTO(struct vm_area_struct *vma, struct mempolicy *new),
	     ARGS(vma, new));

REVOKE_PROXY(struct mempolicy *, vm_get_policy, vma_revokable(vma), NULL,
	     rf->vm->real->get_policy,
	     PROTO(struct vm_area_struct *vma, unsigned long addr,
		   pgoff_t *ilx),
	     ARGS(vma, addr, ilx));
#endif

/*
 * As revoke_proxy_init(), for vm_ops; false if @real has a method that
 * cannot be gated.  ->map_pages is left out: it runs under RCU, and a
 * mapping does without it, faulting one page at a time.
 */
static bool revoke_vm_proxy_init(struct vm_operations_struct *proxy,
				 const struct vm_operations_struct *real)
{
	if (real->open || real->close || real->may_split || real->mremap ||
	    real->name || real->find_special_page)
		return false;
	*proxy = (struct vm_operations_struct) {};
	proxy->mprotect = real->mprotect ? revoke_vm_mprotect : NULL;
	proxy->fault = real->fault ? revoke_vm_fault : NULL;
	proxy->huge_fault = real->huge_fault ? revoke_vm_huge_fault : NULL;
	proxy->pagesize = real->pagesize ? revoke_vm_pagesize : NULL;
	proxy->page_mkwrite = real->page_mkwrite ? revoke_vm_page_mkwrite : NULL;
	proxy->pfn_mkwrite = real->pfn_mkwrite ? revoke_vm_pfn_mkwrite : NULL;
	proxy->access = real->access ? revoke_vm_access : NULL;
#ifdef CONFIG_NUMA
	proxy->set_policy = real->set_policy ? revoke_vm_set_policy : NULL;
	proxy->get_policy = real->get_policy ? revoke_vm_get_policy : NULL;
#endif
	return true;
}

/*
 * Before the driver's mmap: the file's revoke_vm, and @mm on its list, for
 * revoke_unmap() to wait for the mmap to be done.  An mm whose mmap_lock is
 * free has no mmap() of the file in flight, so its entry goes: the list
 * holds the address spaces mapping the file now, not all that ever did.
 * The state is dropped with the file's; the list is emptied by revoke.
 */
static int revoke_vm_get(struct revokable_file *rf, struct mm_struct *mm)
{
	struct revoke_vm *vm = READ_ONCE(rf->vm);
	struct revoke_mm *rm, *new, *tmp;
	LIST_HEAD(done);

	if (!vm) {
		vm = kzalloc(sizeof(*vm), GFP_KERNEL_ACCOUNT);
		if (!vm)
			return -ENOMEM;
		spin_lock_init(&vm->lock);
		INIT_LIST_HEAD(&vm->mms);
		if (cmpxchg(&rf->vm, NULL, vm)) {
			kfree(vm);
			vm = rf->vm;
		}
	}

	new = kmalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return -ENOMEM;
	mmgrab(mm);
	new->mm = mm;
	spin_lock(&vm->lock);
	list_for_each_entry_safe(rm, tmp, &vm->mms, node) {
		if (rm->mm == mm) {
			list_add(&new->node, &done);
			new = NULL;
			continue;
		}
		/* Ours is write-locked: a trylock fails, as for any mmap() in flight. */
		if (mmap_read_trylock(rm->mm)) {
			mmap_read_unlock(rm->mm);
			list_move(&rm->node, &done);
		}
	}
	if (new)
		list_add(&new->node, &vm->mms);
	spin_unlock(&vm->lock);

	list_for_each_entry_safe(rm, tmp, &done, node) {
		mmdrop(rm->mm);
		kfree(rm);
	}
	return 0;
}

/*
 * After the driver's mmap: gate the mapping, or undo it and fail.  A driver
 * that made the mapping anonymous memory (/dev/zero's private mappings)
 * left nothing of itself in it: the mapping is the process's and stays.
 * One that handed it to another file (/dev/zero's shared mappings get a
 * shmem file) cannot be gated: its vm_ops are found through that file.
 */
static int revoke_vm_install(struct revokable_file *rf,
			     struct vm_area_struct *vma)
{
	const struct vm_operations_struct *real = vma->vm_ops;
	struct revoke_vm *vm = rf->vm;
	bool ok = vma->vm_file == rf->file;

	if (vma_is_anonymous(vma))
		return 0;

	spin_lock(&vm->lock);
	if (ok && !vm->real) {
		ok = revoke_vm_proxy_init(&vm->proxy, real);
		if (ok)
			vm->real = real;
	} else {
		ok = ok && vm->real == real;
	}
	spin_unlock(&vm->lock);
	if (!ok) {
		if (real->close)
			real->close(vma);
		return -ENODEV;
	}
	vma->vm_ops = &vm->proxy;
	return 0;
}

static int revoke_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct revokable_file *rf = file_revokable(file);
	struct revoke_call call __uninitialized;
	int ret;

	if (!revoke_enter(rf, &call))
		return -ENODEV;
	ret = revoke_vm_get(rf, vma->vm_mm);
	if (!ret)
		ret = rf->real->mmap(file, vma);
	if (!ret) {
		/* Before the VMA is in, so before a fault: see check_vma_flags(). */
		mapping_set_revokable_maps(file->f_mapping);
		ret = revoke_vm_install(rf, vma);
	}
	revoke_leave(rf, &call);
	return ret;
}

/*
 * Zap the mappings of the revoked file, and only its own: other files of
 * the inode keep theirs.  An mmap() that has left the gate may not have
 * linked its VMA into the mapping yet, with page tables its driver already
 * filled; it holds its mm's mmap_lock until it has, so take and drop that
 * of each mm that mapped the file first.
 */
static void revoke_unmap(struct revokable_file *rf)
{
	struct address_space *mapping = rf->file->f_mapping;
	struct revoke_vm *vm = rf->vm;
	struct vm_area_struct *vma;
	struct revoke_mm *rm, *tmp;

	if (!vm)
		return;
	list_for_each_entry_safe(rm, tmp, &vm->mms, node) {
		mmap_read_lock(rm->mm);
		mmap_read_unlock(rm->mm);
		list_del(&rm->node);
		mmdrop(rm->mm);
		kfree(rm);
	}

	i_mmap_lock_read(mapping);
	vma_interval_tree_foreach(vma, &mapping->i_mmap, 0, ULONG_MAX) {
		if (vma->vm_file == rf->file && !vma_is_anonymous(vma))
			zap_vma_pages(vma);
	}
	i_mmap_unlock_read(mapping);
}

static void revoke_vm_free(struct revoke_vm *vm)
{
	struct revoke_mm *rm, *tmp;

	if (!vm)
		return;
	list_for_each_entry_safe(rm, tmp, &vm->mms, node) {
		mmdrop(rm->mm);
		kfree(rm);
	}
	kfree(vm);
}
#else /* !CONFIG_MMU: the driver's mapping would outlive revoke */
static int revoke_mmap(struct file *file, struct vm_area_struct *vma)
{
	return -ENODEV;
}

static void revoke_unmap(struct revokable_file *rf)
{
}

static void revoke_vm_free(struct revoke_vm *vm)
{
}
#endif

REVOKE_PROXY(int, flush, file_revokable(file), 0, rf->real->flush,
	     PROTO(struct file *file, fl_owner_t id),
	     ARGS(file, id));

REVOKE_PROXY(int, fsync, file_revokable(file), -EIO, rf->real->fsync,
	     PROTO(struct file *file, loff_t start, loff_t end, int datasync),
	     ARGS(file, start, end, datasync));

/*
 * The driver's fasync_helper() sets and clears FASYNC, not F_SETFL
 * (SETFL_MASK leaves it out): once the driver is released, FASYNC is off.
 */
static int revoke_fasync(int fd, struct file *file, int on)
{
	struct revokable_file *rf = file_revokable(file);
	struct revoke_call call __uninitialized;
	enum revoke_entry entry;
	int ret;

	entry = revoke_enter_takedown(rf, &call, !on);
	if (entry == REVOKE_REFUSED)
		return on ? -EIO : 0;
	ret = rf->real->fasync(fd, file, on);
	revoke_leave_takedown(rf, &call, entry);
	return ret;
}

static int revoke_lock(struct file *file, int cmd, struct file_lock *fl)
{
	struct revokable_file *rf = file_revokable(file);
	struct revoke_call call __uninitialized;
	enum revoke_entry entry;
	int ret;

	entry = revoke_enter_takedown(rf, &call, lock_is_unlock(fl));
	if (entry == REVOKE_REFUSED)
		return -EIO;
	ret = rf->real->lock(file, cmd, fl);
	revoke_leave_takedown(rf, &call, entry);
	return ret;
}

static int revoke_flock(struct file *file, int cmd, struct file_lock *fl)
{
	struct revokable_file *rf = file_revokable(file);
	struct revoke_call call __uninitialized;
	enum revoke_entry entry;
	int ret;

	entry = revoke_enter_takedown(rf, &call, lock_is_unlock(fl));
	if (entry == REVOKE_REFUSED)
		return -EIO;
	ret = rf->real->flock(file, cmd, fl);
	revoke_leave_takedown(rf, &call, entry);
	return ret;
}

static int revoke_setlease(struct file *file, int arg,
			   struct file_lease **flp, void **priv)
{
	struct revokable_file *rf = file_revokable(file);
	struct revoke_call call __uninitialized;
	enum revoke_entry entry;
	int ret;

	entry = revoke_enter_takedown(rf, &call, arg == F_UNLCK);
	if (entry == REVOKE_REFUSED)
		return -EIO;
	ret = rf->real->setlease(file, arg, flp, priv);
	revoke_leave_takedown(rf, &call, entry);
	return ret;
}

REVOKE_PROXY(unsigned long, get_unmapped_area, file_revokable(file), -ENODEV,
	     rf->real->get_unmapped_area,
	     PROTO(struct file *file, unsigned long addr, unsigned long len,
		   unsigned long pgoff, unsigned long flags),
	     ARGS(file, addr, len, pgoff, flags));

REVOKE_PROXY(ssize_t, splice_write, file_revokable(file), -EIO,
	     rf->real->splice_write,
	     PROTO(struct pipe_inode_info *pipe, struct file *file, loff_t *pos,
		   size_t len, unsigned int flags),
	     ARGS(pipe, file, pos, len, flags));

REVOKE_PROXY(ssize_t, splice_read, file_revokable(file), revoked_read(file),
	     rf->real->splice_read,
	     PROTO(struct file *file, loff_t *pos, struct pipe_inode_info *pipe,
		   size_t len, unsigned int flags),
	     ARGS(file, pos, pipe, len, flags));

REVOKE_PROXY_VOID(splice_eof, file_revokable(file), rf->real->splice_eof,
		  PROTO(struct file *file),
		  ARGS(file));

REVOKE_PROXY(long, fallocate, file_revokable(file), -EIO, rf->real->fallocate,
	     PROTO(struct file *file, int mode, loff_t offset, loff_t len),
	     ARGS(file, mode, offset, len));

REVOKE_PROXY_VOID(show_fdinfo, file_revokable(file), rf->real->show_fdinfo,
		  PROTO(struct seq_file *m, struct file *file),
		  ARGS(m, file));

#ifndef CONFIG_MMU
REVOKE_PROXY(unsigned int, mmap_capabilities, file_revokable(file), 0,
	     rf->real->mmap_capabilities,
	     PROTO(struct file *file),
	     ARGS(file));
#endif

/*
 * The VFS calls copy_file_range only when both files have the same method.
 * Every proxy has the same one, so compare the drivers' methods here, once
 * both gates are held (a revoked driver may be gone).
 */
static ssize_t revoke_copy_file_range(struct file *file_in, loff_t pos_in,
				      struct file *file_out, loff_t pos_out,
				      size_t len, unsigned int flags)
{
	struct revokable_file *in = file_revokable(file_in);
	struct revokable_file *out = file_revokable(file_out);
	struct revoke_call call __uninitialized, call_out __uninitialized;
	ssize_t ret = -EIO;

	if (!revoke_enter(in, &call))
		return -EIO;
	if (revoke_enter(out, &call_out)) {
		ret = -EXDEV;
		if (in->real->copy_file_range == out->real->copy_file_range)
			ret = out->real->copy_file_range(file_in, pos_in,
							 file_out, pos_out,
							 len, flags);
		revoke_leave(out, &call_out);
	}
	revoke_leave(in, &call);
	return ret;
}

/* Called through either file; the other may be an ordinary one. */
static loff_t revoke_remap_file_range(struct file *file_in, loff_t pos_in,
				      struct file *file_out, loff_t pos_out,
				      loff_t len, unsigned int remap_flags)
{
	struct revokable_file *in = file_revokable_or_null(file_in);
	struct revokable_file *out = file_revokable_or_null(file_out);
	struct revoke_call call __uninitialized, call_out __uninitialized;
	const struct file_operations *real;
	loff_t ret = -EIO;

	if (in && !revoke_enter(in, &call))
		return -EIO;
	if (!out || revoke_enter(out, &call_out)) {
		real = (in ?: out)->real;
		ret = -EXDEV;
		if (!in || !out || in->real->remap_file_range ==
				   out->real->remap_file_range)
			ret = real->remap_file_range(file_in, pos_in, file_out,
						     pos_out, len, remap_flags);
		if (out)
			revoke_leave(out, &call_out);
	}
	if (in)
		revoke_leave(in, &call);
	return ret;
}

REVOKE_PROXY(int, fadvise, file_revokable(file), -EIO, rf->real->fadvise,
	     PROTO(struct file *file, loff_t offset, loff_t len, int advice),
	     ARGS(file, offset, len, advice));

REVOKE_PROXY(int, uring_cmd, file_revokable(ioucmd->file), -EIO,
	     rf->real->uring_cmd,
	     PROTO(struct io_uring_cmd *ioucmd, unsigned int issue_flags),
	     ARGS(ioucmd, issue_flags));

static int revoke_release(struct inode *inode, struct file *file);

/*
 * Fill @proxy with a method for each method @real has, and only those, so
 * that the VFS decides as it would for @real (FMODE_CAN_READ, FMODE_LSEEK,
 * splice, ...).  ->open has run already.  ->check_flags takes no file and
 * only validates flags; it is copied as is (only NFS has one, and the
 * file's mount pins its module).  ->owner stays NULL: the module reference
 * is the state's, dropped when the driver is released.
 *
 * ->iopoll and ->uring_cmd_iopoll are left out, so io_uring refuses polled
 * I/O on a revokable file (-EOPNOTSUPP at submission).  A polled request
 * completes only when something polls the driver for it, and nothing may
 * call the driver once it is released: revoke could neither release a
 * file with polled I/O queued nor let the ring reap it afterwards (a ring
 * exiting then spins in io_iopoll_try_reap_events() for ever).
 */
static void revoke_proxy_init(struct file_operations *proxy, const struct file_operations *real)
{
	*proxy = (struct file_operations) {
		.fop_flags	= real->fop_flags,
		.release	= revoke_release,
		.check_flags	= real->check_flags,
	};
	proxy->llseek = real->llseek ? revoke_llseek : NULL;
	proxy->read = real->read ? revoke_read : NULL;
	proxy->write = real->write ? revoke_write : NULL;
	proxy->read_iter = real->read_iter ? revoke_read_iter : NULL;
	proxy->write_iter = real->write_iter ? revoke_write_iter : NULL;
	proxy->iterate_shared = real->iterate_shared ? revoke_iterate_shared : NULL;
	proxy->poll = real->poll ? revoke_poll : NULL;
	proxy->unlocked_ioctl = real->unlocked_ioctl ? revoke_unlocked_ioctl : NULL;
	proxy->compat_ioctl = real->compat_ioctl ? revoke_compat_ioctl : NULL;
	proxy->mmap = real->mmap ? revoke_mmap : NULL;
	proxy->flush = real->flush ? revoke_flush : NULL;
	proxy->fsync = real->fsync ? revoke_fsync : NULL;
	proxy->fasync = real->fasync ? revoke_fasync : NULL;
	proxy->lock = real->lock ? revoke_lock : NULL;
	proxy->get_unmapped_area = real->get_unmapped_area ? revoke_get_unmapped_area : NULL;
	proxy->flock = real->flock ? revoke_flock : NULL;
	proxy->splice_write = real->splice_write ? revoke_splice_write : NULL;
	proxy->splice_read = real->splice_read ? revoke_splice_read : NULL;
	proxy->splice_eof = real->splice_eof ? revoke_splice_eof : NULL;
	proxy->setlease = real->setlease ? revoke_setlease : NULL;
	proxy->fallocate = real->fallocate ? revoke_fallocate : NULL;
	proxy->show_fdinfo = real->show_fdinfo ? revoke_show_fdinfo : NULL;
#ifndef CONFIG_MMU
	proxy->mmap_capabilities = real->mmap_capabilities ? revoke_mmap_capabilities : NULL;
#endif
	proxy->copy_file_range = real->copy_file_range ? revoke_copy_file_range : NULL;
	proxy->remap_file_range = real->remap_file_range ? revoke_remap_file_range : NULL;
	proxy->fadvise = real->fadvise ? revoke_fadvise : NULL;
	proxy->uring_cmd = real->uring_cmd ? revoke_uring_cmd : NULL;
}

/*
 * Releasing the driver.  Two parties race to do it: revoke, and the final
 * fput() of a file that was not revoked.  The first to set REVOKE_RELEASED
 * calls ->release; a revoker that lost waits for REVOKE_DONE, so that when
 * revoke returns the driver's ->release has run, exactly once.  The final
 * fput() cannot lose to a revoker still running ->release: a revoker holds
 * a reference on the file while it does.
 */
static void revoke_release_driver(struct revokable_file *rf)
{
	struct file *file = rf->file;

	revoke_poll_unhook(rf);
	/* Done already by __fput() unless the gate refused it. */
	if ((file->f_flags & FASYNC) && rf->real->fasync)
		rf->real->fasync(-1, file, 0);
	if (rf->real->release)
		rf->real->release(file_inode(file), file);
	module_put(rf->real->owner);
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
	wake_up_var(&rf->active);
}

/* What file->f_op points to once the state is gone. */
static const struct file_operations revoke_released_fops;

/*
 * Final fput() of a revokable file: ->release of the proxy.  __fput() reads
 * file->f_op once more after it (fops_put()), so f_op is pointed away from
 * the proxy before the state that holds it may go.
 */
static void revoke_remove_locks(struct revokable_file *rf);

static int revoke_release(struct inode *inode, struct file *file)
{
	struct revokable_file *rf = file_revokable(file);

	if (!test_and_set_bit(REVOKE_RELEASED, &rf->flags)) {
		/*
		 * Revoked, and its revoker killed: no call and no mapping is
		 * left, and the closers' unlocks were takedowns, but remove
		 * the locks all the same, so that no lock record outlives
		 * the file.
		 */
		if (test_bit(REVOKE_DEAD, &rf->flags))
			revoke_remove_locks(rf);
		revoke_release_driver(rf);
	}
	revoke_domain_del(rf);
	revoke_done(rf);
	file->f_op = &revoke_released_fops;
	revoke_put(rf);
	return 0;
}

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

static void revoke_teardown(struct revokable_file *rf)
{
	revoke_unmap(rf);
	revoke_remove_locks(rf);
}

/*
 * Once no call of a revoked file is in the driver: tear down and release
 * the driver, unless another revoker claimed it first.  0 if this one did
 * it; -EBUSY if another did, or does; -EINTR if killed while it waited for
 * a takedown (an unlock may sleep in the driver), the claim given back.
 * The caller holds the file.
 */
static int revoke_finish(struct revokable_file *rf, bool killable)
{
	if (test_and_set_bit(REVOKE_RELEASED, &rf->flags))
		return -EBUSY;
	/* Takedowns that came before the claim, see revoke_enter_takedown(). */
	if (revoke_wait(rf, revoke_no_calls, killable)) {
		clear_bit_unlock(REVOKE_RELEASED, &rf->flags);
		/* Order the bit before wake_up_var() looks for waiters. */
		smp_mb__after_atomic();
		wake_up_var(&rf->active);
		return -EINTR;
	}
	revoke_teardown(rf);
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

/* Wait for whoever claimed the release of @rf: a revoker, or __fput(). */
static int revoke_wait_released(struct revokable_file *rf, bool killable)
{
	return revoke_wait(rf, revoke_released, killable);
}

/* No call in flight but the revoker's @own (its call, its kick). */
static bool revoke_idle(struct revokable_file *rf, int own)
{
	return atomic_read(&rf->active) == REVOKE_BIAS + own;
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
	t = READ_ONCE(rf->caller);
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
 * closed gate, to return what a revoked file returns.  A task that left
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
	revoke_poll_wake_driver(rf);
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
 * revoke_enter_idle()), and would have missed the kick: the wait kicks
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
	return ___wait_var_event(&rf->active, done(rf), state, 0, 0,
				 revoke_wait_kick(rf, &k)) ? -EINTR : 0;
}

/*
 * Close the gate: new calls fail, pollers are woken, calls are kicked.  The
 * kick counts as a call in flight, so that no other revoker releases the
 * driver before it is done.
 */
static void revoke_close(struct revokable_file *rf, int own)
{
	atomic_add(REVOKE_BIAS + 1, &rf->active);
	/* Every poller, exclusive or not, polls again and finds it revoked. */
	if (wq_has_sleeper(&rf->poll_wq))
		__wake_up(&rf->poll_wq, TASK_NORMAL, 0, poll_to_key(REVOKED_POLL));
	revoke_kick(rf, own + 1);
	atomic_dec(&rf->active);
	/* Pairs with the barrier in wait_var_event() of other revokers. */
	smp_mb__after_atomic();
	wake_up_var(&rf->active);
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
static int revoke_one(struct revokable_file *rf, struct revoke_domain *d,
		      bool killable)
{
	int own = revoke_calls_of(rf, current);
	int err;

	if (!test_and_set_bit(REVOKE_DEAD, &rf->flags))
		revoke_close(rf, own);
	if (own) {
		if (cmpxchg(&rf->self, NULL, current))
			return 0;
		/* Revokers waiting for the calls count this one out now. */
		wake_up_var(&rf->active);
		return revoke_wait_calls(rf, revoke_own_calls_left, killable);
	}

	/*
	 * The gates of a kind of domain are one lock class; a revoke from
	 * inside a call of another file of that class (a "remove" method
	 * revoking its whole domain) waits as subclass 1, or lockdep would
	 * take it for a recursive read-write deadlock.
	 */
	rwsem_acquire(rf->dep_map, lock_is_held(rf->dep_map), 0,
		      _RET_IP_);
	rwsem_release(rf->dep_map, _RET_IP_);
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
	err = revoke_finish(rf, killable);
	if (err != -EBUSY)
		return err;
	return revoke_wait_released(rf, killable);
}

/*
 * The first file of @d after @prev, numbered up to @last, under d->lock.
 * d->files is in the order of the numbers: files are added at its tail.
 * The walk goes on from @prev while it is still there.
 */
static struct revokable_file *revoke_domain_next(struct revoke_domain *d,
						 struct revokable_file *prev,
						 u64 last)
{
	struct revokable_file *rf;

	rf = list_prepare_entry(prev, &d->files, node);
	if (prev && list_empty(&prev->node))
		rf = list_entry(&d->files, struct revokable_file, node);
	list_for_each_entry_continue(rf, &d->files, node) {
		if (rf->seq > last)
			break;
		if (!prev || rf->seq > prev->seq)
			return rf;
	}
	return NULL;
}

/*
 * Revoke the files of @d open now, one after the other, in the order they
 * were opened: files opened afterwards are not revoked.  A file stays on
 * d->files until its driver is released (see revoke_domain_del()), so that
 * every revoker sees every file: two revokers of one domain (revoke(2) and
 * the removal of the domain's object) each wait for all of its files.  A
 * file in its final fput() cannot be held; its release is waited for.
 * Goes on after a fatal signal, only without waiting: every file is left
 * revoked.
 */
static int __revoke_domain(struct revoke_domain *d, bool killable)
{
	struct revokable_file *rf, *prev = NULL;
	bool pinned;
	int ret = 0;
	u64 last;

	spin_lock(&d->lock);
	last = d->seq;
	spin_unlock(&d->lock);

	for (;;) {
		spin_lock(&d->lock);
		rf = revoke_domain_next(d, prev, last);
		if (rf) {
			refcount_inc(&rf->ref);
			/* Fails if the file is in its final fput(). */
			pinned = atomic_long_inc_not_zero(&rf->file->f_count);
		}
		spin_unlock(&d->lock);
		if (prev)
			revoke_put(prev);
		if (!rf)
			break;

		if (pinned) {
			if (revoke_one(rf, d, killable))
				ret = -EINTR;
			fput(rf->file);
		} else if (revoke_wait_released(rf, killable)) {
			ret = -EINTR;
		}
		prev = rf;
		cond_resched();
	}
	return ret;
}

/**
 * revoke_domain - revoke every file of a domain
 * @domain: the domain
 *
 * Revoke the files that are in @domain when it is called: wait for their
 * calls in flight, fail new calls, and release their drivers.  Files
 * opened in @domain afterwards are not revoked.
 *
 * Context: Process context; sleeps, uninterruptibly, until the calls in
 * flight have left.
 */
void revoke_domain(struct revoke_domain *domain)
{
	__revoke_domain(domain, false);
}
EXPORT_SYMBOL_GPL(revoke_domain);

/*
 * A domain embedded in a filesystem object goes when the object is
 * removed.  Its files are revoked then, but a file may be opening: its
 * ->open runs the driver's before the file is in the domain.  So the
 * object's uses outside its files, the opens first, enter and leave the
 * domain's own gate, @users, as calls do a file's: removal closes it with
 * REVOKE_BIAS, revokes the files and waits for the users who came before.
 * An open among them either put its file in the domain before the
 * removal took the files, or finds the domain closed in
 * revoke_file_install(), both under domain->lock.
 *
 * Unlike a file's gate, a use may last across system calls (a driver
 * that holds debugfs_file_get() from ->open to ->release), so the wait is
 * not annotated for lockdep.
 */

/**
 * revoke_domain_enter - start a use of a domain's object
 * @domain: the domain
 *
 * Until revoke_domain_leave(), revoke_domain_remove() waits: the object
 * and what it points to stay.  A filesystem's ->open does its work inside,
 * revoke_file_install() last.
 *
 * Context: Any context.
 * Return: true if in; false if the domain is removed, and nothing is to
 * be left.
 */
bool revoke_domain_enter(struct revoke_domain *domain)
{
	if (likely(!atomic_add_negative(1, &domain->users)))
		return true;
	revoke_domain_leave(domain);
	return false;
}
EXPORT_SYMBOL_GPL(revoke_domain_enter);

/**
 * revoke_domain_leave - end a use of a domain's object
 * @domain: the domain given to a successful revoke_domain_enter()
 *
 * Context: Any context.
 */
void revoke_domain_leave(struct revoke_domain *domain)
{
	/* Fully ordered before wake_up_var() looks for the remover. */
	if (unlikely(atomic_add_negative(-1, &domain->users)))
		wake_up_var(&domain->users);
}
EXPORT_SYMBOL_GPL(revoke_domain_leave);

/**
 * revoke_domain_remove - revoke a domain for good, its object is going
 * @domain: the domain
 *
 * Refuses new uses of the domain and new files in it, revokes its files as
 * revoke_domain() does, and waits for the uses that started before.  When
 * it returns, no file of the domain calls its driver any more, every
 * ->release has run, and the object may go.
 *
 * Called once, when the object is removed.  From a method of one of the
 * domain's files (a "remove" attribute), that file is released when the
 * method returns (see revoke_file()): until then it is still in @domain,
 * which must stay, as it does when the file's dentry or inode pins the
 * object.
 *
 * Context: Process context, not inside a use of @domain; sleeps,
 * uninterruptibly.
 */
void revoke_domain_remove(struct revoke_domain *domain)
{
	/* Ordered before the files are taken by domain->lock. */
	atomic_add(REVOKE_BIAS, &domain->users);
	__revoke_domain(domain, false);
	wait_var_event(&domain->users,
		       atomic_read(&domain->users) == REVOKE_BIAS);
}
EXPORT_SYMBOL_GPL(revoke_domain_remove);

/**
 * revoke_file - revoke one open file description
 * @file: the file; the caller holds a reference
 *
 * Context: Process context; sleeps killably until the calls in flight have
 * left.
 * Return: 0 once the file is revoked and its driver released (called from
 * a method of @file, once that method returns); -EINVAL if @file is not
 * revokable; -EINTR if a fatal signal cut the wait short, in which case
 * the file is revoked and its driver released by the next revoke or the
 * final fput().
 */
int revoke_file(struct file *file)
{
	struct revokable_file *rf = file_revokable_or_null(file);

	if (!rf)
		return -EINVAL;
	return revoke_one(rf, NULL, true);
}
EXPORT_SYMBOL_GPL(revoke_file);

/**
 * revoke_inode - revoke every revokable open file of an inode
 * @inode: the inode; the caller holds a reference to a dentry of it
 *
 * Revokes the files opened with O_REVOKABLE or through FOP_REVOKABLE
 * methods, which are in the inode's own domain, and those its filesystem
 * put in the domain super_operations->revoke_domain() gives for it.  Files
 * that are not revokable are untouched.
 *
 * Context: Process context; sleeps killably.
 * Return: 0, also when there was nothing to revoke; -EINTR as for
 * revoke_file().
 */
int revoke_inode(struct inode *inode)
{
	const struct super_operations *sop = inode->i_sb->s_op;
	struct revoke_inode_domain *id;
	struct revoke_domain *domain;
	int ret = 0;

	domain = sop->revoke_domain ? sop->revoke_domain(inode) : NULL;
	if (domain)
		ret = __revoke_domain(domain, true);
	id = revoke_inode_domain_find(inode);
	if (!id)
		return ret;
	/* After a fatal signal too: every file is left revoked. */
	if (__revoke_domain(&id->domain, true))
		ret = -EINTR;
	revoke_inode_domain_put(id);
	return ret;
}
EXPORT_SYMBOL_GPL(revoke_inode);

/**
 * __file_revoked - has this revokable file been revoked?
 * @file: the file, revokable
 *
 * Use file_revoked(), which tests that @file is revokable first.
 *
 * Return: true if @file is revoked.
 */
bool __file_revoked(const struct file *file)
{
	return test_bit(REVOKE_DEAD, &file_revokable(file)->flags);
}
EXPORT_SYMBOL_GPL(__file_revoked);

/**
 * __file_real_fops - the driver's methods of a revokable file
 * @file: the file, revokable
 *
 * Use file_real_fops(), which tests that @file is revokable first.
 *
 * Return: the file_operations @file was opened with.
 */
const struct file_operations *__file_real_fops(const struct file *file)
{
	return file_revokable(file)->real;
}
EXPORT_SYMBOL_GPL(__file_real_fops);

/**
 * __file_is - is a revokable file one of @fops' and not revoked?
 * @file: the file, revokable
 * @fops: the file_operations to compare with
 *
 * Use file_is(), which compares file->f_op first.
 *
 * Return: true if @file was opened with @fops and is not revoked.
 */
bool __file_is(const struct file *file, const struct file_operations *fops)
{
	struct revokable_file *rf = file_revokable(file);

	return rf->real == fops && !test_bit(REVOKE_DEAD, &rf->flags);
}
EXPORT_SYMBOL_GPL(__file_is);

/**
 * revoke_enter_cancellation - let revoke cut a call in flight short
 * @file: the file whose method is running
 * @c: the cancellation, with @c->cancel and @c->data set; lives until
 *     revoke_leave_cancellation()
 *
 * For a method that waits for something revoke would otherwise wait for
 * (hardware, another task) in a way a kick cannot interrupt.  If @file is
 * revoked before revoke_leave_cancellation(), @c->cancel(@file, @c->data)
 * runs once, in the revoker's context, where it may sleep; if @file is
 * revoked already, it runs now.  Nothing happens for a file that is not
 * revokable.  This is debugfs_enter_cancellation(), for every revokable
 * file.
 *
 * Context: Process context, inside a method of @file.
 */
void revoke_enter_cancellation(struct file *file, struct revoke_cancellation *c)
{
	struct revokable_file *rf = file_revokable_or_null(file);

	INIT_LIST_HEAD(&c->node);
	if (!rf)
		return;
	/* The revoker sets REVOKE_DEAD before it takes the lock. */
	mutex_lock(&rf->cancel_lock);
	if (test_bit(REVOKE_DEAD, &rf->flags))
		c->cancel(file, c->data);
	else
		list_add(&c->node, &rf->cancellations);
	mutex_unlock(&rf->cancel_lock);
}
EXPORT_SYMBOL_GPL(revoke_enter_cancellation);

/**
 * revoke_leave_cancellation - the call no longer needs cutting short
 * @file: the file
 * @c: the cancellation given to revoke_enter_cancellation()
 *
 * Once it returns, @c->cancel is not running and will not run.
 *
 * Context: Process context.
 */
void revoke_leave_cancellation(struct file *file, struct revoke_cancellation *c)
{
	struct revokable_file *rf = file_revokable_or_null(file);

	if (!rf)
		return;
	mutex_lock(&rf->cancel_lock);
	list_del_init(&c->node);
	mutex_unlock(&rf->cancel_lock);
}
EXPORT_SYMBOL_GPL(revoke_leave_cancellation);

/**
 * revoke_file_install - make a file being opened revokable
 * @file: the file, in its ->open, not visible to anyone yet
 * @domain: the domain to put it in, or NULL for its inode's domain
 *
 * Gives @file the revokable state and installs the proxy methods as
 * file->f_op.  A filesystem calls it last in ->open, inside
 * revoke_domain_enter(); if it fails, ->open releases what the driver's
 * open took and fails.  The VFS calls it for O_REVOKABLE and FOP_REVOKABLE
 * files.
 *
 * A file that other code recognises by its file_operations and then uses
 * outside its methods (ttys, pipes, /dev/fuse: see "Files recognised by
 * their methods" in revoke.rst) could not be cut off by the gate; its
 * file_operations have FOP_UNREVOKABLE, and it is refused.
 *
 * Context: Process context; may sleep.
 * Return: 0; -ENOMEM; -ENOENT if @domain was removed; -EOPNOTSUPP if
 * @file's methods have FOP_UNREVOKABLE.
 */
int revoke_file_install(struct file *file, struct revoke_domain *domain)
{
	struct revoke_inode_domain *id = NULL;
	struct revokable_file *rf;

	if (WARN_ON_ONCE(file->f_mode & FMODE_REVOKABLE))
		return -EINVAL;
	if (file->f_op->fop_flags & FOP_UNREVOKABLE)
		return -EOPNOTSUPP;
	rf = kmalloc(sizeof(*rf), GFP_KERNEL_ACCOUNT);
	if (!rf)
		return -ENOMEM;
	if (!domain) {
		id = revoke_inode_domain_get(file_inode(file));
		if (IS_ERR(id)) {
			kfree(rf);
			return PTR_ERR(id);
		}
		domain = &id->domain;
	}

	atomic_set(&rf->active, 0);
	rf->caller = NULL;
	rf->caller_nested = 0;
	rf->flags = 0;
	refcount_set(&rf->ref, 1);
	rf->file = file;
	rf->real = file->f_op;
	rf->inode_domain = id;
	rf->teardown = NULL;
	rf->self = NULL;
	rf->vm = NULL;
	init_waitqueue_head(&rf->poll_wq);
	INIT_LIST_HEAD(&rf->poll_hooks);
	rf->kick = domain->kick;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	rf->dep_map = domain->dep_map;
#endif
	mutex_init(&rf->cancel_lock);
	INIT_LIST_HEAD(&rf->cancellations);
	spin_lock_init(&rf->callers_lock);
	INIT_LIST_HEAD(&rf->callers);
	revoke_proxy_init(&rf->proxy, rf->real);

	spin_lock(&domain->lock);
	/* See revoke_domain_remove(); never a per-inode domain. */
	if (unlikely(atomic_read(&domain->users) < 0)) {
		spin_unlock(&domain->lock);
		kfree(rf);
		return -ENOENT;
	}
	rf->domain = domain;
	rf->seq = ++domain->seq;
	list_add_tail(&rf->node, &domain->files);
	spin_unlock(&domain->lock);

	file->f_op = &rf->proxy;
	file->f_mode |= FMODE_REVOKABLE;
	return 0;
}
EXPORT_SYMBOL_GPL(revoke_file_install);

/*
 * do_dentry_open(), after a successful ->open of a file that asked to be
 * revokable, with FMODE_OPENED set.  If the file cannot be revokable, the
 * open fails, and the final fput() of the file releases its driver as for
 * any opened file: ->release, and the chrdev's and module's references.
 */
int revoke_file_open(struct file *file)
{
	if (file->f_mode & FMODE_REVOKABLE)
		return 0;
	return revoke_file_install(file, NULL);
}

/*
 * revokeat(dfd, path, flags): revoke every revokable open file of the
 * inode at @path, as BSD's revoke(2) does for those files, or with
 * REVOKE_FILE only the open file description @dfd refers to.  Path revoke
 * is for the inode's owner or CAP_FOWNER; holding a revokable file is
 * enough to revoke it, as its opener agreed to.
 */
static int revoke_fd(int fd, const char __user *pathname)
{
	char c;
	int err;

	/* The path, if any, must be empty. */
	if (pathname) {
		if (get_user(c, pathname))
			return -EFAULT;
		if (c)
			return -EINVAL;
	}

	CLASS(fd, f)(fd);
	if (fd_empty(f))
		return -EBADF;
	err = security_file_revoke(&fd_file(f)->f_path, fd_file(f));
	if (err)
		return err;
	return revoke_file(fd_file(f));
}

SYSCALL_DEFINE3(revokeat, int, dfd, const char __user *, pathname,
		unsigned int, flags)
{
	unsigned int lookup_flags = LOOKUP_FOLLOW;
	struct inode *inode;
	struct path path;
	int err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | REVOKE_FILE))
		return -EINVAL;
	if (flags & REVOKE_FILE) {
		if (flags & AT_SYMLINK_NOFOLLOW)
			return -EINVAL;
		return revoke_fd(dfd, pathname);
	}

	if (flags & AT_SYMLINK_NOFOLLOW)
		lookup_flags &= ~LOOKUP_FOLLOW;
	if (flags & AT_EMPTY_PATH)
		lookup_flags |= LOOKUP_EMPTY;
	err = user_path_at(dfd, pathname, lookup_flags, &path);
	if (err)
		return err;
	inode = d_inode(path.dentry);
	err = -EPERM;
	if (!inode_owner_or_capable(mnt_idmap(path.mnt), inode))
		goto out;
	err = security_file_revoke(&path, NULL);
	if (!err)
		err = revoke_inode(inode);
out:
	path_put(&path);
	return err;
}

#ifdef CONFIG_REVOKE_KUNIT_TEST
#include "tests/revoke_kunit.c"
#endif

static int __init revoke_init(void)
{
	return rhashtable_init(&revoke_inodes, &revoke_inode_params);
}
fs_initcall(revoke_init);
