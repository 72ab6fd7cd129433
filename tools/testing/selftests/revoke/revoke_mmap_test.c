// SPDX-License-Identifier: GPL-2.0
/*
 * Mappings of revokable files: after revoke, touching a mapping of the
 * revoked file raises SIGBUS, in every process that shares it, while the
 * mappings of the inode's other files keep working; mmap() of a revoked
 * file fails with ENODEV; the driver sees no call after its ->release.
 */
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

TEST_HARNESS_MAIN
