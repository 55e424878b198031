// SPDX-License-Identifier: GPL-2.0
/*
 * GPU memory objects (Barre, issue 10): the ALLOC and FREE ioctls through
 * the driver's allocator. Fig 7a's three objects form five coalescing
 * groups over 19 pages; bad arguments give EINVAL and keep nothing; too
 * much gives ENOMEM; unknown or freed handles give ENOENT; a file's
 * objects go with it.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "mcmgpu_barre.h"

static int do_alloc(int fd, struct mcmgpu_alloc *a)
{
	a->size = sizeof(*a);
	return ioctl(fd, MCMGPU_IOCTL_ALLOC, a) ? -errno : 0;
}

static int do_free(int fd, __u32 handle)
{
	struct mcmgpu_free f = { .size = sizeof(f), .handle = handle };

	return ioctl(fd, MCMGPU_IOCTL_FREE, &f) ? -errno : 0;
}

TEST(fig7a_five_groups_over_19_pages)
{
	struct mcmgpu_alloc d1 = { .bytes = 12 * 4096, .policy = MCMGPU_ALLOC_CHUNK,
				   .g = 3, .flags = MCMGPU_ALLOC_F_BARRE };
	struct mcmgpu_alloc d2 = { .bytes = 4 * 4096, .policy = MCMGPU_ALLOC_RR,
				   .flags = MCMGPU_ALLOC_F_BARRE };
	struct mcmgpu_alloc d3 = { .bytes = 3 * 4096, .policy = MCMGPU_ALLOC_RR,
				   .flags = MCMGPU_ALLOC_F_BARRE | MCMGPU_ALLOC_F_WRITE };
	struct mcmgpu_alloc off = { .bytes = 12 * 4096, .policy = MCMGPU_ALLOC_CHUNK,
				    .g = 3 };
	int fd = mt_open_dev();

	ASSERT_LE(0, fd);
	if (mt_expect_chiplets() != 4)
		SKIP(close(fd); return, "Fig 7a has 4 chiplets");
	ASSERT_EQ(0, do_alloc(fd, &d1));
	ASSERT_EQ(0, do_alloc(fd, &d2));
	ASSERT_EQ(0, do_alloc(fd, &d3));
	EXPECT_EQ(5, d1.groups + d2.groups + d3.groups);
	EXPECT_EQ(19, d1.grouped_pages + d2.grouped_pages + d3.grouped_pages);
	EXPECT_EQ(12, d1.pages);
	EXPECT_NE(d1.handle, d2.handle);
	EXPECT_LT(d1.gpu_va + 12 * 4096, d2.gpu_va + 1);
	EXPECT_EQ(0, d1.gpu_va % 4096);
	/* Barre off: no groups. */
	ASSERT_EQ(0, do_alloc(fd, &off));
	EXPECT_EQ(0, off.groups);
	EXPECT_EQ(0, do_free(fd, d1.handle));
	EXPECT_EQ(-ENOENT, do_free(fd, d1.handle));
	EXPECT_EQ(0, do_free(fd, d2.handle));
	EXPECT_EQ(0, do_free(fd, d3.handle));
	EXPECT_EQ(0, do_free(fd, off.handle));
	close(fd);
}

TEST(bad_arguments_are_refused)
{
	struct mcmgpu_info info;
	struct mcmgpu_alloc a;
	int fd = mt_open_dev();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mt_get_info(fd, &info));
#define BAD(errno_, ...) do { \
	memset(&a, 0, sizeof(a)); \
	a = (struct mcmgpu_alloc){ .bytes = 8192, .policy = MCMGPU_ALLOC_RR, __VA_ARGS__ }; \
	EXPECT_EQ(errno_, do_alloc(fd, &a)); \
} while (0)
	BAD(-EINVAL, .bytes = 0);
	BAD(-EINVAL, .bytes = info.vram_total + 4096);
	BAD(-EINVAL, .bytes = info.vram_total + 1);
	/* chunk's g: 1 up to the object's pages. */
	BAD(-EINVAL, .policy = MCMGPU_ALLOC_CHUNK, .g = 3);
	BAD(0, .policy = MCMGPU_ALLOC_CHUNK, .g = 2);
	EXPECT_EQ(0, do_free(fd, a.handle));
	BAD(-EINVAL, .flags = 1U << 7);
	BAD(-EINVAL, .policy = 9);
	BAD(-EINVAL, .policy = MCMGPU_ALLOC_CHUNK, .g = 0);
	BAD(-EINVAL, .nmap = 2, .map = { 1, 1 });
	BAD(-EINVAL, .nmap = 1, .map = { MCMGPU_MAX_CHIPLETS - 1 + (info.chiplets == 8) });
	BAD(-EINVAL, .nmap = 9);
	/* Everything the device has fits once, then not again. */
	BAD(0, .bytes = info.vram_total, .flags = MCMGPU_ALLOC_F_BARRE);
	EXPECT_EQ(info.vram_total / 4096, a.pages);
	BAD(-ENOMEM, .bytes = 4096);
	EXPECT_EQ(-ENOENT, do_free(fd, 12345));
	close(fd);
	/* The file's objects went with it. */
	fd = mt_open_dev();
	ASSERT_LE(0, fd);
	BAD(0, .bytes = info.vram_total);
	close(fd);
}

/* One rule with or without F_SHARED: any size, rounded up to pages. */
TEST(sizes_round_up_to_pages)
{
	static const uint64_t sizes[] = { 1, 100, 4095, 4097, 8191, 3 * 4096 + 5 };
	static const uint32_t flags[] = { 0, MCMGPU_ALLOC_F_SHARED };
	struct mcmgpu_alloc a;
	unsigned int i, f;
	int fd = mt_open_dev();

	ASSERT_LE(0, fd);
	for (f = 0; f < 2; f++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			a = (struct mcmgpu_alloc){ .bytes = sizes[i],
						   .policy = MCMGPU_ALLOC_RR,
						   .flags = flags[f] };
			ASSERT_EQ(0, do_alloc(fd, &a))
				TH_LOG("bytes %llu flags %u",
				       (unsigned long long)sizes[i], flags[f]);
			EXPECT_EQ((sizes[i] + 4095) / 4096, a.pages);
			EXPECT_EQ(0, do_free(fd, a.handle));
		}
	close(fd);
}

/* Another process's objects are not this file's handles. */
TEST(handles_belong_to_their_file)
{
	struct mcmgpu_alloc a = { .bytes = 4096, .policy = MCMGPU_ALLOC_RR };
	int fd1 = mt_open_dev(), fd2 = mt_open_dev();

	ASSERT_LE(0, fd1);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, do_alloc(fd1, &a));
	EXPECT_EQ(-ENOENT, do_free(fd2, a.handle));
	EXPECT_EQ(0, do_free(fd1, a.handle));
	close(fd1);
	close(fd2);
}

TEST_HARNESS_MAIN
