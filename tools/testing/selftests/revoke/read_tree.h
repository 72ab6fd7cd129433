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

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "revoke.h"

static int read_tree_files;

static void read_tree_alarm(int sig)
{
}

static void read_tree_file(const char *path)
{
	size_t total = 0;
	char buf[4096];
	ssize_t n;
	int fd;

	if (!strcmp(path, "/proc/kmsg"))
		return;
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return;
	alarm(1);
	while (total < 65536 && (n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	alarm(0);
	close(fd);
	read_tree_files++;
}

/*
 * Not nftw(): it gives up on a directory that vanished under it, as
 * /proc/PID of a worker thread exiting does.  Symlinks are not followed,
 * nor mounts crossed.
 */
static void read_tree_dir(const char *path, dev_t dev)
{
	char sub[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *dir;

	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (lstat(sub, &st) || st.st_dev != dev)
			continue;
		if (S_ISDIR(st.st_mode))
			read_tree_dir(sub, dev);
		else if (S_ISREG(st.st_mode) && (st.st_mode & 0444))
			read_tree_file(sub);
	}
	closedir(dir);
}

/* The number of files read under @root, or -1. */
static inline int read_tree(const char *root)
{
	struct sigaction sa = { .sa_handler = read_tree_alarm };
	struct stat st;

	read_tree_files = 0;
	if (sigaction(SIGALRM, &sa, NULL) || stat(root, &st))
		return -1;
	read_tree_dir(root, st.st_dev);
	return read_tree_files;
}

/*
 * read_tree(), with the test device's files under @root too, if there is
 * a test device: its ioctls @add them before, and @remove them after.
 */
static inline int read_tree_with_device(const char *root, unsigned long add,
					unsigned long remove)
{
	int ctl = open(TEST_REVOKE_DEV, O_RDWR);
	int files;

	if (ctl >= 0 && ioctl(ctl, add))
		files = -1;
	else
		files = read_tree(root);
	if (ctl >= 0 && (ioctl(ctl, remove) || close(ctl)))
		files = -1;
	return files;
}

#endif /* __REVOKE_READ_TREE_H */
