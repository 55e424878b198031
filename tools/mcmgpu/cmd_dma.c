// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu dma: move bytes between files (or random data) and GPU memory
 * through the DMA ioctl; 'roundtrip' is the foundation experiment.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "json.h"
#include "opts.h"
#include "cli.h"

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

static int roundtrip(int fd, uint64_t size, uint64_t seed, bool json)
{
	struct mcmgpu_info info;
	uint64_t rng = seed ? seed : 1, c, off, bad = 0, total = 0;
	uint8_t *src, *dst;
	double t_write = 0, t_read = 0, t0;
	struct json j;
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
	if (json) {
		json_begin(&j, stdout);
		json_u64(&j, "chiplets", info.chiplets);
		json_u64(&j, "bytes_per_chiplet", size);
		json_u64(&j, "bytes", total);
		json_u64(&j, "mismatched_bytes", bad);
		json_double(&j, "write_seconds", 6, t_write);
		json_double(&j, "read_seconds", 6, t_read);
		json_double(&j, "write_mib_s", 1, total / 1048576.0 / t_write);
		json_double(&j, "read_mib_s", 1, total / 1048576.0 / t_read);
		json_u64(&j, "seed", seed);
		json_end(&j);
	} else {
		printf("%" PRIu64 " bytes round-tripped, %" PRIu64
		       " mismatched\n", total, bad);
	}
	free(src);
	free(dst);
	return bad ? 1 : 0;
}

int cmd_dma(int argc, char **argv)
{
	static const struct option opts[] = {
		OPTION_DEVICE,
		{ "gpu-addr", required_argument, NULL, 'a' },
		{ "length", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		OPTION_JSON,
		OPTION_HELP,
		{ }
	};
	struct common_opts co = COMMON_OPTS(dma_usage, MCMGPU_MIN_CHIPLETS);
	uint64_t addr = 0, length = 0, size = 1 << 20, seed = 1;
	bool have_addr = false, have_len = false;
	const char *action;
	size_t len;
	void *buf;
	int fd, o, ret;

	action = common_verb(&co, argc, argv);
	argc--, argv++;
	while ((o = common_parse(&co, argc, argv, "d:a:n:s:S:jh", opts, NULL)) != -1) {
		switch (o) {
		case 'a':
			addr = parse_arg(optarg, "--gpu-addr");
			have_addr = true;
			break;
		case 'n':
			length = parse_arg(optarg, "--length");
			have_len = true;
			break;
		case 's':
			size = parse_arg(optarg, "--size");
			break;
		case 'S':
			seed = parse_arg(optarg, "--seed");
			break;
		}
	}

	if (!strcmp(action, "roundtrip")) {
		if (optind != argc)
			die_usage("dma roundtrip: unexpected argument '%s'",
				  argv[optind]);
		fd = open_device(co.device);
		if (fd < 0)
			return 1;
		ret = roundtrip(fd, size, seed, co.json);
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

	fd = open_device(co.device);
	if (fd < 0)
		return 1;
	if (!strcmp(action, "write")) {
		buf = read_file(argv[optind], &len);
		ret = !buf || dma_transfer(fd, false, buf, addr, len);
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
