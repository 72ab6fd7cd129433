/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The gate of a revokable file, for the filesystems that enter it around
 * their own calls into the driver (FOP_NARROW_GATE: kernfs), and for the
 * VFS around the calls that reach a file without its methods (ftruncate(),
 * fchmod(), the f*xattr() calls): its common path is inline, as in the
 * core's own proxy methods.  The rest of the interface is
 * <linux/revoke.h>.
 */
#ifndef _LINUX_REVOKE_GATE_H
#define _LINUX_REVOKE_GATE_H

#include <linux/atomic.h>
#include <linux/container_of.h>
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/revoke_types.h>
#include <asm/current.h>

/**
 * struct revoke_gate - the gate of a revokable file's calls
 * @active: calls in flight; negative for good once the file is revoked
 * @caller: the task in the file's one call, if it came to an idle file
 * @dep_map: the gate's lock class, its domain's (see revoke_domain_init())
 * @proxy: the file's f_op: its driver's methods, each through the gate
 *
 * The head of a revokable file's state: what a call that finds the file
 * idle touches, here so that revoke_call_enter() and revoke_call_leave()
 * are inline.  Only the core uses its fields; fs/revoke_internal.h says
 * how the gate works.
 */
struct revoke_gate {
	atomic_t active;
	struct task_struct *caller;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct lockdep_map *dep_map;
#endif
	struct file_operations proxy;
};

/* A revokable file's gate: its f_op is the gate's proxy. */
static __always_inline struct revoke_gate *
file_revoke_gate(const struct file *file)
{
	return container_of(file->f_op, struct revoke_gate, proxy);
}

/* The slow paths, in fs/revoke.c; not exported, as no module enters. */
bool revoke_enter_busy(struct revoke_gate *gate, int calls,
		       struct revoke_call *call);
void revoke_leave_busy(struct revoke_gate *gate, struct revoke_call *call);
void revoke_left_dead(struct revoke_gate *gate);

/*
 * Lockdep sees a gate as a read lock of its domain's class, a revoke as
 * the write side; a domain with no class (revoke_domain_init_nolockdep())
 * is not seen.
 */
#ifdef CONFIG_DEBUG_LOCK_ALLOC
#define revoke_gate_lockdep(gate, annotation)				\
do {									\
	if ((gate)->dep_map)						\
		annotation;						\
} while (0)
#else
/* The annotations are empty here; (gate) has no dep_map. */
#define revoke_gate_lockdep(gate, annotation)				\
do {									\
	(void)(gate);							\
	annotation;							\
} while (0)
#endif

/* The call found the file idle: note the task. */
static __always_inline void revoke_gate_enter_idle(struct revoke_gate *gate)
{
	WRITE_ONCE(gate->caller, current);
	revoke_gate_lockdep(gate,
			    rwsem_acquire_read(gate->dep_map, 0, 1, _RET_IP_));
}

static __always_inline void revoke_gate_leave_idle(struct revoke_gate *gate)
{
	revoke_gate_lockdep(gate, rwsem_release(gate->dep_map, _RET_IP_));
	WRITE_ONCE(gate->caller, NULL);
	/* Fully ordered before revoke_left_dead() wakes the revokers. */
	if (unlikely(atomic_add_negative(-1, &gate->active)))
		revoke_left_dead(gate);
}

/* Enter: the idle case inline, the rest out of line. */
static __always_inline bool revoke_gate_enter(struct revoke_gate *gate,
					      struct revoke_call *call)
{
	int calls = atomic_fetch_inc(&gate->active);

	if (likely(!calls)) {
		call->task = NULL;
		revoke_gate_enter_idle(gate);
		return true;
	}
	return revoke_enter_busy(gate, calls, call);
}

static __always_inline void revoke_gate_leave(struct revoke_gate *gate,
					      struct revoke_call *call)
{
	if (likely(!call->task))
		revoke_gate_leave_idle(gate);
	else
		revoke_leave_busy(gate, call);
}

/**
 * revoke_call_enter - enter a file's gate around a call into its driver
 * @file: the file
 * @call: on the caller's stack until revoke_call_leave()
 *
 * For a filesystem whose file_operations have FOP_NARROW_GATE: the proxy
 * calls their ->read_iter, ->write_iter, ->llseek and ->fsync outside the
 * gate, and they enter it around their calls into the driver only, never
 * across a copy to or from user memory, so that a revoke does not wait
 * for a user buffer backed by FUSE or userfaultfd, and after a lock of
 * their own that a method revoking the file may hold (kernfs' of->mutex).
 * Revoke waits for the calls inside, as for the proxy's.  What such a
 * method uses outside the gate must outlive the driver's release: the
 * filesystem's domain has a &revoke_domain.detach.  The VFS enters it the
 * same way around a call that reaches the file without its methods, so
 * that revoke waits for that call and refuses the next one.  A file that
 * is not revokable is always entered.  Inline: a call to an idle file costs what
 * the proxy's gate costs, with no call.
 *
 * Context: Process context.
 * Return: true if in, to be left with revoke_call_leave(); false if @file
 * is revoked, and nothing is to be left.
 */
static __always_inline bool revoke_call_enter(struct file *file,
					      struct revoke_call *call)
{
	if (!(file->f_mode & FMODE_REVOKABLE))
		return true;
	return revoke_gate_enter(file_revoke_gate(file), call);
}

/**
 * revoke_call_leave - leave a file's gate
 * @file: the file
 * @call: given to a successful revoke_call_enter()
 *
 * Context: Process context.
 */
static __always_inline void revoke_call_leave(struct file *file,
					      struct revoke_call *call)
{
	if (file->f_mode & FMODE_REVOKABLE)
		revoke_gate_leave(file_revoke_gate(file), call);
}

#endif /* _LINUX_REVOKE_GATE_H */
