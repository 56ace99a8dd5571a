/* Camera render speed against the bare Embree loop over the same rays, in
 * the same run (the figure of merit of DESIGN.md "Speed"): pinhole_720p on
 * the procedural street, depth + semantic, then shaded colour.
 * usage: bench_camera [reps]   prints ns per pixel and the ratio (median of reps). */
#include <sensim/sensim.h>

#include "street.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"

#define CHECK(e)                                                                                  \
    do {                                                                                          \
        if ((e) != SENSIM_OK) {                                                                   \
            fprintf(stderr, "bench_camera: %s: %s\n", #e, sensim_context_last_error(NULL));      \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 7;
    if (reps < 1 || reps > 1000)
        reps = 7;
    sensim_context *ctx;
    sensim_scene *scene;
    CHECK(sensim_context_create(NULL, &ctx));
    CHECK(sensim_scene_create(ctx, &scene));
    street_info si;
    CHECK(street_scene_build(scene, 400.0f, 4, &si));
    CHECK(sensim_scene_commit(scene));
    sensim_camera_desc d;
    CHECK(sensim_camera_desc_preset("pinhole_720p", &d));
    sensim_camera *cam;
    CHECK(sensim_camera_create(ctx, &d, &cam));
    size_t px = (size_t)d.width * d.height;
    float *depth = malloc(px * sizeof *depth);
    uint8_t *sem = malloc(px), *rgb = malloc(3 * px);
    if (!depth || !sem || !rgb)
        return 1;
    sensim_pose_key key = {0};
    for (int i = 0; i < 16; i++)
        key.pose[i] = i % 5 == 0;
    key.pose[14] = 1.6;
    sensim_motion m = {.keys = &key, .key_count = 1};
    sensim_camera_images ds = {.depth = depth, .semantic = sem}, col = {.rgb = rgb};
    double *tb = malloc(reps * sizeof *tb), *tr = malloc(reps * sizeof *tr), *tc = malloc(reps * sizeof *tc);
    uint64_t rays = 0, hits = 0;
    for (int w = 0; w < 2; w++) { /* warm-up */
        double s;
        CHECK(sensim_bench_camera_trace(cam, scene, key.pose, &s, &rays, &hits));
        CHECK(sensim_camera_render(cam, scene, &m, 0, &ds, NULL));
    }
    for (int r = 0; r < reps; r++) { /* interleaved, so both see the same machine */
        CHECK(sensim_bench_camera_trace(cam, scene, key.pose, &tb[r], &rays, &hits));
        double t0 = now_s();
        CHECK(sensim_camera_render(cam, scene, &m, 0, &ds, NULL));
        tr[r] = now_s() - t0;
        t0 = now_s();
        CHECK(sensim_camera_render(cam, scene, &m, 0, &col, NULL));
        tc[r] = now_s() - t0;
    }
    qsort(tb, reps, sizeof *tb, cmp);
    qsort(tr, reps, sizeof *tr, cmp);
    qsort(tc, reps, sizeof *tc, cmp);
    double b = tb[reps / 2], r = tr[reps / 2], c = tc[reps / 2];
    printf("camera pinhole_720p on the street (%llu triangles), %u threads, median of %d:\n",
           (unsigned long long)si.static_triangles, sensim_context_thread_count(ctx), reps);
    printf("  bare rtcIntersect16 over 4x4 tiles: %.2f ms (%.1f ns/pixel, %llu of %zu rays hit)\n", b * 1e3,
           b * 1e9 / px, (unsigned long long)hits, px);
    printf("  depth + semantic render:            %.2f ms (%.1f ns/pixel)  ratio_vs_embree_tiled %.2f\n", r * 1e3,
           r * 1e9 / px, b / r);
    printf("  shaded colour (sun, shadow rays):   %.2f ms (%.1f ns/pixel)\n", c * 1e3, c * 1e9 / px);
    free(depth), free(sem), free(rgb), free(tb), free(tr), free(tc);
    sensim_camera_destroy(cam);
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    return 0;
}
