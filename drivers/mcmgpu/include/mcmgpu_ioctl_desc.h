/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ioctls as tables of descriptors, for mcmgpu.ko and its aux drivers: the
 * dispatcher (mcmgpu_engine.c) copies the argument in, calls the handler
 * with the kernel copy and copies it back, in one place for every
 * character device. Device statuses become errnos through one table.
 */
#ifndef MCMGPU_IOCTL_DESC_H
#define MCMGPU_IOCTL_DESC_H

#include <linux/bits.h>
#include <linux/ioctl.h>
#include <linux/stddef.h>
#include <linux/types.h>

/*
 * Size first: the struct's first __u32 says its size (uapi/mcmgpu_ioctl.h);
 * the number is matched by type and nr, its size and direction ignored.
 * Otherwise the number is matched whole and its size is the caller's.
 * Either way the struct is copied in when the number says the caller
 * writes it (size first: always), and zeroed otherwise.
 */
#define MCMGPU_IOCTL_SIZE_FIRST	BIT(0)
#define MCMGPU_IOCTL_OUT	BIT(1)	/* copied back when it succeeds */
#define MCMGPU_IOCTL_OUT_ERROR	BIT(2)	/* copied back when it fails */

struct mcmgpu_ioctl_desc {
	unsigned int cmd;	/* its size is the kernel's struct */
	const char *name;
	u32 size_ver0;		/* size first: the smallest accepted */
	u32 flags;		/* MCMGPU_IOCTL_* */
	/* The part copied back; out_len 0: as much as both structs have. */
	u16 out_off;
	u16 out_len;
	/*
	 * owner: what the file is for (mcmgpu.ko: the struct mcmgpu_file);
	 * arg: the kernel copy, zero-extended; usize: the caller's size.
	 */
	int (*handler)(void *owner, void *arg, u32 usize);
};

/* An extensible struct (size first); flags may add copying back. */
#define MCMGPU_IOCTL_DEF(ioctl, ver0, func, fl) {			\
	.cmd = (ioctl), .name = #ioctl, .size_ver0 = (ver0),		\
	.handler = (func), .flags = MCMGPU_IOCTL_SIZE_FIRST | (fl) }

/* A fixed struct, the size the number says. */
#define MCMGPU_IOCTL_DEF_FIXED(ioctl, func, fl) {			\
	.cmd = (ioctl), .name = #ioctl, .handler = (func), .flags = (fl) }

const struct mcmgpu_ioctl_desc *
mcmgpu_ioctl_lookup(const struct mcmgpu_ioctl_desc *table, unsigned int n,
		    unsigned int cmd);
long mcmgpu_ioctl_call(const struct mcmgpu_ioctl_desc *d, void *owner,
		       unsigned long arg);

/* The errno of a device status (MCMGPU_CMPL_*): 0 for MCMGPU_CMPL_OK. */
int mcmgpu_status_errno(u32 status);

#endif /* MCMGPU_IOCTL_DESC_H */
