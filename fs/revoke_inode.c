// SPDX-License-Identifier: GPL-2.0
/*
 * Revokable files: the domains of inodes, for revoke(2).
 *
 * The files made revokable by their opener (O_REVOKABLE) or by their
 * driver's ->open (the test device) are revoked together by inode: each is
 * in its inode's domain, kept here, and revoke_inode() revokes them, with
 * those a filesystem keeps in domains of its own.  Built with
 * CONFIG_REVOKE, as revokeat() and O_REVOKABLE are.
 *
 * Copyright (C) 2026 The revokable files authors
 */

#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/mutex.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>

#include "revoke_internal.h"

/*
 * Per-inode domains, for revoke(2): an rhashtable keyed by the inode, so
 * that struct inode does not grow.  An entry is created by the first
 * revokable open of its inode and freed when it has no file and no revoker
 * left; each file in the domain holds a reference.  Lookups are under RCU;
 * insertion and removal under revoke_inodes_lock.
 */
static const struct rhashtable_params revoke_inode_params = {
	.key_len	= sizeof(const struct inode *),
	.key_offset	= offsetof(struct revoke_inode_domain, inode),
	.head_offset	= offsetof(struct revoke_inode_domain, hash),
	.automatic_shrinking = true,
};

static struct rhashtable revoke_inodes;
static DEFINE_MUTEX(revoke_inodes_lock);

VISIBLE_IF_KUNIT struct revoke_inode_domain *
revoke_inode_domain_find(const struct inode *inode)
{
	struct revoke_inode_domain *id;

	rcu_read_lock();
	id = rhashtable_lookup(&revoke_inodes, &inode, revoke_inode_params);
	if (id && !refcount_inc_not_zero(&id->ref))
		id = NULL;
	rcu_read_unlock();
	return id;
}

struct revoke_inode_domain *revoke_inode_domain_get(const struct inode *inode)
{
	struct revoke_inode_domain *id, *new;

	KUNIT_STATIC_STUB_REDIRECT(revoke_inode_domain_get, inode);
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

void revoke_inode_domain_put(struct revoke_inode_domain *id)
{
	if (!refcount_dec_and_mutex_lock(&id->ref, &revoke_inodes_lock))
		return;
	rhashtable_remove_fast(&revoke_inodes, &id->hash, revoke_inode_params);
	mutex_unlock(&revoke_inodes_lock);
	kfree_rcu(id, rcu);
}

/**
 * revoke_inode - revoke every revokable open file of an inode
 * @inode: the inode; the caller holds a reference to a dentry of it
 *
 * Revokes the files opened with O_REVOKABLE or made revokable by their
 * driver's ->open, which are in the inode's own domain, and has its filesystem's
 * super_operations->revoke() revoke those it put in domains of its own.
 * Files that are not revokable are untouched.
 *
 * Context: Process context; sleeps killably.
 * Return: the number of files revoked, 0 when there was none to revoke;
 * -EINTR as for revoke_file().
 */
int revoke_inode(struct inode *inode)
{
	const struct super_operations *sop = inode->i_sb->s_op;
	struct revoke_inode_domain *id;
	int n = 0, err = 0, ret;

	if (sop->revoke) {
		ret = sop->revoke(inode, NULL);
		if (ret < 0)
			err = ret;
		else
			n = ret;
	}
	id = revoke_inode_domain_find(inode);
	if (!id)
		return err ?: n;
	/* After a fatal signal too: every file is left revoked. */
	ret = __revoke_domain_files(&id->domain, true);
	if (ret < 0)
		err = ret;
	else
		n += ret;
	revoke_inode_domain_put(id);
	return err ?: n;
}
EXPORT_SYMBOL_GPL(revoke_inode);

static int __init revoke_inode_domains_init(void)
{
	return rhashtable_init(&revoke_inodes, &revoke_inode_params);
}
fs_initcall(revoke_inode_domains_init);
