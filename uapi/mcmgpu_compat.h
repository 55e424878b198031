/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The one dependency of the freestanding model cores: fixed-width types,
 * bool and errno values, from the kernel or from the C library, and
 * FIELD_GET/FIELD_PREP (mcmgpu_bitfield.h). Cores include nothing else.
 */
#ifndef MCMGPU_COMPAT_H
#define MCMGPU_COMPAT_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/types.h>
#include <linux/string.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#endif
#include "mcmgpu_bitfield.h"

#endif /* MCMGPU_COMPAT_H */
