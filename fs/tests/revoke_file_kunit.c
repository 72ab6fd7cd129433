// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of revoking one file (fs/revoke_file.c): waiting for the
 * calls in flight and kicking them, killed revokers, releasing the driver
 * exactly once against the final fput(), what a revoked file's calls
 * return, and the mappings list of fs/revoke_mmap.c.
 */
#include <kunit/test-bug.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/iopoll.h>
#include <linux/kthread.h>
#include <linux/sched/mm.h>

#include "revoke_kunit.h"

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
	atomic_inc(&test_file(file)->calls);
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

/*
 * A file of the driver above in @domain, whose revoked calls return
 * @results (revoke(2)'s if NULL), put at the end of the test.
 */
static struct file *revoke_test_open_calls(struct kunit *test,
					   struct revoke_domain *domain,
					   const struct revoke_results *results)
{
	struct revoke_test_file *tf;

	tf = kunit_kzalloc(test, sizeof(*tf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tf);
	revoke_domain_init(domain);
	domain->results = results;
	return revoke_test_open_with(test, domain, &revoke_test_calls_fops,
				     &revoke_test_calls_proxy_fops, tf);
}

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
	struct file *file[2];
	int i;

	for (i = 0; i < 2; i++) {
		file[i] = revoke_test_open_calls(test, &domain[i],
						 i ? NULL : &results);
		KUNIT_EXPECT_EQ(test, 0, file[i]->f_op->llseek(file[i], 0,
							       SEEK_SET));
		revoke_domain_files(&domain[i]);
	}
	revoke_test_expect_results(test, file[0], &results);
	revoke_test_expect_results(test, file[1], &revoke_default_results);
	KUNIT_EXPECT_EQ(test, -EIO, revoke_default_results.read);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&test_file(file[0])->calls));
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
	struct file *file;

	file = revoke_test_open_calls(test, &domain, &results);
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
 * A driver released at the last close only keeps its mappings as it made
 * them (ALSA's PCM buffer): its ->mmap is called through the gate with
 * nothing for revoke to switch off, and not once the gate is closed.
 */
static void revoke_test_release_at_close_maps(struct kunit *test)
{
	static const struct revoke_results results = {
		.error			= -ENODEV,
		.mmap			= -ENODEV,
		.release_at_close	= true,
	};
	struct vm_area_struct vma = {};
	struct revoke_domain *domain;
	struct revoke_test_file *tf;
	struct file *file;

	/* The file's last put, after the test, leaves the domain then. */
	domain = kunit_kzalloc(test, sizeof(*domain), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, domain);
	file = revoke_test_open_calls(test, domain, &results);
	tf = test_file(file);
	vma.vm_file = file;
	KUNIT_EXPECT_EQ(test, 0, file->f_op->mmap(file, &vma));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->calls));
	KUNIT_EXPECT_NULL(test, file_revokable(file)->vm);

	KUNIT_EXPECT_EQ(test, 0, revoke_file(file));
	KUNIT_EXPECT_EQ(test, -ENODEV, file->f_op->mmap(file, &vma));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&tf->calls));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&tf->releases));
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

/*
 * A call that leaves a file revoked meanwhile returns what a revoked file
 * returns, not the -EINTR or restart code of its kicked sleep: the methods
 * of two files (copy_file_range, remap_file_range) and the takedowns
 * (fasync) as the others.
 */
static void revoke_test_kicked_results(struct kunit *test)
{
	struct revoke_test_file *tf;
	struct file *file[4];
	int i;

	tf = kunit_kcalloc(test, ARRAY_SIZE(file), sizeof(*tf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tf);
	for (i = 0; i < ARRAY_SIZE(file); i++)
		file[i] = revoke_test_open_with(test, NULL,
						&revoke_test_kicked_fops,
						&revoke_test_kicked_proxy_fops,
						&tf[i]);
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

static struct kunit_case revoke_file_test_cases[] = {
	KUNIT_CASE(revoke_test_waits_for_calls),
	KUNIT_CASE(revoke_test_killed_revoker),
	KUNIT_CASE(revoke_test_killed_revoker_then_close),
	KUNIT_CASE(revoke_test_claim_given_back),
	KUNIT_CASE(revoke_test_domain_results),
	KUNIT_CASE(revoke_test_ioctl_cmd_results),
	KUNIT_CASE(revoke_test_release_at_close),
	KUNIT_CASE(revoke_test_release_at_close_unpinned),
	KUNIT_CASE(revoke_test_release_at_close_maps),
	KUNIT_CASE(revoke_test_shut),
	KUNIT_CASE(revoke_test_kicked_results),
	KUNIT_CASE(revoke_test_race_with_fput),
#ifdef CONFIG_MMU
	KUNIT_CASE(revoke_test_vm_mms_bounded),
#endif
	{}
};

static struct kunit_suite revoke_file_test_suite = {
	.name = "revoke_file",
	.test_cases = revoke_file_test_cases,
};

kunit_test_suite(revoke_file_test_suite);
