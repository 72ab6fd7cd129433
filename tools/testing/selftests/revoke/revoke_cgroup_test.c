// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup2 (kernfs) files on the revokable-file core.  rmdir of a cgroup
 * revokes the open files of its interface files: a PSI trigger polled
 * through epoll, then the cgroup removed, then the file closed, is the
 * shape of CVE-2023-54019 (the trigger's waitqueue freed under the epoll
 * entry); here the poller is woken, sees EPOLLERR | EPOLLPRI, and nothing
 * is left on the freed waitqueue (KASAN watches on the debug kernel).
 * Then mkdir and rmdir race writes to cgroup.procs, cgroup.pressure and
 * cpu.pressure, whose methods break their active protection to take
 * cgroup_mutex (cgroup_kn_lock_live()), for REVOKE_RACE_SECONDS (default
 * 1; the kit's debug kernel runs it for a minute); so does revoke(2) of
 * those files, against their opens too.  revoke(2) of a cgroup file is
 * for its owner: the user a cgroup was delegated to.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "race.h"
#include "revoke.h"
#include "waiter.h"

#define ROOT	"/tmp/revoke_cgroup"
#define CG	ROOT "/test"
#define TRIGGER	"some 150000 1000000"

/* Not <sys/mount.h>: its BLK* macros clash with <linux/fs.h>'s. */
static int mount_cgroup2(const char *dir)
{
	return syscall(__NR_mount, "none", dir, "cgroup2", 0, NULL);
}

static int umount_dir(const char *dir)
{
	return syscall(__NR_umount2, dir, 0);
}

/* /tmp/revoke_cgroup, a cgroup2 mount with PSI, and no cgroup in it yet. */
FIXTURE(cgroup) {
	bool mounted;
};

FIXTURE_SETUP(cgroup)
{
	self->mounted = false;
	mkdir(ROOT, 0755);
	if (mount_cgroup2(ROOT)) {
		if (errno == ENODEV)
			SKIP(return, "no cgroup2 (CONFIG_CGROUPS)");
		ASSERT_EQ(errno, 0);
	}
	self->mounted = true;
	rmdir(CG);
	ASSERT_EQ(mkdir(CG, 0755), 0);
	if (access(CG "/cpu.pressure", F_OK))
		SKIP(return, "no cpu.pressure (CONFIG_PSI)");
}

FIXTURE_TEARDOWN(cgroup)
{
	if (!self->mounted)
		return;
	rmdir(CG);
	EXPECT_EQ(umount_dir(ROOT), 0);
}

static int open_trigger(void)
{
	int fd = open(CG "/cpu.pressure", O_RDWR | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (write(fd, TRIGGER, strlen(TRIGGER) + 1) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* epoll on a PSI trigger, rmdir, then epoll_wait, then close. */
TEST_F(cgroup, psi_epoll_rmdir_close)
{
	struct epoll_event ev = { .events = EPOLLPRI };
	int fd = open_trigger(), ep = epoll_create1(0);

	ASSERT_GE(fd, 0);
	ASSERT_GE(ep, 0);
	ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	EXPECT_EQ(epoll_wait(ep, &ev, 1, 0), 0);
	ASSERT_EQ(rmdir(CG), 0);
	ASSERT_EQ(epoll_wait(ep, &ev, 1, 0), 1);
	EXPECT_TRUE(ev.events & EPOLLPRI);
	EXPECT_TRUE(ev.events & EPOLLERR);
	EXPECT_EQ(write(fd, TRIGGER, strlen(TRIGGER) + 1), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(close(fd), 0);
	EXPECT_EQ(epoll_wait(ep, &ev, 1, 0), 0);
	EXPECT_EQ(close(ep), 0);
}

/* A poller asleep on the trigger when the cgroup goes is woken. */
TEST_F(cgroup, psi_poller_woken_by_rmdir)
{
	int fd = open_trigger();
	struct waiter w;

	ASSERT_GE(fd, 0);
	waiter_start(&w, fd, wait_epoll_pri);
	ASSERT_EQ(rmdir(CG), 0);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, 1);
	EXPECT_TRUE(w.events & EPOLLERR);
	EXPECT_EQ(close(fd), 0);
}

/* Run revoke(2) of @path as @uid, without capabilities: 0 or its errno. */
static int revoke_as(uid_t uid, const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setgid(uid) || setuid(uid))
			_exit(255);
		_exit(revoke_path(path) ? errno : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * revoke(2) of a cgroup file is for its owner, as for any file: the user a
 * cgroup was delegated to (cgroups(7), "Cgroups delegation"), who owns
 * its directory, cgroup.procs, cgroup.threads and cgroup.subtree_control,
 * may revoke the open files of those, whoever opened them, and of no
 * other file of the cgroup.
 */
TEST_F(cgroup, delegated_owner_revokes)
{
	const uid_t owner = 65534, other = 65533;
	char buf[64];
	int fd;

	ASSERT_EQ(chown(CG, owner, owner), 0);
	ASSERT_EQ(chown(CG "/cgroup.procs", owner, owner), 0);
	fd = open(CG "/cgroup.procs", O_RDONLY);
	ASSERT_GE(fd, 0);

	EXPECT_EQ(revoke_as(other, CG "/cgroup.procs"), EPERM);
	EXPECT_EQ(revoke_as(owner, CG "/cgroup.events"), EPERM);
	EXPECT_EQ(pread(fd, buf, sizeof(buf), 0), 0);

	EXPECT_EQ(revoke_as(owner, CG "/cgroup.procs"), 0);
	EXPECT_EQ(pread(fd, buf, sizeof(buf), 0), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(close(fd), 0);

	/* The file stays, and a new open of it works. */
	fd = open(CG "/cgroup.procs", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(pread(fd, buf, sizeof(buf), 0), 0);
	EXPECT_EQ(close(fd), 0);
}

/* What a write of the racing threads may fail with. */
static bool expected_error(int err)
{
	/* gone (ENOENT, ENODEV), or no such pid (ESRCH) */
	return err == ENOENT || err == ENODEV || err == ESRCH;
}

static const char *const race_files[][2] = {
	/* a pid that does not exist: the write takes cgroup_mutex, fails */
	{ "cgroup.procs", "2147483647" },
	{ "cgroup.pressure", "1" },
	{ "cpu.pressure", TRIGGER },
};

static int race_writes;		/* that succeeded */
static int race_errors;		/* not expected */

/* Opens each file, writes to it and closes it, until told to stop. */
static void *write_loop(void *arg)
{
	struct race *r = arg;
	char path[128];
	int i, fd;

	while (!race_stopped(r)) {
		for (i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), CG "/%s", race_files[i][0]);
			fd = open(path, O_WRONLY);
			if (fd >= 0) {
				race_opened(r);
				if (write(fd, race_files[i][1],
					  strlen(race_files[i][1])) >= 0)
					__atomic_fetch_add(&race_writes, 1,
							   __ATOMIC_RELAXED);
				else if (!expected_error(errno))
					__atomic_fetch_add(&race_errors, 1,
							   __ATOMIC_RELAXED);
				close(fd);
			} else if (!expected_error(errno)) {
				__atomic_fetch_add(&race_errors, 1,
						   __ATOMIC_RELAXED);
			}
		}
	}
	return NULL;
}

/*
 * Race @remove_add against write_loop() (race.h); the number of
 * unexpected errors, or -1 if @remove_add failed.  @what names a round.
 */
static int race_writes_with(int (*remove_add)(struct race *r),
			    const char *what,
			    struct __test_metadata *_metadata)
{
	struct race r = {};

	race_writes = 0;
	race_errors = 0;
	if (race_removals(&r, write_loop, remove_add))
		return -1;
	TH_LOG("%d %s, %d opens, %d writes in %ld s", r.rounds, what,
	       r.opened, race_writes, r.seconds);
	return race_errors;
}

static int rmdir_mkdir(struct race *r)
{
	return rmdir(CG) ?: mkdir(CG, 0755);
}

/*
 * rmdir and mkdir racing writes to cgroup.procs, cgroup.pressure and
 * cpu.pressure from three threads (race.h), whose methods break their
 * active protection to take cgroup_mutex: each write succeeds or fails as
 * the cgroup's removal makes it, and no PSI trigger outlives its cgroup.
 */
TEST_F_TIMEOUT(cgroup, rmdir_races_writes, 150)
{
	EXPECT_EQ(race_writes_with(rmdir_mkdir, "rmdirs", _metadata), 0);
	EXPECT_GT(race_writes, 0);
}

static int revoke_files(struct race *r)
{
	char path[128];
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), CG "/%s", race_files[i][0]);
		if (revoke_path(path))
			return -1;
	}
	return 0;
}

/*
 * revoke(2) of the same files racing their opens and writes: a file is
 * released by revoke only once its ->open has returned (cgroup's sets up
 * the state its ->release frees), and each write succeeds or fails with
 * ENODEV.
 */
TEST_F_TIMEOUT(cgroup, revoke_races_opens, 150)
{
	EXPECT_EQ(race_writes_with(revoke_files, "revokes", _metadata), 0);
	EXPECT_GT(race_writes, 0);
}

TEST_HARNESS_MAIN
