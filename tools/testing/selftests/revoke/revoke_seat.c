// SPDX-License-Identifier: GPL-2.0
/*
 * A login manager's device handoff, as logind does it with EVIOCREVOKE
 * for evdev and DRM master for GPUs, here for any revokable device: the
 * manager opens the seat's device for a session with O_REVOKABLE, keeps
 * its copy and hands the session one over a UNIX socket (SCM_RIGHTS).
 * When the seat switches sessions, the manager revokes its copy, which
 * is the session's open file description too: the old session, blocked
 * reading, gets end of file, POLLHUP and EIO, and the next session gets
 * a fresh descriptor that works.  The device is the test driver's
 * /dev/test_revoke, a pipe-like character device: what the manager
 * writes to it are the seat's input events.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest.h"
#include "revoke.h"

/* Send @fd over @sock with a one-byte message. */
static int send_fd(int sock, int fd)
{
	char cmsg[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = "f", .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cmsg, .msg_controllen = sizeof(cmsg),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

/* Receive a descriptor sent by send_fd(), or -1. */
static int recv_fd(int sock)
{
	char cmsg[CMSG_SPACE(sizeof(int))];
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cmsg, .msg_controllen = sizeof(cmsg),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * A session: take the device from the manager, read events from it until
 * it stops working, and report each step on @sock as a line.  Reports
 * "event X" for each event read, then what the device gave once cut off.
 */
static void session(int sock, const char *name)
{
	struct pollfd pfd = { .events = POLLIN };
	char buf[64], ev;
	ssize_t n;
	int fd;

	fd = recv_fd(sock);
	if (fd < 0)
		_exit(1);
	if (!(fcntl(fd, F_GETFL) & O_REVOKABLE))
		_exit(2);
	while ((n = read(fd, &ev, 1)) == 1) {
		n = snprintf(buf, sizeof(buf), "%s: event %c\n", name, ev);
		write(sock, buf, n);
	}
	pfd.fd = fd;
	poll(&pfd, 1, 0);
	n = snprintf(buf, sizeof(buf), "%s: read %zd, poll %s, write %s\n",
		     name, n, pfd.revents & POLLHUP ? "POLLHUP" : "no POLLHUP",
		     write(fd, "x", 1) < 0 ? strerror(errno) : "worked");
	write(sock, buf, n);
	_exit(close(fd) ? 3 : 0);
}

struct seat {
	int events;		/* the manager's own descriptor, for events */
	int active;		/* its copy of the active session's device */
};

/*
 * Start session @name and make it the active one: open the device for
 * it, revokable, keep a copy, hand it over.  Returns the session's end
 * of the socket's partner, for its reports.
 */
static int start_session(struct seat *seat, const char *name, pid_t *pid)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (!*pid) {
		close(sv[0]);
		session(sv[1], name);
	}
	close(sv[1]);
	seat->active = open(TEST_REVOKE_DEV, O_RDWR | O_REVOKABLE);
	if (seat->active < 0 || send_fd(sv[0], seat->active))
		return -1;
	return sv[0];
}

/* Switch away from the active session: revoke its device, all of it. */
static int end_session(struct seat *seat)
{
	int ret = revoke_fd(seat->active);

	close(seat->active);
	seat->active = -1;
	return ret;
}

/* Read one report line of a session, and check it is @want. */
static int expect(int sock, const char *want)
{
	char line[128];
	size_t len = 0;

	while (len < sizeof(line) - 1 && read(sock, line + len, 1) == 1 &&
	       line[len] != '\n')
		len++;
	line[len] = '\0';
	printf("# %s\n", line);
	if (strcmp(line, want)) {
		printf("# expected: %s\n", want);
		return -1;
	}
	return 0;
}

int main(void)
{
	struct seat seat = { .active = -1 };
	int a, b, status, fail = 0;
	pid_t pa, pb;

	ksft_print_header();
	ksft_set_plan(1);
	seat.events = open(TEST_REVOKE_DEV, O_RDWR);
	if (seat.events < 0)
		ksft_exit_skip("no " TEST_REVOKE_DEV " (CONFIG_TEST_REVOKE)\n");

	a = start_session(&seat, "session 1", &pa);
	if (a < 0)
		ksft_exit_fail_msg("session 1: %s\n", strerror(errno));
	write(seat.events, "a", 1);
	fail |= expect(a, "session 1: event a");

	/* The switch: session 1 is blocked in read() while it is revoked. */
	if (end_session(&seat))
		ksft_exit_fail_msg("revoke: %s\n", strerror(errno));
	fail |= expect(a, "session 1: read 0, poll POLLHUP, write Input/output error");
	fail |= waitpid(pa, &status, 0) != pa || status;

	b = start_session(&seat, "session 2", &pb);
	if (b < 0)
		ksft_exit_fail_msg("session 2: %s\n", strerror(errno));
	write(seat.events, "b", 1);
	fail |= expect(b, "session 2: event b");
	fail |= end_session(&seat);
	fail |= expect(b, "session 2: read 0, poll POLLHUP, write Input/output error");
	fail |= waitpid(pb, &status, 0) != pb || status;

	/* The manager's own descriptor was never revokable, and still works. */
	fail |= write(seat.events, "c", 1) != 1;
	fail |= close(seat.events);
	ksft_test_result(!fail, "seat handoff\n");
	ksft_finished();
}
