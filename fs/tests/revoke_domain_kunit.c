// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of domains (fs/revoke_domain.c, fs/revoke_inode.c): files
 * revoked together, a domain's kick, removing a domain while its files
 * are revoked, the domains of inodes, poll forwarding (fs/revoke_poll.c),
 * and lockdep's view of a domain as a lock class.
 */
#include <kunit/static_stub.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/debug_locks.h>
#include <linux/kthread.h>

#include "revoke_kunit.h"

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

/* The task that kicked the calls of the domain's files, for the test. */
static struct task_struct *revoke_test_kicker;

static void revoke_test_kick_noted(struct file *file)
{
	revoke_test_kicker = current;
}

/*
 * revoke_domain_shut() cuts every file of the domain off and returns with
 * a call in flight, releasing no driver: ALSA's disconnect, whose files
 * are released at their last close only.  A worker shuts them, for the
 * shut holds each file, and the final fput() of a file closed meanwhile
 * must not be queued to a caller that waits for the file's release.
 */
static void revoke_test_domain_shut(struct kunit *test)
{
	static const struct revoke_results results = {
		.error			= -ENODEV,
		.read			= -ENODEV,
		.release_at_close	= true,
	};
	struct revoke_test_file *busy, *idle;
	struct revoke_domain domain;
	struct task_struct *reader;
	struct file *f1, *f2;

	revoke_domain_init(&domain);
	domain.results = &results;
	domain.kick = revoke_test_kick_noted;
	f1 = revoke_test_open_file(test, &domain, true);
	f2 = revoke_test_open_file(test, &domain, false);
	busy = test_file(f1);
	idle = test_file(f2);
	reader = revoke_test_start(test, revoke_test_reader, f1);
	wait_for_completion(&busy->entered);

	revoke_test_kicker = NULL;
	revoke_domain_shut(&domain);
	KUNIT_EXPECT_NOT_NULL(test, revoke_test_kicker);
	KUNIT_EXPECT_PTR_NE(test, revoke_test_kicker, current);
	KUNIT_EXPECT_TRUE(test, file_revoked(f1));
	KUNIT_EXPECT_TRUE(test, file_revoked(f2));
	KUNIT_EXPECT_EQ(test, -ENODEV, revoke_test_call_read(f2));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&idle->calls));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&busy->releases));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&idle->releases));

	complete(&busy->unblock);
	kthread_stop_put(reader);
	__fput_sync(f1);
	__fput_sync(f2);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&busy->releases));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&idle->releases));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&busy->late_calls));
	KUNIT_EXPECT_TRUE(test, list_empty(&domain.files));
}

/* An object with a domain, which the release of its last file frees. */
struct revoke_test_owner {
	struct revoke_domain domain;
};

/* Whether the file was still in the owner's domain at its release. */
static bool revoke_test_owner_listed;

static int revoke_test_release_owner(struct inode *inode, struct file *file)
{
	struct revoke_test_owner *owner = file->private_data;

	revoke_test_owner_listed = !list_empty(&owner->domain.files);
	kfree(owner);
	return 0;
}

static const struct file_operations revoke_test_owned_fops = {
	.release	= revoke_test_release_owner,
};

static const struct file_operations revoke_test_owned_proxy_fops = {
	.release	= revoke_fop_release,
};

/*
 * A driver released at the last close only may free the domain in that
 * release, as a sound card goes with its last file: the file is out of
 * the domain by then, and the core touches the domain no more.
 */
static void revoke_test_release_frees_domain(struct kunit *test)
{
	static const struct revoke_results results = {
		.error			= -ENODEV,
		.release_at_close	= true,
	};
	struct revoke_test_owner *owner;
	struct file *file;

	owner = kzalloc(sizeof(*owner), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	revoke_domain_init(&owner->domain);
	owner->domain.results = &results;
	file = anon_inode_create_getfile("[revoke_test]",
					 &revoke_test_owned_fops, owner,
					 O_RDWR, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, 0,
			revoke_file_install(file, &owner->domain,
					    &revoke_test_owned_proxy_fops));
	revoke_domain_shut(&owner->domain);
	revoke_test_owner_listed = true;
	__fput_sync(file);
	KUNIT_EXPECT_FALSE(test, revoke_test_owner_listed);
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
	file = revoke_test_open_with(test, NULL, &revoke_test_polled_fops,
				     &revoke_test_polled_proxy_fops, driver);
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
	stacked->lower = revoke_test_open_with(test, NULL,
					       &revoke_test_polled_fops,
					       &revoke_test_polled_proxy_fops,
					       driver);
	upper = revoke_test_open_with(test, NULL, &revoke_test_stacked_fops,
				      &revoke_test_polled_proxy_fops, stacked);
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

static struct kunit_case revoke_domain_test_cases[] = {
	KUNIT_CASE(revoke_test_domain_files),
	KUNIT_CASE(revoke_test_domain_kick),
	KUNIT_CASE(revoke_test_domain_shut),
	KUNIT_CASE(revoke_test_release_frees_domain),
	KUNIT_CASE(revoke_test_poll_no_atomic_memory),
	KUNIT_CASE(revoke_test_poll_nested),
	KUNIT_CASE(revoke_test_domain_remove),
	KUNIT_CASE(revoke_test_remove_waits_for_revoker),
	KUNIT_CASE(revoke_test_concurrent_revokers),
	KUNIT_CASE(revoke_test_inode_domain),
	KUNIT_CASE(revoke_test_no_domain),
	KUNIT_CASE(revoke_test_lockdep_abba),
	{}
};

static struct kunit_suite revoke_domain_test_suite = {
	.name = "revoke_domain",
	.test_cases = revoke_domain_test_cases,
};

kunit_test_suite(revoke_domain_test_suite);
