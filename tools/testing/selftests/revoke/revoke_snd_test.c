// SPDX-License-Identifier: GPL-2.0
/*
 * Sound cards on the revokable-file core: the disconnect of a card cuts
 * its open files off through the core, as its swap of f_op to
 * snd_shutdown_f_ops did.  The card is snd-dummy's, disconnected by
 * unbinding its platform device, which waits in snd_card_free() until
 * every file of the card is closed: a thread of the test unbinds it, for
 * a child would hold the files and the mappings it inherited.
 *
 * After the disconnect the files' calls fail with ENODEV and poll gives
 * POLLERR, as before; a reader blocked on the control device
 * is woken; a PCM buffer mapped before stays mapped until it is unmapped,
 * and the card is freed only once the files are closed.  revokeat(fd,
 * "", REVOKE_FILE) cuts one file off the same way, and O_REVOKABLE opens
 * of a card's devices are accepted.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <linux/soundcard.h>
#include <sound/asound.h>

#include "../kselftest_harness.h"
#include "revoke.h"
#include "waiter.h"

#define DUMMY_DRIVER	"/sys/bus/platform/drivers/snd_dummy"
#define DUMMY_DEVICE	"snd_dummy.0"
#define PERIOD_FRAMES	1024
#define PERIODS		4
#define FRAME_BYTES	4	/* S16_LE, two channels */
#define BUFFER_BYTES	(PERIOD_FRAMES * PERIODS * FRAME_BYTES)

/* The number of the dummy card, once it is there: -1 if it is not. */
static int dummy_card(void)
{
	struct dirent *d;
	DIR *dp = opendir("/sys/bus/platform/devices/" DUMMY_DEVICE "/sound");
	int card = -1;

	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		if (sscanf(d->d_name, "card%d", &card) == 1)
			break;
	closedir(dp);
	return card;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* The card's device @fmt ("/dev/snd/controlC%d"), opened with @flags. */
static int open_dev(const char *fmt, int card, int flags)
{
	char path[PATH_MAX];
	int i, fd;

	snprintf(path, sizeof(path), fmt, card);
	/* devtmpfs makes the node as the device registers. */
	for (i = 0; i < 1000; i++) {
		fd = open(path, flags);
		if (fd >= 0 || errno != ENOENT)
			return fd;
		usleep(10000);
	}
	return -1;
}

/* The hardware parameters any PCM takes, narrowed as alsa-lib does. */
static void hw_params_any(struct snd_pcm_hw_params *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i <= SNDRV_PCM_HW_PARAM_LAST_MASK; i++)
		memset(&p->masks[i], 0xff, sizeof(p->masks[i]));
	for (i = 0; i <= SNDRV_PCM_HW_PARAM_LAST_INTERVAL -
			 SNDRV_PCM_HW_PARAM_FIRST_INTERVAL; i++)
		p->intervals[i].max = UINT_MAX;
	p->rmask = ~0U;
	p->info = ~0U;
}

static void hw_params_mask(struct snd_pcm_hw_params *p, int param, int bit)
{
	struct snd_mask *m = &p->masks[param - SNDRV_PCM_HW_PARAM_FIRST_MASK];

	memset(m, 0, sizeof(*m));
	m->bits[bit / 32] = 1U << (bit % 32);
}

static void hw_params_set(struct snd_pcm_hw_params *p, int param,
			  unsigned int val)
{
	struct snd_interval *i =
		&p->intervals[param - SNDRV_PCM_HW_PARAM_FIRST_INTERVAL];

	i->min = val;
	i->max = val;
	i->integer = 1;
}

/* Playback of @fd set up for a mapped buffer: 0, or -1. */
static int pcm_setup_mmap(int fd)
{
	struct snd_pcm_hw_params p;

	hw_params_any(&p);
	hw_params_mask(&p, SNDRV_PCM_HW_PARAM_ACCESS,
		       SNDRV_PCM_ACCESS_MMAP_INTERLEAVED);
	hw_params_mask(&p, SNDRV_PCM_HW_PARAM_FORMAT, SNDRV_PCM_FORMAT_S16_LE);
	hw_params_mask(&p, SNDRV_PCM_HW_PARAM_SUBFORMAT,
		       SNDRV_PCM_SUBFORMAT_STD);
	hw_params_set(&p, SNDRV_PCM_HW_PARAM_CHANNELS, 2);
	hw_params_set(&p, SNDRV_PCM_HW_PARAM_RATE, 48000);
	hw_params_set(&p, SNDRV_PCM_HW_PARAM_PERIOD_SIZE, PERIOD_FRAMES);
	hw_params_set(&p, SNDRV_PCM_HW_PARAM_PERIODS, PERIODS);
	return ioctl(fd, SNDRV_PCM_IOCTL_HW_PARAMS, &p);
}

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, 1);
}

/* Whether the @len bytes at @p read back @c, without a fault. */
static bool mapping_holds(const unsigned char *p, size_t len,
			  unsigned char c)
{
	struct sigaction sa = { .sa_handler = on_fault }, old_bus, old_segv;
	bool ok = true;
	size_t i;

	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	if (sigsetjmp(fault_jmp, 1))
		ok = false;
	else
		for (i = 0; i < len && ok; i++)
			ok = p[i] == c;
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return ok;
}

/* The thread that disconnects the card: see disconnect(). */
struct unbinder {
	pthread_t thread;
	bool running;		/* until it is joined */
	int done;		/* 1 once it unbound the card, -1 if it failed */
};

FIXTURE(snd) {
	int card;
	int ctl;		/* the control device */
	int pcm;		/* playback of PCM device 0 */
	struct unbinder unbind;
};

FIXTURE_SETUP(snd)
{
	self->ctl = -1;
	self->pcm = -1;
	self->unbind.running = false;
	if (access(DUMMY_DRIVER, F_OK))
		SKIP(return, "no snd-dummy (CONFIG_SND_DUMMY)");
	/* A test that failed may have left it unbound: bind it again. */
	if (dummy_card() < 0)
		write_file(DUMMY_DRIVER "/bind", DUMMY_DEVICE);
	self->card = dummy_card();
	ASSERT_GE(self->card, 0);
	self->ctl = open_dev("/dev/snd/controlC%d", self->card, O_RDWR);
	ASSERT_GE(self->ctl, 0);
	self->pcm = open_dev("/dev/snd/pcmC%dD0p", self->card,
			     O_RDWR | O_NONBLOCK);
	ASSERT_GE(self->pcm, 0);
}

/*
 * Close what the test left open, let the unbind finish and bind the card
 * again; the next open of it works.
 */
FIXTURE_TEARDOWN(snd)
{
	int fd;

	if (self->ctl >= 0)
		close(self->ctl);
	if (self->pcm >= 0)
		close(self->pcm);
	if (self->unbind.running) {
		EXPECT_EQ(pthread_join(self->unbind.thread, NULL), 0);
		EXPECT_EQ(self->unbind.done, 1);
		EXPECT_EQ(write_file(DUMMY_DRIVER "/bind", DUMMY_DEVICE), 0);
		fd = open_dev("/dev/snd/controlC%d", dummy_card(), O_RDWR);
		EXPECT_GE(fd, 0);
		close(fd);
	}
}

/*
 * What a file of a disconnected card gives: ENODEV, and POLLERR (its
 * POLLNVAL is not one that poll(2) passes on).
 */
static void expect_cut_off(struct __test_metadata *_metadata, int fd,
			   unsigned long cmd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	int version;

	EXPECT_EQ(ioctl(fd, cmd, &version), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(poll(&pfd, 1, 0), 1);
	EXPECT_EQ(pfd.revents, POLLERR);
}

static void *unbind_card(void *arg)
{
	struct unbinder *u = arg;
	int ret = write_file(DUMMY_DRIVER "/unbind", DUMMY_DEVICE) ? -1 : 1;

	__atomic_store_n(&u->done, ret, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Disconnect the card in a thread, which unbinds the device and waits in
 * snd_card_free() until every file of the card is closed: 0, or -1.
 */
static int unbind_start(struct unbinder *u)
{
	u->done = 0;
	if (pthread_create(&u->thread, NULL, unbind_card, u))
		return -1;
	u->running = true;
	return 0;
}

/* The same, and return once the control device @ctl is cut off. */
static int disconnect(struct unbinder *u, int ctl)
{
	int i, version;

	if (unbind_start(u))
		return -1;
	for (i = 0; i < 1000; i++) {
		if (ioctl(ctl, SNDRV_CTL_IOCTL_PVERSION, &version) &&
		    errno == ENODEV)
			return 0;
		usleep(10000);
	}
	return -1;
}

/* Whether the thread unbinding the card is done within @ms. */
static bool unbind_done_within(struct unbinder *u, int ms)
{
	int i;

	for (i = 0; i < ms / 10; i++) {
		if (__atomic_load_n(&u->done, __ATOMIC_ACQUIRE))
			return true;
		usleep(10000);
	}
	return false;
}

/* Bind the card again once the unbind is done: 0, or -1. */
static int rebind(struct unbinder *u)
{
	if (!unbind_done_within(u, 10000) || pthread_join(u->thread, NULL))
		return -1;
	u->running = false;
	if (u->done != 1)
		return -1;
	return write_file(DUMMY_DRIVER "/bind", DUMMY_DEVICE);
}

TEST_F(snd, disconnect_cuts_files_off)
{
	struct snd_ctl_card_info info;
	char buf[4] = {};
	int version;

	ASSERT_EQ(ioctl(self->ctl, SNDRV_CTL_IOCTL_CARD_INFO, &info), 0);
	ASSERT_EQ(ioctl(self->pcm, SNDRV_PCM_IOCTL_PVERSION, &version), 0);
	ASSERT_EQ(disconnect(&self->unbind, self->ctl), 0);

	expect_cut_off(_metadata, self->ctl, SNDRV_CTL_IOCTL_PVERSION);
	expect_cut_off(_metadata, self->pcm, SNDRV_PCM_IOCTL_PVERSION);
	EXPECT_EQ(read(self->ctl, buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(write(self->pcm, buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->pcm, 0),
		  MAP_FAILED);
	EXPECT_EQ(errno, ENODEV);

	/* The card is freed only once its files are closed. */
	EXPECT_FALSE(unbind_done_within(&self->unbind, 200));
	close(self->ctl);
	close(self->pcm);
	self->ctl = -1;
	self->pcm = -1;
	ASSERT_EQ(rebind(&self->unbind), 0);
	self->ctl = open_dev("/dev/snd/controlC%d", dummy_card(), O_RDWR);
	ASSERT_GE(self->ctl, 0);
	EXPECT_EQ(ioctl(self->ctl, SNDRV_CTL_IOCTL_PVERSION, &version), 0);
}

/*
 * Files closed while the disconnect cuts them off: it holds each while it
 * does, and the last put of one closed meanwhile is then its own, which
 * must not wait for the unbinding task to return to user space, since
 * that task waits in snd_card_free() for the file's release.
 */
TEST_F(snd, disconnect_racing_close)
{
	struct rlimit nofile = { 4096, 4096 };
	int fd[2000], i;

	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &nofile), 0);
	for (i = 0; i < ARRAY_SIZE(fd); i++) {
		fd[i] = open_dev("/dev/snd/controlC%d", self->card, O_RDWR);
		ASSERT_GE(fd[i], 0);
	}
	ASSERT_EQ(unbind_start(&self->unbind), 0);
	/* From the last: the disconnect cuts them off from the first. */
	for (i = ARRAY_SIZE(fd) - 1; i >= 0; i--)
		close(fd[i]);
	close(self->ctl);
	close(self->pcm);
	self->ctl = -1;
	self->pcm = -1;
	EXPECT_EQ(rebind(&self->unbind), 0);
}

static int wait_ctl_event(struct waiter *w)
{
	struct snd_ctl_event ev;

	return read(w->fd, &ev, sizeof(ev));
}

/* A reader waiting for the card's events is woken with ENODEV. */
TEST_F(snd, disconnect_wakes_reader)
{
	struct waiter w;
	int on = 1;

	ASSERT_EQ(ioctl(self->ctl, SNDRV_CTL_IOCTL_SUBSCRIBE_EVENTS, &on), 0);
	waiter_start(&w, self->ctl, wait_ctl_event);
	ASSERT_EQ(disconnect(&self->unbind, self->ctl), 0);
	ASSERT_TRUE(waiter_done(&w));
	EXPECT_EQ(w.ret, -1);
	EXPECT_EQ(w.err, ENODEV);
}

/*
 * The PCM buffer mapped before the disconnect stays mapped, as the card's
 * until the mapping goes: it still reads what was written, with no fault,
 * and the card waits for it, for the mapping holds the file.
 */
TEST_F(snd, disconnect_keeps_mapping)
{
	unsigned char *buf;

	ASSERT_EQ(pcm_setup_mmap(self->pcm), 0);
	buf = mmap(NULL, BUFFER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->pcm, SNDRV_PCM_MMAP_OFFSET_DATA);
	ASSERT_NE(buf, MAP_FAILED);
	memset(buf, 0x5a, 64);
	ASSERT_EQ(disconnect(&self->unbind, self->ctl), 0);

	EXPECT_TRUE(mapping_holds(buf, 64, 0x5a));
	close(self->ctl);
	close(self->pcm);
	self->ctl = -1;
	self->pcm = -1;
	EXPECT_FALSE(unbind_done_within(&self->unbind, 200));
	EXPECT_TRUE(mapping_holds(buf, 64, 0x5a));
	EXPECT_EQ(munmap(buf, BUFFER_BYTES), 0);
	EXPECT_EQ(rebind(&self->unbind), 0);
}

/*
 * revokeat(REVOKE_FILE) cuts one file off as the disconnect does, and
 * leaves the card and its other files alone; O_REVOKABLE is accepted.
 */
TEST_F(snd, revoke_file)
{
	struct snd_ctl_card_info info;
	unsigned char *buf;
	int fd, version;

	fd = open_dev("/dev/snd/controlC%d", self->card,
		      O_RDWR | O_REVOKABLE);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pcm_setup_mmap(self->pcm), 0);
	buf = mmap(NULL, BUFFER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->pcm, SNDRV_PCM_MMAP_OFFSET_DATA);
	ASSERT_NE(buf, MAP_FAILED);
	memset(buf, 0xa5, 64);

	EXPECT_EQ(revoke_fd(fd), 0);
	EXPECT_EQ(revoke_fd(self->pcm), 0);
	expect_cut_off(_metadata, fd, SNDRV_CTL_IOCTL_PVERSION);
	expect_cut_off(_metadata, self->pcm, SNDRV_PCM_IOCTL_PVERSION);
	EXPECT_TRUE(mapping_holds(buf, 64, 0xa5));
	EXPECT_EQ(ioctl(self->ctl, SNDRV_CTL_IOCTL_CARD_INFO, &info), 0);
	EXPECT_EQ(ioctl(self->ctl, SNDRV_CTL_IOCTL_PVERSION, &version), 0);
	EXPECT_EQ(munmap(buf, BUFFER_BYTES), 0);
	close(fd);
}

/* The OSS emulation's files are cut off alike. */
TEST_F(snd, disconnect_oss)
{
	int mixer, dsp, version;

	if (self->card)
		SKIP(return, "/dev/mixer and /dev/dsp are card 0's");
	mixer = open("/dev/mixer", O_RDWR);
	if (mixer < 0 && errno == ENOENT)
		SKIP(return, "no /dev/mixer (CONFIG_SND_MIXER_OSS)");
	ASSERT_GE(mixer, 0);
	dsp = open("/dev/dsp", O_WRONLY | O_NONBLOCK);
	ASSERT_GE(dsp, 0);
	ASSERT_EQ(ioctl(mixer, SOUND_MIXER_READ_DEVMASK, &version), 0);
	ASSERT_EQ(disconnect(&self->unbind, self->ctl), 0);
	/* The mixer has no poll: it polls as it always did. */
	EXPECT_EQ(ioctl(mixer, SOUND_MIXER_READ_DEVMASK, &version), -1);
	EXPECT_EQ(errno, ENODEV);
	expect_cut_off(_metadata, dsp, SNDRV_PCM_IOCTL_PVERSION);
	close(mixer);
	close(dsp);
}

TEST_HARNESS_MAIN
