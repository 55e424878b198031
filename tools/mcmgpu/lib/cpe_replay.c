// SPDX-License-Identifier: GPL-2.0
/* The one replay loop of a CPElide launch sequence (cpe_replay.h). */
#include <string.h>

#include "cpe_replay.h"

int cpe_replay(struct cpe_backend *b, const struct cpe_seq *seq,
	       struct mcmgpu_cpe_stats *st, struct replay_error *e)
{
	size_t i;
	int ret;

	memset(e, 0, sizeof(*e));
	ret = b->ops->start(b, &seq->rec[0], e);
	for (i = 1; !ret && i < seq->n; i++)
		ret = b->ops->launch(b, &seq->rec[i], e);
	if (!ret)
		ret = b->ops->finish(b, seq->rec[seq->n - 1].type ==
				     MCMGPU_CPE_REC_END, st, e);
	/* i - 1: the record that failed (an END of the device's: the last). */
	if (ret && e->kind == REPLAY_ERR_RECORD)
		e->line = seq->line[i - 1];
	b->ops->close(b);
	return ret;
}
