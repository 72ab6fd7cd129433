/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read every readable regular file under a directory once, up to 64 KiB
 * and a second each, for KASAN and lockdep to watch each open, read and
 * release on the debug kernel.  A SIGALRM handler without SA_RESTART ends
 * a read that would block.  /proc/kmsg is left alone: reading it takes
 * the kernel log from the console's readers.
 */
#ifndef __REVOKE_READ_TREE_H
#define __REVOKE_READ_TREE_H

#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_tree_files;

static void read_tree_alarm(int sig)
{
}

static int read_tree_file(const char *path, const struct stat *st, int type,
			  struct FTW *ftw)
{
	size_t total = 0;
	char buf[4096];
	ssize_t n;
	int fd;

	if (type != FTW_F || !S_ISREG(st->st_mode) || !(st->st_mode & 0444) ||
	    !strcmp(path, "/proc/kmsg"))
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	alarm(1);
	while (total < 65536 && (n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	alarm(0);
	close(fd);
	read_tree_files++;
	return 0;
}

/* The number of files read under @root, or -1. */
static inline int read_tree(const char *root)
{
	struct sigaction sa = { .sa_handler = read_tree_alarm };

	read_tree_files = 0;
	if (sigaction(SIGALRM, &sa, NULL) ||
	    nftw(root, read_tree_file, 16, FTW_PHYS | FTW_MOUNT))
		return -1;
	return read_tree_files;
}

#endif /* __REVOKE_READ_TREE_H */
