// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU timing core on the device (docs/gpu.md, "On the device"): a
 * program made by `mcmgpu workload gen vadd` loaded and run through
 * MCMGPU_IOCTL_GPU_LOAD/RUN/STATS with translation off and on (its
 * objects allocated as `mcmgpu run` does), the counters' identities and
 * the program's instruction count; the same run twice gives the same
 * counters; GPU_OBJECTS lists the objects `workload stats` does, pages
 * and refuses too many; bad programs, configurations, pointers and
 * orders get their errno and a message, and the device keeps working.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/mcmgpu_test.h"
#include "mcmgpu_barre.h"
#include "mcmgpu_gpu.h"
#include "gpu_core.h"
/* The configuration table, freestanding: the test's own copy. */
#include "gpu_config.c"

#define PROG "/tmp/mt-gpu.prog"
#define MAX_OBJ 16

static char out[65536];
static uint8_t prog[1 << 20];
static size_t prog_len;

struct run {
	struct gpu_core_stats st;
	struct gpu_kernel_stats k[4];
	struct mcmgpu_barre_stats barre;
	char msg[MCMGPU_GPU_MSG_MAX];
	uint64_t nkernels, count;
	int error, done;
};

static uint64_t insts, nobj, obj_base[MAX_OBJ], obj_size[MAX_OBJ];

/* vadd, its instruction count and objects, once. */
static int setup_program(void)
{
	const char *p;
	FILE *f;

	if (prog_len)
		return 0;
	if (mt_run_cmd("mcmgpu workload gen vadd -o " PROG " 2>&1", out,
		       sizeof(out)))
		return -1;
	if (mt_run_cmd("mcmgpu workload stats --json " PROG, out, sizeof(out)))
		return -1;
	insts = mt_json_number(out, "warp_instructions");
	for (p = strstr(out, "\"base\": "); p && nobj < MAX_OBJ;
	     p = strstr(p + 1, "\"base\": ")) {
		obj_base[nobj] = strtoull(p + 8, NULL, 10);
		obj_size[nobj++] = strtoull(strstr(p, "\"size\": ") + 8, NULL,
					    10);
	}
	f = fopen(PROG, "rb");
	if (!f)
		return -1;
	prog_len = fread(prog, 1, sizeof(prog), f);
	fclose(f);
	return prog_len ? 0 : -1;
}

static void config(struct gpu_config *c, unsigned int translate)
{
	*c = gpu_preset_find(GPU_CONFIG_DEFAULT)->cfg;
	c->chiplets = mt_expect_chiplets();
	c->vram_mib = mt_expect_vram_per_chiplet() >> 20;
	c->translate = translate;
}

static int load(int fd, const void *p, uint64_t len, uint32_t flags)
{
	struct mcmgpu_gpu_load ld = {
		.size = sizeof(ld), .flags = flags,
		.program_ptr = (uintptr_t)p, .length = len,
	};

	return ioctl(fd, MCMGPU_IOCTL_GPU_LOAD, &ld) ? -errno : 0;
}

/* GPU_RUN with its struct's size, streams and reserved words as given. */
static int run_ext(int fd, const struct gpu_config *c, uint32_t nfields,
		   const uint64_t *va, uint64_t n, char *msg, uint32_t size,
		   uint32_t streams, uint32_t reserved)
{
	uint32_t fields[MCMGPU_GPU_CONFIG_MAX_FIELDS] = { 0 };
	struct mcmgpu_gpu_run run = {
		.size = size, .config_ptr = (uintptr_t)fields,
		.nfields = nfields, .objects_ptr = (uintptr_t)va,
		.nobjects = n, .msg_ptr = (uintptr_t)msg,
		.msg_size = MCMGPU_GPU_MSG_MAX, .streams = streams,
		.reserved = reserved,
	};
	uint32_t i;

	msg[0] = '\0';
	for (i = 0; i < gpu_config_nfields; i++)
		fields[i] = *gpu_config_u32((struct gpu_config *)c,
					    &gpu_config_fields[i]);
	return ioctl(fd, MCMGPU_IOCTL_GPU_RUN, &run) ? -errno : 0;
}

static int run_cfg(int fd, const struct gpu_config *c, uint32_t nfields,
		   const uint64_t *va, uint64_t n, char *msg)
{
	return run_ext(fd, c, nfields, va, n, msg,
		       sizeof(struct mcmgpu_gpu_run), 0, 0);
}

static int stats(int fd, struct run *r)
{
	struct mcmgpu_gpu_stats gs = {
		.size = sizeof(gs), .stats_ptr = (uintptr_t)&r->st,
		.stats_size = sizeof(r->st), .kernels_ptr = (uintptr_t)r->k,
		.kernel_size = sizeof(r->k[0]), .count = 4,
		.barre_ptr = (uintptr_t)&r->barre,
		.barre_size = sizeof(r->barre),
		.msg_ptr = (uintptr_t)r->msg, .msg_size = sizeof(r->msg),
	};

	if (ioctl(fd, MCMGPU_IOCTL_GPU_STATS, &gs))
		return -errno;
	r->nkernels = gs.nkernels;
	r->count = gs.count;
	r->error = gs.error;
	r->done = gs.done;
	return 0;
}

static int objects(int fd, struct mcmgpu_gpu_object *o, uint64_t room,
		   uint64_t *copied, uint64_t *total, char *msg)
{
	struct mcmgpu_gpu_objects go = {
		.size = sizeof(go), .objects_ptr = (uintptr_t)o,
		.count = room, .msg_ptr = (uintptr_t)msg,
		.msg_size = MCMGPU_GPU_MSG_MAX,
	};

	msg[0] = '\0';
	if (ioctl(fd, MCMGPU_IOCTL_GPU_OBJECTS, &go))
		return -errno;
	*copied = go.count;
	*total = go.nobjects;
	return 0;
}

/* Each object as gpu_run_object_req() asks for it. */
static int alloc_objects(int fd, const struct gpu_config *c, uint64_t *va)
{
	uint64_t i;

	for (i = 0; i < nobj; i++) {
		uint64_t pages = (obj_base[i] % 4096 + obj_size[i] + 4095) / 4096;
		struct mcmgpu_alloc a = {
			.size = sizeof(a), .bytes = pages * 4096,
			.policy = c->placement,
			.g = c->place_g < pages ? c->place_g : pages,
			.flags = MCMGPU_ALLOC_F_WRITE | MCMGPU_ALLOC_F_BARRE,
		};

		if (ioctl(fd, MCMGPU_IOCTL_ALLOC, &a))
			return -errno;
		va[i] = a.gpu_va;
	}
	return 0;
}

static int full_run(int fd, unsigned int translate, struct run *r)
{
	struct gpu_config c;
	uint64_t va[MAX_OBJ];
	int ret;

	config(&c, translate);
	memset(r, 0, sizeof(*r));
	ret = load(fd, prog, prog_len, MCMGPU_GPU_LOAD_F_FIRST);
	if (!ret && translate)
		ret = alloc_objects(fd, &c, va);
	if (!ret)
		ret = run_cfg(fd, &c, gpu_config_nfields, va,
			      translate ? nobj : 0, r->msg);
	if (!ret)
		ret = stats(fd, r);
	return ret;
}

FIXTURE(gpu) {
	int fd;
};

FIXTURE_SETUP(gpu)
{
	ASSERT_EQ(0, setup_program()) TH_LOG("%s", out);
	self->fd = mt_open_dev();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(gpu)
{
	close(self->fd);
}

static void check_identities(struct __test_metadata *_metadata,
			     const struct run *r)
{
	const struct gpu_core_stats *s = &r->st;

	EXPECT_EQ(insts, s->warp_insts);
	EXPECT_EQ(1, s->kernels);
	EXPECT_EQ(1, r->nkernels);
	EXPECT_EQ(1, r->count);
	EXPECT_EQ(insts, r->k[0].warp_insts);
	EXPECT_EQ(s->blocks, r->k[0].blocks);
	EXPECT_LE(s->warp_insts, s->thread_insts);
	EXPECT_EQ(s->l1_accesses, s->l1_hits + s->l1_misses);
	EXPECT_EQ(s->l2_accesses, s->l2_hits + s->l2_misses);
	EXPECT_EQ(s->l1_tlb_accesses, s->l1_tlb_hits + s->l1_tlb_misses);
	EXPECT_EQ(s->l2_tlb_accesses, s->l2_tlb_hits + s->l2_tlb_misses);
	EXPECT_EQ(s->ats_requests, s->ats_replies);
	EXPECT_EQ(0, s->translation_faults);
	EXPECT_LT(0, s->cycles);
	EXPECT_EQ(0, r->error);
	EXPECT_EQ(1, r->done);
	EXPECT_STREQ("", r->msg);
}

TEST_F(gpu, translate_off)
{
	struct run r;

	ASSERT_EQ(0, full_run(self->fd, 0, &r)) TH_LOG("%s", r.msg);
	check_identities(_metadata, &r);
	EXPECT_EQ(0, r.st.ats_requests);
	TH_LOG("translate off: cycles %" PRIu64 " warp_insts %" PRIu64,
	       (uint64_t)r.st.cycles, (uint64_t)r.st.warp_insts);
}

TEST_F(gpu, translate_on_twice_same)
{
	struct run a, b;
	int fd2;

	ASSERT_EQ(0, full_run(self->fd, 1, &a)) TH_LOG("%s", a.msg);
	check_identities(_metadata, &a);
	EXPECT_LT(0, a.st.ats_requests);
	EXPECT_EQ(a.st.ats_requests,
		  a.st.l2_tlb_misses - a.st.l2_tlb_mshr_merges);
	/* The IOMMU saw exactly the core's requests. */
	EXPECT_EQ(a.st.ats_requests, a.barre.ats_requests);
	EXPECT_EQ(a.barre.ats_requests, a.barre.walks + a.barre.coalesced);
	/* A fresh file: the same VAs, the same counters. */
	fd2 = mt_open_dev();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, full_run(fd2, 1, &b)) TH_LOG("%s", b.msg);
	close(fd2);
	EXPECT_EQ(0, memcmp(&a.st, &b.st, sizeof(a.st)));
	EXPECT_EQ(0, memcmp(a.k, b.k, sizeof(a.k[0])));
	TH_LOG("translate on: cycles %" PRIu64 " ats_requests %" PRIu64
	       " walks %" PRIu64 " coalesced %" PRIu64,
	       (uint64_t)a.st.cycles, (uint64_t)a.st.ats_requests,
	       (uint64_t)a.barre.walks, (uint64_t)a.barre.coalesced);
}

TEST_F(gpu, objects_listed_by_the_device)
{
	struct mcmgpu_gpu_object o[MAX_OBJ + 1];
	char msg[MCMGPU_GPU_MSG_MAX];
	uint64_t copied, total, i;
	struct run r;

	ASSERT_LT(0, nobj);
	EXPECT_EQ(-EBADFD, objects(self->fd, o, MAX_OBJ, &copied, &total, msg));
	EXPECT_STRNE("", msg);
	ASSERT_EQ(0, load(self->fd, prog, prog_len, MCMGPU_GPU_LOAD_F_FIRST));
	/* How many, then all of them: those of `workload stats`. */
	ASSERT_EQ(0, objects(self->fd, NULL, 0, &copied, &total, msg));
	EXPECT_EQ(0, copied);
	EXPECT_EQ(nobj, total);
	memset(o, 0xa5, sizeof(o));
	ASSERT_EQ(0, objects(self->fd, o, MAX_OBJ + 1, &copied, &total, msg))
		TH_LOG("%s", msg);
	EXPECT_EQ(nobj, copied);
	EXPECT_EQ(nobj, total);
	for (i = 0; i < nobj; i++) {
		EXPECT_EQ(obj_base[i], o[i].base);
		EXPECT_EQ(obj_size[i], o[i].size);
	}
	EXPECT_EQ(0xa5a5a5a5a5a5a5a5ULL, o[nobj].base);
	/* Less room: the first ones. */
	ASSERT_EQ(0, objects(self->fd, o, 1, &copied, &total, msg));
	EXPECT_EQ(1, copied);
	EXPECT_EQ(nobj, total);
	/* A run leaves the list alone, and the list the run. */
	ASSERT_EQ(0, full_run(self->fd, 0, &r)) TH_LOG("%s", r.msg);
	ASSERT_EQ(0, objects(self->fd, o, MAX_OBJ, &copied, &total, msg));
	EXPECT_EQ(nobj, copied);
	EXPECT_EQ(0, stats(self->fd, &r));
	check_identities(_metadata, &r);
	/* Garbage, half a program: refused with where. */
	ASSERT_EQ(0, load(self->fd, prog, prog_len / 2,
			  MCMGPU_GPU_LOAD_F_FIRST));
	EXPECT_EQ(-EINVAL, objects(self->fd, o, MAX_OBJ, &copied, &total, msg));
	EXPECT_NE(NULL, strstr(msg, "program")) TH_LOG("%s", msg);
	ASSERT_EQ(0, load(self->fd, "MCMGPROX", 8, MCMGPU_GPU_LOAD_F_FIRST));
	EXPECT_EQ(-EINVAL, objects(self->fd, o, MAX_OBJ, &copied, &total, msg));
	EXPECT_NE(NULL, strstr(msg, "program")) TH_LOG("%s", msg);
	/* Bad arguments. */
	{
		struct mcmgpu_gpu_objects go = {
			.size = sizeof(go), .objects_ptr = 8, .count = 4,
		};

		ASSERT_EQ(0, load(self->fd, prog, prog_len,
				  MCMGPU_GPU_LOAD_F_FIRST));
		EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_IOCTL_GPU_OBJECTS, &go));
		EXPECT_EQ(EFAULT, errno);
		go.objects_ptr = 0;
		EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_IOCTL_GPU_OBJECTS, &go));
		EXPECT_EQ(EFAULT, errno);
		go.objects_ptr = (uintptr_t)o;
		go.flags = 1;
		EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_IOCTL_GPU_OBJECTS, &go));
		EXPECT_EQ(EINVAL, errno);
		go.flags = 0;
		go.pad = 1;
		EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_IOCTL_GPU_OBJECTS, &go));
		EXPECT_EQ(EINVAL, errno);
		go.pad = 0;
		go.size = 8;
		EXPECT_EQ(-1, ioctl(self->fd, MCMGPU_IOCTL_GPU_OBJECTS, &go));
		EXPECT_EQ(EINVAL, errno);
	}
	/* The device keeps working. */
	ASSERT_EQ(0, full_run(self->fd, 1, &r)) TH_LOG("%s", r.msg);
	check_identities(_metadata, &r);
}

/* LEB128, as the binary form's fields. */
static size_t put_leb(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n++] = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	return n;
}

/* One object more than a run maps: E2BIG; and a larger list pages. */
TEST_F(gpu, objects_too_many)
{
	const uint64_t many = MCMGPU_GPU_MAX_OBJECTS + 1;
	struct mcmgpu_gpu_object *o = calloc(many, sizeof(*o));
	uint8_t *p = malloc(16 + many * 16);
	char msg[MCMGPU_GPU_MSG_MAX];
	uint64_t copied, total, i;
	size_t len = 9, last = 0;

	ASSERT_NE(NULL, o);
	ASSERT_NE(NULL, p);
	memcpy(p, "MCMGPROG\x01", 9);
	for (i = 0; i < many; i++) {
		last = len;
		p[len++] = 1;				/* OBJECT */
		len += put_leb(p + len, i << 12);	/* base */
		len += put_leb(p + len, 4096);		/* size */
		len += put_leb(p + len, 1);		/* a name of one byte */
		p[len++] = 'o';
	}
	p[len++] = 9;					/* END */
	/* Exactly the most a run maps, in more than one bounce buffer. */
	ASSERT_EQ(0, load(self->fd, p, last, MCMGPU_GPU_LOAD_F_FIRST));
	ASSERT_EQ(0, load(self->fd, p + len - 1, 1, 0));
	ASSERT_EQ(0, objects(self->fd, o, many, &copied, &total, msg))
		TH_LOG("%s", msg);
	EXPECT_EQ(many - 1, copied);
	EXPECT_EQ(many - 1, total);
	for (i = 0; i < copied && o[i].base == i << 12 && o[i].size == 4096; i++)
		;
	EXPECT_EQ(copied, i);
	/* One more. */
	ASSERT_EQ(0, load(self->fd, p, len, MCMGPU_GPU_LOAD_F_FIRST));
	EXPECT_EQ(-E2BIG, objects(self->fd, o, many, &copied, &total, msg));
	free(p);
	free(o);
}

static void bad_pointers(struct __test_metadata *_metadata, int fd,
			 struct run *r)
{
	struct mcmgpu_gpu_run bad = {
		.size = sizeof(bad), .config_ptr = 8,
		.nfields = gpu_config_nfields,
	};
	struct mcmgpu_gpu_stats bs = {
		.size = sizeof(bs), .stats_ptr = 8,
		.stats_size = sizeof(struct gpu_core_stats),
	};

	EXPECT_EQ(-1, ioctl(fd, MCMGPU_IOCTL_GPU_RUN, &bad));
	EXPECT_EQ(EFAULT, errno);
	bad.config_ptr = 0;
	EXPECT_EQ(-1, ioctl(fd, MCMGPU_IOCTL_GPU_RUN, &bad));
	EXPECT_EQ(EFAULT, errno);
	bad.size = 8;
	EXPECT_EQ(-1, ioctl(fd, MCMGPU_IOCTL_GPU_RUN, &bad));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, MCMGPU_IOCTL_GPU_STATS, &bs));
	bs.stats_size = 7;
	bs.stats_ptr = (uintptr_t)&r->st;
	EXPECT_EQ(-1, ioctl(fd, MCMGPU_IOCTL_GPU_STATS, &bs));
}

TEST_F(gpu, bad_inputs_then_a_good_run)
{
	struct gpu_config c;
	struct run r;
	char msg[MCMGPU_GPU_MSG_MAX];
	uint8_t junk[4096];
	uint64_t va[MAX_OBJ] = { 0 };

	config(&c, 0);
	/* A run with nothing loaded; stats with no run. */
	EXPECT_EQ(-EBADFD, run_cfg(self->fd, &c, gpu_config_nfields, NULL, 0,
				   msg));
	EXPECT_STRNE("", msg);
	EXPECT_EQ(-EBADFD, stats(self->fd, &r));
	/* Garbage instead of a program. */
	mt_fill_random(junk, sizeof(junk));
	ASSERT_EQ(0, load(self->fd, junk, sizeof(junk),
			  MCMGPU_GPU_LOAD_F_FIRST));
	EXPECT_EQ(-EINVAL, run_cfg(self->fd, &c, gpu_config_nfields, NULL, 0,
				   msg));
	EXPECT_NE(NULL, strstr(msg, "program")) TH_LOG("%s", msg);
	/* Half a program: the core's error names where. */
	ASSERT_EQ(0, load(self->fd, prog, prog_len / 2,
			  MCMGPU_GPU_LOAD_F_FIRST));
	EXPECT_EQ(-EINVAL, run_cfg(self->fd, &c, gpu_config_nfields, NULL, 0,
				   msg));
	EXPECT_STRNE("", msg);
	EXPECT_EQ(0, stats(self->fd, &r));
	EXPECT_NE(0, r.error);
	EXPECT_STRNE("", r.msg);
	/* Configurations: 9 chiplets, a field count of another build. */
	ASSERT_EQ(0, load(self->fd, prog, prog_len, MCMGPU_GPU_LOAD_F_FIRST));
	c.chiplets = 9;
	EXPECT_EQ(-EINVAL, run_cfg(self->fd, &c, gpu_config_nfields, NULL, 0,
				   msg));
	EXPECT_NE(NULL, strstr(msg, "chiplets")) TH_LOG("%s", msg);
	config(&c, 0);
	EXPECT_EQ(-EINVAL, run_cfg(self->fd, &c, gpu_config_nfields - 1, NULL,
				   0, msg));
	EXPECT_EQ(-EINVAL, run_cfg(self->fd, &c, 0, NULL, 0, msg));
	/* VAs without translation; translation without the objects' VAs. */
	EXPECT_EQ(-EINVAL, run_cfg(self->fd, &c, gpu_config_nfields, va, 1,
				   msg));
	config(&c, 1);
	EXPECT_EQ(-EINVAL, run_cfg(self->fd, &c, gpu_config_nfields, NULL, 0,
				   msg));
	EXPECT_STRNE("", msg);
	/* Bad pointers and sizes. */
	EXPECT_EQ(-EFAULT, load(self->fd, NULL, 16, 0));
	EXPECT_EQ(-EFAULT, load(self->fd, (void *)8, 16, 0));
	EXPECT_EQ(-EINVAL, load(self->fd, prog, 0, 0));
	EXPECT_EQ(-EINVAL, load(self->fd, prog, 16, 0x80));
	bad_pointers(_metadata, self->fd, &r);
	/*
	 * Streams: groups that do not divide the chiplets are refused by
	 * the core, by name; more than a device's chiplets and a reserved
	 * word by the driver. A caller of the 48-byte struct (before
	 * streams) still runs, one kernel after another.
	 */
	config(&c, 0);
	EXPECT_EQ(-EINVAL, run_ext(self->fd, &c, gpu_config_nfields, NULL, 0,
				   msg, sizeof(struct mcmgpu_gpu_run),
				   3, 0));
	EXPECT_NE(NULL, strstr(msg, "streams")) TH_LOG("%s", msg);
	EXPECT_EQ(-EINVAL, run_ext(self->fd, &c, gpu_config_nfields, NULL, 0,
				   msg, sizeof(struct mcmgpu_gpu_run),
				   MCMGPU_MAX_CHIPLETS + 1, 0));
	EXPECT_EQ(-EINVAL, run_ext(self->fd, &c, gpu_config_nfields, NULL, 0,
				   msg, sizeof(struct mcmgpu_gpu_run), 0, 1));
	EXPECT_EQ(0, run_ext(self->fd, &c, gpu_config_nfields, NULL, 0, msg,
			     MCMGPU_GPU_RUN_SIZE_VER0, 0, 0)) TH_LOG("%s", msg);
	EXPECT_EQ(0, run_ext(self->fd, &c, gpu_config_nfields, NULL, 0, msg,
			     sizeof(struct mcmgpu_gpu_run), c.chiplets, 0))
		TH_LOG("%s", msg);
	/* The device keeps working: the same file runs the program. */
	ASSERT_EQ(0, full_run(self->fd, 0, &r)) TH_LOG("%s", r.msg);
	check_identities(_metadata, &r);
	EXPECT_EQ(0, mt_roundtrip(self->fd, 0, 4096));
}

TEST_HARNESS_MAIN
