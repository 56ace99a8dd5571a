/* The writers' threads (issue 53). The image sink's encoder threads: the
 * same bytes for 0, 1 and 2 threads; the queue's budget holds when the disk
 * cannot keep up (a test hook slows every file down) and the writer then
 * waits; a failure in a thread comes back from flush() and every later
 * write(), naming the file, and its capture gets no JSON. The MCAP writer's
 * chunk thread: the same bytes whether the caller outruns it or waits for
 * every chunk, with and without files split by size. */
#include "helpers.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

TEST_GROUP_FIXTURE(2, 1)

#define W 96
#define H 64
#define CAPTURES 12

/* Capture k's images: every output, smooth patterns that differ per capture. */
typedef struct images {
    float depth[W * H], normal[3 * W * H];
    uint8_t semantic[W * H], rgb[3 * W * H];
    uint32_t instance[W * H];
} images;

static void make_images(int k, images *im, sensim_camera_images *ci)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int p = y * W + x;
            im->depth[p] = (y + k) % 9 == 0 ? NAN : 0.37f * (float)(x + 2 * y + k) + 0.001f * (float)(x * y % 7);
            im->semantic[p] = (uint8_t)((x / 8 + y / 8 + k) % 29);
            im->instance[p] = (uint32_t)(x / 16 + 7 * (y / 16) + 1000 * k);
            float n[3] = {(float)(x - W / 2), (float)(y - H / 2), -40.0f};
            float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            for (int c = 0; c < 3; c++) {
                im->normal[3 * p + c] = n[c] / l;
                im->rgb[3 * p + c] = (uint8_t)(x * (c + 1) + y * 3 + k * 5);
            }
        }
    memset(ci, 0, sizeof *ci);
    ci->depth = im->depth, ci->semantic = im->semantic, ci->instance = im->instance;
    ci->normal = im->normal, ci->rgb = im->rgb;
}

static sensim_camera *small_camera(void)
{
    sensim_camera_desc cd;
    sensim_camera_desc_init(&cd);
    cd.width = W, cd.height = H, cd.hfov_deg = 90;
    sensim_camera *cam;
    CHECK_OK(sensim_camera_create(ctx, &cd, &cam));
    return cam;
}

static sensim_image_sink *make_sink(const sensim_camera *cam, const char *sub, uint32_t threads, uint64_t budget)
{
    char d[512];
    snprintf(d, sizeof d, "%s/%s", dir, sub);
    assert_int_equal(mkdir(d, 0777), 0);
    sensim_image_sink_desc sd;
    sensim_image_sink_desc_init(&sd);
    sd.dir = d, sd.camera_name = "cam", sd.camera = cam, sd.threads = threads, sd.queue_bytes = budget;
    sensim_image_sink *s;
    CHECK_OK(sensim_image_sink_create(&sd, &s));
    return s;
}

static void write_captures(sensim_image_sink *s, int n)
{
    static images im;
    double pose[16] = {0};
    pose[0] = pose[5] = pose[10] = pose[15] = 1;
    for (int k = 0; k < n; k++) {
        sensim_camera_images ci;
        make_images(k, &im, &ci);
        pose[12] = 0.5 * k;
        CHECK_OK(sensim_image_sink_write(s, (uint64_t)k, (int64_t)k * 50000000, pose, &ci));
        memset(&im, 0xA5, sizeof im); /* the sink keeps its own copy: the caller's buffers are free again */
    }
}

static const char *const files[] = {"%06d.json",           "depth/%06d.png",  "depth/%06d.pfm",
                                    "semantic/%06d.png",   "instance/%06d.png", "normal/%06d.png",
                                    "semantic_cityscapes/%06d.png", "rgb/%06d.png"};

/* Every file of captures [0, n) in DIR/A and DIR/B exists and has the same bytes. */
static void same_files(const char *a, const char *b, int n)
{
    for (int k = 0; k < n; k++)
        for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
            char name[64], pa[600], pb[600];
            snprintf(name, sizeof name, files[f], k);
            snprintf(pa, sizeof pa, "%s/%s/%s", dir, a, name);
            snprintf(pb, sizeof pb, "%s/%s/%s", dir, b, name);
            size_t na = 0, nb = 0;
            uint8_t *da = slurp(pa, &na), *db = slurp(pb, &nb);
            if (!da || !db || na != nb || memcmp(da, db, na) != 0)
                fail_msg("%s and %s differ (or one is missing)", pa, pb);
            free(da), free(db);
        }
}

/* 0, 1 and 2 encoder threads write byte-identical captures; flush waits for all of them. */
static void test_threads_same_bytes(void **state)
{
    (void)state;
    sensim_camera *cam = small_camera();
    const char *subs[3] = {"t0", "t1", "t2"};
    for (uint32_t t = 0; t < 3; t++) {
        sensim_image_sink *s = make_sink(cam, subs[t], t, 0);
        write_captures(s, CAPTURES);
        CHECK_OK(sensim_image_sink_flush(s));
        sensim_image_sink_stats st;
        CHECK_OK(sensim_image_sink_get_stats(s, &st));
        assert_int_equal(st.threads, t);
        assert_int_equal(st.captures, CAPTURES);
        assert_int_equal(st.files, CAPTURES * 8); /* 7 images and the JSON */
        assert_int_equal(st.queued_bytes, 0);
        assert_true(t == 0 || st.queue_peak_bytes > 0);
        sensim_image_sink_destroy(s);
    }
    same_files("t0", "t1", CAPTURES);
    same_files("t0", "t2", CAPTURES);
    sensim_camera_destroy(cam);
}

/* A disk that cannot keep up (every file 15 ms late): write() blocks instead of queueing more than the
 * budget of two captures; everything reaches the disk with the bytes of the synchronous writer. */
static void test_slow_disk_bounded(void **state)
{
    (void)state;
    sensim_camera *cam = small_camera();
    sensim_image_sink *ref = make_sink(cam, "ref", 0, 0);
    write_captures(ref, CAPTURES);
    sensim_image_sink_destroy(ref);
    /* one capture's share of the budget (the record and its depth, normal, instance, semantic, rgb) */
    sensim_image_sink *probe = make_sink(cam, "probe", 1, 0);
    write_captures(probe, 1);
    CHECK_OK(sensim_image_sink_flush(probe));
    sensim_image_sink_stats st;
    CHECK_OK(sensim_image_sink_get_stats(probe, &st));
    const uint64_t cap_bytes = st.queue_peak_bytes;
    assert_true(cap_bytes >= (uint64_t)W * H * (4 + 12 + 4 + 1 + 3));
    sensim_image_sink_destroy(probe);

    atomic_store(&sensim__image_sink_test_delay_ms, 15);
    sensim_image_sink *s = make_sink(cam, "slow", 2, 2 * cap_bytes);
    write_captures(s, CAPTURES);
    CHECK_OK(sensim_image_sink_get_stats(s, &st));
    assert_true(st.queue_peak_bytes <= 2 * cap_bytes);
    assert_true(st.waits >= 1);   /* 12 captures into a queue of 2, each taking >= 4 x 15 ms: it had to wait */
    assert_true(st.wait_s > 0);
    CHECK_OK(sensim_image_sink_flush(s));
    atomic_store(&sensim__image_sink_test_delay_ms, 0);
    CHECK_OK(sensim_image_sink_get_stats(s, &st));
    assert_int_equal(st.captures, CAPTURES);
    assert_true(st.queue_peak_bytes <= 2 * cap_bytes);
    sensim_image_sink_destroy(s);
    same_files("ref", "slow", CAPTURES);

    /* a budget below one capture still admits one capture at a time */
    atomic_store(&sensim__image_sink_test_delay_ms, 5);
    s = make_sink(cam, "tiny", 2, 1);
    write_captures(s, 4);
    CHECK_OK(sensim_image_sink_flush(s));
    atomic_store(&sensim__image_sink_test_delay_ms, 0);
    CHECK_OK(sensim_image_sink_get_stats(s, &st));
    assert_int_equal(st.queue_peak_bytes, cap_bytes);
    assert_int_equal(st.captures, 4);
    sensim_image_sink_destroy(s);
    same_files("ref", "tiny", 4);
    sensim_camera_destroy(cam);
}

/* A file an encoder thread cannot write: flush() and the next write() return SENSIM_ERR_IO naming it; the
 * failed capture has no JSON; destroy() still ends cleanly. */
static void test_thread_failure(void **state)
{
    (void)state;
    sensim_camera *cam = small_camera();
    sensim_image_sink *s = make_sink(cam, "bad", 2, 0);
    char blocker[600];
    snprintf(blocker, sizeof blocker, "%s/bad/normal", dir); /* a file where the folder normal/ must go */
    FILE *f = fopen(blocker, "wb");
    assert_non_null(f);
    fclose(f);
    write_captures(s, 1); /* queued: the failure happens in a thread */
    assert_int_equal(sensim_image_sink_flush(s), SENSIM_ERR_IO);
    assert_non_null(strstr(sensim_context_last_error(NULL), "/bad/normal"));
    static images im;
    sensim_camera_images ci;
    make_images(1, &im, &ci);
    double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    assert_int_equal(sensim_image_sink_write(s, 1, 0, pose, &ci), SENSIM_ERR_IO);
    assert_non_null(strstr(sensim_context_last_error(NULL), "/bad/normal"));
    char json[600];
    snprintf(json, sizeof json, "%s/bad/000000.json", dir);
    assert_int_equal(access(json, F_OK), -1);
    sensim_image_sink_stats st;
    CHECK_OK(sensim_image_sink_get_stats(s, &st));
    assert_int_equal(st.captures, 0);
    sensim_image_sink_destroy(s);
    /* misuse */
    assert_int_equal(sensim_image_sink_flush(NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_image_sink_get_stats(NULL, &st), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_image_sink_desc sd;
    sensim_image_sink_desc_init(&sd);
    sd.dir = dir, sd.camera_name = "cam", sd.camera = cam, sd.threads = 65;
    sensim_image_sink *t;
    assert_int_equal(sensim_image_sink_create(&sd, &t), SENSIM_ERR_OUT_OF_RANGE);
    sd.threads = 1, sd.reserved_u32 = 1;
    assert_int_equal(sensim_image_sink_create(&sd, &t), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_camera_destroy(cam);
}

/* Bag @p prefix: 30 images of 64 KiB through zstd in 16 KiB chunks; with @p wait, the caller waits for the
 * chunk thread after every message (sensim_mcap_get_stats drains the queue). */
static void write_bag(const char *prefix, int wait, uint64_t split_bytes)
{
    sensim_mcap_options o;
    sensim_mcap_options_init(&o);
    o.chunk_bytes = 16384;
    o.split_bytes = split_bytes;
    sensim_mcap *m;
    CHECK_OK(sensim_mcap_open(prefix, &o, &m));
    uint16_t a, b;
    CHECK_OK(sensim_mcap_add_topic(m, "/cam/image", SENSIM_ROS_IMAGE, &a));
    static uint8_t px[128 * 512];
    for (int k = 0; k < 30; k++) {
        for (size_t i = 0; i < sizeof px; i++)
            px[i] = (uint8_t)((i * 7 + (size_t)k * 13) ^ (i >> 9));
        if (k == 10) /* a topic in the middle of the file: its channel record after the chunks in flight */
            CHECK_OK(sensim_mcap_add_topic(m, "/cam2/image", SENSIM_ROS_IMAGE, &b));
        CHECK_OK(sensim_mcap_write_image(m, k >= 10 && k % 2 ? b : a, (int64_t)k * 50000000, (int64_t)k * 50000000,
                                         "cam", 128, 512, "mono8", 128, px));
        sensim_mcap_stats st;
        if (wait)
            CHECK_OK(sensim_mcap_get_stats(m, &st));
    }
    uint32_t nfiles;
    CHECK_OK(sensim_mcap_close(m, &nfiles));
    assert_true(nfiles >= 1);
}

static void test_mcap_chunk_thread(void **state)
{
    (void)state;
    for (int split = 0; split < 2; split++) {
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/fast%d", dir, split);
        snprintf(pb, sizeof pb, "%s/wait%d", dir, split);
        write_bag(pa, 0, split ? 65536 : 0);
        write_bag(pb, 1, split ? 65536 : 0);
        int nfiles = 0;
        for (int f = 0; f < 16; f++) {
            char fa[600], fb[600];
            snprintf(fa, sizeof fa, "%s_%d.mcap", pa, f);
            snprintf(fb, sizeof fb, "%s_%d.mcap", pb, f);
            size_t na = 0, nb = 0;
            uint8_t *da = slurp(fa, &na), *db = slurp(fb, &nb);
            assert_true((da == NULL) == (db == NULL));
            if (da) {
                nfiles++;
                if (na != nb || memcmp(da, db, na) != 0)
                    fail_msg("%s and %s differ", fa, fb);
            }
            free(da), free(db);
        }
        /* 64 KiB files: where they split depends on the compressed chunks, so on the thread's work */
        if (split ? nfiles < 3 : nfiles != 1)
            fail_msg("%d files with split %d", nfiles, split);
    }
}

/* ---- issue 62: one sink or writer shared by two threads (also under ThreadSanitizer) ---- */
#define SHARED_MSGS 1500

typedef struct shared_job {
    int id;
    sensim_mcap *m;
    uint16_t tp[2];
    sensim_image_sink *img;
    sensim_csv_sink *csv;
    sensim_status st;
} shared_job;

static void *mcap_hammer(void *arg)
{
    shared_job *j = arg;
    static const uint8_t px[64 * 32] = {1};
    for (int k = 0; k < SHARED_MSGS && !j->st; k++) {
        j->st = sensim_mcap_write_clock(j->m, j->tp[0], (int64_t)k * 1000 + j->id, (int64_t)k * 1000 + j->id);
        if (!j->st && k % 100 == 0) /* images fill chunks: the chunk thread runs meanwhile */
            j->st = sensim_mcap_write_image(j->m, j->tp[1], k, k, "cam", 64, 32, "mono8", 64, px);
        if (!j->st && k % 500 == 0) {
            sensim_mcap_stats st;
            j->st = sensim_mcap_get_stats(j->m, &st);
        }
    }
    return NULL;
}

/* Two threads writing into one writer: every message arrives (the calls took turns), no crash. */
static void test_shared_mcap_writer(void **state)
{
    (void)state;
    for (int round = 0; round < 8; round++) {
        char prefix[512];
        snprintf(prefix, sizeof prefix, "%s/shared%d", dir, round);
        sensim_mcap_options o;
        sensim_mcap_options_init(&o);
        o.chunk_bytes = 4096;
        o.compression = round % 2 ? SENSIM_MCAP_LZ4 : SENSIM_MCAP_NONE;
        sensim_mcap *m;
        CHECK_OK(sensim_mcap_open(prefix, &o, &m));
        shared_job j[2];
        memset(j, 0, sizeof j);
        CHECK_OK(sensim_mcap_add_topic(m, "/clock", SENSIM_ROS_CLOCK, &j[0].tp[0]));
        CHECK_OK(sensim_mcap_add_topic(m, "/cam/image", SENSIM_ROS_IMAGE, &j[0].tp[1]));
        pthread_t t[2];
        for (int i = 0; i < 2; i++) {
            j[i].id = i, j[i].m = m, j[i].tp[0] = j[0].tp[0], j[i].tp[1] = j[0].tp[1];
            assert_int_equal(pthread_create(&t[i], NULL, mcap_hammer, &j[i]), 0);
        }
        for (int i = 0; i < 2; i++) {
            pthread_join(t[i], NULL);
            CHECK_OK(j[i].st);
        }
        sensim_mcap_stats st;
        CHECK_OK(sensim_mcap_get_stats(m, &st));
        assert_int_equal(st.messages, 2 * (SHARED_MSGS + SHARED_MSGS / 100));
        uint32_t nfiles;
        CHECK_OK(sensim_mcap_close(m, &nfiles));
        assert_int_equal(nfiles, 1);
    }
}

static void *sink_hammer(void *arg)
{
    shared_job *j = arg;
    images *im = malloc(sizeof *im);
    double pose[16] = {0};
    pose[0] = pose[5] = pose[10] = pose[15] = 1;
    for (int k = 0; k < 3 && !j->st && im; k++) {
        sensim_camera_images ci;
        make_images(k, im, &ci);
        j->st = sensim_image_sink_write(j->img, (uint64_t)(10 * j->id + k), k, pose, &ci);
    }
    for (int k = 0; k < 400 && !j->st; k++) {
        sensim_nav_sample n;
        memset(&n, 0, sizeof n);
        n.kind = SENSIM_NAV_IMU, n.t_ns = k, n.accel[0] = j->id + 0.25, n.gyro[2] = -1.5;
        j->st = sensim_csv_sink_write_nav(j->csv, &n);
    }
    if (!im)
        j->st = SENSIM_ERR_OUT_OF_MEMORY;
    free(im);
    return NULL;
}

/* Two threads writing into one image sink (no encoder threads: the caller's scratch) and one CSV sink:
 * every capture and every row whole. */
static void test_shared_image_and_csv_sinks(void **state)
{
    (void)state;
    sensim_camera *cam = small_camera();
    for (int round = 0; round < 3; round++) {
        char sub[32], csv[512];
        snprintf(sub, sizeof sub, "shared_img%d", round);
        snprintf(csv, sizeof csv, "%s/shared%d.csv", dir, round);
        sensim_csv_sink_desc cd;
        sensim_csv_sink_desc_init(&cd);
        cd.path = csv, cd.kind = SENSIM_CSV_IMU;
        shared_job j[2];
        memset(j, 0, sizeof j);
        j[0].img = make_sink(cam, sub, 0, 0);
        CHECK_OK(sensim_csv_sink_create(&cd, &j[0].csv));
        pthread_t t[2];
        for (int i = 0; i < 2; i++) {
            j[i].id = i, j[i].img = j[0].img, j[i].csv = j[0].csv;
            assert_int_equal(pthread_create(&t[i], NULL, sink_hammer, &j[i]), 0);
        }
        for (int i = 0; i < 2; i++) {
            pthread_join(t[i], NULL);
            CHECK_OK(j[i].st);
        }
        sensim_image_sink_stats st;
        CHECK_OK(sensim_image_sink_get_stats(j[0].img, &st));
        assert_int_equal(st.captures, 6);
        assert_int_equal(st.files, 6 * 8);
        sensim_image_sink_destroy(j[0].img);
        CHECK_OK(sensim_csv_sink_close(j[0].csv));
        sensim_csv_sink_destroy(j[0].csv);
        size_t n = 0;
        char *text = (char *)slurp(csv, &n);
        assert_non_null(text);
        text[n] = 0;
        int lines = 0;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), lines++) {
            int commas = 0;
            for (char *c = line; *c; c++)
                commas += *c == ',';
            if (commas != 7)
                fail_msg("row %d of %s has %d commas: '%s'", lines, csv, commas, line);
        }
        assert_int_equal(lines, 1 + 2 * 400);
        free(text);
    }
    sensim_camera_destroy(cam);
}

/* More threads than the address space can hold: a status naming the count, not libgomp's exit(1).
 * RLIMIT_AS does not go with the sanitizers' shadow memory: skipped under them. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SENSIM_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SENSIM_TEST_SANITIZED 1
#endif
static void test_threads_that_cannot_start(void **state)
{
    (void)state;
#ifdef SENSIM_TEST_SANITIZED
    skip();
#else
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit r = {UINT64_C(1) << 30, UINT64_C(1) << 30}; /* 1 GiB: far below 1000 thread stacks */
        if (setrlimit(RLIMIT_AS, &r) != 0)
            _exit(3);
        sensim_context_desc d;
        sensim_context_desc_init(&d);
        d.thread_count = 1000;
        sensim_context *c = NULL;
        sensim_status st = sensim_context_create(&d, &c);
        const char *msg = sensim_context_last_error(NULL);
        int named = msg && strstr(msg, "1000 threads") != NULL;
        if (!st) { /* created after all: a scan on its 1000 threads must not end the process either */
            sensim_context_destroy(c);
            _exit(4);
        }
        _exit(st == SENSIM_ERR_OUT_OF_MEMORY && named ? 0 : 5);
    }
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
        fail_msg("child: %s %d (0 wanted: OUT_OF_MEMORY naming 1000 threads)",
                 WIFEXITED(ws) ? "exit" : "signal", WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws));
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_same_bytes),
        cmocka_unit_test(test_slow_disk_bounded),
        cmocka_unit_test(test_thread_failure),
        cmocka_unit_test(test_mcap_chunk_thread),
        cmocka_unit_test(test_shared_mcap_writer),
        cmocka_unit_test(test_shared_image_and_csv_sinks),
        cmocka_unit_test(test_threads_that_cannot_start),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
