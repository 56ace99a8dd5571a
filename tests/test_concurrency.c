/* Several threads scanning one committed scene give the same bytes as
 * sequential scans; edits during scans are refused with SENSIM_ERR_BUSY.
 * Also run under ThreadSanitizer by `make test` (build-tsan). */
#include "helpers.h"
#include "street.h"

#include <pthread.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parallel_equals_sequential),
        cmocka_unit_test(test_edits_during_scans_are_refused),
    };
    return cmocka_run_group_tests_name("concurrency", tests, setup, teardown);
}
