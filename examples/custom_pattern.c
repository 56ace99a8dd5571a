/* A user-defined sensor without rebuilding the library: a 32 x 24 flash
 * lidar (one shot per pixel, row by row) as a callback, registered by name,
 * created like a built-in preset (with an override), scanned into a ring. */
#include <sensim/sensim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct flash {
    uint32_t cols, rows;
    double hfov_rad, vfov_rad;
} flash;

/* Pure function of the shot index: safe to call from several threads. */
static int32_t flash_shot(void *user, int64_t shot, int64_t t_ns, uint16_t *channel, float dir[3])
{
    const flash *f = user;
    (void)t_ns;
    int64_t k = shot % ((int64_t)f->cols * f->rows);
    if (k < 0)
        k += (int64_t)f->cols * f->rows;
    uint32_t row = (uint32_t)(k / f->cols), col = (uint32_t)(k % f->cols);
    double az = f->hfov_rad * (0.5 - (col + 0.5) / f->cols), el = f->vfov_rad * (0.5 - (row + 0.5) / f->rows);
    dir[0] = (float)(cos(el) * cos(az));
    dir[1] = (float)(cos(el) * sin(az));
    dir[2] = (float)sin(el);
    *channel = (uint16_t)row;
    return 0;
}

int main(void)
{
    static flash f = {32, 24, 60 * 3.14159265358979 / 180, 45 * 3.14159265358979 / 180};
    sensim_context *ctx;
    if (sensim_context_create(NULL, &ctx) != SENSIM_OK)
        return 1;
    sensim_lidar_desc d;
    sensim_lidar_desc_init(&d);
    d.pattern = SENSIM_PATTERN_CALLBACK;
    d.channel_count = f.rows;
    d.shots_per_s = 32 * 24 * 30; /* 30 full images per second */
    d.frame_rate_hz = 30;
    d.shot_fn = flash_shot;
    d.shot_user = &f;
    const char *sets[] = {"max_range_m=40"};
    sensim_lidar *lidar;
    sensim_scene *scene;
    if (sensim_context_register_pattern(ctx, "my_flash", &d) ||
        sensim_lidar_create_from_preset(ctx, "my_flash", sets, 1, &lidar) || sensim_scene_create(ctx, &scene)) {
        fprintf(stderr, "custom_pattern: %s\n", sensim_context_last_error(ctx));
        return 1;
    }
    /* a wall 10 m ahead */
    const float v[] = {10, -50, -50, 10, 50, -50, 10, 50, 50, 10, -50, 50};
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = v;
    md.vertex_count = 4;
    md.indices = idx;
    md.triangle_count = 2;
    md.tag = 4; /* Wall */
    sensim_lidar_info li;
    sensim_lidar_get_info(lidar, &li);
    size_t size;
    uint64_t points; /* 4 whole frames, every return a shot can make (not shots_per_frame) */
    void *mem = NULL;
    sensim_ring *ring;
    if (sensim_scene_add_mesh(scene, &md, NULL) || sensim_scene_commit(scene) ||
        sensim_lidar_ring_size(lidar, 4, &points, &size) || !(mem = malloc(size)) ||
        sensim_ring_init(mem, size, points, 4, SENSIM_OVERFLOW_FAIL, &ring)) {
        fprintf(stderr, "custom_pattern: %s\n", sensim_context_last_error(ctx));
        return 1;
    }
    const double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    int rc = 0;
    if (sensim_lidar_scan(lidar, scene, 0, li.frame_period_ns, pose, ring, NULL) != SENSIM_OK) {
        fprintf(stderr, "custom_pattern: %s\n", sensim_context_last_error(ctx));
        rc = 1;
    }
    sensim_frame_view view;
    if (rc == 0 && sensim_ring_peek(ring, &view) == SENSIM_OK) {
        uint64_t n = view.counts[0] + view.counts[1];
        const sensim_point *p = view.points[0];
        printf("%s: frame %llu, %llu points (32 x 24 = 768 expected), first at x = %.3f m, range %.3f m\n", li.name,
               (unsigned long long)view.header->frame_number, (unsigned long long)n, p[0].x, p[0].range_m);
        rc = n == 768 && fabsf(p[0].x - 10.0f) < 1e-3f ? 0 : 1;
        sensim_ring_release(ring);
    }
    free(mem);
    sensim_lidar_destroy(lidar);
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    return rc;
}
