// SPDX-License-Identifier: GPL-2.0
/*
 * The indirect ways into a revokable file: io_uring (poll, multishot poll,
 * read and write, fixed files, a read waiting for data, polled reads
 * refused, fixed buffers over its mapping refused, xattrs), aio, sendfile
 * to the file and copy_file_range() from and to it.  Before revoke they reach the
 * file; after it they get what a revoked file returns, and a request
 * waiting when revoke comes completes within a second.  io_uring is driven
 * by its raw syscalls, so that no library is needed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "revoke.h"
#include "dev_fixture.h"

/* What poll(POLLIN) reports of a revoked file. */
#define REVOKED	(POLLIN | POLLERR | POLLHUP)

/* One io_uring, its rings mapped; one request in flight at a time or so. */
struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_init_flags(struct ring *r, unsigned int flags)
{
	struct io_uring_params p = { .flags = flags };
	void *sq, *cq;

	r->fd = syscall(__NR_io_uring_setup, 8, &p);
	if (r->fd < 0)
		return -1;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned int),
		  PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes +
		  p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		       IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -1;
	r->sq_tail = sq + p.sq_off.tail;
	r->sq_mask = sq + p.sq_off.ring_mask;
	r->sq_array = sq + p.sq_off.array;
	r->cq_head = cq + p.cq_off.head;
	r->cq_tail = cq + p.cq_off.tail;
	r->cq_mask = cq + p.cq_off.ring_mask;
	r->cqes = cq + p.cq_off.cqes;
	return 0;
}

static int ring_init(struct ring *r)
{
	return ring_init_flags(r, 0);
}

/* Queue and submit one request. */
static int ring_submit(struct ring *r, struct io_uring_sqe *sqe)
{
	unsigned int tail = *r->sq_tail, i = tail & *r->sq_mask;

	r->sqes[i] = *sqe;
	r->sq_array[i] = i;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return syscall(__NR_io_uring_enter, r->fd, 1, 0, 0, NULL, 0);
}

/* The next completion, waiting for it up to a second; false if none. */
static bool ring_reap(struct ring *r, struct io_uring_cqe *cqe)
{
	unsigned int head = *r->cq_head;
	int i;

	for (i = 0; i < 100; i++) {
		if (__atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) != head) {
			*cqe = r->cqes[head & *r->cq_mask];
			__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
			return true;
		}
		usleep(10000);
	}
	return false;
}

static struct io_uring_sqe rw_sqe(int op, int fd, void *buf, unsigned int len)
{
	return (struct io_uring_sqe){
		.opcode = op, .fd = fd, .addr = (unsigned long)buf, .len = len,
		.off = -1, .user_data = op,
	};
}

/* A POLL_ADD waiting when revoke comes completes with the revoked bits. */
TEST_F(dev, uring_poll_add)
{
	struct ring ring;
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_POLL_ADD, .fd = self->fd,
		.poll32_events = POLLIN,
	};
	struct io_uring_cqe cqe;

	if (ring_init(&ring))
		SKIP(return, "no io_uring: %s", strerror(errno));

	ASSERT_EQ(ring_submit(&ring, &sqe), 1);
	usleep(200000);
	ASSERT_EQ(revoke_fd(self->fd), 0);
	ASSERT_TRUE(ring_reap(&ring, &cqe));
	EXPECT_EQ(cqe.res & REVOKED, REVOKED);
	EXPECT_EQ(test_revoke_param("releases"), self->releases + 1);
}

/* A multishot poll gets the forwarded wakeups, then revoke's. */
TEST_F(dev, uring_multishot_poll)
{
	struct ring ring;
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_POLL_ADD, .fd = self->fd,
		.poll32_events = POLLIN, .len = IORING_POLL_ADD_MULTI,
	};
	int other = open(TEST_REVOKE_DEV, O_RDWR | O_NONBLOCK);
	struct io_uring_cqe cqe;
	char c;

	if (ring_init(&ring))
		SKIP(return, "no io_uring: %s", strerror(errno));

	ASSERT_GE(other, 0);
	ASSERT_EQ(ring_submit(&ring, &sqe), 1);
	ASSERT_EQ(write(other, "x", 1), 1);
	ASSERT_TRUE(ring_reap(&ring, &cqe));
	EXPECT_EQ(cqe.res & POLLIN, POLLIN);
	EXPECT_TRUE(cqe.flags & IORING_CQE_F_MORE);
	ASSERT_EQ(read(other, &c, 1), 1);

	ASSERT_EQ(revoke_fd(self->fd), 0);
	ASSERT_TRUE(ring_reap(&ring, &cqe));
	EXPECT_EQ(cqe.res & REVOKED, REVOKED);
	EXPECT_EQ(close(other), 0);
}

/* A read waiting for data (armed on poll by io_uring) gets end of file. */
TEST_F(dev, uring_waiting_read)
{
	struct ring ring;
	struct io_uring_cqe cqe;
	struct io_uring_sqe sqe;
	char buf[8];

	if (ring_init(&ring))
		SKIP(return, "no io_uring: %s", strerror(errno));

	sqe = rw_sqe(IORING_OP_READ, self->fd, buf, sizeof(buf));
	ASSERT_EQ(ring_submit(&ring, &sqe), 1);
	usleep(200000);
	ASSERT_EQ(revoke_fd(self->fd), 0);
	ASSERT_TRUE(ring_reap(&ring, &cqe));
	EXPECT_EQ(cqe.res, 0);
}

/*
 * A polled read (IORING_SETUP_IOPOLL) of a revokable file is refused: the
 * ring could reap it only by calling the driver, maybe after its release.
 * The same O_DIRECT file reads through a ring that is not polled.
 */
TEST_F(dev, uring_iopoll_refused)
{
	int fd = open(TEST_REVOKE_DEV, O_RDWR | O_NONBLOCK | O_DIRECT);
	struct ring polled, plain;
	struct io_uring_cqe cqe;
	struct io_uring_sqe sqe;
	char buf[8];

	if (ring_init_flags(&polled, IORING_SETUP_IOPOLL) || ring_init(&plain))
		SKIP(return, "no io_uring: %s", strerror(errno));
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, "x", 1), 1);

	sqe = rw_sqe(IORING_OP_READ, fd, buf, sizeof(buf));
	ASSERT_EQ(ring_submit(&polled, &sqe), 1);
	ASSERT_EQ(syscall(__NR_io_uring_enter, polled.fd, 0, 1,
			  IORING_ENTER_GETEVENTS, NULL, 0), 0);
	ASSERT_TRUE(ring_reap(&polled, &cqe));
	EXPECT_EQ(cqe.res, -EOPNOTSUPP);

	ASSERT_EQ(ring_submit(&plain, &sqe), 1);
	ASSERT_TRUE(ring_reap(&plain, &cqe));
	EXPECT_EQ(cqe.res, 1);
	EXPECT_EQ(close(polled.fd), 0);
	EXPECT_EQ(close(plain.fd), 0);
	EXPECT_EQ(close(fd), 0);
}

/* After revoke: reads return 0, writes -EIO, through a fixed file too. */
TEST_F(dev, uring_read_write_fixed)
{
	struct ring ring;
	struct io_uring_cqe cqe;
	struct io_uring_sqe sqe;
	char buf[8];

	if (ring_init(&ring))
		SKIP(return, "no io_uring: %s", strerror(errno));

	ASSERT_EQ(syscall(__NR_io_uring_register, ring.fd,
			  IORING_REGISTER_FILES, &self->fd, 1), 0);
	sqe = rw_sqe(IORING_OP_WRITE, self->fd, "ab", 2);
	ASSERT_EQ(ring_submit(&ring, &sqe), 1);
	ASSERT_TRUE(ring_reap(&ring, &cqe));
	EXPECT_EQ(cqe.res, 2);
	sqe = rw_sqe(IORING_OP_READ, 0, buf, 1);
	sqe.flags = IOSQE_FIXED_FILE;
	ASSERT_EQ(ring_submit(&ring, &sqe), 1);
	ASSERT_TRUE(ring_reap(&ring, &cqe));
	EXPECT_EQ(cqe.res, 1);

	ASSERT_EQ(revoke_fd(self->fd), 0);
	ASSERT_EQ(ring_submit(&ring, &sqe), 1);
	ASSERT_TRUE(ring_reap(&ring, &cqe));
	EXPECT_EQ(cqe.res, 0);
	sqe = rw_sqe(IORING_OP_WRITE, 0, "c", 1);
	sqe.flags = IOSQE_FIXED_FILE;
	ASSERT_EQ(ring_submit(&ring, &sqe), 1);
	ASSERT_TRUE(ring_reap(&ring, &cqe));
	EXPECT_EQ(cqe.res, -EIO);
	sqe = rw_sqe(IORING_OP_READ, self->fd, buf, 1);
	ASSERT_EQ(ring_submit(&ring, &sqe), 1);
	ASSERT_TRUE(ring_reap(&ring, &cqe));
	EXPECT_EQ(cqe.res, 0);
}

/* A revokable tmpfs file, and a plain one to copy from and to. */
FIXTURE(files) {
	char path[64], plain_path[64];
	int fd, plain;
};

FIXTURE_SETUP(files)
{
	snprintf(self->path, sizeof(self->path), "/tmp/revoke_async.%d",
		 getpid());
	snprintf(self->plain_path, sizeof(self->plain_path),
		 "/tmp/revoke_async_plain.%d", getpid());
	self->fd = open(self->path, O_RDWR | O_CREAT | O_REVOKABLE, 0600);
	ASSERT_GE(self->fd, 0);
	self->plain = open(self->plain_path, O_RDWR | O_CREAT, 0600);
	ASSERT_GE(self->plain, 0);
	ASSERT_EQ(write(self->fd, "0123456789", 10), 10);
	ASSERT_EQ(write(self->plain, "abcdefghij", 10), 10);
}

FIXTURE_TEARDOWN(files)
{
	close(self->fd);
	close(self->plain);
	unlink(self->path);
	unlink(self->plain_path);
}

TEST_F(files, aio)
{
	char buf[4];

	EXPECT_EQ(aio_one(self->fd, IOCB_CMD_PREAD, buf, 4), 4);
	EXPECT_EQ(aio_one(self->fd, IOCB_CMD_PWRITE, "abcd", 4), 4);
	ASSERT_EQ(revoke_path(self->path), 0);
	EXPECT_EQ(aio_one(self->fd, IOCB_CMD_PREAD, buf, 4), -EIO);
	EXPECT_EQ(aio_one(self->fd, IOCB_CMD_PWRITE, "abcd", 4), -EIO);
}

/* Two bytes from the start of @in to the start of @out. */
static ssize_t copy_start(int in, int out)
{
	loff_t in_pos = 0, out_pos = 0;

	return copy_file_range(in, &in_pos, out, &out_pos, 2, 0);
}

/* sendfile() and copy_file_range() with the file at either end. */
TEST_F(files, sendfile_and_copy_file_range)
{
	loff_t pos = 0;
	char c;

	EXPECT_EQ(sendfile(self->fd, self->plain, &pos, 2), 2);
	EXPECT_EQ(copy_start(self->fd, self->plain), 2);
	EXPECT_EQ(copy_start(self->plain, self->fd), 2);

	ASSERT_EQ(revoke_path(self->path), 0);
	pos = 0;
	EXPECT_EQ(sendfile(self->fd, self->plain, &pos, 2), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(copy_start(self->fd, self->plain), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(copy_start(self->plain, self->fd), -1);
	EXPECT_EQ(errno, EIO);
	/* The plain file kept working throughout. */
	EXPECT_EQ(pread(self->plain, &c, 1, 0), 1);
}

/* One xattr request on @fd: its result. */
static int ring_xattr(struct ring *r, int op, int fd, char *value, int len)
{
	struct io_uring_sqe sqe = {
		.opcode = op, .fd = fd, .addr = (unsigned long)"user.revoke",
		.addr2 = (unsigned long)value, .len = len,
	};
	struct io_uring_cqe cqe;

	if (ring_submit(r, &sqe) != 1 || !ring_reap(r, &cqe))
		return -ETIMEDOUT;
	return cqe.res;
}

/*
 * io_uring's FSETXATTR and FGETXATTR reach the file's inode without its
 * methods, as fsetxattr(2) does: through the gate, so refused once the
 * file is revoked, and the plain file's keep working.
 */
TEST_F(files, uring_xattr)
{
	struct ring ring;
	char v[2] = "v";

	if (ring_init(&ring))
		SKIP(return, "no io_uring: %s", strerror(errno));
	ASSERT_EQ(ring_xattr(&ring, IORING_OP_FSETXATTR, self->fd, v, 1), 0);
	ASSERT_EQ(ring_xattr(&ring, IORING_OP_FGETXATTR, self->fd, v, 2), 1);

	ASSERT_EQ(revoke_fd(self->fd), 0);
	EXPECT_EQ(ring_xattr(&ring, IORING_OP_FSETXATTR, self->fd, v, 1),
		  -EIO);
	EXPECT_EQ(ring_xattr(&ring, IORING_OP_FGETXATTR, self->fd, v, 2),
		  -EIO);
	EXPECT_EQ(ring_xattr(&ring, IORING_OP_FSETXATTR, self->plain, v, 1),
		  0);
	EXPECT_EQ(close(ring.fd), 0);
}

/*
 * io_uring fixed buffers are long-term pins, which would outlive the zap
 * of a revoked file's mapping: registering one over a mapping of a
 * revokable file fails with EOPNOTSUPP, as over fsdax, while one over a
 * mapping of the plain file of the same inode kind registers, and so does
 * one over a plain file's mapping of the revokable file's own inode.
 */
TEST_F(files, uring_fixed_buffer_over_mapping)
{
	struct iovec iov = { .iov_len = 4096 };
	int same = open(self->path, O_RDWR);
	struct ring ring;
	void *plain;

	if (ring_init(&ring))
		SKIP(return, "no io_uring: %s", strerror(errno));
	ASSERT_GE(same, 0);
	ASSERT_EQ(ftruncate(self->fd, 4096), 0);
	ASSERT_EQ(ftruncate(self->plain, 4096), 0);

	iov.iov_base = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			    self->fd, 0);
	ASSERT_NE(iov.iov_base, MAP_FAILED);
	memset(iov.iov_base, 'r', 4096);
	EXPECT_EQ(syscall(__NR_io_uring_register, ring.fd,
			  IORING_REGISTER_BUFFERS, &iov, 1), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	EXPECT_EQ(munmap(iov.iov_base, 4096), 0);

	plain = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
		     self->plain, 0);
	ASSERT_NE(plain, MAP_FAILED);
	iov.iov_base = plain;
	EXPECT_EQ(syscall(__NR_io_uring_register, ring.fd,
			  IORING_REGISTER_BUFFERS, &iov, 1), 0);
	EXPECT_EQ(syscall(__NR_io_uring_register, ring.fd,
			  IORING_UNREGISTER_BUFFERS, NULL, 0), 0);
	EXPECT_EQ(munmap(plain, 4096), 0);

	iov.iov_base = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			    same, 0);
	ASSERT_NE(iov.iov_base, MAP_FAILED);
	EXPECT_EQ(syscall(__NR_io_uring_register, ring.fd,
			  IORING_REGISTER_BUFFERS, &iov, 1), 0);
	EXPECT_EQ(munmap(iov.iov_base, 4096), 0);
	EXPECT_EQ(close(ring.fd), 0);
	EXPECT_EQ(close(same), 0);
}

TEST_HARNESS_MAIN
