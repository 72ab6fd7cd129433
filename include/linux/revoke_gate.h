/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The gate of a revokable file, for the VFS around the calls that reach a
 * file without its methods (ftruncate(), fchmod(), the f*xattr() calls):
 * its common path is inline, as in the core's own proxy methods; and the
 * file gate, which a filesystem keeps in its own per-open state (kernfs).
 * The rest of the interface is <linux/revoke.h>.
 */
#ifndef _LINUX_REVOKE_GATE_H
#define _LINUX_REVOKE_GATE_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/revoke_types.h>
#include <asm/current.h>

/**
 * struct revoke_gate - the gate of a revokable file's calls
 * @active: calls in flight; negative for good once the file is revoked
 * @caller: the task in the file's one call, if it came to an idle file
 * @dep_map: the gate's lock class, its domain's (see revoke_domain_init())
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
};

/* A revokable file's gate. */
static __always_inline struct revoke_gate *
file_revoke_gate(const struct file *file)
{
	return file->f_revoke_gate;
}

/*
 * The slow paths, in fs/revoke.c and fs/revoke_file.c; not exported, as no
 * module enters.
 */
bool revoke_enter_busy(struct revoke_gate *gate, int calls,
		       struct revoke_call *call);
bool revoke_leave_busy(struct revoke_gate *gate, struct revoke_call *call);
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

/*
 * Leave a call that found the file idle; true if the file was revoked
 * meanwhile, and revoke_left_dead() is to be called.
 */
static __always_inline bool __revoke_gate_leave_idle(struct revoke_gate *gate)
{
	revoke_gate_lockdep(gate, rwsem_release(gate->dep_map, _RET_IP_));
	WRITE_ONCE(gate->caller, NULL);
	/* Fully ordered before revoke_left_dead() wakes the revokers. */
	return unlikely(atomic_add_negative(-1, &gate->active));
}

static __always_inline void revoke_gate_leave_idle(struct revoke_gate *gate)
{
	if (__revoke_gate_leave_idle(gate))
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

/* Leave; true if the file was revoked meanwhile. */
static __always_inline bool revoke_gate_leave(struct revoke_gate *gate,
					      struct revoke_call *call)
{
	if (unlikely(call->task))
		return revoke_leave_busy(gate, call);
	if (!__revoke_gate_leave_idle(gate))
		return false;
	revoke_left_dead(gate);
	return true;
}

/**
 * revoke_call_enter - enter a file's gate around a call that reaches it
 * @file: the file
 * @call: on the caller's stack until revoke_call_leave()
 *
 * For the VFS, around a call that reaches the file without its methods
 * (ftruncate(), fchmod(), ...), so that revoke waits for that call and
 * refuses the next one, as for the proxy's calls.  Never across a copy to
 * or from user memory: a revoke must not wait for a user buffer backed by
 * FUSE or userfaultfd.  A file that is not revokable is always entered.
 * Inline: a call to an idle file costs what the proxy's gate costs, with
 * no call.
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

/*
 * A file gate (struct file_gate, in <linux/revoke_types.h>): the gate of an
 * open file that its filesystem keeps in its own per-open state and enters
 * around each call into the driver, taking nothing from the core at open.
 * It only counts: it does not note the callers, so a revoke of such a file
 * waits for its calls in flight, as a removal waits for an active
 * reference, and does not kick them out of their sleeps.
 */
#define FILE_GATE_CLOSED	INT_MIN

static inline void file_gate_init(struct file_gate *gate)
{
	atomic_set(&gate->calls, 0);
}

void file_gate_left_closed(struct file_gate *gate);

/**
 * file_gate_leave - leave a file gate
 * @gate: the gate, entered by file_gate_enter()
 *
 * Context: Any context the matching file_gate_enter() was in.
 */
static __always_inline void file_gate_leave(struct file_gate *gate)
{
	/* Fully ordered: the closer sees what the call did. */
	if (unlikely(atomic_dec_return(&gate->calls) == FILE_GATE_CLOSED))
		file_gate_left_closed(gate);
}

/**
 * file_gate_enter - enter a file gate around a call into the driver
 * @gate: the gate
 *
 * Context: Any context; the call must not sleep if the caller cannot.
 * Return: true if in, to be left with file_gate_leave(); false if the
 * gate is closed, and nothing is to be left.
 */
static __always_inline bool file_gate_enter(struct file_gate *gate)
{
	/* A refused call writes nothing: it cannot hold the closer up. */
	return atomic_inc_unless_negative(&gate->calls);
}

/**
 * file_gate_closed - has a file gate been closed?
 * @gate: the gate
 *
 * Return: true once file_gate_close() has closed @gate.
 */
static inline bool file_gate_closed(const struct file_gate *gate)
{
	return atomic_read(&gate->calls) < 0;
}

bool file_gate_close(struct file_gate *gate);
int file_gate_wait(struct file_gate *gate);

#endif /* _LINUX_REVOKE_GATE_H */
