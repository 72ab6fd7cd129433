// SPDX-License-Identifier: GPL-2.0
/*
 * revokeat() and O_REVOKABLE from user space: every row of the semantics
 * table except poll and mmap (revoke_mmap_test.c), on a tmpfs file and the
 * test device, the files that did not opt in refusing O_REVOKABLE, and the
 * syscall's errors.  Ttys, FIFOs and the other files the kernel uses
 * outside their methods: revoke_fops_test.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "revoke.h"
#include "waiter.h"

/* A file on the tmpfs mounted at /tmp, removed after the test. */
FIXTURE(tmpfile) {
	char path[64];
	int fd;		/* revokable */
	int plain;	/* not revokable */
};

FIXTURE_SETUP(tmpfile)
{
	snprintf(self->path, sizeof(self->path), "/tmp/revoke_test.XXXXXX");
	self->plain = mkstemp(self->path);
	ASSERT_GE(self->plain, 0);
	ASSERT_EQ(write(self->plain, "abcdef", 6), 6);
	self->fd = open(self->path, O_RDWR | O_REVOKABLE);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(tmpfile)
{
	close(self->fd);
	close(self->plain);
	unlink(self->path);
}

TEST_F(tmpfile, getfl_reports_o_revokable)
{
	int flags = fcntl(self->fd, F_GETFL);

	ASSERT_GE(flags, 0);
	EXPECT_TRUE(flags & O_REVOKABLE);
	EXPECT_FALSE(fcntl(self->plain, F_GETFL) & O_REVOKABLE);
	/* F_SETFL cannot take it away */
	ASSERT_EQ(fcntl(self->fd, F_SETFL, flags & ~O_REVOKABLE), 0);
	EXPECT_TRUE(fcntl(self->fd, F_GETFL) & O_REVOKABLE);
}

TEST_F(tmpfile, works_until_revoked)
{
	char buf[8] = "";
	int fd;

	ASSERT_EQ(pread(self->fd, buf, 3, 0), 3);
	EXPECT_EQ(memcmp(buf, "abc", 3), 0);
	ASSERT_EQ(pwrite(self->fd, "X", 1, 0), 1);
	ASSERT_EQ(lseek(self->fd, 2, SEEK_SET), 2);
	ASSERT_EQ(fsync(self->fd), 0);

	ASSERT_EQ(revoke_path(self->path), 0);

	/* a revoked regular file: -EIO for everything but close */
	EXPECT_EQ(read(self->fd, buf, 1), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(pread(self->fd, buf, 1, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(write(self->fd, "x", 1), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(lseek(self->fd, 0, SEEK_SET), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(fsync(self->fd), -1);
	EXPECT_EQ(errno, EIO);
	/* the file that was not revokable works, and sees the write */
	ASSERT_EQ(pread(self->plain, buf, 6, 0), 6);
	EXPECT_EQ(memcmp(buf, "Xbcdef", 6), 0);
	/* so does a new open */
	fd = open(self->path, O_RDWR | O_REVOKABLE);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(pread(fd, buf, 1, 1), 1);
	EXPECT_EQ(buf[0], 'b');
	EXPECT_EQ(close(fd), 0);
	EXPECT_EQ(close(self->fd), 0);
	self->fd = -1;
}

TEST_F(tmpfile, every_method_fails_after_revoke)
{
	struct iovec iov[2];
	char a[2], b[2];
	int pipefd[2], null;
	loff_t off = 0;

	iov[0] = (struct iovec){ .iov_base = a, .iov_len = sizeof(a) };
	iov[1] = (struct iovec){ .iov_base = b, .iov_len = sizeof(b) };
	ASSERT_EQ(pipe(pipefd), 0);
	null = open("/dev/null", O_WRONLY);
	ASSERT_GE(null, 0);
	/* all of it works before */
	ASSERT_EQ(preadv(self->fd, iov, 2, 0), 4);
	ASSERT_EQ(splice(self->fd, &off, pipefd[1], NULL, 2, 0), 2);
	ASSERT_EQ(splice(pipefd[0], NULL, self->fd, &off, 2, 0), 2);
	ASSERT_EQ(sendfile(null, self->fd, NULL, 2), 2);
	ASSERT_EQ(fallocate(self->fd, 0, 0, 4096), 0);

	ASSERT_EQ(revoke_path(self->path), 0);
	EXPECT_EQ(readv(self->fd, iov, 2), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(preadv(self->fd, iov, 2, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(writev(self->fd, iov, 2), -1);
	EXPECT_EQ(errno, EIO);
	off = 0;
	EXPECT_EQ(splice(self->fd, &off, pipefd[1], NULL, 2, 0), -1);
	EXPECT_EQ(errno, EIO);
	ASSERT_EQ(write(pipefd[1], "zz", 2), 2);
	EXPECT_EQ(splice(pipefd[0], NULL, self->fd, &off, 2, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(sendfile(null, self->fd, NULL, 2), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(fallocate(self->fd, 0, 0, 8192), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(fdatasync(self->fd), -1);
	EXPECT_EQ(errno, EIO);
	close(null);
	close(pipefd[0]);
	close(pipefd[1]);
}

TEST_F(tmpfile, revoke_removes_locks)
{
	struct flock fl = {
		.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1,
	};
	int fd;

	ASSERT_EQ(flock(self->fd, LOCK_EX), 0);
	ASSERT_EQ(fcntl(self->fd, F_OFD_SETLK, &fl), 0);
	fd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(flock(fd, LOCK_EX | LOCK_NB), -1);
	EXPECT_EQ(errno, EWOULDBLOCK);

	ASSERT_EQ(revoke_path(self->path), 0);
	EXPECT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
	EXPECT_EQ(fcntl(fd, F_OFD_SETLK, &fl), 0);
	close(fd);
}

/*
 * Calls that reach the file without its methods are refused on a revoked
 * file too: truncating it, changing its owner, mode, times, flags or
 * extended attributes, taking new locks and leases.  Unlocking is
 * allowed.  A file opened with O_REVOKABLE is never the start of a
 * lookup (AT_EMPTY_PATH, but fstatat()'s, which is fstat()) nor reopened
 * through /proc/self/fd, revoked or not: either would give a plain file
 * of it that outlives the revoke.
 */
TEST_F(tmpfile, calls_around_the_methods_fail_after_revoke)
{
	struct flock fl = {
		.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1,
	};
	char link[80], proc[64];
	int flags = 0;

	snprintf(link, sizeof(link), "%s.link", self->path);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", self->fd);
	/* no way to a plain file of it, even before revoke */
	EXPECT_EQ(open(proc, O_RDONLY), -1);
	EXPECT_EQ(errno, EACCES);
	EXPECT_EQ(linkat(self->fd, "", AT_FDCWD, link, AT_EMPTY_PATH), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	EXPECT_EQ(syscall(__NR_open_tree, self->fd, "", AT_EMPTY_PATH), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	ASSERT_EQ(ioctl(self->fd, FS_IOC_GETFLAGS, &flags), 0);
	ASSERT_EQ(fsetxattr(self->fd, "user.revoke", "x", 1, 0), 0);
	ASSERT_EQ(revoke_fd(self->fd), 0);

	EXPECT_EQ(ftruncate(self->fd, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(fchmod(self->fd, 0600), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(fchown(self->fd, 0, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(futimens(self->fd, NULL), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(ioctl(self->fd, FS_IOC_SETFLAGS, &flags), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(fsetxattr(self->fd, "user.revoke", "x", 1, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(fgetxattr(self->fd, "user.revoke", NULL, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(flistxattr(self->fd, NULL, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(fremovexattr(self->fd, "user.revoke"), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(flock(self->fd, LOCK_EX), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(flock(self->fd, LOCK_UN), 0);
	EXPECT_EQ(fcntl(self->fd, F_SETLK, &fl), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(fcntl(self->fd, F_OFD_SETLK, &fl), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(fcntl(self->fd, F_SETLEASE, F_RDLCK), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(linkat(self->fd, "", AT_FDCWD, link, AT_EMPTY_PATH), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(syscall(__NR_open_tree, self->fd, "", AT_EMPTY_PATH), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(open(proc, O_RDONLY), -1);
	EXPECT_EQ(errno, EACCES);

	/* the file that was not revokable is untouched */
	EXPECT_EQ(ftruncate(self->plain, 3), 0);
	EXPECT_EQ(fchmod(self->plain, 0600), 0);
	EXPECT_EQ(futimens(self->plain, NULL), 0);
	EXPECT_EQ(ioctl(self->plain, FS_IOC_SETFLAGS, &flags), 0);
	EXPECT_EQ(fgetxattr(self->plain, "user.revoke", NULL, 0), 1);
	EXPECT_EQ(flock(self->plain, LOCK_EX), 0);
	EXPECT_EQ(fcntl(self->plain, F_SETLK, &fl), 0);
}

static int wait_ofd_lock(struct waiter *w)
{
	struct flock fl = {
		.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1,
	};

	return fcntl(w->fd, F_OFD_SETLKW, &fl);
}

static int wait_flock(struct waiter *w)
{
	return flock(w->fd, LOCK_EX);
}

/* Requests blocked on a lock of @fd's inode ("->" in /proc/locks). */
static int blocked_locks(int fd)
{
	char line[256], ino[32];
	struct stat st;
	int n = 0;
	FILE *f;

	if (fstat(fd, &st))
		return -1;
	snprintf(ino, sizeof(ino), ":%lu ", (unsigned long)st.st_ino);
	f = fopen("/proc/locks", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "->") && strstr(line, ino);
	fclose(f);
	return n;
}

/* Wait up to two seconds for @n requests blocked on @fd's inode. */
static bool locks_blocked(int fd, int n)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (blocked_locks(fd) == n)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * A lock request that was waiting when the file was revoked is not granted
 * when the lock it waits for goes: the revoked file takes no new lock,
 * whenever it was asked for, and keeps none.
 */
TEST_F(tmpfile, blocked_lock_not_granted_after_revoke)
{
	struct flock fl = {
		.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1,
	};
	struct waiter posix, whole;
	int holder = open(self->path, O_RDWR);

	ASSERT_GE(holder, 0);
	ASSERT_EQ(fcntl(holder, F_OFD_SETLK, &fl), 0);
	ASSERT_EQ(flock(holder, LOCK_EX), 0);
	waiter_start(&posix, self->fd, wait_ofd_lock);
	waiter_start(&whole, self->fd, wait_flock);
	ASSERT_TRUE(locks_blocked(self->fd, 2));

	ASSERT_EQ(revoke_fd(self->fd), 0);
	fl.l_type = F_UNLCK;
	ASSERT_EQ(fcntl(holder, F_OFD_SETLK, &fl), 0);
	ASSERT_EQ(flock(holder, LOCK_UN), 0);
	ASSERT_TRUE(waiter_done(&posix));
	ASSERT_TRUE(waiter_done(&whole));
	EXPECT_EQ(posix.ret, -1);
	EXPECT_EQ(posix.err, EIO);
	EXPECT_EQ(whole.ret, -1);
	EXPECT_EQ(whole.err, EIO);

	/* the revoked file holds no lock */
	fl.l_type = F_WRLCK;
	EXPECT_EQ(fcntl(holder, F_OFD_SETLK, &fl), 0);
	EXPECT_EQ(flock(holder, LOCK_EX | LOCK_NB), 0);
	EXPECT_EQ(close(holder), 0);
}

/*
 * Seals are added through the file, without its methods: a revokable
 * reopen of a memfd adds none once revoked, and the memfd keeps working.
 */
TEST(memfd_seals_after_revoke)
{
	int mfd = memfd_create("revoke_test", MFD_ALLOW_SEALING);
	char path[64];
	int fd;

	ASSERT_GE(mfd, 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	fd = open(path, O_RDWR | O_REVOKABLE);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(fcntl(fd, F_ADD_SEALS, F_SEAL_GROW), 0);

	ASSERT_EQ(revoke_fd(fd), 0);
	EXPECT_EQ(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(fcntl(mfd, F_GET_SEALS), F_SEAL_GROW);
	EXPECT_EQ(fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	EXPECT_EQ(close(fd), 0);
	EXPECT_EQ(close(mfd), 0);
}

TEST_F(tmpfile, revoke_file_only_that_description)
{
	char c;
	int other = open(self->path, O_RDONLY | O_REVOKABLE);

	ASSERT_GE(other, 0);
	ASSERT_EQ(revoke_fd(self->fd), 0);
	EXPECT_EQ(pread(self->fd, &c, 1, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(pread(other, &c, 1, 0), 1);
	/* revoking again is harmless */
	EXPECT_EQ(revoke_fd(self->fd), 0);
	close(other);
}

TEST_F(tmpfile, dup_fork_and_scm_rights_see_it)
{
	int sv[2], dup_fd, passed = -1, status;
	char cbuf[CMSG_SPACE(sizeof(int))] = {}, c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
	pid_t pid;

	dup_fd = dup(self->fd);
	ASSERT_GE(dup_fd, 0);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &self->fd, sizeof(int));
	ASSERT_EQ(sendmsg(sv[0], &msg, 0), 1);
	ASSERT_EQ(recvmsg(sv[1], &msg, 0), 1);
	cmsg = CMSG_FIRSTHDR(&msg);
	ASSERT_NE(cmsg, NULL);
	memcpy(&passed, CMSG_DATA(cmsg), sizeof(int));
	ASSERT_GE(passed, 0);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		/* the child revokes through its inherited descriptor */
		_exit(revoke_fd(self->fd) ? 1 : 0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);

	EXPECT_EQ(pread(dup_fd, &c, 1, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(pread(passed, &c, 1, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(pread(self->fd, &c, 1, 0), -1);
	EXPECT_EQ(errno, EIO);
	close(dup_fd);
	close(passed);
	close(sv[0]);
	close(sv[1]);
}

TEST_F(tmpfile, not_owner_is_eperm)
{
	int status;
	pid_t pid;

	ASSERT_EQ(fchmod(self->plain, 0666), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		/* nobody, without CAP_FOWNER */
		if (setgid(65534) || setuid(65534))
			_exit(2);
		if (revoke_path(self->path) == 0)
			_exit(3);
		_exit(errno == EPERM ? 0 : 4);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	/* and nothing was revoked */
	EXPECT_EQ(write(self->fd, "x", 1), 1);
}

/* O_REVOKABLE on @path fails with EOPNOTSUPP; a plain open works. */
static bool refused(const char *path, int flags)
{
	int fd = open(path, flags | O_REVOKABLE);

	if (fd >= 0 || errno != EOPNOTSUPP) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	fd = open(path, flags);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * Revokability is opt-in: a file whose methods or filesystem did not say
 * so refuses O_REVOKABLE, whatever kind it is.  /dev/null and /dev/zero
 * (the memory devices), a directory of tmpfs, a /proc/<pid> file, a
 * namespace file, a permanent /proc entry, a sysfs and a debugfs directory.
 */
TEST(not_opted_in_is_refused)
{
	EXPECT_TRUE(refused("/dev/null", O_RDWR));
	EXPECT_TRUE(refused("/dev/zero", O_RDONLY));
	EXPECT_TRUE(refused("/dev/kmsg", O_RDONLY));
	EXPECT_TRUE(refused("/tmp", O_RDONLY | O_DIRECTORY));
	EXPECT_TRUE(refused("/proc/self/status", O_RDONLY));
	EXPECT_TRUE(refused("/proc/self/ns/uts", O_RDONLY));
	EXPECT_TRUE(refused("/proc/self", O_RDONLY | O_DIRECTORY));
	EXPECT_TRUE(refused("/proc/cpuinfo", O_RDONLY));
	EXPECT_TRUE(refused("/sys/kernel", O_RDONLY | O_DIRECTORY));
	EXPECT_TRUE(refused("/sys/kernel/debug", O_RDONLY | O_DIRECTORY));
}

/*
 * O_CREAT | O_REVOKABLE on a filesystem that did not opt in fails before
 * it makes the file: the root's, rootfs, which is shmem inside but not
 * FS_REVOKABLE as tmpfs is.
 */
TEST(refused_create_makes_nothing)
{
	const char *path = "/revoke_test_create";
	char dev[64], dir[256], type[64];
	bool rootfs = false;
	FILE *mounts;

	mounts = fopen("/proc/self/mounts", "r");
	ASSERT_NE(mounts, NULL);
	while (fscanf(mounts, "%63s %255s %63s %*[^\n]\n", dev, dir, type) == 3)
		if (!strcmp(dir, "/"))
			rootfs = !strcmp(type, "rootfs");
	fclose(mounts);
	if (!rootfs)
		SKIP(return, "/ is not rootfs");
	ASSERT_EQ(open(path, O_RDWR | O_CREAT | O_EXCL | O_REVOKABLE, 0600),
		  -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	EXPECT_EQ(access(path, F_OK), -1);
	EXPECT_EQ(errno, ENOENT);
}

TEST(test_device_release_once)
{
	int fd, fd2, opens, releases;
	char c;

	fd = open(TEST_REVOKE_DEV, O_RDWR);
	if (fd < 0 && errno == ENOENT)
		SKIP(return, "no " TEST_REVOKE_DEV " (CONFIG_TEST_REVOKE)");
	ASSERT_GE(fd, 0);
	/* Its ->open makes it revokable without asking. */
	EXPECT_EQ(test_revoke_param("late_calls"), 0);
	opens = test_revoke_param("opens");
	releases = test_revoke_param("releases");
	ASSERT_EQ(write(fd, "hi", 2), 2);
	EXPECT_EQ(ioctl(fd, TEST_REVOKE_READY), 2);
	ASSERT_EQ(read(fd, &c, 1), 1);
	EXPECT_EQ(c, 'h');

	ASSERT_EQ(revoke_path(TEST_REVOKE_DEV), 0);
	/* the driver was released, once, by revoke */
	EXPECT_EQ(test_revoke_param("releases"), releases + 1);
	EXPECT_EQ(read(fd, &c, 1), 0);
	EXPECT_EQ(write(fd, "x", 1), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(ioctl(fd, TEST_REVOKE_READY), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(lseek(fd, 0, SEEK_SET), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(close(fd), 0);
	/* closing did not release it again */
	EXPECT_EQ(test_revoke_param("releases"), releases + 1);

	/* a new open works */
	fd2 = open(TEST_REVOKE_DEV, O_RDWR);
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(test_revoke_param("opens"), opens + 1);
	EXPECT_EQ(read(fd2, &c, 1), 1);
	EXPECT_EQ(c, 'i');
	EXPECT_EQ(close(fd2), 0);
	EXPECT_EQ(test_revoke_param("releases"), releases + 2);
	EXPECT_EQ(test_revoke_param("late_calls"), 0);
}

TEST(nothing_to_revoke_is_fine)
{
	EXPECT_EQ(sys_revokeat(AT_FDCWD, "/", 0), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, "/dev/null", 0), 0);
}

/*
 * revokeat() returns how many files it revoked: a seat manager can tell
 * that the old session's descriptor was cut off, and that a plain one
 * (not counted) was not.  REVOKE_FILE revokes one.
 */
TEST_F(tmpfile, count_of_files_revoked)
{
	int second = open(self->path, O_RDONLY | O_REVOKABLE);
	int third;
	char c;

	ASSERT_GE(second, 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 2);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	EXPECT_EQ(pread(self->plain, &c, 1, 0), 1);

	third = open(self->path, O_RDONLY | O_REVOKABLE);
	ASSERT_GE(third, 0);
	EXPECT_EQ(sys_revokeat(third, "", REVOKE_FILE), 1);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	EXPECT_EQ(close(third), 0);
	EXPECT_EQ(close(second), 0);
}

#define ERRORS_FILE "/tmp/revoke_test_errors"

TEST(errors)
{
	char long_name[PATH_MAX + 2];
	int fd;

	EXPECT_EQ(sys_revokeat(AT_FDCWD, "/dev/null", 0x80000000), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, "/dev/null", AT_SYMLINK_FOLLOW), -1);
	EXPECT_EQ(errno, EINVAL);
	fd = open(ERRORS_FILE, O_RDWR | O_CREAT | O_REVOKABLE, 0600);
	ASSERT_GE(fd, 0);
	/* REVOKE_FILE takes no path */
	EXPECT_EQ(sys_revokeat(fd, "/dev/null", REVOKE_FILE), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(sys_revokeat(fd, (const char *)1, REVOKE_FILE), -1);
	EXPECT_EQ(errno, EFAULT);
	EXPECT_EQ(sys_revokeat(-1, "", REVOKE_FILE), -1);
	EXPECT_EQ(errno, EBADF);
	close(fd);
	/* REVOKE_FILE on a file that is not revokable */
	fd = open("/dev/null", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(revoke_fd(fd), -1);
	EXPECT_EQ(errno, EINVAL);
	close(fd);

	EXPECT_EQ(revoke_path((const char *)1), -1);
	EXPECT_EQ(errno, EFAULT);
	EXPECT_EQ(revoke_path("/nonexistent"), -1);
	EXPECT_EQ(errno, ENOENT);
	EXPECT_EQ(revoke_path("/dev/null/x"), -1);
	EXPECT_EQ(errno, ENOTDIR);
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = 0;
	EXPECT_EQ(revoke_path(long_name), -1);
	EXPECT_EQ(errno, ENAMETOOLONG);
	EXPECT_EQ(sys_revokeat(-1, "relative", 0), -1);
	EXPECT_EQ(errno, EBADF);

	unlink("/tmp/revoke_loop");
	ASSERT_EQ(symlink("/tmp/revoke_loop", "/tmp/revoke_loop"), 0);
	EXPECT_EQ(revoke_path("/tmp/revoke_loop"), -1);
	EXPECT_EQ(errno, ELOOP);
	/* AT_SYMLINK_NOFOLLOW: the link itself, which has nothing open */
	EXPECT_EQ(sys_revokeat(AT_FDCWD, "/tmp/revoke_loop",
			       AT_SYMLINK_NOFOLLOW), 0);
	unlink("/tmp/revoke_loop");
	/* AT_EMPTY_PATH: dfd itself */
	fd = open(ERRORS_FILE, O_WRONLY | O_REVOKABLE);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_revokeat(fd, "", 0), -1);
	EXPECT_EQ(errno, ENOENT);
	EXPECT_EQ(sys_revokeat(fd, "", AT_EMPTY_PATH), 1);
	EXPECT_EQ(write(fd, "x", 1), -1);
	EXPECT_EQ(errno, EIO);
	close(fd);
	unlink(ERRORS_FILE);
}

TEST(openat2_accepts_o_revokable)
{
	struct open_how {
		unsigned long long flags, mode, resolve;
	} how = { .flags = O_RDONLY | O_REVOKABLE };
	int fd;

	fd = syscall(__NR_openat2, AT_FDCWD, "/proc/self/status", &how,
		     sizeof(how));
	ASSERT_EQ(fd, -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	how.flags |= O_CREAT;
	how.mode = 0600;
	fd = syscall(__NR_openat2, AT_FDCWD, ERRORS_FILE, &how, sizeof(how));
	ASSERT_GE(fd, 0);
	EXPECT_TRUE(fcntl(fd, F_GETFL) & O_REVOKABLE);
	close(fd);
	/* like every flag outside O_PATH_FLAGS, not with O_PATH */
	how.flags = O_PATH | O_REVOKABLE;
	how.mode = 0;
	EXPECT_EQ(syscall(__NR_openat2, AT_FDCWD, ERRORS_FILE, &how,
			  sizeof(how)), -1);
	EXPECT_EQ(errno, EINVAL);
	unlink(ERRORS_FILE);
}

TEST_HARNESS_MAIN
