// SPDX-License-Identifier: GPL-2.0
/*
 * Revokable files: the state of a revokable file, and its gate.
 *
 * A file made revokable when it is opened (its ->open calls
 * revoke_file_install(), for O_REVOKABLE or always) gets a struct
 * revokable_file, which file->f_revoke_gate points into, and its f_op
 * becomes the const proxy of its methods that its driver defines beside
 * them, before the file is visible: every proxy method enters the file's
 * gate, calls the driver's method and leaves.  Revoking closes the
 * gate, waits for the calls in flight, tears down what outlives calls and
 * runs the driver's ->release, once, early.  Files that are not revokable
 * never get here.
 *
 * This file owns the state: installing it at open and undoing that, the
 * gate's slow paths and the calls a task is in, and the helpers a driver
 * calls (file_revoked(), file_real_fops(), cancellations).  Revoking a
 * file and releasing its driver are in fs/revoke_file.c.  The gate's fast
 * paths are in <linux/revoke_gate.h>; revoke_internal.h says how the gate
 * works and maps the other files.
 *
 * Copyright (C) 2026 The revokable files authors
 */

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "revoke_internal.h"

/* The state of each revokable file, in a cache of its own. */
static struct kmem_cache *revokable_file_cachep __ro_after_init;

static int __init revoke_init(void)
{
	revokable_file_cachep = KMEM_CACHE(revokable_file,
					   SLAB_ACCOUNT | SLAB_PANIC);
	return 0;
}
core_initcall(revoke_init);

void revoke_put(struct revokable_file *rf)
{
	if (!refcount_dec_and_test(&rf->ref))
		return;
	revoke_vm_free(rf->vm);
	kmem_cache_free(revokable_file_cachep, rf);
}

static int __revoke_file_install(struct file *file,
				 struct revoke_domain *domain,
				 const struct file_operations *proxy,
				 const struct revoke_results *results)
{
	struct revokable_file *rf;
	int err;

	if (WARN_ON_ONCE(file->f_mode & FMODE_REVOKABLE) ||
	    WARN_ON_ONCE(!revoke_proxy_check(proxy, file->f_op)))
		return -EINVAL;
	rf = kmem_cache_alloc(revokable_file_cachep, GFP_KERNEL);
	if (!rf)
		return -ENOMEM;

	atomic_set(&rf->gate.active, 0);
	rf->gate.caller = NULL;
	rf->caller_nested = 0;
	rf->flags = 0;
	refcount_set(&rf->ref, 1);
	rf->file = file;
	rf->real = file->f_op;
	rf->teardown = NULL;
	rf->self = NULL;
	rf->vm = NULL;
	rf->results = results;
	revoke_poll_init(&rf->poll);
	mutex_init(&rf->cancel_lock);
	INIT_LIST_HEAD(&rf->cancellations);
	spin_lock_init(&rf->callers_lock);
	INIT_LIST_HEAD(&rf->callers);
	file->f_revoke_gate = &rf->gate;
	file->f_op = proxy;
	file->f_mode |= FMODE_REVOKABLE;

	/* Sets what comes from the domain: kick, dep_map, seq, results. */
	err = revoke_domain_add(rf, domain);
	if (err) {
		file->f_mode &= ~FMODE_REVOKABLE;
		file->f_op = rf->real;
		file->f_revoke_gate = NULL;
		kmem_cache_free(revokable_file_cachep, rf);
	}
	return err;
}

/**
 * revoke_file_install - make a file being opened revokable
 * @file: the file, in its ->open, not visible to anyone yet
 * @domain: the domain to put it in, or NULL for its inode's domain
 * @proxy: the proxy of @file's methods: const, defined beside them (in
 *	the same module), with the core's method for each of theirs, as
 *	revoke_proxy_check() wants it
 *
 * Gives @file the revokable state and makes @proxy its f_op.  The ->open
 * of methods with FOP_REVOKE_BY_OPEN, or of a regular file of an
 * FS_REVOKABLE filesystem opened with O_REVOKABLE, calls it last, inside
 * revoke_domain_enter() if it has a domain; if it fails, ->open releases
 * what it took and fails.
 *
 * Context: Process context; may sleep.
 * Return: 0; -ENOMEM; -ENOENT if @domain was removed; -EINVAL if @proxy
 * does not match @file's methods.
 */
int revoke_file_install(struct file *file, struct revoke_domain *domain,
			const struct file_operations *proxy)
{
	return __revoke_file_install(file, domain, proxy, NULL);
}
EXPORT_SYMBOL_GPL(revoke_file_install);

/**
 * revoke_chrdev_install - make an open file of a character device revokable
 * @file: the file, in the driver's ->open, not visible to anyone yet
 * @proxy: as for revoke_file_install()
 * @results: what the file's calls return once it is revoked
 *
 * revoke_file_install() into the inode's domain, so that revoke(2) of the
 * device node revokes the files open through it, with @results instead of
 * a character device's default (read 0, the other calls -EIO): for a
 * driver that had a revoke of its own (evdev's EVIOCREVOKE), the errors
 * its users know.  Without CONFIG_REVOKE the file is in no domain: it is
 * revokable all the same, by revoke_file() and its driver.
 *
 * Context: Process context; may sleep.
 * Return: as revoke_file_install().
 */
int revoke_chrdev_install(struct file *file,
			  const struct file_operations *proxy,
			  const struct revoke_results *results)
{
	return __revoke_file_install(file, NULL, proxy, results);
}
EXPORT_SYMBOL_GPL(revoke_chrdev_install);

/*
 * do_dentry_open(), after a successful ->open of a file opened with
 * O_REVOKABLE, with FMODE_OPENED set.  Revokability is opt-in, and the
 * ->open of the methods that opted in has made the file revokable by now,
 * with the core's gate or its filesystem's (FOP_REVOKE_BY_OPEN: kernfs), or
 * refused.  If it did not (an FS_REVOKABLE filesystem's regular file whose
 * ->open did not install, a multiplexer's ->open that handed the file to
 * methods that did not opt in), the open fails, and the final fput() of
 * the file releases its driver as for any opened file: ->release, and the
 * chrdev's and module's references.  Nothing in the kernel has to know how
 * to reach a file that did not opt in around its gate.
 */
int revoke_file_open(struct file *file)
{
	if (file->f_mode & FMODE_REVOKABLE)
		return 0;
	/* Gated in the filesystem's own state, which revokes it (kernfs). */
	if ((file->f_op->fop_flags & FOP_REVOKE_BY_OPEN) &&
	    file_inode(file)->i_sb->s_op->revoke)
		return 0;
	return -EOPNOTSUPP;
}

/**
 * revoke_file_abort - undo revoke_file_install() in a failing ->open
 * @file: the file, made revokable by the ->open that fails
 *
 * Gives @file back its driver's methods and takes it out of its domain,
 * as revoke_file_install() undoes itself when it fails, so that the
 * open's cleanup puts the driver's methods and no domain keeps a file
 * that is freed.  For a ->open that must install before it can fail (a
 * tty's, which a hangup must find while it waits for the line), and that
 * releases what it took itself; do_dentry_open() calls it for an ->open
 * that failed without.  A revoker that found the file meanwhile holds it
 * and the state, and may release the driver once more, unless the
 * driver's results say @release_at_close: that is for the ->open to
 * answer for.
 *
 * Context: Process context.
 */
void revoke_file_abort(struct file *file)
{
	struct revokable_file *rf = file_revokable(file);

	revoke_domain_del(rf);
	file->f_mode &= ~FMODE_REVOKABLE;
	file->f_op = rf->real;
	file->f_revoke_gate = NULL;
	revoke_put(rf);
}
EXPORT_SYMBOL_GPL(revoke_file_abort);

/*
 * The gate's slow paths; its fast paths are in <linux/revoke_gate.h>, how
 * it works in revoke_internal.h.  A call that leaves a revoked file is
 * revoke_left_dead(), in fs/revoke_file.c.
 */

/*
 * A call that came to a revoked file and did not reach the driver, or a
 * takedown that did (see revoke_enter_takedown()), leaves.
 */
noinline void revoke_refused(struct revokable_file *rf)
{
	atomic_dec(&rf->gate.active);
	/* Pairs with the barrier in the revokers' wait_var_event(). */
	smp_mb__after_atomic();
	wake_up_var(&rf->gate.active);
}

/**
 * revoke_enter_busy - enter a gate that was not idle
 * @gate: the file's gate
 * @calls: what the increment of @gate->active found
 * @call: the call
 *
 * Refused if the file is revoked; else in, listed among the callers,
 * unless nested in the task's own call of the file, which holds
 * @gate->caller and notes it already.  For the gate's inline paths in
 * <linux/revoke_gate.h> only.
 *
 * Context: Process context, or a page fault.
 * Return: true if in, false if refused.
 */
noinline bool revoke_enter_busy(struct revoke_gate *gate, int calls,
				struct revoke_call *call)
{
	struct revokable_file *rf = gate_revokable(gate);

	if (calls < 0) {
		revoke_refused(rf);
		return false;
	}
	call->task = current;
	if (READ_ONCE(gate->caller) == current) {
		INIT_LIST_HEAD(&call->node);
		WRITE_ONCE(rf->caller_nested, rf->caller_nested + 1);
	} else {
		spin_lock(&rf->callers_lock);
		list_add_tail(&call->node, &rf->callers);
		spin_unlock(&rf->callers_lock);
	}
	revoke_gate_lockdep(gate,
			    rwsem_acquire_read(gate->dep_map, 0, 1, _RET_IP_));
	return true;
}

/**
 * revoke_leave_busy - leave a gate entered by revoke_enter_busy()
 * @gate: the file's gate
 * @call: the call
 *
 * For the gate's inline paths in <linux/revoke_gate.h> only.
 *
 * Context: Process context, or a page fault.
 * Return: true if the file was revoked meanwhile.
 */
noinline bool revoke_leave_busy(struct revoke_gate *gate,
				struct revoke_call *call)
{
	struct revokable_file *rf = gate_revokable(gate);

	revoke_gate_lockdep(gate, rwsem_release(gate->dep_map, _RET_IP_));
	if (!list_empty(&call->node)) {
		spin_lock(&rf->callers_lock);
		list_del(&call->node);
		spin_unlock(&rf->callers_lock);
	} else {
		WRITE_ONCE(rf->caller_nested, rf->caller_nested - 1);
	}
	if (!atomic_add_negative(-1, &gate->active))
		return false;
	revoke_left_dead(gate);
	return true;
}

/*
 * How many calls of @rf @task is in: nested ones (a driver's ->splice_read
 * calling the file's ->read_iter, through the VFS) count one each.  @task
 * is only compared, never followed.
 */
int revoke_calls_of(struct revokable_file *rf, struct task_struct *task)
{
	struct revoke_call *call;
	int calls = 0;

	if (READ_ONCE(rf->gate.caller) == task)
		calls = 1 + READ_ONCE(rf->caller_nested);
	spin_lock(&rf->callers_lock);
	list_for_each_entry(call, &rf->callers, node)
		calls += call->task == task;
	spin_unlock(&rf->callers_lock);
	return calls;
}

/* Whether the current task is inside a call of @rf. */
bool revoke_in_call(struct revokable_file *rf)
{
	return revoke_calls_of(rf, current);
}

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
