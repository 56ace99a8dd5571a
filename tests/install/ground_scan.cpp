// A C++17 program built with CMake against an installed libsensim: a VLP-16
// (installed preset) 2 m above a flat ground; every return must lie on the
// ground, z = -2 m in the sensor frame, and the downward lasers that reach it
// within the 100 m range must see it: VLP-16 manual, -15..-3 degrees (7
// lasers; -1 degree meets the ground at 2 / sin 1deg = 114.6 m).
#include <sensim/sensim.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

int main()
{
    sensim_context *ctx = nullptr;
    sensim_scene *scene = nullptr;
    sensim_lidar *lidar = nullptr;
    if (sensim_context_create(nullptr, &ctx) != SENSIM_OK)
        return 1;
    const float v[] = {-500, -500, 0, 500, -500, 0, 500, 500, 0, -500, 500, 0};
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = v;
    md.vertex_count = 4;
    md.indices = idx;
    md.triangle_count = 2;
    if (sensim_scene_create(ctx, &scene) || sensim_scene_add_mesh(scene, &md, nullptr) ||
        sensim_scene_commit(scene) || sensim_lidar_create_from_preset(ctx, "vlp16", nullptr, 0, &lidar)) {
        std::fprintf(stderr, "ground_scan: %s\n", sensim_context_last_error(ctx));
        return 1;
    }
    sensim_lidar_info info;
    sensim_lidar_get_info(lidar, &info);
    uint64_t points = 0;
    size_t size = 0;
    sensim_lidar_ring_size(lidar, 2, &points, &size);
    std::vector<unsigned char> mem(size);
    sensim_ring *ring = nullptr;
    sensim_ring_init(mem.data(), size, points, 2, SENSIM_OVERFLOW_FAIL, &ring);
    const double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 2, 1};
    if (sensim_lidar_scan(lidar, scene, 0, info.frame_period_ns, pose, ring, nullptr) != SENSIM_OK) {
        std::fprintf(stderr, "ground_scan: %s\n", sensim_context_last_error(ctx));
        return 1;
    }
    sensim_frame_view view;
    if (sensim_ring_peek(ring, &view) != SENSIM_OK)
        return 1;
    uint64_t n = 0, off_ground = 0;
    std::set<unsigned> lasers;
    for (int part = 0; part < 2; part++) {
        const sensim_point *p = static_cast<const sensim_point *>(view.points[part]);
        for (uint64_t i = 0; i < view.counts[part]; i++, n++) {
            if (std::fabs(p[i].z + 2.0f) > 0.1f) // range noise (VLP-16: 3 cm typical) stays well inside
                off_ground++;
            lasers.insert(p[i].channel);
        }
    }
    sensim_ring_release(ring);
    std::printf("ground_scan: %llu points, %llu off the ground, %zu lasers\n", (unsigned long long)n,
                (unsigned long long)off_ground, lasers.size());
    sensim_lidar_destroy(lidar);
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    return n > 1000 && off_ground == 0 && lasers.size() == 7 ? 0 : 1;
}
