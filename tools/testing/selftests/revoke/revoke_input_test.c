// SPDX-License-Identifier: GPL-2.0
/*
 * Input devices on the revokable-file core: evdev's EVIOCREVOKE and
 * hidraw's HIDIOCREVOKE revoke their file, as revokeat(fd, "",
 * REVOKE_FILE) does, so that a seat manager has one call for every
 * device.  The devices are made from user space: a keyboard through
 * uinput (evdev), a HID device through uhid (hidraw).
 *
 * A client blocked in read() is woken with ENODEV by either revoke (on
 * 6.12, HIDIOCREVOKE left it asleep until the device went away); later
 * reads, writes and ioctls fail with ENODEV, poll reports POLLHUP and
 * POLLERR; another client of the device keeps its events; revoke(2) of
 * the device node revokes every client, and a new open works.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/hidraw.h>
#include <linux/input.h>
#include <linux/uhid.h>
#include <linux/uinput.h>

#include "../kselftest_harness.h"
#include "revoke.h"
#include "waiter.h"

/*
 * The device node in @devdir of the first entry of the sysfs directory
 * @dir whose name starts with @prefix ("event", "hidraw"), into @path:
 * 0, or -1.
 */
static int find_node(const char *dir, const char *prefix, char *path,
		     size_t size, const char *devdir)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int ret = -1;

	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		if (!strncmp(d->d_name, prefix, strlen(prefix))) {
			snprintf(path, size, "%s%s", devdir, d->d_name);
			ret = 0;
			break;
		}
	}
	closedir(dp);
	return ret;
}

static int wait_read_event(struct waiter *w)
{
	struct input_event ev;

	return read(w->fd, &ev, sizeof(ev));
}

static int wait_read_report(struct waiter *w)
{
	char report[8];

	return read(w->fd, report, sizeof(report));
}

/*
 * A reader blocked in read() of @fd is woken with ENODEV by the ioctl @cmd
 * (EVIOCREVOKE, HIDIOCREVOKE), or by revokeat(REVOKE_FILE) if @cmd is 0.
 */
static void revoke_blocked_reader(struct __test_metadata *_metadata, int fd,
				  unsigned long cmd,
				  int (*wait)(struct waiter *w))
{
	struct waiter w;

	waiter_start(&w, fd, wait);
	ASSERT_EQ(cmd ? ioctl(fd, cmd, NULL) : revoke_fd(fd), 0);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, -1);
	EXPECT_EQ(w.err, ENODEV);
}

FIXTURE(evdev) {
	int uinput;
	char node[PATH_MAX];
	int fd[2];		/* two clients of the device */
};

FIXTURE_SETUP(evdev)
{
	struct uinput_setup setup = {
		.id = { .bustype = BUS_VIRTUAL, .vendor = 1, .product = 1 },
		.name = "revoke_input_test",
	};
	char sysname[32], dir[128];
	int i;

	self->fd[0] = -1;
	self->fd[1] = -1;
	self->uinput = open("/dev/uinput", O_RDWR);
	if (self->uinput < 0 && errno == ENOENT)
		SKIP(return, "no /dev/uinput (CONFIG_INPUT_UINPUT)");
	ASSERT_GE(self->uinput, 0);
	ASSERT_EQ(ioctl(self->uinput, UI_SET_EVBIT, EV_KEY), 0);
	ASSERT_EQ(ioctl(self->uinput, UI_SET_KEYBIT, KEY_A), 0);
	ASSERT_EQ(ioctl(self->uinput, UI_DEV_SETUP, &setup), 0);
	ASSERT_EQ(ioctl(self->uinput, UI_DEV_CREATE), 0);
	ASSERT_GE(ioctl(self->uinput, UI_GET_SYSNAME(sizeof(sysname)),
			sysname), 0);
	snprintf(dir, sizeof(dir), "/sys/class/input/%s", sysname);
	ASSERT_EQ(find_node(dir, "event", self->node, sizeof(self->node),
			    "/dev/input/"), 0);
	for (i = 0; i < 2; i++) {
		self->fd[i] = open(self->node, O_RDWR);
		ASSERT_GE(self->fd[i], 0);
	}
}

FIXTURE_TEARDOWN(evdev)
{
	close(self->fd[0]);
	close(self->fd[1]);
	if (self->uinput >= 0) {
		ioctl(self->uinput, UI_DEV_DESTROY);
		close(self->uinput);
	}
}

/* A key press and its report, from the device. */
static int press_key(int uinput)
{
	struct input_event ev[2] = {
		{ .type = EV_KEY, .code = KEY_A, .value = 1 },
		{ .type = EV_SYN, .code = SYN_REPORT },
	};

	return write(uinput, ev, sizeof(ev)) == sizeof(ev) ? 0 : -1;
}

/* What a revoked evdev file gives: ENODEV, and POLLHUP | POLLERR. */
static void expect_evdev_revoked(struct __test_metadata *_metadata, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	struct input_event ev = { .type = EV_SYN };
	int version;

	EXPECT_EQ(read(fd, &ev, sizeof(ev)), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(write(fd, &ev, sizeof(ev)), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(ioctl(fd, EVIOCGVERSION, &version), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(poll(&pfd, 1, 0), 1);
	EXPECT_EQ(pfd.revents & (POLLHUP | POLLERR), POLLHUP | POLLERR);
}

/* The other client still gets the device's events. */
static void expect_evdev_works(struct __test_metadata *_metadata, int fd,
			       int uinput)
{
	struct input_event ev;

	ASSERT_EQ(press_key(uinput), 0);
	ASSERT_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	EXPECT_EQ(ev.type, EV_KEY);
	EXPECT_EQ(ev.code, KEY_A);
}

TEST_F(evdev, eviocrevoke_wakes_reader)
{
	revoke_blocked_reader(_metadata, self->fd[0], EVIOCREVOKE,
			      wait_read_event);
	expect_evdev_revoked(_metadata, self->fd[0]);
	expect_evdev_works(_metadata, self->fd[1], self->uinput);
}

TEST_F(evdev, revoke_file_wakes_reader)
{
	revoke_blocked_reader(_metadata, self->fd[0], 0, wait_read_event);
	expect_evdev_revoked(_metadata, self->fd[0]);
	expect_evdev_works(_metadata, self->fd[1], self->uinput);
}

/* EVIOCREVOKE takes no argument, as before. */
TEST_F(evdev, eviocrevoke_einval)
{
	EXPECT_EQ(ioctl(self->fd[0], EVIOCREVOKE, 1), -1);
	EXPECT_EQ(errno, EINVAL);
	expect_evdev_works(_metadata, self->fd[0], self->uinput);
}

/* revoke(2) of the node revokes both clients; a new open works. */
TEST_F(evdev, revoke_path)
{
	int fd;

	EXPECT_EQ(sys_revokeat(AT_FDCWD, self->node, 0), 2);
	expect_evdev_revoked(_metadata, self->fd[0]);
	expect_evdev_revoked(_metadata, self->fd[1]);
	fd = open(self->node, O_RDWR);
	ASSERT_GE(fd, 0);
	expect_evdev_works(_metadata, fd, self->uinput);
	EXPECT_EQ(close(fd), 0);
}

/*
 * A vendor-defined HID device with one 8-byte input report, no report ID:
 * hid-generic binds it, and hidraw gives its reports as they come.
 */
static const unsigned char hid_descriptor[] = {
	0x06, 0x00, 0xff,	/* Usage Page (Vendor Defined) */
	0x09, 0x01,		/* Usage (1) */
	0xa1, 0x01,		/* Collection (Application) */
	0x15, 0x00,		/*   Logical Minimum (0) */
	0x26, 0xff, 0x00,	/*   Logical Maximum (255) */
	0x75, 0x08,		/*   Report Size (8) */
	0x95, 0x08,		/*   Report Count (8) */
	0x09, 0x01,		/*   Usage (1) */
	0x81, 0x02,		/*   Input (Data, Variable, Absolute) */
	0xc0,			/* End Collection */
};

FIXTURE(hidraw) {
	int uhid;
	char node[PATH_MAX];
	int fd[2];
};

/* The hidraw node of the uhid device, once hid-generic has bound it. */
static int find_hidraw(char *path, size_t size)
{
	char dir[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int i, ret = -1;

	for (i = 0; i < 500 && ret; i++) {
		dp = opendir("/sys/devices/virtual/misc/uhid");
		if (!dp)
			return -1;
		while ((d = readdir(dp)) && ret) {
			if (d->d_name[0] == '.')
				continue;
			snprintf(dir, sizeof(dir),
				 "/sys/devices/virtual/misc/uhid/%s/hidraw",
				 d->d_name);
			ret = find_node(dir, "hidraw", path, size, "/dev/");
		}
		closedir(dp);
		if (ret)
			usleep(10000);
	}
	return ret;
}

/*
 * Open the hidraw node: its sysfs entry comes before its /dev node, and
 * hidraw_connect() marks the device as existing after both, so an open
 * may get ENOENT or ENODEV for a moment.
 */
static int open_hidraw(const char *node)
{
	int i, fd = -1;

	for (i = 0; i < 500; i++) {
		fd = open(node, O_RDWR);
		if (fd >= 0 || (errno != ENOENT && errno != ENODEV))
			break;
		usleep(10000);
	}
	return fd;
}

FIXTURE_SETUP(hidraw)
{
	struct uhid_event ev = { .type = UHID_CREATE2 };
	int i;

	self->fd[0] = -1;
	self->fd[1] = -1;
	self->uhid = open("/dev/uhid", O_RDWR);
	if (self->uhid < 0 && errno == ENOENT)
		SKIP(return, "no /dev/uhid (CONFIG_UHID)");
	ASSERT_GE(self->uhid, 0);
	snprintf((char *)ev.u.create2.name, sizeof(ev.u.create2.name),
		 "revoke_input_test");
	ev.u.create2.rd_size = sizeof(hid_descriptor);
	ev.u.create2.bus = BUS_VIRTUAL;
	ev.u.create2.vendor = 1;
	ev.u.create2.product = 2;
	memcpy(ev.u.create2.rd_data, hid_descriptor, sizeof(hid_descriptor));
	ASSERT_EQ(write(self->uhid, &ev, sizeof(ev)), sizeof(ev));
	ASSERT_EQ(find_hidraw(self->node, sizeof(self->node)), 0);
	for (i = 0; i < 2; i++) {
		self->fd[i] = open_hidraw(self->node);
		ASSERT_GE(self->fd[i], 0);
	}
}

FIXTURE_TEARDOWN(hidraw)
{
	struct uhid_event ev = { .type = UHID_DESTROY };

	close(self->fd[0]);
	close(self->fd[1]);
	if (self->uhid >= 0) {
		write(self->uhid, &ev, sizeof(ev));
		close(self->uhid);
	}
}

/* An input report from the device. */
static int send_report(int uhid)
{
	struct uhid_event ev = { .type = UHID_INPUT2 };

	ev.u.input2.size = 8;
	memcpy(ev.u.input2.data, "revoked!", 8);
	return write(uhid, &ev, sizeof(ev)) == sizeof(ev) ? 0 : -1;
}

/* What a revoked hidraw file gives: ENODEV; POLLHUP | POLLERR. */
static void expect_hidraw_revoked(struct __test_metadata *_metadata, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	char report[8] = "";
	int size;

	EXPECT_EQ(read(fd, report, sizeof(report)), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(write(fd, report, sizeof(report)), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(ioctl(fd, HIDIOCGRDESCSIZE, &size), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(poll(&pfd, 1, 0), 1);
	EXPECT_EQ(pfd.revents & (POLLHUP | POLLERR), POLLHUP | POLLERR);
}

static void expect_hidraw_works(struct __test_metadata *_metadata, int fd,
				int uhid)
{
	char report[8];

	ASSERT_EQ(send_report(uhid), 0);
	ASSERT_EQ(read(fd, report, sizeof(report)), sizeof(report));
	EXPECT_EQ(memcmp(report, "revoked!", 8), 0);
}

TEST_F(hidraw, hidiocrevoke_wakes_reader)
{
	revoke_blocked_reader(_metadata, self->fd[0], HIDIOCREVOKE,
			      wait_read_report);
	expect_hidraw_revoked(_metadata, self->fd[0]);
	expect_hidraw_works(_metadata, self->fd[1], self->uhid);
}

TEST_F(hidraw, revoke_file_wakes_reader)
{
	revoke_blocked_reader(_metadata, self->fd[0], 0, wait_read_report);
	expect_hidraw_revoked(_metadata, self->fd[0]);
	expect_hidraw_works(_metadata, self->fd[1], self->uhid);
}

/* revoke(2) of the node revokes both clients; a new open works. */
TEST_F(hidraw, revoke_path)
{
	int fd;

	EXPECT_EQ(sys_revokeat(AT_FDCWD, self->node, 0), 2);
	expect_hidraw_revoked(_metadata, self->fd[0]);
	expect_hidraw_revoked(_metadata, self->fd[1]);
	fd = open(self->node, O_RDWR);
	ASSERT_GE(fd, 0);
	expect_hidraw_works(_metadata, fd, self->uhid);
	EXPECT_EQ(close(fd), 0);
}

TEST_HARNESS_MAIN
