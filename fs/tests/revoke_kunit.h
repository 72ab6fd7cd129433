/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test driver that the KUnit tests of the revokable-file core share
 * (fs/tests/revoke*_kunit.c), defined in fs/tests/revoke_kunit.c: files of
 * anonymous inodes with the test's own methods, made revokable with
 * revoke_file_install() as a filesystem's ->open would, and kthreads to
 * read and revoke them.
 */
#ifndef _FS_TESTS_REVOKE_KUNIT_H
#define _FS_TESTS_REVOKE_KUNIT_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/file.h>
#include <linux/fs.h>

#include "../revoke_internal.h"

/* What the test driver saw, per file. */
struct revoke_test_file {
	atomic_t calls;		/* method calls that reached the driver */
	atomic_t releases;	/* ->release calls */
	atomic_t late_calls;	/* calls after ->release: must stay 0 */
	bool async;		/* ->fasync turned on and not off */
	atomic_t async_left;	/* ->release with @async: must stay 0 */
	bool block;		/* read blocks until @unblock */
	struct completion entered;
	struct completion unblock;
	struct file *nested;	/* read reads this file too, once */
	/* whether the file notes the task in read, before and after @nested */
	bool in_call[2];
	bool listed;		/* a read found the file's other calls listed */
	struct revoke_domain *revoke;	/* read revokes this domain */
	bool revoke_in_nested;	/* a nested read revokes its own file */
};

/* A revoker in a kthread, for revoke_test_revoker(). */
struct revoke_test_revoker {
	struct file *file;
	struct revoke_domain *domain;	/* if set, removal revokes it */
	bool unpinned;			/* revoke as for a file in __fput() */
	struct completion started;
	struct completion done;
	int ret;
};

extern const struct file_operations revoke_test_fops;
extern const struct file_operations revoke_test_proxy_fops;

ssize_t revoke_test_read(struct file *file, char __user *buf, size_t len,
			 loff_t *pos);
int revoke_test_release(struct inode *inode, struct file *file);
void revoke_test_fput(void *file);
struct file *revoke_test_open_file(struct kunit *test,
				   struct revoke_domain *domain, bool block);
struct file *revoke_test_open_with(struct kunit *test,
				   struct revoke_domain *domain,
				   const struct file_operations *fops,
				   const struct file_operations *proxy,
				   void *data);
struct file *revoke_test_open(struct kunit *test,
			      struct revoke_domain *domain, bool block);
ssize_t revoke_test_call_read(struct file *file);
int revoke_test_reader(void *file);
int revoke_test_revoker(void *data);
struct task_struct *revoke_test_start(struct kunit *test,
				      int (*fn)(void *), void *data);
struct task_struct *revoke_test_start_revoke(struct kunit *test,
					     struct file *file,
					     struct revoke_test_revoker *r,
					     struct task_struct **revoker);

static inline struct revoke_test_file *test_file(struct file *file)
{
	return file->private_data;
}

#endif /* _FS_TESTS_REVOKE_KUNIT_H */
