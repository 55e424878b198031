// SPDX-License-Identifier: GPL-2.0
/* The GPU configuration at the command line (gpu_cli.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gpu_cli.h"

void gpu_preset_names(char *buf, size_t len)
{
	size_t n = 0;
	uint32_t i;

	buf[0] = 0;
	for (i = 0; i < gpu_npresets && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
			      gpu_presets[i].name);
}

/* The field an assignment names, for its range in the message. */
static const struct gpu_config_field *assigned_field(const char *set)
{
	char name[64];
	size_t n = strcspn(set, "=");

	if (n >= sizeof(name))
		return NULL;
	memcpy(name, set, n);
	name[n] = 0;
	return gpu_config_field_find(name);
}

/* A refused --set: the assignment, its field and why (with the range). */
static void set_error(const char *set, const struct gpu_config_field *f,
		      const char *why, char *err, size_t errlen)
{
	const char *hint = " (mcmgpu gpu config lists the fields)";
	bool named = f && strchr(f->unit, '=');

	if (!f)
		snprintf(err, errlen, "--set %s: %s%s", set, why,
			 strchr(set, '=') ? hint : "");
	else if (!strcmp(why, "out of range"))	/* gpu_config_set's words */
		snprintf(err, errlen, "--set %s: %s out of range %u..%u", set,
			 f->name, f->min, f->max);
	else
		snprintf(err, errlen, "--set %s: %s: %s%s%s%s", set, f->name,
			 why, named ? " [" : "", named ? f->unit : "",
			 named ? "]" : "");
}

int gpu_config_from_args(struct gpu_config *c, const char *preset,
			 char *const *sets, int nsets, char *err, size_t errlen)
{
	const struct gpu_preset *p;
	const char *field, *why;
	char names[256];
	int i;

	if (!preset)
		preset = GPU_CONFIG_DEFAULT;
	p = gpu_preset_find(preset);
	if (!p) {
		gpu_preset_names(names, sizeof(names));
		snprintf(err, errlen, "no GPU configuration '%s' (%s)", preset,
			 names);
		return -ENOENT;
	}
	*c = p->cfg;
	for (i = 0; i < nsets; i++) {
		const struct gpu_config_field *f = assigned_field(sets[i]);

		if (!gpu_config_set(c, sets[i], &why))
			continue;
		set_error(sets[i], f, why, err, errlen);
		return -EINVAL;
	}
	if (gpu_config_check(c, GPU_MAX_CHIPLETS, &field, &why)) {
		snprintf(err, errlen, "configuration '%s'%s: %s: %s", p->name,
			 nsets ? " with its --set overrides" : "", field, why);
		return -EINVAL;
	}
	return 0;
}
