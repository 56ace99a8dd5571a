/* Time and motion: per-shot platform poses, moving actors, rigs, frames. */
#include "helpers.h"
#include "lidar_impl.h"
#include "motion.h"
#include "street.h"

#define PI 3.14159265358979323846

TEST_GROUP_FIXTURE(2, 0)

static void wall_x(sensim_scene *s, float x)
{
    const float v[] = {x, -500, -500, x, 500, -500, x, 500, 500, x, -500, 500};
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc d;
    sensim_mesh_desc_init(&d);
    d.vertices = v, d.vertex_count = 4, d.indices = idx, d.triangle_count = 2, d.tag = 4;
    CHECK_OK(sensim_scene_add_mesh(s, &d, NULL));
}

static sensim_point *scan_keys(sensim_lidar *l, sensim_scene *s, const sensim_pose_key *keys, uint32_t nkeys,
                               const int64_t *cuts, int ncuts, int64_t t0, int64_t t1, uint64_t *n,
                               sensim_frame_header *hdrs, uint32_t *nh)
{
    sensim_ring *r = test_ring(2000000, 64, SENSIM_OVERFLOW_FAIL);
    sensim_motion m;
    memset(&m, 0, sizeof m);
    m.keys = keys;
    m.key_count = nkeys;
    sensim_point *p = NULL;
    *n = 0;
    int64_t a = t0;
    for (int i = 0; i <= ncuts; i++) {
        int64_t b = i < ncuts ? cuts[i] : t1;
        CHECK_OK(sensim_lidar_scan_motion(l, s, a, b, &m, r, NULL));
        drain(r, &p, n, hdrs, 64, nh);
        a = b;
    }
    free(r);
    return p;
}

/* Driving at 10 m/s toward a wall: each range shrinks by v times its own time. */
static void test_platform_toward_wall(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    wall_x(s, 50);
    CHECK_OK(sensim_scene_commit(s));
    double pose[16];
    identity(pose);
    const double v[3] = {10, 0, 0}, w[3] = {0, 0, 0};
    sensim_pose_key keys[2];
    CHECK_OK(sensim_motion_from_velocity(pose, 0, 200000000, v, w, keys));
    const char *sets[] = {"max_range_m=120"};
    const char *frames[] = {"sensor", "world", "deskewed"};
    for (int f = 0; f < 3; f++) {
        char pf[64];
        snprintf(pf, sizeof pf, "points_frame=%s", frames[f]);
        const char *all[] = {sets[0], pf, "beam=ideal", "dropoff_model=none"};
        sensim_lidar *l;
        CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", all, 4, &l));
        uint64_t n;
        sensim_frame_header h[64];
        uint32_t nh = 0;
        sensim_point *p = scan_keys(l, s, keys, 2, NULL, 0, 0, 200000000, &n, h, &nh);
        assert_int_equal(nh, 2);
        uint64_t k = 0;
        double worst = 0;
        for (uint32_t fr = 0; fr < nh; fr++) {
            double x0 = 10.0 * h[fr].t_begin_ns * 1e-9;
            assert_true(fabs(h[fr].sensor_pose[12] - x0) < 1e-9); /* header pose: at the frame start */
            for (uint64_t i = 0; i < h[fr].point_count; i++, k++) {
                double t = (h[fr].t_begin_ns + (int64_t)p[k].t_offset_ns) * 1e-9, xs = 10.0 * t;
                if (f == 0) {
                    double dx = p[k].x / p[k].range_m;
                    double err = fabs(p[k].range_m - (50.0 - xs) / dx);
                    worst = fmax(worst, err);
                } else if (f == 1) {
                    worst = fmax(worst, fabs(p[k].x - 50.0)); /* world: on the wall */
                } else {
                    worst = fmax(worst, fabs(p[k].x - (50.0 - x0))); /* sensor frame at frame start */
                }
            }
        }
        printf("# toward wall, points %s: %llu points, worst error %.2e m\n", frames[f], (unsigned long long)n,
               worst);
        assert_true(worst < 1e-3);
        free(p);
        sensim_lidar_destroy(l);
    }
    /* distortion is visible: the first and last shots of a frame disagree by about v * 0.1 s */
    sensim_scene_destroy(s);
}

/* An actor crossing the beam appears where it is at each point's own time. */
static void test_moving_actor(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
    uint32_t box = add_box(s, lo, hi, 14, SENSIM_MESH_PROTOTYPE);
    double a0[16], a1[16];
    translation(a0, 10, -4, 0);
    /* end pose: moved 4 m in y and turned 30 degrees about z */
    identity(a1);
    a1[0] = cos(PI / 6), a1[1] = sin(PI / 6), a1[4] = -sin(PI / 6), a1[5] = cos(PI / 6);
    a1[12] = 10, a1[13] = 0, a1[14] = 0;
    CHECK_OK(sensim_scene_add_actor(s, box, 5, a0));
    CHECK_OK(sensim_scene_set_motion_interval(s, 0, 100000000));
    CHECK_OK(sensim_scene_set_actor_motion(s, 5, a0, a1));
    double bad[16];
    identity(bad);
    bad[0] = 2; /* scaled: not rigid */
    assert_int_equal(sensim_scene_set_actor_motion(s, 5, a0, bad), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_scene_set_actor_motion(s, 99, a0, a1), SENSIM_ERR_NOT_FOUND);
    CHECK_OK(sensim_scene_commit(s));
    const char *sets[] = {"max_range_m=60"};
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "pandar64", sets, 1, &l));
    double pose[16];
    identity(pose);
    sensim_pose_key key = {0, {0}};
    memcpy(key.pose, pose, sizeof pose);
    uint64_t n;
    sensim_frame_header h[64];
    uint32_t nh = 0;
    sensim_point *p = scan_keys(l, s, &key, 1, NULL, 0, 0, 100000000, &n, h, &nh);
    uint64_t hits = 0;
    double worst = 0, ymin = 1e9, ymax = -1e9;
    for (uint64_t i = 0; i < n; i++) {
        if (p[i].object_id != 5)
            continue;
        hits++;
        double u = p[i].t_offset_ns * 1e-8; /* fraction of the 0.1 s interval */
        double ang = u * PI / 6, cy = -4 + 4 * u;
        /* world point into the actor frame at that time */
        double dx = p[i].x - 10, dy = p[i].y - cy;
        double bx = cos(ang) * dx + sin(ang) * dy, by = -sin(ang) * dx + cos(ang) * dy, bz = p[i].z;
        double m = fmax(fabs(bx), fmax(fabs(by), fabs(bz)));
        worst = fmax(worst, fabs(m - 1.0));
        ymin = fmin(ymin, p[i].y), ymax = fmax(ymax, p[i].y);
    }
    printf("# moving actor: %llu hits, worst distance to the box at its time %.2e m, seen over y %.2f .. %.2f\n",
           (unsigned long long)hits, worst, ymin, ymax);
    assert_true(hits > 100);
    assert_true(worst < 2e-3);
    free(p);

    /* split invariance with platform motion and moving actors (same key list) */
    const double v[3] = {3, 1, 0}, w[3] = {0, 0, 0.5};
    sensim_pose_key keys[2];
    CHECK_OK(sensim_motion_from_velocity(pose, 0, 100000000, v, w, keys));
    sensim_lidar *l1, *l2;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "pandar64", sets, 1, &l1));
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "pandar64", sets, 1, &l2));
    const int64_t cuts[] = {1, 33333333, 50000000, 99999999};
    uint64_t n1, n2;
    uint32_t nh1 = 0, nh2 = 0;
    sensim_frame_header h1[64], h2[64];
    sensim_point *p1 = scan_keys(l1, s, keys, 2, NULL, 0, 0, 100000000, &n1, h1, &nh1);
    sensim_point *p2 = scan_keys(l2, s, keys, 2, cuts, 4, 0, 100000000, &n2, h2, &nh2);
    assert_int_equal(n1, n2);
    assert_memory_equal(p1, p2, n1 * sizeof *p1);
    free(p1);
    free(p2);
    sensim_lidar_destroy(l);
    sensim_lidar_destroy(l1);
    sensim_lidar_destroy(l2);
    sensim_scene_destroy(s);
}

static void test_motion_keys(void **state)
{
    (void)state;
    double pose[16], out[16];
    identity(pose);
    const double v[3] = {1, 2, 3}, w[3] = {0, 0, PI}; /* half a turn per second */
    sensim_pose_key keys[2];
    CHECK_OK(sensim_motion_from_velocity(pose, 0, 1000000000, v, w, keys));
    CHECK_OK(sensim_motion_pose_at(keys, 2, 500000000, out));
    assert_true(fabs(out[12] - 0.5) < 1e-12 && fabs(out[13] - 1.0) < 1e-12 && fabs(out[14] - 1.5) < 1e-12);
    assert_true(fabs(out[0] - cos(PI / 2)) < 1e-12 && fabs(out[1] - sin(PI / 2)) < 1e-12); /* quarter turn */
    CHECK_OK(sensim_motion_pose_at(keys, 2, -5, out)); /* before: held */
    assert_true(fabs(out[0] - 1) < 1e-12 && fabs(out[12]) < 1e-12);
    sensim_pose_key bad[2] = {keys[1], keys[0]};
    assert_int_equal(sensim_motion_pose_at(bad, 2, 0, out), SENSIM_ERR_TIME_ORDER);
    assert_int_equal(sensim_motion_pose_at(keys, 0, 0, out), SENSIM_ERR_INVALID_ARGUMENT);
}

/* Shots fired together share one evaluation of the moving sensor's pose (a
 * lane keeps its poses by firing time) and a key segment is set up once: a
 * scan cut at every firing time, so that no call holds two of them, gives
 * the same bytes as one call, on pandar128 (16 firing times a column of 128
 * shots), with sub-rays (their directions take the pose too) and world-frame
 * points (the pose again), on both motion models, turning and climbing,
 * over 20 key segments. */
static void test_pose_per_firing_time(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    street_info si;
    CHECK_OK(street_scene_build(s, 120.0f, 1, &si));
    CHECK_OK(sensim_scene_commit(s));
    double pose[16];
    translation(pose, 1.5, 0.5, 1.8);
    /* 21 keys 5 ms apart, the segments' motions in turn: a path sets up its
     * first 16 segments once, the last 4 at each pose */
    enum { NK = 21 };
    const double v[3][3] = {{12, 1, 0.5}, {11, 2, 0}, {12.5, 0, -0.3}},
                 w[3][3] = {{0.05, -0.1, 0.8}, {0, 0.1, -0.5}, {-0.05, 0, 0.3}};
    sensim_pose_key keys[NK];
    keys[0].t_ns = 0;
    memcpy(keys[0].pose, pose, sizeof pose);
    for (int i = 0; i + 1 < NK; i++) {
        sensim_pose_key two[2];
        CHECK_OK(sensim_motion_from_velocity(keys[i].pose, i * 5000000, (i + 1) * 5000000, v[i % 3], w[i % 3], two));
        keys[i + 1] = two[1];
    }
    const char *sets[] = {"points_frame=world", "beam_subrays=7"};
    const char *sensor_sets[] = {"points_frame=sensor", "beam_subrays=7"};
    sensim_lidar *l, *ls;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "pandar128", sets, 2, &l));
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "pandar128", sensor_sets, 2, &ls));
    const int64_t t1 = 2000000, P = 100000000; /* cut in the first 2 ms (36 columns), then the frame's rest */
    for (uint32_t interp = 0; interp < 2; interp++) {
        sensim_motion m;
        memset(&m, 0, sizeof m);
        m.keys = keys, m.key_count = NK, m.interp = interp ? SENSIM_INTERP_CAUSAL : SENSIM_INTERP_LINEAR;
        sensim_ring *r = test_ring(4000000, 8, SENSIM_OVERFLOW_FAIL);
        sensim_point *whole = NULL, *cut = NULL;
        uint64_t nw = 0, nc = 0;
        CHECK_OK(sensim_lidar_rewind(l));
        CHECK_OK(sensim_lidar_scan_motion(l, s, 0, P, &m, r, NULL));
        drain(r, &whole, &nw, NULL, 0, NULL);
        int64_t a = 0, calls = 0; /* a call from each firing time with points to the next */
        CHECK_OK(sensim_lidar_rewind(l));
        for (uint64_t i = 1; i < nw && a < t1; i++) {
            int64_t b = (int64_t)whole[i].t_offset_ns;
            if (b == (int64_t)whole[i - 1].t_offset_ns)
                continue;
            CHECK_OK(sensim_lidar_scan_motion(l, s, a, b, &m, r, NULL));
            a = b, calls++;
        }
        CHECK_OK(sensim_lidar_scan_motion(l, s, a, P, &m, r, NULL));
        drain(r, &cut, &nc, NULL, 0, NULL);
        printf("# moving pandar128 (%s): %llu points, the same with %lld calls of one firing time first\n",
               interp ? "causal" : "linear", (unsigned long long)nw, (long long)calls);
        assert_true(nw > 100000);
        assert_true(calls > 16 * 30); /* 36 columns of 16 firing times */
        assert_int_equal(nc, nw);
        assert_memory_equal(cut, whole, nw * sizeof *whole);
        /* the world-frame points are the sensor-frame ones moved by the model's
         * pose at their time as sensim_kinematics_at() evaluates it (a segment
         * set up on the spot, not once) */
        sensim_point *sp = NULL;
        uint64_t ns = 0;
        double worst = 0;
        CHECK_OK(sensim_lidar_rewind(ls));
        CHECK_OK(sensim_lidar_scan_motion(ls, s, 0, P, &m, r, NULL));
        drain(r, &sp, &ns, NULL, 0, NULL);
        assert_int_equal(ns, nw);
        for (uint64_t i = 0; i < ns; i += 7) {
            sensim_kinematics k;
            CHECK_OK(sensim_kinematics_at(keys, NK, (int32_t)m.interp, (int64_t)sp[i].t_offset_ns, &k));
            const double *S = k.pose, x = sp[i].x, y = sp[i].y, z = sp[i].z;
            worst = fmax(worst, fabs(S[0] * x + S[4] * y + S[8] * z + S[12] - whole[i].x));
            worst = fmax(worst, fabs(S[1] * x + S[5] * y + S[9] * z + S[13] - whole[i].y));
            worst = fmax(worst, fabs(S[2] * x + S[6] * y + S[10] * z + S[14] - whole[i].z));
        }
        printf("# world = model pose x sensor point within %.2e m\n", worst);
        assert_true(worst < 1e-4); /* float coordinates up to ~120 m: 7.6e-6 m an ulp */
        free(sp);
        free(whole);
        free(cut);
        free(r);
    }
    sensim_lidar_destroy(l);
    sensim_lidar_destroy(ls);
    sensim_scene_destroy(s);
}

/* A uniform draw in [0, 1) (a 64-bit LCG's top 53 bits). */
static double unit_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) * 0x1.0p-53;
}

/* Four poses side by side (sensim__path_pose4, the lidar's lane of firing
 * times) are the bits sensim__path_pose() gives one at a time, on linear
 * and causal paths: slow turns (the slerp's linear weights), fast ones,
 * times inside one segment, across segments, on keys and outside the keys;
 * and the four products with a mount are sensim__mat4_mul()'s. */
static void test_pose4_same_bits(void **state)
{
    (void)state;
    uint64_t rng = 0x9E3779B97F4A7C15ull, vectors = 0;
#define RND() unit_rand(&rng)
    double mount[16];
    sensim__pose_from_xyz_rpy(0.8, -0.2, 1.1, 0.05, -0.3, 1.2, mount);
    for (int trial = 0; trial < 200; trial++) {
        enum { NK = 6 };
        sensim_pose_key keys[NK];
        double pose[16];
        sensim__pose_from_xyz_rpy(RND() * 10, RND() * 10, RND(), RND() * 6, RND() - 0.5, RND() * 6, pose);
        keys[0].t_ns = 1000000000;
        memcpy(keys[0].pose, pose, sizeof pose);
        const double turn = trial % 3 == 0 ? 1e-3 : 3.0; /* rad/s: under 4.5e-4 rad a segment, or well over */
        for (int i = 0; i + 1 < NK; i++) {
            const double v[3] = {RND() * 20 - 10, RND() * 4 - 2, RND() - 0.5},
                         w[3] = {turn * (RND() - 0.5), turn * (RND() - 0.5), turn * (RND() - 0.5)};
            const int64_t dt = 1000000 + (int64_t)(RND() * 4e7);
            sensim_pose_key two[2];
            CHECK_OK(sensim_motion_from_velocity(keys[i].pose, keys[i].t_ns, keys[i].t_ns + dt, v, w, two));
            keys[i + 1] = two[1];
        }
        const int64_t t0 = keys[0].t_ns, span = keys[NK - 1].t_ns - t0;
        for (int32_t interp = 0; interp < 2; interp++) {
            static sensim_path path; /* 24 KB */
            CHECK_OK(sensim__path_init(&path, keys, NK, interp ? SENSIM_INTERP_CAUSAL : SENSIM_INTERP_LINEAR));
            for (int q = 0; q < 40; q++) {
                int64_t t[4];
                const uint32_t m = 1 + (uint32_t)(RND() * 4) % 4;
                const int seg = (int)(RND() * (NK - 1));
                for (int l = 0; l < 4; l++) {
                    if (q % 4 == 0) /* anywhere, a little before and after the keys too */
                        t[l] = t0 - 1000 + (int64_t)(RND() * (double)(span + 2000));
                    else if (q % 4 == 1) /* on a key */
                        t[l] = keys[(int)(RND() * NK)].t_ns;
                    else /* inside one segment */
                        t[l] = keys[seg].t_ns + 1 +
                               (int64_t)(RND() * (double)(keys[seg + 1].t_ns - keys[seg].t_ns - 2));
                }
                sensim_v4d P[16], S[16];
                sensim__path_pose4(&path, t, m, P);
                sensim__mat4_mul4(P, mount, S);
                for (uint32_t l = 0; l < 4; l++) {
                    double one[16], lane[16], prod[16], lprod[16];
                    sensim__path_pose(&path, t[l < m ? l : 0], one);
                    sensim__mat4_mul(one, mount, prod);
                    for (int e = 0; e < 16; e++)
                        lane[e] = P[e][l], lprod[e] = S[e][l];
                    assert_memory_equal(lane, one, sizeof one);
                    assert_memory_equal(lprod, prod, sizeof prod);
                }
                vectors++;
            }
        }
    }
#undef RND
    printf("# %llu groups of four poses: the same bits as one at a time\n", (unsigned long long)vectors);
}

/* A moving lidar's pose spans (lane_pose.c, sensim_pose_span): a shot's
 * pose is within 1e-10 (rotation entries) and 1e-8 m (translation) of the
 * exact one; a span that is not one smooth piece of the path (a key inside,
 * before the first key, past the last) and a turn too fast for the
 * quadratic give the exact pose bit for bit; a steady motion uses the
 * spans; and a time's pose has the same bits whatever was asked before it
 * (the span cache's state, the order of the shots). */
static void test_pose_spans(void **state)
{
    (void)state;
    enum { NK = 6, NT = 600 };
    const int64_t G = SENSIM_POSE_SPAN_NS;
    uint64_t rng = 0x2545F4914F6CDD1Dull, used = 0, exact = 0;
    double worst_rot = 0, worst_pos = 0;
#define RND() unit_rand(&rng)
    double mount[16];
    sensim__pose_from_xyz_rpy(0.8, -0.2, 1.1, 0.05, -0.3, 1.2, mount);
    sensim_lane_scratch *w = calloc(1, sizeof *w), *w2 = calloc(1, sizeof *w2);
    sensim_pose_slot *got = calloc(NT, sizeof *got);
    int64_t *tq = calloc(NT, sizeof *tq);
    assert_non_null(w), assert_non_null(w2), assert_non_null(got), assert_non_null(tq);
    for (int trial = 0; trial < 45; trial++) {
        const int kind = trial % 3; /* 0 steady, 1 changing, 2 too fast a turn */
        sensim_pose_key keys[NK];
        sensim__pose_from_xyz_rpy(RND() * 100, RND() * 100, RND(), RND() * 6, RND() - 0.5, RND() * 6, keys[0].pose);
        keys[0].t_ns = -3000000 + (int64_t)(RND() * 6e6); /* around 0: spans of negative times too */
        const bool khz = kind == 0 && trial % 2 == 0; /* a 1 kHz host's keys: on span ends */
        if (khz)
            keys[0].t_ns = keys[0].t_ns / 1000000 * 1000000;
        if (trial % 5 == 3) /* the ends of the clock (+-2^62 ns), on whole milliseconds */
            keys[0].t_ns = -((int64_t)1 << 62) / 1000000 * 1000000 + 1000000;
        else if (trial % 5 == 4)
            keys[0].t_ns = (((int64_t)1 << 62) - 200000000) / 1000000 * 1000000;
        double v[3] = {RND() * 20 - 10, RND() * 4 - 2, RND() - 0.5}, wr[3] = {RND() - 0.5, RND() - 0.5, RND()};
        for (int i = 0; i + 1 < NK; i++) {
            if (kind == 1)
                for (int c = 0; c < 3; c++)
                    v[c] = RND() * 20 - 10, wr[c] = 2 * (RND() - 0.5);
            const double turn = kind == 2 ? 2500.0 : 1.0; /* rad/s: 2.5 rad a 1 ms segment */
            const double wv[3] = {turn * wr[0], turn * wr[1], turn * wr[2]};
            const int64_t dt = kind == 2 ? 1000003 : khz ? 1000000 : 1000000 + (int64_t)(RND() * 2e7);
            sensim_pose_key two[2];
            CHECK_OK(sensim_motion_from_velocity(keys[i].pose, keys[i].t_ns, keys[i].t_ns + dt, v, wv, two));
            keys[i + 1] = two[1];
        }
        const int64_t t0 = keys[0].t_ns, span = keys[NK - 1].t_ns - t0;
        for (int32_t interp = 0; interp < 2; interp++) {
            static sensim_path path;
            CHECK_OK(sensim__path_init(&path, keys, NK, interp ? SENSIM_INTERP_CAUSAL : SENSIM_INTERP_LINEAR));
            sensim_scan_env env = {.path = &path, .mount = mount, .nthreads = 1, .pose_gen = sensim__lidar_pose_gen()};
            sensim__mat4_mul(path.pose0, mount, env.S0);
            w->pose_lane++;
            for (int q = 0; q < NT; q++) {
                tq[q] = t0 - 300000 + (int64_t)(RND() * (double)(span + 600000));
                if (q % 5 == 0) /* a run of shots 10 us apart, as a lidar fires */
                    tq[q] = (q ? tq[q - 1] : t0) + 10000;
                const int64_t t = tq[q];
                sensim_pose_slot *e = &got[q];
                sensim__lane_pose_fill(&env, w, t, e, true);
                double S[16];
                sensim__lidar_sensor_pose(&env, t, S);
                const int64_t k = sensim__floordiv(t, G);
                const sensim_pose_span *sp = &w->spans[(uint64_t)k & (SENSIM_POSE_SPANS - 1)];
                assert_true(sp->gen == env.pose_gen && sp->k == k);
                const bool smooth = sensim__path_smooth(&path, k * G, k * G + G);
                if (khz)
                    assert_true(smooth == (t >= t0 && t < t0 + span));
                if (!smooth || kind == 2) {
                    assert_false(sp->ok);
                } else if (kind == 0) {
                    assert_true(sp->ok);
                }
                if (!sp->ok) {
                    assert_memory_equal(e->S, S, sizeof S);
                    exact++;
                } else {
                    used++;
                    for (int x = 0; x < 16; x++) {
                        double *worst = x >= 12 ? &worst_pos : &worst_rot;
                        *worst = fabs(e->S[x] - S[x]) > *worst ? fabs(e->S[x] - S[x]) : *worst;
                    }
                    for (int x = 0; x < 16; x++)
                        if (!(fabs(e->S[x] - S[x]) <= (x >= 12 ? 1e-8 : 1e-10)))
                            fail_msg("trial %d kind %d interp %d t %lld (span %lld, keys %lld..%lld): entry %d off by %g",
                                     trial, kind, interp, (long long)t, (long long)k, (long long)t0,
                                     (long long)(t0 + span), x, fabs(e->S[x] - S[x]));
                }
                float R[9], org[3];
                sensim__pose_floats(e->S, R, org);
                assert_memory_equal(R, e->R, sizeof R);
                assert_memory_equal(org, e->org, sizeof org);
                assert_true(e->t == t && e->lane == w->pose_lane);
            }
            /* the same times in reverse order, on a scratch that has seen nothing: the same bits */
            w2->pose_lane++;
            for (int q = NT - 1; q >= 0; q--) {
                sensim_pose_slot e2;
                sensim__lane_pose_fill(&env, w2, tq[q], &e2, true);
                assert_memory_equal(e2.S, got[q].S, sizeof e2.S);
                assert_memory_equal(e2.R, got[q].R, sizeof e2.R);
            }
            /* and through the batched fill of a lane's slots: the same bits */
            w2->pose_lane++;
            sensim__lane_prefill(&env, w2, tq, NULL, NT, true);
            for (int q = 0; q < NT; q++) {
                const sensim_pose_slot *e2 = sensim__pose_slot(w2, tq[q]);
                if (e2->lane == w2->pose_lane && e2->t == tq[q]) {
                    assert_memory_equal(e2->S, got[q].S, sizeof e2->S);
                    assert_memory_equal(e2->org, got[q].org, sizeof e2->org);
                }
            }
        }
    }
#undef RND
    printf("# %llu shots from a span's quadratic (off by at most %.2g in rotation, %.2g m), %llu exact\n",
           (unsigned long long)used, worst_rot, worst_pos, (unsigned long long)exact);
    assert_true(used > 10000 && exact > 10000);
    free(w), free(w2), free(got), free(tq);
}

/* A 10 Hz and a 20 Hz lidar and a 4 Hz proximity sensor stepped by 0.03 s. */
static void test_rig(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float lo[3] = {-30, -30, -30}, hi[3] = {30, 30, 30};
    add_box(s, lo, hi, 3, 0);
    const float clo[3] = {-2, -1, 0}, chi[3] = {2, 1, 1.5f};
    uint32_t car = add_box(s, clo, chi, 14, SENSIM_MESH_PROTOTYPE);
    double pa[16], pb[16], pc[16];
    translation(pa, 4.5, 0, 0);  /* 0.5 m ahead of the grown box: inside the front margin */
    translation(pb, 0, 6, 0);    /* beside, beyond the side margin */
    translation(pc, -20, 0, 0);  /* far behind, will drive in */
    CHECK_OK(sensim_scene_add_actor(s, car, 11, pa));
    CHECK_OK(sensim_scene_add_actor(s, car, 12, pb));
    CHECK_OK(sensim_scene_add_actor(s, car, 13, pc));
    CHECK_OK(sensim_scene_commit(s));

    float el[2] = {-0.1f, 0.1f};
    sensim_lidar_desc d;
    sensim_lidar_desc_init(&d);
    d.channel_count = 2;
    d.elevation_rad = el;
    d.rotation_hz = 10;
    d.shots_per_s = 2 * 100 * 10;
    d.lidar_id = 1;
    sensim_lidar *l10, *l20;
    CHECK_OK(sensim_lidar_create(ctx, &d, &l10));
    d.rotation_hz = 20;
    d.shots_per_s = 2 * 100 * 20;
    d.lidar_id = 2;
    CHECK_OK(sensim_lidar_create(ctx, &d, &l20));
    sensim_ring *r10 = test_ring(10000, 16, SENSIM_OVERFLOW_FAIL), *r20 = test_ring(10000, 16, SENSIM_OVERFLOW_FAIL),
                *rp = test_ring(1000, 64, SENSIM_OVERFLOW_FAIL);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    CHECK_OK(sensim_rig_add_lidar(rig, l10, r10, NULL));
    CHECK_OK(sensim_rig_add_lidar(rig, l20, r20, NULL));
    assert_int_equal(sensim_rig_add_lidar(rig, l20, r10, NULL), SENSIM_ERR_DUPLICATE);
    sensim_proximity_desc pd;
    sensim_proximity_desc_init(&pd);
    pd.sensor_id = 3;
    pd.rate_hz = 4;
    pd.box_half_extents[0] = 2, pd.box_half_extents[1] = 1, pd.box_half_extents[2] = 1;
    pd.front_m = 1.0, pd.back_m = 0.5, pd.side_m = 0.5;
    CHECK_OK(sensim_rig_add_proximity(rig, &pd, rp, NULL));
    double pose[16];
    identity(pose);
    sensim_pose_key key = {0, {0}};
    memcpy(key.pose, pose, sizeof pose);
    sensim_motion m;
    memset(&m, 0, sizeof m);
    m.keys = &key;
    m.key_count = 1;
    const int64_t dt = 30000000;
    uint64_t frames[3] = {0}, points = 0;
    int64_t next_t[3] = {0, 0, 0};
    sensim_point *buf = malloc(10000 * sizeof *buf);
    int prox_with_13 = 0;
    for (int step = 0; step < 1000; step++) {
        if (step == 500) { /* actor 13 drives up behind the parent */
            double pc2[16];
            translation(pc2, -4.2, 0, 0);
            CHECK_OK(sensim_scene_set_actor_pose(s, 13, pc2));
            CHECK_OK(sensim_scene_commit(s));
        }
        sensim_rig_step_result res;
        CHECK_OK(sensim_rig_step(rig, s, dt, &m, &res));
        assert_int_equal(res.world_step, (uint64_t)step);
        assert_int_equal(res.sensors_refused, 0);
        sensim_ring *rings[3] = {r10, r20, rp};
        for (int k = 0; k < 3; k++) {
            sensim_frame_header h;
            uint64_t n;
            while (sensim_ring_pop(rings[k], &h, buf, 10000, &n) == SENSIM_OK) {
                int64_t P = k == 0 ? 100000000 : k == 1 ? 50000000 : 250000000;
                assert_int_equal(h.t_begin_ns, next_t[k]); /* no frame lost, none repeated */
                assert_int_equal(h.t_end_ns - h.t_begin_ns, P);
                assert_int_equal(h.frame_number, frames[k]);
                assert_int_equal(h.flags, 0);
                assert_int_equal(h.world_step_first, (uint64_t)(h.t_begin_ns / dt));
                if (k < 2) {
                    assert_int_equal(h.scanned_ns, P);
                    assert_int_equal(n, k == 0 ? 200 : 200); /* 100 columns x 2 channels, all inside the box */
                    assert_int_equal(h.world_step_last, (uint64_t)((h.t_end_ns - 1) / dt));
                    assert_int_equal(h.lidar_id, (uint32_t)(k + 1));
                    points += n;
                } else {
                    bool has11 = false, has12 = false, has13 = false;
                    for (uint64_t i = 0; i < n; i++) {
                        has11 |= buf[i].object_id == 11;
                        has12 |= buf[i].object_id == 12;
                        has13 |= buf[i].object_id == 13;
                        if (buf[i].object_id == 11)
                            assert_true(fabs(buf[i].x - 4.5) < 1e-6 && fabs(buf[i].z - 0.75) < 1e-6 &&
                                        fabs(buf[i].range_m - hypot(4.25, 0.75)) < 1e-5);
                    }
                    assert_true(has11 && !has12);
                    assert_true(has13 == (h.t_begin_ns >= 500 * dt));
                    prox_with_13 += has13;
                }
                next_t[k] = h.t_end_ns;
                frames[k]++;
            }
        }
    }
    /* 1000 steps of 30 ms = 30 s exactly */
    assert_int_equal(frames[0], 300);
    assert_int_equal(frames[1], 600);
    assert_int_equal(frames[2], 120);
    assert_int_equal(points, 300 * 200 + 600 * 200);
    printf("# rig: %llu + %llu lidar frames, %llu proximity frames (%d with the late car), %llu points\n",
           (unsigned long long)frames[0], (unsigned long long)frames[1], (unsigned long long)frames[2], prox_with_13,
           (unsigned long long)points);

    /* a full FAIL ring never blocks the world: the step succeeds and the refusal is counted */
    sensim_lidar *l3;
    CHECK_OK(sensim_lidar_create(ctx, &d, &l3));
    sensim_ring *tiny = test_ring(10, 2, SENSIM_OVERFLOW_FAIL);
    CHECK_OK(sensim_rig_add_lidar(rig, l3, tiny, NULL));
    sensim_rig_step_result res;
    CHECK_OK(sensim_rig_step(rig, s, dt, &m, &res));
    assert_int_equal(res.sensors_refused, 1);
    sensim_ring_stats st;
    CHECK_OK(sensim_ring_get_stats(tiny, &st));
    assert_true(st.scans_refused == 1 && st.points_refused > 10);
    assert_int_equal(sensim_rig_step(rig, s, 0, &m, &res), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_rig_set_time(rig, 5), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_rig_set_world_step(rig, 5), SENSIM_ERR_INVALID_ARGUMENT);
    /* a rig started mid-way numbers its steps as the whole run (a batch shard): step 40 is step 40 */
    sensim_rig *mid;
    CHECK_OK(sensim_rig_create(ctx, &mid));
    assert_int_equal(sensim_rig_set_world_step(mid, ((uint64_t)1 << 62) + 1), SENSIM_ERR_OUT_OF_RANGE);
    CHECK_OK(sensim_rig_set_world_step(mid, 40));
    CHECK_OK(sensim_rig_step(mid, s, dt, &m, &res));
    assert_int_equal(res.world_step, 40);
    CHECK_OK(sensim_rig_step(mid, s, dt, &m, &res));
    assert_int_equal(res.world_step, 41);
    sensim_rig_destroy(mid);
    free(buf);
    free(r10);
    free(r20);
    free(rp);
    free(tiny);
    sensim_rig_destroy(rig);
    sensim_lidar_destroy(l10);
    sensim_lidar_destroy(l20);
    sensim_lidar_destroy(l3);
    sensim_scene_destroy(s);
}

static void test_frame_conversions(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    for (int k = 0; k < 1000; k++) {
        double r[6];
        for (int i = 0; i < 6; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            r[i] = (double)(seed >> 11) / 9007199254740992.0;
        }
        const int32_t frames[] = {SENSIM_FRAME_NATIVE, SENSIM_FRAME_CARLA, SENSIM_FRAME_UE, SENSIM_FRAME_ISO8855};
        for (int f = 0; f < 4; f++) {
            double loc[3] = {(r[0] - 0.5) * 200, (r[1] - 0.5) * 200, (r[2] - 0.5) * 20};
            double rot[3] = {(r[3] - 0.5) * 170, (r[4] - 0.5) * 358, (r[5] - 0.5) * 358};
            double pose[16], loc2[3], rot2[3], pose2[16];
            CHECK_OK(sensim_pose_from_frame(frames[f], loc, rot, pose));
            CHECK_OK(sensim_pose_to_frame(frames[f], pose, loc2, rot2));
            CHECK_OK(sensim_pose_from_frame(frames[f], loc2, rot2, pose2));
            for (int i = 0; i < 16; i++)
                assert_true(fabs(pose[i] - pose2[i]) < 1e-9);
            for (int i = 0; i < 3; i++)
                assert_true(fabs(loc[i] - loc2[i]) < 1e-9 * (1 + fabs(loc[i])));
            double pt[3] = {loc[2], loc[0], loc[1]}, a[3], b[3];
            CHECK_OK(sensim_point_from_frame(frames[f], pt, a));
            CHECK_OK(sensim_point_to_frame(frames[f], a, b));
            for (int i = 0; i < 3; i++)
                assert_true(fabs(pt[i] - b[i]) < 1e-9 * (1 + fabs(pt[i])));
        }
    }
    /* CARLA yaw +90 faces CARLA's +y (right) = native -y; UE centimetres */
    const double loc[3] = {100, 200, 300}, rot[3] = {0, 90, 0};
    double pose[16];
    CHECK_OK(sensim_pose_from_frame(SENSIM_FRAME_UE, loc, rot, pose));
    assert_true(fabs(pose[12] - 1.0) < 1e-12 && fabs(pose[13] + 2.0) < 1e-12 && fabs(pose[14] - 3.0) < 1e-12);
    assert_true(fabs(pose[0]) < 1e-12 && fabs(pose[1] + 1.0) < 1e-12); /* forward axis = (0, -1, 0) */
    /* CARLA pitch +30 (nose up): forward axis rises */
    const double up[3] = {30, 0, 0}, zero[3] = {0, 0, 0};
    CHECK_OK(sensim_pose_from_frame(SENSIM_FRAME_CARLA, zero, up, pose));
    assert_true(pose[2] > 0.49 && pose[2] < 0.51);
    assert_int_equal(sensim_pose_from_frame(7, zero, up, pose), SENSIM_ERR_INVALID_ARGUMENT);
}

/* Jumps (DESIGN.md): a moving platform (10 m/s along x, keys at 1 kHz) jumps 1 m ahead at
 * 100 ms, in both forms (a key at the jump's time, or the old segment held from its last
 * key); the rig's model and sensim_kinematics_at over the same keys with two at one time agree
 * bit for bit, every key is exact, nothing overshoots, derivatives restart (the new segment
 * moves at 10 m/s, with zero acceleration). Also under ASan/UBSan (zero-length segments). */
static void test_jumps(void **state)
{
    (void)state;
    sensim_context *cx;
    CHECK_OK(sensim_context_create(NULL, &cx));
    for (int form = 0; form < 2; form++) {
        sensim_rig *rig;
        CHECK_OK(sensim_rig_create(cx, &rig));
        sensim_pose_key keys[260];
        uint32_t n = 0;
        for (int k = 0; k <= 100; k++) {
            if (form == 1 && k == 100)
                break; /* the old segment ends at 99 ms and is held up to the jump */
            double p[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.01 * k, 0, 0, 1};
            keys[n].t_ns = k * 1000000LL;
            memcpy(keys[n].pose, p, sizeof p);
            CHECK_OK(sensim_rig_push_pose(rig, keys[n].t_ns, p));
            n++;
        }
        for (int k = 100; k < 200; k++) {
            double p[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 2.0 + 0.01 * (k - 100), 0, 0, 1};
            keys[n].t_ns = k * 1000000LL;
            memcpy(keys[n].pose, p, sizeof p);
            CHECK_OK((k == 100 ? sensim_rig_jump_to_pose : sensim_rig_push_pose)(rig, keys[n].t_ns, p));
            n++;
        }
        /* a third key at the jump's time, a jump into the past: refused, nothing pushed */
        assert_int_equal(sensim_rig_jump_to_pose(rig, 150000000, keys[0].pose), SENSIM_ERR_TIME_ORDER);
        for (int64_t t = 0; t < 199000000; t += 50000) {
            sensim_kinematics a, b;
            CHECK_OK(sensim_rig_platform_at(rig, t, &a));
            const double lim = t < 100000000 ? (form == 0 ? 1.0 : 0.99) : 2.0 + 0.01 * (double)(t - 100000000) / 1e6;
            if (t < 100000000)
                assert_true(a.pose[12] <= lim + 1e-12 && a.pose[12] >= 0.01 * (double)t / 1e6 - 0.01 - 1e-12);
            else
                assert_true(fabs(a.pose[12] - lim) < 1e-9);
            if (t >= 102000000) /* the new segment's own stencil: 10 m/s, no acceleration */
                assert_true(fabs(a.velocity[0] - 10.0) < 1e-6 && fabs(a.acceleration[0]) < 1e-3);
            if (form == 0) { /* the file form: two keys at one time, read through sensim_kinematics_at */
                CHECK_OK(sensim_kinematics_at(keys, n, SENSIM_INTERP_CAUSAL, t, &b));
                if (t >= 5000000 && (t < 95000000 || t >= 105000000)) /* its stencil window is the rig's */
                    assert_memory_equal(a.pose, b.pose, sizeof a.pose);
            }
        }
        sensim_rig_destroy(rig);
    }
    /* three keys at one time are not a jump */
    sensim_pose_key three[4];
    for (int i = 0; i < 4; i++) {
        const double p[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, i, 0, 0, 1};
        three[i].t_ns = i == 0 ? 0 : 1000000;
        memcpy(three[i].pose, p, sizeof p);
    }
    sensim_kinematics k;
    assert_int_equal(sensim_kinematics_at(three, 4, SENSIM_INTERP_CAUSAL, 1000000, &k), SENSIM_ERR_TIME_ORDER);
    CHECK_OK(sensim_kinematics_at(three, 3, SENSIM_INTERP_CAUSAL, 1000000, &k));
    assert_true(k.pose[12] == 2.0);
    sensim_context_destroy(cx);
}

/* Actors by id in O(1) (issue 66): 5000 actors with scattered ids, a third removed in a shuffled
 * order (the table moves its last actor into each hole), every id then found or not found as it
 * should be, the removed ones added back, and the scene's count and a commit right. */
static void test_many_actor_ids(void **state)
{
    (void)state;
    sensim_context *cx;
    sensim_scene *sc;
    CHECK_OK(sensim_context_create(NULL, &cx));
    CHECK_OK(sensim_scene_create(cx, &sc));
    const float v[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t ix[] = {0, 1, 2};
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = v, md.vertex_count = 3, md.indices = ix, md.triangle_count = 1;
    md.flags = SENSIM_MESH_PROTOTYPE;
    uint32_t mesh;
    CHECK_OK(sensim_scene_add_mesh(sc, &md, &mesh));
    enum { N = 5000 };
    static uint32_t ids[N];
    static bool gone[N];
    double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (uint32_t i = 0; i < N; i++) {
        ids[i] = i * 7919u + 1u;
        pose[12] = i;
        CHECK_OK(sensim_scene_add_actor(sc, mesh, ids[i], pose));
    }
    assert_int_equal(sensim_scene_add_actor(sc, mesh, ids[17], pose), SENSIM_ERR_DUPLICATE);
    uint64_t r = 42;
    uint32_t removed = 0;
    while (removed < N / 3) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        const uint32_t i = (uint32_t)(r >> 33) % N;
        if (gone[i])
            continue;
        CHECK_OK(sensim_scene_remove_actor(sc, ids[i]));
        gone[i] = true, removed++;
    }
    for (uint32_t i = 0; i < N; i++) {
        pose[12] = -(double)i;
        assert_int_equal(sensim_scene_set_actor_pose(sc, ids[i], pose), gone[i] ? SENSIM_ERR_NOT_FOUND : SENSIM_OK);
        assert_int_equal(sensim_scene_remove_actor(sc, ids[i] + 1u), SENSIM_ERR_NOT_FOUND); /* never added */
    }
    sensim_scene_info info;
    CHECK_OK(sensim_scene_get_info(sc, &info));
    assert_int_equal(info.actor_count, N - removed);
    for (uint32_t i = 0; i < N; i++)
        if (gone[i])
            CHECK_OK(sensim_scene_add_actor(sc, mesh, ids[i], pose));
    for (uint32_t i = 0; i < N; i++)
        CHECK_OK(sensim_scene_set_actor_pose(sc, ids[i], pose));
    CHECK_OK(sensim_scene_get_info(sc, &info));
    assert_int_equal(info.actor_count, N);
    CHECK_OK(sensim_scene_commit(sc));
    sensim_scene_destroy(sc);
    sensim_context_destroy(cx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_platform_toward_wall), cmocka_unit_test(test_moving_actor),
        cmocka_unit_test(test_motion_keys),         cmocka_unit_test(test_pose_per_firing_time),
        cmocka_unit_test(test_pose4_same_bits),
        cmocka_unit_test(test_pose_spans),
        cmocka_unit_test(test_rig),
        cmocka_unit_test(test_frame_conversions),
        cmocka_unit_test(test_jumps),
        cmocka_unit_test(test_many_actor_ids),
    };
    return cmocka_run_group_tests_name("motion", tests, setup, teardown);
}
