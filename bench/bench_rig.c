/* A 1 kHz co-simulation against whole-frame stepping (issue 33): one rig
 * with a pandar64 (10 Hz), an 800x600 RGB camera at 20 Hz and an IMU at
 * 100 Hz on the procedural street, the platform driving at 10 m/s. The
 * host pushes a pose every millisecond; "1 kHz" steps the rig after each
 * push, "frames" pushes the same poses and steps once per lidar frame
 * (100 ms). Both consume every frame of every ring as it is published. The
 * two runs alternate (A B, B A, ...) and their outputs are compared byte
 * for byte (the rig's promise: any split of time gives the same bytes).
 * usage: bench_rig [pairs] [seconds]   prints the median time of each and
 * the ratio 1 kHz / frames (target <= 1.2). */
#include <sensim/sensim.h>

#include "street.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define CHECK(e)                                                                                  \
    do {                                                                                          \
        sensim_status st_ = (e);                                                                  \
        if (st_ != SENSIM_OK) {                                                                   \
            fprintf(stderr, "bench_rig: %s: %s\n", #e, sensim_context_last_error(NULL));         \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

/* FNV-1a over the bytes every ring handed out, and their count */
typedef struct digest {
    uint64_t h[3], bytes;
} digest;

static void eat(digest *d, int which, const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = d->h[which];
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    d->h[which] = h;
    d->bytes += n;
}

static void drain(sensim_ring *lr, sensim_ring *cr, sensim_ring *nr, digest *d)
{
    sensim_frame_view v;
    while (sensim_ring_peek(lr, &v) == SENSIM_OK) {
        for (int k = 0; k < 2; k++)
            eat(d, 0, v.points[k], v.counts[k] * sizeof(sensim_point));
        sensim_ring_release(lr);
    }
    sensim_image_view iv;
    while (sensim_ring_peek_image(cr, &iv) == SENSIM_OK) {
        eat(d, 1, iv.rgb, (size_t)iv.width * iv.height * 3);
        sensim_ring_release(cr);
    }
    while (sensim_ring_peek(nr, &v) == SENSIM_OK) {
        for (int k = 0; k < 2; k++)
            eat(d, 2, v.points[k], v.counts[k] * sizeof(sensim_point));
        sensim_ring_release(nr);
    }
}

static void pose_at(int64_t t_ns, double P[16])
{
    const double t = (double)t_ns * 1e-9, yaw = 0.05 * sin(t);
    memset(P, 0, 16 * sizeof *P);
    P[0] = cos(yaw), P[1] = sin(yaw), P[4] = -sin(yaw), P[5] = cos(yaw), P[10] = 1, P[15] = 1;
    P[12] = -40.0 + 10.0 * t, P[13] = 0.5, P[14] = 1.8;
}

/* One run of @p seconds: a pose every ms, a step every @p step_ms. */
static double run(sensim_context *ctx, const sensim_scene *scene, int64_t seconds, int64_t step_ms, digest *d)
{
    sensim_lidar *lidar;
    CHECK(sensim_lidar_create_from_preset(ctx, "pandar64", NULL, 0, &lidar));
    uint64_t cap;
    size_t size;
    CHECK(sensim_lidar_ring_size(lidar, 4, &cap, &size));
    void *lmem = malloc(size);
    sensim_ring *lr;
    CHECK(sensim_ring_init(lmem, size, cap, 4, SENSIM_OVERFLOW_FAIL, &lr));
    sensim_camera_desc cd;
    sensim_camera_desc_init(&cd);
    cd.width = 800, cd.height = 600;
    sensim_camera *cam;
    CHECK(sensim_camera_create(ctx, &cd, &cam));
    const double mount[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0.2, 1};
    CHECK(sensim_camera_set_mount_pose(cam, mount));
    CHECK(sensim_image_ring_required_size(800, 600, SENSIM_CAMERA_RGB, 4, &size));
    void *cmem = malloc(size);
    sensim_ring *cr;
    CHECK(sensim_image_ring_init(cmem, size, 800, 600, SENSIM_CAMERA_RGB, 4, SENSIM_OVERFLOW_FAIL, &cr));
    sensim_nav_desc nd;
    sensim_nav_desc_init(&nd, SENSIM_NAV_IMU);
    nd.rate_hz = 100;
    sensim_nav *imu;
    CHECK(sensim_nav_create(ctx, &nd, &imu));
    CHECK(sensim_nav_ring_required_size(64, &size));
    void *nmem = malloc(size);
    sensim_ring *nr;
    CHECK(sensim_nav_ring_init(nmem, size, 64, SENSIM_OVERFLOW_FAIL, &nr));
    sensim_rig *rig;
    CHECK(sensim_rig_create(ctx, &rig));
    CHECK(sensim_rig_add_lidar(rig, lidar, lr, NULL));
    CHECK(sensim_rig_add_camera(rig, cam, 20.0, 1, cr, NULL));
    CHECK(sensim_rig_add_nav(rig, imu, nr, NULL));
    double P[16], t0 = now_s();
    pose_at(0, P);
    CHECK(sensim_rig_push_pose(rig, 0, P));
    const int64_t ms = 1000000;
    for (int64_t k = 1; k <= seconds * 1000; k++) {
        pose_at(k * ms, P);
        CHECK(sensim_rig_push_pose(rig, k * ms, P));
        if (k % step_ms == 0) {
            CHECK(sensim_rig_step(rig, scene, step_ms * ms, NULL, NULL));
            drain(lr, cr, nr, d);
        }
    }
    double secs = now_s() - t0;
    sensim_rig_destroy(rig);
    sensim_nav_destroy(imu);
    sensim_camera_destroy(cam);
    sensim_lidar_destroy(lidar);
    free(lmem), free(cmem), free(nmem);
    return secs;
}

int main(int argc, char **argv)
{
    int pairs = argc > 1 ? atoi(argv[1]) : 5;
    int64_t seconds = argc > 2 ? atoi(argv[2]) : 2;
    if (pairs < 1 || pairs > 100)
        pairs = 5;
    if (seconds < 1 || seconds > 60)
        seconds = 2;
    sensim_context *ctx;
    sensim_scene *scene;
    CHECK(sensim_context_create(NULL, &ctx));
    CHECK(sensim_scene_create(ctx, &scene));
    street_info si;
    CHECK(street_scene_build(scene, 200.0f, 12, &si));
    CHECK(sensim_scene_commit(scene));
    double a[100], b[100];
    digest da0 = {0}, db0 = {0};
    for (int i = 0; i < pairs; i++) {
        const uint64_t fnv = UINT64_C(0xcbf29ce484222325);
        digest da = {{fnv, fnv, fnv}, 0}, db = da;
        if (i % 2 == 0) {
            a[i] = run(ctx, scene, seconds, 1, &da);
            b[i] = run(ctx, scene, seconds, 100, &db);
        } else {
            b[i] = run(ctx, scene, seconds, 100, &db);
            a[i] = run(ctx, scene, seconds, 1, &da);
        }
        static const char *const names[3] = {"lidar", "camera", "IMU"};
        for (int k = 0; k < 3; k++)
            if (da.h[k] != db.h[k] || (i && (da.h[k] != da0.h[k] || db.h[k] != db0.h[k]))) {
                fprintf(stderr, "bench_rig: the %s wrote different bytes (1 kHz / frames, pair %d)\n", names[k], i);
                return 1;
            }
        if (da.bytes != db.bytes) {
            fprintf(stderr, "bench_rig: the runs wrote %llu and %llu bytes\n", (unsigned long long)da.bytes,
                    (unsigned long long)db.bytes);
            return 1;
        }
        da0 = da, db0 = db;
    }
    double r[100];
    for (int i = 0; i < pairs; i++)
        r[i] = a[i] / b[i];
    qsort(a, (size_t)pairs, sizeof *a, cmp);
    qsort(b, (size_t)pairs, sizeof *b, cmp);
    qsort(r, (size_t)pairs, sizeof *r, cmp);
    printf("rig on the street (%u threads): pandar64 10 Hz + 800x600 RGB camera 20 Hz + IMU 100 Hz, %lld s of "
           "world, %d alternated pairs, outputs identical (%llu bytes)\n",
           sensim_context_thread_count(ctx), (long long)seconds, pairs, (unsigned long long)da0.bytes);
    printf("  1 kHz steps:  %.3f s (median)\n  100 ms steps: %.3f s (median)\n  ratio 1 kHz / frames: %.3f "
           "(median of the pairs' ratios; target <= 1.2)\n",
           a[pairs / 2], b[pairs / 2], r[pairs / 2]);
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    return 0;
}
