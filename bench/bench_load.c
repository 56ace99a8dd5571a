/* Loader and build throughput: OBJ and binary PLY load MB/s, commit time and
 * backend memory per million triangles, on a generated terrain mesh.
 * usage: bench_load [million_triangles] [dir] */
#include <sensim/sensim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

static double file_mb(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 ? sb.st_size / 1048576.0 : 0;
}

int main(int argc, char **argv)
{
    double mtri = argc > 1 ? atof(argv[1]) : 1.0;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    int side = (int)ceil(sqrt(mtri * 1e6 / 2));
    char obj[1024], ply[1024];
    snprintf(obj, sizeof obj, "%s/sensim_bench_terrain.obj", dir);
    snprintf(ply, sizeof ply, "%s/sensim_bench_terrain.ply", dir);
    /* a bumpy terrain grid: (side+1)^2 vertices, 2·side^2 triangles */
    FILE *f = fopen(obj, "w"), *g = fopen(ply, "wb");
    if (!f || !g)
        return 1;
    long nv = (long)(side + 1) * (side + 1), nt = 2L * side * side;
    fprintf(f, "o terrain_ground\n");
    fprintf(g, "ply\nformat binary_little_endian 1.0\nelement vertex %ld\nproperty float x\nproperty float y\n"
               "property float z\nelement face %ld\nproperty list uchar int vertex_indices\nend_header\n",
            nv, nt);
    for (int j = 0; j <= side; j++)
        for (int i = 0; i <= side; i++) {
            float v[3] = {i * 0.5f, j * 0.5f, 0.3f * sinf(i * 0.1f) * cosf(j * 0.13f)};
            fprintf(f, "v %.4f %.4f %.4f\n", v[0], v[1], v[2]);
            fwrite(v, sizeof v, 1, g);
        }
    for (int j = 0; j < side; j++)
        for (int i = 0; i < side; i++) {
            int a = j * (side + 1) + i + 1, b = a + 1, c = a + side + 1, d = c + 1;
            fprintf(f, "f %d %d %d\nf %d %d %d\n", a, b, d, a, d, c);
            unsigned char n = 3;
            int t1[3] = {a - 1, b - 1, d - 1}, t2[3] = {a - 1, d - 1, c - 1};
            fwrite(&n, 1, 1, g), fwrite(t1, sizeof t1, 1, g), fwrite(&n, 1, 1, g), fwrite(t2, sizeof t2, 1, g);
        }
    /* on disk before the clock starts: otherwise the kernel's writeback of
     * the files just written runs on the same cores as the load */
    if (fflush(f) || fflush(g) || fsync(fileno(f)) || fsync(fileno(g)))
        return 1;
    fclose(f);
    fclose(g);
    sensim_context *ctx;
    if (sensim_context_create(NULL, &ctx))
        return 1;
    const char *paths[2] = {obj, ply};
    for (int k = 0; k < 2; k++) {
        sensim_scene *s;
        sensim_scene_create(ctx, &s);
        uint64_t before = sensim_context_backend_bytes(ctx);
        double t0 = now_s();
        if (sensim_scene_load_file(s, paths[k], NULL, NULL)) {
            fprintf(stderr, "bench_load: %s\n", sensim_context_last_error(ctx));
            return 1;
        }
        double t1 = now_s();
        sensim_scene_commit(s);
        double t2 = now_s();
        sensim_scene_info si;
        sensim_scene_get_info(s, &si);
        double m = si.triangle_count / 1e6, mb = file_mb(paths[k]);
        printf("%s: %.1f MB, %.3f M triangles: load %.3f s (%.0f MB/s), commit %.3f s (%.3f s per M triangles), "
               "backend memory %.1f MB per M triangles\n",
               k ? "PLY (binary)" : "OBJ", mb, m, t1 - t0, mb / (t1 - t0), t2 - t1, (t2 - t1) / m,
               (sensim_context_backend_bytes(ctx) - before) / 1048576.0 / m);
        sensim_scene_destroy(s);
    }
    remove(obj);
    remove(ply);
    sensim_context_destroy(ctx);
    return 0;
}
