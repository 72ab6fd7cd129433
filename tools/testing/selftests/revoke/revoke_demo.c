// SPDX-License-Identifier: GPL-2.0
/*
 * What revoke looks like: a process reads the test device, another revokes
 * it, and each says what it sees.  Run by 'make' in the QEMU guest.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "revoke.h"

static void say(const char *who, const char *fmt, const char *what, long ret)
{
	printf("  %-8s %s", who, fmt);
	if (what)
		printf(" \"%s\"", what);
	if (ret < 0)
		printf(" = -1 %s\n", strerror(errno));
	else
		printf(" = %ld\n", ret);
	fflush(stdout);
}

int main(void)
{
	int go[2], done[2], fd, status;
	char buf[16];
	long n;
	pid_t reader;

	printf("revoke demo: every open of /dev/test_revoke can be revoked\n");
	if (pipe(go) || pipe(done))
		return 1;
	reader = fork();
	if (reader == 0) {
		fd = open(TEST_REVOKE_DEV, O_RDWR);
		say("reader", "open(\"" TEST_REVOKE_DEV "\")", NULL, fd);
		n = read(fd, buf, 5);
		buf[n > 0 ? n : 0] = 0;
		say("reader", "read()", buf, n);
		write(done[1], "", 1);
		read(go[0], buf, 1);	/* wait for the revoke */
		n = read(fd, buf, sizeof(buf));
		say("reader", "read() after revoke (end of file)", NULL, n);
		n = write(fd, "x", 1);
		say("reader", "write() after revoke", NULL, n);
		say("reader", "close()", NULL, close(fd));
		_exit(0);
	}
	fd = open(TEST_REVOKE_DEV, O_WRONLY);
	say("writer", "write()", "hello", write(fd, "hello", 5));
	read(done[0], buf, 1);
	printf("  driver   opens=%d releases=%d\n", test_revoke_param("opens"),
	       test_revoke_param("releases"));
	say("revoker", "revoke(\"" TEST_REVOKE_DEV "\")", NULL, revoke_path(TEST_REVOKE_DEV));
	printf("  driver   opens=%d releases=%d (released by revoke, before any close)\n",
	       test_revoke_param("opens"), test_revoke_param("releases"));
	say("writer", "write() after revoke", NULL, write(fd, "again", 5));
	write(go[1], "", 1);
	waitpid(reader, &status, 0);
	close(fd);
	printf("  driver   opens=%d releases=%d late calls=%d\n", test_revoke_param("opens"),
	       test_revoke_param("releases"), test_revoke_param("late_calls"));
	return test_revoke_param("late_calls") == 0 &&
	       test_revoke_param("opens") == test_revoke_param("releases") ? 0 : 1;
}
