// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the revokable-file core, included by fs/revoke.c.
 *
 * The files are anonymous-inode files with the test's own methods, made
 * revokable with revoke_file_install() as a filesystem's ->open would.
 * Calls are made through file->f_op, the proxy, as the VFS makes them.
 * Races are driven by kthreads and ordered with completions.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <kunit/test-bug.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/debug_locks.h>
#include <linux/iopoll.h>
#include <linux/kthread.h>
#include <linux/pipe_fs_i.h>
#include <linux/sched/mm.h>
#include <linux/uio.h>

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

static ssize_t revoke_test_read(struct file *file, char __user *buf,
				size_t len, loff_t *pos)
{
	struct revoke_test_file *tf = file->private_data;
	struct file *nested = xchg(&tf->nested, NULL);
	struct revokable_file *rf = file_revokable_or_null(file);

	atomic_inc(&tf->calls);
	if (atomic_read(&tf->releases))
		atomic_inc(&tf->late_calls);
	tf->in_call[0] = rf && revoke_in_call(rf);
	tf->listed |= rf && !list_empty(&rf->callers);
	if (nested)
		nested->f_op->read(nested, buf, len, pos);
	tf->in_call[1] = rf && revoke_in_call(rf);
	if (tf->revoke)
		revoke_domain_files(tf->revoke);
	if (!nested && rf && revoke_calls_of(rf, current) > 1 &&
	    tf->revoke_in_nested)
		KUNIT_EXPECT_EQ(kunit_get_current_test(), 0, revoke_file(file));
	if (tf->block) {
		complete(&tf->entered);
		wait_for_completion(&tf->unblock);
	}
	return 1;
}

static int revoke_test_fasync(int fd, struct file *file, int on)
{
	struct revoke_test_file *tf = file->private_data;

	if (atomic_read(&tf->releases))
		atomic_inc(&tf->late_calls);
	tf->async = on;
	return 0;
}

static int revoke_test_release(struct inode *inode, struct file *file)
{
	struct revoke_test_file *tf = file->private_data;

	if (tf->async)
		atomic_inc(&tf->async_left);
	atomic_inc(&tf->releases);
	return 0;
}

static const struct file_operations revoke_test_fops = {
	.owner		= THIS_MODULE,
	.read		= revoke_test_read,
	.release	= revoke_test_release,
	.fasync		= revoke_test_fasync,
	.fop_flags	= FOP_UNSIGNED_OFFSET,
};

/* Its proxy, written out beside it as a driver's is. */
static const struct file_operations revoke_test_proxy_fops = {
	.read		= revoke_fop_read,
	.release	= revoke_fop_release,
	.fasync		= revoke_fop_fasync,
	.fop_flags	= FOP_UNSIGNED_OFFSET,
};

static void revoke_test_fput(void *file)
{
	__fput_sync(file);
}

/*
 * A file of the test driver, for the test to put.  Its state is the
 * test's, so that it outlives the test function.
 */
static struct file *revoke_test_open_file(struct kunit *test,
					  struct revoke_domain *domain,
					  bool block)
{
	struct revoke_test_file *tf;
	struct file *file;

	tf = kunit_kzalloc(test, sizeof(*tf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tf);
	tf->block = block;
	init_completion(&tf->entered);
	init_completion(&tf->unblock);
	file = anon_inode_create_getfile("[revoke_test]", &revoke_test_fops,
					 tf, O_RDWR, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, 0, revoke_file_install(file, domain,
						     &revoke_test_proxy_fops));
	return file;
}

/* The same, put at the end of the test, after the test function. */
static struct file *revoke_test_open(struct kunit *test,
				     struct revoke_domain *domain, bool block)
{
	struct file *file = revoke_test_open_file(test, domain, block);

	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, revoke_test_fput, file));
	return file;
}

static struct revoke_test_file *test_file(struct file *file)
{
	return file->private_data;
}

static ssize_t revoke_test_call_read(struct file *file)
{
	char c;

	return file->f_op->read(file, (char __user *)&c, 1, &file->f_pos);
}

/* The file's f_op is the const proxy, and its state is no bigger. */
static void revoke_test_proxy_installed(struct kunit *test)
{
	struct file *file = revoke_test_open(test, NULL, false);

	KUNIT_EXPECT_TRUE(test, file->f_mode & FMODE_REVOKABLE);
	KUNIT_EXPECT_PTR_EQ(test, file->f_op, &revoke_test_proxy_fops);
	KUNIT_EXPECT_PTR_EQ(test, file_real_fops(file), &revoke_test_fops);
	KUNIT_EXPECT_PTR_EQ(test, file->f_revoke_gate,
			    &file_revokable(file)->gate);
	kunit_info(test, "struct revokable_file: %zu bytes\n",
		   sizeof(struct revokable_file));
	/* Lock debugging makes every lock in it bigger. */
	if (!IS_ENABLED(CONFIG_DEBUG_LOCK_ALLOC))
		KUNIT_EXPECT_LE(test, sizeof(struct revokable_file), 256);
}

/*
 * A proxy that is not exactly the core's methods for the driver's (one
 * missing, one too many, another flag, a driver's method) is refused, and
 * the file is left as it was: a method added to a driver and not to its
 * proxy fails the revokable opens at once instead of bypassing the gate.
 * (An owner cannot be tested here: THIS_MODULE is NULL in built-in code.)
 */
static const struct file_operations revoke_test_bad_proxies[] = {
	{ .read = revoke_fop_read, .release = revoke_fop_release,
	  .fop_flags = FOP_UNSIGNED_OFFSET },
	{ .read = revoke_fop_read, .release = revoke_fop_release,
	  .fasync = revoke_fop_fasync, .poll = revoke_fop_poll,
	  .fop_flags = FOP_UNSIGNED_OFFSET },
	{ .read = revoke_fop_read, .release = revoke_fop_release,
	  .fasync = revoke_fop_fasync },
	{ .read = revoke_test_read, .release = revoke_fop_release,
	  .fasync = revoke_fop_fasync, .fop_flags = FOP_UNSIGNED_OFFSET },
};

static void revoke_test_proxy_refused(struct kunit *test)
{
	struct revoke_test_file tf = {};
	struct file *file;
	int i;

	file = anon_inode_create_getfile("[revoke_test]", &revoke_test_fops,
					 &tf, O_RDWR, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	for (i = 0; i < ARRAY_SIZE(revoke_test_bad_proxies); i++) {
		KUNIT_EXPECT_EQ(test, -EINVAL,
				revoke_file_install(file, NULL,
						    &revoke_test_bad_proxies[i]));
		KUNIT_EXPECT_FALSE(test, file->f_mode & FMODE_REVOKABLE);
		KUNIT_EXPECT_PTR_EQ(test, file->f_op, &revoke_test_fops);
	}
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf.releases));
}

static ssize_t revoke_test_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct revoke_test_file *tf = iocb->ki_filp->private_data;
	struct revokable_file *rf = file_revokable_or_null(iocb->ki_filp);

	atomic_set(&tf->calls, rf ? revoke_calls_of(rf, current) : -1);
	return copy_to_iter("x", 1, to);
}

static const struct file_operations revoke_test_iter_fops = {
	.owner		= THIS_MODULE,
	.read_iter	= revoke_test_read_iter,
	.splice_read	= copy_splice_read,
	.release	= revoke_test_release,
};

static const struct file_operations revoke_test_iter_proxy_fops = {
	.read_iter	= revoke_fop_read_iter,
	.splice_read	= copy_splice_read,
	.release	= revoke_fop_release,
};

/*
 * copy_splice_read() only calls ->read_iter, which the proxy gates: a
 * splice from the file is one call of it, not a call nested in another.
 */
static void revoke_test_splice_once(struct kunit *test)
{
	struct pipe_inode_info *pipe;
	struct revoke_test_file *tf;
	struct file *file;
	loff_t pos = 0;

	tf = kunit_kzalloc(test, sizeof(*tf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tf);
	file = anon_inode_create_getfile("[revoke_test]", &revoke_test_iter_fops,
					 tf, O_RDONLY, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, 0,
			revoke_file_install(file, NULL,
					    &revoke_test_iter_proxy_fops));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, revoke_test_fput, file));
	pipe = alloc_pipe_info();
	KUNIT_ASSERT_NOT_NULL(test, pipe);

	KUNIT_EXPECT_EQ(test, file->f_op->splice_read(file, &pos, pipe, 1, 0),
			1);
	KUNIT_EXPECT_EQ(test, atomic_read(&tf->calls), 1);

	KUNIT_EXPECT_EQ(test, 0, revoke_file(file));
	KUNIT_EXPECT_EQ(test, file->f_op->splice_read(file, &pos, pipe, 1, 0),
			-EIO);
	KUNIT_EXPECT_EQ(test, atomic_read(&tf->releases), 1);
	free_pipe_info(pipe);
}

/* A file that was not made revokable has no state and cannot be revoked. */
static void revoke_test_plain_file(struct kunit *test)
{
	struct revoke_test_file tf = {};
	struct file *file;

	file = anon_inode_create_getfile("[revoke_test]", &revoke_test_fops,
					 &tf, O_RDWR, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_EXPECT_FALSE(test, file->f_mode & FMODE_REVOKABLE);
	KUNIT_EXPECT_PTR_EQ(test, file->f_op, &revoke_test_fops);
	KUNIT_EXPECT_EQ(test, -EINVAL, revoke_file(file));
	KUNIT_EXPECT_FALSE(test, file_revoked(file));
	KUNIT_EXPECT_EQ(test, 0, revoke_inode(file_inode(file)));
	KUNIT_EXPECT_NULL(test, revoke_inode_domain_find(file_inode(file)));
	KUNIT_EXPECT_EQ(test, 1, revoke_test_call_read(file));
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf.releases));
}

/*
 * Revokability is opt-in: a file whose methods do not say so, on a
 * filesystem that does not either, is refused: the open the VFS asked to
 * make revokable (O_REVOKABLE) fails with -EOPNOTSUPP and leaves the file
 * as it was, for the final fput() to release the driver, once.
 */
static const struct file_operations revoke_test_plain_fops = {
	.read		= revoke_test_read,
	.release	= revoke_test_release,
};

static void revoke_test_not_opted_in(struct kunit *test)
{
	struct revoke_test_file tf = {};
	struct file *file;

	file = anon_inode_create_getfile("[revoke_test]",
					 &revoke_test_plain_fops, &tf,
					 O_RDWR, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, revoke_file_open(file));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf.releases));
	KUNIT_EXPECT_FALSE(test, file->f_mode & FMODE_REVOKABLE);
	KUNIT_EXPECT_PTR_EQ(test, file->f_op, &revoke_test_plain_fops);
	KUNIT_EXPECT_NULL(test, revoke_inode_domain_find(file_inode(file)));
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf.releases));
}

/*
 * Methods that say their ->open makes the file revokable
 * (FOP_REVOKE_BY_OPEN), on a filesystem with no gate of its own, are
 * refused if that ->open did not: a driver that forgot to install, or
 * missed it on one path, fails O_REVOKABLE instead of opening a file no
 * revoke reaches.
 */
static const struct file_operations revoke_test_by_open_fops = {
	.read		= revoke_test_read,
	.release	= revoke_test_release,
	.fop_flags	= FOP_REVOKE_BY_OPEN,
};

static void revoke_test_by_open_not_installed(struct kunit *test)
{
	struct revoke_test_file tf = {};
	struct file *file;

	file = anon_inode_create_getfile("[revoke_test]",
					 &revoke_test_by_open_fops, &tf,
					 O_RDWR, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, revoke_file_open(file));
	KUNIT_EXPECT_FALSE(test, file->f_mode & FMODE_REVOKABLE);
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf.releases));
}

/*
 * An ->open that fails after it installed: the open undoes the install,
 * so the file leaves its domain and its cleanup puts the driver's methods;
 * the driver's ->release is not called, as for any failed open.
 */
static void revoke_test_install_aborted(struct kunit *test)
{
	struct revoke_inode_domain *id;
	struct revoke_test_file tf = {};
	struct file *file;

	file = anon_inode_create_getfile("[revoke_test]", &revoke_test_fops,
					 &tf, O_RDWR, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, 0, revoke_file_install(file, NULL,
						     &revoke_test_proxy_fops));
	id = revoke_inode_domain_find(file_inode(file));
	KUNIT_EXPECT_NOT_NULL(test, id);
	if (id)
		revoke_inode_domain_put(id);
	revoke_file_abort(file);
	KUNIT_EXPECT_FALSE(test, file->f_mode & FMODE_REVOKABLE);
	KUNIT_EXPECT_PTR_EQ(test, file->f_op, &revoke_test_fops);
	KUNIT_EXPECT_NULL(test, file->f_revoke_gate);
	KUNIT_EXPECT_NULL(test, revoke_inode_domain_find(file_inode(file)));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf.releases));
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf.releases));
}

/*
 * file_real_fops() sees through the proxy to the methods the file was
 * opened with, revoked or not; a plain file's are its f_op.
 */
static void revoke_test_real_fops(struct kunit *test)
{
	struct file *file = revoke_test_open(test, NULL, false);
	struct revoke_test_file tf = {};
	struct file *plain;

	plain = anon_inode_create_getfile("[revoke_test]", &revoke_test_fops,
					  &tf, O_RDWR, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(plain));
	KUNIT_EXPECT_PTR_EQ(test, file_real_fops(plain), &revoke_test_fops);
	__fput_sync(plain);

	KUNIT_EXPECT_PTR_NE(test, file->f_op, &revoke_test_fops);
	KUNIT_EXPECT_PTR_EQ(test, file_real_fops(file), &revoke_test_fops);
	KUNIT_EXPECT_EQ(test, 0, revoke_file(file));
	KUNIT_EXPECT_PTR_EQ(test, file_real_fops(file), &revoke_test_fops);
}

/* Nothing of the file notes a call: no task in it, none listed. */
static bool revoke_test_no_call(struct file *file)
{
	struct revokable_file *rf = file_revokable(file);

	return !READ_ONCE(rf->gate.caller) && list_empty(&rf->callers) &&
	       !revoke_in_call(rf);
}

/*
 * A file notes the tasks in its calls, for revoke_kick(), and only while
 * they are in: the first call takes the file's slot, and a call nested in
 * it (the same file again, through the VFS) needs no other note; a call
 * of another file is that file's; a refused call is noted nowhere.
 */
static void revoke_test_task_in_call(struct kunit *test)
{
	struct file *outer = revoke_test_open(test, NULL, false);
	struct file *inner = revoke_test_open(test, NULL, false);

	test_file(outer)->nested = inner;
	KUNIT_EXPECT_EQ(test, 1, revoke_test_call_read(outer));
	KUNIT_EXPECT_TRUE(test, revoke_test_no_call(outer));
	KUNIT_EXPECT_TRUE(test, revoke_test_no_call(inner));
	KUNIT_EXPECT_TRUE(test, test_file(inner)->in_call[0]);
	KUNIT_EXPECT_TRUE(test, test_file(outer)->in_call[0]);
	KUNIT_EXPECT_TRUE(test, test_file(outer)->in_call[1]);
	KUNIT_EXPECT_FALSE(test, test_file(outer)->listed);
	KUNIT_EXPECT_FALSE(test, test_file(inner)->listed);

	test_file(outer)->nested = outer;
	KUNIT_EXPECT_EQ(test, 1, revoke_test_call_read(outer));
	KUNIT_EXPECT_FALSE(test, test_file(outer)->listed);
	KUNIT_EXPECT_TRUE(test, test_file(outer)->in_call[0]);
	KUNIT_EXPECT_TRUE(test, test_file(outer)->in_call[1]);
	KUNIT_EXPECT_TRUE(test, revoke_test_no_call(outer));

	KUNIT_EXPECT_EQ(test, 0, revoke_file(inner));
	KUNIT_EXPECT_EQ(test, -EIO, revoke_test_call_read(inner));
	KUNIT_EXPECT_TRUE(test, revoke_test_no_call(inner));
}

/* Revoke fails new calls and releases the driver once, early. */
static void revoke_test_domain_files(struct kunit *test)
{
	struct revoke_test_file *tf1, *tf2;
	struct revoke_domain domain;
	struct file *f1, *f2;

	revoke_domain_init(&domain);
	f1 = revoke_test_open(test, &domain, false);
	f2 = revoke_test_open(test, &domain, false);
	tf1 = test_file(f1);
	tf2 = test_file(f2);
	KUNIT_EXPECT_EQ(test, 1, revoke_test_call_read(f1));
	KUNIT_EXPECT_FALSE(test, file_revoked(f1));

	revoke_domain_files(&domain);
	KUNIT_EXPECT_TRUE(test, list_empty(&domain.files));
	KUNIT_EXPECT_TRUE(test, file_revoked(f1));
	KUNIT_EXPECT_TRUE(test, file_revoked(f2));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf1->releases));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf2->releases));
	/* not a character device: -EIO, and the driver is not called */
	KUNIT_EXPECT_EQ(test, -EIO, revoke_test_call_read(f1));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf1->calls));
	KUNIT_EXPECT_EQ(test, 0, revoke_file(f1));

	/* the final put does not release again */
	get_file(f1);
	__fput_sync(f1);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf1->releases));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf1->late_calls));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf2->late_calls));
}

static int revoke_test_reader(void *file)
{
	revoke_test_call_read(file);
	return 0;
}

struct revoke_test_revoker {
	struct file *file;
	struct revoke_domain *domain;	/* if set, removal revokes it */
	bool unpinned;			/* revoke as for a file in __fput() */
	struct completion started;
	struct completion done;
	int ret;
};

static int revoke_test_revoker(void *data)
{
	struct revoke_test_revoker *r = data;

	allow_signal(SIGKILL);
	complete(&r->started);
	if (r->domain)
		revoke_domain_files(r->domain);
	else if (r->unpinned)
		r->ret = revoke_unpinned(file_revokable(r->file), true);
	else
		r->ret = revoke_file(r->file);
	complete(&r->done);
	return 0;
}

static struct task_struct *revoke_test_start(struct kunit *test,
					     int (*fn)(void *), void *data)
{
	struct task_struct *task = kthread_run(fn, data, "revoke_test");

	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	return task;
}

/*
 * A reader blocked in the driver, and a revoker started after it: the
 * revoker is about to revoke when this returns the reader.
 */
static struct task_struct *revoke_test_start_revoke(struct kunit *test,
						    struct file *file,
						    struct revoke_test_revoker *r,
						    struct task_struct **revoker)
{
	struct task_struct *reader;

	r->file = file;
	init_completion(&r->started);
	init_completion(&r->done);
	reader = revoke_test_start(test, revoke_test_reader, file);
	wait_for_completion(&test_file(file)->entered);
	*revoker = revoke_test_start(test, revoke_test_revoker, r);
	wait_for_completion(&r->started);
	return reader;
}

/* A call finding another task's call in flight is listed, while in. */
static void revoke_test_other_task_listed(struct kunit *test)
{
	struct file *file = revoke_test_open(test, NULL, true);
	struct revoke_test_file *tf = test_file(file);
	struct task_struct *reader;

	reader = revoke_test_start(test, revoke_test_reader, file);
	wait_for_completion(&tf->entered);
	tf->block = false;
	KUNIT_EXPECT_EQ(test, 1, revoke_test_call_read(file));
	KUNIT_EXPECT_TRUE(test, tf->listed);
	KUNIT_EXPECT_TRUE(test, tf->in_call[0]);
	KUNIT_EXPECT_FALSE(test, revoke_in_call(file_revokable(file)));
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(file_revokable(file)->gate.caller),
			    reader);
	complete(&tf->unblock);
	kthread_stop_put(reader);
	KUNIT_EXPECT_TRUE(test, revoke_test_no_call(file));
}

/*
 * A method revoking its own file from a call nested in another of the same
 * file (a splice calling the file's ->write_iter through the VFS) waits
 * for neither of its own calls; the outer call finishes the revoke as it
 * leaves.
 */
static void revoke_test_self_revoke_nested(struct kunit *test)
{
	struct file *file = revoke_test_open(test, NULL, false);
	struct revoke_test_file *tf = test_file(file);

	tf->nested = file;
	tf->revoke_in_nested = true;
	KUNIT_EXPECT_EQ(test, 1, revoke_test_call_read(file));
	KUNIT_EXPECT_TRUE(test, file_revoked(file));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->releases));
	KUNIT_EXPECT_EQ(test, 2, atomic_read(&tf->calls));
	KUNIT_EXPECT_TRUE(test, revoke_test_no_call(file));
}

/* Revoke waits for the call in flight, then releases. */
static void revoke_test_waits_for_calls(struct kunit *test)
{
	struct revoke_test_file *tf;
	struct revoke_test_revoker r = {};
	struct task_struct *reader, *revoker;
	struct file *file;

	file = revoke_test_open(test, NULL, true);
	tf = test_file(file);
	reader = revoke_test_start_revoke(test, file, &r, &revoker);

	/* The read is still in the driver: revoke must not have returned. */
	KUNIT_EXPECT_EQ(test, 0,
			wait_for_completion_timeout(&r.done, HZ / 10));
	KUNIT_EXPECT_TRUE(test, file_revoked(file));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->releases));
	KUNIT_EXPECT_EQ(test, -EIO, revoke_test_call_read(file));

	complete(&tf->unblock);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, 0, r.ret);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->releases));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->calls));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->late_calls));

	kthread_stop_put(revoker);
	kthread_stop_put(reader);
}

/*
 * A revoker killed while it waits leaves the file revoked.  The call in
 * flight leaves without releasing the driver (no worker is queued from
 * wherever the call was); the next revoker does.
 */
static void revoke_test_killed_revoker(struct kunit *test)
{
	struct revoke_test_file *tf;
	struct revoke_test_revoker r = {};
	struct task_struct *reader, *revoker;
	struct file *file;

	file = revoke_test_open(test, NULL, true);
	tf = test_file(file);
	reader = revoke_test_start_revoke(test, file, &r, &revoker);
	send_sig(SIGKILL, revoker, 1);
	wait_for_completion(&r.done);

	KUNIT_EXPECT_EQ(test, -EINTR, r.ret);
	KUNIT_EXPECT_TRUE(test, file_revoked(file));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->releases));
	KUNIT_EXPECT_EQ(test, -EIO, revoke_test_call_read(file));

	complete(&tf->unblock);
	kthread_stop_put(reader);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->releases));
	KUNIT_EXPECT_EQ(test, 0, revoke_file(file));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->releases));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->late_calls));
	kthread_stop_put(revoker);
}

/*
 * The same, and the file is closed instead: its takedowns (fasync off,
 * unlocks) still reach the driver through the closed gate, and the final
 * fput() releases it, once.
 */
static void revoke_test_killed_revoker_then_close(struct kunit *test)
{
	struct revoke_test_revoker r = {};
	struct task_struct *reader, *revoker;
	struct revoke_test_file *tf;
	struct file *file;

	file = revoke_test_open_file(test, NULL, true);
	tf = test_file(file);
	KUNIT_ASSERT_EQ(test, 0, file->f_op->fasync(-1, file, 1));
	file->f_flags |= FASYNC;
	reader = revoke_test_start_revoke(test, file, &r, &revoker);
	send_sig(SIGKILL, revoker, 1);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, -EINTR, r.ret);
	complete(&tf->unblock);
	kthread_stop_put(reader);
	kthread_stop_put(revoker);

	KUNIT_EXPECT_EQ(test, -EIO, file->f_op->fasync(-1, file, 1));
	KUNIT_EXPECT_TRUE(test, tf->async);
	KUNIT_EXPECT_EQ(test, 0, file->f_op->fasync(-1, file, 0));
	KUNIT_EXPECT_FALSE(test, tf->async);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->releases));
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->releases));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->async_left));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->late_calls));
}

/* Wait up to ten seconds for @rf's release to be claimed: 0 or -ETIMEDOUT. */
static int revoke_test_wait_claimed(struct revokable_file *rf)
{
	bool claimed;

	return read_poll_timeout(test_bit, claimed, claimed, 20 * USEC_PER_MSEC,
				 10 * USEC_PER_SEC, false, REVOKE_RELEASED,
				 &rf->flags);
}

/*
 * A revoker waiting for the release claimed by another takes the claim
 * when the other is killed and gives it back, rather than wait for a
 * release nobody does any more; the one that took it releases the driver
 * once the call in flight has left.
 */
static void revoke_test_claim_given_back(struct kunit *test)
{
	struct revoke_test_revoker r[2] = {};
	struct task_struct *reader, *revoker[2];
	struct revoke_test_file *tf;
	struct revokable_file *rf;
	struct file *file;
	unsigned long done;
	unsigned int state;

	file = revoke_test_open(test, NULL, true);
	tf = test_file(file);
	rf = file_revokable(file);
	r[0].unpinned = true;
	reader = revoke_test_start_revoke(test, file, &r[0], &revoker[0]);
	/* The first claims the release, then waits for the reader's call. */
	KUNIT_EXPECT_EQ(test, 0, revoke_test_wait_claimed(rf));

	/* The second waits, killable, for the first's claim. */
	r[1].file = file;
	r[1].unpinned = true;
	init_completion(&r[1].started);
	init_completion(&r[1].done);
	revoker[1] = revoke_test_start(test, revoke_test_revoker, &r[1]);
	read_poll_timeout(READ_ONCE, state, state == TASK_KILLABLE,
			  20 * USEC_PER_MSEC, 10 * USEC_PER_SEC, false,
			  revoker[1]->__state);

	/* The first is killed and gives the claim back: the second takes it. */
	send_sig(SIGKILL, revoker[0], 1);
	wait_for_completion(&r[0].done);
	KUNIT_EXPECT_EQ(test, -EINTR, r[0].ret);
	KUNIT_EXPECT_EQ_MSG(test, 0, revoke_test_wait_claimed(rf),
			    "the claim was not given back");
	KUNIT_EXPECT_EQ(test, 0, wait_for_completion_timeout(&r[1].done, HZ / 10));

	complete(&tf->unblock);
	done = wait_for_completion_timeout(&r[1].done, 10 * HZ);
	KUNIT_EXPECT_NE(test, 0, done);
	if (!done) {
		send_sig(SIGKILL, revoker[1], 1);
		wait_for_completion(&r[1].done);
	}
	kthread_stop_put(reader);
	kthread_stop_put(revoker[0]);
	kthread_stop_put(revoker[1]);
	KUNIT_EXPECT_EQ(test, 0, r[1].ret);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->releases));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->late_calls));
}

static void revoke_test_kick(struct file *file)
{
	complete(&test_file(file)->unblock);
}

/* The domain's kick hook gets a call that waits for it out of the driver. */
static void revoke_test_domain_kick(struct kunit *test)
{
	struct task_struct *reader;
	struct revoke_test_file *tf;
	struct revoke_domain domain;
	struct file *file;

	revoke_domain_init(&domain);
	domain.kick = revoke_test_kick;
	file = revoke_test_open(test, &domain, true);
	tf = test_file(file);
	reader = revoke_test_start(test, revoke_test_reader, file);
	wait_for_completion(&tf->entered);

	revoke_domain_files(&domain);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->releases));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->calls));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->late_calls));
	kthread_stop_put(reader);
}

/* Methods that succeed, for what a revoked file's calls return instead. */
static loff_t revoke_test_llseek(struct file *file, loff_t offset, int whence)
{
	return 0;
}

static ssize_t revoke_test_write(struct file *file, const char __user *buf,
				 size_t len, loff_t *pos)
{
	return len;
}

static __poll_t revoke_test_poll(struct file *file, poll_table *pt)
{
	return EPOLLOUT;
}

static long revoke_test_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg)
{
	return 0;
}

static int revoke_test_mmap(struct file *file, struct vm_area_struct *vma)
{
	return 0;
}

static const struct file_operations revoke_test_calls_fops = {
	.llseek		= revoke_test_llseek,
	.read		= revoke_test_read,
	.write		= revoke_test_write,
	.poll		= revoke_test_poll,
	.unlocked_ioctl	= revoke_test_ioctl,
	.mmap		= revoke_test_mmap,
	.release	= revoke_test_release,
};

static const struct file_operations revoke_test_calls_proxy_fops = {
	.llseek		= revoke_fop_llseek,
	.read		= revoke_fop_read,
	.write		= revoke_fop_write,
	.poll		= revoke_fop_poll,
	.unlocked_ioctl	= revoke_fop_unlocked_ioctl,
	.mmap		= revoke_fop_mmap,
	.release	= revoke_fop_release,
};

/* Each call of @file, revoked, returns what @want says. */
static void revoke_test_expect_results(struct kunit *test, struct file *file,
				       const struct revoke_results *want)
{
	const struct file_operations *fop = file->f_op;
	char c;

	KUNIT_EXPECT_EQ(test, want->read,
			fop->read(file, (char __user *)&c, 1, &file->f_pos));
	KUNIT_EXPECT_EQ(test, want->error,
			fop->write(file, (const char __user *)&c, 1,
				   &file->f_pos));
	KUNIT_EXPECT_EQ(test, want->llseek, fop->llseek(file, 0, SEEK_SET));
	KUNIT_EXPECT_EQ(test, want->ioctl, fop->unlocked_ioctl(file, 0, 0));
	if (IS_ENABLED(CONFIG_MMU))
		KUNIT_EXPECT_EQ(test, want->mmap, fop->mmap(file, NULL));
	KUNIT_EXPECT_EQ(test, (__force unsigned int)want->poll,
			(__force unsigned int)fop->poll(file, NULL));
}

/*
 * A domain says what the calls of its revoked files return (procfs and
 * kernfs keep the errors their users saw after a removal); a file of a
 * domain that does not, as every O_REVOKABLE file, returns revoke(2)'s.
 */
static void revoke_test_domain_results(struct kunit *test)
{
	static const struct revoke_results results = {
		.error	= -ENODEV,
		.read	= -ESTALE,
		.llseek	= -EINVAL,
		.ioctl	= -ENOTTY,
		.mmap	= -EACCES,
		.poll	= DEFAULT_POLLMASK | EPOLLERR | EPOLLPRI,
	};
	struct revoke_domain domain[2];
	struct revoke_test_file *tf;
	struct file *file[2];
	int i;

	tf = kunit_kcalloc(test, 2, sizeof(*tf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tf);
	for (i = 0; i < 2; i++) {
		revoke_domain_init(&domain[i]);
		file[i] = anon_inode_create_getfile("[revoke_test]",
						    &revoke_test_calls_fops,
						    &tf[i], O_RDWR, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(file[i]));
		KUNIT_ASSERT_EQ(test, 0,
				kunit_add_action_or_reset(test, revoke_test_fput,
							  file[i]));
	}
	domain[0].results = &results;
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, 0,
				revoke_file_install(file[i], &domain[i],
						    &revoke_test_calls_proxy_fops));
		KUNIT_EXPECT_EQ(test, 0, file[i]->f_op->llseek(file[i], 0,
							       SEEK_SET));
		revoke_domain_files(&domain[i]);
	}
	revoke_test_expect_results(test, file[0], &results);
	revoke_test_expect_results(test, file[1], &revoke_default_results);
	KUNIT_EXPECT_EQ(test, -EIO, revoke_default_results.read);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf[0].calls));
}

/* A driver's own result per ioctl command (a hung-up tty's TIOCSPGRP). */
static long revoke_test_ioctl_cmd(unsigned int cmd)
{
	return cmd ? -ENOTTY : -EIO;
}

static void revoke_test_ioctl_cmd_results(struct kunit *test)
{
	static const struct revoke_results results = {
		.error		= -EIO,
		.ioctl		= -EBADF,
		.ioctl_cmd	= revoke_test_ioctl_cmd,
		.poll		= EPOLLHUP,
	};
	struct revoke_domain domain;
	struct revoke_test_file *tf;
	struct file *file;

	tf = kunit_kzalloc(test, sizeof(*tf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tf);
	revoke_domain_init(&domain);
	domain.results = &results;
	file = anon_inode_create_getfile("[revoke_test]",
					 &revoke_test_calls_fops, tf, O_RDWR,
					 NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, revoke_test_fput, file));
	KUNIT_ASSERT_EQ(test, 0,
			revoke_file_install(file, &domain,
					    &revoke_test_calls_proxy_fops));
	KUNIT_EXPECT_EQ(test, 0, file->f_op->unlocked_ioctl(file, 1, 0));
	KUNIT_EXPECT_EQ(test, 0, revoke_file(file));
	KUNIT_EXPECT_EQ(test, -EIO, file->f_op->unlocked_ioctl(file, 0, 0));
	KUNIT_EXPECT_EQ(test, -ENOTTY, file->f_op->unlocked_ioctl(file, 1, 0));
}

/*
 * A driver whose files are released at their last close only (a tty's):
 * revoke closes the gate and waits for the call in flight, and the final
 * fput() releases the driver, once.
 */
static void revoke_test_release_at_close(struct kunit *test)
{
	static const struct revoke_results results = {
		.error			= -EIO,
		.ioctl			= -EIO,
		.poll			= EPOLLHUP,
		.release_at_close	= true,
	};
	struct revoke_test_revoker r = {};
	struct task_struct *reader, *revoker;
	struct revoke_domain domain;
	struct revoke_test_file *tf;
	struct file *file;

	revoke_domain_init(&domain);
	domain.results = &results;
	file = revoke_test_open_file(test, &domain, true);
	tf = test_file(file);
	/* fcntl(F_SETFL, O_ASYNC): revoke turns it off, no SIGIO after. */
	KUNIT_ASSERT_EQ(test, 0, file->f_op->fasync(0, file, 1));
	file->f_flags |= FASYNC;
	reader = revoke_test_start_revoke(test, file, &r, &revoker);

	KUNIT_EXPECT_EQ(test, 0,
			wait_for_completion_timeout(&r.done, HZ / 10));
	complete(&tf->unblock);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, 0, r.ret);
	KUNIT_EXPECT_TRUE(test, file_revoked(file));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->releases));
	KUNIT_EXPECT_FALSE(test, tf->async);
	KUNIT_EXPECT_EQ(test, 0, revoke_test_call_read(file));
	/* A second revoke, and the domain's, find nothing to release. */
	KUNIT_EXPECT_EQ(test, 0, revoke_file(file));
	revoke_domain_files(&domain);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->releases));

	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->releases));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->calls));
	kthread_stop_put(revoker);
	kthread_stop_put(reader);
}

/*
 * A file in its final fput(), which a domain's revoke cannot hold: the
 * revoker closes the gate and leaves the release of a driver released at
 * the last close to __fput(), which may wait in ways revoke(2) must not.
 */
static void revoke_test_release_at_close_unpinned(struct kunit *test)
{
	static const struct revoke_results results = {
		.error			= -EIO,
		.release_at_close	= true,
	};
	struct revoke_domain domain;
	struct revoke_test_file *tf;
	struct file *file;

	revoke_domain_init(&domain);
	domain.results = &results;
	file = revoke_test_open_file(test, &domain, false);
	tf = test_file(file);
	KUNIT_EXPECT_EQ(test, 0, revoke_unpinned(file_revokable(file), true));
	KUNIT_EXPECT_TRUE(test, file_revoked(file));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->releases));
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->releases));
}

/*
 * revoke_file_shut() closes the gate with a call in flight and returns at
 * once; revoke_file() afterwards waits for that call and releases.
 */
static void revoke_test_shut(struct kunit *test)
{
	struct file *file = revoke_test_open(test, NULL, true);
	struct revoke_test_file *tf = test_file(file);
	struct task_struct *reader;

	reader = revoke_test_start(test, revoke_test_reader, file);
	wait_for_completion(&tf->entered);
	revoke_file_shut(file);
	KUNIT_EXPECT_TRUE(test, file_revoked(file));
	KUNIT_EXPECT_EQ(test, -EIO, revoke_test_call_read(file));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->releases));
	complete(&tf->unblock);
	KUNIT_EXPECT_EQ(test, 0, revoke_file(file));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->releases));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->calls));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->late_calls));
	kthread_stop_put(reader);
}

/*
 * Methods that revoke their own file and then fail as a kicked sleep
 * does, with -EINTR or a restart code and no signal pending.
 */
static ssize_t revoke_test_copy_kicked(struct file *in, loff_t pos_in,
				       struct file *out, loff_t pos_out,
				       size_t len, unsigned int flags)
{
	KUNIT_EXPECT_EQ(kunit_get_current_test(), 0, revoke_file(in));
	return -EINTR;
}

static loff_t revoke_test_remap_kicked(struct file *in, loff_t pos_in,
				       struct file *out, loff_t pos_out,
				       loff_t len, unsigned int flags)
{
	KUNIT_EXPECT_EQ(kunit_get_current_test(), 0, revoke_file(out));
	return -ERESTARTSYS;
}

static int revoke_test_fasync_kicked(int fd, struct file *file, int on)
{
	KUNIT_EXPECT_EQ(kunit_get_current_test(), 0, revoke_file(file));
	return -EINTR;
}

static const struct file_operations revoke_test_kicked_fops = {
	.copy_file_range	= revoke_test_copy_kicked,
	.remap_file_range	= revoke_test_remap_kicked,
	.fasync			= revoke_test_fasync_kicked,
	.release		= revoke_test_release,
};

static const struct file_operations revoke_test_kicked_proxy_fops = {
	.copy_file_range	= revoke_fop_copy_file_range,
	.remap_file_range	= revoke_fop_remap_file_range,
	.fasync			= revoke_fop_fasync,
	.release		= revoke_fop_release,
};

static struct file *revoke_test_open_kicked(struct kunit *test)
{
	struct revoke_test_file *tf;
	struct file *file;

	tf = kunit_kzalloc(test, sizeof(*tf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tf);
	file = anon_inode_create_getfile("[revoke_test]",
					 &revoke_test_kicked_fops, tf, O_RDWR,
					 NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, revoke_test_fput, file));
	KUNIT_ASSERT_EQ(test, 0,
			revoke_file_install(file, NULL,
					    &revoke_test_kicked_proxy_fops));
	return file;
}

/*
 * A call that leaves a file revoked meanwhile returns what a revoked file
 * returns, not the -EINTR or restart code of its kicked sleep: the methods
 * of two files (copy_file_range, remap_file_range) and the takedowns
 * (fasync) as the others.
 */
static void revoke_test_kicked_results(struct kunit *test)
{
	struct file *file[4];
	int i;

	for (i = 0; i < ARRAY_SIZE(file); i++)
		file[i] = revoke_test_open_kicked(test);
	KUNIT_EXPECT_EQ(test, -EIO,
			file[0]->f_op->copy_file_range(file[0], 0, file[1], 0,
						       1, 0));
	KUNIT_EXPECT_TRUE(test, file_revoked(file[0]));
	KUNIT_EXPECT_EQ(test, -EIO,
			file[1]->f_op->remap_file_range(file[1], 0, file[2],
							0, 1, 0));
	KUNIT_EXPECT_TRUE(test, file_revoked(file[2]));
	KUNIT_EXPECT_EQ(test, -EIO, file[3]->f_op->fasync(-1, file[3], 1));
	KUNIT_EXPECT_TRUE(test, file_revoked(file[3]));
	for (i = 0; i < ARRAY_SIZE(file); i++)
		KUNIT_EXPECT_EQ(test, i == 1 ? 0 : 1,
				atomic_read(&test_file(file[i])->releases));
}

/* A driver polled on a waitqueue, whose poll consumes its event. */
struct revoke_test_polled {
	wait_queue_head_t wq;
	bool event;
};

static __poll_t revoke_test_poll_wait(struct file *file, poll_table *pt)
{
	struct revoke_test_polled *polled = file->private_data;

	poll_wait(file, &polled->wq, pt);
	return EPOLLOUT | (xchg(&polled->event, false) ? EPOLLPRI : 0);
}

static const struct file_operations revoke_test_polled_fops = {
	.poll		= revoke_test_poll_wait,
};

/* A driver that polls another file, under a spinlock. */
struct revoke_test_stacked {
	spinlock_t lock;	/* held around the lower file's poll */
	struct file *lower;
};

static __poll_t revoke_test_poll_lower(struct file *file, poll_table *pt)
{
	struct revoke_test_stacked *stacked = file->private_data;
	__poll_t mask;

	spin_lock(&stacked->lock);
	mask = vfs_poll(stacked->lower, pt);
	spin_unlock(&stacked->lock);
	return mask;
}

static const struct file_operations revoke_test_stacked_fops = {
	.poll		= revoke_test_poll_lower,
};

/* The proxy of both. */
static const struct file_operations revoke_test_polled_proxy_fops = {
	.poll		= revoke_fop_poll,
	.release	= revoke_fop_release,
};

/* A revokable file of @fops, put at the end of the test. */
static struct file *revoke_test_open_polled(struct kunit *test,
					    const struct file_operations *fops,
					    void *data)
{
	struct file *file;

	file = anon_inode_create_getfile("[revoke_test]", fops, data, O_RDWR,
					 NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, revoke_test_fput, file));
	KUNIT_ASSERT_EQ(test, 0,
			revoke_file_install(file, NULL,
					    &revoke_test_polled_proxy_fops));
	return file;
}

/* A poller that queues itself, as select() and epoll do. */
struct revoke_test_poller {
	poll_table pt;
	wait_queue_entry_t wait;
	wait_queue_head_t *head;
	bool woken;
};

static void revoke_test_poller_queue(struct file *file,
				     wait_queue_head_t *head, poll_table *pt)
{
	struct revoke_test_poller *p = container_of(pt, struct revoke_test_poller,
						    pt);

	p->head = head;
	add_wait_queue(head, &p->wait);
}

static int revoke_test_poller_wake(wait_queue_entry_t *wait, unsigned int mode,
				   int sync, void *key)
{
	container_of(wait, struct revoke_test_poller, wait)->woken = true;
	return 0;
}

static struct revoke_poll_hook *revoke_test_no_atomic_hook(void)
{
	return NULL;
}

/*
 * Polls @file with no memory for a hook where the driver may hold a
 * spinlock: the poll is not failed (EPOLLERR with EPOLLPRI is how
 * sysfs_notify() says a file changed), the event the first round took is
 * not lost, and a wakeup of @driver reaches the poller.
 */
static void revoke_test_poll_without_atomic(struct kunit *test,
					    struct file *file,
					    struct revoke_test_polled *driver)
{
	struct revoke_test_poller p = {};

	kunit_activate_static_stub(test, revoke_poll_hook_atomic,
				   revoke_test_no_atomic_hook);
	init_poll_funcptr(&p.pt, revoke_test_poller_queue);
	init_waitqueue_func_entry(&p.wait, revoke_test_poller_wake);
	driver->event = true;
	KUNIT_EXPECT_EQ(test, (__force unsigned int)(EPOLLOUT | EPOLLPRI),
			(__force unsigned int)vfs_poll(file, &p.pt));
	KUNIT_ASSERT_NOT_NULL(test, p.head);
	wake_up(&driver->wq);
	KUNIT_EXPECT_TRUE(test, p.woken);
	remove_wait_queue(p.head, &p.wait);
	kunit_deactivate_static_stub(test, revoke_poll_hook_atomic);
}

static void revoke_test_poll_no_atomic_memory(struct kunit *test)
{
	struct revoke_test_polled *driver;
	struct file *file;

	/* Freed after the file: its release takes the hook off. */
	driver = kunit_kzalloc(test, sizeof(*driver), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, driver);
	init_waitqueue_head(&driver->wq);
	file = revoke_test_open_polled(test, &revoke_test_polled_fops, driver);
	revoke_test_poll_without_atomic(test, file, driver);
}

/*
 * The same through a driver that polls a lower revokable file under a
 * spinlock: the lower file's poll does not sleep there (the debug
 * kernel's might_sleep() would say so), the outermost poll retries.
 */
static void revoke_test_poll_nested(struct kunit *test)
{
	struct revoke_test_stacked *stacked;
	struct revoke_test_polled *driver;
	struct file *upper;

	driver = kunit_kzalloc(test, sizeof(*driver), GFP_KERNEL);
	stacked = kunit_kzalloc(test, sizeof(*stacked), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, driver);
	KUNIT_ASSERT_NOT_NULL(test, stacked);
	init_waitqueue_head(&driver->wq);
	spin_lock_init(&stacked->lock);
	stacked->lower = revoke_test_open_polled(test, &revoke_test_polled_fops,
						 driver);
	upper = revoke_test_open_polled(test, &revoke_test_stacked_fops,
					stacked);
	revoke_test_poll_without_atomic(test, upper, driver);
}

struct revoke_test_remover {
	struct revoke_domain *domain;
	bool remove;		/* revoke_domain_remove(), not revoke_domain_files() */
	struct completion started;
	struct completion done;
};

static int revoke_test_remover(void *data)
{
	struct revoke_test_remover *r = data;

	complete(&r->started);
	if (r->remove)
		revoke_domain_remove(r->domain);
	else
		revoke_domain_files(r->domain);
	complete(&r->done);
	return 0;
}

/* A kthread removing @domain, about to when this returns. */
static struct task_struct *revoke_test_start_remover(struct kunit *test,
						     struct revoke_test_remover *r,
						     struct revoke_domain *domain)
{
	struct task_struct *remover;

	r->domain = domain;
	r->remove = true;
	init_completion(&r->started);
	init_completion(&r->done);
	remover = revoke_test_start(test, revoke_test_remover, r);
	wait_for_completion(&r->started);
	return remover;
}

/*
 * Removing a domain revokes its files and waits for an open in flight,
 * which then cannot put its file in the domain; the domain refuses new
 * uses.
 */
static void revoke_test_domain_remove(struct kunit *test)
{
	struct revoke_test_remover r;
	struct revoke_test_file tf = {};
	struct revoke_domain domain;
	struct task_struct *remover;
	struct file *file, *late;

	revoke_domain_init(&domain);
	file = revoke_test_open(test, &domain, false);
	/* an ->open in flight */
	KUNIT_ASSERT_TRUE(test, revoke_domain_enter(&domain));
	remover = revoke_test_start_remover(test, &r, &domain);

	KUNIT_EXPECT_EQ(test, 0,
			wait_for_completion_timeout(&r.done, HZ / 10));
	KUNIT_EXPECT_TRUE(test, file_revoked(file));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&test_file(file)->releases));
	KUNIT_EXPECT_FALSE(test, revoke_domain_enter(&domain));

	/* the open in flight cannot install its file, and leaves */
	late = anon_inode_create_getfile("[revoke_test]", &revoke_test_fops,
					 &tf, O_RDWR, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(late));
	KUNIT_EXPECT_EQ(test, -ENOENT,
			revoke_file_install(late, &domain,
					    &revoke_test_proxy_fops));
	KUNIT_EXPECT_FALSE(test, late->f_mode & FMODE_REVOKABLE);
	revoke_domain_leave(&domain);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_TRUE(test, list_empty(&domain.files));
	__fput_sync(late);
	kthread_stop_put(remover);
}

/*
 * A file that another revoker is revoking stays in its domain until it is
 * released: removing the domain waits for it too.
 */
static void revoke_test_remove_waits_for_revoker(struct kunit *test)
{
	struct task_struct *reader, *revoker, *remover;
	struct revoke_test_revoker r = {};
	struct revoke_test_remover rm;
	struct revoke_domain domain;
	struct revoke_test_file *tf;
	unsigned long timeout;
	struct file *file;

	revoke_domain_init(&domain);
	file = revoke_test_open(test, &domain, true);
	tf = test_file(file);
	reader = revoke_test_start_revoke(test, file, &r, &revoker);
	timeout = jiffies + HZ;
	while (!file_revoked(file) && time_before(jiffies, timeout))
		cond_resched();
	KUNIT_ASSERT_TRUE(test, file_revoked(file));

	remover = revoke_test_start_remover(test, &rm, &domain);
	KUNIT_EXPECT_EQ(test, 0,
			wait_for_completion_timeout(&rm.done, HZ / 10));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->releases));

	complete(&tf->unblock);
	wait_for_completion(&rm.done);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->releases));
	KUNIT_EXPECT_TRUE(test, list_empty(&domain.files));
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, 0, r.ret);
	kthread_stop_put(remover);
	kthread_stop_put(revoker);
	kthread_stop_put(reader);
}

/*
 * Two revokers of one domain: the second does not return before the files
 * the first has not come to yet are released, nor does the first.
 */
static void revoke_test_concurrent_revokers(struct kunit *test)
{
	struct task_struct *reader[2], *revoker, *remover;
	struct revoke_test_remover r = {}, rm;
	struct revoke_test_file *tf[2];
	struct revoke_domain domain;
	struct file *file[2];
	int i;

	revoke_domain_init(&domain);
	for (i = 0; i < 2; i++) {
		file[i] = revoke_test_open(test, &domain, true);
		tf[i] = test_file(file[i]);
		reader[i] = revoke_test_start(test, revoke_test_reader, file[i]);
		wait_for_completion(&tf[i]->entered);
	}
	/* The first revoker waits for file[0]'s call. */
	r.domain = &domain;
	init_completion(&r.started);
	init_completion(&r.done);
	revoker = revoke_test_start(test, revoke_test_remover, &r);
	wait_for_completion(&r.started);
	while (!file_revoked(file[0]))
		schedule_timeout_uninterruptible(1);
	remover = revoke_test_start_remover(test, &rm, &domain);

	complete(&tf[0]->unblock);
	KUNIT_EXPECT_EQ(test, 0,
			wait_for_completion_timeout(&rm.done, HZ / 10));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf[1]->releases));
	KUNIT_EXPECT_FALSE(test, completion_done(&r.done));

	complete(&tf[1]->unblock);
	wait_for_completion(&rm.done);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf[i]->releases));
		KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf[i]->late_calls));
	}
	wait_for_completion(&r.done);
	KUNIT_EXPECT_TRUE(test, list_empty(&domain.files));
	kthread_stop_put(remover);
	kthread_stop_put(revoker);
	for (i = 0; i < 2; i++)
		kthread_stop_put(reader[i]);
}

struct revoke_test_race {
	struct file *file;
	struct revoke_domain *domain;
	struct completion go;
};

static int revoke_test_race_fput(void *data)
{
	struct revoke_test_race *race = data;

	wait_for_completion(&race->go);
	__fput_sync(race->file);
	return 0;
}

/* Revoke racing with the final fput(): ->release runs exactly once. */
static void revoke_test_race_with_fput(struct kunit *test)
{
	struct revoke_test_file tf = {};
	struct revoke_test_race race;
	struct revoke_domain domain;
	struct task_struct *task;
	int i;

	revoke_domain_init(&domain);
	for (i = 0; i < 200; i++) {
		atomic_set(&tf.releases, 0);
		atomic_set(&tf.late_calls, 0);
		race.file = anon_inode_create_getfile("[revoke_test]",
						      &revoke_test_fops, &tf,
						      O_RDWR, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(race.file));
		KUNIT_ASSERT_EQ(test, 0,
				revoke_file_install(race.file, &domain,
						    &revoke_test_proxy_fops));
		init_completion(&race.go);
		task = revoke_test_start(test, revoke_test_race_fput, &race);
		complete(&race.go);
		revoke_domain_files(&domain);
		/* revoke returned: the release has run, whoever ran it */
		KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf.releases));
		kthread_stop_put(task);
		KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf.releases));
		KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf.late_calls));
	}
	KUNIT_EXPECT_TRUE(test, list_empty(&domain.files));
}

/*
 * The per-inode domain exists while its inode has revokable files open,
 * and revoke_inode() revokes them all.  Files of the shared anonymous
 * inode give two files of one inode.
 */
static void revoke_test_inode_domain(struct kunit *test)
{
	struct revoke_inode_domain *id;
	struct revoke_test_file *tf;
	struct inode *inode;
	struct file *f[2];
	int i;

	tf = kunit_kcalloc(test, 2, sizeof(*tf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tf);
	for (i = 0; i < 2; i++) {
		f[i] = anon_inode_getfile("[revoke_test]", &revoke_test_fops,
					  &tf[i], O_RDWR);
		KUNIT_ASSERT_FALSE(test, IS_ERR(f[i]));
		KUNIT_ASSERT_EQ(test, 0,
				revoke_file_install(f[i], NULL,
						    &revoke_test_proxy_fops));
		KUNIT_ASSERT_EQ(test, 0,
				kunit_add_action_or_reset(test, revoke_test_fput,
							  f[i]));
	}
	inode = file_inode(f[0]);
	KUNIT_ASSERT_PTR_EQ(test, inode, file_inode(f[1]));
	id = revoke_inode_domain_find(inode);
	KUNIT_ASSERT_NOT_NULL(test, id);
	/* one reference per file, one ours */
	KUNIT_EXPECT_EQ(test, 3, refcount_read(&id->ref));
	revoke_inode_domain_put(id);

	KUNIT_EXPECT_EQ(test, 2, revoke_inode(inode));
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_TRUE(test, file_revoked(f[i]));
		KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf[i].releases));
	}
	/* revoked files leave the domain, which goes with the last */
	KUNIT_EXPECT_NULL(test, revoke_inode_domain_find(inode));
}

/* What a kernel without CONFIG_REVOKE has for an inode: no domain. */
static struct revoke_inode_domain *
revoke_test_no_inode_domain(const struct inode *inode)
{
	return NULL;
}

/*
 * Without revoke(2) a driver's file is in no domain (evdev's, for
 * EVIOCREVOKE), and revokable all the same: revoke_file() releases once.
 */
static void revoke_test_no_domain(struct kunit *test)
{
	struct revoke_test_file *tf;
	struct file *file;

	kunit_activate_static_stub(test, revoke_inode_domain_get,
				   revoke_test_no_inode_domain);
	file = revoke_test_open(test, NULL, false);
	kunit_deactivate_static_stub(test, revoke_inode_domain_get);
	tf = test_file(file);
	KUNIT_EXPECT_TRUE(test, file->f_mode & FMODE_REVOKABLE);
	KUNIT_EXPECT_NULL(test, file_revokable(file)->domain);
	KUNIT_EXPECT_EQ(test, 1, revoke_test_call_read(file));
	KUNIT_EXPECT_EQ(test, 0, revoke_file(file));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->releases));
	KUNIT_EXPECT_EQ(test, -EIO, revoke_test_call_read(file));
}

#ifdef CONFIG_MMU
/*
 * The file's list of the address spaces that may be mapping it, for
 * revoke_unmap(), keeps one entry per mm, and only the mms with an mmap()
 * in flight (their mmap_lock write-locked) and the latest: an mm that
 * maps the file again and again, or mm after mm, does not grow it.
 */
static void revoke_test_vm_mms_bounded(struct kunit *test)
{
	struct file *file = revoke_test_open(test, NULL, false);
	struct revokable_file *rf = file_revokable(file);
	struct mm_struct *busy = mm_alloc(), *mms[10];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, busy);
	mmap_write_lock(busy);
	KUNIT_EXPECT_EQ(test, 0, revoke_vm_get(rf, busy));
	KUNIT_EXPECT_EQ(test, 0, revoke_vm_get(rf, busy));
	KUNIT_EXPECT_EQ(test, 1, list_count_nodes(&rf->vm->mms));
	for (i = 0; i < ARRAY_SIZE(mms); i++) {
		mms[i] = mm_alloc();
		KUNIT_ASSERT_NOT_NULL(test, mms[i]);
		KUNIT_EXPECT_EQ(test, 0, revoke_vm_get(rf, mms[i]));
		KUNIT_EXPECT_EQ(test, 0, revoke_vm_get(rf, mms[i]));
	}
	KUNIT_EXPECT_EQ(test, 2, list_count_nodes(&rf->vm->mms));
	mmap_write_unlock(busy);
	/* Not under busy's mmap_lock: their exit takes theirs. */
	for (i = 0; i < ARRAY_SIZE(mms); i++)
		mmput(mms[i]);
	mmput(busy);
}
#endif

/*
 * Lockdep sees a kind of domain as a lock class: a method of a file of
 * one domain revoking another domain, and a method of a file of that one
 * revoking the first, is a deadlock waiting to happen, and is reported.
 * The two revokes are made one after the other here; lockdep needs no
 * more than each order once.  The report turns lockdep off: it is made
 * silently, and lockdep reset afterwards, as lib/locking-selftest.c does.
 * Lockdep is off between the two, and the test's classes keep their
 * edges, so the case runs last of its suite; a lock another task takes
 * and releases in that window could be reported as unbalanced later (on
 * UML's one CPU, where this task does not sleep there, none is expected).
 */
static void revoke_test_lockdep_abba(struct kunit *test)
{
	struct revoke_domain *d1, *d2;
	struct file *f1, *f2;

	if (!IS_ENABLED(CONFIG_PROVE_LOCKING) || !debug_locks)
		kunit_skip(test, "needs lockdep (CONFIG_PROVE_LOCKING), on");
	d1 = kunit_kzalloc(test, sizeof(*d1), GFP_KERNEL);
	d2 = kunit_kzalloc(test, sizeof(*d2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d1);
	KUNIT_ASSERT_NOT_NULL(test, d2);
	revoke_domain_init(d1);
	revoke_domain_init(d2);

	f1 = revoke_test_open(test, d1, false);
	revoke_test_open(test, d2, false);
	test_file(f1)->revoke = d2;
	KUNIT_EXPECT_EQ(test, 1, revoke_test_call_read(f1));
	KUNIT_EXPECT_TRUE(test, debug_locks);

	f2 = revoke_test_open(test, d2, false);
	test_file(f2)->revoke = d1;
	debug_locks_silent = 1;
	KUNIT_EXPECT_EQ(test, 1, revoke_test_call_read(f2));
	debug_locks_silent = 0;
	KUNIT_EXPECT_FALSE(test, debug_locks);
	lockdep_reset();
}

/* A closer waiting on a file gate, for revoke_test_file_gate(). */
struct revoke_test_gate_closer {
	struct file_gate *gate;
	struct completion done;
	int err;
};

static int revoke_test_gate_closer(void *data)
{
	struct revoke_test_gate_closer *c = data;

	c->err = file_gate_wait(c->gate);
	complete(&c->done);
	return 0;
}

/*
 * A file gate lets calls in until it is closed, once; then refuses them,
 * and its wait returns only when the last call in flight has left.
 */
static void revoke_test_file_gate(struct kunit *test)
{
	struct revoke_test_gate_closer c = {};
	struct task_struct *closer;
	struct file_gate gate;
	unsigned long done;

	file_gate_init(&gate);
	KUNIT_ASSERT_TRUE(test, file_gate_enter(&gate));
	KUNIT_ASSERT_TRUE(test, file_gate_enter(&gate));
	file_gate_leave(&gate);
	KUNIT_EXPECT_FALSE(test, file_gate_closed(&gate));

	KUNIT_EXPECT_TRUE(test, file_gate_close(&gate));
	KUNIT_EXPECT_FALSE(test, file_gate_close(&gate));
	KUNIT_EXPECT_TRUE(test, file_gate_closed(&gate));
	KUNIT_EXPECT_FALSE(test, file_gate_enter(&gate));

	c.gate = &gate;
	init_completion(&c.done);
	closer = revoke_test_start(test, revoke_test_gate_closer, &c);
	KUNIT_EXPECT_EQ(test, 0,
			wait_for_completion_timeout(&c.done, HZ / 10));
	file_gate_leave(&gate);
	done = wait_for_completion_timeout(&c.done, 10 * HZ);
	KUNIT_EXPECT_NE(test, 0, done);
	KUNIT_EXPECT_EQ(test, 0, c.err);
	KUNIT_EXPECT_EQ(test, FILE_GATE_CLOSED, atomic_read(&gate.calls));
	KUNIT_EXPECT_FALSE(test, file_gate_enter(&gate));
	KUNIT_EXPECT_EQ(test, 0, file_gate_wait(&gate));
	if (!done)
		wait_for_completion(&c.done);
	kthread_stop_put(closer);
}

static struct kunit_case revoke_test_cases[] = {
	KUNIT_CASE(revoke_test_file_gate),
	KUNIT_CASE(revoke_test_proxy_installed),
	KUNIT_CASE(revoke_test_proxy_refused),
	KUNIT_CASE(revoke_test_by_open_not_installed),
	KUNIT_CASE(revoke_test_install_aborted),
	KUNIT_CASE(revoke_test_splice_once),
	KUNIT_CASE(revoke_test_plain_file),
	KUNIT_CASE(revoke_test_not_opted_in),
	KUNIT_CASE(revoke_test_real_fops),
	KUNIT_CASE(revoke_test_task_in_call),
	KUNIT_CASE(revoke_test_other_task_listed),
	KUNIT_CASE(revoke_test_self_revoke_nested),
	KUNIT_CASE(revoke_test_domain_files),
	KUNIT_CASE(revoke_test_waits_for_calls),
	KUNIT_CASE(revoke_test_killed_revoker),
	KUNIT_CASE(revoke_test_killed_revoker_then_close),
	KUNIT_CASE(revoke_test_claim_given_back),
	KUNIT_CASE(revoke_test_domain_kick),
	KUNIT_CASE(revoke_test_domain_results),
	KUNIT_CASE(revoke_test_ioctl_cmd_results),
	KUNIT_CASE(revoke_test_release_at_close),
	KUNIT_CASE(revoke_test_release_at_close_unpinned),
	KUNIT_CASE(revoke_test_shut),
	KUNIT_CASE(revoke_test_kicked_results),
	KUNIT_CASE(revoke_test_poll_no_atomic_memory),
	KUNIT_CASE(revoke_test_poll_nested),
	KUNIT_CASE(revoke_test_domain_remove),
	KUNIT_CASE(revoke_test_remove_waits_for_revoker),
	KUNIT_CASE(revoke_test_concurrent_revokers),
	KUNIT_CASE(revoke_test_race_with_fput),
	KUNIT_CASE(revoke_test_inode_domain),
	KUNIT_CASE(revoke_test_no_domain),
#ifdef CONFIG_MMU
	KUNIT_CASE(revoke_test_vm_mms_bounded),
#endif
	KUNIT_CASE(revoke_test_lockdep_abba),
	{}
};

static struct kunit_suite revoke_test_suite = {
	.name = "revoke",
	.test_cases = revoke_test_cases,
};

kunit_test_suite(revoke_test_suite);
