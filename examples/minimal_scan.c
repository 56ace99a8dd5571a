/* Minimal use of libsensim: a VLP-16 two metres above a ground plane. */
#include <sensim/sensim.h>

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    sensim_context *ctx;
    sensim_scene *scene;
    sensim_lidar *lidar;
    if (sensim_context_create(NULL, &ctx) != SENSIM_OK)
        return 1;
    const float v[] = {-500, -500, 0, 500, -500, 0, 500, 500, 0, -500, 500, 0};
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = v;
    md.vertex_count = 4;
    md.indices = idx;
    md.triangle_count = 2;
    md.tag = 1; /* Roads */
    if (sensim_scene_create(ctx, &scene) || sensim_scene_add_mesh(scene, &md, NULL) ||
        sensim_scene_commit(scene) || sensim_lidar_create_from_preset(ctx, "vlp16", NULL, 0, &lidar)) {
        fprintf(stderr, "minimal_scan: %s\n", sensim_context_last_error(ctx));
        return 1;
    }
    sensim_lidar_info info;
    sensim_lidar_get_info(lidar, &info);
    /* a ring for 4 whole frames: max_points_per_frame each (dual returns,
     * ghosts and rain included), not shots_per_frame */
    uint64_t points;
    size_t size;
    sensim_lidar_ring_size(lidar, 4, &points, &size);
    void *mem = malloc(size);
    sensim_ring *ring;
    sensim_ring_init(mem, size, points, 4, SENSIM_OVERFLOW_FAIL, &ring);
    const double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 2, 1};
    if (sensim_lidar_scan(lidar, scene, 0, info.frame_period_ns, pose, ring, NULL) != SENSIM_OK) {
        fprintf(stderr, "minimal_scan: %s\n", sensim_context_last_error(ctx));
        return 1;
    }
    sensim_frame_view view;
    if (sensim_ring_peek(ring, &view) == SENSIM_OK) {
        printf("frame %llu: %llu points\n", (unsigned long long)view.header->frame_number,
               (unsigned long long)(view.counts[0] + view.counts[1]));
        sensim_ring_release(ring);
    }
    free(mem);
    sensim_lidar_destroy(lidar);
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    return 0;
}
