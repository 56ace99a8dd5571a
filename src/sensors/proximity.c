/* A rig's proximity sensor (sensim_rig_add_proximity): the scene's moving actors whose boxes overlap the
 * platform's box, one point each. */
#include "proximity.h"

#include "ring_impl.h"
#include "scene_impl.h"

#include <math.h>
#include <string.h>

/* Oriented box: centre, unit axes (columns), half sizes. */
typedef struct obb {
    double c[3], ax[3][3], h[3];
} obb;

static obb box_from(const double P[16], const double center[3], const double half[3])
{
    obb b;
    for (int i = 0; i < 3; i++)
        b.c[i] = P[i] * center[0] + P[4 + i] * center[1] + P[8 + i] * center[2] + P[12 + i];
    for (int k = 0; k < 3; k++) {
        double n = sqrt(P[4 * k] * P[4 * k] + P[4 * k + 1] * P[4 * k + 1] + P[4 * k + 2] * P[4 * k + 2]);
        for (int i = 0; i < 3; i++)
            b.ax[k][i] = P[4 * k + i] / n;
        b.h[k] = half[k] * n;
    }
    return b;
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Separating-axis test of two oriented boxes (15 axes). */
static bool obb_overlap(const obb *a, const obb *b)
{
    double R[3][3], AR[3][3], t[3], d[3] = {b->c[0] - a->c[0], b->c[1] - a->c[1], b->c[2] - a->c[2]};
    const double eps = 1e-9;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            R[i][j] = dot3(a->ax[i], b->ax[j]);
            AR[i][j] = fabs(R[i][j]) + eps;
        }
        t[i] = dot3(d, a->ax[i]);
    }
    for (int i = 0; i < 3; i++)
        if (fabs(t[i]) > a->h[i] + b->h[0] * AR[i][0] + b->h[1] * AR[i][1] + b->h[2] * AR[i][2])
            return false;
    for (int j = 0; j < 3; j++)
        if (fabs(t[0] * R[0][j] + t[1] * R[1][j] + t[2] * R[2][j]) >
            b->h[j] + a->h[0] * AR[0][j] + a->h[1] * AR[1][j] + a->h[2] * AR[2][j])
            return false;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            double ra = a->h[i1] * AR[i2][j] + a->h[i2] * AR[i1][j];
            double rb = b->h[j1] * AR[i][j2] + b->h[j2] * AR[i][j1];
            if (fabs(t[i2] * R[i1][j] - t[i1] * R[i2][j]) > ra + rb)
                return false;
        }
    return true;
}

/* One proximity frame [k·P, (k+1)·P) evaluated at its start. */
void sensim__proximity_frame(const sensim_scene *scene, const sensim_proximity_desc *d, sensim_ring *ring,
                             int64_t period_ns, const sensim_path *path, int64_t k, uint64_t step)
{
    int64_t t = k * period_ns;
    double P[16];
    sensim__path_pose(path, t, P);
    double c[3] = {d->box_center[0] + 0.5 * (d->front_m - d->back_m), d->box_center[1], d->box_center[2]};
    double h[3] = {d->box_half_extents[0] + 0.5 * (d->front_m + d->back_m), d->box_half_extents[1] + d->side_m,
                   d->box_half_extents[2]};
    obb parent = box_from(P, c, h);
    double Pinv[16];
    sensim__mat4_rigid_inverse(P, Pinv);
    float u = sensim__scene_ray_time(scene, t);
    sensim__ring_open_frame(ring, (uint64_t)k, t, t + period_ns, P, d->sensor_id, step);
    sensim__ring_add_scanned(ring, period_ns, step);
    for (uint32_t i = 0; i < scene->actor_count; i++) {
        const sensim_actor *a = &scene->actors[i];
        if (a->id == 0)
            continue; /* a static instance: part of the world, not a nearby object */
        if (a->id == d->exclude_actor_id)
            continue;
        const sensim_mesh *m = &scene->meshes[a->mesh];
        double A[16], lc[3], lh[3];
        sensim__actor_pose_at(a, u, A);
        for (int j = 0; j < 3; j++) {
            lc[j] = 0.5 * ((double)m->lo[j] + m->hi[j]);
            lh[j] = 0.5 * ((double)m->hi[j] - m->lo[j]) + 1e-9;
        }
        obb box = box_from(A, lc, lh);
        if (!obb_overlap(&parent, &box))
            continue;
        sensim_point pt;
        memset(&pt, 0, sizeof pt);
        double x = Pinv[0] * box.c[0] + Pinv[4] * box.c[1] + Pinv[8] * box.c[2] + Pinv[12];
        double y = Pinv[1] * box.c[0] + Pinv[5] * box.c[1] + Pinv[9] * box.c[2] + Pinv[13];
        double z = Pinv[2] * box.c[0] + Pinv[6] * box.c[1] + Pinv[10] * box.c[2] + Pinv[14];
        pt.x = (float)x, pt.y = (float)y, pt.z = (float)z;
        pt.range_m = (float)sqrt((x - c[0]) * (x - c[0]) + (y - c[1]) * (y - c[1]) + (z - c[2]) * (z - c[2]));
        pt.object_id = a->id;
        pt.tag = m->tags[0];
        sensim__ring_push(ring, &pt);
    }
    sensim__ring_close_frame(ring);
}
