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
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cxl_hdm.h"
#include "cxl_srds.h"
#include "device.h"
#include "cxl_replay.h"
#include "cxl_tool.h"
#include "cxl_trace.h"
#include "file.h"
#include "json.h"
#include "mcmgpu_cxl.h"
#include "num.h"
#include "opts.h"
#include "stats.h"

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

static void show_usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu cxl show [-d DEV] [--json]\n\n"
		"The root ports, the endpoint behind each (media, capacity), the\n"
		"CXL window in GPU physical address space, and every HDM decoder\n"
		"in use as its registers say: base, size, ways, granularity,\n"
		"targets (host bridge) or DPA skip (endpoints), committed, locked.\n");
}

/* Every decoder has targets: the host bridge's list, none for endpoints. */
static void show_decoder_json(struct json *j, const struct mcmgpu_cxl_decoder *d,
			      int port, unsigned int n)
{
	unsigned int k;

	json_open(j, NULL, '{');
	json_string(j, "block", port < 0 ? "host_bridge" : "endpoint");
	if (port >= 0)
		json_u64(j, "port", port);
	json_u64(j, "decoder", n);
	json_u64(j, "base", d->base);
	json_u64(j, "size", d->size);
	json_u64(j, "ways", d->ways);
	json_u64(j, "granularity", d->granularity);
	json_open(j, "targets", '[');
	for (k = 0; port < 0 && k < d->ways && k < 8; k++)
		json_u64(j, NULL, d->targets[k]);
	json_close(j);
	if (port >= 0)
		json_u64(j, "skip", d->skip);
	json_bool(j, "committed", d->committed);
	json_bool(j, "locked", d->locked);
	json_bool(j, "error", d->error);
	json_close(j);
}

static void show_decoder_text(const char *who, const struct mcmgpu_cxl_decoder *d,
			      bool hb, unsigned int n)
{
	unsigned int k;

	printf("    %s decoder %u: 0x%llx + 0x%llx, %u ways x %u B", who, n,
	       (unsigned long long)d->base, (unsigned long long)d->size,
	       d->ways, d->granularity);
	if (hb) {
		printf(", targets");
		for (k = 0; k < d->ways && k < 8; k++)
			printf(" 0x%02x", d->targets[k]);
	} else {
		printf(", skip 0x%llx", (unsigned long long)d->skip);
	}
	printf("%s%s%s\n", d->committed ? ", committed" : "",
	       d->locked ? ", locked" : "", d->error ? ", error" : "");
}

/* A decoder worth showing: programmed or answered. */
static bool in_use(const struct mcmgpu_cxl_decoder *d)
{
	return d->base || d->size ||
	       (d->ctrl & ~(uint32_t)MCMGPU_HDM_CTRL_HOSTONLY);
}

static int cxl_cmd_show(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(show_usage, MCMGPU_MIN_CHIPLETS);
	struct mcmgpu_cxl_decoders *dec = calloc(1, sizeof(*dec));
	struct mcmgpu_cxl_info info;
	static const struct option opts[] = {
		OPTION_JSON, OPTION_DEVICE, OPTION_HELP, { }
	};
	struct json j;
	unsigned int p, n;
	int fd;

	if (!dec)
		fatal("out of memory");
	common_parse(&co, argc, argv, "d:h", opts, NULL);
	if (optind < argc)
		die_usage("cxl show: unexpected argument '%s'", argv[optind]);
	fd = cxl_open(co.device);
	cxl_get_info(fd, &info);
	if (ioctl(fd, MCMGPU_CXL_IOCTL_DECODERS, dec))
		fatal("CXL DECODERS: %s", strerror(errno));
	close(fd);
	if (!co.json) {
		printf("CXL window 0x%llx + 0x%llx (BAR4 aperture 0x%llx), %u regions%s\n",
		       (unsigned long long)info.window_base,
		       (unsigned long long)info.window_size,
		       (unsigned long long)info.aperture_size, info.regions,
		       info.locked ? ", locked" : "");
		for (n = 0; n < info.hb_decoders && n < MCMGPU_CXL_HB_DECODERS; n++)
			if (in_use(&dec->hb[n]))
				show_decoder_text("host bridge", &dec->hb[n], true, n);
		for (p = 0; p < info.ports; p++) {
			printf("  port %u (id 0x%02x): %-6s %6llu MiB\n",
			       p, info.port[p].id,
			       info.port[p].media < MCMGPU_CXL_MEDIA_TYPES ?
			       media_names[info.port[p].media] : "?",
			       (unsigned long long)(info.port[p].capacity >> 20));
			for (n = 0; n < MCMGPU_CXL_EP_DECODERS; n++)
				if (in_use(&dec->ep[p][n]))
					show_decoder_text("endpoint", &dec->ep[p][n],
							  false, n);
		}
		free(dec);
		return 0;
	}
	json_begin(&j, stdout);
	json_u64(&j, "regions", info.regions);
	json_u64(&j, "window_base", info.window_base);
	json_u64(&j, "window_size", info.window_size);
	json_u64(&j, "aperture_size", info.aperture_size);
	json_bool(&j, "locked", info.locked);
	json_open(&j, "ports", '[');
	for (p = 0; p < info.ports; p++) {
		json_open(&j, NULL, '{');
		json_u64(&j, "port", p);
		json_u64(&j, "id", info.port[p].id);
		json_u64(&j, "endpoint", p);
		json_close(&j);
	}
	json_close(&j);
	json_open(&j, "host_bridge", '{');
	json_u64(&j, "targets", info.ports);
	json_open(&j, "decoders", '[');
	for (n = 0; n < info.hb_decoders && n < MCMGPU_CXL_HB_DECODERS; n++)
		show_decoder_json(&j, &dec->hb[n], -1, n);
	json_close(&j);
	json_close(&j);
	json_open(&j, "endpoints", '[');
	for (p = 0; p < info.ports; p++) {
		json_open(&j, NULL, '{');
		json_u64(&j, "port", p);
		json_u64(&j, "port_id", info.port[p].id);
		json_string(&j, "media", info.port[p].media < MCMGPU_CXL_MEDIA_TYPES ?
			    media_names[info.port[p].media] : "?");
		json_u64(&j, "capacity", info.port[p].capacity);
		json_open(&j, "decoders", '[');
		for (n = 0; n < MCMGPU_CXL_EP_DECODERS; n++)
			show_decoder_json(&j, &dec->ep[p][n], p, n);
		json_close(&j);
		json_close(&j);
	}
	json_close(&j);
	/* Every decoder in use, host bridge first: one list to walk. */
	json_open(&j, "decoders", '[');
	for (n = 0; n < info.hb_decoders && n < MCMGPU_CXL_HB_DECODERS; n++)
		if (in_use(&dec->hb[n]))
			show_decoder_json(&j, &dec->hb[n], -1, n);
	for (p = 0; p < info.ports; p++)
		for (n = 0; n < MCMGPU_CXL_EP_DECODERS; n++)
			if (in_use(&dec->ep[p][n]))
				show_decoder_json(&j, &dec->ep[p][n], p, n);
	json_close(&j);
	json_end(&j);
	free(dec);
	return 0;
}

static void setup_usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu cxl setup [-d DEV] [--lock] [--ways W]\n"
		"                        [--granularity BYTES] [REGION...]\n\n"
		"Replaces the HDM decoder layout. Without REGION, the paper's:\n"
		"one 1-way region per root port, ascending from the window's\n"
		"base; --ways W (1, 2, 4, 8) makes it interleave sets of W ports\n"
		"(ports 0..W-1, then W..2W-1, ...) every --granularity bytes\n"
		"(256..16K, default 256; --granularity alone keeps 1-way sets),\n"
		"each as large as its smallest endpoint allows. A REGION is\n"
		"BASE:SIZE:WAYS:GRANULARITY:P0,P1,... with\n"
		"BASE an HPA or +OFFSET into the window, SIZE a multiple of\n"
		"256M x WAYS, WAYS 1/2/4/8, GRANULARITY 256..16K and the root\n"
		"port of each way, e.g. +0:1G:4:4K:0,1,2,3. Regions ascend.\n"
		"  --lock  Lock On Commit: the decoders stay until a reset\n"
		"Sizes and addresses take 0x hex or decimal, with K, M, G (or KiB...).\n");
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

/*
 * --ways W: interleave sets of W ports (0..W-1, then W..2W-1, ...) every
 * gran bytes from base, each as large as its smallest endpoint allows.
 * Not checked here: what does not fit is refused with the field named.
 */
static void layout_interleave(unsigned int ports, const uint64_t *capacity,
			      uint64_t base, unsigned int ways, uint64_t gran,
			      struct mcmgpu_cxl_setup *req)
{
	unsigned int set, k;

	for (set = 0; set * ways < ports || !set; set++) {
		struct mcmgpu_cxl_region *r = &req->region[req->nregions++];
		uint64_t cap = UINT64_MAX;

		r->base = base;
		r->ways = ways;
		r->granularity = gran;
		for (k = 0; k < ways && k < MCMGPU_CXL_MAX_PORTS; k++) {
			unsigned int p = set * ways + k;

			r->ports[k] = p;
			if (p < ports && capacity[p] < cap)
				cap = capacity[p];
		}
		r->size = cap == UINT64_MAX ? 0 : cap * ways;
		base += r->size;
		if (req->nregions == MCMGPU_CXL_MAX_REGIONS)
			break;
	}
}

static int cxl_cmd_setup(int argc, char **argv)
{
	enum { O_LOCK = 256, O_WAYS, O_GRAN };
	static const struct option opts[] = {
		{ "lock", no_argument, NULL, O_LOCK },
		{ "ways", required_argument, NULL, O_WAYS },
		{ "granularity", required_argument, NULL, O_GRAN },
		OPTION_DEVICE, OPTION_HELP, { }
	};
	struct common_opts co = COMMON_OPTS(setup_usage, MCMGPU_MIN_CHIPLETS);
	struct mcmgpu_cxl_setup req;
	struct mcmgpu_cxl_info info;
	uint64_t ways = 0, gran = 256;
	bool gran_set = false;
	int a, c, fd;

	memset(&req, 0, sizeof(req));
	fd = -1;
	while ((c = common_parse(&co, argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case O_LOCK:
			req.flags |= MCMGPU_CXL_SETUP_LOCK;
			break;
		case O_WAYS:
			ways = parse_arg_range(optarg, "--ways", 1, 64);
			break;
		case O_GRAN:
			gran = parse_arg_range(optarg, "--granularity", 1, 1U << 30);
			gran_set = true;
			break;
		}
	}
	for (a = optind; a < argc; a++) {
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
	if ((ways || gran_set) && req.nregions)
		die_usage("cxl setup: --ways/--granularity or REGIONs, not both");
	/* The granularity alone: the paper's 1-way regions, at that size. */
	if (gran_set && !ways)
		ways = 1;
	if (ways) {
		uint64_t cap[MCMGPU_CXL_MAX_PORTS];
		unsigned int p;

		cxl_get_info(fd, &info);
		for (p = 0; p < info.ports && p < MCMGPU_CXL_MAX_PORTS; p++)
			cap[p] = info.port[p].capacity;
		/* The driver refuses what does not fit; it names the field. */
		layout_interleave(info.ports, cap, info.window_base, ways, gran,
				  &req);
	}
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
		"The root port and DPA each HPA goes to, answered by the device's\n"
		"own decoders (its decode probe). HPA is hex (0x...) or decimal,\n"
		"or +OFFSET from the CXL window's base. An HPA no decoder maps is\n"
		"an error naming it (exit status 1, after the others).\n"
		"--json: one HPA gives {\"hpa\", \"port\", \"port_id\", \"dpa\"};\n"
		"several give {\"decode\": [...]} of such objects; an unmapped\n"
		"HPA's object has \"error\" instead of port and DPA.\n");
}

static void decode_json(struct json *j, const struct mcmgpu_cxl_decode *dec,
			const struct mcmgpu_cxl_info *info)
{
	json_u64(j, "hpa", dec->hpa);
	if (dec->port == MCMGPU_CXL_PROBE_MISS) {
		json_string(j, "error", "no decoder maps it");
		return;
	}
	json_u64(j, "port", dec->port);
	if (dec->port < info->ports && dec->port < MCMGPU_CXL_MAX_PORTS)
		json_u64(j, "port_id", info->port[dec->port].id);
	json_u64(j, "dpa", dec->dpa);
}

static int cxl_cmd_decode(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(decode_usage, MCMGPU_MIN_CHIPLETS);
	struct mcmgpu_cxl_decode dec;
	struct mcmgpu_cxl_info info;
	static const struct option opts[] = {
		OPTION_JSON, OPTION_DEVICE, OPTION_HELP, { }
	};
	struct json j;
	int a, fd = -1, n = 0, hpas, unmapped = 0;

	common_parse(&co, argc, argv, "d:h", opts, NULL);
	hpas = argc - optind;
	if (!hpas)
		die_usage("cxl decode: which HPA?");
	fd = cxl_open(co.device);
	cxl_get_info(fd, &info);
	if (co.json) {
		json_begin(&j, stdout);
		if (hpas > 1)
			json_open(&j, "decode", '[');
	}
	for (a = optind; a < argc; a++) {
		memset(&dec, 0, sizeof(dec));
		if (argv[a][0] == '+')
			dec.hpa = info.window_base + parse_arg(argv[a] + 1, "HPA offset");
		else
			dec.hpa = parse_arg(argv[a], "HPA");
		if (ioctl(fd, MCMGPU_CXL_IOCTL_DECODE, &dec))
			fatal("CXL DECODE: %s", strerror(errno));
		n++;
		if (dec.port == MCMGPU_CXL_PROBE_MISS) {
			char hex[24];

			snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)dec.hpa);
			fprintf(stderr, "%s: cxl decode: HPA %s: no decoder maps it%s%s%s\n",
				prog, hex, strcmp(hex, argv[a]) ? " (given as " : "",
				strcmp(hex, argv[a]) ? argv[a] : "",
				strcmp(hex, argv[a]) ? ")" : "");
			unmapped++;
		}
		if (co.json) {
			if (hpas > 1)
				json_open(&j, NULL, '{');
			decode_json(&j, &dec, &info);
			if (hpas > 1)
				json_close(&j);
		} else if (dec.port != MCMGPU_CXL_PROBE_MISS) {
			printf("0x%llx port %u dpa 0x%llx\n",
			       (unsigned long long)dec.hpa, dec.port,
			       (unsigned long long)dec.dpa);
		}
	}
	close(fd);
	if (co.json) {
		if (hpas > 1)
			json_close(&j);
		json_end(&j);
	}
	return unmapped ? 1 : 0;
}

static void teardown_usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu cxl teardown [-d DEV]\n\n"
		"Resets every decoder, newest first (fails while they are locked).\n");
}

static int cxl_cmd_teardown(int argc, char **argv)
{
	static const struct option opts[] = { OPTION_DEVICE, OPTION_HELP, { } };
	struct common_opts co = COMMON_OPTS(teardown_usage, MCMGPU_MIN_CHIPLETS);
	int fd;

	common_parse(&co, argc, argv, "d:h", opts, NULL);
	if (optind < argc)
		die_usage("cxl teardown: unexpected argument '%s'", argv[optind]);
	fd = cxl_open(co.device);
	if (ioctl(fd, MCMGPU_CXL_IOCTL_TEARDOWN))
		fatal("cxl teardown: %s", strerror(errno));
	close(fd);
	return 0;
}

/* ---- SR/DS replay -------------------------------------------------------- */

static const char *const sr_names[MCMGPU_CXL_SR_MODES] = {
	"off", "naive", "dyn", "sr", "max",
};

#define R(field) STAT(struct mcmgpu_cxl_sim_result, field)
static const struct stat_row replay_rows[] = {
	R(runtime_ps), R(loads), R(stores), R(load_latency_ps),
	R(store_latency_ps), R(load_latency_max_ps), R(store_latency_max_ps),
	STAT_NEWLINE,
	R(dram_hits), R(dram_misses), R(dram_joins),
	/* Of the demand reads that reached the SSD (hits + misses). */
	STAT_RATIO("dram_hit_rate", STAT_SPLIT, struct mcmgpu_cxl_sim_result,
		   dram_hits, dram_misses),
	R(specrd_sent), R(specrd_dropped), R(specrd_bytes), R(media_reads),
	R(media_programs), R(gc_runs), STAT_NEWLINE,
	R(ds_staged), R(ds_flushed), R(ds_read_hits), R(ingress_max),
	R(devload_so), R(flits),
};
#undef R

static const struct stat_table replay_table = STAT_TABLE(replay_rows,
	"runtime {runtime_ps} ps: {loads} loads, {stores} stores; SSD DRAM "
	"hits {dram_hits}, misses {dram_misses} ({dram_joins} joined a fill); "
	"MemSpecRd {specrd_sent} "
	"({specrd_dropped} dropped); GC {gc_runs}; DS staged {ds_staged}, "
	"flushed {ds_flushed}\n");

struct port_list {
	uint32_t media[MCMGPU_CXL_MAX_PORTS];
	uint64_t capacity[MCMGPU_CXL_MAX_PORTS];
};

static void parse_ports(const char *list, unsigned int ports, bool media,
			struct port_list *out)
{
	char *copy = strdup(list), *save = NULL, *tok;
	unsigned int n = 0, p, m;

	if (!copy)
		fatal("out of memory");
	for (tok = strtok_r(copy, ",:", &save); tok; tok = strtok_r(NULL, ",:", &save)) {
		if (n == MCMGPU_CXL_MAX_PORTS)
			die_usage("--%s: more than %d values", media ? "media" :
				  "capacity", MCMGPU_CXL_MAX_PORTS);
		if (media) {
			for (m = 0; m < MCMGPU_CXL_MEDIA_TYPES &&
			     strcmp(tok, media_names[m]); m++)
				;
			if (m == MCMGPU_CXL_MEDIA_TYPES)
				die_usage("--media: '%s' is not dram, optane, znand or nand",
					  tok);
			out->media[n++] = m;
		} else {
			out->capacity[n] = parse_arg(tok, "--capacity");
			if (!out->capacity[n] || out->capacity[n] % MCMGPU_CXL_UNIT ||
			    out->capacity[n] > MCMGPU_CXL_MAX_CAPACITY)
				die_usage("--capacity: '%s' is not a multiple of 256M up to 64G",
					  tok);
			n++;
		}
	}
	free(copy);
	if (n != 1 && n != ports)
		die_usage("--%s: give one value or one for each of the %u ports",
			  media ? "media" : "capacity", ports);
	for (p = n; p < ports; p++) {
		out->media[p] = out->media[0];
		out->capacity[p] = out->capacity[0];
	}
}

/* One replay, on the host core or through the device; exits on refusal. */
static void replay_run(struct srds_config *cfg, bool host, const char *device,
		       const char *trace, struct mcmgpu_cxl_record *rec,
		       uint64_t n, struct mcmgpu_cxl_sim_result *res)
{
	struct cxl_backend b = { .ops = &cxl_host_ops, .fd = -1 };
	struct replay_error e;

	if (!host) {
		b.ops = &cxl_device_ops;
		b.fd = cxl_open(device);
	}
	if (cxl_replay(&b, cfg, rec, n, res, &e)) {
		if (e.kind == REPLAY_ERR_RECORD)
			fatal("%s: record %llu: %s (0x%llx)", trace,
			      (unsigned long long)e.rec.index, e.rec.what,
			      (unsigned long long)e.rec.value);
		if (e.kind == REPLAY_ERR_TRACE)
			fatal("%s: %s", trace, e.rec.what);
		fatal("%s", e.rec.what);
	}
	if (b.fd >= 0)
		close(b.fd);
}

/*
 * The host core's endpoints and layout: the paper's (one 1-way region a
 * port) unless the replay names one, committed under the device's checks.
 */
static void replay_config(struct srds_config *cfg, const char *media,
			  const char *capacity, struct mcmgpu_cxl_setup *layout,
			  unsigned int ways, uint64_t gran,
			  struct cxl_hdm_tree *tree)
{
	struct port_list pl;
	uint64_t window;
	const char *why;
	unsigned int bad;

	parse_ports(media, cfg->ports, true, &pl);
	parse_ports(capacity, cfg->ports, false, &pl);
	memcpy(cfg->media, pl.media, sizeof(cfg->media));
	memcpy(cfg->capacity, pl.capacity, sizeof(cfg->capacity));
	cfg->route = srds_route_default;
	cfg->route_priv = cfg;
	if (!ways && !layout->nregions)
		return;
	cxl_hdm_tree_init(tree, cfg->ports, cfg->capacity, &window);
	if (ways)
		layout_interleave(cfg->ports, cfg->capacity,
				  MCMGPU_CXL_WINDOW_BASE, ways, gran, layout);
	why = cxl_hdm_tree_commit(tree, layout->region, layout->nregions,
				  window, &bad);
	if (why)
		die_usage("cxl replay: region %u cannot be committed: %s", bad,
			  why);
	cfg->route = srds_route_tree;
	cfg->route_priv = tree;
}

static struct mcmgpu_cxl_record *replay_load(const char *trace, uint64_t *n)
{
	struct mcmgpu_cxl_record *rec;
	char msg[256];
	size_t len;
	char *text = file_load(trace, &len, msg, sizeof(msg));

	if (!text)
		fatal("%s", msg);
	if (cxl_trace_parse(text, &rec, n, msg, sizeof(msg)))
		fatal("%s: %s", trace, msg);
	free(text);
	return rec;
}

static void replay_usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu cxl replay TRACE [--host] [-d DEV] [options]\n\n"
		"Replays an SR/DS trace (mcmgpu cxl gen) through the root ports'\n"
		"queue logic and the endpoints' media, in virtual time: on the\n"
		"device (its endpoints, its committed decoders) or with --host on\n"
		"the same core here.\n"
		"  --sr MODE       off (\"CXL\"), naive, dyn, sr or max (default sr)\n"
		"  --ds [on|off]   deterministic store on the SSD ports\n"
		"  --no-gc         no garbage collection in the SSDs\n"
		"  --ctrl-ns N     controller round trip (default 80; 250: the\n"
		"                  commercial controller preset)\n"
		"  --local         every line in local GPU memory (\"GPU-DRAM\")\n"
		"  --json          every counter as JSON\n"
		"With --host, the endpoints (the device's are its properties):\n"
		"  --ports N       root ports (1, 2, 4 or 8; default 4)\n"
		"  --media LIST    dram|optane|znand|nand, one or one a port\n"
		"                  (default znand)\n"
		"  --capacity LIST bytes per endpoint (default 256M)\n"
		"and the layout gpu_rc.ko sets up at probe (the trace's offsets\n"
		"go to the ports in order, one 1-way region each) unless one of\n"
		"these, as mcmgpu cxl setup takes them, names another:\n"
		"  --ways W [--granularity BYTES]  interleave sets of W ports\n"
		"  --region BASE:SIZE:WAYS:GRANULARITY:PORTS  (repeatable)\n"
		"The trace's offsets count from the CXL window's base.\n");
}

enum {
	O_SR = 256, O_DS, O_NO_GC, O_LOCAL, O_CTRL_NS, O_PORTS, O_MEDIA,
	O_CAPACITY, O_WAYS, O_GRAN, O_REGION,
};

static const struct option replay_opts[] = {
	{ "sr", required_argument, NULL, O_SR },
	{ "ds", optional_argument, NULL, O_DS },
	{ "no-gc", no_argument, NULL, O_NO_GC },
	{ "local", no_argument, NULL, O_LOCAL },
	{ "ctrl-ns", required_argument, NULL, O_CTRL_NS },
	{ "ports", required_argument, NULL, O_PORTS },
	{ "media", required_argument, NULL, O_MEDIA },
	{ "capacity", required_argument, NULL, O_CAPACITY },
	{ "ways", required_argument, NULL, O_WAYS },
	{ "granularity", required_argument, NULL, O_GRAN },
	{ "region", required_argument, NULL, O_REGION },
	OPTION_JSON, OPTION_HOST, OPTION_DEVICE, OPTION_HELP,
	{ }
};

static int cxl_cmd_replay(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(replay_usage, MCMGPU_MIN_CHIPLETS);
	struct srds_config cfg = { .sim = { .sr_mode = MCMGPU_CXL_SR_FULL,
					    .ctrl_ns = 80, .gc = 1 } };
	struct mcmgpu_cxl_sim_result res;
	struct mcmgpu_cxl_record *rec;
	const char *trace = NULL, *media = "znand", *capacity = "256M";
	bool media_given = false, capacity_given = false, ports_given = false;
	struct mcmgpu_cxl_setup layout = { 0 };
	struct cxl_hdm_tree tree;
	uint64_t n, gran = 256;
	unsigned int ways = 0;
	int c, m;

	cfg.ports = 4;
	while ((c = common_parse(&co, argc, argv, "d:h", replay_opts, NULL)) != -1) {
		switch (c) {
		case O_SR:
			for (m = 0; m < MCMGPU_CXL_SR_MODES &&
			     strcmp(optarg, sr_names[m]); m++)
				;
			if (m == MCMGPU_CXL_SR_MODES)
				die_usage("--sr: '%s' is not off, naive, dyn, sr or max",
					  optarg);
			cfg.sim.sr_mode = m;
			break;
		case O_DS:
			/* --ds, --ds on|off, --ds=on|off */
			if (!optarg && optind < argc &&
			    (!strcmp(argv[optind], "on") || !strcmp(argv[optind], "off")))
				optarg = argv[optind++];
			if (optarg && strcmp(optarg, "on") && strcmp(optarg, "off"))
				die_usage("--ds: '%s' is not on or off", optarg);
			cfg.sim.ds = !optarg || !strcmp(optarg, "on");
			break;
		case O_NO_GC:
			cfg.sim.gc = 0;
			break;
		case O_LOCAL:
			cfg.sim.local = 1;
			break;
		case O_CTRL_NS:
			cfg.sim.ctrl_ns = parse_arg_range(optarg, "--ctrl-ns", 1, 100000);
			break;
		case O_PORTS:
			ports_given = true;
			cfg.ports = parse_arg_range(optarg, "--ports", 1,
						    MCMGPU_CXL_MAX_PORTS);
			if (cfg.ports & (cfg.ports - 1))
				die_usage("--ports: %u is not 1, 2, 4 or 8", cfg.ports);
			break;
		case O_MEDIA:
			media = optarg;
			media_given = true;
			break;
		case O_CAPACITY:
			capacity = optarg;
			capacity_given = true;
			break;
		case O_WAYS:
			ways = parse_arg_range(optarg, "--ways", 1, 64);
			break;
		case O_GRAN:
			gran = parse_arg_range(optarg, "--granularity", 1, 1U << 30);
			break;
		case O_REGION:
			if (layout.nregions == MCMGPU_CXL_MAX_REGIONS)
				die_usage("cxl replay: at most %d regions",
					  MCMGPU_CXL_MAX_REGIONS);
			parse_region(optarg, MCMGPU_CXL_WINDOW_BASE,
				     &layout.region[layout.nregions],
				     layout.nregions);
			layout.nregions++;
			break;
		}
	}
	if (optind + 1 < argc)
		die_usage("cxl replay: unexpected argument '%s'", argv[optind + 1]);
	if (optind == argc)
		die_usage("cxl replay: which TRACE?");
	trace = argv[optind];
	if (!co.host && (media_given || capacity_given || ports_given))
		die_usage("cxl replay: --ports, --media and --capacity are for "
			  "--host (the device's endpoints are its properties)");
	if (!co.host && (ways || layout.nregions))
		die_usage("cxl replay: --ways and --region are for --host (the "
			  "device replays through its committed decoders: mcmgpu "
			  "cxl setup)");
	if (ways && layout.nregions)
		die_usage("cxl replay: --ways or --region, not both");
	replay_config(&cfg, media, capacity, &layout, ways, gran, &tree);
	rec = replay_load(trace, &n);
	replay_run(&cfg, co.host, co.device, trace, rec, n, &res);
	free(rec);
	if (co.json) {
		struct json j;

		json_begin(&j, stdout);
		json_string(&j, "sr", sr_names[cfg.sim.sr_mode]);
		json_u64(&j, "ds", cfg.sim.ds);
		json_u64(&j, "ctrl_ns", cfg.sim.ctrl_ns);
		json_break(&j, "  ");
		stats_json(&j, &replay_table, &res);
		json_end(&j);
	} else {
		stats_text(stdout, &replay_table, &res);
	}
	return 0;
}

/* ---- Benchmarks ---------------------------------------------------------- */

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* BAR0 of the device behind DEV, mapped (for the decode probe). */
static volatile uint8_t *map_regs(const char *device)
{
	struct mcmgpu_info info = { .size = sizeof(info) };
	char path[PATH_MAX];
	void *p;
	int fd = open_device(device);

	if (fd < 0 || get_info(fd, &info))
		fatal("%s: %s", device, strerror(errno));
	close(fd);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%04x:%02x:%02x.%x/resource%d",
		 info.pci_domain, info.pci_bus, info.pci_devfn >> 3,
		 info.pci_devfn & 7, MCMGPU_BAR_REGS);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0)
		fatal("%s: %s", path, strerror(errno));
	p = mmap(NULL, MCMGPU_BAR_REGS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		fatal("%s: %s", path, strerror(errno));
	return p;
}

/* The next random HPA of the benchmarks' 1 GiB at the window's base. */
static uint64_t bench_hpa(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return MCMGPU_CXL_WINDOW_BASE + *x % (1ULL << 30);
}

static void bench_usage(FILE *f)
{
	fprintf(f, "usage: mcmgpu cxl bench TRACE [--host] [--repeat R] [-d DEV]\n"
		"       mcmgpu cxl bench --decode [--host] [--count N] [-d DEV]\n\n"
		"Records replayed per second (SR on, DS on, the default media), or\n"
		"HPAs decoded per second: --host by the HDM core here, else by the\n"
		"device's decode probe (two register writes, three reads each)\n"
		"under the committed layout.\n");
}

static int cxl_cmd_bench(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(bench_usage, MCMGPU_MIN_CHIPLETS);
	uint64_t repeat = 3, count = 200000, i, n = 0, sink = 0;
	enum { O_DECODE = 256, O_REPEAT, O_COUNT };
	static const struct option opts[] = {
		{ "decode", no_argument, NULL, O_DECODE },
		{ "repeat", required_argument, NULL, O_REPEAT },
		{ "count", required_argument, NULL, O_COUNT },
		OPTION_HOST, OPTION_DEVICE, OPTION_HELP, { }
	};
	const char *trace = NULL;
	bool decode = false;
	double t0, t;
	struct json j;
	int c;

	while ((c = common_parse(&co, argc, argv, "d:h", opts, NULL)) != -1) {
		if (c == O_DECODE)
			decode = true;
		else if (c == O_REPEAT)
			repeat = parse_arg_range(optarg, "--repeat", 1, 1000);
		else if (c == O_COUNT)
			count = parse_arg_range(optarg, "--count", 1, 1ULL << 30);
	}
	if (optind + 1 < argc)
		die_usage("cxl bench: unexpected argument '%s'", argv[optind + 1]);
	if (optind < argc)
		trace = argv[optind];
	if (decode == !!trace)
		die_usage("cxl bench: a TRACE or --decode");
	if (!decode) {
		struct srds_config cfg = { .sim = { .sr_mode = MCMGPU_CXL_SR_FULL,
						    .ds = 1, .ctrl_ns = 80,
						    .gc = 1 }, .ports = 4 };
		struct mcmgpu_cxl_record *rec = replay_load(trace, &n);
		struct mcmgpu_cxl_sim_result res;
		struct mcmgpu_cxl_setup layout = { 0 };
		struct cxl_hdm_tree tree;

		replay_config(&cfg, "znand", "256M", &layout, 0, 0, &tree);
		t0 = now_s();
		for (i = 0; i < repeat; i++) {
			replay_run(&cfg, co.host, co.device, trace, rec, n, &res);
			sink += res.runtime_ps;
		}
		t = now_s() - t0;
		free(rec);
		n *= repeat;
	} else if (co.host) {
		struct cxl_hdm hb = { .host_bridge = true, .decoders = 1,
				      .targets = 4 };
		struct cxl_hdm ep = { .decoders = 1,
				      .global_ctrl = MCMGPU_HDM_GLOBAL_ENABLE };
		uint64_t x = 88172645463325252ULL, dpa;
		uint8_t id;

		/* One 4-way 1 GiB region at 1 KiB, as the device would hold it. */
		hb.d[0] = (struct cxl_hdm_decoder){
			.base = MCMGPU_CXL_WINDOW_BASE, .size = 1ULL << 30,
			.ctrl = FIELD_PREP(MCMGPU_HDM_CTRL_IG_MASK, 2) |
				FIELD_PREP(MCMGPU_HDM_CTRL_IW_MASK, 2) |
				MCMGPU_HDM_CTRL_COMMITTED,
			.target = 0x13121110 };
		ep.d[0] = hb.d[0];
		ep.d[0].target = 0;
		t0 = now_s();
		for (i = 0; i < count; i++) {
			uint64_t hpa = bench_hpa(&x);

			if (cxl_hdm_hb_route(&hb, hpa, &id) &&
			    cxl_hdm_ep_translate(&ep, hpa, &dpa))
				sink += dpa + id;
		}
		t = now_s() - t0;
		n = count;
	} else {
		volatile uint8_t *regs = map_regs(co.device);
		volatile uint8_t *w = regs + MCMGPU_WINDOW(MCMGPU_WINDOW_CXL_RC);
		uint64_t x = 88172645463325252ULL;

		t0 = now_s();
		for (i = 0; i < count; i++) {
			uint64_t hpa = bench_hpa(&x);

			*(volatile uint32_t *)(w + MCMGPU_CXL_REG_PROBE_HPA_LO) = hpa;
			*(volatile uint32_t *)(w + MCMGPU_CXL_REG_PROBE_HPA_HI) = hpa >> 32;
			sink += *(volatile uint32_t *)(w + MCMGPU_CXL_REG_PROBE_PORT);
			sink += *(volatile uint32_t *)(w + MCMGPU_CXL_REG_PROBE_DPA_LO);
			sink += *(volatile uint32_t *)(w + MCMGPU_CXL_REG_PROBE_DPA_HI);
		}
		t = now_s() - t0;
		n = count;
		munmap((void *)regs, MCMGPU_BAR_REGS_SIZE);
	}
	json_begin(&j, stdout);
	json_string(&j, "what", decode ? "decodes" : "records");
	json_string(&j, "path", co.host ? "host" : "device");
	json_u64(&j, "count", n);
	json_double(&j, "seconds", 6, t);
	json_double(&j, "per_second", 1, t > 0 ? n / t : 0);
	json_u64(&j, "checksum", sink & 0xffff);
	json_end(&j);
	return 0;
}

const struct subcommand cxl_commands[] = {
	{ "show", "root ports, endpoints, window and every decoder", cxl_cmd_show },
	{ "setup", "commit an HDM decoder layout (default: the paper's)",
	  cxl_cmd_setup },
	{ "decode", "where an HPA goes: root port and DPA", cxl_cmd_decode },
	{ "teardown", "reset every decoder", cxl_cmd_teardown },
	{ "gen", "write an SR/DS trace modeled on one of the paper's workloads",
	  cxl_cmd_gen },
	{ "replay", "replay an SR/DS trace through the root ports and media",
	  cxl_cmd_replay },
	{ "bench", "replayed records or decoded HPAs per second, host or device",
	  cxl_cmd_bench },
	{ }
};
