// SPDX-License-Identifier: GPL-2.0
/*
 * Mappings of revokable files: after revoke, touching a mapping of the
 * revoked file raises SIGBUS, in every process that shares it, while the
 * mappings of the inode's other files keep working; mmap() of a revoked
 * file fails with ENODEV; the driver sees no call after its ->release.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "revoke.h"

static char *map(int fd, int flags)
{
	return mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE, flags, fd, 0);
}

TEST(test_device)
{
	int a, b, releases;
	char *pa, *pb;

	a = open(TEST_REVOKE_DEV, O_RDWR);
	if (a < 0 && errno == ENOENT)
		SKIP(return, "no " TEST_REVOKE_DEV " (CONFIG_TEST_REVOKE)");
	ASSERT_GE(a, 0);
	b = open(TEST_REVOKE_DEV, O_RDWR);
	ASSERT_GE(b, 0);
	pa = map(a, MAP_SHARED);
	ASSERT_NE(pa, MAP_FAILED);
	pb = map(b, MAP_SHARED);
	ASSERT_NE(pb, MAP_FAILED);
	/* one page behind both */
	pa[0] = 'r';
	EXPECT_EQ(pb[0], 'r');

	releases = test_revoke_param("releases");
	ASSERT_EQ(revoke_fd(a), 0);
	EXPECT_EQ(test_revoke_param("releases"), releases + 1);
	EXPECT_EQ(touch_signal(pa), SIGBUS);
	/* the other file's mapping is not touched */
	EXPECT_EQ(touch_signal(pb), 0);
	pb[1] = 'b';
	EXPECT_EQ(pb[0], 'r');
	EXPECT_EQ(map(a, MAP_SHARED), MAP_FAILED);
	EXPECT_EQ(errno, ENODEV);

	EXPECT_EQ(munmap(pa, getpagesize()), 0);
	EXPECT_EQ(munmap(pb, getpagesize()), 0);
	EXPECT_EQ(close(a), 0);
	EXPECT_EQ(close(b), 0);
	EXPECT_EQ(test_revoke_param("releases"), releases + 2);
	EXPECT_EQ(test_revoke_param("late_calls"), 0);
}

/* A child's copy of the mapping is the same file's: it goes too. */
TEST(fork_inherited_mapping)
{
	int fd, go[2], status;
	char *p;
	pid_t pid;

	fd = open(TEST_REVOKE_DEV, O_RDWR);
	if (fd < 0 && errno == ENOENT)
		SKIP(return, "no " TEST_REVOKE_DEV " (CONFIG_TEST_REVOKE)");
	ASSERT_GE(fd, 0);
	p = map(fd, MAP_SHARED);
	ASSERT_NE(p, MAP_FAILED);
	p[0] = 'f';
	ASSERT_EQ(pipe(go), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		char c;

		close(go[1]);
		if (p[0] != 'f' || read(go[0], &c, 1) != 0)
			_exit(1);
		_exit(p[0] == 0x7f);
	}
	close(go[0]);
	ASSERT_EQ(revoke_fd(fd), 0);
	close(go[1]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), SIGBUS);
	EXPECT_EQ(munmap(p, getpagesize()), 0);
	EXPECT_EQ(close(fd), 0);
	EXPECT_EQ(test_revoke_param("late_calls"), 0);
}

/*
 * revoke(path) of a tmpfs file: shared and private mappings of its
 * revokable files go, private copies of the page included; a mapping of a
 * file opened without O_REVOKABLE keeps working.
 */
TEST(tmpfs_file)
{
	char path[] = "/tmp/revoke_mmap.XXXXXX";
	char *shared, *private, *plain_map;
	int plain, fd;

	plain = mkstemp(path);
	ASSERT_GE(plain, 0);
	ASSERT_EQ(ftruncate(plain, getpagesize()), 0);
	fd = open(path, O_RDWR | O_REVOKABLE);
	ASSERT_GE(fd, 0);
	shared = map(fd, MAP_SHARED);
	ASSERT_NE(shared, MAP_FAILED);
	private = map(fd, MAP_PRIVATE);
	ASSERT_NE(private, MAP_FAILED);
	plain_map = map(plain, MAP_SHARED);
	ASSERT_NE(plain_map, MAP_FAILED);
	shared[0] = 's';
	EXPECT_EQ(plain_map[0], 's');
	private[1] = 'p';

	ASSERT_EQ(revoke_path(path), 0);
	EXPECT_EQ(touch_signal(shared), SIGBUS);
	EXPECT_EQ(touch_signal(private), SIGBUS);
	EXPECT_EQ(touch_signal(plain_map), 0);
	EXPECT_EQ(plain_map[0], 's');
	EXPECT_EQ(map(fd, MAP_SHARED), MAP_FAILED);
	EXPECT_EQ(errno, ENODEV);

	munmap(shared, getpagesize());
	munmap(private, getpagesize());
	munmap(plain_map, getpagesize());
	close(fd);
	close(plain);
	unlink(path);
}

/*
 * A mapping split by mprotect(), part of it moved by mremap(), and a
 * child's copy of it made by fork(), all before the revoke: every piece
 * of it raises SIGBUS afterwards, in both processes.
 */
TEST(split_moved_and_forked)
{
	char path[] = "/tmp/revoke_mmap.XXXXXX";
	long page = getpagesize();
	char *p, *moved;
	int fd, status;
	pid_t child;

	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, 3 * page), 0);
	close(fd);
	fd = open(path, O_RDWR | O_REVOKABLE);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	ASSERT_EQ(mprotect(p + page, page, PROT_READ), 0);
	/* A place of our own to move the last page to. */
	moved = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(moved, MAP_FAILED);
	moved = mremap(p + 2 * page, page, page, MREMAP_MAYMOVE | MREMAP_FIXED,
		       moved);
	ASSERT_NE(moved, MAP_FAILED);
	moved[0] = 'm';

	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		/* Wait for the parent's revoke, then touch the copies. */
		while (access(path, F_OK) == 0)
			usleep(1000);
		_exit(touch_signal(p) == SIGBUS &&
		      touch_signal(p + page) == SIGBUS &&
		      touch_signal(moved) == SIGBUS ? 0 : 1);
	}
	ASSERT_EQ(revoke_path(path), 0);
	EXPECT_EQ(touch_signal(p), SIGBUS);
	EXPECT_EQ(touch_signal(p + page), SIGBUS);
	EXPECT_EQ(touch_signal(moved), SIGBUS);
	ASSERT_EQ(unlink(path), 0);
	ASSERT_EQ(waitpid(child, &status, 0), child);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	munmap(p, 2 * page);
	munmap(moved, page);
	close(fd);
}

TEST_HARNESS_MAIN
