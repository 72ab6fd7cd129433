// SPDX-License-Identifier: GPL-2.0
/*
 * A character device for the revoke selftests: /dev/test_revoke.
 *
 * Every open file is revokable: its ->open installs the core's gate with
 * the const proxy of its methods (FOP_REVOKE_BY_OPEN).  The device is a byte pipe
 * shared by its files: write() appends, read() takes and blocks while there
 * is nothing to take; ->read_iter does the same for readv(), aio and
 * io_uring, and takes O_DIRECT and polled reads (IORING_SETUP_IOPOLL),
 * which revoke must refuse.  It counts its ->open and ->release calls, and any
 * call that reaches it for a file already released, which revoke must make
 * impossible; the counts are in /sys/module/test_revoke/parameters/.
 * Its files map one page, shared by all of them, faulted in through the
 * device's vm_ops.  Each file has a waitqueue of its own for poll, freed
 * in ->release as the PSI trigger's was (CVE-2023-54019): a poller still on
 * it then is counted, and would be a use after free.
 *
 * Its ioctls block in the ways revoke must deal with: a read blocks
 * interruptibly and knows nothing of revoke; TEST_REVOKE_BLOCK does not
 * even wake for signals, only for TEST_REVOKE_UNBLOCK or SIGKILL;
 * TEST_REVOKE_WAIT_CANCEL is cut short by a revoke cancellation only;
 * TEST_REVOKE_WAIT_EINTR sleeps interruptibly and gives -EINTR, not
 * -ERESTARTSYS, when woken by a signal; TEST_REVOKE_WAIT_REVOKED waits on
 * the file's poll waitqueue until file_revoked(); TEST_REVOKE_SELF revokes
 * its own file and the device's others; TEST_REVOKE_BLOCK_RELEASE makes the
 * file's ->release sleep as TEST_REVOKE_BLOCK does.
 *
 * Its files take O_ASYNC: a write signals them.  Revoke must take a file
 * off the device's fasync list before its ->release, as __fput() does; a
 * file found there by ->release is counted, and would be signalled once
 * freed.  Their POSIX locks are kept by the device's ->lock, as FUSE keeps
 * them without a lock server.
 *
 * TEST_REVOKE_DEBUGFS_ADD creates /sys/kernel/debug/test_revoke/, with
 * "pipe", the device's methods in a debugfs file (its cancellation a
 * debugfs one), "state", a seq_file read through ->read_iter only, both
 * made with debugfs_create_file(), and "value", a DEFINE_DEBUGFS_ATTRIBUTE
 * made with debugfs_create_file_unsafe(); TEST_REVOKE_DEBUGFS_REMOVE
 * removes it, after which their open files' calls fail.
 *
 * TEST_REVOKE_PROC_ADD creates /proc/test_revoke/, with "pipe", the
 * device's methods in proc_ops (->proc_read, ->proc_poll, ->proc_mmap...),
 * "state" and "seq", a proc_create_single() and a proc_create_seq() file,
 * and "link", a symlink to "pipe";
 * TEST_REVOKE_PROC_REMOVE removes it with proc_remove(), which releases
 * their open files.
 *
 * TEST_REVOKE_SYSFS_ADD creates /sys/kernel/test_revoke/, a kobject with
 * "value", an attribute whose show and store take a few milliseconds, so
 * that a removal finds them in flight, and whose store notifies its
 * pollers, or, for "block", sleeps as TEST_REVOKE_BLOCK does; "blob", a
 * bin attribute of one page that reads and maps the device's page; and
 * "remove", whose store removes the directory from
 * inside itself as a device's "remove" attribute does, after
 * sysfs_remove_file_self(), sleeping in between so that a concurrent
 * writer returning before the winner's store is done would see it.
 * TEST_REVOKE_SYSFS_REMOVE removes it, which revokes their open files.  A
 * call that reaches one of them once the removal returned is counted in
 * late_calls.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/filelock.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/revoke.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/wait.h>

#define TEST_REVOKE_SIZE	4096
/* ioctl: return the number of bytes ready to read */
#define TEST_REVOKE_READY	_IO('R', 1)
/* ioctl: sleep, deaf to signals but SIGKILL, until TEST_REVOKE_UNBLOCK */
#define TEST_REVOKE_BLOCK	_IO('R', 2)
#define TEST_REVOKE_UNBLOCK	_IO('R', 3)
/* ioctl: sleep as TEST_REVOKE_BLOCK, and -ECANCELED once revoke cancels */
#define TEST_REVOKE_WAIT_CANCEL	_IO('R', 4)
/* ioctl: sleep on the file's poll waitqueue until the file is revoked */
#define TEST_REVOKE_WAIT_REVOKED _IO('R', 5)
/* ioctl: revoke this very file, from inside the call */
#define TEST_REVOKE_SELF	_IO('R', 6)
/* ioctls: create and remove the debugfs directory */
#define TEST_REVOKE_DEBUGFS_ADD	_IO('R', 7)
#define TEST_REVOKE_DEBUGFS_REMOVE _IO('R', 8)
/* ioctl: make this file's ->release sleep as TEST_REVOKE_BLOCK */
#define TEST_REVOKE_BLOCK_RELEASE _IO('R', 9)
/* ioctls: create and remove the /proc directory */
#define TEST_REVOKE_PROC_ADD	_IO('R', 10)
#define TEST_REVOKE_PROC_REMOVE	_IO('R', 11)
/* ioctls: create and remove the sysfs directory */
#define TEST_REVOKE_SYSFS_ADD	_IO('R', 12)
#define TEST_REVOKE_SYSFS_REMOVE _IO('R', 13)
/* ioctl: sleep interruptibly until TEST_REVOKE_UNBLOCK; -EINTR on a signal */
#define TEST_REVOKE_WAIT_EINTR	_IO('R', 14)

static int opens;
module_param(opens, int, 0444);
MODULE_PARM_DESC(opens, "->open calls");
static int releases;
module_param(releases, int, 0444);
MODULE_PARM_DESC(releases, "->release calls");
static int late_calls;
module_param(late_calls, int, 0444);
MODULE_PARM_DESC(late_calls, "calls for a file already released (must be 0)");
static int pollers_left;
module_param(pollers_left, int, 0444);
MODULE_PARM_DESC(pollers_left, "waitqueues freed with a poller on them (must be 0)");
static int fasync_left;
module_param(fasync_left, int, 0444);
MODULE_PARM_DESC(fasync_left, "files released still on the fasync list (must be 0)");
static int self_removals;
module_param(self_removals, int, 0444);
MODULE_PARM_DESC(self_removals, "sysfs \"remove\" stores that removed the directory");

static DEFINE_SPINLOCK(test_revoke_lock);	/* everything below */
static DECLARE_WAIT_QUEUE_HEAD(test_revoke_wait);
/* Incremented by TEST_REVOKE_UNBLOCK. */
static unsigned int test_revoke_unblocks;
static char test_revoke_buf[TEST_REVOKE_SIZE];
static size_t test_revoke_len;
/* What mmap() maps. */
static struct page *test_revoke_page;
/* The files with O_ASYNC, which a write signals. */
static struct fasync_struct *test_revoke_async;
/* Files open, whose pollers a write wakes. */
static LIST_HEAD(test_revoke_open_files);
/*
 * Released files stay here, never freed, so that a call arriving after
 * ->release is counted rather than a use after free.
 */
static LIST_HEAD(test_revoke_released);

struct test_revoke_file {
	struct list_head node;
	wait_queue_head_t *poll_wait;	/* freed in ->release */
	bool block_release;
	bool released;
};

/* Count a call; false if it came for a released file. */
static bool test_revoke_call(struct file *file)
{
	struct test_revoke_file *tf = file->private_data;
	bool ok;

	spin_lock(&test_revoke_lock);
	ok = !tf->released;
	if (!ok)
		late_calls++;
	spin_unlock(&test_revoke_lock);
	return ok;
}

static int test_revoke_open(struct inode *inode, struct file *file)
{
	struct test_revoke_file *tf = kzalloc(sizeof(*tf), GFP_KERNEL);

	if (!tf)
		return -ENOMEM;
	tf->poll_wait = kmalloc(sizeof(*tf->poll_wait), GFP_KERNEL);
	if (!tf->poll_wait) {
		kfree(tf);
		return -ENOMEM;
	}
	init_waitqueue_head(tf->poll_wait);
	file->private_data = tf;
	/* O_DIRECT: what a polled io_uring read needs. */
	file->f_mode |= FMODE_CAN_ODIRECT;
	spin_lock(&test_revoke_lock);
	list_add(&tf->node, &test_revoke_open_files);
	opens++;
	spin_unlock(&test_revoke_lock);
	return 0;
}

/* Whether @file is still on the device's fasync list. */
static bool test_revoke_async_has(struct file *file)
{
	struct fasync_struct *fa;
	bool found = false;

	rcu_read_lock();
	/* As kill_fasync() walks it: the entries are freed after RCU. */
	for (fa = READ_ONCE(test_revoke_async); fa && !found;
	     fa = READ_ONCE(fa->fa_next)) {
		read_lock_irq(&fa->fa_lock);
		found = fa->fa_file == file;
		read_unlock_irq(&fa->fa_lock);
	}
	rcu_read_unlock();
	return found;
}

static long test_revoke_block(bool *cancelled);

static int test_revoke_release(struct inode *inode, struct file *file)
{
	struct test_revoke_file *tf = file->private_data;
	bool never = false, async;

	if (tf->block_release)
		test_revoke_block(&never);
	async = test_revoke_async_has(file);

	spin_lock(&test_revoke_lock);
	if (async)
		fasync_left++;
	if (tf->released) {
		late_calls++;
		spin_unlock(&test_revoke_lock);
		return 0;
	}
	tf->released = true;
	list_move(&tf->node, &test_revoke_released);
	/*
	 * Racy without the waitqueue's lock, and enough: a poller still
	 * queued here when ->release runs is already the bug counted.
	 */
	if (waitqueue_active(tf->poll_wait))
		pollers_left++;
	kfree(tf->poll_wait);
	tf->poll_wait = NULL;
	releases++;
	spin_unlock(&test_revoke_lock);
	return 0;
}

/*
 * Take up to @len bytes into @tmp, waiting for them unless @nowait: the
 * read methods' common part.
 */
static ssize_t test_revoke_take(char *tmp, size_t len, bool nowait)
{
	int err;

	spin_lock(&test_revoke_lock);
	while (!test_revoke_len) {
		spin_unlock(&test_revoke_lock);
		if (nowait)
			return -EAGAIN;
		/* Only a kick gets it out when revoked: see revoke_kick(). */
		err = wait_event_interruptible(test_revoke_wait,
					       READ_ONCE(test_revoke_len));
		if (err)
			return err;
		spin_lock(&test_revoke_lock);
	}
	len = min(len, test_revoke_len);
	memcpy(tmp, test_revoke_buf, len);
	test_revoke_len -= len;
	memmove(test_revoke_buf, test_revoke_buf + len, test_revoke_len);
	spin_unlock(&test_revoke_lock);
	return len;
}

static ssize_t test_revoke_read(struct file *file, char __user *buf,
				size_t len, loff_t *pos)
{
	char tmp[64];
	ssize_t ret;

	if (!test_revoke_call(file))
		return -EBADFD;
	ret = test_revoke_take(tmp, min(len, sizeof(tmp)),
			       file->f_flags & O_NONBLOCK);
	if (ret > 0 && copy_to_user(buf, tmp, ret))
		return -EFAULT;
	return ret;
}

/*
 * readv(), aio and io_uring reads, polled ones (IOCB_HIPRI) too: the
 * device completes every read before returning, as a driver may, so
 * ->iopoll never has a request to find.
 */
static ssize_t test_revoke_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	bool nowait = iocb->ki_flags & IOCB_NOWAIT ||
		      iocb->ki_filp->f_flags & O_NONBLOCK;
	char tmp[64];
	ssize_t ret;

	if (!test_revoke_call(iocb->ki_filp))
		return -EBADFD;
	ret = test_revoke_take(tmp, min(iov_iter_count(to), sizeof(tmp)),
			       nowait);
	if (ret > 0 && copy_to_iter(tmp, ret, to) != ret)
		return -EFAULT;
	return ret;
}

static int test_revoke_iopoll(struct kiocb *iocb, struct io_comp_batch *iob,
			      unsigned int flags)
{
	if (!test_revoke_call(iocb->ki_filp))
		return -EBADFD;
	return 0;
}

static ssize_t test_revoke_write(struct file *file, const char __user *buf,
				 size_t len, loff_t *pos)
{
	struct test_revoke_file *tf;
	char tmp[64];

	if (!test_revoke_call(file))
		return -EBADFD;
	len = min(len, sizeof(tmp));
	if (copy_from_user(tmp, buf, len))
		return -EFAULT;
	spin_lock(&test_revoke_lock);
	len = min(len, TEST_REVOKE_SIZE - test_revoke_len);
	memcpy(test_revoke_buf + test_revoke_len, tmp, len);
	test_revoke_len += len;
	list_for_each_entry(tf, &test_revoke_open_files, node)
		wake_up_interruptible_poll(tf->poll_wait, EPOLLIN | EPOLLRDNORM);
	spin_unlock(&test_revoke_lock);
	wake_up_interruptible(&test_revoke_wait);
	kill_fasync(&test_revoke_async, SIGIO, POLL_IN);
	return len;
}

static int test_revoke_fasync(int fd, struct file *file, int on)
{
	if (!test_revoke_call(file))
		return -EBADFD;
	return fasync_helper(fd, file, on, &test_revoke_async);
}

/*
 * POSIX locks kept by the driver, as FUSE does without a lock server: a
 * record the driver is not asked to remove outlives the file.
 */
static int test_revoke_posix_lock(struct file *file, int cmd,
				  struct file_lock *fl)
{
	if (!test_revoke_call(file))
		return -EBADFD;
	if (cmd == F_GETLK || cmd == F_OFD_GETLK) {
		posix_test_lock(file, fl);
		return 0;
	}
	return posix_lock_file(file, fl, NULL);
}

static __poll_t test_revoke_poll(struct file *file, poll_table *pt)
{
	struct test_revoke_file *tf = file->private_data;
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	if (!test_revoke_call(file))
		return EPOLLERR;
	poll_wait(file, tf->poll_wait, pt);
	if (READ_ONCE(test_revoke_len))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

/* Sleep until TEST_REVOKE_UNBLOCK, @cancelled or SIGKILL. */
static long test_revoke_block(bool *cancelled)
{
	unsigned int unblocks = READ_ONCE(test_revoke_unblocks);

	return wait_event_killable(test_revoke_wait,
				   READ_ONCE(test_revoke_unblocks) != unblocks ||
				   READ_ONCE(*cancelled));
}

/*
 * Sleep until TEST_REVOKE_UNBLOCK, interruptibly, and give -EINTR when
 * woken by a signal, as a driver does that takes mutex_lock_interruptible()
 * or tests signal_pending() itself (memory.reclaim's write).
 */
static long test_revoke_wait_eintr(void)
{
	unsigned int unblocks = READ_ONCE(test_revoke_unblocks);

	if (wait_event_interruptible(test_revoke_wait,
				     READ_ONCE(test_revoke_unblocks) != unblocks))
		return -EINTR;
	return 0;
}

struct test_revoke_cancel {
	struct revoke_cancellation c;
	bool cancelled;
};

static void test_revoke_cancel(struct file *file, void *data)
{
	struct test_revoke_cancel *tc = data;

	WRITE_ONCE(tc->cancelled, true);
	wake_up_all(&test_revoke_wait);
}

static long test_revoke_wait_cancel(struct file *file)
{
	struct test_revoke_cancel tc = {
		.c.cancel = test_revoke_cancel,
		.c.data = &tc,
	};
	long ret;

	revoke_enter_cancellation(file, &tc.c);
	ret = test_revoke_block(&tc.cancelled);
	revoke_leave_cancellation(file, &tc.c);
	return ret ?: tc.cancelled ? -ECANCELED : 0;
}

static void test_revoke_debugfs_cancel(struct dentry *dentry, void *data)
{
	test_revoke_cancel(NULL, data);
}

/* The same, through debugfs' cancellation. */
static long test_revoke_debugfs_wait_cancel(struct file *file)
{
	struct test_revoke_cancel tc = {};
	struct debugfs_cancellation c = {
		.cancel = test_revoke_debugfs_cancel,
		.cancel_data = &tc,
	};
	long ret;

	debugfs_enter_cancellation(file, &c);
	ret = test_revoke_block(&tc.cancelled);
	debugfs_leave_cancellation(file, &c);
	return ret ?: tc.cancelled ? -ECANCELED : 0;
}

static DEFINE_MUTEX(test_revoke_debugfs_lock);
static struct dentry *test_revoke_debugfs;	/* under the mutex */
static const struct file_operations test_revoke_debugfs_fops;
static const struct file_operations test_revoke_state_fops;

static int test_revoke_value_get(void *data, u64 *val)
{
	*val = READ_ONCE(opens);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(test_revoke_value_fops, test_revoke_value_get, NULL,
			 "%llu\n");

static long test_revoke_debugfs_add(void)
{
	struct dentry *dir;
	long ret = 0;

	mutex_lock(&test_revoke_debugfs_lock);
	if (!test_revoke_debugfs) {
		dir = debugfs_create_dir("test_revoke", NULL);
		debugfs_create_file("pipe", 0600, dir, NULL,
				    &test_revoke_debugfs_fops);
		debugfs_create_file("state", 0444, dir, NULL,
				    &test_revoke_state_fops);
		debugfs_create_file_unsafe("value", 0444, dir, NULL,
					   &test_revoke_value_fops);
		if (IS_ERR(dir))
			ret = PTR_ERR(dir);
		else
			test_revoke_debugfs = dir;
	}
	mutex_unlock(&test_revoke_debugfs_lock);
	return ret;
}

/* Not under the mutex: the removal waits for the calls of the files. */
static void test_revoke_debugfs_remove(void)
{
	struct dentry *dir;

	mutex_lock(&test_revoke_debugfs_lock);
	dir = test_revoke_debugfs;
	test_revoke_debugfs = NULL;
	mutex_unlock(&test_revoke_debugfs_lock);
	debugfs_remove(dir);
}

static DEFINE_MUTEX(test_revoke_proc_lock);
static struct proc_dir_entry *test_revoke_proc;	/* under the mutex */
static const struct proc_ops test_revoke_proc_pipe_ops;
static const struct seq_operations test_revoke_seq_ops;
static int test_revoke_state_show(struct seq_file *m, void *v);

static long test_revoke_proc_add(void)
{
	struct proc_dir_entry *dir;
	long ret = 0;

	mutex_lock(&test_revoke_proc_lock);
	if (!test_revoke_proc) {
		dir = proc_mkdir("test_revoke", NULL);
		if (!dir ||
		    !proc_create("pipe", 0600, dir, &test_revoke_proc_pipe_ops) ||
		    !proc_create_single("state", 0444, dir,
					test_revoke_state_show) ||
		    !proc_create_seq("seq", 0444, dir, &test_revoke_seq_ops) ||
		    !proc_symlink("link", dir, "pipe")) {
			proc_remove(dir);
			ret = -ENOMEM;
		} else {
			test_revoke_proc = dir;
		}
	}
	mutex_unlock(&test_revoke_proc_lock);
	return ret;
}

/* Not under the mutex, as test_revoke_debugfs_remove(). */
static void test_revoke_proc_remove(void)
{
	struct proc_dir_entry *dir;

	mutex_lock(&test_revoke_proc_lock);
	dir = test_revoke_proc;
	test_revoke_proc = NULL;
	mutex_unlock(&test_revoke_proc_lock);
	proc_remove(dir);
}

static DEFINE_MUTEX(test_revoke_sysfs_lock);
static struct kobject *test_revoke_sysfs;	/* under the mutex */
/* Set once the removal of the directory returned. */
static bool test_revoke_sysfs_gone;
static int test_revoke_sysfs_value;

/* Count a call of the sysfs directory's; false if it came too late. */
static bool test_revoke_sysfs_call(void)
{
	if (!READ_ONCE(test_revoke_sysfs_gone))
		return true;
	spin_lock(&test_revoke_lock);
	late_calls++;
	spin_unlock(&test_revoke_lock);
	return false;
}

static ssize_t value_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	if (!test_revoke_sysfs_call())
		return -EBADFD;
	usleep_range(1000, 2000);
	return sysfs_emit(buf, "%d\n", READ_ONCE(test_revoke_sysfs_value));
}

static ssize_t value_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	int value, err;

	if (!test_revoke_sysfs_call())
		return -EBADFD;
	if (sysfs_streq(buf, "block")) {
		bool never = false;

		return test_revoke_block(&never) ?: count;
	}
	err = kstrtoint(buf, 0, &value);
	if (err)
		return err;
	usleep_range(1000, 2000);
	WRITE_ONCE(test_revoke_sysfs_value, value);
	sysfs_notify(kobj, NULL, "value");
	return count;
}

static void test_revoke_sysfs_remove(void);

static ssize_t remove_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	if (!test_revoke_sysfs_call())
		return -EBADFD;
	if (sysfs_remove_file_self(kobj, &attr->attr)) {
		spin_lock(&test_revoke_lock);
		self_removals++;
		spin_unlock(&test_revoke_lock);
		msleep(100);
		test_revoke_sysfs_remove();
	}
	return count;
}

static struct kobj_attribute test_revoke_value_attr = __ATTR_RW(value);
static struct kobj_attribute test_revoke_remove_attr = __ATTR_WO(remove);

static const struct attribute *test_revoke_sysfs_attrs[] = {
	&test_revoke_value_attr.attr,
	&test_revoke_remove_attr.attr,
	NULL
};

static ssize_t test_revoke_blob_read(struct file *file, struct kobject *kobj,
				     struct bin_attribute *attr, char *buf,
				     loff_t pos, size_t count)
{
	if (!test_revoke_sysfs_call())
		return -EBADFD;
	memcpy(buf, page_address(test_revoke_page) + pos, count);
	return count;
}

static vm_fault_t test_revoke_blob_fault(struct vm_fault *vmf)
{
	if (!test_revoke_sysfs_call() || vmf->pgoff)
		return VM_FAULT_SIGBUS;
	get_page(test_revoke_page);
	vmf->page = test_revoke_page;
	return 0;
}

static const struct vm_operations_struct test_revoke_blob_vm_ops = {
	.fault	= test_revoke_blob_fault,
};

static int test_revoke_blob_mmap(struct file *file, struct kobject *kobj,
				 struct bin_attribute *attr,
				 struct vm_area_struct *vma)
{
	if (!test_revoke_sysfs_call())
		return -EBADFD;
	if (vma->vm_pgoff || vma_pages(vma) != 1)
		return -EINVAL;
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &test_revoke_blob_vm_ops;
	return 0;
}

static struct bin_attribute test_revoke_blob_attr = {
	.attr	= { .name = "blob", .mode = 0600 },
	.size	= PAGE_SIZE,
	.read	= test_revoke_blob_read,
	.mmap	= test_revoke_blob_mmap,
};

static long test_revoke_sysfs_add(void)
{
	struct kobject *kobj;
	int err = 0;

	mutex_lock(&test_revoke_sysfs_lock);
	if (!test_revoke_sysfs) {
		/* Before the files are there: a call may come at once. */
		WRITE_ONCE(test_revoke_sysfs_gone, false);
		kobj = kobject_create_and_add("test_revoke", kernel_kobj);
		err = kobj ? sysfs_create_files(kobj, test_revoke_sysfs_attrs) :
			     -ENOMEM;
		if (!err)
			err = sysfs_create_bin_file(kobj, &test_revoke_blob_attr);
		if (err)
			kobject_put(kobj);
		else
			test_revoke_sysfs = kobj;
	}
	mutex_unlock(&test_revoke_sysfs_lock);
	return err;
}

/* Not under the mutex: removing waits for the calls of "remove" too. */
static void test_revoke_sysfs_remove(void)
{
	struct kobject *kobj;

	mutex_lock(&test_revoke_sysfs_lock);
	kobj = test_revoke_sysfs;
	test_revoke_sysfs = NULL;
	mutex_unlock(&test_revoke_sysfs_lock);
	if (!kobj)
		return;
	/* Now, not at the last put, which DEBUG_KOBJECT_RELEASE delays. */
	kobject_del(kobj);
	WRITE_ONCE(test_revoke_sysfs_gone, true);
	kobject_put(kobj);
}

static long test_revoke_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg)
{
	struct test_revoke_file *tf = file->private_data;
	bool never = false;

	if (!test_revoke_call(file))
		return -EBADFD;
	switch (cmd) {
	case TEST_REVOKE_READY:
		return READ_ONCE(test_revoke_len);
	case TEST_REVOKE_BLOCK:
		return test_revoke_block(&never);
	case TEST_REVOKE_UNBLOCK:
		WRITE_ONCE(test_revoke_unblocks, test_revoke_unblocks + 1);
		wake_up_all(&test_revoke_wait);
		return 0;
	case TEST_REVOKE_WAIT_CANCEL:
		return test_revoke_wait_cancel(file);
	case TEST_REVOKE_WAIT_EINTR:
		return test_revoke_wait_eintr();
	case TEST_REVOKE_WAIT_REVOKED:
		return wait_event_killable(*tf->poll_wait, file_revoked(file));
	case TEST_REVOKE_SELF:
		/*
		 * As a "remove" attribute does: this file, and the device's
		 * others.  Nothing of @tf may be touched afterwards.
		 */
		return revoke_inode(file_inode(file));
	case TEST_REVOKE_DEBUGFS_ADD:
		return test_revoke_debugfs_add();
	case TEST_REVOKE_DEBUGFS_REMOVE:
		test_revoke_debugfs_remove();
		return 0;
	case TEST_REVOKE_BLOCK_RELEASE:
		tf->block_release = true;
		return 0;
	case TEST_REVOKE_PROC_ADD:
		return test_revoke_proc_add();
	case TEST_REVOKE_PROC_REMOVE:
		test_revoke_proc_remove();
		return 0;
	case TEST_REVOKE_SYSFS_ADD:
		return test_revoke_sysfs_add();
	case TEST_REVOKE_SYSFS_REMOVE:
		test_revoke_sysfs_remove();
		return 0;
	}
	return -ENOTTY;
}

static long test_revoke_debugfs_ioctl(struct file *file, unsigned int cmd,
				      unsigned long arg)
{
	if (cmd == TEST_REVOKE_WAIT_CANCEL)
		return test_revoke_debugfs_wait_cancel(file);
	return test_revoke_ioctl(file, cmd, arg);
}

static loff_t test_revoke_llseek(struct file *file, loff_t offset, int whence)
{
	if (!test_revoke_call(file))
		return -EBADFD;
	return noop_llseek(file, offset, whence);
}

static vm_fault_t test_revoke_fault(struct vm_fault *vmf)
{
	if (!test_revoke_call(vmf->vma->vm_file) || vmf->pgoff)
		return VM_FAULT_SIGBUS;
	get_page(test_revoke_page);
	vmf->page = test_revoke_page;
	return 0;
}

static const struct vm_operations_struct test_revoke_vm_ops = {
	.fault	= test_revoke_fault,
};

static int test_revoke_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (!test_revoke_call(file))
		return -EBADFD;
	if (vma->vm_pgoff || vma_pages(vma) != 1)
		return -EINVAL;
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &test_revoke_vm_ops;
	return 0;
}

static int test_revoke_dev_open(struct inode *inode, struct file *file);

static const struct file_operations test_revoke_fops = {
	.owner		= THIS_MODULE,
	.fop_flags	= FOP_REVOKE_BY_OPEN,
	.open		= test_revoke_dev_open,
	.release	= test_revoke_release,
	.read		= test_revoke_read,
	.read_iter	= test_revoke_read_iter,
	.iopoll		= test_revoke_iopoll,
	.write		= test_revoke_write,
	.poll		= test_revoke_poll,
	.unlocked_ioctl	= test_revoke_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= test_revoke_llseek,
	.mmap		= test_revoke_mmap,
	.fasync		= test_revoke_fasync,
	.lock		= test_revoke_posix_lock,
};

/* The proxy of test_revoke_fops: the core's method for each of its own. */
static const struct file_operations test_revoke_proxy_fops = {
	.fop_flags	= FOP_REVOKE_BY_OPEN,
	.release	= revoke_fop_release,
	.read		= revoke_fop_read,
	.read_iter	= revoke_fop_read_iter,
	.write		= revoke_fop_write,
	.poll		= revoke_fop_poll,
	.unlocked_ioctl	= revoke_fop_unlocked_ioctl,
#ifdef CONFIG_COMPAT
	/* compat_ptr_ioctl is NULL without it */
	.compat_ioctl	= revoke_fop_compat_ioctl,
#endif
	.llseek		= revoke_fop_llseek,
	.mmap		= revoke_fop_mmap,
	.fasync		= revoke_fop_fasync,
	.lock		= revoke_fop_lock,
};

/* The device's own opens are revokable, its debugfs file's are not. */
static int test_revoke_dev_open(struct inode *inode, struct file *file)
{
	int err = test_revoke_open(inode, file);

	if (err)
		return err;
	err = revoke_file_install(file, NULL, &test_revoke_proxy_fops);
	if (err)
		test_revoke_release(inode, file);
	return err;
}

/*
 * debugfs releases the open files of a revoked file itself: its ->open
 * installs nothing.  Its proxy has no ->mmap.
 */
static const struct file_operations test_revoke_debugfs_fops = {
	.owner		= THIS_MODULE,
	.open		= test_revoke_open,
	.release	= test_revoke_release,
	.read		= test_revoke_read,
	.read_iter	= test_revoke_read_iter,
	.iopoll		= test_revoke_iopoll,
	.write		= test_revoke_write,
	.poll		= test_revoke_poll,
	.unlocked_ioctl	= test_revoke_debugfs_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= test_revoke_llseek,
	.mmap		= test_revoke_mmap,
	.fasync		= test_revoke_fasync,
	.lock		= test_revoke_posix_lock,
};

static int test_revoke_state_show(struct seq_file *m, void *v)
{
	spin_lock(&test_revoke_lock);
	seq_printf(m, "opens %d releases %d late_calls %d pollers_left %d\n",
		   opens, releases, late_calls, pollers_left);
	spin_unlock(&test_revoke_lock);
	return 0;
}

static int test_revoke_state_open(struct inode *inode, struct file *file)
{
	return single_open(file, test_revoke_state_show, NULL);
}

/* ->read_iter and ->splice_read only, which debugfs' proxy lacked. */
static const struct file_operations test_revoke_state_fops = {
	.owner		= THIS_MODULE,
	.open		= test_revoke_state_open,
	.release	= single_release,
	.read_iter	= seq_read_iter,
	.splice_read	= copy_splice_read,
	.llseek		= seq_lseek,
};

/* procfs makes the files of a removable entry revokable. */
static const struct proc_ops test_revoke_proc_pipe_ops = {
	.proc_open	= test_revoke_open,
	.proc_release	= test_revoke_release,
	.proc_read	= test_revoke_read,
	.proc_write	= test_revoke_write,
	.proc_poll	= test_revoke_poll,
	.proc_ioctl	= test_revoke_ioctl,
#ifdef CONFIG_COMPAT
	.proc_compat_ioctl = compat_ptr_ioctl,
#endif
	.proc_lseek	= test_revoke_llseek,
	.proc_mmap	= test_revoke_mmap,
};

/* "seq": lines 0 to 999, more than one read's worth. */
static void *test_revoke_seq_start(struct seq_file *m, loff_t *pos)
{
	return *pos < 1000 ? pos : NULL;
}

static void *test_revoke_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return test_revoke_seq_start(m, pos);
}

static void test_revoke_seq_stop(struct seq_file *m, void *v)
{
}

static int test_revoke_seq_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%lld\n", *(loff_t *)v);
	return 0;
}

static const struct seq_operations test_revoke_seq_ops = {
	.start	= test_revoke_seq_start,
	.next	= test_revoke_seq_next,
	.stop	= test_revoke_seq_stop,
	.show	= test_revoke_seq_show,
};

static struct miscdevice test_revoke_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "test_revoke",
	.fops	= &test_revoke_fops,
	.mode	= 0666,
};

static int __init test_revoke_init(void)
{
	int err;

	test_revoke_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!test_revoke_page)
		return -ENOMEM;
	err = misc_register(&test_revoke_dev);
	if (err)
		__free_page(test_revoke_page);
	return err;
}
module_init(test_revoke_init);

static void __exit test_revoke_exit(void)
{
	misc_deregister(&test_revoke_dev);
	test_revoke_debugfs_remove();
	test_revoke_proc_remove();
	test_revoke_sysfs_remove();
	/* Mappings still around hold references of their own. */
	__free_page(test_revoke_page);
}
module_exit(test_revoke_exit);

MODULE_DESCRIPTION("Test device for revokable files");
MODULE_LICENSE("GPL");
