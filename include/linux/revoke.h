/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Revokable files: open files that can be cut off from what they point at.
 *
 * The core, its locking and lifetime rules are in fs/revoke.c and the
 * files fs/revoke_internal.h lists.
 */
#ifndef _LINUX_REVOKE_H
#define _LINUX_REVOKE_H

#include <linux/lockdep.h>
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/poll.h>
#include <linux/revoke_types.h>
#include <linux/spinlock.h>

/**
 * struct revoke_results - what the calls of a revoked file return
 * @error: every call that fails, unless one below is meant
 * @read: read, read_iter and splice_read; 0 is end of file
 * @llseek: llseek
 * @ioctl: unlocked_ioctl and compat_ioctl
 * @mmap: mmap and get_unmapped_area
 * @poll: poll, the mask of a revoked file
 * @ioctl_cmd: if set, what ioctl @cmd returns, instead of @ioctl
 * @release_at_close: the driver's ->release runs at the final fput()
 *	only, never early: revoke closes the gate and waits for the calls in
 *	flight, and the file stays the driver's until it is closed.  Its
 *	mappings stay too: they hold the file, so they are gone before the
 *	release, and a fault in one reaches the driver's vm_ops, which
 *	answer for a revoked file themselves.  For a driver that counts its
 *	open files and whose ->release must run in its own order (a tty's),
 *	or that frees what it mapped only at the release (ALSA's).
 *
 * A filesystem whose files failed in their own way after the removal of
 * their object, before it used the core, gives its domains these, so
 * that user space sees the same.  Flush and close succeed, faults in a
 * mapping raise SIGBUS, whatever the domain.
 */
struct revoke_results {
	int error;
	int read;
	int llseek;
	int ioctl;
	int mmap;
	__poll_t poll;
	long (*ioctl_cmd)(unsigned int cmd);
	bool release_at_close;
};

/**
 * struct revoke_domain - the revokable files that are revoked together
 * @lock: protects @files and the membership of each file in it
 * @users: uses of the domain's object that are not calls on its files,
 *	see revoke_domain_enter(); negative once revoke_domain_remove() ran
 * @files: the files of the domain whose driver is not released yet, in
 *	the order they were opened
 * @seq: the number of the last file put in @files, see __revoke_domain_files()
 * @kick: if set, called for each file revoked with calls in flight, after
 *	new calls are refused and before revoke waits for those calls, to get
 *	them out of the filesystem's own waits; set it before files are
 *	installed.  Process context.
 * @results: what the calls of its revoked files return, or NULL for what
 *	revoke(2)'s files return (see revoke.rst); set it before files are
 *	installed
 * @dep_map: the lock class of its files' gates, see revoke_domain_init()
 *
 * revoke(2) uses a domain per inode, kept by fs/revoke_inode.c.  A
 * filesystem or driver whose files must all go when one of its objects is
 * removed embeds a domain in that object, opens files inside
 * revoke_domain_enter() and revoke_domain_leave(), puts them in the domain
 * from its ->open with revoke_file_install(), and calls
 * revoke_domain_remove() on removal.  Its super_operations->revoke revokes
 * the files of an inode for revoke(2), with revoke_domain_files_killable();
 * a domain that does not live as long as the inode is pinned
 * there by its filesystem.
 */
struct revoke_domain {
	spinlock_t lock;		/* protects @files */
	atomic_t users;
	struct list_head files;
	u64 seq;			/* under @lock */
	void (*kick)(struct file *file);
	const struct revoke_results *results;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct lockdep_map *dep_map;
#endif
};

/**
 * struct revoke_cancellation - how to cut a call in flight short
 * @node: in the file's list while the call may be cancelled
 * @cancel: called by revoke, once, if the file is revoked meanwhile
 * @data: for @cancel
 *
 * See revoke_enter_cancellation().
 */
struct revoke_cancellation {
	struct list_head node;
	void (*cancel)(struct file *file, void *data);
	void *data;
};

/**
 * struct revoke_poll - the pollers of one open file, off the driver's queues
 * @wq: where they wait
 * @hooks: struct revoke_poll_hook on each driver waitqueue the driver
 *	polls with, forwarding its wakeups to @wq
 *
 * A driver's ->release may free the waitqueues its ->poll queued the
 * pollers on; a filesystem that releases a file early (revoke, removal)
 * keeps them on @wq, which lives as long as the file.  See
 * fs/revoke_poll.c.
 */
struct revoke_poll {
	wait_queue_head_t wq;
	struct list_head hooks;
};

void revoke_poll_init(struct revoke_poll *poll);
__poll_t revoke_poll_call(struct revoke_poll *poll, struct file *file,
			  poll_table *pt,
			  __poll_t (*driver_poll)(struct file *, poll_table *));
void revoke_poll_wake_driver(struct revoke_poll *poll);
void revoke_poll_unhook(struct revoke_poll *poll);

void __revoke_domain_init(struct revoke_domain *domain,
			  struct lockdep_map *dep_map);

/**
 * revoke_domain_init - initialise a domain embedded in a filesystem object
 * @domain: the domain
 *
 * For lockdep, the gates of the files of every domain initialised here,
 * at this line, are one lock class: a method of a file of one class that
 * revokes a domain of another, while a method of the other revokes one of
 * the first, is reported.
 */
#ifdef CONFIG_DEBUG_LOCK_ALLOC
#define revoke_domain_init(domain)					\
do {									\
	static struct lock_class_key __key;				\
	static struct lockdep_map __dep_map =				\
		STATIC_LOCKDEP_MAP_INIT(#domain, &__key);		\
									\
	__revoke_domain_init((domain), &__dep_map);			\
} while (0)
#else
#define revoke_domain_init(domain) __revoke_domain_init((domain), NULL)
#endif

/**
 * revoke_domain_removed - has the domain's object been removed?
 * @domain: the domain
 *
 * For what the filesystem does with the object outside its files' calls
 * and revoke_domain_enter(), e.g. telling the dcache to drop its dentry.
 *
 * Return: true once revoke_domain_remove() has been called on @domain.
 */
static inline bool revoke_domain_removed(const struct revoke_domain *domain)
{
	return atomic_read(&domain->users) < 0;
}

int revoke_file_install(struct file *file, struct revoke_domain *domain,
			const struct file_operations *proxy);
int revoke_chrdev_install(struct file *file,
			  const struct file_operations *proxy,
			  const struct revoke_results *results);
void revoke_domain_files(struct revoke_domain *domain);
int revoke_domain_files_killable(struct revoke_domain *domain);
void revoke_domain_shut(struct revoke_domain *domain);
bool revoke_domain_enter(struct revoke_domain *domain);
void revoke_domain_leave(struct revoke_domain *domain);
void revoke_domain_remove(struct revoke_domain *domain);
int revoke_file(struct file *file);
void revoke_file_shut(struct file *file);
void revoke_file_abort(struct file *file);
#ifdef CONFIG_REVOKE
int revoke_inode(struct inode *inode);
#else
static inline int revoke_inode(struct inode *inode)
{
	return 0;
}
#endif
bool __file_revoked(const struct file *file);
const struct file_operations *__file_real_fops(const struct file *file);
void revoke_enter_cancellation(struct file *file, struct revoke_cancellation *c);
void revoke_leave_cancellation(struct file *file, struct revoke_cancellation *c);

/* Called by the VFS only. */
int revoke_file_open(struct file *file);

/**
 * DOC: proxy methods
 *
 * The core's methods, for the const proxy that a driver or filesystem
 * whose files are revokable writes beside its methods and passes to
 * revoke_file_install(): for each of its methods, revoke_fop_ and the
 * method's name; ->release is revoke_fop_release(); copy_splice_read() and
 * iter_file_splice_write() stay as they are; no ->open, ->iopoll,
 * ->uring_cmd_iopoll or ->owner; the same ->fop_flags and ->check_flags.
 * Each enters the file's gate, calls the driver's method and leaves, or
 * returns what a revoked file returns.  revoke_file_install() refuses any
 * other table (revoke_proxy_check() in fs/revoke_fops.c).
 */
struct io_uring_cmd;
loff_t revoke_fop_llseek(struct file *file, loff_t offset, int whence);
ssize_t revoke_fop_read(struct file *file, char __user *buf, size_t len,
			loff_t *pos);
ssize_t revoke_fop_write(struct file *file, const char __user *buf,
			 size_t len, loff_t *pos);
ssize_t revoke_fop_read_iter(struct kiocb *iocb, struct iov_iter *to);
ssize_t revoke_fop_write_iter(struct kiocb *iocb, struct iov_iter *from);
int revoke_fop_iterate_shared(struct file *file, struct dir_context *ctx);
__poll_t revoke_fop_poll(struct file *file, struct poll_table_struct *pt);
long revoke_fop_unlocked_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg);
long revoke_fop_compat_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg);
int revoke_fop_mmap(struct file *file, struct vm_area_struct *vma);
int revoke_fop_flush(struct file *file, fl_owner_t id);
int revoke_fop_release(struct inode *inode, struct file *file);
int revoke_fop_fsync(struct file *file, loff_t start, loff_t end,
		     int datasync);
int revoke_fop_fasync(int fd, struct file *file, int on);
int revoke_fop_lock(struct file *file, int cmd, struct file_lock *fl);
unsigned long revoke_fop_get_unmapped_area(struct file *file,
					   unsigned long addr,
					   unsigned long len,
					   unsigned long pgoff,
					   unsigned long flags);
int revoke_fop_flock(struct file *file, int cmd, struct file_lock *fl);
ssize_t revoke_fop_splice_write(struct pipe_inode_info *pipe,
				struct file *file, loff_t *pos, size_t len,
				unsigned int flags);
ssize_t revoke_fop_splice_read(struct file *file, loff_t *pos,
			       struct pipe_inode_info *pipe, size_t len,
			       unsigned int flags);
void revoke_fop_splice_eof(struct file *file);
int revoke_fop_setlease(struct file *file, int arg, struct file_lease **flp,
			void **priv);
long revoke_fop_fallocate(struct file *file, int mode, loff_t offset,
			  loff_t len);
void revoke_fop_show_fdinfo(struct seq_file *m, struct file *file);
unsigned int revoke_fop_mmap_capabilities(struct file *file);
ssize_t revoke_fop_copy_file_range(struct file *file_in, loff_t pos_in,
				   struct file *file_out, loff_t pos_out,
				   size_t len, unsigned int flags);
loff_t revoke_fop_remap_file_range(struct file *file_in, loff_t pos_in,
				   struct file *file_out, loff_t pos_out,
				   loff_t len, unsigned int remap_flags);
int revoke_fop_fadvise(struct file *file, loff_t offset, loff_t len,
		       int advice);
int revoke_fop_uring_cmd(struct io_uring_cmd *ioucmd,
			 unsigned int issue_flags);

/**
 * file_revoked - has this file been revoked?
 * @file: the file
 *
 * For a driver's wait conditions: a call sleeping in the driver when its
 * file is revoked should return.  For the VFS: calls that reach a file
 * without going through its methods (ftruncate(), fchmod(), new locks,
 * lookups relative to it) fail on a revoked file.  A file that is not
 * revokable costs one test of f_mode.
 *
 * Return: true if @file is revokable and revoked.
 */
static inline bool file_revoked(const struct file *file)
{
	return unlikely(file->f_mode & FMODE_REVOKABLE) && __file_revoked(file);
}

/**
 * file_real_fops - the methods a file was opened with
 * @file: the file
 *
 * For code that recognises a file by its file_operations: a revokable
 * file's f_op is its proxy.  The driver's methods may be gone once the
 * file is revoked: compare, never call.  A file that is not revokable
 * costs one test of f_mode.
 *
 * Return: the driver's file_operations of @file.
 */
static inline const struct file_operations *file_real_fops(const struct file *file)
{
	if (unlikely(file->f_mode & FMODE_REVOKABLE))
		return __file_real_fops(file);
	return file->f_op;
}

#endif /* _LINUX_REVOKE_H */
