// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu info: discovery through libpci, so it works without the driver;
 * geometry from the BAR0 registers (sysfs resource0), and, when mcmgpu.ko
 * is bound, what GET_INFO reports.
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pci/pci.h>

#include "mcmgpu_hw.h"
#include "device.h"
#include "json.h"
#include "opts.h"
#include "cli.h"

#define SYSFS_PCI "/sys/bus/pci/devices"

struct dev_report {
	char slot[32];
	struct pci_dev *pdev;
	bool regs_ok;
	uint32_t ident, version, chiplets, features;
	uint64_t vram_per_chiplet;
	uint64_t mem_base[MCMGPU_MAX_CHIPLETS], mem_size[MCMGPU_MAX_CHIPLETS];
	char driver[NAME_MAX + 1];
	char chardev[NAME_MAX + 8];
	bool info_ok;
	struct mcmgpu_info info;
};

static uint32_t reg32(const volatile uint8_t *regs, unsigned int off)
{
	return *(const volatile uint32_t *)(regs + off);
}

static uint64_t reg64(const volatile uint8_t *regs, unsigned int off)
{
	return reg32(regs, off) | (uint64_t)reg32(regs, off + 4) << 32;
}

static void read_registers(struct dev_report *r)
{
	char path[PATH_MAX];
	volatile uint8_t *regs;
	uint32_t c;
	int fd;

	snprintf(path, sizeof(path), SYSFS_PCI "/%s/resource%d", r->slot,
		 MCMGPU_BAR_REGS);
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		return;
	regs = mmap(NULL, MCMGPU_BAR_REGS_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (regs == MAP_FAILED)
		return;
	r->ident = reg32(regs, MCMGPU_REG_IDENT);
	r->version = reg32(regs, MCMGPU_REG_VERSION);
	r->chiplets = reg32(regs, MCMGPU_REG_CHIPLETS);
	r->features = reg32(regs, MCMGPU_REG_FEATURES);
	r->vram_per_chiplet = reg64(regs, MCMGPU_REG_VRAM_PER_CHIPLET_LO);
	if (r->ident == MCMGPU_IDENT_MAGIC && r->chiplets <= MCMGPU_MAX_CHIPLETS) {
		for (c = 0; c < r->chiplets; c++) {
			r->mem_base[c] = reg64(regs, MCMGPU_REG_CHIPLET(c,
					MCMGPU_CHIPLET_MEM_BASE_LO));
			r->mem_size[c] = reg64(regs, MCMGPU_REG_CHIPLET(c,
					MCMGPU_CHIPLET_MEM_SIZE_LO));
		}
		r->regs_ok = true;
	}
	munmap((void *)regs, MCMGPU_BAR_REGS_SIZE);
}

static void find_driver(struct dev_report *r)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), SYSFS_PCI "/%s/driver", r->slot);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(r->driver, sizeof(r->driver), "%.*s",
		 (int)sizeof(r->driver) - 1, base ? base + 1 : target);

	if (chardev_of_slot(r->slot, r->chardev, sizeof(r->chardev)))
		r->chardev[0] = '\0';
}

static void query_driver(struct dev_report *r)
{
	int fd;

	if (!r->chardev[0])
		return;
	fd = open_device(r->chardev);
	if (fd < 0)
		return;
	r->info_ok = !get_info(fd, &r->info);
	close(fd);
}

static void print_text(const struct dev_report *r)
{
	const struct pci_dev *p = r->pdev;
	uint32_t c;
	int i;

	printf("%s  mcmgpu [%04x:%04x] rev %02x\n", r->slot, p->vendor_id,
	       p->device_id, MCMGPU_PCI_REVISION);
	for (i = 0; i < 6; i++) {
		if (!p->size[i])
			continue;
		printf("  BAR%d: 0x%012" PRIx64 " size %" PRIu64 " KiB\n", i,
		       (uint64_t)(p->base_addr[i] & PCI_ADDR_MEM_MASK),
		       (uint64_t)p->size[i] >> 10);
	}
	if (r->regs_ok) {
		printf("  hw version %u.%u, %u chiplets x %" PRIu64 " MiB\n",
		       r->version >> 16, r->version & 0xffff, r->chiplets,
		       r->vram_per_chiplet >> 20);
		for (c = 0; c < r->chiplets; c++)
			printf("  chiplet %u: GPU 0x%09" PRIx64 " .. 0x%09" PRIx64 "\n",
			       c, r->mem_base[c], r->mem_base[c] + r->mem_size[c]);
	} else {
		printf("  registers not readable (run as root)\n");
	}
	printf("  driver: %s%s%s\n", r->driver[0] ? r->driver : "none",
	       r->chardev[0] ? ", " : "", r->chardev);
	if (r->info_ok)
		printf("  GET_INFO: %u chiplets, %" PRIu64 " MiB total, %" PRIu64
		       " commands (%" PRIu64 " failed)\n", r->info.chiplets,
		       (uint64_t)r->info.vram_total >> 20,
		       (uint64_t)r->info.commands_done,
		       (uint64_t)r->info.commands_failed);
}

static void print_json(struct json *j, const struct dev_report *r)
{
	const struct pci_dev *p = r->pdev;
	char buf[32];
	uint32_t c;
	int i;

	json_break(j, "    ");
	json_open(j, NULL, '{');
	json_string(j, "slot", r->slot);
	snprintf(buf, sizeof(buf), "0x%04x", p->vendor_id);
	json_string(j, "vendor", buf);
	snprintf(buf, sizeof(buf), "0x%04x", p->device_id);
	json_string(j, "device", buf);
	json_break(j, "     ");
	json_open(j, "bars", '[');
	for (i = 0; i < 6; i++) {
		if (!p->size[i])
			continue;
		json_open(j, NULL, '{');
		json_u64(j, "index", i);
		snprintf(buf, sizeof(buf), "0x%" PRIx64,
			 (uint64_t)(p->base_addr[i] & PCI_ADDR_MEM_MASK));
		json_string(j, "base", buf);
		json_u64(j, "size", p->size[i]);
		json_close(j);
	}
	json_close(j);
	json_break(j, "     ");
	if (r->regs_ok) {
		snprintf(buf, sizeof(buf), "%u.%u",
			 FIELD_GET(MCMGPU_VERSION_MAJOR_MASK, r->version),
			 FIELD_GET(MCMGPU_VERSION_MINOR_MASK, r->version));
		json_string(j, "hw_version", buf);
		json_u64(j, "chiplets", r->chiplets);
		json_u64(j, "vram_per_chiplet", r->vram_per_chiplet);
		json_break(j, "     ");
		json_open(j, "chiplet_memory", '[');
		for (c = 0; c < r->chiplets; c++) {
			json_open(j, NULL, '{');
			json_u64(j, "chiplet", c);
			json_u64(j, "base", r->mem_base[c]);
			json_u64(j, "size", r->mem_size[c]);
			json_close(j);
		}
		json_close(j);
		json_break(j, "     ");
	}
	json_string(j, "driver", r->driver[0] ? r->driver : NULL);
	json_string(j, "char_device", r->chardev[0] ? r->chardev : NULL);
	if (r->info_ok) {
		json_break(j, "     ");
		json_open(j, "get_info", '{');
		json_u64(j, "size", r->info.size);
		json_u64(j, "hw_version", r->info.hw_version);
		json_u64(j, "chiplets", r->info.chiplets);
		json_u64(j, "vram_per_chiplet", r->info.vram_per_chiplet);
		json_u64(j, "vram_total", r->info.vram_total);
		json_u64(j, "vram_bar_size", r->info.vram_bar_size);
		json_u64(j, "features", r->info.features);
		json_u64(j, "commands_done", r->info.commands_done);
		json_u64(j, "commands_failed", r->info.commands_failed);
		json_close(j);
	}
	json_close(j);
}

static void info_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu info [--json]\n\n"
		"Lists every mcmgpu device on the PCI bus (libpci; the driver\n"
		"need not be loaded): BARs, chiplets, memory per chiplet and\n"
		"driver binding. With mcmgpu.ko bound it adds GET_INFO.\n"
		"Exit status 1 when no device is found.\n\n"
		"  --json   machine-readable output\n"
		"  --help   this text\n");
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		OPTION_JSON,
		OPTION_HELP,
		{ }
	};
	struct common_opts co = COMMON_OPTS(info_usage, MCMGPU_MIN_CHIPLETS);
	struct pci_access *pacc;
	struct pci_dev *p;
	struct json j;
	int found = 0;

	common_parse(&co, argc, argv, "jh", opts, NULL);
	if (optind < argc)
		die_usage("info: unexpected argument '%s'", argv[optind]);

	pacc = pci_alloc();
	pci_init(pacc);
	pci_scan_bus(pacc);
	if (co.json) {
		json_begin(&j, stdout);
		json_open(&j, "devices", '[');
	}
	for (p = pacc->devices; p; p = p->next) {
		struct dev_report r = { .pdev = p };

		pci_fill_info(p, PCI_FILL_IDENT | PCI_FILL_BASES | PCI_FILL_SIZES);
		if (p->vendor_id != MCMGPU_PCI_VENDOR_ID ||
		    p->device_id != MCMGPU_PCI_DEVICE_ID)
			continue;
		snprintf(r.slot, sizeof(r.slot), "%04x:%02x:%02x.%d", p->domain,
			 p->bus, p->dev, p->func);
		read_registers(&r);
		find_driver(&r);
		query_driver(&r);
		if (co.json)
			print_json(&j, &r);
		else
			print_text(&r);
		found++;
	}
	if (co.json) {
		json_break(&j, "");
		json_close(&j);
		json_end(&j);
	}
	pci_cleanup(pacc);
	if (!found) {
		fprintf(stderr, "%s: no mcmgpu device found\n", prog);
		return 1;
	}
	return 0;
}
