/* The built-in street scene (sensim_scene_add_street): what `--scene street`,
 * `sensim demo`, the benchmarks and Python's Scene.load("street") scan.
 * Built through the public mesh and actor calls, like any host would. */
#include "internal.h"
#include "scene_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct builder {
    float *v;
    uint32_t *idx;
    uint8_t *tags;
    uint32_t nv, nt, cap_v, cap_t;
    int oom;
} builder;

static void reserve(builder *b, uint32_t nv, uint32_t nt)
{
    if (b->nv + nv > b->cap_v) {
        uint32_t cap = (b->cap_v + nv) * 2;
        float *p = realloc(b->v, (size_t)cap * 3 * sizeof *p);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->v = p;
        b->cap_v = cap;
    }
    if (b->nt + nt > b->cap_t) {
        uint32_t cap = (b->cap_t + nt) * 2;
        uint32_t *p = realloc(b->idx, (size_t)cap * 3 * sizeof *p);
        uint8_t *t = p ? realloc(b->tags, cap) : NULL;
        if (p)
            b->idx = p;
        if (!t) {
            b->oom = 1;
            return;
        }
        b->tags = t;
        b->cap_t = cap;
    }
}

/* Grid of (nu x nv) quads spanning origin + u·[0,1] + v·[0,1]. */
static void add_grid(builder *b, const float o[3], const float u[3], const float w[3], uint32_t nu, uint32_t nw,
                     uint8_t tag)
{
    reserve(b, (nu + 1) * (nw + 1), 2 * nu * nw);
    if (b->oom)
        return;
    uint32_t base = b->nv;
    for (uint32_t j = 0; j <= nw; j++)
        for (uint32_t i = 0; i <= nu; i++) {
            float s = (float)i / (float)nu, t = (float)j / (float)nw;
            float *p = &b->v[3 * b->nv++];
            for (int c = 0; c < 3; c++)
                p[c] = o[c] + s * u[c] + t * w[c];
        }
    for (uint32_t j = 0; j < nw; j++)
        for (uint32_t i = 0; i < nu; i++) {
            uint32_t a = base + j * (nu + 1) + i, c = a + 1, d = a + nu + 1, e = d + 1;
            uint32_t tri[6] = {a, c, e, a, e, d};
            memcpy(&b->idx[3 * b->nt], tri, sizeof tri);
            b->tags[b->nt] = b->tags[b->nt + 1] = tag;
            b->nt += 2;
        }
}

/* Axis-aligned box [lo, hi], faces subdivided n times. */
static void add_box(builder *b, const float lo[3], const float hi[3], uint32_t n, uint8_t tag)
{
    float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    const float X[3] = {dx, 0, 0}, Y[3] = {0, dy, 0}, Z[3] = {0, 0, dz};
    const float nX[3] = {-dx, 0, 0}, nY[3] = {0, -dy, 0};
    float p[3];
    add_grid(b, lo, Y, X, n, n, tag);                 /* bottom */
    p[0] = lo[0]; p[1] = lo[1]; p[2] = hi[2];
    add_grid(b, p, X, Y, n, n, tag);                  /* top */
    add_grid(b, lo, X, Z, n, n, tag);                 /* y = lo */
    p[0] = hi[0]; p[1] = hi[1]; p[2] = lo[2];
    add_grid(b, p, nX, Z, n, n, tag);                 /* y = hi */
    p[0] = lo[0]; p[1] = hi[1]; p[2] = lo[2];
    add_grid(b, p, nY, Z, n, n, tag);                 /* x = lo */
    p[0] = hi[0]; p[1] = lo[1]; p[2] = lo[2];
    add_grid(b, p, Y, Z, n, n, tag);                  /* x = hi */
}

static sensim_status flush(sensim_scene *scene, builder *b, uint32_t flags, uint32_t *out_id)
{
    if (b->oom)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_scene_add_street: out of memory");
    sensim_mesh_desc d;
    sensim_mesh_desc_init(&d);
    d.vertices = b->v;
    d.vertex_count = b->nv;
    d.indices = b->idx;
    d.triangle_count = b->nt;
    d.triangle_tags = b->tags;
    d.flags = flags;
    return sensim_scene_add_mesh(scene, &d, out_id);
}

sensim_status sensim_scene_add_street(sensim_scene *scene, float length_m, uint32_t detail,
                                      sensim_street_info *info)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!(length_m >= 16.0f && length_m <= 10000.0f) || detail < 1 || detail > 64)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                            "sensim_scene_add_street: length_m = %g (16..10000) or detail = %u (1..64) out of range",
                            (double)length_m, detail);
    /* the cars take actor ids 1..N: refuse before adding anything if one is taken */
    uint32_t ncars = 0;
    for (float x = -length_m / 2 + 8; x + 8 < length_m / 2; x += 11) /* the loop that places them, below */
        ncars++;
    sensim_status st = sensim__scene_edit_begin(scene);
    if (st != SENSIM_OK)
        return st;
    for (uint32_t i = 0; i < scene->actor_count; i++)
        if (scene->actors[i].id >= 1 && scene->actors[i].id <= ncars) {
            uint32_t id = scene->actors[i].id;
            sensim__scene_edit_end(scene);
            return sensim__fail(SENSIM_ERR_DUPLICATE,
                                "sensim_scene_add_street: actor id %u is taken (the street's cars use 1..%u)", id,
                                ncars);
        }
    sensim_scene_mark mark;
    sensim__scene_mark(scene, &mark);
    sensim__scene_edit_end(scene);

    builder b = {0};
    float L = length_m, h = L / 2;
    uint32_t seg = (uint32_t)(L / 4.0f) * detail;
    if (seg < 1)
        seg = 1;
    /* road: 7 m wide, two lanes */
    const float road_o[3] = {-h, -3.5f, 0}, road_u[3] = {L, 0, 0}, road_w[3] = {0, 7, 0};
    add_grid(&b, road_o, road_u, road_w, seg, 2 * detail, 1);
    /* lane marking strip, 0.15 m wide, 1 mm above the road */
    const float lm_o[3] = {-h, -0.075f, 0.001f}, lm_w[3] = {0, 0.15f, 0};
    add_grid(&b, lm_o, road_u, lm_w, seg, 1, 24);
    for (int side = -1; side <= 1; side += 2) {
        /* sidewalk 3 m wide, 0.15 m high */
        float lo[3] = {-h, side < 0 ? -6.5f : 3.5f, 0}, hi[3] = {h, side < 0 ? -3.5f : 6.5f, 0.15f};
        add_box(&b, lo, hi, detail, 2);
        /* terrain beyond the buildings */
        const float t_o[3] = {-h, side < 0 ? -60.0f : 6.5f, 0}, t_w[3] = {0, 53.5f, 0};
        add_grid(&b, t_o, road_u, t_w, seg, detail, 10);
        /* building blocks: 12 m long, 10 m deep, heights vary deterministically */
        int k = 0;
        for (float x = -h + 2; x + 12 <= h; x += 15, k++) {
            float height = 8.0f + (float)((k * 7 + (side > 0 ? 3 : 0)) % 5) * 3.0f;
            float blo[3] = {x, side < 0 ? -18.0f : 8.0f, 0}, bhi[3] = {x + 12, side < 0 ? -8.0f : 18.0f, height};
            add_box(&b, blo, bhi, 2 * detail, 3);
        }
        /* poles every 20 m, trees every 20 m offset by 10 m */
        for (float x = -h + 5; x < h; x += 20) {
            float plo[3] = {x, side * 4.0f - 0.1f, 0}, phi[3] = {x + 0.2f, side * 4.0f + 0.1f, 6};
            add_box(&b, plo, phi, 1, 6);
            float tlo[3] = {x + 10 - 1.2f, side * 5.2f - 1.2f, 2.5f}, thi[3] = {x + 10 + 1.2f, side * 5.2f + 1.2f, 5};
            add_box(&b, tlo, thi, detail, 9);
            float klo[3] = {x + 10 - 0.15f, side * 5.2f - 0.15f, 0}, khi[3] = {x + 10 + 0.15f, side * 5.2f + 0.15f, 2.5f};
            add_box(&b, klo, khi, 1, 9);
        }
    }
    uint32_t static_id = 0;
    st = flush(scene, &b, SENSIM_MESH_STATIC, &static_id);
    uint32_t static_tris = b.nt;
    /* car prototype: body + cabin, 4.5 x 1.8 x 1.5 m, origin at the ground centre */
    b.nv = b.nt = 0;
    const float body_lo[3] = {-2.25f, -0.9f, 0.3f}, body_hi[3] = {2.25f, 0.9f, 1.0f};
    const float cab_lo[3] = {-1.2f, -0.8f, 1.0f}, cab_hi[3] = {1.0f, 0.8f, 1.5f};
    add_box(&b, body_lo, body_hi, 2, 14);
    add_box(&b, cab_lo, cab_hi, 2, 14);
    uint32_t car_mesh = 0;
    if (st == SENSIM_OK)
        st = flush(scene, &b, SENSIM_MESH_PROTOTYPE, &car_mesh);
    uint32_t cars = 0;
    for (float x = -h + 8; st == SENSIM_OK && x + 8 < h; x += 11) {
        /* parked cars alternate sides, every other slot empty on the left */
        int side = ((int)((x + h) / 11) % 2) ? 1 : -1;
        double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, side * 2.4, 0, 1};
        st = sensim_scene_add_actor(scene, car_mesh, ++cars, pose);
    }
    free(b.v);
    free(b.idx);
    free(b.tags);
    if (st != SENSIM_OK) { /* nothing half added: meshes and cars since the mark go */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", sensim_context_last_error(NULL));
        if (sensim__scene_edit_begin(scene) == SENSIM_OK) {
            sensim__scene_rollback(scene, &mark);
            sensim__scene_edit_end(scene);
        }
        return sensim__fail(st, "%s", msg);
    }
    if (info) {
        memset(info, 0, sizeof *info);
        info->static_triangles = static_tris;
        info->car_count = cars;
        info->static_mesh_id = static_id;
        info->car_mesh_id = car_mesh;
    }
    return SENSIM_OK;
}
