// SPDX-License-Identifier: GPL-2.0
/*
 * cp (ADSM's Table 2): Parboil's Coulombic potential (VMD cionize's
 * direct summation). The lattice is N x N points a plane, 0.1 apart, and
 * CP_PLANES planes; for each plane, and each chunk of up to 4000 atoms
 * (Parboil's MAXATOMS), the host writes the chunk's (x, y, dz^2, q) into
 * the kernel's atom table (Parboil's constant buffer: dz^2 is the atom's
 * squared distance to the plane, so the table is rewritten every plane)
 * and launches cenergy on that plane: blocks of 16 x 16 threads, each
 * thread 8 points 16 apart along x (UNROLLX 8, so a block covers 128 x
 * 16), summing q / r over the chunk and adding it to the stored energy.
 * The executor has no constant space yet, so the table is a global array
 * every lane reads at the same address (a broadcast). At the end the
 * host copies the energy grid out.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define CP_BX		16
#define CP_BY		16
#define CP_UNROLL	8
#define CP_MAXATOMS	4000
#define CP_PLANES	2
#define CP_SPACING	0.1f
#define CP_MIN		(CP_BX * CP_UNROLL)
#define CP_MAX		4096

struct cp_atom {
	float x, y, dz2, q;
};

struct cp_args {
	uint64_t atoms, energy;
	uint32_t natoms, n, plane;
};

/*
 * OPS: the indices (INT 3); an atom: dy and dy^2 + dz^2 (FP 2), the 8
 * dx (FP 8), a point's dx^2 + dyz2 and accumulation (FP 2) and
 * reciprocal square root (SFU 1), the loop (INT 1, BRANCH 1); the end:
 * a point's add (FP 1).
 */
static void cenergy_kernel(struct simt_thread *t, const void *p)
{
	const struct cp_args *a = p;
	struct simt_dim3 b = simt_block_idx(t), th = simt_thread_idx(t);
	uint32_t xi = b.x * CP_BX * CP_UNROLL + th.x;
	uint32_t yi = b.y * CP_BY + th.y;
	uint64_t out = ((uint64_t)a->plane * a->n + yi) * a->n + xi;
	float cx = CP_SPACING * xi, cy = CP_SPACING * yi;
	float e[CP_UNROLL] = { 0 };
	uint32_t k, u;

	OPS(t, PROG_OP_INT, 3);
	for (k = 0; k < a->natoms; k++) {
		float ax = LD(t, float, a->atoms, 4 * k);
		float ay = LD(t, float, a->atoms, 4 * k + 1);
		float dz2 = LD(t, float, a->atoms, 4 * k + 2);
		float q = LD(t, float, a->atoms, 4 * k + 3);
		float dy = cy - ay, dyz2 = dy * dy + dz2;

		OPS(t, PROG_OP_FP, 2 + CP_UNROLL * 3);
		OPS(t, PROG_OP_SFU, CP_UNROLL);
		for (u = 0; u < CP_UNROLL; u++) {
			float dx = cx + CP_SPACING * CP_BX * u - ax;

			e[u] = e[u] + q * (1.0f / sqrtf(dx * dx + dyz2));
		}
		OPS(t, PROG_OP_INT, 1);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	for (u = 0; u < CP_UNROLL; u++) {
		float v = LD(t, float, a->energy, out + u * CP_BX);

		OPS(t, PROG_OP_FP, 1);
		ST(t, float, a->energy, out + u * CP_BX, v + e[u]);
	}
}

/* The host's table for a plane: dz^2 to it. */
static void cp_fill(struct cp_atom *tab, const float *atoms, uint32_t n,
		    uint32_t plane)
{
	float z = CP_SPACING * plane;
	uint32_t k;

	for (k = 0; k < n; k++) {
		float dz = z - atoms[4 * k + 2];

		tab[k].x = atoms[4 * k];
		tab[k].y = atoms[4 * k + 1];
		tab[k].dz2 = dz * dz;
		tab[k].q = atoms[4 * k + 3];
	}
}

/* The reference: the same sums, chunk by chunk, point by point. */
static void cp_ref(const float *atoms, uint32_t natoms, uint32_t n,
		   float *grid, struct cp_atom *tab)
{
	uint32_t pl, done, x, y, k, cnt;

	memset(grid, 0, (size_t)CP_PLANES * n * n * sizeof(float));
	for (pl = 0; pl < CP_PLANES; pl++) {
		for (done = 0; done < natoms; done += cnt) {
			cnt = natoms - done < CP_MAXATOMS ? natoms - done :
			      CP_MAXATOMS;
			cp_fill(tab, atoms + 4 * done, cnt, pl);
			for (y = 0; y < n; y++) {
				for (x = 0; x < n; x++) {
					uint32_t base = x % CP_BX +
						x / (CP_BX * CP_UNROLL) *
						CP_BX * CP_UNROLL;
					uint32_t u = x / CP_BX % CP_UNROLL;
					float cx = CP_SPACING * base;
					float cy = CP_SPACING * y, e = 0.0f;

					for (k = 0; k < cnt; k++) {
						float dy = cy - tab[k].y;
						float dyz2 = dy * dy + tab[k].dz2;
						float dx = cx + CP_SPACING *
							   CP_BX * u - tab[k].x;

						e = e + tab[k].q *
						    (1.0f / sqrtf(dx * dx +
								  dyz2));
					}
					grid[((size_t)pl * n + y) * n + x] += e;
				}
			}
		}
	}
}

static int cp_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	const char *app = "cp";
	const uint32_t n = (uint32_t)size, natoms = (uint32_t)size / 4;
	const size_t cells = (size_t)CP_PLANES * n * n;
	float *atoms = NULL, *got = NULL, *want = NULL;
	struct cp_atom *tab = NULL;
	struct cp_args args;
	struct app_rng rng;
	uint32_t pl, done, cnt;
	int ret;

	ret = app_size_range(size, CP_MIN, CP_MAX, "the lattice's side", app,
			     err, errlen);
	if (ret)
		return ret;
	if (size % CP_MIN) {
		app_err(err, errlen, app, "size %llu: the lattice's side must "
			"be a multiple of %d", (unsigned long long)size,
			CP_MIN);
		return -EINVAL;
	}
	atoms = malloc(4 * natoms * sizeof(*atoms));
	tab = malloc(CP_MAXATOMS * sizeof(*tab));
	got = malloc(cells * sizeof(*got));
	want = malloc(cells * sizeof(*want));
	ret = -ENOMEM;
	if (!atoms || !tab || !got || !want) {
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	/*
	 * Atoms uniform in the lattice's box (z over 4 planes' depth), with
	 * charges in [0, 1): from the seed.
	 */
	app_rng_init(&rng, seed, 61);
	for (done = 0; done < natoms; done++) {
		atoms[4 * done] = app_rng_float(&rng) * CP_SPACING * n;
		atoms[4 * done + 1] = app_rng_float(&rng) * CP_SPACING * n;
		atoms[4 * done + 2] = app_rng_float(&rng) * CP_SPACING *
				      2 * CP_PLANES;
		atoms[4 * done + 3] = app_rng_float(&rng);
	}

	memset(&args, 0, sizeof(args));
	args.n = n;
	ret = app_alloc(gpu, CP_MAXATOMS * sizeof(*tab), "atominfo",
			&args.atoms, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, cells * sizeof(float), "energygrid",
				&args.energy, app, err, errlen);
	if (ret)
		goto out;
	/* energygrid starts zeroed (cudaMemset in Parboil: the allocation's). */
	for (pl = 0; pl < CP_PLANES; pl++) {
		args.plane = pl;
		for (done = 0; done < natoms; done += cnt) {
			cnt = natoms - done < CP_MAXATOMS ? natoms - done :
			      CP_MAXATOMS;
			cp_fill(tab, atoms + 4 * done, cnt, pl);
			args.natoms = cnt;
			simt_h2d(gpu, args.atoms, tab, cnt * sizeof(*tab));
			ret = app_launch(gpu, "cenergy", cenergy_kernel,
					 DIM3(n / (CP_BX * CP_UNROLL),
					      n / CP_BY, 1),
					 DIM3(CP_BX, CP_BY, 1), 0, &args, app,
					 err, errlen);
			if (ret)
				goto out;
		}
	}
	simt_d2h(gpu, got, args.energy, cells * sizeof(float));
	app_test_perturb(got, sizeof(*got), cells);

	cp_ref(atoms, natoms, n, want, tab);
	ret = app_check_f32(got, want, cells, APP_FLOAT_TOLERANCE, app,
			    "energygrid", err, errlen);
out:
	free(atoms);
	free(tab);
	free(got);
	free(want);
	return ret;
}

const struct app_desc app_cp = {
	.name = "cp",
	.suite = "Parboil (cp)",
	.summary = "Coulombic potential: for each of 2 lattice planes and "
		   "each chunk of up to 4000 atoms, the host writes the "
		   "atom table (x, y, dz^2, q) and launches cenergy (16 x 16 "
		   "blocks, 8 points a thread along x) adding q / r to the "
		   "plane's energy",
	.input = "size = N: an N x N x 2 lattice 0.1 apart (N a multiple of "
		 "128) and N / 4 atoms uniform in its box with charges in "
		 "[0, 1), from the seed (the values do not change the "
		 "program). Large: Parboil's 512 x 512 lattice with 128 "
		 "atoms (one chunk): the atoms x points product bounds it",
	.small_size = 128,
	.large_size = 512,
	.paper_sizes = "ADSM Table 2: input not given; --large is Parboil's "
		       "512 x 512 lattice (128 atoms here)",
	.kernels = "cenergy",
	.run = cp_run,
};
