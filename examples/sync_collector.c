/* Synchronous multi-sensor collector: two lidars at different rates and a
 * proximity sensor on one rig, stepped on a world clock that divides neither
 * period; every sensor frame is written as PLY plus a JSON metadata file
 * (frame number, times, world steps, pose, counts). Exits non-zero if any
 * frame is partial or lost.
 * usage: sync_collector OUT_DIR [seconds] */
#include <sensim/sensim.h>

#include "street.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct sensor {
    const char *name;
    sensim_ring *ring;
    void *mem;
    sensim_point *buf;
    uint64_t cap;
    uint64_t frames;
} sensor;

static int write_frame(const char *dir, sensor *s, const sensim_frame_header *h, uint64_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/frame_%06llu.ply", dir, s->name, (unsigned long long)h->frame_number);
    if (sensim_write_ply(path, h, s->buf, n) != SENSIM_OK)
        return 0;
    snprintf(path, sizeof path, "%s/%s/frame_%06llu.json", dir, s->name, (unsigned long long)h->frame_number);
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fprintf(f, "{\"sensor\": \"%s\", \"frame\": %llu, \"t_begin_ns\": %lld, \"t_end_ns\": %lld, "
               "\"world_step_first\": %llu, \"world_step_last\": %llu, \"points\": %llu, \"lost\": %llu, "
               "\"partial\": %s, \"sensor_pose\": [",
            s->name, (unsigned long long)h->frame_number, (long long)h->t_begin_ns, (long long)h->t_end_ns,
            (unsigned long long)h->world_step_first, (unsigned long long)h->world_step_last,
            (unsigned long long)n, (unsigned long long)h->lost_points,
            (h->flags & SENSIM_FRAME_PARTIAL) ? "true" : "false");
    for (int i = 0; i < 16; i++)
        fprintf(f, "%s%.17g", i ? ", " : "", h->sensor_pose[i]);
    fprintf(f, "]}\n");
    return fclose(f) == 0;
}

static int make_ring(sensor *s, uint64_t points, uint32_t frames)
{
    size_t size;
    if (sensim_ring_required_size(points, frames, &size) || !(s->mem = malloc(size)) ||
        sensim_ring_init(s->mem, size, points, frames, SENSIM_OVERFLOW_DROP_OLDEST, &s->ring))
        return 0;
    s->cap = points;
    s->buf = malloc(points * sizeof *s->buf);
    return s->buf != NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sync_collector OUT_DIR [seconds]\n");
        return 2;
    }
    const char *dir = argv[1];
    double seconds = argc > 2 ? atof(argv[2]) : 1.0;
    sensim_context *ctx;
    sensim_scene *scene;
    sensim_lidar *top, *front;
    if (sensim_context_create(NULL, &ctx) || sensim_scene_create(ctx, &scene))
        return 1;
    street_info si;
    const char *fast[] = {"rotation_hz=20", "lidar_id=2", "mount_xyz_m=2,0,0.6"};
    const char *slow[] = {"lidar_id=1", "mount_xyz_m=0,0,1.8"};
    if (street_scene_build(scene, 200.0f, 1, &si) || sensim_scene_commit(scene) ||
        sensim_lidar_create_from_preset(ctx, "pandar64", slow, 2, &top) ||
        sensim_lidar_create_from_preset(ctx, "vlp16", fast, 3, &front)) {
        fprintf(stderr, "sync_collector: %s\n", sensim_context_last_error(ctx));
        return 1;
    }
    sensor sensors[3] = {{.name = "top_10hz"}, {.name = "front_20hz"}, {.name = "proximity_25hz"}};
    sensim_lidar_info ti, fi;
    sensim_lidar_get_info(top, &ti);
    sensim_lidar_get_info(front, &fi);
    /* two whole frames of every return a frame can hold (max_points_per_frame, not shots_per_frame) */
    if (!make_ring(&sensors[0], 2 * ti.max_points_per_frame, 8) || !make_ring(&sensors[1], 2 * fi.max_points_per_frame, 8) ||
        !make_ring(&sensors[2], 1024, 64))
        return 1;
    mkdir(dir, 0777);
    for (int i = 0; i < 3; i++) {
        char sub[1024];
        snprintf(sub, sizeof sub, "%s/%s", dir, sensors[i].name);
        if (mkdir(sub, 0777) != 0 && errno != EEXIST)
            return 1;
    }
    sensim_rig *rig;
    sensim_proximity_desc pd;
    sensim_proximity_desc_init(&pd);
    pd.sensor_id = 3;
    pd.rate_hz = 25;
    pd.box_half_extents[0] = 2.3, pd.box_half_extents[1] = 1.0, pd.box_half_extents[2] = 0.8;
    pd.box_center[2] = 0.8;
    pd.front_m = 8, pd.back_m = 3, pd.side_m = 2;
    if (sensim_rig_create(ctx, &rig) || sensim_rig_add_lidar(rig, top, sensors[0].ring, NULL) ||
        sensim_rig_add_lidar(rig, front, sensors[1].ring, NULL) ||
        sensim_rig_add_proximity(rig, &pd, sensors[2].ring, NULL)) {
        fprintf(stderr, "sync_collector: %s\n", sensim_context_last_error(ctx));
        return 1;
    }
    /* ego drives down the street at 8 m/s; world steps of 33 ms */
    const int64_t dt = 33000000;
    int64_t steps = (int64_t)(seconds * 1e9 / dt);
    double start[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -60, -1.5, 0, 1};
    const double v[3] = {8, 0, 0}, w[3] = {0, 0, 0};
    int bad = 0;
    for (int64_t k = 0; k < steps; k++) {
        sensim_pose_key keys[2];
        sensim_motion m;
        memset(&m, 0, sizeof m);
        sensim_motion_from_velocity(start, 0, steps * dt, v, w, keys);
        m.keys = keys;
        m.key_count = 2;
        sensim_rig_step_result res;
        if (sensim_rig_step(rig, scene, dt, &m, &res)) {
            fprintf(stderr, "sync_collector: %s\n", sensim_context_last_error(ctx));
            return 1;
        }
        for (int i = 0; i < 3; i++) {
            sensim_frame_header h;
            uint64_t n;
            while (sensim_ring_pop(sensors[i].ring, &h, sensors[i].buf, sensors[i].cap, &n) == SENSIM_OK) {
                if (!write_frame(dir, &sensors[i], &h, n))
                    return 1;
                bad |= (h.flags & SENSIM_FRAME_PARTIAL) || h.lost_points || h.frame_number != sensors[i].frames;
                sensors[i].frames++;
            }
        }
    }
    printf("%lld steps of %.3f s: %llu frames at 10 Hz, %llu at 20 Hz, %llu proximity frames in %s\n",
           (long long)steps, dt * 1e-9, (unsigned long long)sensors[0].frames, (unsigned long long)sensors[1].frames,
           (unsigned long long)sensors[2].frames, dir);
    sensim_rig_destroy(rig);
    for (int i = 0; i < 3; i++) {
        free(sensors[i].mem);
        free(sensors[i].buf);
    }
    sensim_lidar_destroy(top);
    sensim_lidar_destroy(front);
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    return bad ? 1 : 0;
}
