// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu cxl: the GPU's CXL root complex through gpu_rc.ko's control
 * device (/dev/mcmgpu_cxlN for /dev/mcmgpuN): what sits behind the root
 * ports, the HDM decoder layout (set up, torn down), and where an HPA
 * goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cxl_tool.h"
#include "json.h"
#include "mcmgpu_cxl.h"
#include "num.h"
#include "opts.h"

static const char *const media_names[MCMGPU_CXL_MEDIA_TYPES] = {
	"dram", "optane", "znand", "nand",
};

/* /dev/mcmgpu_cxlN for the mcmgpu device /dev/mcmgpuN. */
static int cxl_open(const char *device)
{
	const char *digits = device + strcspn(device, "0123456789");
	char path[64];
	int fd;

	if (!*digits || strlen(digits) > 8)
		die_usage("%s: not an mcmgpu device (/dev/mcmgpuN)", device);
	snprintf(path, sizeof(path), "/dev/mcmgpu_cxl%s", digits);
	fd = open(path, O_RDWR);
	if (fd < 0)
		fatal("%s: %s (is gpu_rc.ko loaded?)", path, strerror(errno));
	return fd;
}

static void cxl_get_info(int fd, struct mcmgpu_cxl_info *info)
{
	if (ioctl(fd, MCMGPU_CXL_IOCTL_INFO, info))
		fatal("CXL INFO: %s", strerror(errno));
}

static void info_usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu cxl info [-d DEV] [--json]\n\n"
		"The root ports, the endpoint behind each (media, capacity,\n"
		"decoders in use), the CXL window in GPU physical address space\n"
		"and the regions its host bridge decoders map.\n");
}

static int cxl_cmd_info(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(info_usage, MCMGPU_MIN_CHIPLETS);
	struct mcmgpu_cxl_info info;
	struct json j;
	unsigned int p;
	int a, fd;

	for (a = 1; a < argc; a++)
		if (!common_arg(&co, ARG_JSON | ARG_DEVICE, argc, argv, &a))
			die_usage("cxl info: unexpected argument '%s'", argv[a]);
	fd = cxl_open(co.device);
	cxl_get_info(fd, &info);
	close(fd);
	if (!co.json) {
		printf("CXL window 0x%llx + 0x%llx (BAR4 aperture 0x%llx), %u regions%s\n",
		       (unsigned long long)info.window_base,
		       (unsigned long long)info.window_size,
		       (unsigned long long)info.aperture_size, info.regions,
		       info.locked ? ", locked" : "");
		for (p = 0; p < info.ports; p++)
			printf("  port %u (id 0x%02x): %-6s %6llu MiB, %u decoders in use\n",
			       p, info.port[p].id,
			       info.port[p].media < MCMGPU_CXL_MEDIA_TYPES ?
			       media_names[info.port[p].media] : "?",
			       (unsigned long long)(info.port[p].capacity >> 20),
			       info.port[p].decoders);
		return 0;
	}
	json_begin(&j, stdout);
	json_u64(&j, "ports", info.ports);
	json_u64(&j, "regions", info.regions);
	json_u64(&j, "window_base", info.window_base);
	json_u64(&j, "window_size", info.window_size);
	json_u64(&j, "aperture_size", info.aperture_size);
	json_u64(&j, "locked", info.locked);
	json_open(&j, "port", '[');
	for (p = 0; p < info.ports; p++) {
		json_open(&j, NULL, '{');
		json_u64(&j, "id", info.port[p].id);
		json_string(&j, "media", info.port[p].media < MCMGPU_CXL_MEDIA_TYPES ?
			    media_names[info.port[p].media] : "?");
		json_u64(&j, "capacity", info.port[p].capacity);
		json_u64(&j, "decoders", info.port[p].decoders);
		json_close(&j);
	}
	json_close(&j);
	json_end(&j);
	return 0;
}

static void setup_usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu cxl setup [-d DEV] [--lock] [REGION...]\n\n"
		"Replaces the HDM decoder layout. Without REGION, the paper's:\n"
		"one 1-way region per root port, ascending from the window's\n"
		"base. A REGION is BASE:SIZE:WAYS:GRANULARITY:P0,P1,... with\n"
		"BASE an HPA or +OFFSET into the window, SIZE a multiple of\n"
		"256M x WAYS, WAYS 1/2/4/8, GRANULARITY 256..16K and the root\n"
		"port of each way, e.g. +0:1G:4:4K:0,1,2,3. Regions ascend.\n"
		"  --lock  Lock On Commit: the decoders stay until a reset\n");
}

static void parse_region(const char *s, uint64_t window,
			 struct mcmgpu_cxl_region *r, unsigned int i)
{
	char *copy = strdup(s), *field[5], *save = NULL, *tok, *port;
	uint64_t v;
	unsigned int n = 0, k = 0;

	if (!copy)
		fatal("out of memory");
	for (tok = strtok_r(copy, ":", &save); tok && n < 5;
	     tok = strtok_r(NULL, ":", &save))
		field[n++] = tok;
	if (n != 5 || tok)
		die_usage("region %u '%s': want BASE:SIZE:WAYS:GRANULARITY:PORTS",
			  i, s);
	if (field[0][0] == '+')
		r->base = window + parse_arg(field[0] + 1, "region BASE");
	else
		r->base = parse_arg(field[0], "region BASE");
	r->size = parse_arg(field[1], "region SIZE");
	r->ways = parse_arg_range(field[2], "region WAYS", 0, 64);
	v = parse_arg_range(field[3], "region GRANULARITY", 0, 1U << 30);
	r->granularity = v;
	for (port = strtok_r(field[4], ",", &save); port;
	     port = strtok_r(NULL, ",", &save)) {
		if (k == MCMGPU_CXL_MAX_PORTS)
			die_usage("region %u: more than %d ports", i,
				  MCMGPU_CXL_MAX_PORTS);
		r->ports[k++] = parse_arg_range(port, "region port", 0, 255);
	}
	if (k != r->ways)
		die_usage("region %u: %u ports for %u ways", i, k, r->ways);
	free(copy);
}

static int cxl_cmd_setup(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(setup_usage, MCMGPU_MIN_CHIPLETS);
	struct mcmgpu_cxl_setup req;
	struct mcmgpu_cxl_info info;
	int a, fd;

	memset(&req, 0, sizeof(req));
	fd = -1;
	for (a = 1; a < argc; a++) {
		if (common_arg(&co, ARG_DEVICE, argc, argv, &a))
			continue;
		if (!strcmp(argv[a], "--lock")) {
			req.flags |= MCMGPU_CXL_SETUP_LOCK;
			continue;
		}
		if (argv[a][0] == '-' && argv[a][1] != '\0')
			die_usage("cxl setup: unknown option '%s'", argv[a]);
		if (fd < 0) {
			fd = cxl_open(co.device);
			cxl_get_info(fd, &info);
		}
		if (req.nregions == MCMGPU_CXL_MAX_REGIONS)
			die_usage("cxl setup: at most %d regions",
				  MCMGPU_CXL_MAX_REGIONS);
		parse_region(argv[a], info.window_base,
			     &req.region[req.nregions], req.nregions);
		req.nregions++;
	}
	if (fd < 0)
		fd = cxl_open(co.device);
	if (ioctl(fd, MCMGPU_CXL_IOCTL_SETUP, &req)) {
		int err = errno;

		fprintf(stderr, "%s: cxl setup: %s%s%s\n", prog, strerror(err),
			req.error[0] ? ": " : "", req.error);
		return 1;
	}
	cxl_get_info(fd, &info);
	close(fd);
	printf("%u regions committed\n", info.regions);
	return 0;
}

static void decode_usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu cxl decode [-d DEV] [--json] HPA...\n\n"
		"The root port and DPA each HPA goes to under the current layout\n"
		"(the spec's arithmetic, as gpu_rc.ko computes it), or 'unmapped'.\n");
}

static int cxl_cmd_decode(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(decode_usage, MCMGPU_MIN_CHIPLETS);
	struct mcmgpu_cxl_decode dec;
	struct json j;
	int a, fd = -1, n = 0;

	for (a = 1; a < argc; a++)
		if (argv[a][0] == '-' &&
		    !common_arg(&co, ARG_JSON | ARG_DEVICE, argc, argv, &a))
			die_usage("cxl decode: unknown option '%s'", argv[a]);
	fd = cxl_open(co.device);
	if (co.json) {
		json_begin(&j, stdout);
		json_open(&j, "decode", '[');
	}
	for (a = 1; a < argc; a++) {
		if (argv[a][0] == '-') {
			a += !strcmp(argv[a], "-d") || !strcmp(argv[a], "--device");
			continue;
		}
		memset(&dec, 0, sizeof(dec));
		dec.hpa = parse_arg(argv[a], "HPA");
		if (ioctl(fd, MCMGPU_CXL_IOCTL_DECODE, &dec))
			fatal("CXL DECODE: %s", strerror(errno));
		n++;
		if (co.json) {
			json_open(&j, NULL, '{');
			json_u64(&j, "hpa", dec.hpa);
			if (dec.port != MCMGPU_CXL_PROBE_MISS) {
				json_u64(&j, "port", dec.port);
				json_u64(&j, "dpa", dec.dpa);
			}
			json_close(&j);
		} else if (dec.port == MCMGPU_CXL_PROBE_MISS) {
			printf("0x%llx unmapped\n", (unsigned long long)dec.hpa);
		} else {
			printf("0x%llx port %u dpa 0x%llx\n",
			       (unsigned long long)dec.hpa, dec.port,
			       (unsigned long long)dec.dpa);
		}
	}
	close(fd);
	if (co.json) {
		json_close(&j);
		json_end(&j);
	}
	if (!n)
		die_usage("cxl decode: which HPA?");
	return 0;
}

static void teardown_usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu cxl teardown [-d DEV]\n\n"
		"Resets every decoder, newest first (fails while they are locked).\n");
}

static int cxl_cmd_teardown(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(teardown_usage, MCMGPU_MIN_CHIPLETS);
	int a, fd;

	for (a = 1; a < argc; a++)
		if (!common_arg(&co, ARG_DEVICE, argc, argv, &a))
			die_usage("cxl teardown: unexpected argument '%s'", argv[a]);
	fd = cxl_open(co.device);
	if (ioctl(fd, MCMGPU_CXL_IOCTL_TEARDOWN))
		fatal("cxl teardown: %s", strerror(errno));
	close(fd);
	return 0;
}

const struct subcommand cxl_commands[] = {
	{ "info", "root ports, endpoints, window and regions", cxl_cmd_info },
	{ "setup", "commit an HDM decoder layout (default: the paper's)",
	  cxl_cmd_setup },
	{ "decode", "where an HPA goes: root port and DPA", cxl_cmd_decode },
	{ "teardown", "reset every decoder", cxl_cmd_teardown },
	{ }
};
