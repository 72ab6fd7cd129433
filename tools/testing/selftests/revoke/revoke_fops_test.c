// SPDX-License-Identifier: GPL-2.0
/*
 * Files that other code recognises by their methods (revoke.rst, "Files
 * recognised by their methods"): none of them opted in, so they refuse
 * O_REVOKABLE with EOPNOTSUPP, before their ->open, where a plain open of
 * the same file works; those that cannot be opened by path fail with
 * ENXIO either way.  A revokable tmpfs file mapped where the kernel
 * chooses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "revoke.h"

/* The opens of @path: plain works, O_REVOKABLE fails with EOPNOTSUPP. */
static int refused(const char *path, int flags)
{
	int plain, fd;

	plain = open(path, flags);
	if (plain < 0)
		return -1;
	close(plain);
	fd = open(path, flags | O_REVOKABLE);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno == EOPNOTSUPP ? 0 : errno;
}

static void fd_path(char *buf, size_t len, int fd)
{
	snprintf(buf, len, "/proc/self/fd/%d", fd);
}

/*
 * splice, tee and F_SETPIPE_SZ take the pipe from private_data: FIFOs and
 * pipes reopened through /proc/self/fd are never revokable.  Both work
 * through plain files as before.
 */
TEST(pipe_refused)
{
	char path[64], reopen[64], c;
	int p[2], fifo, q[2], status;
	pid_t pid;

	snprintf(path, sizeof(path), "/tmp/revoke_fifo.%d", getpid());
	ASSERT_EQ(mkfifo(path, 0600), 0);
	EXPECT_EQ(refused(path, O_RDWR), 0);

	ASSERT_EQ(pipe(p), 0);
	fd_path(reopen, sizeof(reopen), p[0]);
	EXPECT_EQ(refused(reopen, O_RDWR), 0);

	/* Refused before the FIFO's open, which would wait for a writer. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		alarm(5);
		_exit(open(path, O_RDONLY | O_REVOKABLE) == -1 &&
		      errno == EOPNOTSUPP ? 0 : 1);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(status, 0);

	fifo = open(path, O_RDWR);
	ASSERT_GE(fifo, 0);
	EXPECT_GE(fcntl(fifo, F_SETPIPE_SZ, 8192), 8192);
	EXPECT_GE(fcntl(fifo, F_GETPIPE_SZ), 8192);
	ASSERT_EQ(write(p[1], "ab", 2), 2);
	EXPECT_EQ(tee(p[0], fifo, 1, 0), 1);
	EXPECT_EQ(splice(p[0], NULL, fifo, NULL, 2, 0), 2);
	ASSERT_EQ(pipe(q), 0);
	EXPECT_EQ(splice(fifo, NULL, q[1], NULL, 3, 0), 3);
	EXPECT_EQ(read(q[0], &c, 1), 1);
	EXPECT_EQ(c, 'a');
	close(q[0]);
	close(q[1]);
	close(fifo);
	close(p[0]);
	close(p[1]);
	unlink(path);
}

/* The mount and FUSE_DEV_IOC_CLONE take the connection from private_data. */
TEST(fuse_refused)
{
	if (access("/dev/fuse", F_OK))
		SKIP(return, "no /dev/fuse (CONFIG_FUSE_FS)");
	EXPECT_EQ(refused("/dev/fuse", O_RDWR), 0);
}

/*
 * mq_timedsend() and mq_timedreceive() sleep outside any method: both
 * mq_open(), whose flags reach the open, and open() in an mqueue mount are
 * refused.
 */
TEST(mqueue_refused)
{
	char name[32], path[64];
	int fd;

	snprintf(name, sizeof(name), "revoke_mq.%d", getpid());
	fd = syscall(SYS_mq_open, name, O_RDWR | O_CREAT | O_REVOKABLE, 0600,
		     NULL);
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	fd = syscall(SYS_mq_open, name, O_RDWR | O_CREAT, 0600, NULL);
	ASSERT_GE(fd, 0);
	close(fd);

	mkdir("/tmp/revoke_mq", 0700);
	ASSERT_EQ(mount("mqueue", "/tmp/revoke_mq", "mqueue", 0, NULL), 0);
	snprintf(path, sizeof(path), "/tmp/revoke_mq/%s", name);
	EXPECT_EQ(refused(path, O_RDWR), 0);
	EXPECT_EQ(syscall(SYS_mq_unlink, name), 0);
	EXPECT_EQ(umount("/tmp/revoke_mq"), 0);
	rmdir("/tmp/revoke_mq");
}

/*
 * Files of anonymous inodes and sockets cannot be opened by path at all,
 * even through /proc/self/fd; with O_REVOKABLE the open fails before it
 * gets that far, as they did not opt in.
 */
TEST(anon_inodes_not_opened)
{
	int fds[2], i;
	char path[64];

	fds[0] = eventfd(0, 0);
	fds[1] = socket(AF_UNIX, SOCK_STREAM, 0);
	for (i = 0; i < 2; i++) {
		ASSERT_GE(fds[i], 0);
		fd_path(path, sizeof(path), fds[i]);
		EXPECT_EQ(open(path, O_RDWR), -1);
		EXPECT_EQ(errno, ENXIO);
		EXPECT_EQ(open(path, O_RDWR | O_REVOKABLE), -1);
		EXPECT_EQ(errno, EOPNOTSUPP);
		close(fds[i]);
	}
}

static int pidfd_send_signal(int fd, int sig)
{
	return syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
}

/*
 * setns() takes the namespace from an nsfs file, and the pidfd calls the
 * pid from a /proc/<pid> directory or a pidfd reopened through
 * /proc/self/fd, by comparing their methods: none of them is revokable,
 * and they keep working when opened plainly.
 */
TEST(nsfs_and_pidfd_refused)
{
	char path[64];
	int fd, pidfd;

	EXPECT_EQ(refused("/proc/self/ns/uts", O_RDONLY), 0);
	snprintf(path, sizeof(path), "/proc/%d", getpid());
	EXPECT_EQ(refused(path, O_RDONLY | O_DIRECTORY), 0);
	pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	ASSERT_GE(pidfd, 0);
	fd_path(path, sizeof(path), pidfd);
	EXPECT_EQ(refused(path, O_RDONLY), 0);

	fd = open(path, O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(pidfd_send_signal(fd, 0), 0);
	EXPECT_EQ(close(fd), 0);
	EXPECT_EQ(close(pidfd), 0);
	fd = open("/proc/self/ns/uts", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(setns(fd, CLONE_NEWUTS), 0);
	EXPECT_EQ(close(fd), 0);
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

/*
 * A 4 MiB shared mapping of a revokable shmem file (a memfd, reopened
 * through /proc/self/fd) where the kernel chooses: shmem_get_unmapped_area()
 * checked the file's f_op with a VM_BUG_ON() (DEBUG_VM and
 * TRANSPARENT_HUGEPAGE, as on the debug kernel).  The mapping works, and
 * is gone once the file is revoked: a collapse into a huge page, which
 * would map the page cache without a fault, is refused.
 */
TEST(shmem_shared_mapping_anywhere)
{
	const size_t len = 4 << 20;
	char path[64], c;
	int fd, plain;
	char *p, *huge;

	plain = memfd_create("revoke_map", 0);
	ASSERT_GE(plain, 0);
	ASSERT_EQ(ftruncate(plain, len), 0);
	fd_path(path, sizeof(path), plain);
	fd = open(path, O_RDWR | O_REVOKABLE);
	ASSERT_GE(fd, 0);
	EXPECT_TRUE(fcntl(fd, F_GETFL) & O_REVOKABLE);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	p[0] = 'a';
	p[len - 1] = 'z';
	EXPECT_EQ(pread(plain, &c, 1, 0), 1);
	EXPECT_EQ(c, 'a');
	EXPECT_EQ(pread(plain, &c, 1, len - 1), 1);
	EXPECT_EQ(c, 'z');

	ASSERT_EQ(revoke_fd(fd), 0);
	EXPECT_EQ(touch_signal(p), SIGBUS);
	huge = (char *)(((unsigned long)p + (2 << 20) - 1) & ~((2UL << 20) - 1));
	EXPECT_EQ(madvise(huge, 2 << 20, MADV_COLLAPSE), -1);
	EXPECT_EQ(touch_signal(huge), SIGBUS);
	EXPECT_EQ(munmap(p, len), 0);
	close(fd);
	close(plain);
}

/*
 * revoke(path) of an inode with no revokable file open does nothing and
 * returns 0; F_GETFL tells a revokable file from a plain one.
 */
TEST(revoke_path_without_revokable_files)
{
	char path[64], c;
	int plain;

	snprintf(path, sizeof(path), "/tmp/revoke_noop.%d", getpid());
	plain = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	ASSERT_GE(plain, 0);
	ASSERT_EQ(write(plain, "x", 1), 1);
	EXPECT_FALSE(fcntl(plain, F_GETFL) & O_REVOKABLE);
	EXPECT_EQ(revoke_path(path), 0);
	EXPECT_EQ(pread(plain, &c, 1, 0), 1);
	EXPECT_EQ(c, 'x');
	close(plain);
	unlink(path);
}

TEST_HARNESS_MAIN
