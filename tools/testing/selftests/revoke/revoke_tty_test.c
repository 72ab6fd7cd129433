// SPDX-License-Identifier: GPL-2.0
/*
 * Terminals on the revokable-file core: a hangup closes the gate of every
 * file open on the terminal, and revoke(2) of a terminal's node hangs it
 * up, as BSD's revoke(2) does for login and getty.
 *
 * revoke(2) of a pty slave's node sends SIGHUP to the session whose
 * controlling terminal it is, cuts off every file open on it, through
 * that node or /dev/tty, and returns their number; a new open works, and
 * the old files stay hung up after it.  A reader blocked in read() and a
 * writer blocked on a full pty are woken.  revokeat(REVOKE_FILE) cuts
 * one descriptor off and leaves the terminal alone.  A revokable open
 * (O_REVOKABLE) is hung up by vhangup() like any other.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>

#include "../kselftest_harness.h"
#include "revoke.h"
#include "waiter.h"

/* A pty's master; the unlocked slave's path in @name. */
static int open_pty(char *name, size_t len)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);

	if (master < 0 || grantpt(master) || unlockpt(master) ||
	    ptsname_r(master, name, len))
		return -1;
	return master;
}

/* What a hung-up terminal's descriptor does: 0, or which call was wrong. */
static int hung_up(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct termios t;
	pid_t pgrp = getpgrp();
	char c;

	if (read(fd, &c, 1) != 0)
		return 1;
	if (write(fd, "x", 1) != -1 || errno != EIO)
		return 2;
	if (tcgetattr(fd, &t) != -1 || errno != EIO)
		return 3;
	if (ioctl(fd, TIOCSPGRP, &pgrp) != -1 || errno != ENOTTY)
		return 4;
	if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLHUP))
		return 5;
	return 0;
}

/* Both descriptors hung up: 0, or 20 + the wrong call of @a, 30 + @b's. */
static int both_hung_up(int a, int b)
{
	int ret = hung_up(a);

	if (ret)
		return 20 + ret;
	ret = hung_up(b);
	return ret ? 30 + ret : 0;
}

/*
 * A session leader with the slave as controlling terminal, opened through
 * its node and through /dev/tty.  revoke(2) of the node hangs up both,
 * SIGHUP comes, the terminal is no longer the session's; a new open by
 * the revoker works and the old descriptors stay dead after it.
 */
TEST(revoke_path_hangs_up_session)
{
	int ready[2], go[2], master, fd, status;
	char name[64], c;
	pid_t pid;

	master = open_pty(name, sizeof(name));
	ASSERT_GE(master, 0);
	ASSERT_EQ(pipe(ready), 0);
	ASSERT_EQ(pipe(go), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		int tty, dev_tty, ret;
		sigset_t hup, pending;

		/* Held pending, to be seen afterwards. */
		sigemptyset(&hup);
		sigaddset(&hup, SIGHUP);
		if (sigprocmask(SIG_BLOCK, &hup, NULL) || setsid() < 0)
			_exit(10);
		tty = open(name, O_RDWR);	/* the controlling terminal */
		dev_tty = open("/dev/tty", O_RDWR);
		if (tty < 0 || dev_tty < 0)
			_exit(11);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(12);
		if (sigpending(&pending) || !sigismember(&pending, SIGHUP))
			_exit(13);
		ret = both_hung_up(tty, dev_tty);
		if (ret)
			_exit(ret);
		if (open("/dev/tty", O_RDWR) != -1 || errno != ENXIO)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(read(ready[0], &c, 1), 1);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, name, 0), 2);
	fd = open(name, O_RDWR | O_NOCTTY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(write(fd, "n", 1), 1);
	EXPECT_EQ(read(master, &c, 1), 1);
	EXPECT_EQ(c, 'n');
	ASSERT_EQ(write(go[1], "g", 1), 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	close(fd);
	close(master);
}

/* The slave of a new pty, not as controlling terminal; its master. */
FIXTURE(pty) {
	char name[64];
	int master;
	int slave;
};

FIXTURE_SETUP(pty)
{
	struct termios t;

	self->master = open_pty(self->name, sizeof(self->name));
	ASSERT_GE(self->master, 0);
	self->slave = open(self->name, O_RDWR | O_NOCTTY);
	ASSERT_GE(self->slave, 0);
	/* Raw: a byte written is a byte to read. */
	ASSERT_EQ(tcgetattr(self->slave, &t), 0);
	cfmakeraw(&t);
	ASSERT_EQ(tcsetattr(self->slave, TCSANOW, &t), 0);
}

FIXTURE_TEARDOWN(pty)
{
	close(self->slave);
	close(self->master);
}

TEST_F(pty, blocked_reader_woken)
{
	struct waiter w;

	waiter_start(&w, self->slave, wait_read);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, self->name, 0), 1);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, 0);
	EXPECT_EQ(hung_up(self->slave), 0);
}

static int wait_write(struct waiter *w)
{
	return write(w->fd, "w", 1);
}

/* The master reads nothing: the slave's writes fill the pty. */
TEST_F(pty, blocked_writer_woken)
{
	char buf[4096] = { 0 };
	struct waiter w;
	int flags = fcntl(self->slave, F_GETFL);

	ASSERT_EQ(fcntl(self->slave, F_SETFL, flags | O_NONBLOCK), 0);
	while (write(self->slave, buf, sizeof(buf)) > 0)
		;
	ASSERT_EQ(errno, EAGAIN);
	ASSERT_EQ(fcntl(self->slave, F_SETFL, flags), 0);

	waiter_start(&w, self->slave, wait_write);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, self->name, 0), 1);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, -1);
	EXPECT_EQ(w.err, EIO);
}

/* REVOKE_FILE: that descriptor is hung up, the terminal works. */
TEST_F(pty, revoke_one_descriptor)
{
	int other = open(self->name, O_RDWR | O_NOCTTY);
	char c;

	ASSERT_GE(other, 0);
	EXPECT_EQ(sys_revokeat(self->slave, "", REVOKE_FILE), 1);
	EXPECT_EQ(hung_up(self->slave), 0);
	EXPECT_EQ(write(other, "o", 1), 1);
	EXPECT_EQ(read(self->master, &c, 1), 1);
	EXPECT_EQ(c, 'o');
	close(other);
}

/* The kernel log from now on, for what a tty's close warns of. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

static bool kmsg_has(int fd, const char *what)
{
	bool found = false;
	char rec[1024];
	ssize_t n;

	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 ||
	       (n < 0 && errno == EPIPE)) {
		if (n > 0) {
			rec[n] = 0;
			found |= !!strstr(rec, what);
		}
	}
	return found;
}

/*
 * A descriptor revoked alone is not hung up: its last close counts in the
 * port's count of opens, as any close does (ttynull is a tty_port's).  A
 * close taken for a hung-up file's would leave the count one too high,
 * and the next plain close would warn.
 */
TEST(revoked_alone_closes_as_any)
{
	int kmsg, fd, i;

	if (access("/dev/ttynull", F_OK))
		SKIP(return, "no /dev/ttynull (CONFIG_NULL_TTY)");
	kmsg = kmsg_open();
	ASSERT_GE(kmsg, 0);
	for (i = 0; i < 2; i++) {
		fd = open("/dev/ttynull", O_RDWR | O_NOCTTY);
		ASSERT_GE(fd, 0);
		if (!i)
			EXPECT_EQ(sys_revokeat(fd, "", REVOKE_FILE), 1);
		EXPECT_EQ(close(fd), 0);
	}
	EXPECT_FALSE(kmsg_has(kmsg, "port count"));
	close(kmsg);
}

/*
 * A node of a terminal on a nodev mount, as a user namespace can make one
 * (FUSE), is no node of the terminal: revoke(2) of it hangs nothing up,
 * whoever owns it.  ttynull is found by its device number alone.
 */
TEST(nodev_node_is_no_terminal)
{
	char dir[] = "/tmp/revoke_nodev.XXXXXX", node[64];
	struct termios t;
	struct stat st;
	int fd;

	if (access("/dev/ttynull", F_OK))
		SKIP(return, "no /dev/ttynull (CONFIG_NULL_TTY)");
	fd = open("/dev/ttynull", O_RDWR | O_NOCTTY);
	ASSERT_GE(fd, 0);
	ASSERT_NE(mkdtemp(dir), NULL);
	ASSERT_EQ(mount("nodev", dir, "tmpfs", MS_NODEV, NULL), 0);
	snprintf(node, sizeof(node), "%s/tty", dir);
	ASSERT_EQ(fstat(fd, &st), 0);
	ASSERT_EQ(mknod(node, S_IFCHR | 0600, st.st_rdev), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, node, 0), 0);
	EXPECT_EQ(tcgetattr(fd, &t), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, "/dev/ttynull", 0), 1);
	EXPECT_EQ(tcgetattr(fd, &t), -1);
	umount(dir);
	rmdir(dir);
	close(fd);
}

struct splicer {
	int slave;
	int pipe[2];
	ssize_t last;
	int err;
};

static void *splice_loop(void *arg)
{
	struct splicer *s = arg;
	char buf[64];

	for (;;) {
		s->last = splice(s->slave, NULL, s->pipe[1], NULL, sizeof(buf),
				 0);
		s->err = errno;
		if (s->last <= 0)
			return NULL;
		if (read(s->pipe[0], buf, s->last) != s->last)
			return NULL;
	}
}

/* splice from the terminal while it is revoked: it ends with end of file. */
TEST_F(pty, splice_races_revoke)
{
	struct splicer s = { .slave = self->slave };
	struct timespec ts;
	pthread_t thread;
	int i;

	ASSERT_EQ(pipe(s.pipe), 0);
	ASSERT_EQ(pthread_create(&thread, NULL, splice_loop, &s), 0);
	for (i = 0; i < 200; i++)
		ASSERT_EQ(write(self->master, "line\n", 5), 5);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, self->name, 0), 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 1;
	ASSERT_EQ(pthread_timedjoin_np(thread, NULL, &ts), 0);
	EXPECT_EQ(s.last, 0);
	EXPECT_EQ(splice(self->slave, NULL, s.pipe[1], NULL, 1, 0), 0);
	close(s.pipe[0]);
	close(s.pipe[1]);
}

/*
 * vhangup(), and the next login's open: a revokable descriptor of the old
 * session is hung up with the plain one, where it once escaped the
 * hangup and wrote to the next session.
 */
TEST(vhangup_reaches_revokable_open)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		int master, tty, rev, again;
		char name[64];

		master = open_pty(name, sizeof(name));
		if (master < 0 || setsid() < 0)
			_exit(10);
		tty = open(name, O_RDWR);	/* the controlling terminal */
		rev = open(name, O_RDWR | O_REVOKABLE);
		if (tty < 0 || rev < 0)
			_exit(11);
		signal(SIGHUP, SIG_IGN);
		if (vhangup())
			_exit(12);
		again = open(name, O_RDWR | O_NOCTTY);
		if (again < 0 || write(again, "new\n", 4) != 4)
			_exit(13);
		_exit(both_hung_up(tty, rev));
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST_HARNESS_MAIN
