// SPDX-License-Identifier: GPL-2.0
/*
 * MCMGPU_IOCTL_LAUNCH: one launch record through the device's global
 * command processor, in the file's own launch sequence; with
 * MCMGPU_LAUNCH_F_ADSM an ADSM kernel (mcmgpu_adsm.c).
 */
#include "mcmgpu.h"
#include "mcmgpu_ioctl.h"
#include "mcmgpu_cpelide.h"

static int mcmgpu_ioctl_launch(void *file, void *arg, u32 usize)
{
	struct mcmgpu_file *mf = file;
	struct mcmgpu_launch *ln = arg;
	struct mcmgpu_cmd c = {
		.opcode = MCMGPU_OP_CP_LAUNCH,
		.ctx = mf->ctx,
	};
	struct mcmgpu_xfer x = {
		.in = u64_to_user_ptr(ln->record_ptr),
		.in_len = sizeof(struct mcmgpu_cpe_record),
		.in_arg = 0,
		.out = u64_to_user_ptr(ln->result_ptr),
		.out_len = sizeof(struct mcmgpu_cpe_launch_result),
		.out_arg = 1,
		.report_status = MCMGPU_CMPL_BAD_LAUNCH,
	};
	int ret;

	if (ln->flags & MCMGPU_LAUNCH_F_ADSM) {
		if (ln->flags & ~(MCMGPU_LAUNCH_F_ADSM | MCMGPU_LAUNCH_F_WAIT))
			return -EINVAL;
		return mcmgpu_adsm_launch(mf, ln);
	}
	if (ln->flags || ln->record_size != sizeof(struct mcmgpu_cpe_record) ||
	    ln->result_size < sizeof(struct mcmgpu_cpe_launch_result))
		return -EINVAL;
	if (!ln->record_ptr || !ln->result_ptr)
		return -EFAULT;
	ret = mcmgpu_submit_xfer(mf->mdev, &c, &x);
	return ret ? ret : mcmgpu_status_errno(c.status);
}

static const struct mcmgpu_ioctl_desc mcmgpu_cpelide_ioctls[] = {
	MCMGPU_IOCTL_DEF(MCMGPU_IOCTL_LAUNCH, MCMGPU_LAUNCH_SIZE_VER0,
			 mcmgpu_ioctl_launch, 0),
};

const struct mcmgpu_engine mcmgpu_cpelide_engine = {
	.name = "cpelide",
	.ioctls = mcmgpu_cpelide_ioctls,
	.nr_ioctls = ARRAY_SIZE(mcmgpu_cpelide_ioctls),
};
