/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Register, command and PTE fields are defined once, as masks (the other
 * uapi headers); FIELD_GET and FIELD_PREP read and write them everywhere:
 * the kernel's own in the kernel, the same two for the tool, the tests,
 * the fuzzers and the QEMU device, which have none.
 */
#ifndef MCMGPU_BITFIELD_H
#define MCMGPU_BITFIELD_H

#ifdef __KERNEL__
#include <linux/bitfield.h>
#else
/* As linux/bitfield.h: mask a constant, contiguous and non-zero. */
#ifndef FIELD_GET
#define FIELD_GET(mask, reg) \
	((__typeof__(mask))(((reg) & (mask)) >> __builtin_ctzll(mask)))
#endif
#ifndef FIELD_PREP
#define FIELD_PREP(mask, val) \
	((((__typeof__(mask))(val)) << __builtin_ctzll(mask)) & (mask))
#endif
#endif

#endif /* MCMGPU_BITFIELD_H */
