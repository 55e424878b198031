// SPDX-License-Identifier: GPL-2.0
/*
 * Command ring: descriptors and completion records in coherent memory,
 * a doorbell in BAR0, one MSI-X vector for completions and ring errors.
 * Submission is serialised; the caller owns the bounce buffer between
 * mcmgpu_cmd_begin() and mcmgpu_cmd_end().
 *
 * Restart rule: a call may be restarted only while it has had no effect.
 * Once the device holds a command, the wait for it ends only with the
 * completion, the timeout or a fatal signal (the process then never sees
 * a restart), so an SA_RESTART handler or a stop/continue cannot make the
 * kernel submit the same command twice. Release and removal wait
 * uninterruptibly: a dying process must still destroy its context.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mcmgpu.h"

static unsigned int cmd_timeout_ms = 10000;
module_param(cmd_timeout_ms, uint, 0644);
MODULE_PARM_DESC(cmd_timeout_ms, "Command completion timeout in ms (default 10000)");

/*
 * (Re)start the ring. @how: MCMGPU_RESET_DEVICE at probe, MCMGPU_RESET_RING
 * when recovering from a timeout or a ring error (the files' contexts stay).
 */
static void mcmgpu_ring_program(struct mcmgpu_device *mdev, u32 how)
{
	void __iomem *r = mdev->regs;

	mcmgpu_ring_stop(mdev, how);
	writel(lower_32_bits(mdev->ring_dma), r + MCMGPU_REG_RING_BASE_LO);
	writel(upper_32_bits(mdev->ring_dma), r + MCMGPU_REG_RING_BASE_HI);
	writel(lower_32_bits(mdev->cmpl_dma), r + MCMGPU_REG_CMPL_BASE_LO);
	writel(upper_32_bits(mdev->cmpl_dma), r + MCMGPU_REG_CMPL_BASE_HI);
	writel(MCMGPU_RING_ENTRIES, r + MCMGPU_REG_RING_SIZE);
	writel(MCMGPU_RING_CTRL_ENABLE, r + MCMGPU_REG_RING_CTRL);
	writel(MCMGPU_IRQ_CMD_DONE | MCMGPU_IRQ_RING_ERROR,
	       r + MCMGPU_REG_IRQ_MASK);
	mdev->tail = 0;
	mdev->inflight = false;
	WRITE_ONCE(mdev->ring_error, false);
}

int mcmgpu_ring_init(struct mcmgpu_device *mdev)
{
	struct device *dev = &mdev->pdev->dev;

	mdev->ring = dmam_alloc_coherent(dev, MCMGPU_RING_ENTRIES *
					 sizeof(*mdev->ring), &mdev->ring_dma,
					 GFP_KERNEL);
	mdev->cmpl = dmam_alloc_coherent(dev, MCMGPU_RING_ENTRIES *
					 sizeof(*mdev->cmpl), &mdev->cmpl_dma,
					 GFP_KERNEL);
	mdev->bounce = dmam_alloc_coherent(dev, MCMGPU_BOUNCE_SIZE,
					   &mdev->bounce_dma, GFP_KERNEL);
	if (!mdev->ring || !mdev->cmpl || !mdev->bounce)
		return -ENOMEM;

	mcmgpu_ring_program(mdev, MCMGPU_RESET_DEVICE);
	if (!(readl(mdev->regs + MCMGPU_REG_RING_CTRL) &
	      MCMGPU_RING_CTRL_ENABLE)) {
		dev_err(dev, "device refused the ring configuration (status %#x)\n",
			readl(mdev->regs + MCMGPU_REG_STATUS));
		return -EIO;
	}
	return 0;
}

/* Stop the device from reading the ring or writing memory. */
void mcmgpu_ring_stop(struct mcmgpu_device *mdev, u32 how)
{
	unsigned long deadline;

	writel(0, mdev->regs + MCMGPU_REG_IRQ_MASK);
	writel(how, mdev->regs + MCMGPU_REG_RESET);
	/*
	 * A command in flight still finishes: wait before memory is reused or
	 * freed. The device bounds a command to seconds; a lowered
	 * cmd_timeout_ms must not shorten this wait.
	 */
	deadline = jiffies + msecs_to_jiffies(max(cmd_timeout_ms, 30000U));
	while (readl(mdev->regs + MCMGPU_REG_STATUS) & MCMGPU_STATUS_BUSY) {
		if (time_after(jiffies, deadline)) {
			dev_err(&mdev->pdev->dev, "device still busy after reset\n");
			break;
		}
		usleep_range(100, 1000);
	}
}

irqreturn_t mcmgpu_irq(int irq, void *data)
{
	struct mcmgpu_device *mdev = data;
	u32 status = readl(mdev->regs + MCMGPU_REG_IRQ_STATUS);

	if (!status)
		return IRQ_NONE;
	writel(status, mdev->regs + MCMGPU_REG_IRQ_STATUS);
	if (status & MCMGPU_IRQ_RING_ERROR)
		WRITE_ONCE(mdev->ring_error, true);
	wake_up_all(&mdev->cmpl_wait);
	return IRQ_HANDLED;
}

static bool mcmgpu_slot_done(struct mcmgpu_device *mdev, u32 slot, u64 seq)
{
	return le64_to_cpu(READ_ONCE(mdev->cmpl[slot].seq)) == seq ||
	       READ_ONCE(mdev->ring_error);
}

/*
 * Wait for one submitted command: 0, -EINTR (fatal signal, killable waits
 * only), -ETIMEDOUT or -EIO (ring error). Never -ERESTARTSYS.
 */
static int mcmgpu_wait_slot(struct mcmgpu_device *mdev, u32 slot, u64 seq,
			    enum mcmgpu_wait wait)
{
	unsigned long timeout = msecs_to_jiffies(cmd_timeout_ms);
	long left;

	if (wait == MCMGPU_WAIT_UNINTERRUPTIBLE)
		left = wait_event_timeout(mdev->cmpl_wait,
					  mcmgpu_slot_done(mdev, slot, seq),
					  timeout);
	else
		left = wait_event_killable_timeout(mdev->cmpl_wait,
						   mcmgpu_slot_done(mdev, slot, seq),
						   timeout);
	if (left < 0)
		return -EINTR;
	if (!left) {
		dev_err(&mdev->pdev->dev,
			"command %llu timed out after %u ms, resetting the ring\n",
			seq, cmd_timeout_ms);
		mcmgpu_ring_program(mdev, MCMGPU_RESET_RING);
		return -ETIMEDOUT;
	}
	dma_rmb();
	if (le64_to_cpu(mdev->cmpl[slot].seq) != seq) {
		dev_err(&mdev->pdev->dev,
			"device stopped the ring (status %#x), resetting it\n",
			readl(mdev->regs + MCMGPU_REG_STATUS));
		mcmgpu_ring_program(mdev, MCMGPU_RESET_RING);
		return -EIO;
	}
	return 0;
}

/*
 * Take the command lock. @progress says the call already had an effect
 * (an earlier chunk went through): then only a fatal signal may stop it,
 * with -EINTR; before any effect a signal gives -ERESTARTSYS.
 */
int mcmgpu_cmd_begin(struct mcmgpu_device *mdev, enum mcmgpu_wait wait,
		     bool progress)
{
	int ret;

	if (wait == MCMGPU_WAIT_UNINTERRUPTIBLE) {
		mutex_lock(&mdev->cmd_lock);
	} else if (progress) {
		if (mutex_lock_killable(&mdev->cmd_lock))
			return -EINTR;
	} else if (mutex_lock_interruptible(&mdev->cmd_lock)) {
		return -ERESTARTSYS;
	}
	if (mdev->inflight) {
		/* Left by a caller killed during its wait. */
		ret = mcmgpu_wait_slot(mdev, mdev->inflight_slot,
				       mdev->inflight_seq, wait);
		if (ret == -EINTR) {
			mutex_unlock(&mdev->cmd_lock);
			return ret;
		}
		mdev->inflight = false;
	}
	return 0;
}

void mcmgpu_cmd_end(struct mcmgpu_device *mdev)
{
	mutex_unlock(&mdev->cmd_lock);
}

/*
 * Submit one command and wait for it, between cmd_begin and cmd_end:
 * 0 when the device completed it (c->status says how), or -errno when
 * the ring did not deliver a completion.
 */
int mcmgpu_submit_locked(struct mcmgpu_device *mdev, struct mcmgpu_cmd *c)
{
	struct mcmgpu_hw_cmd *cmd;
	u64 seq = ++mdev->next_seq;
	unsigned int i;
	u32 slot;
	int ret;

	lockdep_assert_held(&mdev->cmd_lock);
	/* A ring stopped since the last command is restarted first; an error
	 * raised after the last completion belongs to no command now.
	 */
	if (readl(mdev->regs + MCMGPU_REG_STATUS) & MCMGPU_STATUS_RING_ERROR)
		mcmgpu_ring_program(mdev, MCMGPU_RESET_RING);
	WRITE_ONCE(mdev->ring_error, false);

	slot = mdev->tail;
	cmd = &mdev->ring[slot];
	memset(cmd, 0, sizeof(*cmd));
	cmd->opcode = cpu_to_le16(c->opcode);
	cmd->flags = cpu_to_le16(c->flags);
	cmd->ctx = cpu_to_le32(c->ctx);
	cmd->seq = cpu_to_le64(seq);
	for (i = 0; i < ARRAY_SIZE(cmd->args); i++)
		cmd->args[i] = cpu_to_le64(c->args[i]);
	/* Descriptor visible before the doorbell (writel orders it too). */
	dma_wmb();
	mdev->tail = (slot + 1) % MCMGPU_RING_ENTRIES;
	writel(mdev->tail, mdev->regs + MCMGPU_REG_RING_TAIL);

	ret = mcmgpu_wait_slot(mdev, slot, seq, c->wait);
	if (ret == -EINTR) {
		mdev->inflight = true;
		mdev->inflight_slot = slot;
		mdev->inflight_seq = seq;
		return ret;
	}
	if (ret)
		return ret;

	c->status = le32_to_cpu(mdev->cmpl[slot].status);
	c->result = le64_to_cpu(mdev->cmpl[slot].result);
	WRITE_ONCE(mdev->commands_done, mdev->commands_done + 1);
	if (c->status != MCMGPU_CMPL_OK) {
		WRITE_ONCE(mdev->commands_failed, mdev->commands_failed + 1);
		dev_dbg(&mdev->pdev->dev, "command %llu opcode %#x failed: status %u\n",
			seq, c->opcode, c->status);
	}
	return 0;
}

/* One command with no bounce-buffer data. */
int mcmgpu_submit(struct mcmgpu_device *mdev, struct mcmgpu_cmd *c)
{
	int ret = mcmgpu_cmd_begin(mdev, c->wait, false);

	if (ret)
		return ret;
	ret = mcmgpu_submit_locked(mdev, c);
	mcmgpu_cmd_end(mdev);
	return ret;
}

/*
 * One command whose data goes through the bounce buffer (mcmgpu.h). User
 * memory is copied into and out of a buffer of the call's own, outside the
 * command lock: a user page fault that blocks (a stuck FUSE mapping, say)
 * must not block every other file's commands.
 */
int mcmgpu_submit_xfer(struct mcmgpu_device *mdev, struct mcmgpu_cmd *c,
		       const struct mcmgpu_xfer *x)
{
	bool report;
	void *buf;
	int ret;

	if (x->in_len + x->out_len > MCMGPU_BOUNCE_SIZE)
		return -EINVAL;
	/* In, then out: the one buffer carries each way in turn. */
	buf = kvmalloc(max3(x->in_len, x->out_len, 1U), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (x->in_len && copy_from_user(buf, x->in, x->in_len)) {
		ret = -EFAULT;
		goto free;
	}
	ret = mcmgpu_cmd_begin(mdev, c->wait, x->progress);
	if (ret)
		goto free;
	memcpy(mdev->bounce, buf, x->in_len);
	memset(mdev->bounce + x->in_len, 0, x->out_len);
	if (x->in_arg >= 0)
		c->args[x->in_arg] = mdev->bounce_dma;
	if (x->out_arg >= 0)
		c->args[x->out_arg] = mdev->bounce_dma + x->in_len;
	ret = mcmgpu_submit_locked(mdev, c);
	report = !ret && x->out_len &&
		 (c->status == MCMGPU_CMPL_OK || c->status == x->report_status);
	if (report)
		memcpy(buf, mdev->bounce + x->in_len, x->out_len);
	mcmgpu_cmd_end(mdev);
	if (report && copy_to_user(x->out, buf, x->out_len))
		ret = -EFAULT;
free:
	kvfree(buf);
	return ret;
}
