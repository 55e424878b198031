// SPDX-License-Identifier: GPL-2.0
/*
 * pennant (CPElide's Table II, Pennant): CORAL-2 PENNANT's staggered-grid
 * Lagrangian hydro on an unstructured polygonal mesh, the Noh implosion
 * (noh.pnt: a pie mesh over a quarter disc, gamma 5/3, density 1, no
 * energy, every point moving inward at speed 1, symmetry on both axes),
 * double precision. The mesh is sides: side s of zone mapsz[s] runs from
 * point mapsp1[s] to mapsp2[s], mapss3[s] is the zone's previous side,
 * and corner s (at mapsp1[s]) takes the force sf[s] - sf[mapss3[s]]. A
 * cycle is the GPU port's five kernels, blocks of 128:
 *
 *  1. gpuMain1 (a point): the half-step position px + dt / 2 u;
 *  2. gpuMain2 (a side): its zone's centre (the zone's points gathered
 *     through mapsp1), the side's surface vector and its force
 *     (p + q) x surface, pushing the points outward;
 *  3. gpuMain3 (a point): the point's corner forces gathered through
 *     its list of corners, the acceleration, the symmetry planes, the
 *     new velocity and full-step position;
 *  4. gpuMain4 (a side): the side's area at the new positions and the
 *     work its force did on its two points;
 *  5. gpuMain5 (a zone): its sides' areas and work summed; energy,
 *     density, pressure and sound speed (gamma law), the artificial
 *     viscosity, and the Courant and volume time limits, a minimum a
 *     block through a shared-memory tree, copied back; the host takes
 *     the next dt (at most 1.2 x the last).
 *
 * Ours, where noh.pnt or PENNANT are silent to us: the mesh's size
 * (size radial x size angular zones; the centre ring triangles); 20
 * cycles from dt 1e-4 (PENNANT runs to t = 0.6); PENNANT's tensor q
 * (QCS) and subzonal pressures (TTS) are replaced by a zone q from the
 * volume change (q2 = 2, as QCS's default) and point masses fixed at
 * the start; these change the arithmetic, not the kernels' data flow.
 * Energies and positions are checked against the same cycles on the
 * host, in the same order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define PN_BLOCK	128
#define PN_MAX		512
#define PN_CYCLES	20
#define PN_DT0		1.0e-4
#define PN_GAMMA	(5.0 / 3.0)
#define PN_SSMIN	0.1
#define PN_Q2		2.0
#define PN_CFL		0.6
#define PN_DVOVMAX	0.1

enum { PN_PX, PN_PY, PN_PU, PN_PV, PN_PXP, PN_PYP, PN_PUA, PN_PVA,
	PN_PMASS, PN_POINT_ARRAYS };
enum { PN_SFX, PN_SFY, PN_SAREA, PN_SWORK, PN_SIDE_ARRAYS };
enum { PN_ZM, PN_ZETOT, PN_ZVOL, PN_ZR, PN_ZP, PN_ZQ, PN_ZSS,
	PN_ZONE_ARRAYS };

struct pn_args {
	uint64_t pt[PN_POINT_ARRAYS], sd[PN_SIDE_ARRAYS], zn[PN_ZONE_ARRAYS];
	uint64_t mapsz, mapsp1, mapsp2, mapss3, zstart, pcstart, pclist;
	uint64_t pbc, dtz_blk, dtv_blk;
	uint32_t np, ns, nz;
	double dt;
};

#define PT(a, i)	((a)->pt[i])
#define SD(a, i)	((a)->sd[i])
#define ZN(a, i)	((a)->zn[i])

/* The zone's new state from its mass, energy, volume and old volume. */
static void pn_state(double zm, double *zetot, double work, double zvol,
		     double zvol0, double dt, double out[6])
{
	double e, r, p, ss, l = sqrt(zvol), du, q = 0, dtz, dtv;

	*zetot -= work;
	e = *zetot / zm;
	r = zm / zvol;
	p = (PN_GAMMA - 1.0) * r * e;
	ss = sqrt(PN_GAMMA * (PN_GAMMA - 1.0) * (e > 0 ? e : 0));
	ss = ss < PN_SSMIN ? PN_SSMIN : ss;
	du = (zvol - zvol0) / (zvol * dt) * l;
	if (du < 0)
		q = PN_Q2 * r * du * du;
	dtz = PN_CFL * l / sqrt(ss * ss + 2.0 * q / r);
	dtv = zvol0 == zvol ? 1.0e20 :
	      PN_DVOVMAX * dt * zvol / fabs(zvol - zvol0);
	out[0] = r;
	out[1] = p;
	out[2] = q;
	out[3] = ss;
	out[4] = dtz;
	out[5] = dtv;
}

/* OPS: the index (INT 2, BRANCH 1), two FFMAs. */
static void pn_main1(struct simt_thread *t, const void *p)
{
	const struct pn_args *a = p;
	uint64_t i = simt_global_x(t);

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->np)
		return;
	OPS(t, PROG_OP_DP, 3);
	ST(t, double, PT(a, PN_PXP), i, LD(t, double, PT(a, PN_PX), i) +
	   0.5 * a->dt * LD(t, double, PT(a, PN_PU), i));
	ST(t, double, PT(a, PN_PYP), i, LD(t, double, PT(a, PN_PY), i) +
	   0.5 * a->dt * LD(t, double, PT(a, PN_PV), i));
}

/* A zone's centre: the mean of its points (via its sides' mapsp1). */
#define PN_CENTRE(t, a, X, Y, z, cx, cy) do {				\
	uint32_t s_ = LD(t, uint32_t, (a)->zstart, z);			\
	uint32_t e_ = LD(t, uint32_t, (a)->zstart, (z) + 1), k_;	\
	cx = 0;								\
	cy = 0;								\
	for (k_ = s_; k_ < e_; k_++) {					\
		uint32_t p_ = LD(t, uint32_t, (a)->mapsp1, k_);		\
		cx += LD(t, double, PT(a, X), p_);			\
		cy += LD(t, double, PT(a, Y), p_);			\
		OPS(t, PROG_OP_DP, 2);					\
		OPS(t, PROG_OP_INT, 2);					\
		OPS(t, PROG_OP_BRANCH, 1);				\
	}								\
	OPS(t, PROG_OP_DP, 3);						\
	cx /= (double)(e_ - s_);					\
	cy /= (double)(e_ - s_);					\
} while (0)

/* The side force from the centre and the edge's ends. */
static void pn_side_force(double cx, double cy, double x1, double y1,
			  double x2, double y2, double pq, double f[2])
{
	/* Surface vector: the zone-centre-to-edge-centre line turned. */
	double sx = -(cy - 0.5 * (y1 + y2)), sy = cx - 0.5 * (x1 + x2);

	f[0] = pq * sx;
	f[1] = pq * sy;
}

/*
 * OPS: the index (INT 2, BRANCH 1); the centre (above); the surface
 * vector (DP 6) and force (DP 3).
 */
static void pn_main2(struct simt_thread *t, const void *p)
{
	const struct pn_args *a = p;
	uint64_t s = simt_global_x(t);
	uint32_t z, p1, p2;
	double cx, cy, f[2];

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (s >= a->ns)
		return;
	z = LD(t, uint32_t, a->mapsz, s);
	p1 = LD(t, uint32_t, a->mapsp1, s);
	p2 = LD(t, uint32_t, a->mapsp2, s);
	PN_CENTRE(t, a, PN_PXP, PN_PYP, z, cx, cy);
	pn_side_force(cx, cy, LD(t, double, PT(a, PN_PXP), p1),
		      LD(t, double, PT(a, PN_PYP), p1),
		      LD(t, double, PT(a, PN_PXP), p2),
		      LD(t, double, PT(a, PN_PYP), p2),
		      LD(t, double, ZN(a, PN_ZP), z) +
		      LD(t, double, ZN(a, PN_ZQ), z), f);
	OPS(t, PROG_OP_DP, 9);
	ST(t, double, SD(a, PN_SFX), s, f[0]);
	ST(t, double, SD(a, PN_SFY), s, f[1]);
}

/*
 * OPS: the index (INT 2, BRANCH 1); a corner: 2 adds and 2 subtracts
 * (DP 4), the loop (INT 2, BRANCH 1); the acceleration (DP 2), the
 * planes (INT 2, BRANCH 2), the velocity and position (DP 8).
 */
static void pn_main3(struct simt_thread *t, const void *p)
{
	const struct pn_args *a = p;
	uint64_t i = simt_global_x(t);
	double fx = 0, fy = 0, m, u0, v0, u, v;
	uint32_t c, end, bc;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->np)
		return;
	c = LD(t, uint32_t, a->pcstart, i);
	end = LD(t, uint32_t, a->pcstart, i + 1);
	for (; c < end; c++) {
		uint32_t s = LD(t, uint32_t, a->pclist, c);
		uint32_t s3 = LD(t, uint32_t, a->mapss3, s);

		fx += LD(t, double, SD(a, PN_SFX), s) -
		      LD(t, double, SD(a, PN_SFX), s3);
		fy += LD(t, double, SD(a, PN_SFY), s) -
		      LD(t, double, SD(a, PN_SFY), s3);
		OPS(t, PROG_OP_DP, 4);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	m = LD(t, double, PT(a, PN_PMASS), i);
	u0 = LD(t, double, PT(a, PN_PU), i);
	v0 = LD(t, double, PT(a, PN_PV), i);
	bc = LD(t, uint32_t, a->pbc, i);
	OPS(t, PROG_OP_DP, 10);
	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 2);
	u = bc & 1 ? 0 : u0 + fx / m * a->dt;
	v = bc & 2 ? 0 : v0 + fy / m * a->dt;
	ST(t, double, PT(a, PN_PU), i, u);
	ST(t, double, PT(a, PN_PV), i, v);
	ST(t, double, PT(a, PN_PUA), i, 0.5 * (u0 + u));
	ST(t, double, PT(a, PN_PVA), i, 0.5 * (v0 + v));
	ST(t, double, PT(a, PN_PX), i, LD(t, double, PT(a, PN_PX), i) +
	   0.5 * (u0 + u) * a->dt);
	ST(t, double, PT(a, PN_PY), i, LD(t, double, PT(a, PN_PY), i) +
	   0.5 * (v0 + v) * a->dt);
}

/* The side's area (a triangle with the centre) and its force's work. */
static void pn_side_work(double cx, double cy, double x1, double y1,
			 double x2, double y2, double fx, double fy,
			 double u1, double v1, double u2, double v2,
			 double dt, double out[2])
{
	out[0] = 0.5 * ((x1 - cx) * (y2 - cy) - (x2 - cx) * (y1 - cy));
	out[1] = (fx * (u1 - u2) + fy * (v1 - v2)) * dt;
}

/* OPS: the index; the centre; the area (DP 7) and work (DP 6). */
static void pn_main4(struct simt_thread *t, const void *p)
{
	const struct pn_args *a = p;
	uint64_t s = simt_global_x(t);
	uint32_t z, p1, p2;
	double cx, cy, out[2];

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (s >= a->ns)
		return;
	z = LD(t, uint32_t, a->mapsz, s);
	p1 = LD(t, uint32_t, a->mapsp1, s);
	p2 = LD(t, uint32_t, a->mapsp2, s);
	PN_CENTRE(t, a, PN_PX, PN_PY, z, cx, cy);
	pn_side_work(cx, cy, LD(t, double, PT(a, PN_PX), p1),
		     LD(t, double, PT(a, PN_PY), p1),
		     LD(t, double, PT(a, PN_PX), p2),
		     LD(t, double, PT(a, PN_PY), p2),
		     LD(t, double, SD(a, PN_SFX), s),
		     LD(t, double, SD(a, PN_SFY), s),
		     LD(t, double, PT(a, PN_PUA), p1),
		     LD(t, double, PT(a, PN_PVA), p1),
		     LD(t, double, PT(a, PN_PUA), p2),
		     LD(t, double, PT(a, PN_PVA), p2), a->dt, out);
	OPS(t, PROG_OP_DP, 13);
	ST(t, double, SD(a, PN_SAREA), s, out[0]);
	ST(t, double, SD(a, PN_SWORK), s, out[1]);
}

/*
 * Shared: two PN_BLOCK doubles. OPS: the index; a side: 2 adds, the
 * loop (INT 2, BRANCH 1); the state (DP 30, SFU 3, BRANCH 4); a tree
 * level: the test (INT 1, BRANCH 1), two compares (DP 2), the loop
 * (INT 2, BRANCH 1); thread 0's test (INT 1, BRANCH 1).
 */
static void pn_main5(struct simt_thread *t, const void *p)
{
	const struct pn_args *a = p;
	uint64_t z = simt_global_x(t);
	uint32_t tx = simt_thread_idx(t).x, s, end;
	double dtz = 1.0e20, dtv = 1.0e20;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (z < a->nz) {
		double vol = 0, work = 0, et, out[6];

		s = LD(t, uint32_t, a->zstart, z);
		end = LD(t, uint32_t, a->zstart, z + 1);
		for (; s < end; s++) {
			vol += LD(t, double, SD(a, PN_SAREA), s);
			work += LD(t, double, SD(a, PN_SWORK), s);
			OPS(t, PROG_OP_DP, 2);
			OPS(t, PROG_OP_INT, 2);
			OPS(t, PROG_OP_BRANCH, 1);
		}
		et = LD(t, double, ZN(a, PN_ZETOT), z);
		pn_state(LD(t, double, ZN(a, PN_ZM), z), &et, work, vol,
			 LD(t, double, ZN(a, PN_ZVOL), z), a->dt, out);
		OPS(t, PROG_OP_DP, 30);
		OPS(t, PROG_OP_SFU, 3);
		OPS(t, PROG_OP_BRANCH, 4);
		ST(t, double, ZN(a, PN_ZETOT), z, et);
		ST(t, double, ZN(a, PN_ZVOL), z, vol);
		ST(t, double, ZN(a, PN_ZR), z, out[0]);
		ST(t, double, ZN(a, PN_ZP), z, out[1]);
		ST(t, double, ZN(a, PN_ZQ), z, out[2]);
		ST(t, double, ZN(a, PN_ZSS), z, out[3]);
		dtz = out[4];
		dtv = out[5];
	}
	app_block_min2(t, tx, PN_BLOCK, dtz, dtv);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (!tx) {
		ST(t, double, a->dtz_blk, simt_block_idx(t).x,
		   LDS(t, double, 0));
		ST(t, double, a->dtv_blk, simt_block_idx(t).x,
		   LDS(t, double, PN_BLOCK));
	}
}

struct pn_mesh {
	uint32_t np, ns, nz;
	double *pt[PN_POINT_ARRAYS], *sd[PN_SIDE_ARRAYS], *zn[PN_ZONE_ARRAYS];
	uint32_t *mapsz, *mapsp1, *mapsp2, *mapss3, *zstart, *pcstart;
	uint32_t *pclist, *pbc;
};

static void pn_mesh_free(struct pn_mesh *m)
{
	int i;

	for (i = 0; i < PN_POINT_ARRAYS; i++)
		free(m->pt[i]);
	for (i = 0; i < PN_SIDE_ARRAYS; i++)
		free(m->sd[i]);
	for (i = 0; i < PN_ZONE_ARRAYS; i++)
		free(m->zn[i]);
	free(m->mapsz);
	free(m->mapsp1);
	free(m->mapsp2);
	free(m->mapss3);
	free(m->zstart);
	free(m->pcstart);
	free(m->pclist);
	free(m->pbc);
}

static void pn_centre(const struct pn_mesh *m, int x, int y, uint32_t z,
		      double *cx, double *cy)
{
	uint32_t k;

	*cx = 0;
	*cy = 0;
	for (k = m->zstart[z]; k < m->zstart[z + 1]; k++) {
		*cx += m->pt[x][m->mapsp1[k]];
		*cy += m->pt[y][m->mapsp1[k]];
	}
	*cx /= (double)(m->zstart[z + 1] - m->zstart[z]);
	*cy /= (double)(m->zstart[z + 1] - m->zstart[z]);
}

/* PENNANT's pie mesh: point 0 the centre, then ring r's n + 1 points. */
static int pn_mesh_init(struct pn_mesh *m, uint32_t n)
{
	uint32_t r, j, z, s, k, pts[4], cnt, *fill;
	int i;

	memset(m, 0, sizeof(*m));
	m->np = 1 + n * (n + 1);
	m->nz = n * n;
	m->ns = 4 * n * n - n;
	for (i = 0; i < PN_POINT_ARRAYS; i++)
		if (!(m->pt[i] = calloc(m->np, sizeof(double))))
			return -ENOMEM;
	for (i = 0; i < PN_SIDE_ARRAYS; i++)
		if (!(m->sd[i] = calloc(m->ns, sizeof(double))))
			return -ENOMEM;
	for (i = 0; i < PN_ZONE_ARRAYS; i++)
		if (!(m->zn[i] = calloc(m->nz, sizeof(double))))
			return -ENOMEM;
	m->mapsz = malloc((size_t)m->ns * 4);
	m->mapsp1 = malloc((size_t)m->ns * 4);
	m->mapsp2 = malloc((size_t)m->ns * 4);
	m->mapss3 = malloc((size_t)m->ns * 4);
	m->zstart = malloc(((size_t)m->nz + 1) * 4);
	m->pcstart = calloc((size_t)m->np + 1, 4);
	m->pclist = malloc((size_t)m->ns * 4);
	m->pbc = calloc(m->np, 4);
	fill = malloc((size_t)m->np * 4);
	if (!m->mapsz || !m->mapsp1 || !m->mapsp2 || !m->mapss3 ||
	    !m->zstart || !m->pcstart || !m->pclist || !m->pbc || !fill) {
		free(fill);
		return -ENOMEM;
	}
	m->pbc[0] = 3;
	for (r = 1; r <= n; r++)
		for (j = 0; j <= n; j++) {
			uint32_t pi = 1 + (r - 1) * (n + 1) + j;
			double th = M_PI / 2 * j / n, rad = (double)r / n;

			m->pt[PN_PX][pi] = rad * cos(th);
			m->pt[PN_PY][pi] = rad * sin(th);
			/* Noh: inward at speed 1; the axes are mirrors. */
			m->pt[PN_PU][pi] = -cos(th);
			m->pt[PN_PV][pi] = -sin(th);
			m->pbc[pi] = (j == 0 ? 2 : 0) | (j == n ? 1 : 0);
			if (j == 0)
				m->pt[PN_PV][pi] = 0;
			if (j == n)
				m->pt[PN_PU][pi] = 0;
		}
	s = 0;
	for (r = 0; r < n; r++)
		for (j = 0; j < n; j++) {
			z = r * n + j;
			m->zstart[z] = s;
			/* Counter-clockwise corners. */
			if (!r) {
				pts[0] = 0;
				pts[1] = 1 + j;
				pts[2] = 2 + j;
				cnt = 3;
			} else {
				pts[0] = 1 + (r - 1) * (n + 1) + j;
				pts[1] = pts[0] + n + 1;
				pts[2] = pts[1] + 1;
				pts[3] = pts[0] + 1;
				cnt = 4;
			}
			for (k = 0; k < cnt; k++) {
				m->mapsz[s + k] = z;
				m->mapsp1[s + k] = pts[k];
				m->mapsp2[s + k] = pts[(k + 1) % cnt];
				m->mapss3[s + k] = s + (k + cnt - 1) % cnt;
			}
			s += cnt;
		}
	m->zstart[m->nz] = s;
	for (s = 0; s < m->ns; s++)
		m->pcstart[m->mapsp1[s] + 1]++;
	for (k = 0; k < m->np; k++)
		m->pcstart[k + 1] += m->pcstart[k];
	memcpy(fill, m->pcstart, (size_t)m->np * 4);
	for (s = 0; s < m->ns; s++)
		m->pclist[fill[m->mapsp1[s]]++] = s;
	free(fill);
	for (z = 0; z < m->nz; z++) {
		double cx, cy, vol = 0, a[2];
		uint32_t nsd = m->zstart[z + 1] - m->zstart[z];

		pn_centre(m, PN_PX, PN_PY, z, &cx, &cy);
		for (s = m->zstart[z]; s < m->zstart[z + 1]; s++) {
			pn_side_work(cx, cy, m->pt[PN_PX][m->mapsp1[s]],
				     m->pt[PN_PY][m->mapsp1[s]],
				     m->pt[PN_PX][m->mapsp2[s]],
				     m->pt[PN_PY][m->mapsp2[s]], 0, 0, 0, 0,
				     0, 0, 0, a);
			vol += a[0];
		}
		m->zn[PN_ZVOL][z] = vol;
		m->zn[PN_ZM][z] = vol;		/* density 1 */
		m->zn[PN_ZR][z] = 1.0;
		m->zn[PN_ZSS][z] = PN_SSMIN;
		for (s = m->zstart[z]; s < m->zstart[z + 1]; s++)
			m->pt[PN_PMASS][m->mapsp1[s]] += vol / nsd;
	}
	return 0;
}

/* One cycle on the host, the kernels' order; the two minima. */
static void pn_ref_cycle(struct pn_mesh *m, double dt, double *dtz_min,
			 double *dtv_min)
{
	double **pt = m->pt, **sd = m->sd, **zn = m->zn, cx, cy, f[2];
	uint32_t i, s, z, c;

	for (i = 0; i < m->np; i++) {
		pt[PN_PXP][i] = pt[PN_PX][i] + 0.5 * dt * pt[PN_PU][i];
		pt[PN_PYP][i] = pt[PN_PY][i] + 0.5 * dt * pt[PN_PV][i];
	}
	for (s = 0; s < m->ns; s++) {
		uint32_t p1 = m->mapsp1[s], p2 = m->mapsp2[s];

		z = m->mapsz[s];
		pn_centre(m, PN_PXP, PN_PYP, z, &cx, &cy);
		pn_side_force(cx, cy, pt[PN_PXP][p1], pt[PN_PYP][p1],
			      pt[PN_PXP][p2], pt[PN_PYP][p2],
			      zn[PN_ZP][z] + zn[PN_ZQ][z], f);
		sd[PN_SFX][s] = f[0];
		sd[PN_SFY][s] = f[1];
	}
	for (i = 0; i < m->np; i++) {
		double fx = 0, fy = 0, u0 = pt[PN_PU][i], v0 = pt[PN_PV][i];
		double u, v;

		for (c = m->pcstart[i]; c < m->pcstart[i + 1]; c++) {
			s = m->pclist[c];
			fx += sd[PN_SFX][s] - sd[PN_SFX][m->mapss3[s]];
			fy += sd[PN_SFY][s] - sd[PN_SFY][m->mapss3[s]];
		}
		u = m->pbc[i] & 1 ? 0 : u0 + fx / pt[PN_PMASS][i] * dt;
		v = m->pbc[i] & 2 ? 0 : v0 + fy / pt[PN_PMASS][i] * dt;
		pt[PN_PU][i] = u;
		pt[PN_PV][i] = v;
		pt[PN_PUA][i] = 0.5 * (u0 + u);
		pt[PN_PVA][i] = 0.5 * (v0 + v);
		pt[PN_PX][i] = pt[PN_PX][i] + 0.5 * (u0 + u) * dt;
		pt[PN_PY][i] = pt[PN_PY][i] + 0.5 * (v0 + v) * dt;
	}
	for (s = 0; s < m->ns; s++) {
		uint32_t p1 = m->mapsp1[s], p2 = m->mapsp2[s];
		double out[2];

		pn_centre(m, PN_PX, PN_PY, m->mapsz[s], &cx, &cy);
		pn_side_work(cx, cy, pt[PN_PX][p1], pt[PN_PY][p1],
			     pt[PN_PX][p2], pt[PN_PY][p2], sd[PN_SFX][s],
			     sd[PN_SFY][s], pt[PN_PUA][p1], pt[PN_PVA][p1],
			     pt[PN_PUA][p2], pt[PN_PVA][p2], dt, out);
		sd[PN_SAREA][s] = out[0];
		sd[PN_SWORK][s] = out[1];
	}
	*dtz_min = 1.0e20;
	*dtv_min = 1.0e20;
	for (z = 0; z < m->nz; z++) {
		double vol = 0, work = 0, out[6];

		for (s = m->zstart[z]; s < m->zstart[z + 1]; s++) {
			vol += sd[PN_SAREA][s];
			work += sd[PN_SWORK][s];
		}
		pn_state(zn[PN_ZM][z], &zn[PN_ZETOT][z], work, vol,
			 zn[PN_ZVOL][z], dt, out);
		zn[PN_ZVOL][z] = vol;
		zn[PN_ZR][z] = out[0];
		zn[PN_ZP][z] = out[1];
		zn[PN_ZQ][z] = out[2];
		zn[PN_ZSS][z] = out[3];
		*dtz_min = out[4] < *dtz_min ? out[4] : *dtz_min;
		*dtv_min = out[5] < *dtv_min ? out[5] : *dtv_min;
	}
}

static double pn_next_dt(double dt, double dtz, double dtv)
{
	double ndt = 1.2 * dt;

	ndt = dtz < ndt ? dtz : ndt;
	return dtv < ndt ? dtv : ndt;
}

static int pn_check(const double *got, const double *want, uint32_t n,
		    const char *what, char *err, size_t errlen)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (got[i] != want[i] &&
		    !(fabs(got[i] - want[i]) <= 1e-9 * fabs(want[i]))) {
			app_err(err, errlen, "pennant",
				"%s[%u] = %.17g, the reference says %.17g",
				what, i, got[i], want[i]);
			return -EIO;
		}
	return 0;
}

static int pn_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	static const char *const pt_name[PN_POINT_ARRAYS] = {
		"px", "py", "pu", "pv", "pxp", "pyp", "pua", "pva", "pmass" };
	static const char *const sd_name[PN_SIDE_ARRAYS] = {
		"sfx", "sfy", "sarea", "swork" };
	static const char *const zn_name[PN_ZONE_ARRAYS] = {
		"zm", "zetot", "zvol", "zr", "zp", "zq", "zss" };
	static const struct {
		const char *name;
		simt_kernel_fn fn;
		int grid;	/* 0 points, 1 sides, 2 zones */
	} seq[] = {
		{ "gpuMain1", pn_main1, 0 }, { "gpuMain2", pn_main2, 1 },
		{ "gpuMain3", pn_main3, 0 }, { "gpuMain4", pn_main4, 1 },
		{ "gpuMain5", pn_main5, 2 },
	};
	const char *app = "pennant";
	struct simt_dim3 grids[3], blk = DIM3(PN_BLOCK, 1, 1);
	double *got = NULL, *dtz = NULL, *dtv = NULL, rz, rv, rdt;
	struct pn_mesh m, ref;
	struct pn_args args;
	uint32_t i, zb;
	size_t k;
	int ret, cycle;

	(void)seed;
	ret = app_size_range(size, 2, PN_MAX, "the mesh's zones a side", app,
			     err, errlen);
	if (ret)
		return ret;
	ret = pn_mesh_init(&m, (uint32_t)size);
	if (!ret)
		ret = pn_mesh_init(&ref, (uint32_t)size);
	zb = app_blocks(m.nz, PN_BLOCK);
	got = malloc((size_t)m.np * sizeof(double));
	dtz = malloc((size_t)zb * sizeof(double));
	dtv = malloc((size_t)zb * sizeof(double));
	if (ret || !got || !dtz || !dtv) {
		ret = -ENOMEM;
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	memset(&args, 0, sizeof(args));
	args.np = m.np;
	args.ns = m.ns;
	args.nz = m.nz;
	grids[0] = DIM3(app_blocks(m.np, PN_BLOCK), 1, 1);
	grids[1] = DIM3(app_blocks(m.ns, PN_BLOCK), 1, 1);
	grids[2] = DIM3(zb, 1, 1);
	for (i = 0; i < PN_POINT_ARRAYS && !ret; i++)
		ret = app_alloc(gpu, (uint64_t)m.np * 8, pt_name[i],
				&args.pt[i], app, err, errlen);
	for (i = 0; i < PN_SIDE_ARRAYS && !ret; i++)
		ret = app_alloc(gpu, (uint64_t)m.ns * 8, sd_name[i],
				&args.sd[i], app, err, errlen);
	for (i = 0; i < PN_ZONE_ARRAYS && !ret; i++)
		ret = app_alloc(gpu, (uint64_t)m.nz * 8, zn_name[i],
				&args.zn[i], app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)m.ns * 4, "mapsz", &args.mapsz,
				app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)m.ns * 4, "mapsp1",
				&args.mapsp1, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)m.ns * 4, "mapsp2",
				&args.mapsp2, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)m.ns * 4, "mapss3",
				&args.mapss3, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, ((uint64_t)m.nz + 1) * 4, "zstart",
				&args.zstart, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, ((uint64_t)m.np + 1) * 4, "mappcfirst",
				&args.pcstart, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)m.ns * 4, "mapcp", &args.pclist,
				app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)m.np * 4, "pbc", &args.pbc, app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)zb * 8, "dtz_blk",
				&args.dtz_blk, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)zb * 8, "dtv_blk",
				&args.dtv_blk, app, err, errlen);
	if (ret)
		goto out;
	for (i = 0; i < PN_POINT_ARRAYS; i++)
		simt_h2d(gpu, args.pt[i], m.pt[i], (uint64_t)m.np * 8);
	for (i = 0; i < PN_ZONE_ARRAYS; i++)
		simt_h2d(gpu, args.zn[i], m.zn[i], (uint64_t)m.nz * 8);
	simt_h2d(gpu, args.mapsz, m.mapsz, (uint64_t)m.ns * 4);
	simt_h2d(gpu, args.mapsp1, m.mapsp1, (uint64_t)m.ns * 4);
	simt_h2d(gpu, args.mapsp2, m.mapsp2, (uint64_t)m.ns * 4);
	simt_h2d(gpu, args.mapss3, m.mapss3, (uint64_t)m.ns * 4);
	simt_h2d(gpu, args.zstart, m.zstart, ((uint64_t)m.nz + 1) * 4);
	simt_h2d(gpu, args.pcstart, m.pcstart, ((uint64_t)m.np + 1) * 4);
	simt_h2d(gpu, args.pclist, m.pclist, (uint64_t)m.ns * 4);
	simt_h2d(gpu, args.pbc, m.pbc, (uint64_t)m.np * 4);

	args.dt = PN_DT0;
	for (cycle = 0; cycle < PN_CYCLES; cycle++) {
		double mz = 1.0e20, mv = 1.0e20;

		for (k = 0; k < sizeof(seq) / sizeof(seq[0]); k++) {
			ret = app_launch(gpu, seq[k].name, seq[k].fn,
					 grids[seq[k].grid], blk,
					 seq[k].fn == pn_main5 ?
					 2 * PN_BLOCK * 8 : 0, &args, app,
					 err, errlen);
			if (ret)
				goto out;
		}
		simt_d2h(gpu, dtz, args.dtz_blk, (uint64_t)zb * 8);
		simt_d2h(gpu, dtv, args.dtv_blk, (uint64_t)zb * 8);
		for (i = 0; i < zb; i++) {
			mz = dtz[i] < mz ? dtz[i] : mz;
			mv = dtv[i] < mv ? dtv[i] : mv;
		}
		args.dt = pn_next_dt(args.dt, mz, mv);
	}
	rdt = PN_DT0;
	for (cycle = 0; cycle < PN_CYCLES; cycle++) {
		pn_ref_cycle(&ref, rdt, &rz, &rv);
		rdt = pn_next_dt(rdt, rz, rv);
	}
	simt_d2h(gpu, got, args.zn[PN_ZETOT], (uint64_t)m.nz * 8);
	app_test_perturb(got, sizeof(*got), m.nz);
	ret = pn_check(got, ref.zn[PN_ZETOT], m.nz, "zetot", err, errlen);
	if (!ret) {
		simt_d2h(gpu, got, args.pt[PN_PX], (uint64_t)m.np * 8);
		ret = pn_check(got, ref.pt[PN_PX], m.np, "px", err, errlen);
	}
out:
	pn_mesh_free(&m);
	pn_mesh_free(&ref);
	free(got);
	free(dtz);
	free(dtv);
	return ret;
}

const struct app_desc app_pennant = {
	.name = "pennant",
	.suite = "CORAL-2 (PENNANT, GPU port)",
	.summary = "Noh implosion, staggered Lagrangian hydro on a pie mesh "
		   "of sides: a cycle is gpuMain1 (points: half-step "
		   "positions), gpuMain2 (sides: zone centre gathered through "
		   "mapsp1, pressure force), gpuMain3 (points: corner forces "
		   "gathered, velocity, position), gpuMain4 (sides: area, "
		   "work), gpuMain5 (zones: energy, EOS, q, a block minimum "
		   "of the time limits copied back), blocks of 128, 20 cycles",
	.input = "size = n: a quarter-disc pie mesh of n radial x n angular "
		 "zones (the centre ring triangles, the rest quads), noh.pnt's "
		 "set-up (gamma 5/3, density 1, no energy, inward speed 1, "
		 "mirrors on both axes; the seed changes nothing); 20 cycles "
		 "from dt 1e-4. Large: 128 (16,384 zones)",
	.small_size = 16,
	.large_size = 128,
	.kernels = "gpuMain1, gpuMain2, gpuMain3, gpuMain4, gpuMain5",
	.paper_sizes = "CPElide Table II: noh.pnt = size 128 (ours: noh.pnt's "
		       "pie mesh at 128 x 128 zones, 20 of its cycles)",
	.run = pn_run,
};
