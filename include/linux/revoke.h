/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Revokable files: open files that can be cut off from what they point at.
 *
 * The core, its locking and lifetime rules are in fs/revoke.c.
 */
#ifndef _LINUX_REVOKE_H
#define _LINUX_REVOKE_H

#include <linux/fs.h>
#include <linux/list.h>
#include <linux/spinlock.h>

/**
 * struct revoke_domain - the revokable files that are revoked together
 * @lock: protects @files and the membership of each file in it
 * @files: the files of the domain that are not revoked yet
 *
 * revoke(2) uses a domain per inode, kept by fs/revoke.c.  A filesystem
 * whose files must all go when one of its objects is removed (debugfs,
 * procfs, kernfs) embeds a domain in that object, puts the files in it
 * from its ->open with revoke_file_install() and revokes them with
 * revoke_domain() on removal.
 */
struct revoke_domain {
	spinlock_t lock;		/* protects @files */
	struct list_head files;
};

void revoke_domain_init(struct revoke_domain *domain);
int revoke_file_install(struct file *file, struct revoke_domain *domain);
void revoke_domain(struct revoke_domain *domain);
int revoke_file(struct file *file);
int revoke_inode(struct inode *inode);
bool file_revoked(const struct file *file);

/* Called by the VFS only. */
int revoke_file_open(struct file *file);

#endif /* _LINUX_REVOKE_H */
