/* Several threads scanning one committed scene give the same bytes as
 * sequential scans; edits during scans are refused with SENSIM_ERR_BUSY.
 * Also run under ThreadSanitizer by `make test` (build-tsan). */
#include "helpers.h"
#include "street.h"

#include "scene_impl.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#define NT 4
#define FRAMES 3

static sensim_context *ctx;
static sensim_scene *scene;
static const char *const presets[NT] = {"vlp16", "mid40", "mems_m1", "pandar64"};

typedef struct job {
    int index;
    sensim_point *pts;
    uint64_t n;
} job;

static void run_job(job *j)
{
    char seed[32], id[32];
    snprintf(seed, sizeof seed, "seed=%d", 100 + j->index);
    snprintf(id, sizeof id, "lidar_id=%d", j->index);
    const char *sets[] = {seed, id, "range_noise_stddev_m=0.03"};
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, presets[j->index], sets, 3, &l));
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    sensim_ring *r = test_ring(2 * li.shots_per_frame + 16, 8, SENSIM_OVERFLOW_FAIL);
    double pose[16];
    translation(pose, -20, 0.5, 1.8);
    j->pts = NULL;
    j->n = 0;
    for (int f = 0; f < FRAMES; f++) {
        CHECK_OK(sensim_lidar_scan(l, scene, f * li.frame_period_ns, (f + 1) * li.frame_period_ns, pose, r, NULL));
        drain(r, &j->pts, &j->n, NULL, 0, NULL);
    }
    free(r);
    sensim_lidar_destroy(l);
}

static void *thread_main(void *arg)
{
    run_job(arg);
    return NULL;
}

static int setup(void **state)
{
    (void)state;
    ctx = test_ctx(1); /* one worker per scan: the parallelism here is the host's threads */
    CHECK_OK(sensim_scene_create(ctx, &scene));
    street_info si;
    CHECK_OK(street_scene_build(scene, 100.0f, 1, &si));
    CHECK_OK(sensim_scene_commit(scene));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    return 0;
}

static void test_parallel_equals_sequential(void **state)
{
    (void)state;
    job seq[NT], par[NT];
    for (int i = 0; i < NT; i++) {
        seq[i].index = par[i].index = i;
        run_job(&seq[i]);
    }
    pthread_t th[NT];
    for (int i = 0; i < NT; i++)
        assert_int_equal(pthread_create(&th[i], NULL, thread_main, &par[i]), 0);
    for (int i = 0; i < NT; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < NT; i++) {
        assert_true(seq[i].n > 1000);
        assert_int_equal(seq[i].n, par[i].n);
        assert_memory_equal(seq[i].pts, par[i].pts, seq[i].n * sizeof(sensim_point));
        printf("# %s: %llu points, identical in parallel\n", presets[i], (unsigned long long)seq[i].n);
        free(seq[i].pts);
        free(par[i].pts);
    }
}

static atomic_int stop;

static atomic_int scans_ok;

static void *scanner(void *arg)
{
    atomic_int *busy_scans = arg;
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "pandar64", NULL, 0, &l));
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    sensim_ring *r = test_ring(2 * li.shots_per_frame, 4, SENSIM_OVERFLOW_DROP_OLDEST);
    double pose[16];
    translation(pose, 0, 0, 1.8);
    int64_t t = 0;
    /* scan back to back until told to stop: the scene is in use nearly all the time */
    while (!atomic_load(&stop)) {
        sensim_status st = sensim_lidar_scan(l, scene, t, t + li.frame_period_ns / 4, pose, r, NULL);
        if (st == SENSIM_ERR_BUSY || st == SENSIM_ERR_NOT_COMMITTED)
            atomic_fetch_add(busy_scans, 1); /* an edit or an uncommitted state: refused, retried */
        else {
            assert_int_equal(st, SENSIM_OK);
            atomic_fetch_add(&scans_ok, 1);
        }
        t += li.frame_period_ns / 4;
    }
    free(r);
    sensim_lidar_destroy(l);
    return NULL;
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The outcome must not depend on timing: first let the scanner finish scans on the committed
 * scene, then try edits while it scans back to back until one is refused, then apply one edit
 * (retrying until the scanner is between scans) and commit it. Only the wait is bounded. */
static void test_edits_during_scans_are_refused(void **state)
{
    (void)state;
    atomic_int busy_scans;
    atomic_init(&busy_scans, 0);
    atomic_store(&stop, 0);
    atomic_store(&scans_ok, 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, scanner, &busy_scans), 0);
    int refused = 0, applied = 0;
    double pose[16];
    translation(pose, -25, 2.4, 0);
    for (int k = 0; k < 60000 && atomic_load(&scans_ok) < 3; k++) /* up to 60 s under sanitizers */
        nap_ms(1);
    assert_true(atomic_load(&scans_ok) >= 3);
    /* phase 2: edits attempted while scans run are refused and leave the scene untouched */
    for (int k = 0; k < 1000000 && refused < 3; k++) {
        sensim_status st = sensim_scene_set_actor_pose(scene, 1, pose);
        if (st == SENSIM_ERR_BUSY)
            refused++;
        else {
            assert_int_equal(st, SENSIM_OK);
            applied++;
            sensim_status cs;
            while ((cs = sensim_scene_commit(scene)) == SENSIM_ERR_BUSY)
                ;
            CHECK_OK(cs);
        }
    }
    assert_true(refused >= 3);
    /* phase 3: an edit lands between two scans; scans are refused until it is committed, then resume */
    sensim_status st;
    while ((st = sensim_scene_set_actor_pose(scene, 1, pose)) == SENSIM_ERR_BUSY)
        refused++;
    CHECK_OK(st);
    applied++;
    for (int k = 0; k < 60000 && atomic_load(&busy_scans) == 0; k++)
        nap_ms(1);
    assert_true(atomic_load(&busy_scans) > 0);
    while ((st = sensim_scene_commit(scene)) == SENSIM_ERR_BUSY)
        ;
    CHECK_OK(st);
    int before = atomic_load(&scans_ok);
    for (int k = 0; k < 60000 && atomic_load(&scans_ok) <= before; k++)
        nap_ms(1);
    assert_true(atomic_load(&scans_ok) > before);
    atomic_store(&stop, 1);
    pthread_join(th, NULL);
    printf("# edits: %d applied, %d refused while scanning; scans: %d done, %d refused during edits\n", applied,
           refused, atomic_load(&scans_ok), atomic_load(&busy_scans));
}

/* ---- states a test waits for: a pattern callback that stops inside a scan ---- */
static atomic_int gate_armed, gate_inside, gate_open;

static int32_t gated_shot(void *user, int64_t shot, int64_t t_ns, uint16_t *channel, float dir[3])
{
    (void)user;
    (void)t_ns;
    int expected = 1;
    if (atomic_compare_exchange_strong(&gate_armed, &expected, 0)) {
        atomic_store(&gate_inside, 1); /* the scan holds the lidar and the scene now */
        while (!atomic_load(&gate_open))
            sched_yield();
    }
    double az = ((double)(shot % 61) - 30.0) * 3.14159265358979 / 180.0; /* +-30 deg, towards the wall */
    dir[0] = (float)cos(az), dir[1] = (float)sin(az), dir[2] = 0.0f;
    *channel = 0;
    return 0;
}

static sensim_lidar *gated_lidar(uint32_t id)
{
    sensim_lidar_desc d;
    sensim_lidar_desc_init(&d);
    d.pattern = SENSIM_PATTERN_CALLBACK;
    d.channel_count = 1;
    d.shots_per_s = 36000; /* 3600 shots per 0.1 s frame: a 1 s scan spans 10 frames */
    d.frame_rate_hz = 10;
    d.shot_fn = gated_shot;
    d.lidar_id = id;
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create(ctx, &d, &l));
    return l;
}

static sensim_scene *wall_scene(void)
{
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float v[] = {10, -50, -50, 10, 50, -50, 10, 50, 50, 10, -50, 50};
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = v, md.vertex_count = 4, md.indices = idx, md.triangle_count = 2, md.tag = 4;
    CHECK_OK(sensim_scene_add_mesh(s, &md, NULL));
    CHECK_OK(sensim_scene_commit(s));
    return s;
}

typedef struct held_scan {
    sensim_lidar *l;
    sensim_scene *scene;
    sensim_ring *ring;
    int64_t t1;
    sensim_status st;
} held_scan;

static void *held_scan_main(void *arg)
{
    held_scan *h = arg;
    double pose[16];
    identity(pose);
    h->st = sensim_lidar_scan(h->l, h->scene, 0, h->t1, pose, h->ring, NULL);
    return NULL;
}

static void start_held_scan(held_scan *h, pthread_t *th)
{
    atomic_store(&gate_inside, 0);
    atomic_store(&gate_open, 0);
    atomic_store(&gate_armed, 1);
    assert_int_equal(pthread_create(th, NULL, held_scan_main, h), 0);
    while (!atomic_load(&gate_inside)) /* a state, not a delay */
        sched_yield();
}

static void *destroy_main(void *arg)
{
    sensim_scene_destroy(arg);
    return NULL;
}

/* While one thread scans: the same lidar from another thread, its mount, an
 * edit of the scene are refused with SENSIM_ERR_BUSY; destroying the scene
 * waits for the scan instead of freeing the BVH under it (was SIGSEGV). */
static void test_forbidden_threading_is_refused(void **state)
{
    (void)state;
    sensim_scene *s = wall_scene();
    sensim_lidar *l = gated_lidar(1);
    held_scan h = {l, s, test_ring(100000, 16, SENSIM_OVERFLOW_FAIL), 100000000, -1};
    pthread_t th, dt;
    start_held_scan(&h, &th);
    double pose[16];
    identity(pose);
    sensim_ring *r2 = test_ring(100000, 16, SENSIM_OVERFLOW_FAIL);
    assert_int_equal(sensim_lidar_scan(l, s, 0, 100000000, pose, r2, NULL), SENSIM_ERR_BUSY);
    assert_non_null(strstr(sensim_context_last_error(NULL), "another thread"));
    assert_int_equal(sensim_lidar_set_mount_pose(l, pose), SENSIM_ERR_BUSY);
    assert_int_equal(sensim_scene_set_actor_pose(s, 1, pose), SENSIM_ERR_BUSY);
    /* destroy from a third thread: it must wait for the running scan */
    assert_int_equal(pthread_create(&dt, NULL, destroy_main, s), 0);
    while (atomic_load(&s->magic) != SENSIM_MAGIC_DEAD) /* destroy has begun */
        sched_yield();
    assert_int_equal(atomic_load(&s->use), 1); /* the scan still holds the scene: nothing freed */
    atomic_store(&gate_open, 1);
    pthread_join(th, NULL);
    pthread_join(dt, NULL);
    CHECK_OK(h.st); /* the scan finished on intact data */
    sensim_frame_view v;
    CHECK_OK(sensim_ring_peek(h.ring, &v));
    assert_true(v.counts[0] + v.counts[1] > 100);
    free(h.ring);
    free(r2);
    sensim_lidar_destroy(l);
}

/* A cancel set while a scan runs stops it within a chunk: nothing written,
 * the lidar as before, and a retry after clearing gives the very points of
 * an uninterrupted scan. */
static void test_cancel_writes_nothing(void **state)
{
    (void)state;
    sensim_scene *s = wall_scene();
    sensim_lidar *l = gated_lidar(2), *ref = gated_lidar(2);
    held_scan h = {l, s, test_ring(200000, 16, SENSIM_OVERFLOW_DROP_OLDEST), 1000000000, -1};
    pthread_t th;
    start_held_scan(&h, &th);
    CHECK_OK(sensim_context_set_cancel(ctx, 1));
    atomic_store(&gate_open, 1);
    pthread_join(th, NULL);
    assert_int_equal(h.st, SENSIM_ERR_CANCELLED);
    sensim_frame_view v;
    assert_int_equal(sensim_ring_peek(h.ring, &v), SENSIM_ERR_RING_EMPTY);
    sensim_ring_stats rs;
    CHECK_OK(sensim_ring_get_stats(h.ring, &rs));
    assert_int_equal(rs.frames_written, 0);
    assert_int_equal(rs.frames_dropped + rs.points_dropped + rs.points_lost, 0);
    double pose[16];
    identity(pose);
    assert_int_equal(sensim_lidar_scan(l, s, 0, 1000000000, pose, h.ring, NULL), SENSIM_ERR_CANCELLED);
    CHECK_OK(sensim_context_set_cancel(ctx, 0));
    CHECK_OK(sensim_lidar_scan(l, s, 0, 1000000000, pose, h.ring, NULL)); /* same interval: the lidar did not move on */
    sensim_ring *r2 = test_ring(200000, 16, SENSIM_OVERFLOW_DROP_OLDEST);
    CHECK_OK(sensim_lidar_scan(ref, s, 0, 1000000000, pose, r2, NULL));
    sensim_point *a = NULL, *b = NULL;
    uint64_t na = 0, nb = 0;
    drain(h.ring, &a, &na, NULL, 0, NULL);
    drain(r2, &b, &nb, NULL, 0, NULL);
    assert_true(na > 1000);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na * sizeof *a);
    free(a);
    free(b);
    free(h.ring);
    free(r2);
    sensim_lidar_destroy(l);
    sensim_lidar_destroy(ref);
    sensim_scene_destroy(s);
}

typedef struct held_step {
    sensim_rig *rig;
    sensim_scene *scene;
    sensim_status st;
} held_step;

static void *held_step_main(void *arg)
{
    held_step *h = arg;
    sensim_pose_key k = {0};
    identity(k.pose);
    sensim_motion m = {0};
    m.keys = &k;
    m.key_count = 1;
    h->st = sensim_rig_step(h->rig, h->scene, 1000000000, &m, NULL);
    return NULL;
}

/* A rig step is one transaction: cancelled after its first sensor has
 * scanned, no ring holds anything and the rig has not advanced. */
static void test_rig_step_is_all_or_nothing(void **state)
{
    (void)state;
    sensim_scene *s = wall_scene();
    sensim_lidar *first, *gated = gated_lidar(4);
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", NULL, 0, &first));
    sensim_ring *r1 = test_ring(2000000, 32, SENSIM_OVERFLOW_FAIL), *r2 = test_ring(200000, 32, SENSIM_OVERFLOW_FAIL);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    CHECK_OK(sensim_rig_add_lidar(rig, first, r1, NULL));
    CHECK_OK(sensim_rig_add_lidar(rig, gated, r2, NULL));
    held_step h = {rig, s, -1};
    atomic_store(&gate_inside, 0);
    atomic_store(&gate_open, 0);
    atomic_store(&gate_armed, 1);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, held_step_main, &h), 0);
    while (!atomic_load(&gate_inside)) /* the first sensor has scanned its second */
        sched_yield();
    assert_int_equal(sensim_scene_set_actor_pose(s, 1, (double[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}),
                     SENSIM_ERR_BUSY); /* no edit lands between sensors */
    CHECK_OK(sensim_context_set_cancel(ctx, 1));
    atomic_store(&gate_open, 1);
    pthread_join(th, NULL);
    assert_int_equal(h.st, SENSIM_ERR_CANCELLED);
    sensim_frame_view v;
    assert_int_equal(sensim_ring_peek(r1, &v), SENSIM_ERR_RING_EMPTY);
    assert_int_equal(sensim_ring_peek(r2, &v), SENSIM_ERR_RING_EMPTY);
    CHECK_OK(sensim_context_set_cancel(ctx, 0));
    /* the step is retried from the same time: the rig did not advance */
    held_step h2 = {rig, s, -1};
    held_step_main(&h2);
    CHECK_OK(h2.st);
    CHECK_OK(sensim_ring_peek(r1, &v));
    assert_int_equal(v.header->t_begin_ns, 0);
    assert_int_equal(v.header->world_step_first, 0);
    CHECK_OK(sensim_ring_peek(r2, &v));
    assert_int_equal(v.header->t_begin_ns, 0);
    sensim_rig_destroy(rig);
    sensim_lidar_destroy(first);
    sensim_lidar_destroy(gated);
    free(r1);
    free(r2);
    sensim_scene_destroy(s);
}

/* Forbidden threading on a rig's history: while one thread pushes and
 * steps, another calls sensim_rig_platform_at, sensim_rig_push_pose (with a
 * time already pushed) and sensim_rig_set_consumer. Each of those calls
 * either runs alone (the rig held for it) or is refused with
 * SENSIM_ERR_BUSY, never racing; the owner retries its own refused calls and
 * gets the same IMU samples as a run alone. */
typedef struct rig_pest {
    sensim_rig *rig;
    atomic_int stop;
    atomic_int rounds; /* the owner waits for the pest's rounds: the two interleave whatever the scheduler */
    uint64_t busy, ran;
} rig_pest;

static void *pest_main(void *arg)
{
    rig_pest *p = arg;
    double P[16];
    identity(P);
    sensim_kinematics k;
    while (!atomic_load(&p->stop)) {
        sensim_status a = sensim_rig_platform_at(p->rig, 0, &k);
        sensim_status b = sensim_rig_push_pose(p->rig, 0, P); /* never new: TIME_ORDER when it runs */
        sensim_status c = sensim_rig_set_consumer(p->rig, 0, NULL, NULL);
        assert_true(a == SENSIM_OK || a == SENSIM_ERR_BUSY);
        assert_true(b == SENSIM_ERR_TIME_ORDER || b == SENSIM_ERR_BUSY);
        assert_true(c == SENSIM_OK || c == SENSIM_ERR_BUSY);
        p->busy += (a == SENSIM_ERR_BUSY) + (b == SENSIM_ERR_BUSY) + (c == SENSIM_ERR_BUSY);
        p->ran += (a == SENSIM_OK) + (b != SENSIM_ERR_BUSY) + (c == SENSIM_OK);
        atomic_fetch_add(&p->rounds, 1);
    }
    return NULL;
}

static void history_run(int with_pest, sensim_nav_sample *out, int *n)
{
    sensim_nav_desc d;
    sensim_nav_desc_init(&d, SENSIM_NAV_IMU);
    d.rate_hz = 1000;
    sensim_nav *imu;
    CHECK_OK(sensim_nav_create(ctx, &d, &imu));
    size_t size;
    CHECK_OK(sensim_nav_ring_required_size(256, &size));
    void *mem = malloc(size);
    sensim_ring *r;
    CHECK_OK(sensim_nav_ring_init(mem, size, 256, SENSIM_OVERFLOW_FAIL, &r));
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    CHECK_OK(sensim_rig_add_nav(rig, imu, r, NULL));
    rig_pest p = {rig, 0, 0, 0, 0};
    pthread_t th;
    for (int k = 0; k <= 200; k++) {
        if (with_pest && k == 1) /* after our first key: the pest's pushes are never new */
            assert_int_equal(pthread_create(&th, NULL, pest_main, &p), 0);
        double P[16], th_ = 0.2 * k * 1e-3;
        identity(P);
        P[0] = cos(th_), P[1] = sin(th_), P[4] = -sin(th_), P[5] = cos(th_);
        P[12] = 50 * sin(th_), P[13] = 50 * (1 - cos(th_));
        sensim_status st;
        while (with_pest && k >= 1 && atomic_load(&p.rounds) < k) /* a round of the pest's between two of ours */
            sched_yield();
        while ((st = sensim_rig_push_pose(rig, k * 1000000LL, P)) == SENSIM_ERR_BUSY)
            sched_yield();
        CHECK_OK(st);
        while (k && (st = sensim_rig_step(rig, scene, 1000000, NULL, NULL)) == SENSIM_ERR_BUSY)
            sched_yield();
        CHECK_OK(st);
    }
    if (with_pest) {
        atomic_store(&p.stop, 1);
        pthread_join(th, NULL);
        assert_true(p.ran >= 3); /* its first round ran while we waited for it, holding nothing */
    }
    *n = 0;
    const sensim_frame_header *h;
    const sensim_nav_sample *s;
    while (sensim_ring_peek_nav(r, &h, &s) == SENSIM_OK) {
        out[(*n)++] = *s;
        CHECK_OK(sensim_ring_release(r));
    }
    sensim_rig_destroy(rig);
    sensim_nav_destroy(imu);
    free(mem);
}

static void test_rig_history_forbidden_threading(void **state)
{
    (void)state;
    static sensim_nav_sample a[256], b[256];
    int na, nb;
    history_run(0, a, &na);
    history_run(1, b, &nb);
    assert_int_equal(na, 200);
    assert_int_equal(nb, 200);
    assert_memory_equal(a, b, sizeof a[0] * 200);
}

/* ---- issue 63: a rig's sensors across the context's worker pool ----
 * A rig of three lidars (mechanical, two Risley), two cameras and an IMU on
 * a moving platform, stepped in odd splits: every ring holds the same bytes
 * for worker counts 1, 2, 3 and 8 (whole sensors on the pool's workers, each
 * on one thread; one big sensor's lanes on them), and two such rigs stepped on
 * two threads at once (one of them finds the pool busy and runs its sensors
 * itself) give each the bytes of the run alone. */
#define RIG_LIDARS 3
#define RIG_CAMS 2
#define CAM_W 32
#define CAM_H 24

typedef struct rig_out {
    sensim_point *pts[RIG_LIDARS];
    uint64_t n[RIG_LIDARS];
    float *depth;
    uint8_t *sem;
    uint32_t images;
    sensim_nav_sample nav[64];
    int nn;
} rig_out;

static void rig_run(int variant, rig_out *o)
{
    static const char *const kinds[RIG_LIDARS] = {"vlp16", "mid40", "avia"};
    memset(o, 0, sizeof *o);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    sensim_lidar *l[RIG_LIDARS];
    sensim_ring *lr[RIG_LIDARS];
    for (int i = 0; i < RIG_LIDARS; i++) {
        char seed[32], id[32];
        snprintf(seed, sizeof seed, "seed=%d", 7 + i + 10 * variant);
        snprintf(id, sizeof id, "lidar_id=%d", i);
        const char *sets[] = {seed, id, "range_noise_stddev_m=0.02"};
        CHECK_OK(sensim_lidar_create_from_preset(ctx, kinds[i], sets, 3, &l[i]));
        sensim_lidar_info li;
        CHECK_OK(sensim_lidar_get_info(l[i], &li));
        lr[i] = test_ring(2 * li.shots_per_frame + 16, 8, SENSIM_OVERFLOW_FAIL);
        CHECK_OK(sensim_rig_add_lidar(rig, l[i], lr[i], NULL));
    }
    sensim_camera *cam[RIG_CAMS];
    sensim_ring *cr[RIG_CAMS];
    const uint32_t outs = SENSIM_CAMERA_DEPTH | SENSIM_CAMERA_SEMANTIC;
    for (int i = 0; i < RIG_CAMS; i++) {
        sensim_camera_desc cd;
        sensim_camera_desc_init(&cd);
        cd.width = CAM_W, cd.height = CAM_H, cd.hfov_deg = 90 + 10 * i;
        CHECK_OK(sensim_camera_create(ctx, &cd, &cam[i]));
        size_t size;
        CHECK_OK(sensim_image_ring_required_size(CAM_W, CAM_H, outs, 8, &size));
        void *mem = malloc(size);
        CHECK_OK(sensim_image_ring_init(mem, size, CAM_W, CAM_H, outs, 8, SENSIM_OVERFLOW_FAIL, &cr[i]));
        CHECK_OK(sensim_rig_add_camera(rig, cam[i], 50, (uint32_t)i, cr[i], NULL));
    }
    sensim_nav_desc nd;
    sensim_nav_desc_init(&nd, SENSIM_NAV_IMU);
    nd.rate_hz = 200;
    sensim_nav *imu;
    CHECK_OK(sensim_nav_create(ctx, &nd, &imu));
    size_t nsize;
    CHECK_OK(sensim_nav_ring_required_size(64, &nsize));
    void *nmem = malloc(nsize);
    sensim_ring *nr;
    CHECK_OK(sensim_nav_ring_init(nmem, nsize, 64, SENSIM_OVERFLOW_FAIL, &nr));
    CHECK_OK(sensim_rig_add_nav(rig, imu, nr, NULL));
    for (int k = 0; k <= 12; k++) { /* along the street at 8 m/s, turning gently */
        double P[16];
        const double t = k * 0.01, yaw = 0.2 * t;
        identity(P);
        P[0] = cos(yaw), P[1] = sin(yaw), P[4] = -sin(yaw), P[5] = cos(yaw);
        P[12] = -20 + 8 * t, P[13] = 0.5 + variant, P[14] = 1.8;
        CHECK_OK(sensim_rig_push_pose(rig, k * 10000000LL, P));
    }
    static const int64_t split[3] = {7000000, 13000000, 1000000};
    for (int64_t t = 0, i = 0; t < 110000000; i++) { /* each lidar's first frame (100 ms) and a bit */
        int64_t dt = split[i % 3];
        if (t + dt > 110000000)
            dt = 110000000 - t;
        sensim_rig_step_result res;
        CHECK_OK(sensim_rig_step(rig, scene, dt, NULL, &res));
        assert_int_equal(res.sensors_refused, 0);
        t += dt;
    }
    for (int i = 0; i < RIG_LIDARS; i++)
        drain(lr[i], &o->pts[i], &o->n[i], NULL, 0, NULL);
    o->depth = malloc(16 * CAM_W * CAM_H * sizeof *o->depth);
    o->sem = malloc(16 * CAM_W * CAM_H);
    for (int i = 0; i < RIG_CAMS; i++) {
        sensim_image_view v;
        while (sensim_ring_peek_image(cr[i], &v) == SENSIM_OK) {
            assert_true(o->images < 16);
            memcpy(o->depth + (size_t)o->images * CAM_W * CAM_H, v.depth, CAM_W * CAM_H * sizeof *v.depth);
            memcpy(o->sem + (size_t)o->images * CAM_W * CAM_H, v.semantic, CAM_W * CAM_H);
            o->images++;
            CHECK_OK(sensim_ring_release(cr[i]));
        }
    }
    const sensim_frame_header *h;
    const sensim_nav_sample *smp;
    while (sensim_ring_peek_nav(nr, &h, &smp) == SENSIM_OK) {
        assert_true(o->nn < 64);
        o->nav[o->nn++] = *smp;
        CHECK_OK(sensim_ring_release(nr));
    }
    sensim_rig_destroy(rig);
    for (int i = 0; i < RIG_LIDARS; i++) {
        sensim_lidar_destroy(l[i]);
        free(lr[i]);
    }
    for (int i = 0; i < RIG_CAMS; i++) {
        sensim_camera_destroy(cam[i]);
        free(cr[i]);
    }
    sensim_nav_destroy(imu);
    free(nmem);
}

static void rig_same(const rig_out *a, const rig_out *b, const char *what)
{
    for (int i = 0; i < RIG_LIDARS; i++) {
        if (a->n[i] != b->n[i] || memcmp(a->pts[i], b->pts[i], a->n[i] * sizeof(sensim_point)))
            fail_msg("%s: lidar %d differs (%llu and %llu points)", what, i, (unsigned long long)a->n[i],
                     (unsigned long long)b->n[i]);
    }
    assert_int_equal(a->images, b->images);
    if (memcmp(a->depth, b->depth, (size_t)a->images * CAM_W * CAM_H * sizeof(float)) ||
        memcmp(a->sem, b->sem, (size_t)a->images * CAM_W * CAM_H))
        fail_msg("%s: the cameras' images differ", what);
    assert_int_equal(a->nn, b->nn);
    assert_memory_equal(a->nav, b->nav, (size_t)a->nn * sizeof a->nav[0]);
}

static void rig_free(rig_out *o)
{
    for (int i = 0; i < RIG_LIDARS; i++)
        free(o->pts[i]);
    free(o->depth);
    free(o->sem);
}

typedef struct rig_thread {
    int variant;
    rig_out out;
} rig_thread;

static void *rig_main(void *arg)
{
    rig_thread *r = arg;
    rig_run(r->variant, &r->out);
    return NULL;
}

static void test_rig_sensors_across_workers(void **state)
{
    (void)state;
    rig_out ref[2];
    CHECK_OK(sensim_context_set_thread_count(ctx, 1));
    rig_run(0, &ref[0]);
    rig_run(1, &ref[1]);
    for (int i = 0; i < RIG_LIDARS; i++)
        assert_true(ref[0].n[i] > 1000);
    assert_int_equal(ref[0].images, RIG_CAMS * 6); /* 50 Hz over 110 ms: 0, 20, ..., 100 ms */
    assert_int_equal(ref[0].nn, 22);              /* 200 Hz: 0, 5, ..., 105 ms */
    static const uint32_t workers[] = {2, 3, 8};
    for (int w = 0; w < 3; w++) {
        CHECK_OK(sensim_context_set_thread_count(ctx, workers[w]));
        rig_out o;
        rig_run(0, &o);
        char what[64];
        snprintf(what, sizeof what, "%u workers", workers[w]);
        rig_same(&ref[0], &o, what);
        rig_free(&o);
    }
    CHECK_OK(sensim_context_set_thread_count(ctx, 2));
    rig_thread th[2] = {{.variant = 0}, {.variant = 1}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, rig_main, &th[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    rig_same(&ref[0], &th[0].out, "two rigs on two threads, the first");
    rig_same(&ref[1], &th[1].out, "two rigs on two threads, the second");
    for (int i = 0; i < 2; i++) {
        rig_free(&th[i].out);
        rig_free(&ref[i]);
    }
    CHECK_OK(sensim_context_set_thread_count(ctx, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parallel_equals_sequential),
        cmocka_unit_test(test_edits_during_scans_are_refused),
        cmocka_unit_test(test_forbidden_threading_is_refused),
        cmocka_unit_test(test_cancel_writes_nothing),
        cmocka_unit_test(test_rig_step_is_all_or_nothing),
        cmocka_unit_test(test_rig_history_forbidden_threading),
        cmocka_unit_test(test_rig_sensors_across_workers),
    };
    return cmocka_run_group_tests_name("concurrency", tests, setup, teardown);
}
