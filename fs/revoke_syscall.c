// SPDX-License-Identifier: GPL-2.0
/*
 * Revokable files: revokeat(2).
 *
 * The syscall: the checks on who may revoke what, then revoke_inode() for
 * a path, revoke_file() for a descriptor.  What revoking does is
 * fs/revoke_file.c's and fs/revoke_domain.c's.
 *
 * Copyright (C) 2026 The revokable files authors
 */

#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/revoke.h>
#include <linux/security.h>
#include <linux/syscalls.h>
#include <linux/tty.h>
#include <linux/uaccess.h>

/*
 * revokeat(dfd, path, flags): revoke every revokable open file of the
 * inode at @path, as BSD's revoke(2) does for those files, or with
 * REVOKE_FILE only the open file description @dfd refers to.  Path revoke
 * is for the inode's owner or CAP_FOWNER.  Holding a file opened with
 * O_REVOKABLE is enough to revoke it, as its opener agreed to; a file its
 * filesystem or driver made revokable (a sysfs attribute, the test
 * device) may be shared with an opener who agreed to nothing, and is for
 * the owner or CAP_FOWNER too.
 *
 * A terminal is revoked by terminal, not by node: revoke(2) of any node of
 * it hangs it up, with every file open on it (tty_revoke()).  The owner of
 * a terminal's node may do that, as on BSD, where login and getty revoke
 * the line for the next session; vhangup() of one's own controlling
 * terminal wants CAP_SYS_TTY_CONFIG because it needs no ownership at all.
 */
static int revoke_fd(int fd, const char __user *pathname)
{
	struct file *file;
	char c;
	int err;

	/* The path, if any, must be empty. */
	if (pathname) {
		if (get_user(c, pathname))
			return -EFAULT;
		if (c)
			return -EINVAL;
	}

	CLASS(fd, f)(fd);
	if (fd_empty(f))
		return -EBADF;
	file = fd_file(f);
	if (!(file->f_mode & FMODE_REVOKABLE) &&
	    !(file->f_op->fop_flags & FOP_REVOKE_BY_OPEN))
		return -EINVAL;
	if (!(file->f_flags & O_REVOKABLE) &&
	    !inode_owner_or_capable(file_mnt_idmap(file), file_inode(file)))
		return -EPERM;
	err = security_file_revoke(&file->f_path, file);
	if (err)
		return err;
	/* The one file revoked. */
	return revoke_file(file) ?: 1;
}

/*
 * The path of @dfd itself, for AT_EMPTY_PATH: a file opened with
 * O_REVOKABLE is no start for a lookup (see path_init()), and a revoked
 * file fails as a lookup from it would.
 */
static int revoke_empty_path(int dfd, struct path *path)
{
	CLASS(fd_raw, f)(dfd);

	if (fd_empty(f))
		return -EBADF;
	if (file_revoked(fd_file(f)))
		return -EIO;
	*path = fd_file(f)->f_path;
	path_get(path);
	return 0;
}

SYSCALL_DEFINE3(revokeat, int, dfd, const char __user *, pathname,
		unsigned int, flags)
{
	unsigned int lookup_flags = LOOKUP_FOLLOW;
	struct inode *inode;
	struct path path;
	int err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | REVOKE_FILE))
		return -EINVAL;
	if (flags & REVOKE_FILE) {
		if (flags & AT_SYMLINK_NOFOLLOW)
			return -EINVAL;
		return revoke_fd(dfd, pathname);
	}

	if ((flags & AT_EMPTY_PATH) && vfs_empty_path(dfd, pathname)) {
		err = revoke_empty_path(dfd, &path);
	} else {
		if (flags & AT_SYMLINK_NOFOLLOW)
			lookup_flags &= ~LOOKUP_FOLLOW;
		if (flags & AT_EMPTY_PATH)
			lookup_flags |= LOOKUP_EMPTY;
		err = user_path_at(dfd, pathname, lookup_flags, &path);
	}
	if (err)
		return err;
	inode = d_inode(path.dentry);
	err = -EPERM;
	if (!inode_owner_or_capable(mnt_idmap(path.mnt), inode))
		goto out;
	err = security_file_revoke(&path, NULL);
	if (err)
		goto out;
	/* A node on a nodev mount, which a user namespace may make, is no tty's. */
	err = S_ISCHR(inode->i_mode) && may_open_dev(&path) ?
	      tty_revoke(path.dentry) : -ENOTTY;
	if (err == -ENOTTY)
		err = revoke_inode(inode);
out:
	path_put(&path);
	return err;
}
