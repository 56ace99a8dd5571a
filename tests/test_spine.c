/* The rig's own motion: poses and states pushed as a host learns them, one
 * motion model for every sensor, steps that may not outrun the history. */
#include "helpers.h"

#include <unistd.h>

TEST_GROUP_FIXTURE(2, 0)

/* Platform on a circle of radius r (centre at the origin) at speed v,
 * heading along the track (a left turn), at time t seconds. */
static void circle_pose(double r, double v, double t, double P[16])
{
    double th = v / r * t, c = cos(th + M_PI / 2), s = sin(th + M_PI / 2);
    memset(P, 0, 16 * sizeof(double));
    P[0] = c, P[1] = s, P[4] = -s, P[5] = c, P[10] = 1, P[15] = 1;
    P[12] = r * cos(th), P[13] = r * sin(th);
}

static sensim_ring *nav_ring(uint32_t frames)
{
    size_t size;
    CHECK_OK(sensim_nav_ring_required_size(frames, &size));
    void *mem = malloc(size);
    sensim_ring *r;
    CHECK_OK(sensim_nav_ring_init(mem, size, frames, SENSIM_OVERFLOW_FAIL, &r));
    return r;
}

/* A ring of 8 whole frames of @p lidar in *mem (free it). */
static sensim_ring *lidar_ring(const sensim_lidar *lidar, void **mem)
{
    size_t size;
    uint64_t cap;
    CHECK_OK(sensim_lidar_ring_size(lidar, 8, &cap, &size));
    *mem = malloc(size);
    sensim_ring *r;
    CHECK_OK(sensim_ring_init(*mem, size, cap, 8, SENSIM_OVERFLOW_FAIL, &r));
    return r;
}

static sensim_nav *make_nav(int32_t kind, double rate_hz)
{
    sensim_nav_desc d;
    sensim_nav_desc_init(&d, kind);
    d.rate_hz = rate_hz;
    sensim_nav *n;
    CHECK_OK(sensim_nav_create(ctx, &d, &n));
    return n;
}

static sensim_scene *empty_scene(void)
{
    sensim_scene *scene;
    CHECK_OK(sensim_scene_create(ctx, &scene));
    add_plane(scene, 1000, 1);
    CHECK_OK(sensim_scene_commit(scene));
    return scene;
}

/* A 1 kHz co-simulation on a 50 m circle at 10 m/s pushing one pose a step
 * (the pose it just computed, then a step up to it): the IMU's specific
 * force is (0, v²/r, g) in the body frame within 1e-3 m/s² and its yaw rate
 * v/r within 1e-4 rad/s from the 6th step on (5 keys: the stencil is full).
 * With states carrying the true derivatives: within 1e-9. */
static void run_circle(bool states, double *worst_f, double *worst_w, int *samples)
{
    const double r = 50, v = 10, g = 9.80665;
    sensim_scene *scene = empty_scene();
    sensim_nav *imu = make_nav(SENSIM_NAV_IMU, 1000);
    sensim_ring *ring = nav_ring(4096);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    CHECK_OK(sensim_rig_add_nav(rig, imu, ring, NULL));
    *worst_f = *worst_w = 0;
    *samples = 0;
    for (int i = 0; i <= 400; i++) {
        const double t = i * 1e-3, th = v / r * t;
        sensim_platform_state s;
        sensim_platform_state_init(&s);
        circle_pose(r, v, t, s.pose);
        if (states) {
            s.given = SENSIM_STATE_VELOCITY | SENSIM_STATE_ACCELERATION | SENSIM_STATE_ANGULAR_VELOCITY |
                      SENSIM_STATE_ANGULAR_ACCELERATION;
            s.velocity[0] = -v * sin(th), s.velocity[1] = v * cos(th);
            s.acceleration[0] = -v * v / r * cos(th), s.acceleration[1] = -v * v / r * sin(th);
            s.angular_velocity[2] = v / r;
            CHECK_OK(sensim_rig_push_state(rig, i * 1000000LL, &s));
        } else {
            CHECK_OK(sensim_rig_push_pose(rig, i * 1000000LL, s.pose));
        }
        if (i > 0)
            CHECK_OK(sensim_rig_step(rig, scene, 1000000, NULL, NULL));
    }
    const sensim_frame_header *h;
    const sensim_nav_sample *smp;
    while (sensim_ring_peek_nav(ring, &h, &smp) == SENSIM_OK) {
        if (smp->index >= 5) {
            const double f[3] = {0, v * v / r, g};
            for (int k = 0; k < 3; k++)
                *worst_f = fmax(*worst_f, fabs(smp->accel[k] - f[k]));
            *worst_w = fmax(*worst_w, fabs(smp->gyro[2] - v / r) + fabs(smp->gyro[0]) + fabs(smp->gyro[1]));
        }
        (*samples)++;
        CHECK_OK(sensim_ring_release(ring));
    }
    sensim_rig_destroy(rig);
    sensim_nav_destroy(imu);
    free(ring);
    sensim_scene_destroy(scene);
}

static void test_push_pose_imu(void **state)
{
    (void)state;
    double f, w;
    int n;
    run_circle(false, &f, &w, &n);
    printf("# 1 kHz push_pose on a 50 m circle at 10 m/s: specific force error %.2e m/s^2, yaw rate %.2e rad/s\n",
           f, w);
    assert_int_equal(n, 400);
    assert_true(f < 1e-3);
    assert_true(w < 1e-4);
    run_circle(true, &f, &w, &n);
    printf("# with push_state: %.2e m/s^2, %.2e rad/s\n", f, w);
    assert_int_equal(n, 400);
    assert_true(f < 1e-9);
    assert_true(w < 1e-9);
}

/* The causal model against closed forms on keys that are not evenly spaced:
 * polynomial motion of degree 4 is exact from the 5th key on (the stencil
 * holds 5 keys), between keys too; the derivatives of a key never change
 * once later keys arrive (they are fixed at push time). */
static void test_causal_exact(void **state)
{
    (void)state;
    const double c[3][5] = {{1, 2, -0.5, 0.25, -0.05}, {-3, 0.5, 1, -0.2, 0.02}, {0.5, 0, 0.3, 0.01, 0.003}};
    const int64_t times[] = {0, 70000000, 100000000, 230000000, 300000000, 410000000, 500000000, 650000000};
    const int nk = 8;
    sensim_pose_key k[8];
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    for (int i = 0; i < nk; i++) {
        double t = times[i] * 1e-9;
        identity(k[i].pose);
        k[i].t_ns = times[i];
        for (int a = 0; a < 3; a++)
            k[i].pose[12 + a] = c[a][0] + t * (c[a][1] + t * (c[a][2] + t * (c[a][3] + t * c[a][4])));
        CHECK_OK(sensim_rig_push_pose(rig, times[i], k[i].pose));
    }
    double worst = 0;
    for (int64_t tn = times[4]; tn <= times[nk - 1]; tn += 7777777) {
        sensim_kinematics s, o;
        CHECK_OK(sensim_rig_platform_at(rig, tn, &s));
        CHECK_OK(sensim_kinematics_at(k, nk, SENSIM_INTERP_CAUSAL, tn, &o)); /* the same model offline */
        assert_memory_equal(&s, &o, sizeof s);
        double t = tn * 1e-9;
        for (int a = 0; a < 3; a++) {
            double x = c[a][0] + t * (c[a][1] + t * (c[a][2] + t * (c[a][3] + t * c[a][4])));
            double dx = c[a][1] + t * (2 * c[a][2] + t * (3 * c[a][3] + t * 4 * c[a][4]));
            double ddx = 2 * c[a][2] + t * (6 * c[a][3] + t * 12 * c[a][4]);
            worst = fmax(worst, fabs(s.pose[12 + a] - x) + fabs(s.velocity[a] - dx) + fabs(s.acceleration[a] - ddx));
        }
    }
    printf("# degree-4 motion, 8 uneven keys: worst error %.2e\n", worst);
    assert_true(worst < 1e-9);
    /* a key's derivatives are fixed when it is pushed: state at key 5 before and after key 7 */
    sensim_rig *r2;
    CHECK_OK(sensim_rig_create(ctx, &r2));
    for (int i = 0; i < 6; i++)
        CHECK_OK(sensim_rig_push_pose(r2, times[i], k[i].pose));
    sensim_kinematics a, b;
    CHECK_OK(sensim_rig_platform_at(r2, times[5], &a));
    CHECK_OK(sensim_rig_platform_at(rig, times[5], &b));
    assert_memory_equal(&a, &b, sizeof a);
    /* the segment [key 4, key 5] too */
    CHECK_OK(sensim_rig_platform_at(r2, times[4] + 12345678, &a));
    CHECK_OK(sensim_rig_platform_at(rig, times[4] + 12345678, &b));
    assert_memory_equal(&a, &b, sizeof a);
    sensim_rig_destroy(r2);
    sensim_rig_destroy(rig);
}

/* A lidar, a camera and an odometry sensor on one platform moving on a
 * tight curve, keyed at 10 Hz (where linear and spline poses differ by
 * h²·a/8 = 12 mm): every lidar point, put into the world with the pose
 * sensim_rig_platform_at gives at its firing time, lies on the wall it hit;
 * the camera's and the odometry's poses are the same model's. */
static void test_one_motion_model(void **state)
{
    (void)state;
    const double r = 10, v = 10; /* a = 10 m/s² */
    sensim_scene *scene;
    CHECK_OK(sensim_scene_create(ctx, &scene));
    const float lo[3] = {-2, -2, -1}, hi[3] = {2, 2, 4};
    uint32_t box = add_box(scene, lo, hi, 10, 0); /* the platform circles around this box's actor */
    double A[16];
    identity(A);
    CHECK_OK(sensim_scene_add_actor(scene, box, 7, A));
    CHECK_OK(sensim_scene_commit(scene));
    sensim_lidar *lidar;
    const char *const sets[] = {"beam=ideal", "points_frame=sensor"};
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", sets, 2, &lidar));
    double M[16];
    translation(M, 0.3, 0, 1.0);
    CHECK_OK(sensim_lidar_set_mount_pose(lidar, M));
    void *mem;
    sensim_ring *lr = lidar_ring(lidar, &mem);
    sensim_camera_desc cd;
    sensim_camera_desc_init(&cd);
    cd.width = 64, cd.height = 48, cd.hfov_deg = 90;
    sensim_camera *cam;
    CHECK_OK(sensim_camera_create(ctx, &cd, &cam));
    double CM[16];
    translation(CM, 0.5, 0.2, 1.5);
    CHECK_OK(sensim_camera_set_mount_pose(cam, CM));
    size_t size;
    CHECK_OK(sensim_image_ring_required_size(64, 48, SENSIM_CAMERA_DEPTH, 8, &size));
    void *cmem = malloc(size);
    sensim_ring *cr;
    CHECK_OK(sensim_image_ring_init(cmem, size, 64, 48, SENSIM_CAMERA_DEPTH, 8, SENSIM_OVERFLOW_FAIL, &cr));
    sensim_nav *odo = make_nav(SENSIM_NAV_ODOMETRY, 100);
    sensim_ring *nr = nav_ring(64);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    CHECK_OK(sensim_rig_add_lidar(rig, lidar, lr, NULL));
    CHECK_OK(sensim_rig_add_camera(rig, cam, 20, 3, cr, NULL));
    CHECK_OK(sensim_rig_add_nav(rig, odo, nr, NULL));
    for (int i = 0; i <= 2; i++) {
        double P[16];
        circle_pose(r, v, i * 0.1, P);
        CHECK_OK(sensim_rig_push_pose(rig, i * 100000000LL, P));
    }
    CHECK_OK(sensim_rig_step(rig, scene, 130000000, NULL, NULL));
    CHECK_OK(sensim_rig_step(rig, scene, 70000000, NULL, NULL));
    /* lidar: world points on the box's faces (|x| or |y| = 2, or z = 4 / -1), where the box was hit */
    sensim_point *pts = NULL;
    uint64_t len = 0;
    sensim_frame_header hdr[8];
    uint32_t nh = 0;
    drain(lr, &pts, &len, hdr, 8, &nh);
    assert_true(nh >= 1);
    uint64_t on_box = 0, f = 0, in_frame = 0;
    double worst = 0;
    for (uint64_t i = 0; i < len; i++, in_frame++) {
        while (f + 1 < nh && in_frame >= hdr[f].point_count)
            f++, in_frame = 0;
        const sensim_point *p = &pts[i];
        if (p->object_id != 7)
            continue;
        sensim_kinematics k;
        CHECK_OK(sensim_rig_platform_at(rig, hdr[f].t_begin_ns + p->t_offset_ns, &k));
        double S[16], w[3];
        /* S = P·M */
        for (int col = 0; col < 4; col++)
            for (int row = 0; row < 4; row++) {
                double acc = 0;
                for (int j = 0; j < 4; j++)
                    acc += k.pose[4 * j + row] * M[4 * col + j];
                S[4 * col + row] = acc;
            }
        for (int a = 0; a < 3; a++)
            w[a] = S[a] * p->x + S[4 + a] * p->y + S[8 + a] * p->z + S[12 + a];
        double d = fmin(fmin(fabs(fabs(w[0]) - 2), fabs(fabs(w[1]) - 2)), fmin(fabs(w[2] - 4), fabs(w[2] + 1)));
        worst = fmax(worst, d);
        on_box++;
    }
    printf("# lidar on a 10 m circle at 10 m/s, 10 Hz keys: %llu points on the box, worst face distance %.2e m\n",
           (unsigned long long)on_box, worst);
    assert_true(on_box > 500);
    assert_true(worst < 2e-4); /* float32 points at ~10 m; the linear model would be ~1e-2 off */
    /* camera: header pose = model pose at the capture time × mount */
    sensim_image_view iv;
    int images = 0;
    while (sensim_ring_peek_image(cr, &iv) == SENSIM_OK) {
        sensim_kinematics k;
        CHECK_OK(sensim_rig_platform_at(rig, iv.header->t_begin_ns, &k));
        for (int a = 0; a < 3; a++)
            assert_double_close(iv.header->sensor_pose[12 + a],
                                k.pose[a] * CM[12] + k.pose[4 + a] * CM[13] + k.pose[8 + a] * CM[14] + k.pose[12 + a],
                                1e-12);
        images++;
        CHECK_OK(sensim_ring_release(cr));
    }
    assert_int_equal(images, 4);
    /* odometry: position and velocity of the model */
    const sensim_frame_header *h;
    const sensim_nav_sample *s;
    int navs = 0;
    while (sensim_ring_peek_nav(nr, &h, &s) == SENSIM_OK) {
        sensim_kinematics k;
        CHECK_OK(sensim_rig_platform_at(rig, s->t_ns, &k));
        for (int a = 0; a < 3; a++) {
            assert_double_close(s->position[a], k.pose[12 + a], 1e-12);
            assert_double_close(s->velocity_world[a], k.velocity[a], 1e-12);
        }
        navs++;
        CHECK_OK(sensim_ring_release(nr));
    }
    assert_int_equal(navs, 20);
    free(pts);
    sensim_rig_destroy(rig);
    sensim_nav_destroy(odo);
    sensim_camera_destroy(cam);
    sensim_lidar_destroy(lidar);
    free(mem), free(cmem), free(nr);
    sensim_scene_destroy(scene);
}

/* Same pushes, any step split (and pushes made early or just in time):
 * the same lidar points and IMU samples, byte for byte. The steps' rays
 * (sensim_rig_step_result.rays_traced): each shot's 7 beam sub-rays, the
 * scene's matt surfaces sending no mirror ray. */
static void split_run(const int64_t *dts, int ndt, bool push_all_first, sensim_point **pts, uint64_t *len,
                      sensim_nav_sample *navs, int *nn)
{
    sensim_scene *scene;
    CHECK_OK(sensim_scene_create(ctx, &scene));
    add_plane(scene, 200, 1);
    const float lo[3] = {8, -3, 0}, hi[3] = {9, 3, 3};
    add_box(scene, lo, hi, 10, 0);
    CHECK_OK(sensim_scene_commit(scene));
    sensim_lidar *lidar;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", NULL, 0, &lidar));
    double M[16];
    translation(M, 0, 0, 1.8);
    CHECK_OK(sensim_lidar_set_mount_pose(lidar, M));
    void *mem;
    sensim_ring *lr = lidar_ring(lidar, &mem);
    sensim_nav *imu = make_nav(SENSIM_NAV_IMU, 400);
    sensim_ring *nr = nav_ring(256);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    CHECK_OK(sensim_rig_add_lidar(rig, lidar, lr, NULL));
    CHECK_OK(sensim_rig_add_nav(rig, imu, nr, NULL));
    const int64_t key_dt = 10000000, end = 200000000; /* 100 Hz keys, 0.2 s */
    int64_t pushed = -1;
    uint64_t rays = 0, shots = 0;
    CHECK_OK(sensim_lidar_count_shots(lidar, 0, end, &shots));
    for (int64_t t = 0, i = 0; t < end; i++) {
        int64_t dt = dts[i % ndt];
        if (t + dt > end)
            dt = end - t;
        while (pushed < (push_all_first ? end : t + dt)) {
            pushed = pushed < 0 ? 0 : pushed + key_dt;
            double P[16];
            circle_pose(30, 8, pushed * 1e-9, P);
            CHECK_OK(sensim_rig_push_pose(rig, pushed, P));
        }
        sensim_rig_step_result res;
        CHECK_OK(sensim_rig_step(rig, scene, dt, NULL, &res));
        rays += res.rays_traced;
        t += dt;
    }
    assert_true(shots > 50000);
    assert_int_equal(rays, 7 * shots);
    *pts = NULL, *len = 0;
    drain(lr, pts, len, NULL, 0, NULL);
    const sensim_frame_header *h;
    const sensim_nav_sample *s;
    *nn = 0;
    while (sensim_ring_peek_nav(nr, &h, &s) == SENSIM_OK) {
        navs[(*nn)++] = *s;
        CHECK_OK(sensim_ring_release(nr));
    }
    sensim_rig_destroy(rig);
    sensim_nav_destroy(imu);
    sensim_lidar_destroy(lidar);
    free(mem), free(nr);
    sensim_scene_destroy(scene);
}

static void test_split_invariance(void **state)
{
    (void)state;
    static sensim_nav_sample na[128], nb[128], nc[128];
    sensim_point *pa, *pb, *pc;
    uint64_t la, lb, lc;
    int ca, cb, cc;
    const int64_t whole[1] = {200000000}, odd[3] = {1000000, 37000000, 333333};
    split_run(whole, 1, true, &pa, &la, na, &ca);
    split_run(odd, 3, false, &pb, &lb, nb, &cb);
    split_run((const int64_t[]){1000000}, 1, false, &pc, &lc, nc, &cc);
    assert_int_equal(ca, 80);
    assert_int_equal(cb, ca);
    assert_int_equal(cc, ca);
    assert_true(la > 10000);
    assert_int_equal(lb, la);
    assert_int_equal(lc, la);
    assert_memory_equal(pa, pb, la * sizeof *pa);
    assert_memory_equal(pa, pc, la * sizeof *pa);
    assert_memory_equal(na, nb, (size_t)ca * sizeof na[0]);
    assert_memory_equal(na, nc, (size_t)ca * sizeof na[0]);
    free(pa), free(pb), free(pc);
}

/* Hostile pushes and steps: each refused with its status, nothing pushed. */
static void test_push_errors(void **state)
{
    (void)state;
    sensim_scene *scene = empty_scene();
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    double P[16];
    identity(P);
    sensim_kinematics k;
    assert_int_equal(sensim_rig_step(rig, scene, 1000, NULL, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_rig_platform_at(rig, 0, &k), SENSIM_ERR_EMPTY);
    assert_int_equal(sensim_rig_push_pose(rig, 0, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_rig_push_pose(NULL, 0, P), SENSIM_ERR_INVALID_ARGUMENT);
    P[12] = NAN;
    assert_int_equal(sensim_rig_push_pose(rig, 0, P), SENSIM_ERR_NOT_FINITE);
    P[12] = 1e300;
    assert_int_equal(sensim_rig_push_pose(rig, 0, P), SENSIM_ERR_OUT_OF_RANGE);
    P[12] = 0, P[0] = 2;
    assert_int_equal(sensim_rig_push_pose(rig, 0, P), SENSIM_ERR_OUT_OF_RANGE); /* not rigid */
    P[0] = 1;
    assert_int_equal(sensim_rig_push_pose(rig, INT64_MAX, P), SENSIM_ERR_OUT_OF_RANGE);
    sensim_platform_state s;
    sensim_platform_state_init(&s);
    s.given = 16;
    assert_int_equal(sensim_rig_push_state(rig, 0, &s), SENSIM_ERR_INVALID_ARGUMENT);
    s.given = SENSIM_STATE_VELOCITY, s.velocity[1] = 1e300;
    assert_int_equal(sensim_rig_push_state(rig, 0, &s), SENSIM_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "velocity"));
    s.velocity[1] = NAN;
    assert_int_equal(sensim_rig_push_state(rig, 0, &s), SENSIM_ERR_NOT_FINITE);
    s.given = SENSIM_STATE_ANGULAR_ACCELERATION, s.angular_acceleration[0] = -1e8;
    assert_int_equal(sensim_rig_push_state(rig, 0, &s), SENSIM_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "angular_acceleration"));
    assert_int_equal(sensim_rig_push_state(rig, 0, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_rig_platform_at(rig, 0, &k), SENSIM_ERR_EMPTY); /* nothing was pushed */
    /* order, coverage */
    CHECK_OK(sensim_rig_set_time(rig, 5000));
    CHECK_OK(sensim_rig_push_pose(rig, 10000, P));
    assert_int_equal(sensim_rig_push_pose(rig, 10000, P), SENSIM_ERR_TIME_ORDER);
    assert_int_equal(sensim_rig_push_pose(rig, 9999, P), SENSIM_ERR_TIME_ORDER);
    assert_int_equal(sensim_rig_step(rig, scene, 1000, NULL, NULL), SENSIM_ERR_TIME_ORDER); /* begins before */
    assert_non_null(strstr(sensim_context_last_error(NULL), "before the first pushed pose"));
    sensim_rig_destroy(rig);
    CHECK_OK(sensim_rig_create(ctx, &rig));
    CHECK_OK(sensim_rig_push_pose(rig, 0, P));
    CHECK_OK(sensim_rig_push_pose(rig, 1000, P));
    assert_int_equal(sensim_rig_step(rig, scene, 1001, NULL, NULL), SENSIM_ERR_TIME_ORDER); /* beyond the last */
    assert_non_null(strstr(sensim_context_last_error(NULL), "after the last pushed pose"));
    CHECK_OK(sensim_rig_step(rig, scene, 1000, NULL, NULL));
    assert_int_equal(sensim_rig_platform_at(rig, 1001, &k), SENSIM_ERR_OUT_OF_RANGE);
    /* a bounded history: SENSIM_RIG_HISTORY_KEYS keys ahead refused, stepping frees room */
    sensim_status st = SENSIM_OK;
    int64_t t = 1000;
    int pushed = 0;
    while ((st = sensim_rig_push_pose(rig, t += 1000, P)) == SENSIM_OK)
        pushed++;
    assert_int_equal(st, SENSIM_ERR_TOO_LARGE);
    assert_int_equal(pushed, SENSIM_RIG_HISTORY_KEYS - 1); /* key 0 dropped: behind the rig and the stencil */
    CHECK_OK(sensim_rig_platform_at(rig, 1000, &k));
    CHECK_OK(sensim_rig_step(rig, scene, 100000, NULL, NULL));
    CHECK_OK(sensim_rig_push_pose(rig, t, P));
    CHECK_OK(sensim_rig_platform_at(rig, 101000, &k)); /* the rig's time: kept */
    assert_int_equal(sensim_rig_platform_at(rig, 1000, &k), SENSIM_ERR_OUT_OF_RANGE); /* dropped */
    /* keys given to a step still work as before, beside the history */
    sensim_pose_key key[2] = {{0}};
    key[0].t_ns = 0, key[1].t_ns = 1000000000;
    identity(key[0].pose), identity(key[1].pose);
    sensim_motion m = {.keys = key, .key_count = 2};
    CHECK_OK(sensim_rig_step(rig, scene, 1000, &m, NULL));
    sensim_rig_destroy(rig);
    sensim_scene_destroy(scene);
}

/* Consumers: each committed step hands every attached ring to its consumer,
 * in sensor order; a failing consumer's status comes back from the step,
 * which has happened; the rig refuses its own calls inside them. */
typedef struct consumer_log {
    sensim_rig *rig;
    const sensim_scene *scene;
    uint64_t frames, calls;
    int64_t last_t;
    sensim_status fail_with, inner;
    uint32_t order[8], n;
} consumer_log;

static sensim_status consume(void *user, uint32_t index, sensim_ring *ring)
{
    consumer_log *c = user;
    c->calls++;
    if (c->n < 8)
        c->order[c->n++] = index;
    c->inner = sensim_rig_step(c->rig, c->scene, 1000, NULL, NULL); /* refused: the rig is still stepping */
    const sensim_frame_header *h;
    const sensim_nav_sample *smp;
    while (sensim_ring_peek_nav(ring, &h, &smp) == SENSIM_OK) {
        assert_true(smp->t_ns > c->last_t || c->frames == 0);
        c->last_t = smp->t_ns;
        c->frames++;
        CHECK_OK(sensim_ring_release(ring));
    }
    return c->fail_with;
}

static void test_consumers(void **state)
{
    (void)state;
    sensim_scene *scene = empty_scene();
    sensim_nav *a = make_nav(SENSIM_NAV_IMU, 1000), *b = make_nav(SENSIM_NAV_ODOMETRY, 100);
    sensim_ring *ra = nav_ring(16), *rb = nav_ring(16);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    uint32_t ia, ib;
    CHECK_OK(sensim_rig_add_nav(rig, a, ra, &ia));
    CHECK_OK(sensim_rig_add_nav(rig, b, rb, &ib));
    consumer_log la = {rig, scene, 0, 0, -1, SENSIM_OK, SENSIM_OK, {0}, 0}, lb = la;
    assert_int_equal(sensim_rig_set_consumer(rig, 2, consume, &la), SENSIM_ERR_BAD_INDEX);
    CHECK_OK(sensim_rig_set_consumer(rig, ib, consume, &lb));
    CHECK_OK(sensim_rig_set_consumer(rig, ia, consume, &la));
    double P[16];
    identity(P);
    for (int k = 0; k <= 100; k++) {
        P[12] = 0.01 * k;
        CHECK_OK(sensim_rig_push_pose(rig, k * 1000000LL, P));
    }
    for (int k = 0; k < 50; k++) /* 50 ms in 1 ms steps: a ring of 16 never fills, the consumers drain it */
        CHECK_OK(sensim_rig_step(rig, scene, 1000000, NULL, NULL));
    assert_int_equal(la.frames, 50);
    assert_int_equal(lb.frames, 5);
    assert_int_equal(la.calls, 50);
    assert_int_equal(la.inner, SENSIM_ERR_BUSY);
    assert_int_equal(la.order[0], ia);
    /* a failing consumer: the step happened, its status comes back, the other consumer still ran */
    la.fail_with = SENSIM_ERR_IO;
    sensim_rig_step_result res;
    assert_int_equal(sensim_rig_step(rig, scene, 10000000, NULL, &res), SENSIM_ERR_IO);
    assert_non_null(strstr(sensim_context_last_error(NULL), "consumer of sensor 0"));
    assert_int_equal(la.frames, 60);
    assert_int_equal(lb.frames, 6);
    assert_int_equal(res.t_end_ns, 60000000); /* the clock moved */
    /* detached: the frames stay in the ring for the host */
    CHECK_OK(sensim_rig_set_consumer(rig, ia, NULL, NULL));
    CHECK_OK(sensim_rig_step(rig, scene, 5000000, NULL, NULL));
    assert_int_equal(la.frames, 60);
    int left = 0;
    const sensim_frame_header *h;
    const sensim_nav_sample *smp;
    while (sensim_ring_peek_nav(ra, &h, &smp) == SENSIM_OK) {
        assert_int_equal(smp->t_ns, 60000000 + left * 1000000LL);
        left++;
        CHECK_OK(sensim_ring_release(ra));
    }
    assert_int_equal(left, 5);
    sensim_rig_destroy(rig);
    sensim_nav_destroy(a);
    sensim_nav_destroy(b);
    free(ra), free(rb);
    sensim_scene_destroy(scene);
}

/* A frame sink on a rig: every frame of the lidar's ring on disk, points
 * equal to the ring's (read back from the PLY body), the JSON last; bad
 * descriptors refused by name; a missing folder is an I/O error naming the
 * file; a navigation ring is not a sink's. */
static void test_frame_sink(void **state)
{
    (void)state;
    char sdir[] = "/tmp/sensim_sink_XXXXXX";
    assert_non_null(mkdtemp(sdir));
    sensim_scene *scene = empty_scene();
    sensim_lidar *lidar;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", (const char *const[]){"mount_xyz_m=0,0,2"}, 1, &lidar));
    void *mem;
    sensim_ring *lr = lidar_ring(lidar, &mem);
    sensim_frame_sink_desc d;
    sensim_frame_sink_desc_init(&d);
    sensim_frame_sink *sink;
    d.dir = sdir, d.sensor_name = "roof";
    d.images = SENSIM_SINK_IMAGE_RANGE;
    assert_int_equal(sensim_frame_sink_create(&d, &sink), SENSIM_ERR_INVALID_ARGUMENT); /* images need the lidar */
    d.lidar = lidar, d.sensor_name = "ro\"of";
    assert_int_equal(sensim_frame_sink_create(&d, &sink), SENSIM_ERR_INVALID_ARGUMENT);
    d.sensor_name = "roof", d.format = SENSIM_FORMAT_LAS12 + 1;
    assert_int_equal(sensim_frame_sink_create(&d, &sink), SENSIM_ERR_INVALID_ARGUMENT);
    d.format = SENSIM_FORMAT_CARLA, d.frame = SENSIM_FRAME_UE;
    assert_int_equal(sensim_frame_sink_create(&d, &sink), SENSIM_ERR_INVALID_ARGUMENT);
    d.format = SENSIM_FORMAT_PLY, d.frame = SENSIM_FRAME_NATIVE;
    CHECK_OK(sensim_frame_sink_create(&d, &sink));
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    uint32_t li;
    CHECK_OK(sensim_rig_add_lidar(rig, lidar, lr, &li));
    CHECK_OK(sensim_rig_set_consumer(rig, li, sensim_frame_sink_consume, sink));
    double P[16];
    identity(P);
    CHECK_OK(sensim_rig_push_pose(rig, 0, P));
    CHECK_OK(sensim_rig_push_pose(rig, 300000000, P));
    for (int k = 0; k < 3; k++)
        CHECK_OK(sensim_rig_step(rig, scene, 100000000, NULL, NULL));
    for (int k = 0; k < 3; k++) {
        char path[128];
        snprintf(path, sizeof path, "%s/frame_%06d.json", sdir, k);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        char json[2048] = {0};
        assert_true(fread(json, 1, sizeof json - 1, f) > 100);
        fclose(f);
        assert_non_null(strstr(json, "{\"sensor\": \"roof\", \"frame\": "));
        snprintf(path, sizeof path, "%s/frame_%06d_range.png", sdir, k);
        assert_int_equal(access(path, R_OK), 0);
        /* the PLY's body is the frame's records (32 bytes each, the point layout) */
        snprintf(path, sizeof path, "%s/frame_%06d.ply", sdir, k);
        f = fopen(path, "rb");
        assert_non_null(f);
        static char ply[2 << 20];
        size_t len = fread(ply, 1, sizeof ply, f);
        fclose(f);
        char *end = strstr(ply, "end_header\n");
        assert_non_null(end);
        unsigned long long n = 0;
        assert_int_equal(sscanf(strstr(ply, "element vertex "), "element vertex %llu", &n), 1);
        assert_true(n > 10000); /* a VLP-16 2 m over a plane: its lower 8 rings */
        assert_int_equal(len - (size_t)(end + 11 - ply), n * 32);
        float z;
        memcpy(&z, end + 11 + 8, sizeof z); /* the first record's z (the body need not be aligned) */
        assert_true(fabsf(z + 2.0f) < 0.05f); /* sensor frame: the ground 2 m below */
    }
    /* a folder that went away: an I/O error naming the file, the clock moved */
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", sdir);
    assert_int_equal(system(cmd), 0);
    CHECK_OK(sensim_rig_push_pose(rig, 400000000, P));
    assert_int_equal(sensim_rig_step(rig, scene, 100000000, NULL, NULL), SENSIM_ERR_IO);
    assert_non_null(strstr(sensim_context_last_error(NULL), "frame_000003"));
    /* a navigation ring is not a frame sink's */
    sensim_ring *nr = nav_ring(4);
    assert_int_equal(sensim_frame_sink_consume(sink, 0, nr), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_frame_sink_consume(nr, 0, lr), SENSIM_ERR_INVALID_ARGUMENT); /* not a sink */
    sensim_rig_destroy(rig);
    sensim_frame_sink_destroy(sink);
    sensim_frame_sink_destroy(NULL);
    sensim_lidar_destroy(lidar);
    free(mem), free(nr);
    sensim_scene_destroy(scene);
}

/* An image sink on a rig: each capture's PNGs and JSON (pose = the ring
 * header's, converted to the sink's frame), the JSON last; bad descriptors
 * and rings refused. */
static void test_image_sink(void **state)
{
    (void)state;
    char sdir[] = "/tmp/sensim_isink_XXXXXX";
    assert_non_null(mkdtemp(sdir));
    sensim_scene *scene = empty_scene();
    sensim_camera_desc cd;
    sensim_camera_desc_init(&cd);
    cd.width = 32, cd.height = 24, cd.hfov_deg = 90;
    sensim_camera *cam;
    CHECK_OK(sensim_camera_create(ctx, &cd, &cam));
    size_t size;
    const uint32_t outs = SENSIM_CAMERA_DEPTH | SENSIM_CAMERA_SEMANTIC | SENSIM_CAMERA_INSTANCE;
    CHECK_OK(sensim_image_ring_required_size(32, 24, outs, 4, &size));
    void *mem = malloc(size);
    sensim_ring *ir;
    CHECK_OK(sensim_image_ring_init(mem, size, 32, 24, outs, 4, SENSIM_OVERFLOW_FAIL, &ir));
    sensim_image_sink_desc d;
    sensim_image_sink_desc_init(&d);
    sensim_image_sink *sink;
    d.dir = sdir, d.camera_name = "front\n", d.camera = cam, d.frame = SENSIM_FRAME_CARLA;
    assert_int_equal(sensim_image_sink_create(&d, &sink), SENSIM_ERR_INVALID_ARGUMENT);
    d.camera_name = "front", d.outputs = 64;
    assert_int_equal(sensim_image_sink_create(&d, &sink), SENSIM_ERR_INVALID_ARGUMENT);
    d.outputs = SENSIM_CAMERA_RGB; /* the ring holds no colour: refused when written */
    CHECK_OK(sensim_image_sink_create(&d, &sink));
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    uint32_t ci;
    CHECK_OK(sensim_rig_add_camera(rig, cam, 10, 4, ir, &ci));
    CHECK_OK(sensim_rig_set_consumer(rig, ci, sensim_image_sink_consume, sink));
    double P[16];
    translation(P, 1, 2, 1.5);
    CHECK_OK(sensim_rig_push_pose(rig, 0, P));
    CHECK_OK(sensim_rig_push_pose(rig, 300000000, P));
    assert_int_equal(sensim_rig_step(rig, scene, 100000000, NULL, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_image_sink_destroy(sink);
    d.outputs = 0; /* everything the ring holds */
    CHECK_OK(sensim_image_sink_create(&d, &sink));
    CHECK_OK(sensim_rig_set_consumer(rig, ci, sensim_image_sink_consume, sink));
    CHECK_OK(sensim_rig_step(rig, scene, 200000000, NULL, NULL));
    const char *files[] = {"000001.json", "000002.json", "depth/000001.png", "depth/000001.pfm",
                           "semantic/000002.png", "semantic_cityscapes/000002.png", "instance/000001.png"};
    for (int k = 0; k < 7; k++) {
        char path[160];
        snprintf(path, sizeof path, "%s/%s", sdir, files[k]);
        assert_int_equal(access(path, R_OK), 0);
    }
    char path[160], json[4096] = {0};
    snprintf(path, sizeof path, "%s/000002.json", sdir);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_true(fread(json, 1, sizeof json - 1, f) > 100);
    fclose(f);
    /* the camera's pose at 200 ms in CARLA's frame: y mirrored */
    assert_non_null(strstr(json, "\"t_ns\": 200000000, \"camera\": \"front\", \"frame_of_reference\": \"carla\""));
    assert_non_null(strstr(json, ", 1, -2, 1.5, 1],"));
    sensim_ring *pr = test_ring(16, 2, SENSIM_OVERFLOW_FAIL);
    assert_int_equal(sensim_image_sink_consume(sink, 0, pr), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_rig_destroy(rig);
    sensim_image_sink_destroy(sink);
    sensim_camera_destroy(cam);
    free(mem), free(pr);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", sdir);
    assert_int_equal(system(cmd), 0);
    sensim_scene_destroy(scene);
}

/* CSV sinks: an IMU stream from a rig's ring, committed by close (nothing
 * visible before; an unclosed sink leaves nothing); kinds and rings checked. */
static void test_csv_sink(void **state)
{
    (void)state;
    char sdir[] = "/tmp/sensim_csink_XXXXXX", path[96], gone[96], rpath[96];
    assert_non_null(mkdtemp(sdir));
    snprintf(path, sizeof path, "%s/imu.csv", sdir);
    snprintf(gone, sizeof gone, "%s/never.csv", sdir);
    snprintf(rpath, sizeof rpath, "%s/radar.csv", sdir);
    sensim_scene *scene = empty_scene();
    sensim_nav *imu = make_nav(SENSIM_NAV_IMU, 100);
    sensim_ring *nr = nav_ring(16);
    sensim_csv_sink_desc d;
    sensim_csv_sink_desc_init(&d);
    sensim_csv_sink *sink, *radar, *never;
    d.path = path, d.kind = 9;
    assert_int_equal(sensim_csv_sink_create(&d, &sink), SENSIM_ERR_INVALID_ARGUMENT);
    d.kind = SENSIM_CSV_IMU;
    CHECK_OK(sensim_csv_sink_create(&d, &sink));
    d.path = gone;
    CHECK_OK(sensim_csv_sink_create(&d, &never));
    d.path = rpath, d.kind = SENSIM_CSV_RADAR, d.frame = SENSIM_FRAME_UE;
    CHECK_OK(sensim_csv_sink_create(&d, &radar));
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    uint32_t ii;
    CHECK_OK(sensim_rig_add_nav(rig, imu, nr, &ii));
    CHECK_OK(sensim_rig_set_consumer(rig, ii, sensim_csv_sink_consume, sink));
    double P[16];
    identity(P);
    CHECK_OK(sensim_rig_push_pose(rig, 0, P));
    CHECK_OK(sensim_rig_push_pose(rig, 100000000, P));
    CHECK_OK(sensim_rig_step(rig, scene, 100000000, NULL, NULL));
    assert_int_not_equal(access(path, F_OK), 0); /* not before close */
    assert_int_equal(sensim_csv_sink_consume(radar, 0, nr), SENSIM_ERR_INVALID_ARGUMENT); /* a nav ring */
    sensim_nav_sample smp = {0};
    smp.kind = SENSIM_NAV_GNSS;
    assert_int_equal(sensim_csv_sink_write_nav(sink, &smp), SENSIM_ERR_INVALID_ARGUMENT);
    CHECK_OK(sensim_csv_sink_close(sink));
    assert_int_equal(sensim_csv_sink_close(sink), SENSIM_ERR_INVALID_ARGUMENT);
    CHECK_OK(sensim_csv_sink_close(radar));
    sensim_csv_sink_destroy(never); /* unclosed: nothing left behind */
    assert_int_not_equal(access(gone, F_OK), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char line[256];
    int rows = 0;
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "t_ns,ax,ay,az,gx,gy,gz,compass_rad\n");
    while (fgets(line, sizeof line, f)) {
        long long t;
        double ax, ay, az;
        assert_int_equal(sscanf(line, "%lld,%lf,%lf,%lf", &t, &ax, &ay, &az), 4);
        assert_int_equal(t, rows * 10000000LL);
        assert_double_close(az, 9.80665, 1e-12); /* at rest: gravity only */
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 10);
    f = fopen(rpath, "rb"); /* UE: centimetres named in the header */
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "t_ns,sample,depth_cm,azimuth_rad,altitude_rad,velocity_cmps,rcs_dbsm,snr_db,object_id,"
                              "tag\n");
    fclose(f);
    sensim_rig_destroy(rig);
    sensim_csv_sink_destroy(sink);
    sensim_csv_sink_destroy(radar);
    sensim_nav_destroy(imu);
    free(nr);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", sdir);
    assert_int_equal(system(cmd), 0);
    sensim_scene_destroy(scene);
}

/* The open frame, step by step: after each of four quarter-turn scans the
 * open frame holds exactly the shots fired so far (those with t < the step's
 * end), the points written by one step are the ones appended to it, and the
 * complete frame popped at the end is their concatenation, bit for bit. */
static void test_peek_open(void **state)
{
    (void)state;
    sensim_scene *scene = empty_scene();
    sensim_lidar *lidar;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "carla_default", (const char *const[]){"dropoff_model=none"}, 1,
                                             &lidar));
    void *mem;
    sensim_ring *r = lidar_ring(lidar, &mem);
    sensim_frame_view v;
    assert_int_equal(sensim_ring_peek_open(r, &v), SENSIM_ERR_RING_EMPTY);
    assert_int_equal(sensim_ring_peek_open(r, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_lidar_info li;
    sensim_lidar_get_info(lidar, &li);
    const double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 2, 1};
    sensim_point *seen = calloc(li.max_points_per_frame, sizeof *seen);
    uint64_t n_seen = 0;
    for (int q = 0; q < 4; q++) {
        int64_t t0 = li.frame_period_ns * q / 4, t1 = li.frame_period_ns * (q + 1) / 4;
        CHECK_OK(sensim_lidar_scan(lidar, scene, t0, t1, pose, r, NULL));
        if (q < 3) {
            CHECK_OK(sensim_ring_peek_open(r, &v));
            uint64_t n = v.counts[0] + v.counts[1];
            assert_true(n >= n_seen && v.header->point_count == n);
            assert_memory_equal(v.points[0], seen, n_seen * sizeof *seen); /* earlier steps' points stay put */
            for (uint64_t i = n_seen; i < n; i++) { /* this step's shots: fired in [t0, t1) */
                const sensim_point *p = i < v.counts[0] ? &v.points[0][i] : &v.points[1][i - v.counts[0]];
                assert_true((int64_t)p->t_offset_ns >= t0 && (int64_t)p->t_offset_ns < t1);
                seen[i] = *p;
            }
            n_seen = n;
            assert_int_equal(sensim_ring_peek(r, &v), SENSIM_ERR_RING_EMPTY); /* nothing complete yet */
        }
    }
    /* the turn is complete: popped whole, it begins with what the steps saw */
    sensim_frame_header h;
    uint64_t n;
    sensim_point *all = calloc(li.max_points_per_frame, sizeof *all);
    CHECK_OK(sensim_ring_pop(r, &h, all, li.max_points_per_frame, &n));
    assert_true(n > n_seen && n_seen > 0);
    assert_memory_equal(all, seen, n_seen * sizeof *seen);
    assert_int_equal(sensim_ring_peek_open(r, &v), SENSIM_ERR_RING_EMPTY);
    free(all), free(seen), free(mem);
    sensim_lidar_destroy(lidar);
    sensim_scene_destroy(scene);
}


/* One step's work is bounded by the host's rings: a 1 h step (or one of
 * 146 years) that would give a sensor more frames than its ring holds is
 * refused at once, naming the sensor, and changes nothing: the next valid
 * step works. Before the bound, a 1 h step traced 36 000 lidar frames and
 * a 146-year one ran until killed. */
static void test_step_bound(void **state)
{
    (void)state;
    sensim_scene *scene = empty_scene();
    sensim_lidar *lidar;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", NULL, 0, &lidar));
    void *mem;
    sensim_ring *ring = lidar_ring(lidar, &mem); /* 8 frames of 100 ms */
    sensim_nav *imu = make_nav(SENSIM_NAV_IMU, 100.0);
    sensim_ring *nring = nav_ring(1000);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    CHECK_OK(sensim_rig_add_nav(rig, imu, nring, NULL));
    CHECK_OK(sensim_rig_add_lidar(rig, lidar, ring, NULL));
    double P[16];
    identity(P);
    P[14] = 2;
    const int64_t hour = INT64_C(3600000000000), years146 = INT64_C(4611686018427387904) - 1;
    CHECK_OK(sensim_rig_push_pose(rig, 0, P));
    CHECK_OK(sensim_rig_push_pose(rig, years146, P));
    sensim_rig_step_result res;
    assert_int_equal(sensim_rig_step(rig, scene, hour, NULL, &res), SENSIM_ERR_TOO_LARGE);
    const char *msg = sensim_context_last_error(ctx);
    assert_non_null(strstr(msg, "sensor 0 (navigation")); /* the IMU's 360 000 samples > 1000 first */
    assert_non_null(strstr(msg, "360000 frames"));
    assert_int_equal(sensim_rig_step(rig, scene, years146, NULL, &res), SENSIM_ERR_TOO_LARGE);
    /* 8 lidar frames of 100 ms hold a step of 800 ms from 0: 1 ns more is refused, naming the lidar */
    assert_int_equal(sensim_rig_step(rig, scene, 800000001, NULL, &res), SENSIM_ERR_TOO_LARGE);
    assert_non_null(strstr(sensim_context_last_error(ctx), "sensor 1 (lidar"));
    CHECK_OK(sensim_rig_step(rig, scene, 800000000, NULL, &res));
    assert_int_equal(res.world_step, 0);
    assert_int_equal(res.t_begin_ns, 0);
    assert_int_equal(res.sensors_refused, 0);
    assert_int_equal(res.frames_completed, 80 + 8);
    sensim_rig_destroy(rig);
    sensim_nav_destroy(imu);
    free(nring); /* the ring is its memory's start */
    sensim_lidar_destroy(lidar);
    free(mem);
    sensim_scene_destroy(scene);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_push_pose_imu),     cmocka_unit_test(test_causal_exact),
        cmocka_unit_test(test_one_motion_model),  cmocka_unit_test(test_split_invariance),
        cmocka_unit_test(test_push_errors),       cmocka_unit_test(test_consumers),
        cmocka_unit_test(test_frame_sink),        cmocka_unit_test(test_image_sink),
        cmocka_unit_test(test_csv_sink),          cmocka_unit_test(test_peek_open),
        cmocka_unit_test(test_step_bound),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
