// SPDX-License-Identifier: GPL-2.0
/*
 * Revokable files: the file_operations proxy.
 *
 * A revokable file's f_op is its proxy: a const table its driver defines
 * beside its methods, with the core's method here for each of them, which
 * enters the file's gate, calls the driver's method and leaves.  Most
 * methods have that one shape and are made by REVOKE_PROXY()
 * (revoke_internal.h) from a list here; the takedowns have a macro of
 * their own, and the methods that take two files are written out.
 * revoke_proxy_check() tells whether a table is the proxy of a driver's
 * methods.  The gate is in revoke_internal.h, fs/revoke.c and
 * fs/revoke_file.c, poll forwarding in fs/revoke_poll.c, the switch of
 * mappings in fs/revoke_mmap.c.
 *
 * Copyright (C) 2026 The revokable files authors
 */

#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <linux/filelock.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/io_uring/cmd.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/seq_file.h>
#include <linux/seqlock.h>

#include <asm/sections.h>

#include "revoke_internal.h"

/* REVOKE_PROXY(), for a method that returns nothing. */
#define REVOKE_PROXY_VOID(name, rf_of, method, proto, args)		\
static noinline void revoke_fop_##name##_busy(struct revokable_file *rf, \
					      int calls, proto)		\
{									\
	struct revoke_call call;					\
									\
	if (!revoke_enter_busy(&rf->gate, calls, &call))		\
		return;							\
	method(args);							\
	revoke_leave_busy(&rf->gate, &call);				\
}									\
									\
void revoke_fop_##name(proto)						\
{									\
	struct revokable_file *rf = rf_of;				\
	int calls = atomic_fetch_inc(&rf->gate.active);			\
									\
	if (unlikely(calls)) {						\
		revoke_fop_##name##_busy(rf, calls, args);		\
		return;							\
	}								\
	revoke_gate_enter_idle(&rf->gate);				\
	method(args);							\
	revoke_gate_leave_idle(&rf->gate);				\
}									\
EXPORT_SYMBOL_GPL(revoke_fop_##name)

REVOKE_PROXY(loff_t, llseek, file_revokable(file), rf->results->llseek,
	     rf->real->llseek,
	     PROTO(struct file *file, loff_t offset, int whence),
	     ARGS(file, offset, whence));

REVOKE_PROXY(ssize_t, read, file_revokable(file), rf->results->read,
	     rf->real->read,
	     PROTO(struct file *file, char __user *buf, size_t len,
		   loff_t *pos),
	     ARGS(file, buf, len, pos));

REVOKE_PROXY(ssize_t, write, file_revokable(file), rf->results->error,
	     rf->real->write,
	     PROTO(struct file *file, const char __user *buf, size_t len,
		   loff_t *pos),
	     ARGS(file, buf, len, pos));

REVOKE_PROXY(ssize_t, read_iter, file_revokable(iocb->ki_filp),
	     rf->results->read, rf->real->read_iter,
	     PROTO(struct kiocb *iocb, struct iov_iter *to),
	     ARGS(iocb, to));

REVOKE_PROXY(ssize_t, write_iter, file_revokable(iocb->ki_filp),
	     rf->results->error,
	     rf->real->write_iter,
	     PROTO(struct kiocb *iocb, struct iov_iter *from),
	     ARGS(iocb, from));

REVOKE_PROXY(int, iterate_shared, file_revokable(file), rf->results->error,
	     rf->real->iterate_shared,
	     PROTO(struct file *file, struct dir_context *ctx),
	     ARGS(file, ctx));

/*
 * poll: only a caller that queues itself (pt->_qproc) is redirected onto
 * the file's own waitqueue, out of line (see fs/revoke_poll.c); the
 * others, like a poll() with no timeout, call the driver with their own
 * table.
 */
static __always_inline __poll_t revoke_poll_driver(struct file *file,
						   struct poll_table_struct *pt)
{
	struct revokable_file *rf = file_revokable(file);

	if (pt && pt->_qproc)
		return revoke_poll_call(&rf->poll, file, pt, rf->real->poll);
	return rf->real->poll(file, pt);
}

REVOKE_PROXY(__poll_t, poll, file_revokable(file), rf->results->poll,
	     revoke_poll_driver,
	     PROTO(struct file *file, struct poll_table_struct *pt),
	     ARGS(file, pt));

/*
 * What a revoked file's ioctl @cmd returns; an idle call kicked out of the
 * driver, whose command the twin leaving the file does not get, returns
 * results->ioctl.
 */
static long revoke_ioctl_result(const struct revoke_results *results,
				unsigned int cmd)
{
	return results->ioctl_cmd ? results->ioctl_cmd(cmd) : results->ioctl;
}

REVOKE_PROXY_KICKED(long, unlocked_ioctl, file_revokable(file),
		    revoke_ioctl_result(rf->results, cmd), rf->results->ioctl,
		    rf->real->unlocked_ioctl,
		    PROTO(struct file *file, unsigned int cmd, unsigned long arg),
		    ARGS(file, cmd, arg));

REVOKE_PROXY_KICKED(long, compat_ioctl, file_revokable(file),
		    revoke_ioctl_result(rf->results, cmd), rf->results->ioctl,
		    rf->real->compat_ioctl,
		    PROTO(struct file *file, unsigned int cmd, unsigned long arg),
		    ARGS(file, cmd, arg));

REVOKE_PROXY(int, flush, file_revokable(file), 0, rf->real->flush,
	     PROTO(struct file *file, fl_owner_t id),
	     ARGS(file, id));

REVOKE_PROXY(int, fsync, file_revokable(file), rf->results->error,
	     rf->real->fsync,
	     PROTO(struct file *file, loff_t start, loff_t end, int datasync),
	     ARGS(file, start, end, datasync));

/*
 * Takedowns.  The driver's lock, flock, setlease and fasync methods also
 * take down what the file set up: unlocks, lease removal and fasync off,
 * made by each close() (locks_remove_posix()), by __fput() before
 * ->release and by the revoker's teardown.  They reach the driver through
 * a closed gate too, as long as it is not released, or a lock record kept
 * by the driver would outlive the file.  A takedown counts itself in
 * @active, then checks REVOKE_RELEASED; whoever claims REVOKE_RELEASED
 * waits for the takedowns that came before (revoke_finish()), so no call
 * reaches the driver under its ->release.  They are not noted as callers:
 * they do not sleep waiting for anything revoke could end.  The revoker's
 * own teardown calls go straight through.
 */
enum revoke_entry {
	REVOKE_REFUSED,		/* not in: the file is revoked */
	REVOKE_ENTERED,		/* in through the gate */
	REVOKE_TAKEDOWN,	/* a takedown of a revoked file */
	REVOKE_TEARDOWN,	/* the revoker's own teardown */
};

static enum revoke_entry revoke_enter_takedown(struct revokable_file *rf,
					       struct revoke_call *call,
					       bool takedown)
{
	if (revoke_enter(rf, call))
		return REVOKE_ENTERED;
	if (READ_ONCE(rf->teardown) == current)
		return REVOKE_TEARDOWN;
	if (!takedown)
		return REVOKE_REFUSED;
	atomic_inc(&rf->gate.active);
	/* Pairs with test_and_set_bit(REVOKE_RELEASED) in revoke_claim(). */
	smp_mb__after_atomic();
	if (!test_bit(REVOKE_RELEASED, &rf->flags))
		return REVOKE_TAKEDOWN;
	revoke_refused(rf);
	return REVOKE_REFUSED;
}

/* Leave; true if the file was revoked while the call was in. */
static bool revoke_leave_takedown(struct revokable_file *rf,
				  struct revoke_call *call,
				  enum revoke_entry entry)
{
	if (entry == REVOKE_ENTERED)
		return revoke_leave(rf, call);
	if (entry == REVOKE_TAKEDOWN)
		revoke_refused(rf);
	return false;
}

/*
 * A takedown method: enter, call the driver, leave, as REVOKE_PROXY()
 * does, but through revoke_enter_takedown(), which lets the call through
 * a closed gate when @takedown is true; @refused is what a refused call
 * returns.  Not a hot path: no inline fast case.  The method's file is
 * its argument @file.
 */
#define REVOKE_PROXY_TAKEDOWN(name, takedown, refused, method, proto, args) \
int revoke_fop_##name(proto)						\
{									\
	struct revokable_file *rf = file_revokable(file);		\
	struct revoke_call call __uninitialized;			\
	enum revoke_entry entry;					\
	int ret;							\
									\
	entry = revoke_enter_takedown(rf, &call, takedown);		\
	if (entry == REVOKE_REFUSED)					\
		return refused;						\
	ret = method(args);						\
	if (revoke_leave_takedown(rf, &call, entry))			\
		return revoke_result(ret, refused);			\
	return ret;							\
}									\
EXPORT_SYMBOL_GPL(revoke_fop_##name)

/*
 * The driver's fasync_helper() sets and clears FASYNC, not F_SETFL
 * (SETFL_MASK leaves it out): once the driver is released, FASYNC is off.
 */
REVOKE_PROXY_TAKEDOWN(fasync, !on, on ? rf->results->error : 0,
		      rf->real->fasync,
		      PROTO(int fd, struct file *file, int on),
		      ARGS(fd, file, on));

REVOKE_PROXY_TAKEDOWN(lock, lock_is_unlock(fl), rf->results->error,
		      rf->real->lock,
		      PROTO(struct file *file, int cmd, struct file_lock *fl),
		      ARGS(file, cmd, fl));

REVOKE_PROXY_TAKEDOWN(flock, lock_is_unlock(fl), rf->results->error,
		      rf->real->flock,
		      PROTO(struct file *file, int cmd, struct file_lock *fl),
		      ARGS(file, cmd, fl));

REVOKE_PROXY_TAKEDOWN(setlease, arg == F_UNLCK, rf->results->error,
		      rf->real->setlease,
		      PROTO(struct file *file, int arg,
			    struct file_lease **flp, void **priv),
		      ARGS(file, arg, flp, priv));

REVOKE_PROXY(unsigned long, get_unmapped_area, file_revokable(file),
	     rf->results->mmap,
	     rf->real->get_unmapped_area,
	     PROTO(struct file *file, unsigned long addr, unsigned long len,
		   unsigned long pgoff, unsigned long flags),
	     ARGS(file, addr, len, pgoff, flags));

REVOKE_PROXY(ssize_t, splice_write, file_revokable(file), rf->results->error,
	     rf->real->splice_write,
	     PROTO(struct pipe_inode_info *pipe, struct file *file, loff_t *pos,
		   size_t len, unsigned int flags),
	     ARGS(pipe, file, pos, len, flags));

REVOKE_PROXY(ssize_t, splice_read, file_revokable(file), rf->results->read,
	     rf->real->splice_read,
	     PROTO(struct file *file, loff_t *pos, struct pipe_inode_info *pipe,
		   size_t len, unsigned int flags),
	     ARGS(file, pos, pipe, len, flags));

REVOKE_PROXY_VOID(splice_eof, file_revokable(file), rf->real->splice_eof,
		  PROTO(struct file *file),
		  ARGS(file));

REVOKE_PROXY(long, fallocate, file_revokable(file), rf->results->error,
	     rf->real->fallocate,
	     PROTO(struct file *file, int mode, loff_t offset, loff_t len),
	     ARGS(file, mode, offset, len));

REVOKE_PROXY_VOID(show_fdinfo, file_revokable(file), rf->real->show_fdinfo,
		  PROTO(struct seq_file *m, struct file *file),
		  ARGS(m, file));

#ifndef CONFIG_MMU
REVOKE_PROXY(unsigned int, mmap_capabilities, file_revokable(file), 0,
	     rf->real->mmap_capabilities,
	     PROTO(struct file *file),
	     ARGS(file));
#endif

/**
 * revoke_fop_mmap - the proxy's ->mmap
 * @file: the revokable file
 * @vma: the mapping being made
 *
 * Calls the driver's ->mmap through the gate.  The mappings of a file
 * released at its last close only stay the driver's, see revoke_results;
 * the others are kept only if revoke can switch them off later, see
 * fs/revoke_mmap.c (never without an MMU).
 *
 * Return: the driver's result; -ENODEV if the mapping cannot be switched
 * off, or if @file is revoked (unless its domain says otherwise).
 */
int revoke_fop_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct revokable_file *rf = file_revokable(file);
	struct revoke_call call __uninitialized;
	int ret;

	if (!revoke_enter(rf, &call))
		return rf->results->mmap;
	if (rf->results->release_at_close)
		ret = rf->real->mmap(file, vma);
	else
		ret = revoke_mmap_switchable(rf, vma);
	if (revoke_leave(rf, &call))
		return revoke_result(ret, rf->results->mmap);
	return ret;
}
EXPORT_SYMBOL_GPL(revoke_fop_mmap);

/*
 * The methods that take two files (copy, clone, dedupe) enter both gates,
 * in the order of their arguments; a NULL state is a file that is not
 * revokable.  0, or what the revoked one of the two returns, having
 * entered neither.
 */
static int revoke_enter_both(struct revokable_file *in,
			     struct revoke_call *call_in,
			     struct revokable_file *out,
			     struct revoke_call *call_out)
{
	if (in && !revoke_enter(in, call_in))
		return in->results->error;
	if (!out || revoke_enter(out, call_out))
		return 0;
	if (in)
		revoke_leave(in, call_in);
	return out->results->error;
}

/* Leave; what a revoked file returns if one was revoked meanwhile, or 0. */
static int revoke_leave_both(struct revokable_file *in,
			     struct revoke_call *call_in,
			     struct revokable_file *out,
			     struct revoke_call *call_out)
{
	int refused = 0;

	if (out && revoke_leave(out, call_out))
		refused = out->results->error;
	if (in && revoke_leave(in, call_in))
		refused = in->results->error;
	return refused;
}

/**
 * revoke_fop_copy_file_range - the proxy's ->copy_file_range
 * @file_in: the file copied from
 * @pos_in: where in @file_in
 * @file_out: the file copied to
 * @pos_out: where in @file_out
 * @len: how many bytes
 * @flags: the copy's flags
 *
 * The VFS calls copy_file_range only when both files have the same method.
 * Every proxy has the same one, so compare the drivers' methods here, once
 * both gates are held (a revoked driver may be gone).
 *
 * Return: the driver's result; -EXDEV if the drivers' methods differ;
 * what a revoked file returns if either is revoked.
 */
ssize_t revoke_fop_copy_file_range(struct file *file_in, loff_t pos_in,
				   struct file *file_out, loff_t pos_out,
				   size_t len, unsigned int flags)
{
	struct revokable_file *in = file_revokable(file_in);
	struct revokable_file *out = file_revokable(file_out);
	struct revoke_call call_in __uninitialized, call_out __uninitialized;
	ssize_t ret;
	int refused;

	ret = revoke_enter_both(in, &call_in, out, &call_out);
	if (ret)
		return ret;
	ret = -EXDEV;
	if (in->real->copy_file_range == out->real->copy_file_range)
		ret = out->real->copy_file_range(file_in, pos_in, file_out,
						 pos_out, len, flags);
	refused = revoke_leave_both(in, &call_in, out, &call_out);
	return refused ? revoke_result(ret, refused) : ret;
}
EXPORT_SYMBOL_GPL(revoke_fop_copy_file_range);

/**
 * revoke_fop_remap_file_range - the proxy's ->remap_file_range
 * @file_in: the source file
 * @pos_in: where in @file_in
 * @file_out: the destination file
 * @pos_out: where in @file_out
 * @len: how many bytes
 * @remap_flags: REMAP_FILE_*
 *
 * Called through either file; the other may be an ordinary one.
 *
 * Return: the driver's result; -EXDEV if both are revokable with different
 * methods; what a revoked file returns if either is revoked.
 */
loff_t revoke_fop_remap_file_range(struct file *file_in, loff_t pos_in,
				   struct file *file_out, loff_t pos_out,
				   loff_t len, unsigned int remap_flags)
{
	struct revokable_file *in = file_revokable_or_null(file_in);
	struct revokable_file *out = file_revokable_or_null(file_out);
	struct revoke_call call_in __uninitialized, call_out __uninitialized;
	const struct file_operations *real;
	loff_t ret;
	int refused;

	ret = revoke_enter_both(in, &call_in, out, &call_out);
	if (ret)
		return ret;
	real = (in ?: out)->real;
	ret = -EXDEV;
	if (!in || !out ||
	    in->real->remap_file_range == out->real->remap_file_range)
		ret = real->remap_file_range(file_in, pos_in, file_out, pos_out,
					     len, remap_flags);
	refused = revoke_leave_both(in, &call_in, out, &call_out);
	return refused ? revoke_result(ret, refused) : ret;
}
EXPORT_SYMBOL_GPL(revoke_fop_remap_file_range);

REVOKE_PROXY(int, fadvise, file_revokable(file), rf->results->error,
	     rf->real->fadvise,
	     PROTO(struct file *file, loff_t offset, loff_t len, int advice),
	     ARGS(file, offset, len, advice));

REVOKE_PROXY(int, uring_cmd, file_revokable(ioucmd->file), rf->results->error,
	     rf->real->uring_cmd,
	     PROTO(struct io_uring_cmd *ioucmd, unsigned int issue_flags),
	     ARGS(ioucmd, issue_flags));

/*
 * The generic splice methods only call the file's ->read_iter or
 * ->write_iter, which the proxy gates: they are left ungated, so that a
 * splice enters the gate once, and a splice to the file waits for the
 * pipe's writer outside it, where a revoke need not wait for it.
 */
static typeof_member(struct file_operations, splice_read)
revoke_splice_read_method(const struct file_operations *real)
{
	if (real->splice_read == copy_splice_read)
		return copy_splice_read;
	return real->splice_read ? revoke_fop_splice_read : NULL;
}

static typeof_member(struct file_operations, splice_write)
revoke_splice_write_method(const struct file_operations *real)
{
	if (real->splice_write == iter_file_splice_write)
		return iter_file_splice_write;
	return real->splice_write ? revoke_fop_splice_write : NULL;
}

/*
 * The proxy of @real: a method of the core's for each method @real has,
 * and only those, so that the VFS decides as it would for @real
 * (FMODE_CAN_READ, FMODE_LSEEK, splice, ...).  ->open has run already.
 * ->check_flags takes no file and only validates flags; it is @real's (only
 * NFS has one, and the file's mount pins its module).  ->owner is NULL:
 * the state holds @real's module, which the proxy is in, until the final
 * fput(), when f_op no longer points at the proxy.
 *
 * ->iopoll and ->uring_cmd_iopoll are left out, so io_uring refuses polled
 * I/O on a revokable file (-EOPNOTSUPP at submission).  A polled request
 * completes only when something polls the driver for it, and nothing may
 * call the driver once it is released: revoke could neither release a
 * file with polled I/O queued nor let the ring reap it afterwards (a ring
 * exiting then spins in io_iopoll_try_reap_events() for ever).
 */
static void revoke_proxy_fill(struct file_operations *proxy,
			      const struct file_operations *real)
{
	/* Padding too: revoke_proxy_check() compares the bytes. */
	memset(proxy, 0, sizeof(*proxy));
	proxy->fop_flags = real->fop_flags;
	proxy->release = revoke_fop_release;
	proxy->check_flags = real->check_flags;
	proxy->llseek = real->llseek ? revoke_fop_llseek : NULL;
	proxy->read = real->read ? revoke_fop_read : NULL;
	proxy->write = real->write ? revoke_fop_write : NULL;
	proxy->read_iter = real->read_iter ? revoke_fop_read_iter : NULL;
	proxy->write_iter = real->write_iter ? revoke_fop_write_iter : NULL;
	proxy->iterate_shared = real->iterate_shared ? revoke_fop_iterate_shared : NULL;
	proxy->poll = real->poll ? revoke_fop_poll : NULL;
	proxy->unlocked_ioctl = real->unlocked_ioctl ? revoke_fop_unlocked_ioctl : NULL;
	proxy->compat_ioctl = real->compat_ioctl ? revoke_fop_compat_ioctl : NULL;
	proxy->mmap = real->mmap ? revoke_fop_mmap : NULL;
	proxy->flush = real->flush ? revoke_fop_flush : NULL;
	proxy->fsync = real->fsync ? revoke_fop_fsync : NULL;
	proxy->fasync = real->fasync ? revoke_fop_fasync : NULL;
	proxy->lock = real->lock ? revoke_fop_lock : NULL;
	proxy->get_unmapped_area = real->get_unmapped_area ? revoke_fop_get_unmapped_area : NULL;
	proxy->flock = real->flock ? revoke_fop_flock : NULL;
	proxy->splice_write = revoke_splice_write_method(real);
	proxy->splice_read = revoke_splice_read_method(real);
	proxy->splice_eof = real->splice_eof ? revoke_fop_splice_eof : NULL;
	proxy->setlease = real->setlease ? revoke_fop_setlease : NULL;
	proxy->fallocate = real->fallocate ? revoke_fop_fallocate : NULL;
	proxy->show_fdinfo = real->show_fdinfo ? revoke_fop_show_fdinfo : NULL;
#ifndef CONFIG_MMU
	proxy->mmap_capabilities = real->mmap_capabilities ? revoke_fop_mmap_capabilities : NULL;
#endif
	proxy->copy_file_range = real->copy_file_range ? revoke_fop_copy_file_range : NULL;
	proxy->remap_file_range = real->remap_file_range ? revoke_fop_remap_file_range : NULL;
	proxy->fadvise = real->fadvise ? revoke_fop_fadvise : NULL;
	proxy->uring_cmd = real->uring_cmd ? revoke_fop_uring_cmd : NULL;
}

/*
 * The pairs of tables revoke_proxy_check() found right, so that it compares
 * each pair once and not at every open.  Only tables that cannot change
 * are remembered: those in the kernel's read-only data (__ro_after_init
 * ones once the kernel runs) and in a live module's, forgotten when any
 * module goes, for another module's may come to their addresses.  A table
 * on the heap or in writable data may change, or be freed and another put
 * at its address: it is compared at every open.
 *
 * A driver's table has two slots it may be in, so that two tables hashing
 * alike both stay; a pair finding both taken is compared at every open
 * rather than evict one under the lock.  The seqlock keeps a reader from
 * taking one pair's proxy with another's table; @revoke_proxy_gen, bumped
 * as the pairs are forgotten, keeps a pair checked before from being
 * remembered after.
 */
struct revoke_proxy_pair {
	const struct file_operations *proxy;
	const struct file_operations *real;
};

#define REVOKE_PROXY_PAIRS	32
static struct revoke_proxy_pair revoke_proxy_pairs[REVOKE_PROXY_PAIRS];
static unsigned long revoke_proxy_gen;
static DEFINE_SEQLOCK(revoke_proxy_pairs_lock);

static struct revoke_proxy_pair *
revoke_proxy_slot(const struct file_operations *real, int way)
{
	unsigned int i = hash_ptr(real, ilog2(REVOKE_PROXY_PAIRS));

	return &revoke_proxy_pairs[(i + way) % REVOKE_PROXY_PAIRS];
}

static bool revoke_proxy_is(const struct revoke_proxy_pair *pair,
			    const struct file_operations *proxy,
			    const struct file_operations *real)
{
	return pair->proxy == proxy && pair->real == real;
}

/*
 * Whether @proxy is remembered as the proxy of @real; if not, in @gen, the
 * pairs' generation, read before anything the caller reads afterwards.
 */
VISIBLE_IF_KUNIT bool revoke_proxy_known(const struct file_operations *proxy,
					 const struct file_operations *real,
					 unsigned long *gen)
{
	unsigned int seq;
	bool known;

	do {
		seq = read_seqbegin(&revoke_proxy_pairs_lock);
		known = revoke_proxy_is(revoke_proxy_slot(real, 0), proxy, real) ||
			revoke_proxy_is(revoke_proxy_slot(real, 1), proxy, real);
		*gen = revoke_proxy_gen;
	} while (read_seqretry(&revoke_proxy_pairs_lock, seq));
	return known;
}

/* Remember a pair found right, unless the pairs were forgotten since @gen. */
static void revoke_proxy_remember(const struct file_operations *proxy,
				  const struct file_operations *real,
				  unsigned long gen)
{
	struct revoke_proxy_pair *pair = revoke_proxy_slot(real, 0);

	if (READ_ONCE(pair->real))
		pair = revoke_proxy_slot(real, 1);
	if (READ_ONCE(pair->real))
		return;
	write_seqlock(&revoke_proxy_pairs_lock);
	if (!pair->real && gen == revoke_proxy_gen) {
		pair->proxy = proxy;
		pair->real = real;
	}
	write_sequnlock(&revoke_proxy_pairs_lock);
}

VISIBLE_IF_KUNIT void revoke_proxy_forget_all(void)
{
	write_seqlock(&revoke_proxy_pairs_lock);
	memset(revoke_proxy_pairs, 0, sizeof(revoke_proxy_pairs));
	revoke_proxy_gen++;
	write_sequnlock(&revoke_proxy_pairs_lock);
}

#ifdef CONFIG_MODULES
/* Whether @addr is in a live module's read-only data. */
static bool revoke_proxy_in_module_rodata(unsigned long addr)
{
	struct module *mod;
	bool ro;

	preempt_disable();
	mod = __module_address(addr);
	ro = mod && mod->state == MODULE_STATE_LIVE &&
	     (within_module_mem_type(addr, mod, MOD_RODATA) ||
	      within_module_mem_type(addr, mod, MOD_RO_AFTER_INIT));
	preempt_enable();
	return ro;
}

/* A module's tables go: another module's may come to their addresses. */
static int revoke_proxy_module_notify(struct notifier_block *nb,
				      unsigned long action, void *data)
{
	if (action == MODULE_STATE_GOING)
		revoke_proxy_forget_all();
	return NOTIFY_OK;
}

static struct notifier_block revoke_proxy_module_nb = {
	.notifier_call = revoke_proxy_module_notify,
};

static int __init revoke_proxy_init(void)
{
	return register_module_notifier(&revoke_proxy_module_nb);
}
core_initcall(revoke_proxy_init);
#else
static bool revoke_proxy_in_module_rodata(unsigned long addr)
{
	return false;
}
#endif

/* Whether @fops stays as it is, where it is, until its module goes. */
VISIBLE_IF_KUNIT bool revoke_proxy_lasting(const struct file_operations *fops)
{
	unsigned long addr = (unsigned long)fops;

	KUNIT_STATIC_STUB_REDIRECT(revoke_proxy_lasting, fops);
	if (is_kernel_rodata(addr))
		return !is_kernel_ro_after_init(addr) ||
		       system_state >= SYSTEM_RUNNING;
	return revoke_proxy_in_module_rodata(addr);
}

/*
 * Compare @proxy with what it must be for @real, once per pair: out of
 * line, for the table it fills on the stack, which the kernel may zero
 * first (CONFIG_INIT_STACK_ALL_ZERO), is not for the opens that find the
 * pair remembered.
 */
static noinline bool revoke_proxy_matches(const struct file_operations *proxy,
					  const struct file_operations *real)
{
	struct file_operations want;

	revoke_proxy_fill(&want, real);
	return !memcmp(&want, proxy, sizeof(want));
}

/**
 * revoke_proxy_check - is this the proxy of these methods?
 * @proxy: a const proxy, defined beside @real
 * @real: the methods of a driver or filesystem that opted in
 *
 * A proxy is written out by hand, as a const table beside the methods it
 * stands for: for each method of @real, the core's method of that name
 * (revoke_fop_read_iter() for ->read_iter, ...), except that the generic
 * copy_splice_read() and iter_file_splice_write() stay as they are; NULL
 * where @real has none, and for ->iopoll and ->uring_cmd_iopoll; @real's
 * ->fop_flags and ->check_flags; ->release is revoke_fop_release(), and
 * ->owner is NULL.  revoke_file_install() refuses any other table, so a
 * method added to @real and not to @proxy fails every revokable open of
 * it, at once.  A pair found right is remembered, and not compared again.
 *
 * Return: true if @proxy is exactly that.
 */
bool revoke_proxy_check(const struct file_operations *proxy,
			const struct file_operations *real)
{
	unsigned long gen;

	if (revoke_proxy_known(proxy, real, &gen))
		return true;
	if (!revoke_proxy_matches(proxy, real))
		return false;
	if (revoke_proxy_lasting(proxy) && revoke_proxy_lasting(real))
		revoke_proxy_remember(proxy, real, gen);
	return true;
}
