/* The built-in proximity sensor, rewritten as a sensor of your own
 * (sensim_rig_add_sensor): at each sample the callback reports the actors
 * whose oriented boxes overlap the car's box grown by the margins. Both run
 * in one rig over a drive with traffic moved between world steps (as a
 * CARLA-style host does: set poses, commit, step); the program exits
 * non-zero unless the two rings hold byte-identical frames.
 *
 *   ./proximity_user        prints the reports of both sensors per frame
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sensim/sensim.h>

#define N_ACTORS 3

static void die(sensim_status st, const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", what, sensim_status_string(st), sensim_context_last_error(NULL));
    exit(1);
}
#define CK(e)                                                                                      \
    do {                                                                                           \
        sensim_status st_ = (e);                                                                   \
        if (st_ != SENSIM_OK)                                                                      \
            die(st_, #e);                                                                          \
    } while (0)

/* What the host knows of its world: actor ids, poses, mesh boxes and tags. */
typedef struct world {
    uint32_t id[N_ACTORS];
    double pose[N_ACTORS][16];
    double lo[3], hi[3]; /* the car mesh's box, its frame */
    uint8_t tag;
    uint32_t self_id;
    double center[3], half[3], front, back, side;
} world;

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
static int overlap(const obb *a, const obb *b)
{
    double R[3][3], AR[3][3], t[3], d[3] = {b->c[0] - a->c[0], b->c[1] - a->c[1], b->c[2] - a->c[2]};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            R[i][j] = dot3(a->ax[i], b->ax[j]);
            AR[i][j] = fabs(R[i][j]) + 1e-9;
        }
        t[i] = dot3(d, a->ax[i]);
    }
    for (int i = 0; i < 3; i++)
        if (fabs(t[i]) > a->h[i] + b->h[0] * AR[i][0] + b->h[1] * AR[i][1] + b->h[2] * AR[i][2])
            return 0;
    for (int j = 0; j < 3; j++)
        if (fabs(t[0] * R[0][j] + t[1] * R[1][j] + t[2] * R[2][j]) >
            b->h[j] + a->h[0] * AR[0][j] + a->h[1] * AR[1][j] + a->h[2] * AR[2][j])
            return 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            double ra = a->h[i1] * AR[i2][j] + a->h[i2] * AR[i1][j];
            double rb = b->h[j1] * AR[i][j2] + b->h[j2] * AR[i][j1];
            if (fabs(t[i2] * R[i1][j] - t[i1] * R[i2][j]) > ra + rb)
                return 0;
        }
    return 1;
}

/* The callback: one report per overlapping actor, as the built-in sensor writes them. */
static sensim_status proximity(void *user, const sensim_sensor_sample *s)
{
    const world *w = user;
    const double *P = s->platform_pose;
    double c[3] = {w->center[0] + 0.5 * (w->front - w->back), w->center[1], w->center[2]};
    double h[3] = {w->half[0] + 0.5 * (w->front + w->back), w->half[1] + w->side, w->half[2]};
    obb parent = box_from(P, c, h);
    double Pinv[16] = {0}; /* rigid inverse: R^T, -R^T t */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Pinv[j * 4 + i] = P[i * 4 + j];
    for (int i = 0; i < 3; i++)
        Pinv[12 + i] = -(Pinv[i] * P[12] + Pinv[4 + i] * P[13] + Pinv[8 + i] * P[14]);
    Pinv[15] = 1;
    for (int a = 0; a < N_ACTORS; a++) {
        if (w->id[a] == w->self_id)
            continue;
        double lc[3], lh[3];
        for (int j = 0; j < 3; j++) {
            lc[j] = 0.5 * (w->lo[j] + w->hi[j]);
            lh[j] = 0.5 * (w->hi[j] - w->lo[j]) + 1e-9;
        }
        obb box = box_from(w->pose[a], lc, lh);
        if (!overlap(&parent, &box))
            continue;
        sensim_point pt;
        memset(&pt, 0, sizeof pt);
        double x = Pinv[0] * box.c[0] + Pinv[4] * box.c[1] + Pinv[8] * box.c[2] + Pinv[12];
        double y = Pinv[1] * box.c[0] + Pinv[5] * box.c[1] + Pinv[9] * box.c[2] + Pinv[13];
        double z = Pinv[2] * box.c[0] + Pinv[6] * box.c[1] + Pinv[10] * box.c[2] + Pinv[14];
        pt.x = (float)x, pt.y = (float)y, pt.z = (float)z;
        pt.range_m = (float)sqrt((x - c[0]) * (x - c[0]) + (y - c[1]) * (y - c[1]) + (z - c[2]) * (z - c[2]));
        pt.object_id = w->id[a];
        pt.tag = w->tag;
        sensim_status st = sensim_sensor_output_push(s->output, &pt, 1);
        if (st != SENSIM_OK)
            return st;
    }
    return SENSIM_OK;
}

static void translate(double m[16], double x, double y, double z)
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = m[5] = m[10] = m[15] = 1;
    m[12] = x, m[13] = y, m[14] = z;
}

int main(void)
{
    sensim_context *ctx;
    sensim_scene *scene;
    CK(sensim_context_create(NULL, &ctx));
    CK(sensim_scene_create(ctx, &scene));
    world w = {.id = {11, 12, 13}, .lo = {-2.2, -0.9, 0}, .hi = {2.2, 0.9, 1.5}, .tag = 14, .self_id = 0,
               .center = {0, 0, 0.75}, .half = {2.3, 1.0, 0.8}, .front = 4.0, .back = 1.0, .side = 0.5};
    const float v[24] = {-2.2f, -0.9f, 0, 2.2f, -0.9f, 0, -2.2f, 0.9f, 0, 2.2f, 0.9f, 0,
                         -2.2f, -0.9f, 1.5f, 2.2f, -0.9f, 1.5f, -2.2f, 0.9f, 1.5f, 2.2f, 0.9f, 1.5f};
    const uint32_t idx[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                              2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = v, md.vertex_count = 8, md.indices = idx, md.triangle_count = 12, md.tag = w.tag;
    md.flags = SENSIM_MESH_PROTOTYPE;
    uint32_t mesh;
    CK(sensim_scene_add_mesh(scene, &md, &mesh));
    for (int a = 0; a < N_ACTORS; a++) {
        translate(w.pose[a], 12.0 + 7 * a, a == 1 ? 3.2 : 0.0, 0);
        CK(sensim_scene_add_actor(scene, mesh, w.id[a], w.pose[a]));
    }
    CK(sensim_scene_commit(scene));

    size_t sz;
    CK(sensim_ring_required_size(4096, 256, &sz));
    void *m1 = malloc(sz), *m2 = malloc(sz);
    sensim_ring *r1, *r2;
    CK(sensim_ring_init(m1, sz, 4096, 256, SENSIM_OVERFLOW_FAIL, &r1));
    CK(sensim_ring_init(m2, sz, 4096, 256, SENSIM_OVERFLOW_FAIL, &r2));
    sensim_rig *rig;
    CK(sensim_rig_create(ctx, &rig));
    sensim_proximity_desc pd;
    sensim_proximity_desc_init(&pd);
    pd.sensor_id = 7, pd.rate_hz = 20;
    memcpy(pd.box_center, w.center, sizeof w.center);
    memcpy(pd.box_half_extents, w.half, sizeof w.half);
    pd.front_m = w.front, pd.back_m = w.back, pd.side_m = w.side;
    CK(sensim_rig_add_proximity(rig, &pd, r1, NULL));
    sensim_sensor_desc ud;
    sensim_sensor_desc_init(&ud);
    ud.sensor_id = 7, ud.rate_hz = 20, ud.sample = proximity, ud.user = &w;
    CK(sensim_rig_add_sensor(rig, &ud, r2, NULL));

    /* the car drives +x at 8 m/s with a slight yaw; traffic moves between steps of 100 ms */
    for (int step = 0; step < 30; step++) {
        int64_t t0 = step * 100000000LL, t1 = t0 + 100000000LL;
        sensim_pose_key keys[2];
        for (int k = 0; k < 2; k++) {
            double t = (k ? t1 : t0) * 1e-9, yaw = 0.05 * sin(t);
            translate(keys[k].pose, 8 * t, 0.3 * sin(t), 0);
            keys[k].pose[0] = keys[k].pose[5] = cos(yaw);
            keys[k].pose[1] = sin(yaw), keys[k].pose[4] = -sin(yaw);
            keys[k].t_ns = k ? t1 : t0;
        }
        sensim_motion mo = {.keys = keys, .key_count = 2};
        sensim_rig_step_result res;
        CK(sensim_rig_step(rig, scene, t1 - t0, &mo, &res));
        if (res.sensors_refused) { /* a refused sensor is lost data: never ignored */
            fprintf(stderr, "proximity_user: %u sensors refused the step (ring full)\n", res.sensors_refused);
            return 1;
        }
        for (int a = 0; a < N_ACTORS; a++) { /* traffic for the next step */
            w.pose[a][12] += 0.35 + 0.1 * a;
            CK(sensim_scene_set_actor_pose(scene, w.id[a], w.pose[a]));
        }
        CK(sensim_scene_commit(scene));
    }
    int bad = 0, frames = 0, reports = 0;
    static sensim_point pa[4096], pb[4096];
    for (;;) {
        sensim_frame_header ha, hb;
        uint64_t na = 0, nb = 0;
        sensim_status sa = sensim_ring_pop(r1, &ha, pa, 4096, &na), sb = sensim_ring_pop(r2, &hb, pb, 4096, &nb);
        if (sa == SENSIM_ERR_RING_EMPTY && sb == SENSIM_ERR_RING_EMPTY)
            break;
        if (sa != SENSIM_OK || sb != SENSIM_OK) {
            fprintf(stderr, "proximity_user: the rings hold different frame counts\n");
            return 1;
        }
        int same = na == nb && !memcmp(&ha, &hb, sizeof ha) && !memcmp(pa, pb, na * sizeof *pa);
        printf("frame %llu t=%lld ns: built-in %llu reports, user sensor %llu%s\n", (unsigned long long)ha.frame_number,
               (long long)ha.t_begin_ns, (unsigned long long)na, (unsigned long long)nb, same ? "" : "  DIFFERENT");
        bad |= !same;
        frames++, reports += (int)na;
    }
    printf("%d frames, %d reports: %s\n", frames, reports, bad ? "DIFFERENT" : "byte-identical");
    sensim_rig_destroy(rig);
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    free(m1), free(m2);
    return bad || frames != 60 || reports == 0;
}
