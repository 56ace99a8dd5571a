/* Pipeline throughput on the procedural street: shots/s, points/s and the
 * real-time factor per preset. Median of 5 runs, min-max shown.
 * usage: bench_scan [detail] [preset...]   (detail multiplies triangles)
 * The comparison against a bare Embree loop over the same rays is issue #8. */
#include <sensim/sensim.h>

#include "street.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

int main(int argc, char **argv)
{
    uint32_t detail = argc > 1 ? (uint32_t)atoi(argv[1]) : 4;
    const char *defaults[] = {"vlp16", "pandar64", "pandar128"};
    const char **presets = argc > 2 ? (const char **)argv + 2 : defaults;
    int npresets = argc > 2 ? argc - 2 : 3;
    sensim_context *ctx;
    sensim_scene *scene;
    if (sensim_context_create(NULL, &ctx) || sensim_scene_create(ctx, &scene))
        return 1;
    street_info si;
    double t0 = now_s();
    if (street_scene_build(scene, 400.0f, detail, &si) || sensim_scene_commit(scene)) {
        fprintf(stderr, "bench: %s\n", sensim_context_last_error(ctx));
        return 1;
    }
    printf("street scene: %u static triangles, %u cars, built in %.3f s, %u threads\n", si.static_triangles,
           si.car_count, now_s() - t0, sensim_context_thread_count(ctx));
    printf("%-10s %12s %12s %10s %22s\n", "preset", "shots/s", "points/s", "x realtime", "frame ms (min-max)");
    for (int i = 0; i < npresets; i++) {
        sensim_lidar *l;
        if (sensim_lidar_create_from_preset(ctx, presets[i], NULL, 0, &l)) {
            fprintf(stderr, "bench: %s\n", sensim_context_last_error(ctx));
            return 1;
        }
        sensim_lidar_info li;
        sensim_lidar_get_info(l, &li);
        size_t size;
        sensim_ring_required_size(li.shots_per_frame, 2, &size);
        void *mem = malloc(size);
        sensim_ring *ring;
        sensim_ring_init(mem, size, li.shots_per_frame, 2, SENSIM_OVERFLOW_DROP_OLDEST, &ring);
        const double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1.8, 1};
        double times[5];
        uint64_t points = 0;
        for (int rep = 0; rep < 5; rep++) {
            sensim_scan_result res;
            double a = now_s();
            sensim_lidar_scan(l, scene, rep * li.frame_period_ns, (rep + 1) * li.frame_period_ns, pose, ring, &res);
            times[rep] = now_s() - a;
            points = res.points;
            sensim_ring_release(ring);
        }
        double sorted[5];
        memcpy(sorted, times, sizeof sorted);
        qsort(sorted, 5, sizeof sorted[0], cmp);
        double med = sorted[2];
        printf("%-10s %12.0f %12.0f %10.2f %10.2f (%.2f-%.2f)\n", presets[i], (double)li.shots_per_frame / med,
               (double)points / med, (double)li.frame_period_ns * 1e-9 / med, med * 1e3, sorted[0] * 1e3,
               sorted[4] * 1e3);
        free(mem);
        sensim_lidar_destroy(l);
    }
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    return 0;
}
