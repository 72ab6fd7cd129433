// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of /proc entry removal and revoke(2), included by
 * fs/proc/inode.c.
 *
 * An entry with the test's proc_ops is opened in the kernel, through an
 * internal mount of procfs, and removed or revoked while a kthread is in
 * its open or in a call.  Once remove_proc_entry() or proc_revoke()
 * returns, the proc_ops must see no call of a file it released, and every
 * file opened must have been released once.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/namei.h>

/* What the proc_ops of one entry saw. */
struct proc_test_entry {
	atomic_t opens;
	atomic_t releases;
	atomic_t calls;
	/* set once remove_proc_entry() returned; calls, opens after it */
	bool removed;
	atomic_t late;
	bool block;		/* read blocks until @unblock */
	bool block_open;	/* so does open */
	struct completion entered;
	struct completion unblock;
};

static void proc_test_count(struct proc_test_entry *e, atomic_t *what)
{
	atomic_inc(what);
	if (READ_ONCE(e->removed))
		atomic_inc(&e->late);
}

static void proc_test_wait(struct proc_test_entry *e, bool block)
{
	if (block) {
		complete(&e->entered);
		wait_for_completion(&e->unblock);
	}
}

static int proc_test_open(struct inode *inode, struct file *file)
{
	struct proc_test_entry *e = pde_data(inode);

	file->private_data = e;
	proc_test_count(e, &e->opens);
	proc_test_wait(e, e->block_open);
	return 0;
}

static ssize_t proc_test_read(struct file *file, char __user *buf,
			      size_t len, loff_t *pos)
{
	struct proc_test_entry *e = file->private_data;

	proc_test_count(e, &e->calls);
	proc_test_wait(e, e->block);
	return 0;
}

static int proc_test_release(struct inode *inode, struct file *file)
{
	struct proc_test_entry *e = file->private_data;

	proc_test_count(e, &e->releases);
	return 0;
}

static const struct proc_ops proc_test_ops = {
	.proc_open	= proc_test_open,
	.proc_read	= proc_test_read,
	.proc_release	= proc_test_release,
};

/* An entry, /proc/proc_kunit, and an internal mount of procfs. */
struct proc_test {
	struct proc_test_entry entry;
	struct vfsmount *mnt;
};

static void proc_test_put(void *data)
{
	struct proc_test *t = data;

	if (!t->entry.removed)
		remove_proc_entry("proc_kunit", NULL);
	kern_unmount(t->mnt);
}

static struct proc_test *proc_test_create(struct kunit *test)
{
	struct proc_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct file_system_type *type = get_fs_type("proc");

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, type);
	t->mnt = kern_mount(type);
	put_filesystem(type);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->mnt));
	init_completion(&t->entry.entered);
	init_completion(&t->entry.unblock);
	if (!proc_create_data("proc_kunit", 0400, NULL, &proc_test_ops,
			      &t->entry)) {
		kern_unmount(t->mnt);
		KUNIT_FAIL_AND_ABORT(test, "proc_create_data() failed");
	}
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, proc_test_put, t));
	return t;
}

static struct file *proc_test_open_file(struct vfsmount *mnt, const char *name)
{
	return file_open_root_mnt(mnt, name, O_RDONLY, 0);
}

static ssize_t proc_test_call_read(struct file *file)
{
	char c;

	return file->f_op->read(file, (char __user *)&c, 1, &file->f_pos);
}

static void proc_test_remove(struct proc_test *t)
{
	remove_proc_entry("proc_kunit", NULL);
	WRITE_ONCE(t->entry.removed, true);
}

/*
 * A removable entry's file is gated by procfs itself, not made revokable
 * by the core: its f_op is procfs' own, and its calls reach the proc_ops.
 * Those of a permanent entry (/proc/cmdline) are not gated at all.
 */
static void proc_test_open_gated(struct kunit *test)
{
	struct proc_test *t = proc_test_create(test);
	struct file *file = proc_test_open_file(t->mnt, "proc_kunit");

	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_EXPECT_FALSE(test, file->f_mode & FMODE_REVOKABLE);
	KUNIT_EXPECT_PTR_EQ(test, file->f_op, &proc_reg_file_ops);
	KUNIT_EXPECT_EQ(test, 0, proc_test_call_read(file));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->entry.calls));
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->entry.releases));

	file = proc_test_open_file(t->mnt, "cmdline");
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_EXPECT_FALSE(test, file->f_mode & FMODE_REVOKABLE);
	KUNIT_EXPECT_PTR_EQ(test, file->f_op, &proc_iter_file_ops);
	KUNIT_EXPECT_EQ(test, 0, proc_revoke(file_inode(file), NULL));
	__fput_sync(file);
}

/*
 * revoke(2) of the path releases every open file of the entry once and
 * fails their later calls with -EIO; a new open works, and so does a
 * second revoke.  One file alone is not revoked (-EINVAL).
 */
static void proc_test_revoke_path(struct kunit *test)
{
	struct proc_test *t = proc_test_create(test);
	struct file *file = proc_test_open_file(t->mnt, "proc_kunit");
	struct file *other = proc_test_open_file(t->mnt, "proc_kunit");

	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_FALSE(test, IS_ERR(other));
	KUNIT_EXPECT_EQ(test, -EINVAL, proc_revoke(file_inode(file), file));
	KUNIT_EXPECT_EQ(test, 2, proc_revoke(file_inode(file), NULL));
	KUNIT_EXPECT_EQ(test, 2, atomic_read(&t->entry.releases));
	KUNIT_EXPECT_EQ(test, -EIO, proc_test_call_read(file));
	KUNIT_EXPECT_EQ(test, -EIO, proc_test_call_read(other));
	__fput_sync(other);
	KUNIT_EXPECT_EQ(test, 2, atomic_read(&t->entry.releases));

	other = proc_test_open_file(t->mnt, "proc_kunit");
	KUNIT_ASSERT_FALSE(test, IS_ERR(other));
	KUNIT_EXPECT_EQ(test, 0, proc_test_call_read(other));
	/* The revoked file, still open, does not hold the new one up. */
	KUNIT_EXPECT_EQ(test, -EIO, proc_test_call_read(file));
	KUNIT_EXPECT_EQ(test, 1, proc_revoke(file_inode(other), NULL));
	KUNIT_EXPECT_EQ(test, 3, atomic_read(&t->entry.releases));
	KUNIT_EXPECT_EQ(test, -EIO, proc_test_call_read(other));
	__fput_sync(file);
	__fput_sync(other);
	KUNIT_EXPECT_EQ(test, 3, atomic_read(&t->entry.releases));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->entry.calls));
	KUNIT_EXPECT_EQ(test, 0, READ_ONCE(PDE(file_inode(file))->nr_released));
}

/*
 * A removed entry's file does not read its proc_ops, gone with their
 * module (here poisoned), to poll: DEFAULT_POLLMASK.
 */
static void proc_test_poll_removed(struct kunit *test)
{
	struct proc_test *t = proc_test_create(test);
	struct file *file = proc_test_open_file(t->mnt, "proc_kunit");

	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	proc_test_remove(t);
	PDE(file_inode(file))->proc_ops = NULL;
	KUNIT_EXPECT_EQ(test, DEFAULT_POLLMASK, vfs_poll(file, NULL));
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->entry.releases));
}

/*
 * Removing an entry no file has open does not sleep: xt_recent removes
 * its entries under a spinlock.  Under CONFIG_DEBUG_ATOMIC_SLEEP a sleep
 * here is a splat, which the kit counts as a failure.
 */
static void proc_test_remove_idle_atomic(struct kunit *test)
{
	struct proc_test *t = proc_test_create(test);
	static DEFINE_SPINLOCK(lock);

	spin_lock(&lock);
	proc_test_remove(t);
	spin_unlock(&lock);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->entry.opens));
}

struct proc_test_task {
	struct proc_test *t;
	struct file *file;
	struct completion done;
};

static int proc_test_remover(void *data)
{
	struct proc_test_task *r = data;

	proc_test_remove(r->t);
	complete(&r->done);
	return 0;
}

static int proc_test_revoker(void *data)
{
	struct proc_test_task *r = data;

	proc_revoke(file_inode(r->file), NULL);
	complete(&r->done);
	return 0;
}

static int proc_test_reader(void *data)
{
	struct proc_test_task *r = data;

	proc_test_call_read(r->file);
	return 0;
}

static int proc_test_opener(void *data)
{
	struct proc_test_task *o = data;

	o->file = proc_test_open_file(o->t->mnt, "proc_kunit");
	return 0;
}

static struct task_struct *proc_test_start(struct kunit *test,
					   int (*fn)(void *), void *data)
{
	struct task_struct *task = kthread_run(fn, data, "proc_test");

	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	return task;
}

/* The remover is still waiting after 100 ms; if not, @done stays done. */
static void proc_test_expect_waiting(struct kunit *test, struct completion *done)
{
	if (wait_for_completion_timeout(done, HZ / 10)) {
		KUNIT_FAIL(test, "remove_proc_entry() did not wait");
		complete(done);
	}
}

/*
 * @r->file opened, a reader blocked in its call, then @fn (a removal or a
 * revoke) started: it must still be waiting after 100 ms.  Returns the
 * reader; the task of @fn in @waiter.
 */
static struct task_struct *proc_test_block_then(struct kunit *test,
						struct proc_test_task *r,
						int (*fn)(void *),
						struct task_struct **waiter)
{
	struct task_struct *reader;

	r->t->entry.block = true;
	r->file = proc_test_open_file(r->t->mnt, "proc_kunit");
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->file));
	init_completion(&r->done);
	reader = proc_test_start(test, proc_test_reader, r);
	wait_for_completion(&r->t->entry.entered);
	*waiter = proc_test_start(test, fn, r);
	proc_test_expect_waiting(test, &r->done);
	return reader;
}

/*
 * remove_proc_entry() waits for a call in flight, runs ->proc_release
 * before it returns, and later calls fail with -EIO.
 */
static void proc_test_remove_waits_for_call(struct kunit *test)
{
	struct proc_test *t = proc_test_create(test);
	struct proc_test_task r = { .t = t };
	struct task_struct *reader, *remover;

	reader = proc_test_block_then(test, &r, proc_test_remover, &remover);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->entry.releases));

	complete(&t->entry.unblock);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->entry.releases));
	KUNIT_EXPECT_EQ(test, -EIO, proc_test_call_read(r.file));
	KUNIT_EXPECT_PTR_EQ(test, proc_test_open_file(t->mnt, "proc_kunit"),
			    ERR_PTR(-ENOENT));
	__fput_sync(r.file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->entry.calls));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->entry.releases));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->entry.late));
	kthread_stop_put(remover);
	kthread_stop_put(reader);
}

/*
 * An open in flight when the entry is removed: the removal waits for it,
 * and releases the file it opened before remove_proc_entry() returns.
 */
static void proc_test_remove_waits_for_open(struct kunit *test)
{
	struct proc_test *t = proc_test_create(test);
	struct proc_test_task o = { .t = t }, r = { .t = t };
	struct task_struct *opener, *remover;

	t->entry.block_open = true;
	init_completion(&r.done);
	opener = proc_test_start(test, proc_test_opener, &o);
	wait_for_completion(&t->entry.entered);
	remover = proc_test_start(test, proc_test_remover, &r);

	proc_test_expect_waiting(test, &r.done);
	complete(&t->entry.unblock);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->entry.opens));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->entry.releases));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->entry.late));
	kthread_stop_put(opener);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o.file));
	KUNIT_EXPECT_EQ(test, -EIO, proc_test_call_read(o.file));
	__fput_sync(o.file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->entry.releases));
	kthread_stop_put(remover);
}

/*
 * revoke(2) of the path waits for a call in flight and holds a new open
 * back meanwhile; then the open file is released, and the new one works.
 */
static void proc_test_revoke_waits_for_call(struct kunit *test)
{
	struct proc_test *t = proc_test_create(test);
	struct proc_test_task r = { .t = t }, o = { .t = t };
	struct task_struct *reader, *revoker, *opener;

	reader = proc_test_block_then(test, &r, proc_test_revoker, &revoker);
	opener = proc_test_start(test, proc_test_opener, &o);
	msleep(100);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->entry.opens));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->entry.releases));

	t->entry.block = false;
	complete(&t->entry.unblock);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->entry.releases));
	KUNIT_EXPECT_EQ(test, -EIO, proc_test_call_read(r.file));
	kthread_stop_put(opener);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o.file));
	KUNIT_EXPECT_EQ(test, 2, atomic_read(&t->entry.opens));
	KUNIT_EXPECT_EQ(test, 0, proc_test_call_read(o.file));
	__fput_sync(o.file);
	__fput_sync(r.file);
	KUNIT_EXPECT_EQ(test, 2, atomic_read(&t->entry.releases));
	kthread_stop_put(revoker);
	kthread_stop_put(reader);
}

/*
 * An open through a path held across the removal (a reopen through
 * /proc/self/fd, which no lookup revalidates) fails without reading the
 * entry's proc_ops, gone with its module: here poisoned.
 */
static void proc_test_open_removed(struct kunit *test)
{
	struct proc_test *t = proc_test_create(test);
	struct path path;

	KUNIT_ASSERT_EQ(test, 0, vfs_path_lookup(t->mnt->mnt_root, t->mnt,
						 "proc_kunit", 0, &path));
	proc_test_remove(t);
	PDE(d_inode(path.dentry))->proc_ops = NULL;
	KUNIT_EXPECT_PTR_EQ(test, dentry_open(&path, O_RDONLY, current_cred()),
			    ERR_PTR(-ENOENT));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->entry.opens));
	path_put(&path);
}

static struct kunit_case proc_test_cases[] = {
	KUNIT_CASE(proc_test_open_gated),
	KUNIT_CASE(proc_test_revoke_path),
	KUNIT_CASE(proc_test_poll_removed),
	KUNIT_CASE(proc_test_remove_idle_atomic),
	KUNIT_CASE(proc_test_remove_waits_for_call),
	KUNIT_CASE(proc_test_remove_waits_for_open),
	KUNIT_CASE(proc_test_revoke_waits_for_call),
	KUNIT_CASE(proc_test_open_removed),
	{}
};

static struct kunit_suite proc_test_suite = {
	.name = "proc_remove",
	.test_cases = proc_test_cases,
};

kunit_test_suite(proc_test_suite);
