/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Revokable files: what the parts of the core share.
 *
 *   fs/revoke.c          the state of a revokable file, the gate's slow
 *                        paths but the last call out of a revoked file;
 *                        the fast paths are in <linux/revoke_gate.h>
 *   fs/revoke_file.c     revoking one file, releasing its driver
 *   fs/revoke_domain.c   domains: the files revoked together
 *   fs/revoke_inode.c    the domains of inodes, for revoke(2)
 *                        (CONFIG_REVOKE)
 *   fs/revoke_syscall.c  revokeat() (CONFIG_REVOKE)
 *   fs/revoke_fops.c     the file_operations proxy
 *   fs/revoke_poll.c     poll forwarding from the driver's waitqueues
 *   fs/revoke_mmap.c     mmap, and switching mappings off at revoke
 *   fs/revoke_gate.c     the file gate alone, for a filesystem that keeps
 *                        it in its own per-open state (kernfs)
 *
 * Their KUnit tests are fs/tests/revoke*_kunit.c.
 *
 * The words (gate, call, takedown, teardown, kick, domain, use, revoker)
 * are defined in Documentation/filesystems/revoke.rst, "Glossary".
 */
#ifndef _FS_REVOKE_INTERNAL_H
#define _FS_REVOKE_INTERNAL_H

#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/revoke.h>
#include <linux/revoke_gate.h>
#include <linux/rhashtable-types.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

/* Added to revoke_gate.active when the file is revoked. */
#define REVOKE_BIAS	INT_MIN

/* revokable_file.flags */
enum {
	REVOKE_DEAD,		/* the gate is closed for good */
	REVOKE_RELEASED,	/* the driver's release was claimed */
	REVOKE_DONE,		/* ... and has returned */
};

/* What poll returns on a revoked file, unless its domain says otherwise. */
#define REVOKED_POLL	(EPOLLIN | EPOLLRDNORM | EPOLLOUT | EPOLLWRNORM | \
			 EPOLLERR | EPOLLHUP)

struct revoke_inode_domain;
struct revoke_vm;

/*
 * The state of one revokable file.  Allocated at open, freed at the final
 * fput() (revoke_fop_release()), or later, when the last revoker looking at it
 * lets go.  Nothing else holds it: no worker, no timer.
 */
struct revokable_file {
	/* the counter of calls and the idle caller: file->f_revoke_gate */
	struct revoke_gate gate;
	/* gate.caller's calls nested in that one; only it changes this */
	unsigned int caller_nested;
	/* REVOKE_* bits */
	unsigned long flags;
	/* one for the file, one per revoker holding the state */
	refcount_t ref;
	struct file *file;
	/* the driver's methods; the file's reference on their owner is ours */
	const struct file_operations *real;
	/* the domain while the file is in it; changed under domain->lock */
	struct revoke_domain *domain;
	/* the per-inode domain @domain belongs to, or NULL if embedded */
	struct revoke_inode_domain *inode_domain;
	/* in domain->files until the driver is released */
	struct list_head node;
	/* the file's place in domain->files, see __revoke_domain_files() */
	u64 seq;
	/* the task tearing the file down, which may still call the driver */
	struct task_struct *teardown;
	/* the task whose call revoked the file: it finishes as it leaves */
	struct task_struct *self;
	/* the mappings' state, from the first mmap() on */
	struct revoke_vm *vm;
	/* pollers wait here, never on the driver's waitqueues */
	struct revoke_poll poll;
	/* the domain's kick hook, see revoke_kick() */
	void (*kick)(struct file *file);
	/* what its calls return once it is revoked: its domain's, or ours */
	const struct revoke_results *results;
	/* protects @cancellations, and runs them */
	struct mutex cancel_lock;
	/* struct revoke_cancellation of calls in flight */
	struct list_head cancellations;
	/* protects @callers */
	spinlock_t callers_lock;
	/* struct revoke_call of the calls in flight but gate.caller's */
	struct list_head callers;
};

static inline struct revokable_file *gate_revokable(struct revoke_gate *gate)
{
	return container_of(gate, struct revokable_file, gate);
}

static inline struct revokable_file *file_revokable(const struct file *file)
{
	return gate_revokable(file_revoke_gate(file));
}

static inline struct revokable_file *file_revokable_or_null(const struct file *file)
{
	return file->f_mode & FMODE_REVOKABLE ? file_revokable(file) : NULL;
}

/*
 * The gate: struct revoke_gate, with its fast paths in
 * <linux/revoke_gate.h>.  A call enters by incrementing gate.active, and
 * is in if the value it found was not negative; it is negative for good
 * once revoke has added REVOKE_BIAS, and the revoker then waits for
 * gate.active to come down to REVOKE_BIAS.  A call that is refused, and
 * one that leaves a revoked file, find gate.active negative and take the
 * slow path, revoke_refused() or revoke_left_dead().  The gate is
 * annotated for lockdep as a read lock, like kernfs' active reference, of
 * its domain's lock class (see revoke_domain_init()), so that a revoke
 * that waits for a call of the revoker's own, or two methods revoking each
 * other's domains, are reported.
 *
 * The gate is on every proxied call: a call costs the proxy's frame, one
 * atomic increment whose old value is tested, one atomic decrement whose
 * result's sign is tested, and two stores noting the calling task.  A
 * filesystem entering the gate around its own calls (revoke_call_enter())
 * pays the same, inline, plus a test of f_mode.
 *
 * The file notes the tasks inside its calls, so that revoke can kick them
 * out of an interruptible sleep in the driver (see revoke_kick()) without
 * looking at any other task.  The call that finds the file idle, the
 * common case, takes gate.caller: a store on entry and one on leaving.  A
 * call that finds others in flight lists itself in @callers, under
 * @callers_lock, out of line, unless it is nested in the task's own call
 * that holds gate.caller (a splice calling ->read_iter).  gate.caller is
 * stored after the increment, so a revoker may find a call counted and
 * not noted yet: it kicks again while it waits (revoke_wait_calls()).  A
 * task in nested calls (a driver calling into another revokable file, or
 * into the same one through the VFS) is noted by each file.
 */

/* The slow path of a refused call, in fs/revoke.c. */
void revoke_refused(struct revokable_file *rf);

/*
 * Enter and leave, for the methods written out.  Those REVOKE_PROXY()
 * makes do the same with the idle case inline and the rest out of line.
 */
static __always_inline bool revoke_enter(struct revokable_file *rf,
					 struct revoke_call *call)
{
	return revoke_gate_enter(&rf->gate, call);
}

static __always_inline bool revoke_leave(struct revokable_file *rf,
					 struct revoke_call *call)
{
	return revoke_gate_leave(&rf->gate, call);
}

/*
 * The proxy methods: enter, call the driver, leave.  REVOKE_PROXY() writes
 * one out from the driver's method's return type, the proxy's name, how
 * to find the file's state from the arguments, what a revoked file
 * returns, the driver's method, the prototype and the argument list.  The
 * call that finds the file idle runs inline; any other, refused or finding
 * calls in flight, is handed whole to a twin out of line (a tail call), so
 * that the common path keeps nothing alive across the driver's method but
 * the state; so is leaving a file revoked meanwhile, with the driver's
 * result, so that the common path keeps no stack slot for it either.  The
 * takedowns have a macro of their own, in fs/revoke_fops.c; methods of
 * other shapes are written out.
 */
#define PROTO(args...)	args
#define ARGS(args...)	args

/*
 * What a call that left a revoked file returns: the driver's result, but
 * for an -EINTR or a restart code with no signal pending.  Those come from
 * the revoker's kick (an interruptible sleep, a driver's
 * mutex_lock_interruptible() or its own test of signal_pending()), and the
 * call returns what a revoked file returns, as its restart would: a caller
 * with no signal handler never sees EINTR from it, nor do io_uring and aio,
 * which complete a request with -EINTR for a restart code.
 */
#define revoke_interrupted(ret)						\
	((__force long)(ret) == -EINTR ||					\
	 ((__force long)(ret) <= -ERESTARTSYS &&				\
	  (__force long)(ret) >= -ERESTART_RESTARTBLOCK))
#define revoke_result(ret, refused)					\
	(revoke_interrupted(ret) && !task_sigpending(current) ?		\
	 (refused) : (ret))

#define REVOKE_PROXY(ret_t, name, rf_of, refused, method, proto, args)	\
	REVOKE_PROXY_KICKED(ret_t, name, rf_of, refused, refused, method, \
			    PROTO(proto), ARGS(args))

/*
 * REVOKE_PROXY(), with what an idle call kicked out of the driver returns
 * apart: an expression of the state alone, for the twin that leaves a
 * revoked file gets no arguments.
 */
#define REVOKE_PROXY_KICKED(ret_t, name, rf_of, refused, kicked, method, \
			    proto, args)				\
static noinline ret_t revoke_fop_##name##_dead(struct revokable_file *rf, \
					      ret_t ret)		\
{									\
	revoke_left_dead(&rf->gate);					\
	return revoke_result(ret, kicked);				\
}									\
									\
static noinline ret_t revoke_fop_##name##_busy(struct revokable_file *rf, \
					      int calls, proto)		\
{									\
	struct revoke_call call;					\
	ret_t ret;							\
									\
	if (!revoke_enter_busy(&rf->gate, calls, &call))		\
		return refused;						\
	ret = method(args);						\
	if (revoke_leave_busy(&rf->gate, &call))			\
		return revoke_result(ret, refused);			\
	return ret;							\
}									\
									\
ret_t revoke_fop_##name(proto)						\
{									\
	struct revokable_file *rf = rf_of;				\
	int calls = atomic_fetch_inc(&rf->gate.active);			\
	ret_t ret;							\
									\
	if (unlikely(calls))						\
		return revoke_fop_##name##_busy(rf, calls, args);	\
	revoke_gate_enter_idle(&rf->gate);				\
	ret = method(args);						\
	if (__revoke_gate_leave_idle(&rf->gate))			\
		return revoke_fop_##name##_dead(rf, ret);		\
	return ret;							\
}									\
EXPORT_SYMBOL_GPL(revoke_fop_##name)

/* fs/revoke.c: the state, the calls a task is in */
void revoke_put(struct revokable_file *rf);
int revoke_calls_of(struct revokable_file *rf, struct task_struct *task);
bool revoke_in_call(struct revokable_file *rf);

/* fs/revoke_file.c: revoking one file, releasing its driver */
void revoke_shut(struct revokable_file *rf);
int revoke_one(struct revokable_file *rf, struct revoke_domain *d,
	       bool killable);
int revoke_wait_released(struct revokable_file *rf, bool killable);
int revoke_unpinned(struct revokable_file *rf, bool killable);

/* fs/revoke_domain.c */
int revoke_domain_add(struct revokable_file *rf, struct revoke_domain *domain);
extern const struct revoke_results revoke_default_results;
extern const struct revoke_results revoke_chrdev_results;
void revoke_domain_del(struct revokable_file *rf);
bool revoke_in_domain_call(struct revoke_domain *d);
int __revoke_domain_files(struct revoke_domain *d, bool killable);

/*
 * fs/revoke_inode.c.  The domain of an inode's files that the core gates,
 * for revoke(2).
 */
struct revoke_inode_domain {
	struct rhash_head hash;
	const struct inode *inode;
	/* one per file in @domain, one per revoker looking at it */
	refcount_t ref;
	struct revoke_domain domain;
	struct rcu_head rcu;
};

#ifdef CONFIG_REVOKE
struct revoke_inode_domain *revoke_inode_domain_get(const struct inode *inode);
void revoke_inode_domain_put(struct revoke_inode_domain *id);
#if IS_ENABLED(CONFIG_KUNIT)
struct revoke_inode_domain *revoke_inode_domain_find(const struct inode *inode);
#endif
#else /* !CONFIG_REVOKE: no file is in an inode's domain */
static inline struct revoke_inode_domain *
revoke_inode_domain_get(const struct inode *inode)
{
	return NULL;
}

static inline void revoke_inode_domain_put(struct revoke_inode_domain *id)
{
}
#endif

/* fs/revoke_fops.c; the proxy methods are declared in <linux/revoke.h> */
bool revoke_proxy_check(const struct file_operations *proxy,
			const struct file_operations *real);
#if IS_ENABLED(CONFIG_KUNIT)
bool revoke_proxy_known(const struct file_operations *proxy,
			const struct file_operations *real, unsigned long *gen);
void revoke_proxy_forget_all(void);
bool revoke_proxy_lasting(const struct file_operations *fops);
#endif

/* fs/revoke_mmap.c */
#ifdef CONFIG_MMU
struct revoke_vm {
	spinlock_t lock;		/* protects @mms */
	/* address spaces with an mmap() of the file in flight */
	struct list_head mms;
};

int revoke_mmap_switchable(struct revokable_file *rf,
			   struct vm_area_struct *vma);
int revoke_unmap(struct revokable_file *rf, bool killable);
void revoke_vm_free(struct revoke_vm *vm);
#if IS_ENABLED(CONFIG_KUNIT)
int revoke_vm_get(struct revokable_file *rf, struct mm_struct *mm);
#endif
#else /* !CONFIG_MMU: no mapping to switch; a driver's would outlive revoke */
static inline int revoke_mmap_switchable(struct revokable_file *rf,
					 struct vm_area_struct *vma)
{
	return -ENODEV;
}

static inline int revoke_unmap(struct revokable_file *rf, bool killable)
{
	return 0;
}

static inline void revoke_vm_free(struct revoke_vm *vm)
{
}
#endif

#if IS_ENABLED(CONFIG_KUNIT)
/* The allocation of a poll hook, which a KUnit case makes fail. */
struct revoke_poll_hook *revoke_poll_hook_atomic(void);
#endif

#endif /* _FS_REVOKE_INTERNAL_H */
