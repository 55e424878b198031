/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mcmgpu hardware interface: PCI identity, BAR0 registers, command ring and
 * completion formats. The QEMU device and the kernel drivers both include
 * this file; no register or format constant is defined anywhere else.
 *
 * Byte order: every structure the device reads or writes by DMA is
 * little-endian. The ring's descriptors and completions use __le types.
 * The mechanism structures (traces, launch records, results) are shared
 * with user space, which fills them in its native order and the driver
 * copies them unchanged, so the device and the driver refuse to build for
 * a big-endian host or guest (a compile-time check in each).
 */
#ifndef MCMGPU_HW_H
#define MCMGPU_HW_H

#include <linux/types.h>

#include "mcmgpu_bitfield.h"

/* 0x1234 is QEMU's unofficial vendor ID (also used by "edu"); "MG". */
#define MCMGPU_PCI_VENDOR_ID		0x1234
#define MCMGPU_PCI_DEVICE_ID		0x4d47
#define MCMGPU_PCI_REVISION		0x01

#define MCMGPU_BAR_REGS			0	/* control registers, CXL blocks */
#define MCMGPU_BAR_VRAM			2	/* all chiplet memories, 64-bit */
#define MCMGPU_BAR_REGS_SIZE		0x100000	/* mcmgpu_cxl.h: from 0x10000 */
#define MCMGPU_MSIX_TABLE_OFFSET	0x8000	/* MSI-X table in BAR0 */
#define MCMGPU_MSIX_PBA_OFFSET		0x9000
#define MCMGPU_MSIX_VECTORS		3
#define MCMGPU_MSIX_VEC_CMD		0	/* command completion / error */
#define MCMGPU_MSIX_VEC_IOMMU		1	/* events of the IOMMU window */
#define MCMGPU_MSIX_VEC_CXL_RC		2	/* events of the CXL RC window */

#define MCMGPU_IDENT_MAGIC		0x474d434dU	/* "MCMG" */
#define MCMGPU_HW_VERSION_MAJOR		1
#define MCMGPU_HW_VERSION_MINOR		0
/* MCMGPU_REG_VERSION's fields */
#define MCMGPU_VERSION_MAJOR_MASK	0xffff0000U
#define MCMGPU_VERSION_MINOR_MASK	0x0000ffffU
#define MCMGPU_HW_VERSION \
	(FIELD_PREP(MCMGPU_VERSION_MAJOR_MASK, MCMGPU_HW_VERSION_MAJOR) | \
	 FIELD_PREP(MCMGPU_VERSION_MINOR_MASK, MCMGPU_HW_VERSION_MINOR))

#define MCMGPU_MIN_CHIPLETS		2
#define MCMGPU_MAX_CHIPLETS		8
#define MCMGPU_DEFAULT_CHIPLETS		4
#define MCMGPU_DEFAULT_VRAM_PER_CHIPLET	(64ULL << 20)
#define MCMGPU_MIN_VRAM_PER_CHIPLET	(1ULL << 20)
#define MCMGPU_MAX_VRAM_PER_CHIPLET	(1ULL << 30)

/* BAR0 registers (32-bit access; 64-bit values as LO/HI pairs). */
#define MCMGPU_REG_IDENT		0x000	/* RO: MCMGPU_IDENT_MAGIC */
#define MCMGPU_REG_VERSION		0x004	/* RO: MCMGPU_HW_VERSION */
#define MCMGPU_REG_CHIPLETS		0x008	/* RO: number of chiplets */
#define MCMGPU_REG_FEATURES		0x00c	/* RO: MCMGPU_FEAT_* */
#define MCMGPU_REG_VRAM_PER_CHIPLET_LO	0x010	/* RO: bytes per chiplet */
#define MCMGPU_REG_VRAM_PER_CHIPLET_HI	0x014
#define MCMGPU_REG_RING_BASE_LO		0x020	/* RW: ring bus address */
#define MCMGPU_REG_RING_BASE_HI		0x024
#define MCMGPU_REG_RING_SIZE		0x028	/* RW: entries, power of 2 */
#define MCMGPU_REG_RING_CTRL		0x02c	/* RW: MCMGPU_RING_CTRL_* */
#define MCMGPU_REG_RING_HEAD		0x030	/* RO: next entry the device reads */
#define MCMGPU_REG_RING_TAIL		0x034	/* WO doorbell: new tail */
#define MCMGPU_REG_CMPL_BASE_LO		0x038	/* RW: completion array address */
#define MCMGPU_REG_CMPL_BASE_HI		0x03c
#define MCMGPU_REG_IRQ_STATUS		0x040	/* RW1C: MCMGPU_IRQ_* */
#define MCMGPU_REG_IRQ_MASK		0x044	/* RW: 1 = enabled */
#define MCMGPU_REG_STATUS		0x048	/* RO: MCMGPU_STATUS_* */
#define MCMGPU_REG_RESET		0x04c	/* WO: MCMGPU_RESET_* */
#define MCMGPU_REG_CMD_COUNT		0x050	/* RO: commands completed */
#define MCMGPU_REG_ERR_COUNT		0x054	/* RO: commands failed */
#define MCMGPU_REG_FAULT_INJECT		0x058	/* RW: MCMGPU_FAULT_*, for tests */
#define MCMGPU_REG_CONTEXTS		0x05c	/* RO: contexts the device keeps */
/* RO: ADSM's modeled transfer cost (uapi/mcmgpu_adsm.h, adsm-dma-* props) */
#define MCMGPU_REG_ADSM_DMA_SETUP	0x060	/* cycles per transfer */
#define MCMGPU_REG_ADSM_DMA_BW		0x064	/* bytes per cycle */
#define MCMGPU_REG_CHIPLET_BASE		0x100	/* per-chiplet memory window */
#define MCMGPU_REG_CHIPLET_STRIDE	0x10
#define MCMGPU_CHIPLET_MEM_BASE_LO	0x0	/* RO: GPU physical base */
#define MCMGPU_CHIPLET_MEM_BASE_HI	0x4
#define MCMGPU_CHIPLET_MEM_SIZE_LO	0x8	/* RO: bytes */
#define MCMGPU_CHIPLET_MEM_SIZE_HI	0xc
#define MCMGPU_REG_CHIPLET(c, field) \
	(MCMGPU_REG_CHIPLET_BASE + (c) * MCMGPU_REG_CHIPLET_STRIDE + (field))

/*
 * Register windows: an engine may own one 4 KiB window of BAR0, served by
 * its own code. Each starts with the same four registers; the engine's own
 * registers begin at MCMGPU_WIN_ENGINE. Events of a window raise its
 * MSI-X vector.
 */
#define MCMGPU_WINDOW_BASE		0x1000
#define MCMGPU_WINDOW_SIZE		0x1000
#define MCMGPU_WINDOWS			2
#define MCMGPU_WINDOW_IOMMU		0	/* Barre's IOMMU (barre_iommu.ko) */
#define MCMGPU_WINDOW_CXL_RC		1	/* the CXL root complex (gpu_rc.ko) */
#define MCMGPU_WINDOW(n)	(MCMGPU_WINDOW_BASE + (n) * MCMGPU_WINDOW_SIZE)
#define MCMGPU_WIN_IDENT		0x000	/* RO: engine name, 4 ASCII bytes */
#define MCMGPU_WIN_VECTOR		0x004	/* RO: the window's MSI-X vector */
#define MCMGPU_WIN_IRQ_STATUS		0x008	/* RW1C: MCMGPU_WIN_IRQ_* */
#define MCMGPU_WIN_IRQ_MASK		0x00c	/* RW: 1 = enabled */
#define MCMGPU_WIN_PINGS		0x010	/* RO: PING commands received */
#define MCMGPU_WIN_ENGINE		0x100	/* engine registers from here */
#define MCMGPU_WIN_IRQ_PING		(1U << 0)	/* raised by MCMGPU_OP_PING */

#define MCMGPU_FEAT_DMA_COPY		(1U << 0)
#define MCMGPU_FEAT_FINEPACK		(1U << 1)
#define MCMGPU_FEAT_CPELIDE		(1U << 2)
#define MCMGPU_FEAT_BARRE		(1U << 3)
#define MCMGPU_FEAT_ADSM		(1U << 4)
#define MCMGPU_FEAT_GPU			(1U << 5)	/* the GPU timing core */

/* Fault injection (cleared by reset): a hung device, a failing command. */
#define MCMGPU_FAULT_STALL		(1U << 0)	/* do not consume the ring */
#define MCMGPU_FAULT_FAIL_NEXT		(1U << 1)	/* next command fails */

/*
 * RESET: DEVICE resets everything, contexts included (probe and removal);
 * RING stops the ring and clears its registers, status and fault
 * injection but keeps the contexts, so a driver recovering from a timeout
 * does not take their state from the open files.
 */
#define MCMGPU_RESET_DEVICE		(1U << 0)
#define MCMGPU_RESET_RING		(1U << 1)

#define MCMGPU_RING_CTRL_ENABLE		(1U << 0)
#define MCMGPU_RING_MIN_ENTRIES		2
#define MCMGPU_RING_MAX_ENTRIES		4096
#define MCMGPU_RING_ALIGN		64	/* ring and completion alignment */

#define MCMGPU_IRQ_CMD_DONE		(1U << 0)
#define MCMGPU_IRQ_RING_ERROR		(1U << 1)

/* STATUS: the ring was stopped because its configuration or tail was bad. */
#define MCMGPU_STATUS_RING_ERROR	(1U << 0)
#define MCMGPU_STATUS_BAD_RING_CONFIG	(1U << 1)
#define MCMGPU_STATUS_BAD_TAIL		(1U << 2)
/*
 * A command is executing. Commands run off the register path, so a RESET
 * stops the ring at once but lets the command in flight finish: wait for
 * BUSY to clear before freeing memory the ring pointed at.
 */
#define MCMGPU_STATUS_BUSY		(1U << 3)

/*
 * One command descriptor: 64 bytes in the ring. A context holds what a
 * mechanism keeps between commands (a trace, a launch sequence) for one
 * client; the driver makes one per open file. Commands that use one name
 * it in ctx; the others must leave ctx 0.
 */
struct mcmgpu_hw_cmd {
	__le16 opcode;		/* MCMGPU_OP_* */
	__le16 flags;		/* opcode specific */
	__le32 ctx;		/* context id, 0 = none */
	__le64 seq;		/* echoed in the completion record */
	__le64 args[6];
};

#define MCMGPU_HW_CMD_SIZE		64

#define MCMGPU_OP_NOP			0x0000
/* args[0] host bus address, args[1] GPU physical address, args[2] length */
#define MCMGPU_OP_DMA_COPY		0x0001
#define MCMGPU_DMA_FLAG_TO_HOST		(1U << 0)	/* else host to GPU */
#define MCMGPU_DMA_MAX_LEN		(64U << 20)	/* per command */
/*
 * Load a trace into the context's trace buffer, in order: args[0] host
 * address, args[1] offset (0 starts a new trace, else the bytes loaded so
 * far), args[2] length (<= MCMGPU_DMA_MAX_LEN), args[3] total trace length.
 * With MCMGPU_TRACE_LOAD_PAGES, args[0] is the host address of a list of
 * little-endian 64-bit page addresses (MCMGPU_PAGE_SHIFT pages) and the
 * bytes start args[4] (< one page) into the list's first page: the
 * driver hands over the caller's pinned pages, no bounce copy.
 */
#define MCMGPU_OP_TRACE_LOAD		0x0002
#define MCMGPU_TRACE_LOAD_PAGES		(1U << 0)
/*
 * Replay the context's FinePack trace: args[0] total length (must match
 * the load), args[1] sub-header bytes, args[2] TLP overhead bytes, args[3]
 * host address of a struct mcmgpu_fp_replay_result the device writes (also
 * on BAD_TRACE).
 */
#define MCMGPU_OP_FINEPACK_RUN		0x0003
/*
 * One record for the global command processor (struct mcmgpu_cpe_record):
 * args[0] its host address, args[1] the host address of a struct
 * mcmgpu_cpe_launch_result the device writes back (also on BAD_LAUNCH).
 */
#define MCMGPU_OP_CP_LAUNCH		0x0004
/* Create a context (ctx 0): result = its id, 1..CONTEXTS. */
#define MCMGPU_OP_CTX_CREATE		0x0005
/* Destroy the context named in ctx and everything it holds. */
#define MCMGPU_OP_CTX_DESTROY		0x0006
/* Raise window args[0]'s PING event and vector (ctx 0): the aux drivers' test. */
#define MCMGPU_OP_PING			0x0007
/*
 * Barre (mcmgpu_barre.h): append args[1] struct mcmgpu_barre_access records
 * (at most MCMGPU_BARRE_LOAD_MAX) from host address args[0] to the
 * context's next phase; MCMGPU_BARRE_LOAD_FIRST starts a new one. A record
 * the device refuses: BAD_TRACE, result its 1-based index.
 */
#define MCMGPU_OP_BARRE_LOAD		0x0008
#define MCMGPU_BARRE_LOAD_FIRST		(1U << 0)
#define MCMGPU_BARRE_LOAD_MAX		65536
/*
 * One epoch of the context's chiplets (see struct mcmgpu_barre_run_result):
 * args[0] the host address of the ATS request queue the device fills
 * (MCMGPU_ATS_QUEUE_ENTRIES struct mcmgpu_ats_request), args[1] that of
 * the response queue, args[2] the responses in it, args[3] the host
 * address of the result. MCMGPU_BARRE_RUN_RESET empties the context's
 * TLBs, clock and counters (and runs nothing); MCMGPU_BARRE_RUN_START
 * begins the loaded phase; no flag runs the next epoch of the running
 * phase; MCMGPU_BARRE_RUN_REPORT only writes the result. At most one flag.
 */
#define MCMGPU_OP_BARRE_RUN		0x0009
/*
 * With START, args[4] is the context's page-table root (guest-physical;
 * 0: none): every translation F-Barre makes in the package is checked
 * against a walk of it (the inpackage_mismatches counter).
 * With RESET, F-Barre's chiplets (fbarre.c): args[4] bit 0 in-package
 * translation on, bits 8-15 the longest merged run looked for (1..4),
 * bits 16-31 the filters' rows (256, 512, 1024); args[5] the filter
 * messages lost per million. args[4] = 0: plain Barre.
 */
#define MCMGPU_FBARRE_ARG_SHARING	(1ULL << 0)
#define MCMGPU_FBARRE_ARG_RUN_MASK	0x000000000000ff00ULL
#define MCMGPU_FBARRE_ARG_ROWS_MASK	0x00000000ffff0000ULL
#define MCMGPU_FBARRE_ARG(run, rows) \
	(FIELD_PREP(MCMGPU_FBARRE_ARG_RUN_MASK, run) | \
	 FIELD_PREP(MCMGPU_FBARRE_ARG_ROWS_MASK, rows))
#define MCMGPU_FBARRE_ARG_RUN(a)	FIELD_GET(MCMGPU_FBARRE_ARG_RUN_MASK, a)
#define MCMGPU_FBARRE_ARG_ROWS(a)	FIELD_GET(MCMGPU_FBARRE_ARG_ROWS_MASK, a)
#define MCMGPU_BARRE_RUN_RESET		(1U << 0)
#define MCMGPU_BARRE_RUN_START		(1U << 1)
#define MCMGPU_BARRE_RUN_REPORT		(1U << 2)
/* Drop every TLB entry of the context's chiplets (a free's shootdown). */
#define MCMGPU_OP_TLB_INVALIDATE	0x000a
/*
 * CXL-GPU speculative read and deterministic store (mcmgpu_cxl.h), no
 * context: CXL_LOAD appends args[1] struct mcmgpu_cxl_record (at most
 * MCMGPU_CXL_LOAD_MAX) from host address args[0] to the device's trace;
 * MCMGPU_CXL_LOAD_FIRST starts a new one. CXL_REPLAY replays it through
 * the committed HDM decoders and the endpoints: args[0] the host address
 * of a struct mcmgpu_cxl_sim_config, args[1] that of the struct
 * mcmgpu_cxl_replay_out it writes (also on BAD_TRACE, naming the record).
 */
#define MCMGPU_OP_CXL_LOAD		0x000b
#define MCMGPU_CXL_LOAD_FIRST		(1U << 0)
#define MCMGPU_CXL_LOAD_MAX		65536
#define MCMGPU_OP_CXL_REPLAY		0x000c
/*
 * ADSM (mcmgpu_adsm.h), both through the page table whose root is args[0]
 * (the context's, a guest-physical address). ADSM_XFER copies args[2]
 * bytes (at most MCMGPU_ADSM_MAX_OBJECT) between the GPU virtual range at
 * args[1] and the guest pages listed at args[3] (one __le64 guest address
 * a page), starting args[4] bytes into the first; flag
 * MCMGPU_ADSM_XFER_TO_HOST for GPU to host. result: the modeled cycles. ADSM_KERNEL runs the struct
 * mcmgpu_adsm_kernel at host address args[1] and writes its struct
 * mcmgpu_adsm_kernel_result to args[2] (also when refused: BAD_LAUNCH).
 */
#define MCMGPU_OP_ADSM_XFER		0x000d
#define MCMGPU_ADSM_XFER_TO_HOST	(1U << 0)
#define MCMGPU_OP_ADSM_KERNEL		0x000e
/*
 * The GPU timing core (mcmgpu_gpu.h), per context. GPU_LOAD appends
 * args[1] bytes (1..MCMGPU_DMA_MAX_LEN) of a binary program from host
 * address args[0]; MCMGPU_GPU_LOAD_FIRST starts a new one and ends any
 * run (at most the gpu-program-max-mib property: BAD_LENGTH). result: the
 * bytes loaded. GPU_START checks the struct mcmgpu_gpu_start at args[0]
 * and starts a run of the loaded program: with translation, args[1] is
 * the host address of args[2] __le64 GPU VAs, one per OBJECT record in
 * program order. GPU_RUN takes args[2] ATS responses from the queue at
 * args[1], runs the core to cycle args[4] (~0: the end) in work-bounded
 * steps (with translation, until an epoch sends requests or waits for
 * answers, as BARRE_RUN) and writes its requests to the queue at args[0].
 * Both write a struct mcmgpu_gpu_result to args[3] (also when refused:
 * BAD_ARG a field, BAD_TRACE the program, NO_TRACE nothing loaded or
 * started). GPU_STATS writes the result to args[0], args[2] bytes of
 * struct gpu_core_stats to args[1] and, from record args[4] on, at most
 * the count in args[5]'s high 32 bits of struct gpu_kernel_stats (their
 * size in its low 32) to args[3]; result: the records written.
 * GPU_OBJECTS reads the loaded program through (its grammar checked, as a
 * run's reader would) and writes the result to args[0] and, from OBJECT
 * record args[2] on (0-based, program order), at most args[3] (at most
 * MCMGPU_GPU_MAX_OBJECTS) struct mcmgpu_gpu_object to args[1]; result:
 * the program's OBJECT records, counted up to MCMGPU_GPU_MAX_OBJECTS + 1
 * (where it stops reading). Refused: NO_TRACE nothing loaded, BAD_TRACE
 * the program (msg says where), BAD_ARG args[3].
 */
#define MCMGPU_OP_GPU_LOAD		0x000f
#define MCMGPU_GPU_LOAD_FIRST		(1U << 0)
#define MCMGPU_OP_GPU_START		0x0010
#define MCMGPU_OP_GPU_RUN		0x0011
#define MCMGPU_OP_GPU_STATS		0x0012
#define MCMGPU_OP_GPU_OBJECTS		0x0013
#define MCMGPU_GPU_STATS_ARG(size, count) \
	((__u64)(size) | ((__u64)(count) << 32))

/* One completion record per ring slot: 32 bytes, written at slot index. */
struct mcmgpu_hw_cmpl {
	__le64 seq;		/* seq of the completed command */
	__le32 status;		/* MCMGPU_CMPL_* */
	__le32 reserved;
	__le64 result;		/* opcode specific (bytes moved for DMA) */
	__le64 cycles;		/* modeled device cycles spent */
};

#define MCMGPU_HW_CMPL_SIZE		32

#define MCMGPU_CMPL_OK			0
#define MCMGPU_CMPL_BAD_OPCODE		1
#define MCMGPU_CMPL_BAD_FLAGS		2
#define MCMGPU_CMPL_BAD_LENGTH		3
#define MCMGPU_CMPL_BAD_GPU_ADDR	4
#define MCMGPU_CMPL_DMA_FAULT		5	/* host address not accessible */
#define MCMGPU_CMPL_BAD_RESERVED	6
#define MCMGPU_CMPL_BAD_TRACE		7	/* result: 1-based record, 0 header */
#define MCMGPU_CMPL_NO_MEMORY		8	/* device could not allocate */
#define MCMGPU_CMPL_NO_TRACE		9	/* nothing (complete) loaded */
#define MCMGPU_CMPL_INJECTED_FAULT	10	/* MCMGPU_FAULT_FAIL_NEXT */
#define MCMGPU_CMPL_BAD_LAUNCH		11	/* result names the argument */
#define MCMGPU_CMPL_NO_CONTEXT		12	/* every context is in use */
#define MCMGPU_CMPL_BAD_CONTEXT		13	/* ctx not live, or not 0 */
#define MCMGPU_CMPL_BAD_ARG		14	/* an argument out of its range */
#define MCMGPU_CMPL_BAD_ATS_RESPONSE	15	/* a tag never sent or answered */
#define MCMGPU_CMPL_ATS_DISABLED	16	/* ATS off in config space */
#define MCMGPU_CMPL_NO_IOMMU		17	/* no IOMMU answers the ATS rings */

/*
 * Where the device refused a record (a trace record, a launch argument),
 * in the result every mechanism writes back: the command's status says
 * which mechanism, index which record or argument.
 */
struct mcmgpu_record_error {
	__u64 index;		/* 1-based; 0 = the header or the record itself */
	__u64 value;		/* the offending value */
	char what[96];		/* "field: problem", NUL-terminated */
};

/*
 * GPU page tables (Barre, drivers/mcmgpu/gpu_alloc.c): one per address
 * space, 4 levels of 512 64-bit entries, 4 KiB pages, 48-bit GPU virtual
 * addresses. They are read only by our IOMMU's walker (barre_iommu.ko), so
 * the format is ours and not x86's: the coalescing fields need not squeeze
 * into the 5 bits Linux leaves free in a CPU PTE (notes §6.1).
 *
 * Non-leaf entry: VALID and the guest-physical address of the next table
 * (bits 12..51). Leaf entry:
 *   bit 0       VALID
 *   bit 1       READ
 *   bit 2       WRITE
 *   bits 12-39  global GPU page frame number (chiplet * pages per chiplet
 *               + local PFN; 28 bits cover 8 chiplets of 1 GiB)
 *   bits 40-47  coal_bitmap: bit c set = chiplet c holds a page of this
 *               page's coalescing group (the paper prints chiplet 0 as the
 *               leftmost bit; here it is bit 0). 0 = not grouped.
 *   bits 48-50  coal_pos: this page's position in its group, the index into
 *               the object's GPU_map (not a rank among set bits), so a
 *               group with holes still computes (notes §6.3)
 *   bits 51-52  coal_intra: F-Barre, the page's place in its chiplet's run
 *   bits 53-54  coal_merged: F-Barre, merged groups - 1 (run length - 1)
 * Every other bit is zero. One page is a coalescing source only when its
 * bitmap has two or more bits set.
 *
 * On more than 8 chiplets (the host only; the device has at most 8) the
 * coalescing fields change meaning, as Barre Chord §VI proposes and used
 * for its 16 chiplets (notes §2.4; mcmgpu_barre.h, "count mode"):
 *   bits 40-47  coal_count: the group's size n, a binary count of
 *               consecutive chiplets, namely GPU_map positions 0..n-1
 *   bits 48-51  coal_pos: the position, 4 bits (16 positions)
 *   bits 52-54  zero: no F-Barre expansion (at most 4 chiplets, §VI)
 */
#define MCMGPU_PT_LEVELS		4
#define MCMGPU_PT_ENTRIES		512
#define MCMGPU_PAGE_SHIFT		12
#define MCMGPU_VA_BITS			48
#define MCMGPU_PTE_VALID		(1ULL << 0)
#define MCMGPU_PTE_READ			(1ULL << 1)
#define MCMGPU_PTE_WRITE		(1ULL << 2)
#define MCMGPU_PTE_TABLE_MASK		0x000ffffffffff000ULL
#define MCMGPU_PTE_PFN_MASK		0x000000fffffff000ULL	/* 39:12 */
#define MCMGPU_PTE_COAL_BITMAP_MASK	0x0000ff0000000000ULL	/* 47:40 */
#define MCMGPU_PTE_COAL_POS_MASK	0x0007000000000000ULL	/* 50:48 */
#define MCMGPU_PTE_COAL_INTRA_MASK	0x0018000000000000ULL	/* 52:51 */
#define MCMGPU_PTE_COAL_MERGED_MASK	0x0060000000000000ULL	/* 54:53 */
#define MCMGPU_PTE_COAL_POS16_MASK	0x000f000000000000ULL	/* 51:48, count mode */
/* The bits of a leaf PTE that describe its coalescing group. */
#define MCMGPU_PTE_COAL_MASK \
	(MCMGPU_PTE_COAL_BITMAP_MASK | MCMGPU_PTE_COAL_POS_MASK | \
	 MCMGPU_PTE_COAL_INTRA_MASK | MCMGPU_PTE_COAL_MERGED_MASK)
#define MCMGPU_PTE_RESERVED_MASK	0xff80000000000ff8ULL

#define MCMGPU_PTE_PFN(pte)		FIELD_GET(MCMGPU_PTE_PFN_MASK, pte)
#define MCMGPU_PTE_COAL_BITMAP(pte)	FIELD_GET(MCMGPU_PTE_COAL_BITMAP_MASK, pte)
#define MCMGPU_PTE_COAL_POS(pte)	FIELD_GET(MCMGPU_PTE_COAL_POS_MASK, pte)
#define MCMGPU_PTE_COAL_INTRA(pte)	FIELD_GET(MCMGPU_PTE_COAL_INTRA_MASK, pte)
#define MCMGPU_PTE_COAL_MERGED(pte)	FIELD_GET(MCMGPU_PTE_COAL_MERGED_MASK, pte)

/*
 * Address Translation Services between the chiplets and the IOMMU
 * (barre_iommu.ko). Each BARRE_RUN epoch the device writes its new
 * requests to the start of the request queue; the IOMMU answers every
 * one it completes before the epoch's horizon in the response queue,
 * which the next BARRE_RUN reads. Both queues belong to the IOMMU.
 */
#define MCMGPU_ATS_QUEUE_ENTRIES	(MCMGPU_MAX_CHIPLETS * 16)

struct mcmgpu_ats_request {
	__le64 tag;		/* unique among the requests in flight */
	__le64 vpn;		/* GPU virtual page */
	__le64 issue;		/* cycle it leaves the chiplet */
	__le32 pasid;		/* the context's address space */
	__u8 chiplet;
	__u8 write;		/* the access needs write permission */
	__le16 reserved;
};

struct mcmgpu_ats_response {
	__le64 tag;		/* of the request it answers */
	__le64 pfn;		/* global GPU page frame */
	__le64 done;		/* cycle the IOMMU answers */
	__le32 status;		/* MCMGPU_ATS_* */
	__u8 writable;
	__u8 coalesced;		/* by PEC, without a walk */
	__u8 has_group;		/* the F-Barre extension below is valid */
	__u8 reserved;
	/*
	 * F-Barre's extension (§V-A), when the page's coal_bitmap has two or
	 * more bits and the IOMMU's PEC buffer holds its object: the PTE's
	 * coalescing bits (40-54, in place) and the object's PEC entry.
	 */
	__le64 coal;
	__le64 start_vpn;
	__le64 end_vpn;
	__le32 g;
	__u8 nmap;
	__u8 map[MCMGPU_MAX_CHIPLETS];
	__u8 reserved2[3];
};

#define MCMGPU_ATS_OK			0
#define MCMGPU_ATS_FAULT		1	/* no valid PTE, or not writable */

/*
 * The ATS rings (barre_iommu.ko's, in its coherent memory; the IOMMU
 * window's registers give their address). The device runs a context's
 * chiplets an epoch at a time inside one command; after an epoch it posts
 * the epoch's requests as one batch: the requests at req_tail on, then
 * the batch fields, then batch_seq + 1. It raises the window's ATS event
 * (MCMGPU_WIN_IRQ_ATS) unless the IOMMU says it is polling, and waits.
 * The IOMMU takes the batch (req_head = req_tail), walks, writes every
 * answer done before the horizon at resp_tail on, then resp_tail,
 * next_event, status and answered_seq = batch_seq, and writes
 * MCMGPU_IOMMU_DOORBELL. The device reads the answers from resp_head to
 * resp_tail and moves resp_head. Indices run 0..MCMGPU_ATS_RING_ENTRIES-1
 * and wrap; one batch is at most MCMGPU_ATS_QUEUE_ENTRIES. A bad index,
 * tag, frame or time on either side ends the run with an error (the
 * device: BAD_ATS_RESPONSE; the IOMMU: status -EPROTO), and the rings
 * start again at 0 with the next MCMGPU_ATS_BATCH_START.
 */
#define MCMGPU_ATS_RING_ENTRIES		256

/* A batch's flags. */
#define MCMGPU_ATS_BATCH_START		(1U << 0)	/* a new run: drop all in flight */
#define MCMGPU_ATS_BATCH_END		(1U << 1)	/* the run is over: counters out */
#define MCMGPU_ATS_BATCH_ABANDON	(1U << 2)	/* with END: the run failed */

struct mcmgpu_ats_ring {
	/* the device's */
	__le64 batch_seq;	/* batches posted */
	__le64 horizon;		/* answer what is done before this cycle */
	__le32 pasid;		/* every request of the batch is its */
	__le32 flags;		/* MCMGPU_ATS_BATCH_* */
	__le32 req_tail;	/* after the batch's last request */
	__le32 resp_head;	/* answers taken */
	__le32 device_polling;	/* 1: it reads answered_seq, no doorbell needed */
	__le32 reserved[7];
	/* the IOMMU's */
	__le64 answered_seq;	/* the batch its answers are for */
	__le64 next_event;	/* its next event after the horizon, ~0: none */
	__le32 req_head;	/* requests taken */
	__le32 resp_tail;	/* after its last answer */
	__le32 status;		/* 0, or a negative errno: the batch refused */
	__le32 polling;		/* 1: it reads batch_seq, no event needed */
	__le32 reserved2[8];
	struct mcmgpu_ats_request req[MCMGPU_ATS_RING_ENTRIES];
	struct mcmgpu_ats_response resp[MCMGPU_ATS_RING_ENTRIES];
};

/* The IOMMU window's registers (MCMGPU_WINDOW_IOMMU). */
#define MCMGPU_IOMMU_RING_LO		0x100	/* RW: struct mcmgpu_ats_ring */
#define MCMGPU_IOMMU_RING_HI		0x104
#define MCMGPU_IOMMU_CTRL		0x108	/* RW: MCMGPU_IOMMU_CTRL_* */
#define MCMGPU_IOMMU_DOORBELL		0x10c	/* WO: answered_seq is written */
#define MCMGPU_IOMMU_BATCHES		0x110	/* RO: batches posted, low 32 */
#define MCMGPU_IOMMU_CTRL_ENABLE	(1U << 0)
#define MCMGPU_IOMMU_CTRL_BUSY		(1U << 31)	/* RO: the device is at the rings */
#define MCMGPU_WIN_IRQ_ATS		(1U << 1)	/* a batch is posted */

/* Modeled DMA engine: fixed setup plus bytes per cycle. */
#define MCMGPU_DMA_SETUP_CYCLES		500
#define MCMGPU_DMA_BYTES_PER_CYCLE	32

#endif /* MCMGPU_HW_H */
