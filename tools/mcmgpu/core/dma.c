// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu dma: move bytes between files (or random data) and GPU memory
 * through the DMA ioctl; 'roundtrip' is the foundation experiment.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static void dma_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu dma write [-d DEV] --gpu-addr A FILE\n"
		"       mcmgpu dma read  [-d DEV] --gpu-addr A --length N FILE\n"
		"       mcmgpu dma roundtrip [-d DEV] [--size N] [--seed S] [--json]\n\n"
		"write copies FILE into GPU memory at A; read copies N bytes at A\n"
		"into FILE; roundtrip writes random data at a random offset of every\n"
		"chiplet, reads it back and compares byte for byte.\n"
		"GPU address = chiplet * vram_per_chiplet + offset. Numbers take\n"
		"0x and K/M/G suffixes.\n\n"
		"  -d, --device DEV   /dev path, index or PCI address (default 0)\n"
		"  -a, --gpu-addr A   GPU physical address\n"
		"  -n, --length N     bytes to read\n"
		"  -s, --size N       roundtrip bytes per chiplet (default 1M)\n"
		"  -S, --seed S       roundtrip random seed (default 1)\n"
		"  -j, --json         roundtrip: machine-readable result\n"
		"  -h, --help         this text\n");
}

static void *read_file(const char *path, uint64_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return NULL;
	}
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			buf = realloc(buf, cap);
			if (!buf) {
				fprintf(stderr, "%s: out of memory\n", prog);
				fclose(f);
				return NULL;
			}
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	if (ferror(f)) {
		fprintf(stderr, "%s: %s: read error\n", prog, path);
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

static int roundtrip(int fd, uint64_t size, uint64_t seed, bool json)
{
	struct mcmgpu_info info;
	uint64_t rng = seed ? seed : 1, c, off, bad = 0, total = 0;
	uint8_t *src, *dst;
	double t_write = 0, t_read = 0, t0;
	uint64_t i;

	if (get_info(fd, &info))
		return 1;
	if (!size || size > info.vram_per_chiplet) {
		fprintf(stderr, "%s: --size must be 1..%llu\n", prog,
			(unsigned long long)info.vram_per_chiplet);
		return 2;
	}
	src = malloc(size);
	dst = malloc(size);
	if (!src || !dst) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	for (c = 0; c < info.chiplets; c++) {
		uint64_t gpu;

		off = xorshift64(&rng) % (info.vram_per_chiplet - size + 1);
		gpu = c * info.vram_per_chiplet + off;
		for (i = 0; i < size; i++)
			src[i] = xorshift64(&rng);
		memset(dst, 0, size);
		t0 = now_seconds();
		if (dma_transfer(fd, false, src, gpu, size))
			return 1;
		t_write += now_seconds() - t0;
		t0 = now_seconds();
		if (dma_transfer(fd, true, dst, gpu, size))
			return 1;
		t_read += now_seconds() - t0;
		for (i = 0; i < size; i++)
			bad += src[i] != dst[i];
		total += size;
		if (!json)
			printf("chiplet %" PRIu64 ": %" PRIu64 " bytes at 0x%" PRIx64
			       " %s\n", c, size, gpu,
			       memcmp(src, dst, size) ? "MISMATCH" : "ok");
	}
	if (json)
		printf("{\"chiplets\": %u, \"bytes_per_chiplet\": %" PRIu64
		       ", \"bytes\": %" PRIu64 ", \"mismatched_bytes\": %" PRIu64
		       ", \"write_seconds\": %.6f, \"read_seconds\": %.6f, "
		       "\"write_mib_s\": %.1f, \"read_mib_s\": %.1f, "
		       "\"seed\": %" PRIu64 "}\n", info.chiplets, size, total, bad,
		       t_write, t_read, total / 1048576.0 / t_write,
		       total / 1048576.0 / t_read, seed);
	else
		printf("%" PRIu64 " bytes round-tripped, %" PRIu64
		       " mismatched\n", total, bad);
	free(src);
	free(dst);
	return bad ? 1 : 0;
}

int cmd_dma(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "gpu-addr", required_argument, NULL, 'a' },
		{ "length", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *devpath = "/dev/mcmgpu0", *action;
	uint64_t addr = 0, length = 0, size = 1 << 20, seed = 1;
	bool have_addr = false, have_len = false, json = false;
	void *buf;
	int fd, o, ret;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		dma_usage(stdout);
		return 0;
	}
	if (argc < 2) {
		dma_usage(stderr);
		return 2;
	}
	action = argv[1];
	argc--, argv++;
	while ((o = getopt_long(argc, argv, "d:a:n:s:S:jh", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			devpath = optarg;
			break;
		case 'a':
			if (parse_u64(optarg, "--gpu-addr", &addr))
				return 2;
			have_addr = true;
			break;
		case 'n':
			if (parse_u64(optarg, "--length", &length))
				return 2;
			have_len = true;
			break;
		case 's':
			if (parse_u64(optarg, "--size", &size))
				return 2;
			break;
		case 'S':
			if (parse_u64(optarg, "--seed", &seed))
				return 2;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			dma_usage(stdout);
			return 0;
		default:
			dma_usage(stderr);
			return 2;
		}
	}

	if (!strcmp(action, "roundtrip")) {
		if (optind != argc)
			die_usage("dma roundtrip: unexpected argument '%s'",
				  argv[optind]);
		fd = open_device(devpath);
		if (fd < 0)
			return 1;
		ret = roundtrip(fd, size, seed, json);
		close(fd);
		return ret;
	}
	if (strcmp(action, "write") && strcmp(action, "read"))
		die_usage("dma: unknown action '%s' (write, read, roundtrip)",
			  action);
	if (optind + 1 != argc)
		die_usage("dma %s: exactly one FILE expected", action);
	if (!have_addr)
		die_usage("dma %s: --gpu-addr is required", action);

	fd = open_device(devpath);
	if (fd < 0)
		return 1;
	if (!strcmp(action, "write")) {
		buf = read_file(argv[optind], &length);
		ret = !buf || dma_transfer(fd, false, buf, addr, length);
	} else {
		if (!have_len)
			die_usage("dma read: --length is required");
		buf = malloc(length ? length : 1);
		ret = !buf || dma_transfer(fd, true, buf, addr, length) ||
		      write_file(argv[optind], buf, length);
	}
	free(buf);
	close(fd);
	return ret;
}
