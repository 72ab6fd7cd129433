// SPDX-License-Identifier: GPL-2.0
/*
 * revokeat(2)'s errors, each from the cause its man page gives it, and
 * O_REVOKABLE's, through the uapi as user space sees it after "make
 * headers_install": the constants and the syscall number come from
 * <linux/fcntl.h> and <asm/unistd.h>, not from local defines.  glibc's
 * <fcntl.h> is left out, since it and <linux/fcntl.h> both define struct
 * flock, so open() and fcntl() are called through syscall().  ENOMEM
 * needs fault injection (fail-nth, failslab), which the debug kernel has.
 */
#define _GNU_SOURCE
#include <linux/fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "../kselftest_harness.h"

static int sys_revokeat(int dfd, const char *path, unsigned int flags)
{
	return syscall(__NR_revokeat, dfd, path, flags);
}

static int sys_open(const char *path, int flags)
{
	return syscall(__NR_openat, AT_FDCWD, path, flags, 0600);
}

/* The errno revokeat() fails with, or 0. */
static int revokeat_errno(int dfd, const char *path, unsigned int flags)
{
	return sys_revokeat(dfd, path, flags) < 0 ? errno : 0;
}

/* The same, from a child that runs as nobody. */
static int revokeat_errno_as_nobody(int dfd, const char *path,
				    unsigned int flags)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(255);
		_exit(revokeat_errno(dfd, path, flags));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* A read of @fd fails with EIO once it is revoked. */
static bool revoked(int fd)
{
	char c;

	return read(fd, &c, 1) == -1 && errno == EIO;
}

/*
 * A directory of root's, mode 0700, with "file" in it, open twice:
 * revokable (@fd) and not (@plain).
 */
FIXTURE(errors) {
	char dir[64];
	char file[80];
	int fd;
	int plain;
};

FIXTURE_SETUP(errors)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/revokeat.XXXXXX");
	ASSERT_NE(mkdtemp(self->dir), NULL);
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	self->fd = sys_open(self->file, O_RDWR | O_CREAT | O_REVOKABLE);
	ASSERT_GE(self->fd, 0);
	self->plain = sys_open(self->file, O_RDONLY);
	ASSERT_GE(self->plain, 0);
	ASSERT_EQ(write(self->fd, "x", 1), 1);
}

FIXTURE_TEARDOWN(errors)
{
	char path[96];

	close(self->fd);
	close(self->plain);
	snprintf(path, sizeof(path), "%s/loop", self->dir);
	unlink(path);
	unlink(self->file);
	rmdir(self->dir);
}

/* The flag is the file's: F_GETFL reports it, F_SETFL cannot clear it. */
TEST_F(errors, o_revokable)
{
	EXPECT_EQ(syscall(__NR_fcntl, self->fd, F_GETFL) & O_REVOKABLE,
		  O_REVOKABLE);
	EXPECT_EQ(syscall(__NR_fcntl, self->plain, F_GETFL) & O_REVOKABLE, 0);
	EXPECT_EQ(syscall(__NR_fcntl, self->fd, F_SETFL, 0), 0);
	EXPECT_EQ(syscall(__NR_fcntl, self->fd, F_GETFL) & O_REVOKABLE,
		  O_REVOKABLE);
}

/* O_REVOKABLE on a FIFO fails before the open waits for a writer. */
TEST_F(errors, o_revokable_eopnotsupp)
{
	char fifo[96];

	snprintf(fifo, sizeof(fifo), "%s/loop", self->dir);
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	EXPECT_EQ(sys_open(fifo, O_RDONLY | O_NONBLOCK | O_REVOKABLE), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
}

/* revokeat(path) revokes the revokable file only; 0 again after. */
TEST_F(errors, path)
{
	char c;

	EXPECT_EQ(revokeat_errno(AT_FDCWD, self->file, 0), 0);
	EXPECT_TRUE(revoked(self->fd));
	EXPECT_EQ(pread(self->plain, &c, 1, 0), 1);
	EXPECT_EQ(revokeat_errno(AT_FDCWD, self->file, 0), 0);
}

TEST_F(errors, revoke_file)
{
	EXPECT_EQ(revokeat_errno(self->fd, "", REVOKE_FILE), 0);
	EXPECT_TRUE(revoked(self->fd));
	EXPECT_EQ(revokeat_errno(self->fd, NULL, REVOKE_FILE | AT_EMPTY_PATH),
		  0);
}

TEST_F(errors, empty_path)
{
	EXPECT_EQ(revokeat_errno(self->plain, "", AT_EMPTY_PATH), 0);
	EXPECT_TRUE(revoked(self->fd));
}

TEST_F(errors, eacces)
{
	EXPECT_EQ(revokeat_errno_as_nobody(AT_FDCWD, self->file, 0), EACCES);
	EXPECT_FALSE(revoked(self->fd));
}

TEST_F(errors, ebadf)
{
	int fd;

	EXPECT_EQ(revokeat_errno(1000, "file", 0), EBADF);
	EXPECT_EQ(revokeat_errno(1000, "", REVOKE_FILE), EBADF);
	EXPECT_EQ(revokeat_errno(AT_FDCWD, "", REVOKE_FILE), EBADF);
	fd = sys_open(self->file, O_PATH);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(revokeat_errno(fd, "", REVOKE_FILE), EBADF);
	EXPECT_EQ(close(fd), 0);
	EXPECT_EQ(revokeat_errno(1000, "", AT_EMPTY_PATH), EBADF);
}

TEST_F(errors, efault)
{
	EXPECT_EQ(revokeat_errno(AT_FDCWD, (const char *)1, 0), EFAULT);
	EXPECT_EQ(revokeat_errno(AT_FDCWD, NULL, AT_EMPTY_PATH), EFAULT);
	EXPECT_EQ(revokeat_errno(self->fd, (const char *)1, REVOKE_FILE),
		  EFAULT);
	EXPECT_FALSE(revoked(self->fd));
}

/* A revoked file is no place to look anything up from. */
TEST_F(errors, eio)
{
	ASSERT_EQ(revokeat_errno(self->fd, "", REVOKE_FILE), 0);
	EXPECT_EQ(revokeat_errno(self->fd, "", AT_EMPTY_PATH), EIO);
	EXPECT_EQ(revokeat_errno(self->fd, "x", 0), EIO);
}

TEST_F(errors, einval)
{
	EXPECT_EQ(revokeat_errno(AT_FDCWD, self->file, 0x80000000), EINVAL);
	EXPECT_EQ(revokeat_errno(AT_FDCWD, self->file, AT_REMOVEDIR << 1),
		  EINVAL);
	EXPECT_EQ(revokeat_errno(self->fd, "",
				 REVOKE_FILE | AT_SYMLINK_NOFOLLOW), EINVAL);
	EXPECT_EQ(revokeat_errno(self->fd, "file", REVOKE_FILE), EINVAL);
	EXPECT_EQ(revokeat_errno(self->plain, "", REVOKE_FILE), EINVAL);
	EXPECT_FALSE(revoked(self->fd));
}

/* A loop is ELOOP; with AT_SYMLINK_NOFOLLOW, the link has no open file. */
TEST_F(errors, eloop)
{
	char loop[96];

	snprintf(loop, sizeof(loop), "%s/loop", self->dir);
	ASSERT_EQ(symlink("loop", loop), 0);
	EXPECT_EQ(revokeat_errno(AT_FDCWD, loop, 0), ELOOP);
	EXPECT_EQ(revokeat_errno(AT_FDCWD, loop, AT_SYMLINK_NOFOLLOW), 0);
}

TEST_F(errors, enametoolong)
{
	char name[NAME_MAX + 2], path[sizeof(name) + 80];

	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(path, sizeof(path), "%s/%s", self->dir, name);
	EXPECT_EQ(revokeat_errno(AT_FDCWD, path, 0), ENAMETOOLONG);
}

TEST_F(errors, enoent)
{
	char path[96];

	snprintf(path, sizeof(path), "%s/none", self->dir);
	EXPECT_EQ(revokeat_errno(AT_FDCWD, path, 0), ENOENT);
	EXPECT_EQ(revokeat_errno(self->plain, "", 0), ENOENT);
	EXPECT_FALSE(revoked(self->fd));
}

/* The first allocation of the call, getname()'s, fails. */
TEST_F(errors, enomem)
{
	char nth[64], got[16];
	int fd, gfp;

	snprintf(nth, sizeof(nth), "/proc/self/task/%ld/fail-nth",
		 syscall(__NR_gettid));
	fd = sys_open(nth, O_RDWR);
	gfp = sys_open("/sys/kernel/debug/failslab/ignore-gfp-wait", O_WRONLY);
	if (fd < 0 || gfp < 0) {
		close(fd);
		close(gfp);
		SKIP(return, "no fail-nth or failslab (CONFIG_FAILSLAB)");
	}
	ASSERT_EQ(write(gfp, "N", 1), 1);
	ASSERT_EQ(write(fd, "1", 1), 1);
	EXPECT_EQ(revokeat_errno(AT_FDCWD, self->file, 0), ENOMEM);
	ASSERT_GT(pread(fd, got, sizeof(got), 0), 0);
	EXPECT_EQ(got[0], '0');
	EXPECT_EQ(write(gfp, "Y", 1), 1);
	close(gfp);
	close(fd);
	EXPECT_FALSE(revoked(self->fd));
}

TEST_F(errors, enotdir)
{
	char path[96];

	snprintf(path, sizeof(path), "%s/x", self->file);
	EXPECT_EQ(revokeat_errno(AT_FDCWD, path, 0), ENOTDIR);
	EXPECT_EQ(revokeat_errno(self->plain, "x", 0), ENOTDIR);
}

/*
 * The owner, or CAP_FOWNER: nobody may search the directory, not revoke,
 * by path or by AT_EMPTY_PATH; nor revoke, by REVOKE_FILE, a file its
 * filesystem made revokable (a sysfs attribute), but a file opened with
 * O_REVOKABLE, yes: its opener agreed to it.
 */
TEST_F(errors, eperm)
{
	int sysfs = sys_open("/sys/devices/system/cpu/online", O_RDONLY);

	ASSERT_GE(sysfs, 0);
	ASSERT_EQ(chmod(self->dir, 0755), 0);
	EXPECT_EQ(revokeat_errno_as_nobody(AT_FDCWD, self->file, 0), EPERM);
	EXPECT_EQ(revokeat_errno_as_nobody(self->plain, "", AT_EMPTY_PATH),
		  EPERM);
	EXPECT_EQ(revokeat_errno_as_nobody(sysfs, "", REVOKE_FILE), EPERM);
	EXPECT_EQ(revokeat_errno_as_nobody(self->plain, "", REVOKE_FILE),
		  EINVAL);
	EXPECT_FALSE(revoked(self->fd));
	EXPECT_EQ(revokeat_errno_as_nobody(self->fd, "", REVOKE_FILE), 0);
	EXPECT_TRUE(revoked(self->fd));
	EXPECT_EQ(revokeat_errno(sysfs, "", REVOKE_FILE), 0);
	EXPECT_EQ(close(sysfs), 0);
}

TEST_HARNESS_MAIN
