// SPDX-License-Identifier: GPL-2.0
/*
 * Revokable files: domains.
 *
 * A domain is a set of files revoked together.  revoke(2) uses one per
 * inode, kept here in a hash table; a filesystem whose files must all go
 * when one of its objects is removed (debugfs, procfs, kernfs) embeds one
 * in that object.  This file owns a domain's list of files, the walk that
 * revokes them, the domain's own gate for the uses of its object that are
 * not calls on its files (opens above all), and its removal.  Revoking
 * one file is fs/revoke_file.c's; the per-inode domains are fs/revoke_inode.c's.
 *
 * Copyright (C) 2026 The revokable files authors
 */

#include <linux/export.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "revoke_internal.h"

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
	domain->results = NULL;
	atomic_set(&domain->users, 0);
}
EXPORT_SYMBOL_GPL(__revoke_domain_init);

/*
 * What the calls of a revoked file return, unless its domain says
 * otherwise: a character device reads as end of file, like a hung-up tty.
 */
const struct revoke_results revoke_default_results = {
	.error	= -EIO,
	.read	= -EIO,
	.llseek	= -EIO,
	.ioctl	= -EIO,
	.mmap	= -ENODEV,
	.poll	= REVOKED_POLL,
};

const struct revoke_results revoke_chrdev_results = {
	.error	= -EIO,
	.read	= 0,
	.llseek	= -EIO,
	.ioctl	= -EIO,
	.mmap	= -ENODEV,
	.poll	= REVOKED_POLL,
};

/* What the calls of a file return once revoked, unless its driver says. */
static void revoke_default_results_of(struct revokable_file *rf)
{
	if (!rf->results)
		rf->results = S_ISCHR(file_inode(rf->file)->i_mode) ?
			      &revoke_chrdev_results : &revoke_default_results;
}

/*
 * Put @rf, being installed, in @domain, or in its inode's domain if @domain
 * is NULL.  -ENOENT if @domain was removed: see revoke_domain_remove().
 * Without revoke(2) (!CONFIG_REVOKE) there is no inode's domain: the file
 * is in none, and only revoke_file() and its driver revoke it.
 */
int revoke_domain_add(struct revokable_file *rf, struct revoke_domain *domain)
{
	struct revoke_inode_domain *id = NULL;

	if (!domain) {
		id = revoke_inode_domain_get(file_inode(rf->file));
		if (IS_ERR(id))
			return PTR_ERR(id);
		if (!id) {
			rf->domain = NULL;
			rf->inode_domain = NULL;
			rf->kick = NULL;
			revoke_default_results_of(rf);
#ifdef CONFIG_DEBUG_LOCK_ALLOC
			rf->gate.dep_map = NULL;
#endif
			return 0;
		}
		domain = &id->domain;
	}

	spin_lock(&domain->lock);
	/* Never a per-inode domain: only embedded ones are removed. */
	if (unlikely(revoke_domain_removed(domain))) {
		spin_unlock(&domain->lock);
		if (id)
			revoke_inode_domain_put(id);
		return -ENOENT;
	}
	rf->domain = domain;
	rf->inode_domain = id;
	rf->seq = ++domain->seq;
	rf->kick = domain->kick;
	if (!rf->results)
		rf->results = domain->results;
	revoke_default_results_of(rf);
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	rf->gate.dep_map = domain->dep_map;
#endif
	list_add_tail(&rf->node, &domain->files);
	spin_unlock(&domain->lock);
	return 0;
}

/*
 * Take @rf out of its domain: once revoke released its driver, or at the
 * final fput(), one after the other (whoever claimed the release does
 * it); a file released at its last close only leaves before its release
 * (see revoke_fop_release()).  Until then a revoked file stays in its
 * domain, so that a revoker coming later, the removal of the domain's
 * object above all, finds it and waits for REVOKE_DONE, set after this.
 * The domain is alive while @rf is in it, and while a revoker that found
 * @rf there runs: its owner sees to that (a sound card's device
 * reference, held by the revoker's caller).
 */
void revoke_domain_del(struct revokable_file *rf)
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
 * Whether the current task is inside a call of a file of @d, which the
 * caller holds.
 */
bool revoke_in_domain_call(struct revoke_domain *d)
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
 * One pass over the files of @d that were open when the revoke began
 * (@last), in the order they were opened: close each one's gate and kick
 * its calls, or, with @wait, revoke it and count it.  A file stays on
 * d->files until its driver is released (see revoke_domain_del()), so
 * that every revoker sees every file: two revokers of one domain
 * (revoke(2) and the removal of the domain's object) each wait for all of
 * its files.  A file in its final fput() cannot be held, and is revoked
 * all the same (revoke_unpinned()): its __fput() may be queued behind the
 * revoker's own work (task_work runs the last fput() first,
 * delayed_fput() one list), so waiting for it could be waiting for
 * ourselves.  Goes on after a fatal signal, only without waiting: every
 * file is left revoked.
 * Return: the files revoked, or -EINTR after a fatal signal.
 */
static int revoke_domain_pass(struct revoke_domain *d, u64 last, bool wait,
			      bool killable)
{
	struct revokable_file *rf, *prev = NULL;
	bool pinned;
	int n = 0, ret = 0;

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
			if (!wait)
				revoke_shut(rf);
			else if (revoke_one(rf, d, killable))
				ret = -EINTR;
			fput(rf->file);
		} else if (wait && revoke_unpinned(rf, killable)) {
			ret = -EINTR;
		}
		n++;
		prev = rf;
		cond_resched();
	}
	return ret ?: n;
}

/*
 * Revoke the files of @d open now; files opened afterwards are not
 * revoked.  Every gate is closed and every call kicked before the revoker
 * waits for any: while a call deaf to the kick holds it on one file, the
 * others take no new call, and their interruptible sleepers are out.
 * Return: the files revoked, or -EINTR after a fatal signal.
 */
int __revoke_domain_files(struct revoke_domain *d, bool killable)
{
	u64 last;

	spin_lock(&d->lock);
	last = d->seq;
	spin_unlock(&d->lock);

	revoke_domain_pass(d, last, false, killable);
	return revoke_domain_pass(d, last, true, killable);
}

/**
 * revoke_domain_files - revoke every file of a domain
 * @domain: the domain
 *
 * Revoke the files that are in @domain when it is called: wait for their
 * calls in flight, fail new calls, and release their drivers.  Files
 * opened in @domain afterwards are not revoked.
 *
 * Context: Process context; sleeps, uninterruptibly, until the calls in
 * flight have left.
 */
void revoke_domain_files(struct revoke_domain *domain)
{
	__revoke_domain_files(domain, false);
}
EXPORT_SYMBOL_GPL(revoke_domain_files);

/**
 * revoke_domain_files_killable - revoke every file of a domain, killably
 * @domain: the domain
 *
 * As revoke_domain_files(), for revoke(2): a fatal signal ends the waits,
 * every file being left revoked, its driver released by the next revoke
 * or its final fput().
 *
 * Context: Process context; sleeps killably.
 * Return: 0; -EINTR if a fatal signal cut a wait short.
 */
int revoke_domain_files_killable(struct revoke_domain *domain)
{
	return min(__revoke_domain_files(domain, true), 0);
}
EXPORT_SYMBOL_GPL(revoke_domain_files_killable);

/* The pass of revoke_domain_shut(), which a worker runs. */
struct revoke_domain_shutter {
	struct work_struct work;
	struct revoke_domain *domain;
	u64 last;
};

static void revoke_domain_shut_work(struct work_struct *work)
{
	struct revoke_domain_shutter *s;

	s = container_of(work, struct revoke_domain_shutter, work);
	revoke_domain_pass(s->domain, s->last, false, false);
}

/**
 * revoke_domain_shut - cut every file of a domain off, without waiting
 * @domain: the domain
 *
 * revoke_file_shut() of each file in @domain now: new calls fail as on a
 * revoked file and the calls in flight are kicked, but they are not
 * waited for and no driver is released.  For a driver that cuts its
 * files off where it cannot wait for their calls, and gets them out of
 * its waits itself: ALSA's disconnect of a card, which may run under its
 * driver's locks.  Files opened in @domain afterwards are not cut off.
 *
 * Context: Process context, not in a call of a file of @domain; sleeps
 * until a worker has shut the files.
 */
void revoke_domain_shut(struct revoke_domain *domain)
{
	struct revoke_domain_shutter s = { .domain = domain };

	spin_lock(&domain->lock);
	s.last = domain->seq;
	spin_unlock(&domain->lock);
	/*
	 * The pass holds each file while it shuts it.  In a worker, the
	 * final fput() of a file closed meanwhile is queued to
	 * delayed_fput(); in the caller's task it would wait for the
	 * caller's return to user space, which snd_card_free() puts off
	 * until that very file is released.
	 */
	INIT_WORK_ONSTACK(&s.work, revoke_domain_shut_work);
	queue_work(system_wq, &s.work);
	flush_work(&s.work);
	destroy_work_on_stack(&s.work);
}
EXPORT_SYMBOL_GPL(revoke_domain_shut);

/*
 * A domain embedded in a filesystem object goes when the object is
 * removed.  Its files are revoked then, but a file may be opening: its
 * ->open runs the driver's before the file is in the domain.  So the
 * object's uses outside its files, the opens first, enter and leave the
 * domain's own gate, @users, as calls do a file's: removal closes it with
 * REVOKE_BIAS, revokes the files and waits for the users who came before.
 * An open among them either put its file in the domain before the
 * removal took the files, or finds the domain closed in
 * revoke_domain_add(), both under domain->lock.
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
 * revoke_domain_files() does, and waits for the uses that started before.
 * When it returns, no file of the domain calls its driver any more, every
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
	__revoke_domain_files(domain, false);
	wait_var_event(&domain->users,
		       atomic_read(&domain->users) == REVOKE_BIAS);
}
EXPORT_SYMBOL_GPL(revoke_domain_remove);
