// SPDX-License-Identifier: GPL-2.0
/*
 * A PCI device removed through sysfs while its files are open: QEMU's
 * "edu" device (kit/boot adds it), which no driver binds to.  Its "vendor"
 * attribute, its config space, its BAR (resource0, mapped) and its
 * /proc/bus/pci file are open when "remove" is written, a self-removing
 * attribute.  Afterwards calls fail as they did before kernfs and procfs
 * used the core (-ENODEV for sysfs, -EIO for procfs), the BAR's mapping
 * raises SIGBUS, and the files close; a rescan brings the device back,
 * with files that work.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "revoke.h"

#define PCI_DEVICES	"/sys/bus/pci/devices/"
#define EDU_VENDOR	"0x1234"
#define EDU_DEVICE	"0x11e8"
/* The edu device's identification register, BAR 0 offset 0: version 1.0. */
#define EDU_ID		0x010000ed
#define EDU_CONFIG	"\x34\x12\xe8\x11"

static int read_line(const char *dir, const char *name, char *buf, int len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int write_one(const char *path)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, "1", 1);
	close(fd);
	return n == 1 ? 0 : -1;
}

/*
 * The edu device: its sysfs directory (@dev) and its /proc/bus/pci file
 * (@proc, "BB/SS.F" of its "DDDD:BB:SS.F" name).  The teardown rescans if
 * a test left it removed.
 */
FIXTURE(pci) {
	char dev[PATH_MAX];
	char proc[PATH_MAX];
};

FIXTURE_SETUP(pci)
{
	char vendor[16], device[16], dir[PATH_MAX];
	const char *name = NULL;
	struct dirent *de;
	DIR *d;

	d = opendir(PCI_DEVICES);
	if (!d)
		SKIP(return, "no " PCI_DEVICES " (CONFIG_PCI)");
	while ((de = readdir(d))) {
		snprintf(dir, sizeof(dir), PCI_DEVICES "%s", de->d_name);
		if (!read_line(dir, "vendor", vendor, sizeof(vendor)) &&
		    !read_line(dir, "device", device, sizeof(device)) &&
		    !strcmp(vendor, EDU_VENDOR) && !strcmp(device, EDU_DEVICE)) {
			name = de->d_name;
			break;
		}
	}
	if (name) {
		snprintf(self->dev, sizeof(self->dev), "%s", dir);
		ASSERT_EQ(strlen(name), 12);
		snprintf(self->proc, sizeof(self->proc),
			 "/proc/bus/pci/%.2s/%s", name + 5, name + 8);
	}
	closedir(d);
	if (!name)
		SKIP(return, "no edu device (qemu -device edu)");
}

FIXTURE_TEARDOWN(pci)
{
	if (self->dev[0] && access(self->dev, F_OK))
		EXPECT_EQ(write_one("/sys/bus/pci/rescan"), 0);
}

static int open_in(const char *dir, const char *name, int flags)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, flags);
}

static int remove_device(const char *dev)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/remove", dev);
	return write_one(path);
}

/* BAR 0 of the device mapped through @fd, its resource0: NULL if not. */
static uint32_t *map_bar(int fd)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* A register of the BAR, read from the device each time. */
static uint32_t bar_read(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

TEST_F(pci, remove_then_rescan)
{
	int vendor, config, bar, proc;
	uint32_t *p;
	char buf[16];

	vendor = open_in(self->dev, "vendor", O_RDONLY);
	config = open_in(self->dev, "config", O_RDONLY);
	bar = open_in(self->dev, "resource0", O_RDWR);
	proc = open(self->proc, O_RDONLY);
	ASSERT_GE(vendor, 0);
	ASSERT_GE(config, 0);
	ASSERT_GE(bar, 0);
	ASSERT_GE(proc, 0);
	p = map_bar(bar);
	ASSERT_NE(p, NULL);
	EXPECT_EQ(bar_read(p), EDU_ID);
	ASSERT_EQ(pread(config, buf, 4, 0), 4);
	EXPECT_EQ(memcmp(buf, EDU_CONFIG, 4), 0);
	ASSERT_EQ(pread(proc, buf, 4, 0), 4);
	EXPECT_EQ(memcmp(buf, EDU_CONFIG, 4), 0);

	ASSERT_EQ(remove_device(self->dev), 0);
	EXPECT_NE(access(self->dev, F_OK), 0);
	EXPECT_EQ(pread(vendor, buf, sizeof(buf), 0), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(pread(config, buf, 4, 0), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(map_bar(bar), NULL);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(pread(proc, buf, 4, 0), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(touch_signal((const char *)p), SIGBUS);
	EXPECT_EQ(munmap(p, 4096), 0);
	EXPECT_EQ(close(vendor), 0);
	EXPECT_EQ(close(config), 0);
	EXPECT_EQ(close(bar), 0);
	EXPECT_EQ(close(proc), 0);

	ASSERT_EQ(write_one("/sys/bus/pci/rescan"), 0);
	config = open_in(self->dev, "config", O_RDONLY);
	bar = open_in(self->dev, "resource0", O_RDWR);
	ASSERT_GE(config, 0);
	ASSERT_GE(bar, 0);
	ASSERT_EQ(pread(config, buf, 4, 0), 4);
	EXPECT_EQ(memcmp(buf, EDU_CONFIG, 4), 0);
	p = map_bar(bar);
	ASSERT_NE(p, NULL);
	EXPECT_EQ(bar_read(p), EDU_ID);
	EXPECT_EQ(munmap(p, 4096), 0);
	EXPECT_EQ(close(config), 0);
	EXPECT_EQ(close(bar), 0);
}

/*
 * A process reading config space in a loop and holding the BAR mapped
 * while the device is removed: its read fails with -ENODEV, and its next
 * touch of the BAR raises SIGBUS.
 */
TEST_F(pci, remove_under_reader)
{
	int config, bar, status;
	uint32_t *p;
	char buf[4];
	pid_t pid;

	config = open_in(self->dev, "config", O_RDONLY);
	bar = open_in(self->dev, "resource0", O_RDWR);
	ASSERT_GE(config, 0);
	ASSERT_GE(bar, 0);
	p = map_bar(bar);
	ASSERT_NE(p, NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		while (pread(config, buf, 4, 0) == 4 && bar_read(p) == EDU_ID)
			;
		if (errno != ENODEV)
			_exit(1);
		_exit(bar_read(p) == EDU_ID ? 2 : 3);
	}
	usleep(100000);
	ASSERT_EQ(remove_device(self->dev), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status)) {
		EXPECT_EQ(WTERMSIG(status), SIGBUS);
	} else {
		TH_LOG("the reader exited with %d", WEXITSTATUS(status));
		EXPECT_TRUE(WIFSIGNALED(status));
	}
	EXPECT_EQ(munmap(p, 4096), 0);
	EXPECT_EQ(close(config), 0);
	EXPECT_EQ(close(bar), 0);
}

/*
 * The config space file reads through ->read_iter: pread, a readv split
 * mid-register and the sysfs config file give the same bytes; an offset
 * past 4 GiB is cut to 32 bits as the legacy ->read did (a count, not a
 * negative one); a fault after the first register returns what was
 * copied.
 */
TEST_F(pci, config_reads)
{
	unsigned char whole[64], split[64], sys[64];
	struct iovec iov[3] = {
		{ split, 1 }, { split + 1, 3 }, { split + 4, 60 },
	};
	long page = sysconf(_SC_PAGESIZE);
	char *buf;
	int fd, sfd;

	fd = open(self->proc, O_RDONLY);
	ASSERT_GE(fd, 0);
	sfd = open_in(self->dev, "config", O_RDONLY);
	ASSERT_GE(sfd, 0);
	ASSERT_EQ(pread(fd, whole, sizeof(whole), 0), sizeof(whole));
	ASSERT_EQ(preadv(fd, iov, 3, 0), sizeof(split));
	ASSERT_EQ(pread(sfd, sys, sizeof(sys), 0), sizeof(sys));
	EXPECT_EQ(memcmp(whole, split, sizeof(split)), 0);
	EXPECT_EQ(memcmp(whole, sys, sizeof(sys)), 0);
	EXPECT_EQ(pread(fd, split, 4, 1LL << 32), 4);
	EXPECT_EQ(memcmp(whole, split, 4), 0);

	buf = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(buf, MAP_FAILED);
	ASSERT_EQ(munmap(buf + page, page), 0);
	EXPECT_EQ(pread(fd, buf + page - 4, 16, 0), 4);
	EXPECT_EQ(memcmp(buf + page - 4, whole, 4), 0);
	EXPECT_EQ(munmap(buf, page), 0);
	EXPECT_EQ(close(sfd), 0);
	EXPECT_EQ(close(fd), 0);
}

TEST_HARNESS_MAIN
