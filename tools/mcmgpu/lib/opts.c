// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <string.h>

#include "opts.h"
#include "util.h"

bool common_opt(struct common_opts *o, int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case OPT_JSON:
		o->json = true;
		return true;
	case OPT_HOST:
		o->host = true;
		return true;
	case OPT_DEVICE:
		o->device = arg;
		return true;
	case OPT_CHIPLETS:
		v = parse_arg(arg, "--chiplets");
		if (v < o->min_chiplets || v > MCMGPU_MAX_CHIPLETS)
			die_usage("--chiplets: %" PRIu64 " is not %u..%u", v,
				  o->min_chiplets, MCMGPU_MAX_CHIPLETS);
		o->chiplets = v;
		o->chiplets_given = true;
		return true;
	}
	return false;
}

bool common_arg(struct common_opts *o, unsigned int which, int argc,
		char **argv, int *a)
{
	const char *s = argv[*a];
	bool has_value = *a + 1 < argc;

	if ((which & ARG_JSON) && !strcmp(s, "--json"))
		return common_opt(o, OPT_JSON, NULL);
	if ((which & ARG_HOST) && !strcmp(s, "--host"))
		return common_opt(o, OPT_HOST, NULL);
	if ((which & ARG_DEVICE) && has_value &&
	    (!strcmp(s, "-d") || !strcmp(s, "--device")))
		return common_opt(o, OPT_DEVICE, argv[++*a]);
	if ((which & ARG_CHIPLETS) && has_value && !strcmp(s, "--chiplets"))
		return common_opt(o, OPT_CHIPLETS, argv[++*a]);
	return false;
}
