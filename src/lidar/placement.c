/* Placement measures (sensim/placement.h): ROI grids of world-frame points,
 * their density, uniformity, NUC and coverage, and the shots a lidar fires
 * into object boxes. */
#include "internal.h"
#include "lidar_impl.h"
#include "motion.h"
#include "returns.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROI_MAX_CELLS (UINT32_C(1) << 24)
#define BOX_MARGIN_M 0.05
#define NUC_PURPOSE 0x4e5543u /* "NUC": the disks' own random stream */

void sensim_roi_desc_init(sensim_roi_desc *d)
{
    if (!d)
        return;
    memset(d, 0, sizeof *d);
    d->zmin = -1e9, d->zmax = 1e9;
    d->cell_m = 1.0;
    d->min_points = 1;
    d->nuc_disks = 100;
    d->nuc_radius_m = 2.0;
}

sensim_status sensim_roi_grid_size(const sensim_roi_desc *d, uint32_t *nx, uint32_t *ny)
{
    if (!d || !nx || !ny)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_roi_grid_size: NULL argument");
    const double v[] = {d->xmin, d->ymin, d->xmax, d->ymax, d->zmin, d->zmax, d->cell_m, d->nuc_radius_m};
    static const char *const names[] = {"xmin", "ymin", "xmax", "ymax", "zmin", "zmax", "cell_m", "nuc_radius_m"};
    for (int i = 0; i < 8; i++)
        if (!isfinite(v[i]))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "ROI: %s is not finite", names[i]);
    for (int i = 0; i < 4; i++)
        if (d->reserved[i])
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "ROI: reserved fields must be zero");
    if (!(d->xmax > d->xmin && d->ymax > d->ymin && d->zmax >= d->zmin))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "ROI: [%g, %g] x [%g, %g], z [%g, %g] is empty", d->xmin,
                            d->xmax, d->ymin, d->ymax, d->zmin, d->zmax);
    if (!(d->cell_m > 0) || !(d->nuc_radius_m > 0) || d->nuc_disks > 1000000)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "ROI: cell_m = %g and nuc_radius_m = %g must be > 0, nuc_disks "
                            "(%u) at most 10^6", d->cell_m, d->nuc_radius_m, d->nuc_disks);
    double cx = ceil((d->xmax - d->xmin) / d->cell_m), cy = ceil((d->ymax - d->ymin) / d->cell_m);
    if (!(cx >= 1 && cy >= 1 && cx * cy <= ROI_MAX_CELLS))
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "ROI: %.0f x %.0f cells of %g m (at most 2^24)", cx, cy, d->cell_m);
    *nx = (uint32_t)cx, *ny = (uint32_t)cy;
    return SENSIM_OK;
}

sensim_status sensim_roi_accumulate(const sensim_roi_desc *d, const sensim_point *pts, uint64_t n, uint32_t *cells,
                                    uint64_t *out_added)
{
    uint32_t nx, ny;
    if (out_added)
        *out_added = 0;
    sensim_status st = sensim_roi_grid_size(d, &nx, &ny);
    if (st != SENSIM_OK)
        return st;
    if ((n && !pts) || !cells)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_roi_accumulate: NULL %s", cells ? "points" : "cells");
    uint64_t added = 0, saturated = 0;
    for (uint64_t k = 0; k < n; k++) {
        double x = pts[k].x, y = pts[k].y, z = pts[k].z;
        if (!(x >= d->xmin && x < d->xmax && y >= d->ymin && y < d->ymax && z >= d->zmin && z <= d->zmax))
            continue; /* outside, or NaN */
        uint32_t i = (uint32_t)((x - d->xmin) / d->cell_m), j = (uint32_t)((y - d->ymin) / d->cell_m);
        i = i < nx ? i : nx - 1, j = j < ny ? j : ny - 1;
        uint32_t *c = &cells[(size_t)j * nx + i];
        if (*c == UINT32_MAX) {
            saturated++;
            continue;
        }
        (*c)++, added++;
    }
    if (out_added)
        *out_added = added;
    if (saturated)
        return sensim__fail(SENSIM_ERR_OVERRUN, "sensim_roi_accumulate: %llu points not counted: cells full "
                            "(UINT32_MAX)", (unsigned long long)saturated);
    return SENSIM_OK;
}

sensim_status sensim_roi_evaluate(const sensim_roi_desc *d, const uint32_t *cells, sensim_roi_metrics *out)
{
    uint32_t nx, ny;
    sensim_status st = sensim_roi_grid_size(d, &nx, &ny);
    if (st != SENSIM_OK)
        return st;
    if (!cells || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_roi_evaluate: NULL argument");
    memset(out, 0, sizeof *out);
    out->cells_x = nx, out->cells_y = ny;
    const size_t nc = (size_t)nx * ny;
    uint64_t total = 0, covered = 0;
    for (size_t c = 0; c < nc; c++) {
        total += cells[c];
        covered += cells[c] >= d->min_points;
    }
    const double mean = (double)total / (double)nc;
    double var = 0;
    for (size_t c = 0; c < nc; c++)
        var += ((double)cells[c] - mean) * ((double)cells[c] - mean);
    var /= (double)nc;
    out->points = total;
    out->density_per_m2 = (double)total / ((d->xmax - d->xmin) * (d->ymax - d->ymin));
    out->cell_cv = total ? sqrt(var) / mean : INFINITY;
    out->coverage = (double)covered / (double)nc;
    /* NUC: disks of cells around centres drawn uniformly in the ROI */
    double sum = 0, sum2 = 0;
    uint32_t used = 0;
    const double r2 = d->nuc_radius_m * d->nuc_radius_m;
    for (uint32_t k = 0; total && k < d->nuc_disks; k++) {
        double px = d->xmin + (d->xmax - d->xmin) * sensim__rng_uniform(d->seed, 0, k, 0, NUC_PURPOSE);
        double py = d->ymin + (d->ymax - d->ymin) * sensim__rng_uniform(d->seed, 0, k, 1, NUC_PURPOSE);
        int64_t i0 = (int64_t)floor((px - d->nuc_radius_m - d->xmin) / d->cell_m),
                i1 = (int64_t)floor((px + d->nuc_radius_m - d->xmin) / d->cell_m),
                j0 = (int64_t)floor((py - d->nuc_radius_m - d->ymin) / d->cell_m),
                j1 = (int64_t)floor((py + d->nuc_radius_m - d->ymin) / d->cell_m);
        uint64_t in = 0, cnt = 0;
        for (int64_t j = j0 < 0 ? 0 : j0; j <= j1 && j < ny; j++)
            for (int64_t i = i0 < 0 ? 0 : i0; i <= i1 && i < nx; i++) {
                double ccx = d->xmin + ((double)i + 0.5) * d->cell_m, ccy = d->ymin + ((double)j + 0.5) * d->cell_m;
                if ((ccx - px) * (ccx - px) + (ccy - py) * (ccy - py) <= r2)
                    in++, cnt += cells[(size_t)j * nx + (size_t)i];
            }
        if (!in)
            continue; /* a disk smaller than a cell between centres */
        double v = (double)cnt / ((double)total * ((double)in / (double)nc));
        sum += v, sum2 += v * v, used++;
    }
    if (used) {
        double m = sum / used, q = sum2 / used - m * m;
        out->nuc = sqrt(q > 0 ? q : 0);
    } else {
        out->nuc = NAN;
    }
    return SENSIM_OK;
}

sensim_status sensim_roi_information_gain(const sensim_roi_desc *d, const uint32_t *cells, const float *prior,
                                         double *out_bits, double *out_fraction)
{
    uint32_t nx, ny;
    sensim_status st = sensim_roi_grid_size(d, &nx, &ny);
    if (st != SENSIM_OK)
        return st;
    if (!cells || !out_bits)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_roi_information_gain: NULL argument");
    double gain = 0, total = 0;
    for (size_t c = 0; c < (size_t)nx * ny; c++) {
        double p = prior ? prior[c] : 0.5;
        if (!(p >= 0 && p <= 1))
            return sensim__fail(prior && isnan(prior[c]) ? SENSIM_ERR_NOT_FINITE : SENSIM_ERR_OUT_OF_RANGE,
                                "sensim_roi_information_gain: prior of cell %zu (x %zu, y %zu) is %g, not in [0, 1]",
                                c, c % nx, c / nx, p);
        double h = p <= 0 || p >= 1 ? 0 : -p * log2(p) - (1 - p) * log2(1 - p);
        total += h;
        if (cells[c] >= d->min_points)
            gain += h;
    }
    *out_bits = gain;
    if (out_fraction)
        *out_fraction = total > 0 ? gain / total : 0;
    return SENSIM_OK;
}

static sensim_status check_boxes(const double *boxes, uint32_t nb, const char *fn)
{
    if (nb && !boxes)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: NULL boxes", fn);
    for (uint32_t b = 0; b < nb; b++) {
        const double *q = &boxes[6 * b];
        for (int k = 0; k < 6; k++)
            if (!isfinite(q[k]) || fabs(q[k]) > 1e9)
                return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s: box %u: coordinate %d is %g", fn, b, k, q[k]);
        if (!(q[3] >= q[0] && q[4] >= q[1] && q[5] >= q[2]))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: box %u: max below min", fn, b);
    }
    return SENSIM_OK;
}

sensim_status sensim_boxes_count(const double *boxes, uint32_t nb, const sensim_point *pts, uint64_t n,
                                 uint32_t *counts)
{
    sensim_status st = check_boxes(boxes, nb, "sensim_boxes_count");
    if (st != SENSIM_OK)
        return st;
    if ((n && !pts) || (nb && !counts))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_boxes_count: NULL argument");
    for (uint64_t k = 0; k < n; k++)
        for (uint32_t b = 0; b < nb; b++) {
            const double *q = &boxes[6 * b], m = BOX_MARGIN_M;
            double x = pts[k].x, y = pts[k].y, z = pts[k].z;
            if (x >= q[0] - m && x <= q[3] + m && y >= q[1] - m && y <= q[4] + m && z >= q[2] - m && z <= q[5] + m &&
                counts[b] < UINT32_MAX)
                counts[b]++;
        }
    return SENSIM_OK;
}

/* Beams waiting to be traced for what blocks them. */
typedef struct blocker_batch {
    float *org, *dir, *tfar;
    int64_t *time;
    uint32_t *box;
    uint32_t n;
} blocker_batch;

enum { BLOCK_BATCH = 4096 };

static sensim_status flush_blockers(blocker_batch *q, const sensim_scene *scene, const uint32_t *ids,
                                    uint32_t *bs, uint32_t *bo, sensim_ray_hit *hits)
{
    if (!q->n)
        return SENSIM_OK;
    sensim_ray_batch b;
    memset(&b, 0, sizeof b);
    b.count = q->n, b.origins = q->org, b.directions = q->dir, b.tfar = q->tfar, b.time_ns = q->time;
    sensim_status st = sensim_scene_intersect(scene, &b, hits);
    for (uint32_t k = 0; st == SENSIM_OK && k < q->n; k++) {
        const sensim_ray_hit *h = &hits[k];
        const uint32_t box = q->box[k];
        if (!h->hit)
            continue;
        if (h->object_id == 0) {
            if (bs && bs[box] < UINT32_MAX)
                bs[box]++;
        } else if ((!ids || h->object_id != ids[box]) && bo && bo[box] < UINT32_MAX) {
            bo[box]++;
        }
    }
    q->n = 0;
    return st;
}

/* Where the ray o + t·d enters box q within [t0, t1] (slabs); false if it misses. */
static bool ray_box_entry(const double o[3], const double dir[3], double t0, double t1, const double *q, double *tin)
{
    for (int a = 0; a < 3; a++) {
        if (dir[a] == 0) {
            if (o[a] < q[a] || o[a] > q[3 + a])
                return false;
            continue;
        }
        double inv = 1.0 / dir[a], ta = (q[a] - o[a]) * inv, tb = (q[3 + a] - o[a]) * inv;
        if (ta > tb) {
            double s = ta;
            ta = tb, tb = s;
        }
        t0 = ta > t0 ? ta : t0;
        t1 = tb < t1 ? tb : t1;
        if (t0 > t1)
            return false;
    }
    *tin = t0;
    return true;
}

sensim_status sensim_lidar_box_shots(sensim_lidar *l, int64_t tb, int64_t te, const double platform[16],
                                     const double *boxes, uint32_t nb, uint32_t *counts, const sensim_scene *scene,
                                     const uint32_t *ids, uint32_t *bs, uint32_t *bo)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    sensim_status st = check_boxes(boxes, nb, "sensim_lidar_box_shots");
    if (st == SENSIM_OK && (!platform || (nb && !counts)))
        st = sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_box_shots: NULL argument");
    if (st == SENSIM_OK && scene)
        SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (st == SENSIM_OK)
        st = sensim__check_pose(platform, "sensim_lidar_box_shots: platform pose");
    if (st == SENSIM_OK)
        st = sensim__lidar_check_time(l, tb, "t_begin_ns");
    if (st == SENSIM_OK)
        st = sensim__lidar_check_time(l, te, "t_end_ns");
    if (st == SENSIM_OK && te < tb)
        st = sensim__fail(SENSIM_ERR_TIME_ORDER, "sensim_lidar_box_shots: t_end_ns < t_begin_ns");
    if (st != SENSIM_OK || (st = sensim__lidar_acquire(l)) != SENSIM_OK)
        return st;
    enum { B = 4096 };
    int64_t *when = malloc(B * sizeof *when);
    uint16_t *ch = malloc(B * sizeof *ch);
    float *dirs = malloc(3 * B * sizeof *dirs);
    uint8_t *ok = malloc(B);
    blocker_batch q = {0};
    sensim_ray_hit *hits = NULL;
    if (scene) {
        q.org = malloc(3 * BLOCK_BATCH * sizeof *q.org), q.dir = malloc(3 * BLOCK_BATCH * sizeof *q.dir);
        q.tfar = malloc(BLOCK_BATCH * sizeof *q.tfar), q.time = malloc(BLOCK_BATCH * sizeof *q.time);
        q.box = malloc(BLOCK_BATCH * sizeof *q.box), hits = malloc(BLOCK_BATCH * sizeof *hits);
    }
    if (!when || !ch || !dirs || !ok || (scene && (!q.org || !q.dir || !q.tfar || !q.time || !q.box || !hits))) {
        st = sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_lidar_box_shots: scratch");
    } else {
        double S[16];
        sensim__mat4_mul(platform, l->mount, S);
        const double o[3] = {S[12], S[13], S[14]}, rmin = l->rp.min_range_m, rmax = l->rp.max_range_m;
        const int64_t g0 = sensim__pattern_first_at(&l->pat, tb), g1 = sensim__pattern_first_at(&l->pat, te);
        for (int64_t g = g0; st == SENSIM_OK && g < g1; g += B) {
            uint32_t m = (uint32_t)(g1 - g < B ? g1 - g : B);
            sensim__lidar_pattern_batch(l, g, m, when, ch, dirs, ok);
            for (uint32_t k = 0; st == SENSIM_OK && k < m; k++) {
                if (!ok[k])
                    continue;
                const float *d = &dirs[3 * k];
                double w[3], tin;
                for (int r = 0; r < 3; r++)
                    w[r] = S[r] * d[0] + S[4 + r] * d[1] + S[8 + r] * d[2];
                for (uint32_t b = 0; st == SENSIM_OK && b < nb; b++) {
                    if (!ray_box_entry(o, w, rmin, rmax, &boxes[6 * b], &tin))
                        continue;
                    if (counts[b] < UINT32_MAX)
                        counts[b]++;
                    if (!scene || tin <= 0.011)
                        continue;
                    for (int r = 0; r < 3; r++)
                        q.org[3 * q.n + r] = (float)o[r], q.dir[3 * q.n + r] = (float)w[r];
                    q.tfar[q.n] = (float)(tin - 0.01);
                    q.time[q.n] = when[k];
                    q.box[q.n++] = b;
                    if (q.n == BLOCK_BATCH)
                        st = flush_blockers(&q, scene, ids, bs, bo, hits);
                }
            }
        }
        if (st == SENSIM_OK && scene)
            st = flush_blockers(&q, scene, ids, bs, bo, hits);
    }
    free(when), free(ch), free(dirs), free(ok);
    free(q.org), free(q.dir), free(q.tfar), free(q.time), free(q.box), free(hits);
    sensim__lidar_release(l);
    return st;
}
