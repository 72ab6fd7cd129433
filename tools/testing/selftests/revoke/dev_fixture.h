/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture of the tests on one file of the test device: the file,
 * emptied, and the device's release count before the test; afterwards no
 * call may have reached the device for a released file, no poller may
 * have been left on a waitqueue it freed, and the device is left empty.
 * Included after the harness, by one test program each.
 */
#ifndef __REVOKE_DEV_FIXTURE_H
#define __REVOKE_DEV_FIXTURE_H

FIXTURE(dev) {
	int fd;
	int releases;
};

FIXTURE_SETUP(dev)
{
	self->fd = test_revoke_open_empty();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, "no " TEST_REVOKE_DEV " (CONFIG_TEST_REVOKE)");
	ASSERT_GE(self->fd, 0);
	self->releases = test_revoke_param("releases");
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd < 0)
		return;
	EXPECT_EQ(close(self->fd), 0);
	EXPECT_EQ(test_revoke_param("late_calls"), 0);
	EXPECT_EQ(test_revoke_param("pollers_left"), 0);
	EXPECT_EQ(close(test_revoke_open_empty()), 0);
}

#endif /* __REVOKE_DEV_FIXTURE_H */
