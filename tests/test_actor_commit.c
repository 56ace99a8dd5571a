/* A commit that keeps the top level (issue 66): when the same actors are
 * instanced, only those that moved are set again and Embree's top level is
 * rebuilt only if one did. Every hit must be the one a scene built afresh
 * with the same final state gives, bit for bit: checked over a sequence of
 * steps that move some actors, change only the second pose of a motion,
 * switch actors between parked and moving, move nothing, and add an actor. */
#include <sensim/sensim.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define CHECK_OK(x)                                                                                                    \
    do {                                                                                                               \
        sensim_status st_ = (x);                                                                                       \
        if (st_ != SENSIM_OK)                                                                                          \
            fail_msg("%s: %s", #x, sensim_context_last_error(NULL));                                                   \
    } while (0)

#define ACTORS 48
#define RAYS 20000

typedef struct actor_state {
    uint32_t id, proto;
    int moving;
    double p0[16], p1[16];
} actor_state;

static void pose_at(double m[16], double x, double y, double z, double yaw)
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = cos(yaw), m[1] = sin(yaw), m[4] = -sin(yaw), m[5] = cos(yaw), m[10] = m[15] = 1;
    m[12] = x, m[13] = y, m[14] = z;
}

/* ground, a box prototype and a wedge prototype */
static sensim_scene *base(sensim_context *ctx, uint32_t proto[2])
{
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    static const float gv[] = {-200, -200, 0, 200, -200, 0, 200, 200, 0, -200, 200, 0};
    static const uint32_t gi[] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = gv, md.vertex_count = 4, md.indices = gi, md.triangle_count = 2;
    CHECK_OK(sensim_scene_add_mesh(s, &md, NULL));
    static const float bv[] = {-2, -1, 0, 2, -1, 0, 2, 1, 0, -2, 1, 0, -2, -1, 1.5f, 2, -1, 1.5f, 2, 1, 1.5f, -2, 1, 1.5f};
    static const uint32_t bi[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                  1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
    sensim_mesh_desc_init(&md);
    md.vertices = bv, md.vertex_count = 8, md.indices = bi, md.triangle_count = 12;
    md.flags = SENSIM_MESH_PROTOTYPE;
    CHECK_OK(sensim_scene_add_mesh(s, &md, &proto[0]));
    static const float wv[] = {-1, -1, 0, 1, -1, 0, 0, 1, 0, 0, 0, 2};
    static const uint32_t wi[] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3};
    sensim_mesh_desc_init(&md);
    md.vertices = wv, md.vertex_count = 4, md.indices = wi, md.triangle_count = 4;
    md.flags = SENSIM_MESH_PROTOTYPE;
    CHECK_OK(sensim_scene_add_mesh(s, &md, &proto[1]));
    CHECK_OK(sensim_scene_set_motion_interval(s, 0, 50000000));
    return s;
}

static void apply(sensim_scene *s, const actor_state *a)
{
    if (a->moving)
        CHECK_OK(sensim_scene_set_actor_motion(s, a->id, a->p0, a->p1));
    else
        CHECK_OK(sensim_scene_set_actor_pose(s, a->id, a->p0));
}

/* A scene built afresh with the actors' states: one commit. */
static sensim_scene *fresh(sensim_context *ctx, const actor_state *as, int n)
{
    uint32_t proto[2];
    sensim_scene *s = base(ctx, proto);
    for (int i = 0; i < n; i++)
        CHECK_OK(sensim_scene_add_actor(s, proto[as[i].proto], as[i].id, as[i].p0));
    for (int i = 0; i < n; i++)
        if (as[i].moving)
            apply(s, &as[i]);
    CHECK_OK(sensim_scene_commit(s));
    return s;
}

static float org[3 * RAYS], dir[3 * RAYS];
static int64_t when[RAYS];
static sensim_ray_hit ha[RAYS], hb[RAYS];

static void trace(const sensim_scene *s, sensim_ray_hit *h)
{
    sensim_ray_batch b;
    memset(&b, 0, sizeof b);
    b.count = RAYS, b.origins = org, b.directions = dir, b.time_ns = when;
    CHECK_OK(sensim_scene_intersect(s, &b, h));
}

static void same_hits(sensim_context *ctx, const sensim_scene *kept, const actor_state *as, int n, const char *step)
{
    sensim_scene *f = fresh(ctx, as, n);
    trace(kept, ha);
    trace(f, hb);
    int actor_hits = 0;
    for (int k = 0; k < RAYS; k++) {
        if (memcmp(&ha[k], &hb[k], sizeof ha[k]) != 0)
            fail_msg("%s: ray %d: kept top level %.9g m (object %u) vs fresh %.9g m (object %u)", step, k,
                     (double)ha[k].distance, ha[k].object_id, (double)hb[k].distance, hb[k].object_id);
        actor_hits += ha[k].hit && ha[k].object_id;
    }
    /* the rays see the actors (else the check says nothing) */
    assert_true(actor_hits > RAYS / 20);
    sensim_scene_destroy(f);
}

static void test_kept_top_level_same_hits(void **state)
{
    (void)state;
    sensim_context *ctx;
    CHECK_OK(sensim_context_create(NULL, &ctx));
    uint64_t rng = 12345;
#define RND() ((double)((rng = rng * 6364136223846793005ull + 1442695040888963407ull) >> 11) * 0x1p-53)
    for (int k = 0; k < RAYS; k++) { /* from three posts around the actors, at times over the interval */
        int o = k % 3;
        org[3 * k] = (float)(-10 + 10 * o), org[3 * k + 1] = (float)(-25 + 5 * o), org[3 * k + 2] = 1.2f;
        double az = 2 * M_PI * RND(), el = -0.25 + 0.3 * RND();
        dir[3 * k] = (float)(cos(el) * cos(az)), dir[3 * k + 1] = (float)(cos(el) * sin(az));
        dir[3 * k + 2] = (float)sin(el);
        when[k] = (int64_t)(50000000 * RND());
    }
    actor_state as[ACTORS + 1];
    uint32_t proto[2];
    sensim_scene *s = base(ctx, proto);
    for (int i = 0; i < ACTORS; i++) {
        as[i].id = 100 + 7 * (uint32_t)i, as[i].proto = (uint32_t)i % 2, as[i].moving = 0;
        pose_at(as[i].p0, -30 + 9 * (i % 8), -30 + 9 * (i / 8), 0, 0.3 * i);
        CHECK_OK(sensim_scene_add_actor(s, proto[as[i].proto], as[i].id, as[i].p0));
    }
    CHECK_OK(sensim_scene_commit(s));
    same_hits(ctx, s, as, ACTORS, "first commit");
    int n = ACTORS;
    for (int step = 1; step <= 6; step++) {
        for (int i = 0; i < n; i++) {
            actor_state *a = &as[i];
            if (step == 1 && i % 3 == 0) { /* parked actors move */
                pose_at(a->p0, a->p0[12] + 0.7, a->p0[13] - 0.4, 0, 0.3 * i + 0.2);
                apply(s, a);
            } else if (step == 2 && i % 2 == 1) { /* motion: translating, turning */
                a->moving = 1;
                memcpy(a->p1, a->p0, sizeof a->p1);
                pose_at(a->p1, a->p0[12] + 1.5, a->p0[13] + 0.2, 0.1, i % 4 == 1 ? 0.3 * i + 0.15 : atan2(a->p0[1], a->p0[0]));
                apply(s, a);
            } else if (step == 3 && a->moving && i % 4 == 3) { /* only the second pose changes */
                a->p1[12] += 0.9;
                apply(s, a);
            } else if (step == 4 && i % 5 == 0) { /* parked <-> moving */
                if (a->moving) {
                    a->moving = 0;
                } else {
                    a->moving = 1;
                    pose_at(a->p1, a->p0[12] - 1.0, a->p0[13], 0, 0.3 * i - 0.1);
                }
                apply(s, a);
            }
            /* step 5: nothing moves; step 6: an actor is added */
        }
        if (step == 6) {
            actor_state *a = &as[n++];
            a->id = 5, a->proto = 1, a->moving = 0;
            pose_at(a->p0, 2, -20, 0, 1.0);
            CHECK_OK(sensim_scene_add_actor(s, proto[1], a->id, a->p0));
        }
        CHECK_OK(sensim_scene_commit(s));
        char what[32];
        snprintf(what, sizeof what, "step %d", step);
        same_hits(ctx, s, as, n, what);
    }
    sensim_scene_destroy(s);
    sensim_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kept_top_level_same_hits),
    };
    return cmocka_run_group_tests_name("actor_commit", tests, NULL, NULL);
}
