/* Embree 3 backend. Nothing outside this file includes embree3. */
#include "motion.h"
#include "trace.h"

#include <embree3/rtcore.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One instance in the top-level scene: the static world (object 0) or an actor. */
typedef struct trace_inst {
    uint32_t object_id; /* 0: the static world or a static instance */
    bool world;         /* the static world's own instance (identity; mesh from static_mesh[geom]) */
    uint32_t mesh;      /* actor's mesh; unused for the static instance */
    float nrm[9];       /* normal matrix (inverse transpose of the 3x3 part), column-major */
    bool moving;        /* rigid motion: rotation slerps from q0 to q1 over ray time */
    double q0[4], q1[4];
    sensim__slerp sl; /* q0 -> q1 set up once (moving) */
    RTCGeometry geom;   /* the Embree instance, kept across commits (actors only) */
    RTCScene child;     /* the prototype it instances */
    double pose[16], pose1[16]; /* the actor's pose(s) it was set from: a commit updates only those that moved */
} trace_inst;

/* An actor traced as static geometry (sensim_scene_set_flatten), as it was flattened. */
typedef struct flat_key {
    uint32_t id, mesh;
    double pose[16];
} flat_key;

typedef struct trace_state {
    RTCScene top;
    RTCScene statics;       /* static meshes (and flattened actors), instanced once with identity */
    uint32_t *static_mesh;  /* geomID in statics -> mesh index */
    uint32_t *static_obj;   /* geomID in statics -> object id: 0, or a flattened actor's id */
    uint32_t static_count;
    float *flat_verts;      /* the flattened actors' vertices in world coordinates */
    flat_key *flat;         /* the actors flattened into statics, in the scene's order */
    uint32_t flat_n;
    trace_inst *inst;       /* top geomID -> instance */
    uint32_t inst_count;
    const sensim_mesh *meshes; /* the scene's mesh table at commit time */
} trace_state;

static void device_error(void *user, enum RTCError code, const char *str)
{
    sensim_context *ctx = user;
    sensim__log(ctx, SENSIM_LOG_ERROR, "embree error %d: %s", (int)code, str ? str : "");
}

static bool memory_monitor(void *user, ssize_t bytes, bool post)
{
    (void)post;
    sensim_context *ctx = user;
    atomic_fetch_add(&ctx->backend_bytes, (int64_t)bytes);
    return true;
}

uint64_t sensim_context_backend_bytes(const sensim_context *ctx)
{
    if (!ctx)
        return 0;
    int64_t b = atomic_load(&((sensim_context *)ctx)->backend_bytes);
    return b > 0 ? (uint64_t)b : 0;
}

sensim_status sensim__trace_device_create(sensim_context *ctx)
{
    RTCDevice dev = rtcNewDevice(NULL);
    if (!dev)
        return sensim__fail(SENSIM_ERR_BACKEND, "embree: rtcNewDevice failed (error %d)",
                            (int)rtcGetDeviceError(NULL));
    rtcSetDeviceErrorFunction(dev, device_error, ctx);
    rtcSetDeviceMemoryMonitorFunction(dev, memory_monitor, ctx);
    ctx->device = dev;
    return SENSIM_OK;
}

void sensim__trace_device_destroy(sensim_context *ctx)
{
    if (ctx->device)
        rtcReleaseDevice((RTCDevice)ctx->device);
    ctx->device = NULL;
}

static sensim_status backend_status(RTCDevice dev, const char *what)
{
    enum RTCError e = rtcGetDeviceError(dev);
    if (e == RTC_ERROR_NONE)
        return SENSIM_OK;
    if (e == RTC_ERROR_OUT_OF_MEMORY)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "embree: out of memory while %s", what);
    return sensim__fail(SENSIM_ERR_BACKEND, "embree: error %d while %s", (int)e, what);
}

/* Mesh @p m's triangles over the vertices @p v (its own, or a flattened
 * actor's moved to world coordinates). */
static RTCGeometry mesh_geometry_at(RTCDevice dev, const sensim_mesh *m, const float *v)
{
    RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    if (!g)
        return NULL;
    rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, v, 0, 3 * sizeof(float),
                               m->vertex_count);
    rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, m->indices, 0,
                               3 * sizeof(uint32_t), m->triangle_count);
    rtcCommitGeometry(g);
    return g;
}

static RTCGeometry mesh_geometry(RTCDevice dev, const sensim_mesh *m)
{
    return mesh_geometry_at(dev, m, m->vertices);
}

void sensim__trace_mesh_release(sensim_mesh *mesh)
{
    if (mesh->proto)
        rtcReleaseScene((RTCScene)mesh->proto);
    mesh->proto = NULL;
}

static void release_state(trace_state *t)
{
    if (!t)
        return;
    if (t->top)
        rtcReleaseScene(t->top);
    if (t->statics)
        rtcReleaseScene(t->statics);
    free(t->static_mesh);
    free(t->static_obj);
    free(t->flat_verts);
    free(t->flat);
    free(t->inst);
    free(t);
}

void sensim__trace_scene_release(sensim_scene *scene)
{
    release_state(scene->trace);
    scene->trace = NULL;
}

static void normal_matrix(const double p[16], float out[9])
{
    /* inverse transpose of the upper 3x3 = cofactor matrix / det */
    double a = p[0], b = p[4], c = p[8], d = p[1], e = p[5], f = p[9], g = p[2], h = p[6], i = p[10];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    double cof[9] = {
        (e * i - f * h), -(d * i - f * g), (d * h - e * g),
        -(b * i - c * h), (a * i - c * g), -(a * h - b * g),
        (b * f - c * e), -(a * f - c * d), (a * e - b * d),
    };
    /* cof is row-major cofactor C; inverse transpose = C / det. Store column-major. */
    for (int r = 0; r < 3; r++)
        for (int col = 0; col < 3; col++)
            out[col * 3 + r] = (float)(cof[r * 3 + col] / det);
}

static RTCScene new_scene(RTCDevice dev)
{
    RTCScene s = rtcNewScene(dev);
    if (s) {
        /* Watertight traversal: a ray through a shared edge or vertex must not
         * leak through a closed mesh (it does without this flag). */
        rtcSetSceneFlags(s, RTC_SCENE_FLAG_ROBUST);
        rtcSetSceneBuildQuality(s, RTC_BUILD_QUALITY_HIGH);
    }
    return s;
}

/* The actors and static instances traced as static geometry
 * (sensim_scene_set_flatten): the parked ones, in the scene's order, while
 * their triangles fit the budget; isflat[k] marks actor k; *out their keys
 * (NULL when none). */
static sensim_status flat_select(const sensim_scene *scene, uint8_t *isflat, flat_key **out, uint32_t *n)
{
    uint64_t used = 0;
    uint32_t count = 0;
    for (uint32_t k = 0; scene->flatten_budget && k < scene->actor_count; k++) {
        const sensim_actor *a = &scene->actors[k];
        const uint64_t tris = scene->meshes[a->mesh].triangle_count;
        if (a->parked && !a->moving && tris <= scene->flatten_budget - used)
            isflat[k] = 1, used += tris, count++;
    }
    *out = NULL, *n = 0;
    if (!count)
        return SENSIM_OK;
    flat_key *f = calloc(count, sizeof *f); /* zeroed: compared with memcmp */
    if (!f)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot allocate the flattened actors' list (%u)", count);
    for (uint32_t k = 0, j = 0; k < scene->actor_count; k++)
        if (isflat[k]) {
            f[j].id = scene->actors[k].id, f[j].mesh = scene->actors[k].mesh;
            memcpy(f[j].pose, scene->actors[k].pose, sizeof f[j].pose);
            j++;
        }
    *out = f, *n = count;
    return SENSIM_OK;
}

/* The static BVH into t: the static meshes, then each flattened actor's
 * mesh with its vertices moved to world coordinates (double, rounded to
 * float once). */
static sensim_status build_statics(RTCDevice dev, const sensim_scene *scene, const uint8_t *isflat, trace_state *t)
{
    uint32_t n = 0;
    size_t fv = 0; /* the flattened vertices' floats */
    for (uint32_t i = 0; i < scene->mesh_count; i++)
        n += !(scene->meshes[i].flags & SENSIM_MESH_PROTOTYPE);
    for (uint32_t k = 0; k < scene->actor_count; k++)
        if (isflat[k])
            fv += 3 * (size_t)scene->meshes[scene->actors[k].mesh].vertex_count;
    if ((uint64_t)n + t->flat_n >= RTC_INVALID_GEOMETRY_ID)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "static scene: %u meshes and %u flattened actors", n, t->flat_n);
    n += t->flat_n;
    if (n == 0)
        return SENSIM_OK;
    t->static_mesh = malloc(n * sizeof *t->static_mesh);
    t->static_obj = calloc(n, sizeof *t->static_obj);
    t->statics = new_scene(dev);
    if (fv) /* + 1: Embree reads 16 bytes at the last vertex */
        t->flat_verts = fv < SIZE_MAX / sizeof(float) - 1 ? malloc((fv + 1) * sizeof(float)) : NULL;
    if (!t->static_mesh || !t->static_obj || !t->statics || (fv && !t->flat_verts))
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY,
                            "cannot allocate static scene (%u meshes, %zu flattened vertices)", n, fv / 3);
    for (uint32_t i = 0; i < scene->mesh_count; i++) {
        if (scene->meshes[i].flags & SENSIM_MESH_PROTOTYPE)
            continue;
        RTCGeometry g = mesh_geometry(dev, &scene->meshes[i]);
        if (!g)
            return backend_status(dev, "creating a static mesh");
        unsigned gid = rtcAttachGeometry(t->statics, g);
        rtcReleaseGeometry(g);
        t->static_mesh[gid] = i;
    }
    float *v = t->flat_verts;
    for (uint32_t k = 0; k < scene->actor_count; k++) {
        if (!isflat[k])
            continue;
        const sensim_actor *a = &scene->actors[k];
        const sensim_mesh *m = &scene->meshes[a->mesh];
        const double *P = a->pose;
        for (uint32_t j = 0; j < m->vertex_count; j++) {
            const double x = m->vertices[3 * j], y = m->vertices[3 * j + 1], z = m->vertices[3 * j + 2];
            v[3 * j] = (float)(P[0] * x + P[4] * y + P[8] * z + P[12]);
            v[3 * j + 1] = (float)(P[1] * x + P[5] * y + P[9] * z + P[13]);
            v[3 * j + 2] = (float)(P[2] * x + P[6] * y + P[10] * z + P[14]);
        }
        RTCGeometry g = mesh_geometry_at(dev, m, v);
        if (!g)
            return backend_status(dev, "creating a flattened actor's mesh");
        unsigned gid = rtcAttachGeometry(t->statics, g);
        rtcReleaseGeometry(g);
        t->static_mesh[gid] = a->mesh;
        t->static_obj[gid] = a->id;
        v += 3 * (size_t)m->vertex_count;
    }
    t->static_count = n;
    rtcCommitScene(t->statics);
    return backend_status(dev, "building the static BVH");
}

/* Instance @p gi's transform from actor @p a, and @p in's record of it: a
 * moving actor as two quaternion steps (Embree interpolates the translation
 * linearly and the rotation by slerp), a parked one as its matrix. The
 * Embree calls are the same whether the instance is new or kept. */
static void set_actor_instance(RTCGeometry gi, const sensim_actor *a, trace_inst *in)
{
    double q0[4] = {1, 0, 0, 0}, q1[4] = {1, 0, 0, 0};
    rtcSetGeometryTimeStepCount(gi, a->moving ? 2 : 1);
    if (a->moving) {
        const double *P[2] = {a->pose, a->pose1};
        sensim__quat_from_mat(a->pose, q0);
        sensim__quat_from_mat(a->pose1, q1);
        if (q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3] < 0)
            for (int c = 0; c < 4; c++)
                q1[c] = -q1[c];
        const double *Q[2] = {q0, q1};
        for (unsigned step = 0; step < 2; step++) {
            struct RTCQuaternionDecomposition qd;
            rtcInitQuaternionDecomposition(&qd);
            rtcQuaternionDecompositionSetQuaternion(&qd, (float)Q[step][0], (float)Q[step][1], (float)Q[step][2],
                                                    (float)Q[step][3]);
            rtcQuaternionDecompositionSetTranslation(&qd, (float)P[step][12], (float)P[step][13], (float)P[step][14]);
            rtcSetGeometryTransformQuaternion(gi, step, &qd);
        }
        memcpy(in->pose1, a->pose1, sizeof in->pose1);
    } else {
        float xf[16];
        for (int j = 0; j < 16; j++)
            xf[j] = (float)a->pose[j];
        rtcSetGeometryTransform(gi, 0, RTC_FORMAT_FLOAT4X4_COLUMN_MAJOR, xf);
    }
    in->moving = a->moving;
    memcpy(in->pose, a->pose, sizeof in->pose);
    memcpy(in->q0, q0, sizeof q0);
    memcpy(in->q1, q1, sizeof q1);
    sensim__slerp_setup(q0, q1, &in->sl);
    normal_matrix(a->pose, in->nrm);
}

/* The top level of @p old serves again when it instances the same actors
 * (ids, meshes, prototypes, in order) after the static world kept: only the
 * instances of actors that moved are set again, and Embree's top-level BVH
 * is rebuilt only when one did. The geometry is the same as a new top level
 * would hold, in the same order, so the BVH and every hit are too. */
static bool top_reusable(const trace_state *old, const sensim_scene *scene, const uint8_t *isflat, RTCScene kept,
                         uint32_t ninst)
{
    /* kept: the static world taken over from old (NULL: none); old->top is it when old had no actors */
    const bool statics = kept != NULL;
    if (!old || !old->top || old->top == kept || old->inst_count != ninst || (statics && !old->inst[0].world))
        return false;
    for (uint32_t k = statics ? 1u : 0u, next = 0; k < ninst; k++) {
        while (isflat[next])
            next++;
        const sensim_actor *a = &scene->actors[next++];
        const trace_inst *in = &old->inst[k];
        if (in->world || in->object_id != a->id || in->mesh != a->mesh || !in->geom ||
            in->child != (RTCScene)scene->meshes[a->mesh].proto)
            return false;
    }
    return true;
}

/* Whether actor @p a's instance must be set again. */
static bool instance_moved(const trace_inst *in, const sensim_actor *a)
{
    return in->moving != a->moving || memcmp(in->pose, a->pose, sizeof in->pose) != 0 ||
           (a->moving && memcmp(in->pose1, a->pose1, sizeof in->pose1) != 0);
}

sensim_status sensim__trace_commit(sensim_scene *scene)
{
    RTCDevice dev = (RTCDevice)scene->ctx->device;
    trace_state *old = scene->trace;
    trace_state *t = calloc(1, sizeof *t);
    if (!t)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot allocate trace state");
    t->meshes = scene->meshes;

    /* The actors traced as static geometry: parked ones while they fit the budget. */
    uint8_t *isflat = scene->actor_count ? calloc(scene->actor_count, 1) : NULL;
    flat_key *flat = NULL;
    uint32_t nflat = 0;
    if (scene->actor_count && !isflat) {
        release_state(t);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot allocate the actor flags");
    }
    sensim_status st = flat_select(scene, isflat, &flat, &nflat);
    if (st != SENSIM_OK) {
        free(isflat);
        release_state(t);
        return st;
    }
    t->flat = flat, t->flat_n = nflat;

    /* Static world: rebuilt only when static meshes or the flattened actors changed. */
    const bool kept_statics = old && !scene->static_dirty && old->flat_n == nflat &&
                              (nflat == 0 || memcmp(old->flat, flat, nflat * sizeof *flat) == 0);
    if (kept_statics) {
        t->statics = old->statics;
        t->static_mesh = old->static_mesh;
        t->static_obj = old->static_obj;
        t->flat_verts = old->flat_verts;
        t->static_count = old->static_count;
        old->statics = NULL;
        old->static_mesh = NULL;
        old->static_obj = NULL;
        old->flat_verts = NULL;
    } else if ((st = build_statics(dev, scene, isflat, t)) != SENSIM_OK) {
        free(isflat);
        release_state(t);
        return st;
    }

    if (t->statics && scene->actor_count == nflat) {
        /* no actors left: trace the static world directly, without an instance level */
        free(isflat);
        rtcRetainScene(t->statics);
        t->top = t->statics;
        t->inst_count = 0;
        release_state(old);
        scene->trace = t;
        scene->flat_count = nflat;
        return SENSIM_OK;
    }
    uint32_t ninst = (t->statics ? 1u : 0u) + scene->actor_count - nflat;
    if (kept_statics && top_reusable(old, scene, isflat, t->statics, ninst)) {
        t->top = old->top, t->inst = old->inst, t->inst_count = ninst;
        old->top = NULL, old->inst = NULL;
        bool moved = false;
        for (uint32_t k = t->statics ? 1u : 0u, next = 0; k < ninst; k++) {
            while (isflat[next])
                next++;
            const sensim_actor *a = &scene->actors[next++];
            trace_inst *in = &t->inst[k];
            if (!instance_moved(in, a))
                continue;
            set_actor_instance(in->geom, a, in);
            rtcCommitGeometry(in->geom);
            moved = true;
        }
        free(isflat);
        if (moved)
            rtcCommitScene(t->top);
        release_state(old);
        st = backend_status(dev, "building the top-level BVH");
        if (st != SENSIM_OK) { /* the kept top level is not whole: the next commit builds anew */
            release_state(t);
            scene->trace = NULL;
            return st;
        }
        scene->trace = t;
        scene->flat_count = nflat;
        return SENSIM_OK;
    }
    t->inst = calloc(ninst ? ninst : 1, sizeof *t->inst);
    t->top = new_scene(dev);
    if (!t->inst || !t->top) {
        free(isflat);
        release_state(t);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot allocate top-level scene");
    }
    rtcSetSceneBuildQuality(t->top, RTC_BUILD_QUALITY_MEDIUM);
    for (uint32_t k = 0, next = 0; k < ninst; k++) {
        bool is_static = t->statics && k == 0;
        const sensim_actor *a = NULL;
        if (!is_static) { /* the next actor not flattened */
            while (isflat[next])
                next++;
            a = &scene->actors[next++];
        }
        RTCScene child;
        if (is_static) {
            child = t->statics;
        } else {
            sensim_mesh *m = &scene->meshes[a->mesh];
            if (!m->proto) {
                RTCScene ps = new_scene(dev);
                RTCGeometry g = ps ? mesh_geometry(dev, m) : NULL;
                if (!g) {
                    if (ps)
                        rtcReleaseScene(ps);
                    free(isflat);
                    release_state(t);
                    return backend_status(dev, "creating an actor mesh");
                }
                rtcAttachGeometry(ps, g);
                rtcReleaseGeometry(g);
                rtcCommitScene(ps);
                m->proto = ps;
            }
            child = (RTCScene)m->proto;
        }
        RTCGeometry gi = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_INSTANCE);
        if (!gi) {
            free(isflat);
            release_state(t);
            return backend_status(dev, "creating an instance");
        }
        rtcSetGeometryInstancedScene(gi, child);
        trace_inst in = {.world = is_static, .moving = false};
        if (is_static) {
            static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
            rtcSetGeometryTransform(gi, 0, RTC_FORMAT_FLOAT4X4_COLUMN_MAJOR, identity);
            static const double identity_d[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
            normal_matrix(identity_d, in.nrm);
        } else {
            in.object_id = a->id, in.mesh = a->mesh, in.child = child;
            set_actor_instance(gi, a, &in);
        }
        rtcCommitGeometry(gi);
        unsigned gid = rtcAttachGeometry(t->top, gi);
        rtcReleaseGeometry(gi); /* the scene holds it; in.geom borrows the scene's reference */
        in.geom = is_static ? NULL : gi;
        t->inst[gid] = in;
    }
    free(isflat);
    t->inst_count = ninst;
    rtcCommitScene(t->top);
    st = backend_status(dev, "building the top-level BVH");
    if (st != SENSIM_OK) {
        release_state(t);
        return st;
    }
    release_state(old);
    scene->trace = t;
    scene->flat_count = nflat;
    return SENSIM_OK;
}

#ifndef PACKET
#define PACKET 16
#endif

/* Fill a hit from Embree's answer (object space normal -> world). Inline:
 * a packet's 16 hits then overlap their table loads (instance, mesh, tag,
 * material; pandar128 0.984 of the time, mid40 0.993). */
static inline __attribute__((always_inline)) void fill_hit(const trace_state *t, unsigned geom, unsigned inst,
                                                           unsigned prim, float tfar, float nx, float ny, float nz,
                                                           float time, sensim_hit *h)
{
    if (geom == RTC_INVALID_GEOMETRY_ID) {
        h->hit = 0;
        h->t = INFINITY;
        h->ng[0] = h->ng[1] = h->ng[2] = 0.0f;
        h->object_id = 0;
        h->material = 0;
        h->tag = 0;
        return;
    }
    if (inst == RTC_INVALID_GEOMETRY_ID) { /* the static world traced directly (no actors) */
        const sensim_mesh *sm = &t->meshes[t->static_mesh[geom]];
        h->ng[0] = nx, h->ng[1] = ny, h->ng[2] = nz;
        h->t = tfar;
        h->hit = 1;
        h->object_id = t->static_obj[geom];
        h->tag = sm->tags[prim];
        h->material = sm->materials[prim];
        return;
    }
    const trace_inst *in = &t->inst[inst];
    const sensim_mesh *mesh = in->world ? &t->meshes[t->static_mesh[geom]] : &t->meshes[in->mesh];
    if (in->world) { /* the static world is instanced with identity */
        h->ng[0] = nx, h->ng[1] = ny, h->ng[2] = nz;
    } else if (in->moving) {
        double q[4], R[16];
        const double zero[3] = {0, 0, 0};
        sensim__slerp_at(in->q0, &in->sl, time, q);
        sensim__mat_from_quat(q, zero, R);
        h->ng[0] = (float)(R[0] * nx + R[4] * ny + R[8] * nz);
        h->ng[1] = (float)(R[1] * nx + R[5] * ny + R[9] * nz);
        h->ng[2] = (float)(R[2] * nx + R[6] * ny + R[10] * nz);
    } else {
        h->ng[0] = in->nrm[0] * nx + in->nrm[3] * ny + in->nrm[6] * nz;
        h->ng[1] = in->nrm[1] * nx + in->nrm[4] * ny + in->nrm[7] * nz;
        h->ng[2] = in->nrm[2] * nx + in->nrm[5] * ny + in->nrm[8] * nz;
    }
    h->t = tfar;
    h->hit = 1;
    h->object_id = in->world ? t->static_obj[geom] : in->object_id;
    h->tag = mesh->tags[prim];
    h->material = mesh->materials[prim];
}

/* Rays of a packet within 60 degrees of the first: worth a packet. Packets
 * pay off for coherent rays (a spinning column, a rosette, a camera tile);
 * packets spreading wider (MEMS sub-pattern columns) are faster one at a
 * time (measured: 2x on mems_m1; sensim bench). */
static bool packet_coherent(const sensim_ray *rays, uint32_t m)
{
    const float *d0 = rays[0].dir;
    bool coherent = m > 2;
    for (uint32_t j = 1; j < m && coherent; j++) {
        const float *d = rays[j].dir;
        coherent = d0[0] * d[0] + d0[1] * d[1] + d0[2] * d[2] > 0.5f;
    }
    return coherent;
}

/* packet_coherent() of rays given by pointers */
static bool packet_coherent_p(const sensim_ray *const *r, uint32_t m)
{
    const float *d0 = r[0]->dir;
    bool coherent = m > 2;
    for (uint32_t j = 1; j < m && coherent; j++) {
        const float *d = r[j]->dir;
        coherent = d0[0] * d[0] + d0[1] * d[1] + d0[2] * d[2] > 0.5f;
    }
    return coherent;
}

/* A direction component every Embree path traces the same way. Below
 * Embree's safe reciprocal input (1e-18) its rcp_safe() makes a component
 * +1e-18 whatever its sign, while the coherent packet traversal groups rays
 * by the signs of their components: a packet holding -2.8e-19 among
 * negative components culled boxes its rays cross (8 of 27 569 sub-rays of
 * a vlp16 with 19 sub-rays missed the road, test_bench_trace_rays). Such a
 * component is traced as +0, 1e-18 rad off the given direction. */
static inline float dir_safe(float d)
{
    return fabsf(d) < 1e-18f ? 0.0f : d;
}

static inline void load_ray1(const sensim_ray *r, struct RTCRay *ray)
{
    ray->org_x = r->org[0], ray->org_y = r->org[1], ray->org_z = r->org[2];
    ray->dir_x = dir_safe(r->dir[0]), ray->dir_y = dir_safe(r->dir[1]), ray->dir_z = dir_safe(r->dir[2]);
    ray->tnear = r->tnear, ray->tfar = r->tfar, ray->time = r->time;
    ray->mask = 0xFFFFFFFFu, ray->id = 0, ray->flags = 0;
}

/* rtcIntersect1 of one ray: secondary rays and incoherent primaries. */
static inline void intersect1(RTCScene top, struct RTCIntersectContext *ictx, const sensim_ray *r,
                              struct RTCRayHit *rh)
{
    load_ray1(r, &rh->ray);
    rh->hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh->hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(top, ictx, rh);
}

/* @p m rays (by pointer) into a 16-wide packet (lanes past m invalid, copies of ray 0). */
static void load_packet_p(const sensim_ray *const *rp, uint32_t m, struct RTCRay16 *ray, int *valid)
{
    for (uint32_t j = 0; j < PACKET; j++) {
        const sensim_ray *r = rp[j < m ? j : 0];
        valid[j] = j < m ? -1 : 0;
        ray->org_x[j] = r->org[0], ray->org_y[j] = r->org[1], ray->org_z[j] = r->org[2];
        ray->dir_x[j] = dir_safe(r->dir[0]), ray->dir_y[j] = dir_safe(r->dir[1]), ray->dir_z[j] = dir_safe(r->dir[2]);
        ray->tnear[j] = r->tnear, ray->tfar[j] = r->tfar, ray->time[j] = r->time;
        ray->mask[j] = 0xFFFFFFFFu, ray->id[j] = j, ray->flags[j] = 0;
    }
}

/* rtcIntersect16 of @p m rays (by pointer). Embree requires the mask aligned like the packet. */
static inline void intersect16_p(RTCScene top, struct RTCIntersectContext *pctx, const sensim_ray *const *rp,
                                 uint32_t m, struct RTCRayHit16 *rh)
{
    _Alignas(64) int valid[PACKET];
    load_packet_p(rp, m, &rh->ray, valid);
    for (uint32_t j = 0; j < PACKET; j++) {
        rh->hit.geomID[j] = RTC_INVALID_GEOMETRY_ID;
        rh->hit.instID[0][j] = RTC_INVALID_GEOMETRY_ID;
    }
    rtcIntersect16(valid, top, pctx, rh);
}

/* rtcIntersect16 of the first @p m rays. */
static inline void intersect16(RTCScene top, struct RTCIntersectContext *pctx, const sensim_ray *rays, uint32_t m,
                               struct RTCRayHit16 *rh)
{
    const sensim_ray *rp[PACKET];
    for (uint32_t j = 0; j < m; j++)
        rp[j] = &rays[j];
    intersect16_p(top, pctx, rp, m, rh);
}

/* sensim__trace_rays_order(); @p sorted: hit k into hits[k] rather than hits[order[k]]. */
static inline __attribute__((always_inline)) void trace_order(const sensim_scene *scene, const sensim_ray *rays,
                                                              const int16_t *order, uint32_t n, sensim_hit *hits,
                                                              bool sorted)
{
    const trace_state *t = scene->trace;
    struct RTCIntersectContext ictx, pctx;
    rtcInitIntersectContext(&ictx);
    rtcInitIntersectContext(&pctx);
    pctx.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
    for (uint32_t base = 0; base < n; base += PACKET) {
        uint32_t m = n - base < PACKET ? n - base : PACKET, at[PACKET];
        const sensim_ray *rp[PACKET];
        for (uint32_t j = 0; j < m; j++)
            at[j] = order ? (uint32_t)order[base + j] : base + j, rp[j] = &rays[at[j]];
        if (!packet_coherent_p(rp, m)) {
            for (uint32_t j = 0; j < m; j++) {
                struct RTCRayHit rh;
                intersect1(t->top, &ictx, rp[j], &rh);
                fill_hit(t, rh.hit.geomID, rh.hit.instID[0], rh.hit.primID, rh.ray.tfar, rh.hit.Ng_x, rh.hit.Ng_y,
                         rh.hit.Ng_z, rp[j]->time, &hits[sorted ? base + j : at[j]]);
            }
            continue;
        }
        struct RTCRayHit16 rh;
        intersect16_p(t->top, &pctx, rp, m, &rh);
        for (uint32_t j = 0; j < m; j++)
            fill_hit(t, rh.hit.geomID[j], rh.hit.instID[0][j], rh.hit.primID[j], rh.ray.tfar[j], rh.hit.Ng_x[j],
                     rh.hit.Ng_y[j], rh.hit.Ng_z[j], rh.ray.time[j], &hits[sorted ? base + j : at[j]]);
    }
}

void sensim__trace_rays_order(const sensim_scene *scene, const sensim_ray *rays, const int16_t *order, uint32_t n,
                              sensim_hit *hits)
{
    trace_order(scene, rays, order, n, hits, false);
}

void sensim__trace_rays_order_into(const sensim_scene *scene, const sensim_ray *rays, const int16_t *order,
                                   uint32_t n, sensim_hit *out)
{
    trace_order(scene, rays, order, n, out, true);
}

void sensim__trace_rays(const sensim_scene *scene, const sensim_ray *rays, uint32_t n, sensim_hit *hits)
{
    sensim__trace_rays_order(scene, rays, NULL, n, hits);
}

/* sensim_packet16 is Embree's RTCRayHit16, field for field. */
#define SENSIM_PK_AT(ours, theirs)                                                                              \
    _Static_assert(offsetof(sensim_packet16, ours) == offsetof(struct RTCRayHit16, theirs), #ours)
SENSIM_PK_AT(ox, ray.org_x);
SENSIM_PK_AT(oy, ray.org_y);
SENSIM_PK_AT(oz, ray.org_z);
SENSIM_PK_AT(tnear, ray.tnear);
SENSIM_PK_AT(dx, ray.dir_x);
SENSIM_PK_AT(dy, ray.dir_y);
SENSIM_PK_AT(dz, ray.dir_z);
SENSIM_PK_AT(time, ray.time);
SENSIM_PK_AT(tfar, ray.tfar);
SENSIM_PK_AT(mask, ray.mask);
SENSIM_PK_AT(id, ray.id);
SENSIM_PK_AT(flags, ray.flags);
SENSIM_PK_AT(ng, hit.Ng_x);
SENSIM_PK_AT(u, hit.u);
SENSIM_PK_AT(v, hit.v);
SENSIM_PK_AT(prim, hit.primID);
SENSIM_PK_AT(geom, hit.geomID);
SENSIM_PK_AT(inst, hit.instID);
#undef SENSIM_PK_AT
_Static_assert(sizeof(sensim_packet16) == sizeof(struct RTCRayHit16), "sensim_packet16 size");
_Static_assert(RTC_MAX_INSTANCE_LEVEL_COUNT == 1, "sensim_packet16 holds one instance level");

void sensim__packet16_init(sensim_packet16 *p)
{
    for (uint32_t j = 0; j < PACKET; j++)
        p->tnear[j] = 0.0f, p->mask[j] = 0xFFFFFFFFu, p->id[j] = j, p->flags[j] = 0;
}

void sensim__trace_packet16(const sensim_scene *scene, sensim_packet16 *p, uint32_t m, float *t, uint8_t *tag,
                            uint32_t *object_id)
{
    const trace_state *ts = scene->trace;
    /* coherent: every ray within 60 degrees of ray 0 (all lanes tested, no
     * early exit, so the loop vectorises; idle lanes are not looked at) */
    int far = 0;
    for (uint32_t j = 0; j < PACKET; j++) /* 16 trips (lane 0 masked off): GCC -O2 vectorises */
        far |= (j > 0) & (j < m) & !(p->dx[0] * p->dx[j] + p->dy[0] * p->dy[j] + p->dz[0] * p->dz[j] > 0.5f);
    if (m <= 2 || far) { /* what sensim__trace_rays does with such rays: one at a time */
        sensim_ray r[PACKET] = {0};
        sensim_hit h[PACKET];
        for (uint32_t j = 0; j < m; j++)
            r[j] = (sensim_ray){{p->ox[j], p->oy[j], p->oz[j]}, {p->dx[j], p->dy[j], p->dz[j]}, 0.0f, p->tfar[j],
                                p->time[j]};
        sensim__trace_rays(scene, r, m, h);
        for (uint32_t j = 0; j < m; j++)
            t[j] = h[j].hit ? h[j].t : INFINITY, tag[j] = h[j].tag, object_id[j] = h[j].object_id;
        return;
    }
    struct RTCIntersectContext pctx;
    rtcInitIntersectContext(&pctx);
    pctx.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
    _Alignas(64) int valid[PACKET];
    for (uint32_t j = m; j < PACKET; j++) /* idle lanes: copies of lane 0, as load_packet writes them */
        p->ox[j] = p->ox[0], p->oy[j] = p->oy[0], p->oz[j] = p->oz[0], p->dx[j] = p->dx[0], p->dy[j] = p->dy[0],
        p->dz[j] = p->dz[0], p->tfar[j] = p->tfar[0], p->time[j] = p->time[0];
    for (uint32_t j = 0; j < PACKET; j++) { /* branch-free: vectorised */
        valid[j] = j < m ? -1 : 0;
        p->dx[j] = dir_safe(p->dx[j]), p->dy[j] = dir_safe(p->dy[j]), p->dz[j] = dir_safe(p->dz[j]);
        p->geom[j] = RTC_INVALID_GEOMETRY_ID, p->inst[j] = RTC_INVALID_GEOMETRY_ID;
    }
    rtcIntersect16(valid, ts->top, &pctx, (struct RTCRayHit16 *)(void *)p);
    /* neighbouring pixels mostly hit one mesh: its lookup (three dependent
     * loads) is made once per run of equal (geometry, instance) */
    unsigned last_geom = RTC_INVALID_GEOMETRY_ID, last_inst = RTC_INVALID_GEOMETRY_ID;
    const uint8_t *tags = NULL;
    uint32_t obj = 0;
    for (uint32_t j = 0; j < m; j++) {
        unsigned geom = p->geom[j], inst = p->inst[j], prim = p->prim[j];
        if (geom == RTC_INVALID_GEOMETRY_ID) {
            t[j] = INFINITY, tag[j] = 0, object_id[j] = 0;
            continue;
        }
        if (geom != last_geom || inst != last_inst) {
            const trace_inst *in = inst == RTC_INVALID_GEOMETRY_ID ? NULL : &ts->inst[inst];
            tags = (!in || in->world ? &ts->meshes[ts->static_mesh[geom]] : &ts->meshes[in->mesh])->tags;
            obj = !in || in->world ? ts->static_obj[geom] : in->object_id;
            last_geom = geom, last_inst = inst;
        }
        t[j] = p->tfar[j];
        tag[j] = tags[prim];
        object_id[j] = obj;
    }
}

/* ---- public ray queries (sensim/query.h) and cameras: every field of a hit ---- */

static void fill_full(const trace_state *t, unsigned geom, unsigned inst, unsigned prim, float tfar, float nx,
                      float ny, float nz, float u, float v, const sensim_ray *r, sensim_ray_hit *q)
{
    sensim_hit h;
    fill_hit(t, geom, inst, prim, tfar, nx, ny, nz, r->time, &h);
    memset(q, 0, sizeof *q);
    if (!h.hit) {
        q->distance = INFINITY;
        return;
    }
    float l = sqrtf(h.ng[0] * h.ng[0] + h.ng[1] * h.ng[1] + h.ng[2] * h.ng[2]);
    float sg = h.ng[0] * r->dir[0] + h.ng[1] * r->dir[1] + h.ng[2] * r->dir[2] > 0 ? -1.0f : 1.0f;
    float k = l > 0 ? sg / l : 0;
    q->distance = h.t;
    q->normal[0] = h.ng[0] * k, q->normal[1] = h.ng[1] * k, q->normal[2] = h.ng[2] * k;
    q->u = u, q->v = v;
    q->object_id = h.object_id;
    q->mesh_id = inst == RTC_INVALID_GEOMETRY_ID || t->inst[inst].world ? t->static_mesh[geom]
                                                                                : t->inst[inst].mesh;
    q->primitive_id = prim;
    q->material = h.material;
    q->tag = h.tag;
    q->hit = 1;
}

void sensim__trace_query(const sensim_scene *scene, const sensim_ray *rays, uint32_t n, sensim_ray_hit *hits)
{
    const trace_state *t = scene->trace;
    struct RTCIntersectContext ictx, pctx;
    rtcInitIntersectContext(&ictx);
    rtcInitIntersectContext(&pctx);
    pctx.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
    for (uint32_t base = 0; base < n; base += PACKET) {
        uint32_t m = n - base < PACKET ? n - base : PACKET;
        if (!packet_coherent(rays + base, m)) {
            for (uint32_t j = 0; j < m; j++) {
                const sensim_ray *r = &rays[base + j];
                struct RTCRayHit rh;
                intersect1(t->top, &ictx, r, &rh);
                fill_full(t, rh.hit.geomID, rh.hit.instID[0], rh.hit.primID, rh.ray.tfar, rh.hit.Ng_x, rh.hit.Ng_y,
                          rh.hit.Ng_z, rh.hit.u, rh.hit.v, r, &hits[base + j]);
            }
            continue;
        }
        struct RTCRayHit16 rh;
        intersect16(t->top, &pctx, rays + base, m, &rh);
        for (uint32_t j = 0; j < m; j++)
            fill_full(t, rh.hit.geomID[j], rh.hit.instID[0][j], rh.hit.primID[j], rh.ray.tfar[j], rh.hit.Ng_x[j],
                      rh.hit.Ng_y[j], rh.hit.Ng_z[j], rh.hit.u[j], rh.hit.v[j], &rays[base + j], &hits[base + j]);
    }
}

void sensim__trace_occluded(const sensim_scene *scene, const sensim_ray *rays, uint32_t n, uint8_t *occ)
{
    const trace_state *t = scene->trace;
    struct RTCIntersectContext ictx, pctx;
    rtcInitIntersectContext(&ictx);
    rtcInitIntersectContext(&pctx);
    /* Shadow packets are traced without RTC_INTERSECT_CONTEXT_FLAG_COHERENT: with it, Embree 3.13.5's
     * rtcOccluded16 looped forever on a packet of 4 valid sun rays from the street (under the
     * address-sanitizer build; the same rays finish without the flag, and the answer does not depend on it). */
    for (uint32_t base = 0; base < n; base += PACKET) {
        uint32_t m = n - base < PACKET ? n - base : PACKET;
        if (!packet_coherent(rays + base, m)) {
            for (uint32_t j = 0; j < m; j++) {
                const sensim_ray *r = &rays[base + j];
                struct RTCRay ray;
                load_ray1(r, &ray);
                rtcOccluded1(t->top, &ictx, &ray);
                occ[base + j] = ray.tfar < 0; /* Embree sets tfar = -inf on a hit */
            }
            continue;
        }
        struct RTCRay16 ray;
        _Alignas(64) int valid[PACKET];
        const sensim_ray *rp[PACKET];
        for (uint32_t j = 0; j < m; j++)
            rp[j] = &rays[base + j];
        load_packet_p(rp, m, &ray, valid);
        rtcOccluded16(valid, t->top, &pctx, &ray);
        for (uint32_t j = 0; j < m; j++)
            occ[base + j] = ray.tfar[j] < 0;
    }
}

/* ---- bare loops for benchmarks: the same rays, nothing but Embree ---- */

static void bench_naive(RTCScene top, const sensim_ray *rays, uint64_t n, uint64_t *hits)
{
    struct RTCIntersectContext ictx;
    rtcInitIntersectContext(&ictx);
    uint64_t h = 0;
    for (uint64_t i = 0; i < n; i++) {
        struct RTCRayHit rh;
        intersect1(top, &ictx, &rays[i], &rh);
        h += rh.hit.geomID != RTC_INVALID_GEOMETRY_ID;
    }
    *hits = h;
}

#define BENCH_PACKET(W, T, FN)                                                                              \
    static void bench_packet##W(RTCScene top, const sensim_ray *rays, uint64_t n, uint64_t *hits)          \
    {                                                                                                       \
        struct RTCIntersectContext ictx;                                                                    \
        rtcInitIntersectContext(&ictx);                                                                     \
        ictx.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;                                                   \
        uint64_t h = 0;                                                                                     \
        for (uint64_t base = 0; base < n; base += W) {                                                      \
            T rh;                                                                                           \
            _Alignas(64) int valid[W];                                                                     \
            for (unsigned j = 0; j < W; j++) {                                                              \
                const sensim_ray *r = &rays[base + j < n ? base + j : base];                                 \
                valid[j] = base + j < n ? -1 : 0;                                                           \
                rh.ray.org_x[j] = r->org[0], rh.ray.org_y[j] = r->org[1], rh.ray.org_z[j] = r->org[2];      \
                rh.ray.dir_x[j] = dir_safe(r->dir[0]), rh.ray.dir_y[j] = dir_safe(r->dir[1]);                \
                rh.ray.dir_z[j] = dir_safe(r->dir[2]);                                                      \
                rh.ray.tnear[j] = r->tnear, rh.ray.tfar[j] = r->tfar, rh.ray.time[j] = r->time;             \
                rh.ray.mask[j] = 0xFFFFFFFFu, rh.ray.id[j] = j, rh.ray.flags[j] = 0;                        \
                rh.hit.geomID[j] = RTC_INVALID_GEOMETRY_ID;                                                 \
                rh.hit.instID[0][j] = RTC_INVALID_GEOMETRY_ID;                                              \
            }                                                                                               \
            FN(valid, top, &ictx, &rh);                                                                     \
            for (unsigned j = 0; j < W && base + j < n; j++)                                                \
                h += rh.hit.geomID[j] != RTC_INVALID_GEOMETRY_ID;                                           \
        }                                                                                                   \
        *hits = h;                                                                                          \
    }
BENCH_PACKET(8, struct RTCRayHit8, rtcIntersect8)
BENCH_PACKET(16, struct RTCRayHit16, rtcIntersect16)

void sensim__trace_bench(const sensim_scene *scene, const sensim_ray *rays, uint64_t n, int32_t variant,
                         uint32_t threads, uint64_t *out_hits)
{
    const trace_state *t = scene->trace;
    const uint64_t block = 1024, nblocks = (n + block - 1) / block;
    uint64_t total = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic) reduction(+ : total) if (threads > 1)
    for (uint64_t b = 0; b < nblocks; b++) {
        uint64_t lo = b * block, m = n - lo < block ? n - lo : block, h = 0;
        if (variant == SENSIM_BENCH_NAIVE)
            bench_naive(t->top, rays + lo, m, &h);
        else if (variant == SENSIM_BENCH_PACKET8)
            bench_packet8(t->top, rays + lo, m, &h);
        else
            bench_packet16(t->top, rays + lo, m, &h);
        total += h;
    }
    *out_hits = total;
}
