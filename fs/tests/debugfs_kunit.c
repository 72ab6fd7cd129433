// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of debugfs file removal, included by fs/debugfs/inode.c.
 *
 * A debugfs file with the test's methods is opened in the kernel, through
 * debugfs' ->open, and removed while kthreads call it and open it.  Once
 * debugfs_remove() returns, the driver must see no call and no open, and
 * every file opened must be released once, at its last close, or early by
 * revoke(2).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>

/* What the driver of one debugfs file saw. */
struct debugfs_test_node {
	atomic_t opens;
	atomic_t releases;
	atomic_t calls;
	/* set once debugfs_remove() returned; calls, opens after it */
	bool removed;
	atomic_t late;
	bool block;		/* read blocks until @unblock */
	bool block_open;	/* so does open */
	struct completion entered;
	struct completion unblock;
};

static void debugfs_test_count(struct debugfs_test_node *node, atomic_t *what)
{
	atomic_inc(what);
	if (READ_ONCE(node->removed))
		atomic_inc(&node->late);
}

static int debugfs_test_open(struct inode *inode, struct file *file)
{
	struct debugfs_test_node *node = inode->i_private;

	file->private_data = node;
	debugfs_test_count(node, &node->opens);
	if (node->block_open) {
		complete(&node->entered);
		wait_for_completion(&node->unblock);
	}
	return 0;
}

static ssize_t debugfs_test_read(struct file *file, char __user *buf,
				 size_t len, loff_t *pos)
{
	struct debugfs_test_node *node = file->private_data;

	debugfs_test_count(node, &node->calls);
	if (node->block) {
		complete(&node->entered);
		wait_for_completion(&node->unblock);
	}
	return 0;
}

/* Not late after the removal: a file is released at its last close. */
static int debugfs_test_release(struct inode *inode, struct file *file)
{
	struct debugfs_test_node *node = file->private_data;

	atomic_inc(&node->releases);
	return 0;
}

static const struct file_operations debugfs_test_fops = {
	.owner		= THIS_MODULE,
	.open		= debugfs_test_open,
	.read		= debugfs_test_read,
	.release	= debugfs_test_release,
};

/* A debugfs file and the test's node; a reference on it and the mount. */
struct debugfs_test {
	struct debugfs_test_node node;
	struct dentry *dentry;
	struct path path;
};

static void debugfs_test_put(void *data)
{
	struct debugfs_test *t = data;

	if (!t->node.removed)
		debugfs_remove(t->dentry);
	path_put(&t->path);
}

static struct debugfs_test *debugfs_test_create(struct kunit *test, bool block)
{
	struct debugfs_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->node.block = block;
	init_completion(&t->node.entered);
	init_completion(&t->node.unblock);
	t->dentry = debugfs_create_file("debugfs_kunit", 0600, NULL, &t->node,
					&debugfs_test_fops);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dentry));
	t->path.mnt = mntget(debugfs_mount);
	t->path.dentry = dget(t->dentry);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, debugfs_test_put, t));
	return t;
}

static struct file *debugfs_test_open_file(struct debugfs_test *t)
{
	return dentry_open(&t->path, O_RDONLY, current_cred());
}

static ssize_t debugfs_test_call_read(struct file *file)
{
	char c;

	return file->f_op->read(file, (char __user *)&c, 1, &file->f_pos);
}

static void debugfs_test_remove(struct debugfs_test *t)
{
	debugfs_remove(t->dentry);
	WRITE_ONCE(t->node.removed, true);
}

/*
 * The file's methods are debugfs' proxy, in its driver's shape: ->read,
 * no ->read_iter and no ->write, as the driver has; it is not a file of
 * the revokable-file core.
 */
static void debugfs_test_open_proxy(struct kunit *test)
{
	struct debugfs_test *t = debugfs_test_create(test, false);
	struct file *file = debugfs_test_open_file(t);

	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_EXPECT_FALSE(test, file->f_mode & FMODE_REVOKABLE);
	KUNIT_EXPECT_PTR_EQ(test, debugfs_real_fops(file), &debugfs_test_fops);
	KUNIT_EXPECT_NOT_NULL(test, file->f_op->read);
	KUNIT_EXPECT_NULL(test, file->f_op->read_iter);
	KUNIT_EXPECT_NULL(test, file->f_op->write);
	KUNIT_EXPECT_NULL(test, file->f_op->write_iter);
	KUNIT_EXPECT_FALSE(test, file->f_mode & FMODE_LSEEK);
	KUNIT_EXPECT_EQ(test, 0, debugfs_test_call_read(file));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->node.calls));
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->node.releases));
}

struct debugfs_test_remover {
	struct debugfs_test *t;
	struct completion done;
};

static int debugfs_test_remover(void *data)
{
	struct debugfs_test_remover *r = data;

	debugfs_test_remove(r->t);
	complete(&r->done);
	return 0;
}

static int debugfs_test_reader(void *file)
{
	debugfs_test_call_read(file);
	return 0;
}

static struct task_struct *debugfs_test_start(struct kunit *test,
					      int (*fn)(void *), void *data)
{
	struct task_struct *task = kthread_run(fn, data, "debugfs_test");

	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	return task;
}

/*
 * debugfs_remove() waits for a call in flight, and later calls fail with
 * -EIO; the file is released at its last close, not by the removal.
 */
static void debugfs_test_remove_waits(struct kunit *test)
{
	struct debugfs_test *t = debugfs_test_create(test, true);
	struct task_struct *reader, *remover;
	struct debugfs_test_remover r = { .t = t };
	struct file *file = debugfs_test_open_file(t);

	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	init_completion(&r.done);
	reader = debugfs_test_start(test, debugfs_test_reader, file);
	wait_for_completion(&t->node.entered);
	remover = debugfs_test_start(test, debugfs_test_remover, &r);

	KUNIT_EXPECT_EQ(test, 0,
			wait_for_completion_timeout(&r.done, HZ / 10));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->node.releases));

	complete(&t->node.unblock);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->node.releases));
	KUNIT_EXPECT_EQ(test, -EIO, debugfs_test_call_read(file));
	KUNIT_EXPECT_TRUE(test, IS_ERR(debugfs_test_open_file(t)));
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->node.calls));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->node.releases));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->node.late));
	kthread_stop_put(remover);
	kthread_stop_put(reader);
}

struct debugfs_test_opener {
	struct debugfs_test *t;
	struct file *file;
};

static int debugfs_test_opener(void *data)
{
	struct debugfs_test_opener *o = data;

	o->file = debugfs_test_open_file(o->t);
	return 0;
}

/*
 * An open in flight when the file is removed: the removal waits for it,
 * the open fails as if the file were gone already, and the driver's open
 * is undone by its ->release before debugfs_remove() returns.
 */
static void debugfs_test_remove_waits_for_open(struct kunit *test)
{
	struct debugfs_test *t = debugfs_test_create(test, false);
	struct debugfs_test_opener o = { .t = t };
	struct debugfs_test_remover r = { .t = t };
	struct task_struct *opener, *remover;

	t->node.block_open = true;
	init_completion(&r.done);
	opener = debugfs_test_start(test, debugfs_test_opener, &o);
	wait_for_completion(&t->node.entered);
	remover = debugfs_test_start(test, debugfs_test_remover, &r);

	KUNIT_EXPECT_EQ(test, 0,
			wait_for_completion_timeout(&r.done, HZ / 10));
	complete(&t->node.unblock);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->node.opens));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->node.releases));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->node.late));
	kthread_stop_put(opener);
	KUNIT_EXPECT_PTR_EQ(test, o.file, ERR_PTR(-ENOENT));
	kthread_stop_put(remover);
}

/* A ->release that removes its own file. */
static int debugfs_test_release_removing(struct inode *inode, struct file *file)
{
	debugfs_remove(file->f_path.dentry);
	return debugfs_test_release(inode, file);
}

static const struct file_operations debugfs_test_removing_fops = {
	.owner		= THIS_MODULE,
	.open		= debugfs_test_open,
	.release	= debugfs_test_release_removing,
};

struct debugfs_test_closer {
	struct file *file;
	bool revoke;		/* revoke(2) the file, else close it */
	struct completion done;
};

static int debugfs_test_closer(void *data)
{
	struct debugfs_test_closer *c = data;

	if (c->revoke)
		debugfs_revoke_files(c->file->f_path.dentry);
	else
		__fput_sync(c->file);
	complete(&c->done);
	return 0;
}

/*
 * A ->release that removes its own file, run by the file's last close or
 * by revoke(2), returns: neither waits for the release in progress.
 */
static void debugfs_test_release_removes_itself(struct kunit *test)
{
	struct debugfs_test_closer c[2] = { {}, { .revoke = true } };
	struct debugfs_test_node *node;
	struct task_struct *closer;
	struct dentry *dentry;
	struct path path;
	int i;

	node = kunit_kzalloc(test, sizeof(*node), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, node);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		dentry = debugfs_create_file("removing", 0400, NULL, node,
					     &debugfs_test_removing_fops);
		KUNIT_ASSERT_FALSE(test, IS_ERR(dentry));
		path.mnt = mntget(debugfs_mount);
		path.dentry = dget(dentry);
		c[i].file = dentry_open(&path, O_RDONLY, current_cred());
		path_put(&path);
		KUNIT_ASSERT_FALSE(test, IS_ERR(c[i].file));
		init_completion(&c[i].done);

		closer = debugfs_test_start(test, debugfs_test_closer, &c[i]);
		KUNIT_ASSERT_NE_MSG(test, 0,
				    wait_for_completion_timeout(&c[i].done,
								5 * HZ),
				    "%s deadlocked", c[i].revoke ? "revoke" :
								  "close");
		KUNIT_EXPECT_EQ(test, i + 1, atomic_read(&node->releases));
		kthread_stop_put(closer);
		if (c[i].revoke)
			__fput_sync(c[i].file);
		KUNIT_EXPECT_EQ(test, i + 1, atomic_read(&node->releases));
	}
}

static DEFINE_MUTEX(debugfs_test_lock);

/* A ->release that takes a lock its driver removes the file under. */
static int debugfs_test_release_locking(struct inode *inode, struct file *file)
{
	mutex_lock(&debugfs_test_lock);
	mutex_unlock(&debugfs_test_lock);
	return debugfs_test_release(inode, file);
}

static const struct file_operations debugfs_test_locking_fops = {
	.owner		= THIS_MODULE,
	.open		= debugfs_test_open,
	.release	= debugfs_test_release_locking,
};

static int debugfs_test_remover_locked(void *data)
{
	struct debugfs_test_remover *r = data;

	mutex_lock(&debugfs_test_lock);
	debugfs_remove(r->t->dentry);
	mutex_unlock(&debugfs_test_lock);
	complete(&r->done);
	return 0;
}

/*
 * A driver that removes its file under a lock its ->release takes, with
 * the file open, as drivers could in 6.12: the removal does not run the
 * ->release, nor wait for one.
 */
static void debugfs_test_remove_under_release_lock(struct kunit *test)
{
	struct debugfs_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct debugfs_test_remover r = { .t = t };
	struct task_struct *remover;
	struct file *file;

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->dentry = debugfs_create_file("locking", 0400, NULL, &t->node,
					&debugfs_test_locking_fops);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->dentry));
	t->path.mnt = mntget(debugfs_mount);
	t->path.dentry = dget(t->dentry);
	file = debugfs_test_open_file(t);
	path_put(&t->path);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));

	init_completion(&r.done);
	remover = debugfs_test_start(test, debugfs_test_remover_locked, &r);
	KUNIT_ASSERT_NE_MSG(test, 0, wait_for_completion_timeout(&r.done, 5 * HZ),
			    "the removal deadlocked");
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->node.releases));
	kthread_stop_put(remover);
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->node.releases));
}

/* Opens the file, reads it and closes it, until the file is gone. */
static int debugfs_test_user(void *data)
{
	struct debugfs_test *t = data;
	struct file *file;

	while (!kthread_should_stop()) {
		file = debugfs_test_open_file(t);
		if (IS_ERR(file))
			break;
		debugfs_test_call_read(file);
		debugfs_test_call_read(file);
		__fput_sync(file);
		cond_resched();
	}
	return 0;
}

#define DEBUGFS_TEST_USERS	4
#define DEBUGFS_TEST_ROUNDS	50

/*
 * Removal racing with opens, calls and closes: after debugfs_remove(), no
 * open or call reaches the driver, and every file opened is released once.
 */
static void debugfs_test_remove_races_calls(struct kunit *test)
{
	struct task_struct *users[DEBUGFS_TEST_USERS];
	struct debugfs_test *t;
	unsigned long timeout;
	int round, i;

	for (round = 0; round < DEBUGFS_TEST_ROUNDS; round++) {
		t = debugfs_test_create(test, false);
		for (i = 0; i < DEBUGFS_TEST_USERS; i++)
			users[i] = debugfs_test_start(test, debugfs_test_user, t);
		/* Let them get going: the removal lands amid them. */
		timeout = jiffies + HZ;
		while (atomic_read(&t->node.calls) < 20 * (round % 5 + 1) &&
		       time_before(jiffies, timeout))
			cond_resched();
		debugfs_test_remove(t);
		for (i = 0; i < DEBUGFS_TEST_USERS; i++)
			kthread_stop_put(users[i]);

		KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->node.late));
		KUNIT_EXPECT_EQ(test, atomic_read(&t->node.opens),
				atomic_read(&t->node.releases));
		if (atomic_read(&t->node.late))
			break;
	}
}

static struct kunit_case debugfs_test_cases[] = {
	KUNIT_CASE(debugfs_test_open_proxy),
	KUNIT_CASE(debugfs_test_remove_waits),
	KUNIT_CASE(debugfs_test_remove_waits_for_open),
	KUNIT_CASE(debugfs_test_release_removes_itself),
	KUNIT_CASE(debugfs_test_remove_under_release_lock),
	KUNIT_CASE(debugfs_test_remove_races_calls),
	{}
};

static struct kunit_suite debugfs_test_suite = {
	.name = "debugfs_remove",
	.test_cases = debugfs_test_cases,
};

kunit_test_suite(debugfs_test_suite);
