// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the revokable-file core: installing the state and the
 * proxy at open, the gate and the calls a task is in (fs/revoke.c,
 * fs/revoke_fops.c, fs/revoke_gate.c), and the test driver the other
 * suites share (revoke_kunit.h).
 *
 * Calls are made through file->f_op, the proxy, as the VFS makes them.
 * Races are driven by kthreads and ordered with completions.
 */
#include <kunit/static_stub.h>
#include <kunit/test-bug.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/pipe_fs_i.h>
#include <linux/uio.h>

#include "revoke_kunit.h"

ssize_t revoke_test_read(struct file *file, char __user *buf, size_t len,
			 loff_t *pos)
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

int revoke_test_release(struct inode *inode, struct file *file)
{
	struct revoke_test_file *tf = file->private_data;

	if (tf->async)
		atomic_inc(&tf->async_left);
	atomic_inc(&tf->releases);
	return 0;
}

const struct file_operations revoke_test_fops = {
	.owner		= THIS_MODULE,
	.read		= revoke_test_read,
	.release	= revoke_test_release,
	.fasync		= revoke_test_fasync,
	.fop_flags	= FOP_UNSIGNED_OFFSET,
};

/* Its proxy, written out beside it as a driver's is. */
const struct file_operations revoke_test_proxy_fops = {
	.read		= revoke_fop_read,
	.release	= revoke_fop_release,
	.fasync		= revoke_fop_fasync,
	.fop_flags	= FOP_UNSIGNED_OFFSET,
};

void revoke_test_fput(void *file)
{
	__fput_sync(file);
}

/*
 * A file of the test driver, for the test to put.  Its state is the
 * test's, so that it outlives the test function.
 */
struct file *revoke_test_open_file(struct kunit *test,
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

/*
 * A file of an anonymous inode with @fops and @data, made revokable by
 * @proxy in @domain, put at the end of the test.
 */
struct file *revoke_test_open_with(struct kunit *test,
				   struct revoke_domain *domain,
				   const struct file_operations *fops,
				   const struct file_operations *proxy,
				   void *data)
{
	struct file *file;

	file = anon_inode_create_getfile("[revoke_test]", fops, data, O_RDWR,
					 NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, revoke_test_fput, file));
	KUNIT_ASSERT_EQ(test, 0, revoke_file_install(file, domain, proxy));
	return file;
}

/* revoke_test_open_file(), put at the end of the test. */
struct file *revoke_test_open(struct kunit *test,
			      struct revoke_domain *domain, bool block)
{
	struct file *file = revoke_test_open_file(test, domain, block);

	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, revoke_test_fput, file));
	return file;
}

ssize_t revoke_test_call_read(struct file *file)
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

/* A table in writable data, and one written during init only. */
static struct file_operations revoke_test_writable_fops;
static struct file_operations revoke_test_ro_after_init_fops __ro_after_init;

/*
 * A pair found right is remembered and not compared again, a wrong proxy
 * of a remembered driver's table is still refused, and a module going
 * forgets every pair, for another module's tables may come to the same
 * addresses.  Only tables that cannot change are remembered: not those on
 * the heap or in writable data, nor __ro_after_init ones while the kernel
 * boots.
 */
static void revoke_test_proxy_remembered(struct kunit *test)
{
	const struct file_operations *good = &revoke_test_proxy_fops;
	const struct file_operations *bad = &revoke_test_bad_proxies[1];
	const struct file_operations *real = &revoke_test_fops;
	struct file_operations *heap;
	unsigned long gen;

	heap = kunit_kmalloc(test, sizeof(*heap), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, heap);
	memcpy(heap, good, sizeof(*heap));

	revoke_proxy_forget_all();
	KUNIT_EXPECT_FALSE(test, revoke_proxy_known(good, real, &gen));
	KUNIT_EXPECT_TRUE(test, revoke_proxy_check(good, real));
	KUNIT_EXPECT_TRUE(test, revoke_proxy_known(good, real, &gen));
	KUNIT_EXPECT_FALSE(test, revoke_proxy_check(bad, real));
	KUNIT_EXPECT_FALSE(test, revoke_proxy_known(bad, real, &gen));
	KUNIT_EXPECT_TRUE(test, revoke_proxy_known(good, real, &gen));
	revoke_proxy_forget_all();
	KUNIT_EXPECT_FALSE(test, revoke_proxy_known(good, real, &gen));

	KUNIT_EXPECT_TRUE(test, revoke_proxy_check(heap, real));
	KUNIT_EXPECT_FALSE(test, revoke_proxy_known(heap, real, &gen));
	KUNIT_EXPECT_TRUE(test, revoke_proxy_lasting(real));
	KUNIT_EXPECT_FALSE(test, revoke_proxy_lasting(heap));
	KUNIT_EXPECT_FALSE(test, revoke_proxy_lasting(&revoke_test_writable_fops));
	KUNIT_EXPECT_EQ(test, system_state >= SYSTEM_RUNNING,
			revoke_proxy_lasting(&revoke_test_ro_after_init_fops));
}

/* The pairs are forgotten between the check of a pair and its noting. */
static bool revoke_test_lasting_forgotten(const struct file_operations *fops)
{
	revoke_proxy_forget_all();
	return true;
}

/*
 * A pair checked before the pairs are forgotten (a module going) is not
 * remembered after: its tables may be the module's.
 */
static void revoke_test_proxy_forgotten_meanwhile(struct kunit *test)
{
	const struct file_operations *good = &revoke_test_proxy_fops;
	const struct file_operations *real = &revoke_test_fops;
	unsigned long gen;

	revoke_proxy_forget_all();
	kunit_activate_static_stub(test, revoke_proxy_lasting,
				   revoke_test_lasting_forgotten);
	KUNIT_EXPECT_TRUE(test, revoke_proxy_check(good, real));
	kunit_deactivate_static_stub(test, revoke_proxy_lasting);
	KUNIT_EXPECT_FALSE(test, revoke_proxy_known(good, real, &gen));
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
	file = revoke_test_open_with(test, NULL, &revoke_test_iter_fops,
				     &revoke_test_iter_proxy_fops, tf);
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

int revoke_test_reader(void *file)
{
	revoke_test_call_read(file);
	return 0;
}

int revoke_test_revoker(void *data)
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

struct task_struct *revoke_test_start(struct kunit *test,
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
struct task_struct *revoke_test_start_revoke(struct kunit *test,
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
	KUNIT_CASE(revoke_test_proxy_remembered),
	KUNIT_CASE(revoke_test_proxy_forgotten_meanwhile),
	KUNIT_CASE(revoke_test_by_open_not_installed),
	KUNIT_CASE(revoke_test_install_aborted),
	KUNIT_CASE(revoke_test_splice_once),
	KUNIT_CASE(revoke_test_plain_file),
	KUNIT_CASE(revoke_test_not_opted_in),
	KUNIT_CASE(revoke_test_real_fops),
	KUNIT_CASE(revoke_test_task_in_call),
	KUNIT_CASE(revoke_test_other_task_listed),
	KUNIT_CASE(revoke_test_self_revoke_nested),
	{}
};

static struct kunit_suite revoke_test_suite = {
	.name = "revoke",
	.test_cases = revoke_test_cases,
};

kunit_test_suite(revoke_test_suite);
