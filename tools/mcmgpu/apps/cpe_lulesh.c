// SPDX-License-Identifier: GPL-2.0
/*
 * lulesh (CPElide's Table II, Lulesh): CORAL-2 LULESH 2.0's Lagrangian
 * hydrodynamics of the Sedov blast on a structured hex mesh (the energy
 * starts in the corner element; the three planes through the origin are
 * symmetry planes), double precision, a time step (LagrangeLeapFrog) as
 * the CUDA port's sequence of kernels, blocks of 128:
 *
 *  1. CalcVolumeForceForElems_kernel (an element): the stress -(p + q)
 *     integrated against the element's node normals (LULESH's
 *     CalcElemNodeNormals, a quarter of each face's area vector to its
 *     four nodes) into eight corner forces fx_elem / fy_elem / fz_elem;
 *  2. AddNodeForcesFromElems_kernel (a node): the node's corner forces
 *     gathered through nodeElemCornerList, in element order;
 *  3. CalcAccelerationForNodes_kernel: a = f / nodalMass;
 *  4. ApplyAccelerationBoundaryConditionsForNodes_kernel (a node of a
 *     symmetry plane): the normal acceleration zeroed via symmX/Y/Z;
 *  5. CalcVelocityForNodes_kernel: v += a dt, |v| < u_cut set to 0;
 *  6. CalcPositionForNodes_kernel: x += v dt;
 *  7. CalcKinematicsForElems_kernel (an element): the new volume
 *     (LULESH's CalcElemVolume), relative volume, its change, the
 *     volumetric strain rate and the characteristic length (4 V over the
 *     largest face area, CalcElemCharacteristicLength);
 *  8. CalcMonotonicQForElems_kernel: the artificial viscosity from the
 *     element's velocity jump, limited by its six face neighbours'
 *     strain rates gathered through lxim .. lzetap;
 *  9. ApplyMaterialPropertiesAndUpdateVolume_kernel: energy, pressure
 *     (LULESH's EOS, c1s = 2/3), sound speed and the new volume;
 * 10. CalcTimeConstraintsForElems_kernel: the Courant and hydro limits,
 *     a minimum a block through a shared-memory tree, copied back; the
 *     host's TimeIncrement picks the next dt (LULESH's rules: at most
 *     1.2 x growth, dtmax 1e-2, ending on the stop time).
 * The host loops until the stop time or 100 cycles (ours: at nx = 10
 * the blast takes 612 cycles to reach 1e-2, 6,120 launches and a 380 MB
 * program; 100 cycles keep every kernel's pattern). Kept out (reduced set, ours): the
 * hourglass control (CalcFBHourglassForceForElems adds to the same
 * corner forces in kernel 1), the directional monotonic limiter (one
 * limiter from the strain rates instead of three from the velocity
 * gradients) and the energy's predictor-corrector (its first stage
 * only); these change the arithmetic, not the kernels' data flow.
 * The final energies are checked against the same steps on the host.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"
#include "apps.h"

#define LU_BLOCK	128
#define LU_MAX		64
#define LU_STOP		1.0e-2	/* Table II: 1.0e-2 10 */
#define LU_MAX_CYCLES	100	/* ours: bounds the recorded work */
#define LU_U_CUT	1.0e-7
#define LU_P_CUT	1.0e-7
#define LU_E_MIN	(-1.0e15)
#define LU_QLC		0.5
#define LU_QQC		(2.0 / 3.0)
#define LU_QQC2		(64.0 * 2.0 * 2.0)
#define LU_DVOVMAX	0.1
#define LU_C1S		(2.0 / 3.0)
#define LU_EOSVMAX	1.0e9

enum { LU_X, LU_Y, LU_Z, LU_XD, LU_YD, LU_ZD, LU_XDD, LU_YDD, LU_ZDD,
	LU_FX, LU_FY, LU_FZ, LU_NMASS, LU_NODE_ARRAYS };
enum { LU_E, LU_P, LU_Q, LU_V, LU_VOLO, LU_DELV, LU_VDOV, LU_AREALG,
	LU_SS, LU_EMASS, LU_VNEW, LU_ELEM_ARRAYS };

struct lu_args {
	uint64_t node[LU_NODE_ARRAYS], elem[LU_ELEM_ARRAYS];
	uint64_t f_elem[3], nodelist, corner_start, corner_list, symm[3];
	uint64_t nbr, dtc_blk, dth_blk;
	uint32_t ne, nn, nsymm;
	double dt;
};

static const int lu_face[6][4] = {
	{ 0, 1, 2, 3 }, { 0, 4, 5, 1 }, { 1, 5, 6, 2 },
	{ 2, 6, 7, 3 }, { 3, 7, 4, 0 }, { 4, 7, 6, 5 },
};

/* CalcElemNodeNormals: b[d][i], the area vector share of node i. */
static void lu_node_normals(const double x[3][8], double b[3][8])
{
	int f, i, d;

	memset(b, 0, 3 * 8 * sizeof(double));
	for (f = 0; f < 6; f++) {
		const int *n = lu_face[f];
		double b0[3], b1[3], area[3];

		for (d = 0; d < 3; d++) {
			b0[d] = 0.5 * (x[d][n[3]] + x[d][n[2]] - x[d][n[1]] -
				       x[d][n[0]]);
			b1[d] = 0.5 * (x[d][n[2]] + x[d][n[1]] - x[d][n[3]] -
				       x[d][n[0]]);
		}
		area[0] = 0.25 * (b0[1] * b1[2] - b0[2] * b1[1]);
		area[1] = 0.25 * (b0[2] * b1[0] - b0[0] * b1[2]);
		area[2] = 0.25 * (b0[0] * b1[1] - b0[1] * b1[0]);
		for (i = 0; i < 4; i++)
			for (d = 0; d < 3; d++)
				b[d][n[i]] += area[d];
	}
}

static double lu_triple(double x1, double y1, double z1, double x2,
			double y2, double z2, double x3, double y3, double z3)
{
	return x1 * (y2 * z3 - z2 * y3) + x2 * (z1 * y3 - y1 * z3) +
	       x3 * (y1 * z2 - z1 * y2);
}

/* CalcElemVolume: the trilinear hex's volume from three triple products. */
static double lu_volume(const double x[3][8])
{
	double d[3][13];
	int k;

	for (k = 0; k < 3; k++) {
		const double *c = x[k];

		d[k][0] = c[6] - c[1];		/* 61 */
		d[k][1] = c[7] - c[0];		/* 70 */
		d[k][2] = c[6] - c[3];		/* 63 */
		d[k][3] = c[2] - c[0];		/* 20 */
		d[k][4] = c[5] - c[0];		/* 50 */
		d[k][5] = c[6] - c[4];		/* 64 */
		d[k][6] = c[3] - c[1];		/* 31 */
		d[k][7] = c[7] - c[2];		/* 72 */
		d[k][8] = c[4] - c[3];		/* 43 */
		d[k][9] = c[5] - c[7];		/* 57 */
		d[k][10] = c[1] - c[4];		/* 14 */
		d[k][11] = c[2] - c[5];		/* 25 */
	}
#define LU_S(i, j)	(d[0][i] + d[0][j]), (d[1][i] + d[1][j]), \
			(d[2][i] + d[2][j])
#define LU_D(i)		d[0][i], d[1][i], d[2][i]
	return (lu_triple(LU_S(6, 7), LU_D(2), LU_D(3)) +
		lu_triple(LU_S(8, 9), LU_D(5), LU_D(1)) +
		lu_triple(LU_S(10, 11), LU_D(0), LU_D(4))) / 12.0;
#undef LU_S
#undef LU_D
}

/* CalcElemCharacteristicLength: 4 V / sqrt(the largest AreaFace). */
static double lu_char_length(const double x[3][8], double vol)
{
	double amax = 0;
	int f, k;

	for (f = 0; f < 6; f++) {
		const int *n = lu_face[f];
		double fv[3], gv[3], ff = 0, gg = 0, fg = 0, a;

		for (k = 0; k < 3; k++) {
			fv[k] = (x[k][n[2]] - x[k][n[0]]) -
				(x[k][n[3]] - x[k][n[1]]);
			gv[k] = (x[k][n[2]] - x[k][n[0]]) +
				(x[k][n[3]] - x[k][n[1]]);
			ff += fv[k] * fv[k];
			gg += gv[k] * gv[k];
			fg += fv[k] * gv[k];
		}
		a = ff * gg - fg * fg;
		amax = a > amax ? a : amax;
	}
	return 4.0 * vol / sqrt(amax);
}

/* The monotonic q from the strain rate, its limiter and density. */
static double lu_q(double vdov, double arealg, double phi, double rho)
{
	double dv = vdov * arealg;

	if (dv >= 0)
		return 0;
	return -LU_QLC * rho * dv * (1.0 - phi) +
	       LU_QQC * rho * dv * dv * (1.0 - phi * phi);
}

/* The limiter: the smallest neighbour-to-own strain rate, in [0, 1]. */
static double lu_phi(double own, const double nb[6])
{
	double phi = 1.0;
	int i;

	if (own == 0)
		return 0;
	for (i = 0; i < 6; i++) {
		double r = nb[i] / own;

		phi = r < phi ? r : phi;
	}
	return phi < 0 ? 0 : phi;
}

/* EOS: e, p, ss from the old e, p, q and the new volume. */
static void lu_eos(double *e, double *p, double q, double *ss, double vnew,
		   double delv)
{
	double comp = 1.0 / vnew - 1.0, bvc = LU_C1S * (comp + 1.0);
	double en = *e - 0.5 * delv * (*p + q), pn, sst;

	en = en < LU_E_MIN ? LU_E_MIN : en;
	pn = bvc * en;
	if (fabs(pn) < LU_P_CUT || vnew >= LU_EOSVMAX || pn < 0)
		pn = 0;
	sst = LU_C1S * en + vnew * vnew * bvc * pn;
	*ss = sst <= 1.111111e-36 ? 0.3333333e-18 : sqrt(sst);
	*e = en;
	*p = pn;
}

/* The two time limits of one element (1e20: none). */
static void lu_dt_limits(double ss, double vdov, double arealg,
			 double *dtc, double *dth)
{
	double s2 = ss * ss;

	*dtc = 1.0e20;
	*dth = 1.0e20;
	if (vdov == 0)
		return;
	if (vdov < 0)
		s2 += LU_QQC2 * arealg * arealg * vdov * vdov;
	*dtc = arealg / sqrt(s2);
	*dth = LU_DVOVMAX / (fabs(vdov) + 1.0e-20);
}

/* TimeIncrement: the next dt from the last one and the limits. */
static double lu_next_dt(double dt, double dtc, double dth, double t,
			 int cycle)
{
	double target = LU_STOP - t, ndt = 1.0e20;

	if (cycle) {
		if (dtc < ndt)
			ndt = dtc / 2.0;
		if (dth < ndt)
			ndt = dth * 2.0 / 3.0;
		if (ndt / dt >= 1.0) {
			if (ndt / dt < 1.1)
				ndt = dt;
			else if (ndt / dt > 1.2)
				ndt = dt * 1.2;
		}
		dt = ndt > 1.0e-2 ? 1.0e-2 : ndt;
	}
	if (target > dt && target < 4.0 * dt / 3.0)
		target = 2.0 * dt / 3.0;
	return target < dt ? target : dt;
}

#define NODE(a, i)	((a)->node[i])
#define ELEM(a, i)	((a)->elem[i])

/*
 * OPS (DP): the gather's index (INT 2, BRANCH 1); the node normals (6
 * faces: 12 adds and 6 multiplies for the bisectors, 9 for the area, 12
 * adds to the nodes: DP 39 a face), -(p + q) (DP 1) and 24 forces (DP
 * 24).
 */
static void lu_force_kernel(struct simt_thread *t, const void *p)
{
	const struct lu_args *a = p;
	uint64_t e = simt_global_x(t);
	double x[3][8], b[3][8], s;
	int i, d;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (e >= a->ne)
		return;
	for (i = 0; i < 8; i++) {
		uint32_t n = LD(t, uint32_t, a->nodelist, e * 8 + i);

		for (d = 0; d < 3; d++)
			x[d][i] = LD(t, double, NODE(a, LU_X + d), n);
	}
	s = LD(t, double, ELEM(a, LU_P), e) + LD(t, double, ELEM(a, LU_Q), e);
	lu_node_normals(x, b);
	OPS(t, PROG_OP_DP, 6 * 39 + 1 + 24);
	for (i = 0; i < 8; i++)
		for (d = 0; d < 3; d++)
			ST(t, double, a->f_elem[d], e * 8 + i, s * b[d][i]);
}

/* OPS: the index (INT 2, BRANCH 1); a corner: 3 adds, the loop (INT 2, BRANCH 1). */
static void lu_gather_kernel(struct simt_thread *t, const void *p)
{
	const struct lu_args *a = p;
	uint64_t n = simt_global_x(t);
	double f[3] = { 0, 0, 0 };
	uint32_t c, end;
	int d;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (n >= a->nn)
		return;
	c = LD(t, uint32_t, a->corner_start, n);
	end = LD(t, uint32_t, a->corner_start, n + 1);
	for (; c < end; c++) {
		uint32_t k = LD(t, uint32_t, a->corner_list, c);

		for (d = 0; d < 3; d++)
			f[d] += LD(t, double, a->f_elem[d], k);
		OPS(t, PROG_OP_DP, 3);
		OPS(t, PROG_OP_INT, 2);
		OPS(t, PROG_OP_BRANCH, 1);
	}
	for (d = 0; d < 3; d++)
		ST(t, double, NODE(a, LU_FX + d), n, f[d]);
}

/* OPS: the index (INT 2, BRANCH 1), a reciprocal and 3 multiplies. */
static void lu_accel_kernel(struct simt_thread *t, const void *p)
{
	const struct lu_args *a = p;
	uint64_t n = simt_global_x(t);
	double m;
	int d;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (n >= a->nn)
		return;
	m = LD(t, double, NODE(a, LU_NMASS), n);
	OPS(t, PROG_OP_DP, 3);
	for (d = 0; d < 3; d++)
		ST(t, double, NODE(a, LU_XDD + d), n,
		   LD(t, double, NODE(a, LU_FX + d), n) / m);
}

static void lu_bc_kernel(struct simt_thread *t, const void *p)
{
	const struct lu_args *a = p;
	uint64_t i = simt_global_x(t);
	int d;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (i >= a->nsymm)
		return;
	for (d = 0; d < 3; d++)
		ST(t, double, NODE(a, LU_XDD + d),
		   LD(t, uint32_t, a->symm[d], i), 0.0);
}

/* OPS: the index; a direction: an FFMA, the cut's test (DP 1, BRANCH 1). */
static void lu_velocity_kernel(struct simt_thread *t, const void *p)
{
	const struct lu_args *a = p;
	uint64_t n = simt_global_x(t);
	int d;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (n >= a->nn)
		return;
	for (d = 0; d < 3; d++) {
		double v = LD(t, double, NODE(a, LU_XD + d), n) +
			   LD(t, double, NODE(a, LU_XDD + d), n) * a->dt;

		OPS(t, PROG_OP_DP, 2);
		OPS(t, PROG_OP_BRANCH, 1);
		if (fabs(v) < LU_U_CUT)
			v = 0;
		ST(t, double, NODE(a, LU_XD + d), n, v);
	}
}

static void lu_position_kernel(struct simt_thread *t, const void *p)
{
	const struct lu_args *a = p;
	uint64_t n = simt_global_x(t);
	int d;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (n >= a->nn)
		return;
	OPS(t, PROG_OP_DP, 3);
	for (d = 0; d < 3; d++)
		ST(t, double, NODE(a, LU_X + d), n,
		   LD(t, double, NODE(a, LU_X + d), n) +
		   LD(t, double, NODE(a, LU_XD + d), n) * a->dt);
}

/* The kinematics of one element: vnew, delv, vdov, arealg. */
static void lu_kinematics(const double x[3][8], double volo, double v,
			  double dt, double out[4])
{
	double vol = lu_volume(x), vnew = vol / volo;

	out[0] = vnew;
	out[1] = vnew - v;
	out[2] = (vnew - v) / (vnew * dt);
	out[3] = lu_char_length(x, vol);
}

/*
 * OPS: the index (INT 2, BRANCH 1); the volume (36 subtracts, 3 x 14
 * for the triple products, 3 adds, a divide: DP 82), the length (6
 * faces of 27, a compare each, 2 more and a square root: DP 170, SFU
 * 1), the rest DP 5.
 */
static void lu_kinematics_kernel(struct simt_thread *t, const void *p)
{
	const struct lu_args *a = p;
	uint64_t e = simt_global_x(t);
	double x[3][8], out[4];
	int i, d;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (e >= a->ne)
		return;
	for (i = 0; i < 8; i++) {
		uint32_t n = LD(t, uint32_t, a->nodelist, e * 8 + i);

		for (d = 0; d < 3; d++)
			x[d][i] = LD(t, double, NODE(a, LU_X + d), n);
	}
	lu_kinematics(x, LD(t, double, ELEM(a, LU_VOLO), e),
		      LD(t, double, ELEM(a, LU_V), e), a->dt, out);
	OPS(t, PROG_OP_DP, 82 + 170 + 5);
	OPS(t, PROG_OP_SFU, 1);
	ST(t, double, ELEM(a, LU_VNEW), e, out[0]);
	ST(t, double, ELEM(a, LU_DELV), e, out[1]);
	ST(t, double, ELEM(a, LU_VDOV), e, out[2]);
	ST(t, double, ELEM(a, LU_AREALG), e, out[3]);
}

/*
 * OPS: the index (INT 2, BRANCH 1); the limiter (6 divides and
 * compares: DP 12, BRANCH 7), the density (DP 2), q (DP 8, BRANCH 1).
 */
static void lu_q_kernel(struct simt_thread *t, const void *p)
{
	const struct lu_args *a = p;
	uint64_t e = simt_global_x(t);
	double nb[6], own, rho;
	int i;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (e >= a->ne)
		return;
	own = LD(t, double, ELEM(a, LU_VDOV), e);
	for (i = 0; i < 6; i++)
		nb[i] = LD(t, double, ELEM(a, LU_VDOV),
			   LD(t, uint32_t, a->nbr, e * 6 + i));
	rho = LD(t, double, ELEM(a, LU_EMASS), e) /
	      (LD(t, double, ELEM(a, LU_VOLO), e) *
	       LD(t, double, ELEM(a, LU_VNEW), e));
	OPS(t, PROG_OP_DP, 22);
	OPS(t, PROG_OP_BRANCH, 8);
	ST(t, double, ELEM(a, LU_Q), e,
	   lu_q(own, LD(t, double, ELEM(a, LU_AREALG), e), lu_phi(own, nb),
		rho));
}

/* OPS: the index; the EOS (DP 16, SFU 1, BRANCH 4). */
static void lu_material_kernel(struct simt_thread *t, const void *p)
{
	const struct lu_args *a = p;
	uint64_t e = simt_global_x(t);
	double en, pn, ss, vnew;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (e >= a->ne)
		return;
	en = LD(t, double, ELEM(a, LU_E), e);
	pn = LD(t, double, ELEM(a, LU_P), e);
	vnew = LD(t, double, ELEM(a, LU_VNEW), e);
	lu_eos(&en, &pn, LD(t, double, ELEM(a, LU_Q), e), &ss, vnew,
	       LD(t, double, ELEM(a, LU_DELV), e));
	OPS(t, PROG_OP_DP, 16);
	OPS(t, PROG_OP_SFU, 1);
	OPS(t, PROG_OP_BRANCH, 4);
	ST(t, double, ELEM(a, LU_E), e, en);
	ST(t, double, ELEM(a, LU_P), e, pn);
	ST(t, double, ELEM(a, LU_SS), e, ss);
	ST(t, double, ELEM(a, LU_V), e, vnew);
}

/*
 * Shared: two LU_BLOCK doubles. OPS: the index; the limits (DP 9, SFU
 * 1, BRANCH 2); a tree level: the test (INT 1, BRANCH 1), two compares
 * (DP 2); the level loop (INT 2, BRANCH 1); thread 0's test.
 */
static void lu_dt_kernel(struct simt_thread *t, const void *p)
{
	const struct lu_args *a = p;
	uint64_t e = simt_global_x(t);
	uint32_t tx = simt_thread_idx(t).x;
	double dtc = 1.0e20, dth = 1.0e20;

	OPS(t, PROG_OP_INT, 2);
	OPS(t, PROG_OP_BRANCH, 1);
	if (e < a->ne) {
		lu_dt_limits(LD(t, double, ELEM(a, LU_SS), e),
			     LD(t, double, ELEM(a, LU_VDOV), e),
			     LD(t, double, ELEM(a, LU_AREALG), e), &dtc, &dth);
		OPS(t, PROG_OP_DP, 9);
		OPS(t, PROG_OP_SFU, 1);
		OPS(t, PROG_OP_BRANCH, 2);
	}
	app_block_min2(t, tx, LU_BLOCK, dtc, dth);
	OPS(t, PROG_OP_INT, 1);
	OPS(t, PROG_OP_BRANCH, 1);
	if (!tx) {
		ST(t, double, a->dtc_blk, simt_block_idx(t).x, LDS(t, double, 0));
		ST(t, double, a->dth_blk, simt_block_idx(t).x,
		   LDS(t, double, LU_BLOCK));
	}
}

/* The mesh and its state; the host's copy for the reference as well. */
struct lu_mesh {
	uint32_t nx, ne, nn, nsymm;
	double *node[LU_NODE_ARRAYS], *elem[LU_ELEM_ARRAYS], *f_elem[3];
	uint32_t *nodelist, *corner_start, *corner_list, *symm[3], *nbr;
};

static void lu_mesh_free(struct lu_mesh *m)
{
	int i;

	for (i = 0; i < LU_NODE_ARRAYS; i++)
		free(m->node[i]);
	for (i = 0; i < LU_ELEM_ARRAYS; i++)
		free(m->elem[i]);
	for (i = 0; i < 3; i++) {
		free(m->f_elem[i]);
		free(m->symm[i]);
	}
	free(m->nodelist);
	free(m->corner_start);
	free(m->corner_list);
	free(m->nbr);
}

static void lu_gather_x(const struct lu_mesh *m, uint32_t e, double x[3][8])
{
	int i, d;

	for (i = 0; i < 8; i++)
		for (d = 0; d < 3; d++)
			x[d][i] = m->node[LU_X + d][m->nodelist[e * 8 + i]];
}

/* LULESH's Domain setup for the Sedov problem on nx^3 elements. */
static int lu_mesh_init(struct lu_mesh *m, uint32_t nx)
{
	uint32_t np = nx + 1, i, j, k, e, n, c;
	double x[3][8];
	int d;

	memset(m, 0, sizeof(*m));
	m->nx = nx;
	m->ne = nx * nx * nx;
	m->nn = np * np * np;
	m->nsymm = np * np;
	for (i = 0; i < LU_NODE_ARRAYS; i++)
		if (!(m->node[i] = calloc(m->nn, sizeof(double))))
			return -ENOMEM;
	for (i = 0; i < LU_ELEM_ARRAYS; i++)
		if (!(m->elem[i] = calloc(m->ne, sizeof(double))))
			return -ENOMEM;
	for (d = 0; d < 3; d++) {
		m->f_elem[d] = calloc((size_t)m->ne * 8, sizeof(double));
		m->symm[d] = malloc((size_t)m->nsymm * sizeof(uint32_t));
		if (!m->f_elem[d] || !m->symm[d])
			return -ENOMEM;
	}
	m->nodelist = malloc((size_t)m->ne * 8 * sizeof(uint32_t));
	m->corner_start = calloc((size_t)m->nn + 1, sizeof(uint32_t));
	m->corner_list = malloc((size_t)m->ne * 8 * sizeof(uint32_t));
	m->nbr = malloc((size_t)m->ne * 6 * sizeof(uint32_t));
	if (!m->nodelist || !m->corner_start || !m->corner_list || !m->nbr)
		return -ENOMEM;
	for (k = 0; k < np; k++)
		for (j = 0; j < np; j++)
			for (i = 0; i < np; i++) {
				n = (k * np + j) * np + i;
				m->node[LU_X][n] = 1.125 * i / nx;
				m->node[LU_Y][n] = 1.125 * j / nx;
				m->node[LU_Z][n] = 1.125 * k / nx;
			}
	for (k = 0; k < nx; k++)
		for (j = 0; j < nx; j++)
			for (i = 0; i < nx; i++) {
				uint32_t *nl, *nb;

				e = (k * nx + j) * nx + i;
				n = (k * np + j) * np + i;
				nl = m->nodelist + (size_t)e * 8;
				nl[0] = n;
				nl[1] = n + 1;
				nl[2] = n + np + 1;
				nl[3] = n + np;
				for (c = 0; c < 4; c++)
					nl[c + 4] = nl[c] + np * np;
				/* A face on the boundary is its own neighbour. */
				nb = m->nbr + (size_t)e * 6;
				nb[0] = i ? e - 1 : e;
				nb[1] = i + 1 < nx ? e + 1 : e;
				nb[2] = j ? e - nx : e;
				nb[3] = j + 1 < nx ? e + nx : e;
				nb[4] = k ? e - nx * nx : e;
				nb[5] = k + 1 < nx ? e + nx * nx : e;
			}
	/* nodeElemCornerList: each node's corners in element order. */
	for (c = 0; c < m->ne * 8; c++)
		m->corner_start[m->nodelist[c] + 1]++;
	for (n = 0; n < m->nn; n++)
		m->corner_start[n + 1] += m->corner_start[n];
	{
		uint32_t *fill = malloc((size_t)m->nn * sizeof(*fill));

		if (!fill)
			return -ENOMEM;
		memcpy(fill, m->corner_start, (size_t)m->nn * sizeof(*fill));
		for (c = 0; c < m->ne * 8; c++)
			m->corner_list[fill[m->nodelist[c]]++] = c;
		free(fill);
	}
	for (e = 0; e < m->ne; e++) {
		double vol;

		lu_gather_x(m, e, x);
		vol = lu_volume(x);
		m->elem[LU_VOLO][e] = vol;
		m->elem[LU_EMASS][e] = vol;
		m->elem[LU_V][e] = 1.0;
		for (c = 0; c < 8; c++)
			m->node[LU_NMASS][m->nodelist[e * 8 + c]] += vol / 8.0;
	}
	/* Sedov: LULESH's initial energy, scaled to the mesh. */
	m->elem[LU_E][0] = 3.948746e+7 * (nx / 45.0) * (nx / 45.0) *
			   (nx / 45.0);
	for (j = 0; j < np; j++)
		for (i = 0; i < np; i++) {
			m->symm[0][j * np + i] = (j * np + i) * np;
			m->symm[1][j * np + i] = (j * np) * np + i;
			m->symm[2][j * np + i] = j * np + i;
		}
	return 0;
}

/* One step on the host, the kernels' order; returns the two minima. */
static void lu_ref_step(struct lu_mesh *m, double dt, double *dtc_min,
			double *dth_min)
{
	double **nd = m->node, **el = m->elem, x[3][8], b[3][8], out[4];
	uint32_t e, n, c, i;
	int d;

	for (e = 0; e < m->ne; e++) {
		double s = el[LU_P][e] + el[LU_Q][e];

		lu_gather_x(m, e, x);
		lu_node_normals(x, b);
		for (i = 0; i < 8; i++)
			for (d = 0; d < 3; d++)
				m->f_elem[d][e * 8 + i] = s * b[d][i];
	}
	for (n = 0; n < m->nn; n++) {
		double f[3] = { 0, 0, 0 };

		for (c = m->corner_start[n]; c < m->corner_start[n + 1]; c++)
			for (d = 0; d < 3; d++)
				f[d] += m->f_elem[d][m->corner_list[c]];
		for (d = 0; d < 3; d++)
			nd[LU_XDD + d][n] = f[d] / nd[LU_NMASS][n];
	}
	for (d = 0; d < 3; d++)
		for (i = 0; i < m->nsymm; i++)
			nd[LU_XDD + d][m->symm[d][i]] = 0;
	for (n = 0; n < m->nn; n++)
		for (d = 0; d < 3; d++) {
			double v = nd[LU_XD + d][n] + nd[LU_XDD + d][n] * dt;

			nd[LU_XD + d][n] = fabs(v) < LU_U_CUT ? 0 : v;
		}
	for (n = 0; n < m->nn; n++)
		for (d = 0; d < 3; d++)
			nd[LU_X + d][n] = nd[LU_X + d][n] +
					  nd[LU_XD + d][n] * dt;
	for (e = 0; e < m->ne; e++) {
		lu_gather_x(m, e, x);
		lu_kinematics(x, el[LU_VOLO][e], el[LU_V][e], dt, out);
		el[LU_VNEW][e] = out[0];
		el[LU_DELV][e] = out[1];
		el[LU_VDOV][e] = out[2];
		el[LU_AREALG][e] = out[3];
	}
	for (e = 0; e < m->ne; e++) {
		double nb[6], own = el[LU_VDOV][e];

		for (i = 0; i < 6; i++)
			nb[i] = el[LU_VDOV][m->nbr[e * 6 + i]];
		el[LU_Q][e] = lu_q(own, el[LU_AREALG][e], lu_phi(own, nb),
				   el[LU_EMASS][e] /
				   (el[LU_VOLO][e] * el[LU_VNEW][e]));
	}
	*dtc_min = 1.0e20;
	*dth_min = 1.0e20;
	for (e = 0; e < m->ne; e++) {
		double dtc, dth;

		lu_eos(&el[LU_E][e], &el[LU_P][e], el[LU_Q][e], &el[LU_SS][e],
		       el[LU_VNEW][e], el[LU_DELV][e]);
		el[LU_V][e] = el[LU_VNEW][e];
		lu_dt_limits(el[LU_SS][e], el[LU_VDOV][e], el[LU_AREALG][e],
			     &dtc, &dth);
		*dtc_min = dtc < *dtc_min ? dtc : *dtc_min;
		*dth_min = dth < *dth_min ? dth : *dth_min;
	}
}

static int lu_run(struct simt_gpu *gpu, uint64_t size, uint64_t seed,
		  char *err, size_t errlen)
{
	static const char *const node_name[LU_NODE_ARRAYS] = {
		"x", "y", "z", "xd", "yd", "zd", "xdd", "ydd", "zdd",
		"fx", "fy", "fz", "nodalMass" };
	static const char *const elem_name[LU_ELEM_ARRAYS] = {
		"e", "p", "q", "v", "volo", "delv", "vdov", "arealg", "ss",
		"elemMass", "vnew" };
	static const char *const f_name[3] = { "fx_elem", "fy_elem",
					       "fz_elem" };
	static const char *const s_name[3] = { "symmX", "symmY", "symmZ" };
	const char *app = "lulesh";
	struct lu_mesh m, ref;
	struct lu_args args;
	struct simt_dim3 eg, ng, sg, blk = DIM3(LU_BLOCK, 1, 1);
	double *got = NULL, *dtc = NULL, *dth = NULL, t, rt, rdt, c, h;
	uint32_t i, eblocks;
	int ret, d, cycle;

	(void)seed;
	ret = app_size_range(size, 2, LU_MAX, "the mesh's edge", app, err,
			     errlen);
	if (ret)
		return ret;
	ret = lu_mesh_init(&m, (uint32_t)size);
	if (!ret)
		ret = lu_mesh_init(&ref, (uint32_t)size);
	eblocks = app_blocks(m.ne, LU_BLOCK);
	got = malloc((size_t)m.ne * sizeof(double));
	dtc = malloc((size_t)eblocks * sizeof(double));
	dth = malloc((size_t)eblocks * sizeof(double));
	if (ret || !got || !dtc || !dth) {
		ret = -ENOMEM;
		app_err(err, errlen, app, "out of memory");
		goto out;
	}
	memset(&args, 0, sizeof(args));
	args.ne = m.ne;
	args.nn = m.nn;
	args.nsymm = m.nsymm;
	eg = DIM3(eblocks, 1, 1);
	ng = DIM3(app_blocks(m.nn, LU_BLOCK), 1, 1);
	sg = DIM3(app_blocks(m.nsymm, LU_BLOCK), 1, 1);
	for (i = 0; i < LU_NODE_ARRAYS && !ret; i++)
		ret = app_alloc(gpu, (uint64_t)m.nn * 8, node_name[i],
				&args.node[i], app, err, errlen);
	for (i = 0; i < LU_ELEM_ARRAYS && !ret; i++)
		ret = app_alloc(gpu, (uint64_t)m.ne * 8, elem_name[i],
				&args.elem[i], app, err, errlen);
	for (d = 0; d < 3 && !ret; d++) {
		ret = app_alloc(gpu, (uint64_t)m.ne * 64, f_name[d],
				&args.f_elem[d], app, err, errlen);
		if (!ret)
			ret = app_alloc(gpu, (uint64_t)m.nsymm * 4, s_name[d],
					&args.symm[d], app, err, errlen);
	}
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)m.ne * 32, "nodelist",
				&args.nodelist, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, ((uint64_t)m.nn + 1) * 4,
				"nodeElemStart", &args.corner_start, app, err,
				errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)m.ne * 32,
				"nodeElemCornerList", &args.corner_list, app,
				err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)m.ne * 24, "lxim_to_lzetap",
				&args.nbr, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)eblocks * 8, "dtcourant_blk",
				&args.dtc_blk, app, err, errlen);
	if (!ret)
		ret = app_alloc(gpu, (uint64_t)eblocks * 8, "dthydro_blk",
				&args.dth_blk, app, err, errlen);
	if (ret)
		goto out;
	for (i = 0; i < LU_NODE_ARRAYS; i++)
		simt_h2d(gpu, args.node[i], m.node[i], (uint64_t)m.nn * 8);
	for (i = 0; i < LU_ELEM_ARRAYS; i++)
		simt_h2d(gpu, args.elem[i], m.elem[i], (uint64_t)m.ne * 8);
	for (d = 0; d < 3; d++)
		simt_h2d(gpu, args.symm[d], m.symm[d], (uint64_t)m.nsymm * 4);
	simt_h2d(gpu, args.nodelist, m.nodelist, (uint64_t)m.ne * 32);
	simt_h2d(gpu, args.corner_start, m.corner_start,
		 ((uint64_t)m.nn + 1) * 4);
	simt_h2d(gpu, args.corner_list, m.corner_list, (uint64_t)m.ne * 32);
	simt_h2d(gpu, args.nbr, m.nbr, (uint64_t)m.ne * 24);

	/* LULESH's first dt: half the corner element's edge over its speed. */
	args.dt = 0.5 * cbrt(m.elem[LU_VOLO][0]) /
		  sqrt(2.0 * m.elem[LU_E][0]);
	rdt = args.dt;
	t = rt = 0;
	c = h = 1.0e20;
	for (cycle = 0; t < LU_STOP && cycle < LU_MAX_CYCLES; cycle++) {
		static const struct {
			const char *name;
			simt_kernel_fn fn;
			int grid;	/* 0 elements, 1 nodes, 2 planes */
		} seq[] = {
			{ "CalcVolumeForceForElems_kernel", lu_force_kernel, 0 },
			{ "AddNodeForcesFromElems_kernel", lu_gather_kernel, 1 },
			{ "CalcAccelerationForNodes_kernel", lu_accel_kernel, 1 },
			{ "ApplyAccelerationBoundaryConditionsForNodes_kernel",
			  lu_bc_kernel, 2 },
			{ "CalcVelocityForNodes_kernel", lu_velocity_kernel, 1 },
			{ "CalcPositionForNodes_kernel", lu_position_kernel, 1 },
			{ "CalcKinematicsForElems_kernel", lu_kinematics_kernel,
			  0 },
			{ "CalcMonotonicQForElems_kernel", lu_q_kernel, 0 },
			{ "ApplyMaterialPropertiesAndUpdateVolume_kernel",
			  lu_material_kernel, 0 },
		};
		size_t k;

		args.dt = lu_next_dt(args.dt, c, h, t, cycle);
		for (k = 0; k < sizeof(seq) / sizeof(seq[0]); k++) {
			ret = app_launch(gpu, seq[k].name, seq[k].fn,
					 seq[k].grid == 0 ? eg :
					 seq[k].grid == 1 ? ng : sg, blk, 0,
					 &args, app, err, errlen);
			if (ret)
				goto out;
		}
		ret = app_launch(gpu, "CalcTimeConstraintsForElems_kernel",
				 lu_dt_kernel, eg, blk, 2 * LU_BLOCK * 8,
				 &args, app, err, errlen);
		if (ret)
			goto out;
		simt_d2h(gpu, dtc, args.dtc_blk, (uint64_t)eblocks * 8);
		simt_d2h(gpu, dth, args.dth_blk, (uint64_t)eblocks * 8);
		c = h = 1.0e20;
		for (i = 0; i < eblocks; i++) {
			c = dtc[i] < c ? dtc[i] : c;
			h = dth[i] < h ? dth[i] : h;
		}
		t += args.dt;
	}
	simt_d2h(gpu, got, args.elem[LU_E], (uint64_t)m.ne * 8);
	app_test_perturb(got, sizeof(*got), m.ne);

	/* The reference: the same host loop around the host's step. */
	{
		double rc = 1.0e20, rh = 1.0e20;
		int rcycle;

		for (rcycle = 0; rt < LU_STOP && rcycle < LU_MAX_CYCLES;
		     rcycle++) {
			rdt = lu_next_dt(rdt, rc, rh, rt, rcycle);
			lu_ref_step(&ref, rdt, &rc, &rh);
			rt += rdt;
		}
	}
	for (i = 0; i < m.ne; i++) {
		double w = ref.elem[LU_E][i];

		if (got[i] != w &&
		    !(fabs(got[i] - w) <= 1e-9 * fabs(w))) {
			app_err(err, errlen, app,
				"e[%u] = %.17g, the reference says %.17g", i,
				got[i], w);
			ret = -EIO;
			break;
		}
	}
out:
	lu_mesh_free(&m);
	lu_mesh_free(&ref);
	free(got);
	free(dtc);
	free(dth);
	return ret;
}

const struct app_desc app_lulesh = {
	.name = "lulesh",
	.suite = "CORAL-2 (LULESH 2.0, CUDA)",
	.summary = "Sedov blast, Lagrangian hydro on an nx^3 hex mesh in "
		   "double: a step is 10 kernels (element stress to corner "
		   "forces, gather to nodes, acceleration, symmetry planes, "
		   "velocity, position, kinematics, monotonic q through "
		   "face neighbours, EOS and volume, time constraints with a "
		   "block minimum copied back), blocks of 128, until t = 1e-2 "
		   "or 100 cycles",
	.input = "size = nx, the mesh's edge in elements (Table II's "
		 "'1.0e-2 10': stop time 1e-2 on a 10^3 mesh); LULESH's Sedov "
		 "set-up (edge 1.125, energy 3.948746e7 (nx / 45)^3 in the "
		 "corner element; the seed changes nothing); at most 100 "
		 "cycles (612 reach t = 1e-2 at nx = 10). Large: the paper's "
		 "10",
	.small_size = 4,
	.large_size = 10,
	.kernels = "CalcVolumeForceForElems_kernel, "
		   "AddNodeForcesFromElems_kernel, "
		   "CalcAccelerationForNodes_kernel, "
		   "ApplyAccelerationBoundaryConditionsForNodes_kernel, "
		   "CalcVelocityForNodes_kernel, CalcPositionForNodes_kernel, "
		   "CalcKinematicsForElems_kernel, "
		   "CalcMonotonicQForElems_kernel, "
		   "ApplyMaterialPropertiesAndUpdateVolume_kernel, "
		   "CalcTimeConstraintsForElems_kernel",
	.paper_sizes = "CPElide Table II: 1.0e-2 10 (stop time 1e-2, a 10^3 "
		       "element mesh) = size 10, run for 100 of its 612 cycles",
	.run = lu_run,
};
