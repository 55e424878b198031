// SPDX-License-Identifier: GPL-2.0
/*
 * `mcmgpu run` on the device (gpu_run.h): the program goes to the device
 * in GPU_LOAD chunks, a binary file's bytes as they are (the device's
 * reader checks them), a text file re-encoded as it is read; with
 * translation the device lists its objects (GPU_OBJECTS), which are
 * allocated in program order with the requests the host backend makes
 * (gpu_run_objects.c); GPU_RUN runs the device's core to the end
 * (mcmgpu.ko and barre_iommu.ko serving its TLB misses); GPU_STATS
 * brings the counters and the kernels' records back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "gpu_run.h"
#include "gpu_run_objects.h"
#include "mcmgpu_gpu.h"
#include "mcmgpu_ioctl.h"
#include "prog_file.h"

/* Bytes a GPU_LOAD ioctl carries (the driver cuts them into commands). */
#define GPU_DEV_CHUNK	(16U << 20)

struct gpu_dev {
	int fd;
	uint8_t *buf;			/* the binary program, not sent yet */
	size_t len;
	uint64_t sent;
	struct gpu_object *obj;		/* OBJECT records, program order */
	uint32_t nobj;
	int err;			/* GPU_LOAD's errno */
	bool text;			/* re-encoded */
	double t0;			/* --progress: the phases' times */
};

static double dev_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --progress: the wall-clock time of the phase that just ended. */
static void dev_phase(struct gpu_dev *d, const struct gpu_run_opts *o,
		      const char *what)
{
	double t = dev_now();

	if (o->progress)
		fprintf(stderr, "device: %s %.3f s\n", what, t - d->t0);
	d->t0 = t;
}

static int dev_fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

static int dev_flush(struct gpu_dev *d)
{
	struct mcmgpu_gpu_load ld = {
		.size = sizeof(ld), .program_ptr = (uintptr_t)d->buf,
		.length = d->len,
		.flags = d->sent ? 0 : MCMGPU_GPU_LOAD_F_FIRST,
	};

	if (!d->len)
		return 0;
	if (ioctl(d->fd, MCMGPU_IOCTL_GPU_LOAD, &ld)) {
		d->err = errno;
		return -errno;
	}
	d->sent += d->len;
	d->len = 0;
	return 0;
}

/* The writer's bytes: staged, then sent a chunk at a time. */
static int dev_write(void *ctx, const void *p, size_t len)
{
	struct gpu_dev *d = ctx;

	while (len) {
		size_t n = GPU_DEV_CHUNK - d->len;

		if (n > len)
			n = len;
		memcpy(d->buf + d->len, p, n);
		d->len += n;
		p = (const uint8_t *)p + n;
		len -= n;
		if (d->len == GPU_DEV_CHUNK && dev_flush(d))
			return -EIO;
	}
	return 0;
}

static int dev_load_error(struct gpu_dev *d, char *err, size_t errlen)
{
	return dev_fail(err, errlen, -d->err, "GPU_LOAD after %llu bytes: %s%s",
			(unsigned long long)d->sent, strerror(d->err),
			d->err == EIO ? " (past the device's "
			"gpu-program-max-mib?)" : "");
}

/*
 * A binary file (fd, its first PROG_MAGIC_LEN bytes in d->buf) as it is:
 * read() straight into the chunk the next GPU_LOAD sends.
 */
static int dev_load_raw(struct gpu_dev *d, int fd, const char *path,
			char *err, size_t errlen)
{
	for (;;) {
		ssize_t n = read(fd, d->buf + d->len, GPU_DEV_CHUNK - d->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return dev_fail(err, errlen, -errno, "%s: %s", path,
					strerror(errno));
		d->len += n;
		if ((!n || d->len == GPU_DEV_CHUNK) && dev_flush(d))
			return dev_load_error(d, err, errlen);
		if (!n)
			return 0;
	}
}

/* Any other input: each record checked and re-encoded as it is read. */
static int dev_load_text(struct gpu_dev *d, const char *path, char *err,
			 size_t errlen)
{
	struct prog_writer *w = malloc(sizeof(*w));
	struct prog_rec *rec = malloc(sizeof(*rec));
	struct prog_in *in = NULL;
	int ret;

	if (!w || !rec) {
		ret = dev_fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	in = prog_in_open(path, err, errlen);
	if (!in) {
		ret = -EINVAL;
		goto out;
	}
	prog_in_same_record(in);
	ret = prog_writer_init(w, dev_write, d);
	while (!ret && (ret = prog_in_next(in, rec)) == 1)
		ret = prog_write(w, rec);
	if (ret < 0 && d->err) {
		ret = dev_load_error(d, err, errlen);
	} else if (ret < 0 && prog_in_error(in)[0]) {
		ret = dev_fail(err, errlen, ret, "%s", prog_in_error(in));
	} else if (ret < 0) {
		ret = dev_fail(err, errlen, ret, "%s: %s: %s", path,
			       w->grammar.err_field ? w->grammar.err_field : "record",
			       w->grammar.err_why ? w->grammar.err_why : strerror(-ret));
	} else if (dev_flush(d)) {
		ret = dev_load_error(d, err, errlen);
	}
out:
	if (in)
		prog_in_close(in);
	free(rec);
	free(w);
	return ret < 0 ? ret : 0;
}

/* Sends path's program: a binary file as it is, the rest re-encoded. */
static int dev_load(struct gpu_dev *d, const char *path, char *err,
		    size_t errlen)
{
	ssize_t n = 0;
	int fd = -1, ret;

	if (strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return dev_fail(err, errlen, -errno, "%s: %s", path,
					strerror(errno));
		do {
			n = read(fd, d->buf, PROG_MAGIC_LEN);
		} while (n < 0 && errno == EINTR);
	}
	if (n == PROG_MAGIC_LEN && !memcmp(d->buf, PROG_MAGIC, PROG_MAGIC_LEN)) {
		d->len = n;
		ret = dev_load_raw(d, fd, path, err, errlen);
	} else {
		/* stdin, a text file, or one too short for either. */
		d->text = true;
		ret = dev_load_text(d, path, err, errlen);
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Translation: the OBJECT records, as the device reads them. */
static int dev_objects(struct gpu_dev *d, const struct gpu_run_opts *o,
		       const char *path, char *err, size_t errlen)
{
	char msg[MCMGPU_GPU_MSG_MAX] = "";
	struct mcmgpu_gpu_object *go;
	struct mcmgpu_gpu_objects req = {
		.size = sizeof(req), .count = MCMGPU_GPU_MAX_OBJECTS,
		.msg_ptr = (uintptr_t)msg, .msg_size = sizeof(msg),
	};
	uint32_t i;

	/* Room for the most a run maps: only what is written is touched. */
	go = malloc(MCMGPU_GPU_MAX_OBJECTS * sizeof(*go));
	if (!go)
		return dev_fail(err, errlen, -ENOMEM, "out of memory");
	req.objects_ptr = (uintptr_t)go;
	if (ioctl(d->fd, MCMGPU_IOCTL_GPU_OBJECTS, &req)) {
		int e = errno;

		free(go);
		if (e == E2BIG)
			return dev_fail(err, errlen, -e, "%s: more than %u "
					"objects, the device maps at most %u",
					path, MCMGPU_GPU_MAX_OBJECTS,
					MCMGPU_GPU_MAX_OBJECTS);
		return dev_fail(err, errlen, -e, "GPU_OBJECTS: %s%s%s",
				strerror(e), msg[0] ? ": " : "", msg);
	}
	d->obj = calloc(req.count + 1, sizeof(*d->obj));
	if (!d->obj) {
		free(go);
		return dev_fail(err, errlen, -ENOMEM, "out of memory");
	}
	for (i = 0; i < req.count; i++)
		d->obj[i] = (struct gpu_object){
			.base = go[i].base, .size = go[i].size, .index = i,
			.policy = o->cfg.placement, .g = o->cfg.place_g,
		};
	d->nobj = req.count;
	free(go);
	return 0;
}

/* Translation: each object through MCMGPU_IOCTL_ALLOC, in program order. */
static int dev_alloc(struct gpu_dev *d, const struct gpu_run_opts *o,
		     uint64_t *va, struct mcmgpu_barre_stats *st, char *err,
		     size_t errlen)
{
	uint32_t i;

	for (i = 0; i < d->nobj; i++) {
		struct gpu_alloc_alloc_req req;
		struct mcmgpu_alloc a = { .size = sizeof(a) };

		gpu_run_object_req(o, &d->obj[i], &req);
		a.bytes = req.pages << GPU_PAGE_SHIFT;
		a.policy = req.policy;
		a.g = req.g;
		a.merge = req.merge;
		a.flags = (req.writable ? MCMGPU_ALLOC_F_WRITE : 0) |
			  (req.barre ? MCMGPU_ALLOC_F_BARRE : 0);
		if (ioctl(d->fd, MCMGPU_IOCTL_ALLOC, &a))
			return dev_fail(err, errlen, -errno,
					"object %u (0x%llx, %llu bytes): ALLOC: %s",
					i, (unsigned long long)d->obj[i].base,
					(unsigned long long)d->obj[i].size,
					strerror(errno));
		va[i] = a.gpu_va;
		/* The allocator's counters, as the host backend sums them. */
		st->objects++;
		st->pages += a.pages;
		st->groups += a.groups;
		st->grouped_pages += a.grouped_pages;
		st->fallback_pages += a.fallback_pages;
		st->merged_groups += a.merged_groups;
	}
	return 0;
}

static int dev_stats(struct gpu_dev *d, const struct gpu_run_opts *o,
		     struct gpu_run_result *r, char *err, size_t errlen)
{
	char msg[MCMGPU_GPU_MSG_MAX] = "";
	struct mcmgpu_gpu_stats gs = {
		.size = sizeof(gs), .stats_ptr = (uintptr_t)&r->core,
		.stats_size = sizeof(r->core),
		.kernel_size = sizeof(struct gpu_kernel_stats),
		.msg_ptr = (uintptr_t)msg, .msg_size = sizeof(msg),
		.barre_ptr = o->cfg.translate ? (uintptr_t)&r->barre : 0,
		.barre_size = sizeof(r->barre),
	};
	uint64_t n;

	/* How many, then all of them. */
	if (ioctl(d->fd, MCMGPU_IOCTL_GPU_STATS, &gs))
		return dev_fail(err, errlen, -errno, "GPU_STATS: %s%s%s",
				strerror(errno), msg[0] ? ": " : "", msg);
	n = gs.nkernels;
	if (n) {
		r->kernels = calloc(n, sizeof(*r->kernels));
		if (!r->kernels)
			return dev_fail(err, errlen, -ENOMEM, "out of memory");
		gs.kernels_ptr = (uintptr_t)r->kernels;
		gs.count = n;
		if (ioctl(d->fd, MCMGPU_IOCTL_GPU_STATS, &gs))
			return dev_fail(err, errlen, -errno, "GPU_STATS: %s",
					strerror(errno));
	}
	r->nkernels = gs.count;
	return 0;
}

int gpu_run_device(int fd, const char *path, const struct gpu_run_opts *o,
		   struct gpu_run_result *r, char *err, size_t errlen)
{
	struct gpu_dev d = { .fd = fd };
	uint32_t fields[MCMGPU_GPU_CONFIG_MAX_FIELDS];
	char msg[MCMGPU_GPU_MSG_MAX] = "";
	struct mcmgpu_gpu_run run = {
		.size = sizeof(run), .config_ptr = (uintptr_t)fields,
		.nfields = gpu_config_nfields, .msg_ptr = (uintptr_t)msg,
		.msg_size = sizeof(msg),
		.flags = o->shadow ? MCMGPU_GPU_RUN_F_SHADOW : 0,
		.streams = o->streams,
	};
	uint64_t *va = NULL;
	struct mcmgpu_barre_stats alloc_st = { 0 };
	uint32_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	if (gpu_config_nfields > MCMGPU_GPU_CONFIG_MAX_FIELDS)
		return dev_fail(err, errlen, -EINVAL, "the configuration has "
				"more fields than the device takes");
	for (i = 0; i < gpu_config_nfields; i++)
		fields[i] = *gpu_config_u32((struct gpu_config *)&o->cfg,
					    &gpu_config_fields[i]);
	d.buf = malloc(GPU_DEV_CHUNK);
	if (!d.buf)
		return dev_fail(err, errlen, -ENOMEM, "out of memory");
	d.t0 = dev_now();
	ret = dev_load(&d, path, err, errlen);
	if (ret)
		goto out;
	dev_phase(&d, o, d.text ? "load (re-encoded)" : "load (as is)");
	if (o->cfg.translate) {
		ret = dev_objects(&d, o, path, err, errlen);
		if (ret)
			goto out;
		dev_phase(&d, o, "objects");
		va = calloc(d.nobj + 1, sizeof(*va));
		if (!va) {
			ret = dev_fail(err, errlen, -ENOMEM, "out of memory");
			goto out;
		}
		ret = dev_alloc(&d, o, va, &alloc_st, err, errlen);
		if (ret)
			goto out;
		dev_phase(&d, o, "alloc");
		run.objects_ptr = (uintptr_t)va;
		run.nobjects = d.nobj;
		r->objects = d.nobj;
	}
	if (ioctl(fd, MCMGPU_IOCTL_GPU_RUN, &run)) {
		ret = dev_fail(err, errlen, -errno, "GPU_RUN: %s%s%s%s",
			       strerror(errno), msg[0] ? ": " : "", msg,
			       errno == ENODEV ? " (is barre_iommu.ko loaded?)" : "");
		goto out;
	}
	dev_phase(&d, o, "run");
	ret = dev_stats(&d, o, r, err, errlen);
	if (!ret)
		dev_phase(&d, o, "stats");
	if (!ret && o->cfg.translate) {
		r->barre.objects = alloc_st.objects;
		r->barre.pages = alloc_st.pages;
		r->barre.groups = alloc_st.groups;
		r->barre.grouped_pages = alloc_st.grouped_pages;
		r->barre.fallback_pages = alloc_st.fallback_pages;
		r->barre.merged_groups = alloc_st.merged_groups;
		gpu_run_fbarre_stats(o, r);
	}
out:
	free(va);
	free(d.obj);
	free(d.buf);
	return ret;
}
