/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __REVOKE_H
#define __REVOKE_H

#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * __NR_revokeat comes from the kernel's headers (KHDR_INCLUDES), as it
 * does for user space after "make headers_install".  O_REVOKABLE and
 * REVOKE_FILE are in <linux/fcntl.h>, which cannot be included with
 * glibc's <fcntl.h> (both define struct flock) and which glibc does not
 * copy them from yet: a program that uses <fcntl.h> defines them, with
 * the values of its architecture's <asm/fcntl.h>.  revokeat_errors_test
 * takes all three from the kernel's headers.
 */
#ifndef O_REVOKABLE
#if defined(__alpha__)
#define O_REVOKABLE 0400000000
#elif defined(__hppa__)
#define O_REVOKABLE 0100000000
#elif defined(__sparc__)
#define O_REVOKABLE 0x4000000
#else
#define O_REVOKABLE 040000000
#endif
#endif

#ifndef REVOKE_FILE
#define REVOKE_FILE 0x200
#endif

/* One aio request on @fd, at offset 0, and its result. */
static inline long aio_one(int fd, int op, void *buf, size_t len)
{
	struct iocb cb = {
		.aio_lio_opcode = op, .aio_fildes = fd,
		.aio_buf = (unsigned long)buf, .aio_nbytes = len,
	};
	struct iocb *cbs[1] = { &cb };
	struct io_event ev;
	aio_context_t ctx = 0;
	long ret;

	if (syscall(__NR_io_setup, 1, &ctx))
		return -1000 - errno;
	ret = syscall(__NR_io_submit, ctx, 1, cbs);
	if (ret == 1)
		ret = syscall(__NR_io_getevents, ctx, 1, 1, &ev, NULL) == 1 ?
		      (long)ev.res : -2000 - errno;
	else
		ret = -3000 - errno;
	syscall(__NR_io_destroy, ctx);
	return ret;
}

/* The test device, lib/test_revoke.c */
#define TEST_REVOKE_DEV		"/dev/test_revoke"
#define TEST_REVOKE_PARAMS	"/sys/module/test_revoke/parameters/"
#define TEST_REVOKE_READY	_IO('R', 1)
#define TEST_REVOKE_BLOCK	_IO('R', 2)
#define TEST_REVOKE_UNBLOCK	_IO('R', 3)
#define TEST_REVOKE_WAIT_CANCEL	_IO('R', 4)
#define TEST_REVOKE_WAIT_REVOKED _IO('R', 5)
#define TEST_REVOKE_SELF	_IO('R', 6)
#define TEST_REVOKE_DEBUGFS_ADD	_IO('R', 7)
#define TEST_REVOKE_DEBUGFS_REMOVE _IO('R', 8)
#define TEST_REVOKE_BLOCK_RELEASE _IO('R', 9)
#define TEST_REVOKE_PROC_ADD	_IO('R', 10)
#define TEST_REVOKE_PROC_REMOVE	_IO('R', 11)
#define TEST_REVOKE_SYSFS_ADD	_IO('R', 12)
#define TEST_REVOKE_SYSFS_REMOVE _IO('R', 13)
#define TEST_REVOKE_WAIT_EINTR	_IO('R', 14)
#define TEST_REVOKE_DEBUGFS	"/sys/kernel/debug/test_revoke/"
#define TEST_REVOKE_PROC	"/proc/test_revoke/"
#define TEST_REVOKE_SYSFS	"/sys/kernel/test_revoke/"

/* One of the test device's counts, or -1. */
static inline int test_revoke_param(const char *name)
{
	char path[256], buf[32] = "";
	int fd, n;

	snprintf(path, sizeof(path), TEST_REVOKE_PARAMS "%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1;
}

/* The device's files opened and not released yet. */
static inline int test_revoke_open_files(void)
{
	return test_revoke_param("opens") - test_revoke_param("releases");
}

/* A file of the test device, emptied: the byte pipe behind it is shared. */
static inline int test_revoke_open_empty(void)
{
	char buf[64];
	int fd;

	fd = open(TEST_REVOKE_DEV, O_RDWR | O_NONBLOCK);
	if (fd < 0)
		return -1;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	fcntl(fd, F_SETFL, O_RDWR);
	return fd;
}

/* The signal a child dies of when it reads @p, or 0 if it could. */
static inline int touch_signal(const char *p)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		_exit(*p == 0x7f);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/* revokeat(): the number of files it revoked, or -1 and errno. */
static inline int sys_revokeat(int dfd, const char *path, unsigned int flags)
{
	return syscall(__NR_revokeat, dfd, path, flags);
}

/*
 * revoke(path) and a descriptor's revoke, BSD style: 0 once done, however
 * many files were revoked (revoke_test's count_of_files_revoked checks
 * the counts), or -1 and errno.
 */
static inline int revoke_path(const char *path)
{
	return sys_revokeat(AT_FDCWD, path, 0) < 0 ? -1 : 0;
}

static inline int revoke_fd(int fd)
{
	return sys_revokeat(fd, "", REVOKE_FILE) < 0 ? -1 : 0;
}

#endif /* __REVOKE_H */
