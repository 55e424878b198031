/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The identities of Barre's counters (uapi/mcmgpu_barre.h, above struct
 * mcmgpu_barre_stats), one check for the host tests and the guest test.
 */
#ifndef BARRE_IDENTITIES_H
#define BARRE_IDENTITIES_H

#include "mcmgpu_barre.h"

/* The chiplets' side alone (chiplet_tlb_export_stats). */
#define EXPECT_BARRE_DEVICE_IDENTITIES(st) do {				\
	EXPECT_EQ((st)->accesses, (st)->l1_hits + (st)->l2_hits +	\
		  (st)->mshr_merges + (st)->l2_misses);			\
	EXPECT_EQ((st)->l2_misses, (st)->local_hits + (st)->remote_hits + \
		  (st)->ats_requests_sent);				\
	EXPECT_EQ((st)->remote_requests, (st)->remote_hits +		\
		  (st)->remote_false_positives);			\
	EXPECT_LE((st)->lcf_true_positives, (st)->lcf_hits);		\
} while (0)

/* A whole replay's counters. */
#define EXPECT_BARRE_IDENTITIES(st) do {				\
	EXPECT_EQ((st)->ats_requests, (st)->walks + (st)->coalesced);	\
	EXPECT_EQ((st)->ats_requests, (st)->ats_requests_sent);		\
	EXPECT_BARRE_DEVICE_IDENTITIES(st);				\
} while (0)

#endif /* BARRE_IDENTITIES_H */
