/* MCAP writer: exact CDR bytes against the worked examples of the ROS 2
 * reference (generated there with foxglove/mcap's Python serializer),
 * record structure, misuse, failures. The independent reader check is
 * tests/test_mcap.py (Node: @mcap/core + @foxglove/rosmsg2-serialization). */
#include <sensim/sensim.h>

#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "helpers.h"

static char dir[256];

static int setup(void **state)
{
    snprintf(dir, sizeof dir, "/tmp/sensim_test_mcap_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The data of every Message record of an uncompressed file, in file order
 * (inside chunks). Also checks that records tile the file exactly. */
typedef struct msg {
    uint16_t channel;
    uint64_t log;
    const uint8_t *data;
    size_t len;
} msg;

static size_t walk(const uint8_t *p, size_t n, msg *out, size_t cap, int *saw_footer)
{
    size_t k = 0;
    for (size_t at = 0; at < n;) {
        assert_true(at + 9 <= n);
        uint8_t op = p[at];
        uint64_t len = le(p + at + 1, 8);
        assert_true(at + 9 + len <= n);
        const uint8_t *c = p + at + 9;
        if (op == 0x06) { /* chunk: parse its records */
            uint64_t clen_off = 8 + 8 + 8 + 4;
            uint64_t slen = le(c + clen_off, 4);
            assert_int_equal(slen, 0); /* "" compression */
            uint64_t rlen = le(c + clen_off + 4, 8);
            assert_int_equal(clen_off + 4 + 8 + rlen, len);
            k += walk(c + clen_off + 12, rlen, out + k, cap - k, saw_footer);
        } else if (op == 0x05) {
            assert_true(k < cap);
            out[k].channel = (uint16_t)le(c, 2);
            out[k].log = le(c + 6, 8);
            out[k].data = c + 22;
            out[k].len = len - 22;
            k++;
        } else if (op == 0x02) {
            *saw_footer = 1;
        }
        at += 9 + len;
        if (op == 0x02) { /* footer: the last record (the caller cut the closing magic off) */
            assert_int_equal(n - at, 0);
            break;
        }
    }
    return k;
}

static sensim_mcap *open_plain(const char *name)
{
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s/%s", dir, name);
    sensim_mcap_options o;
    sensim_mcap_options_init(&o);
    o.compression = SENSIM_MCAP_NONE;
    sensim_mcap *m = NULL;
    assert_int_equal(sensim_mcap_open(prefix, &o, &m), SENSIM_OK);
    return m;
}

static size_t read_back(const char *name, msg *out, size_t cap, uint8_t **keep)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s_0.mcap", dir, name);
    size_t n;
    uint8_t *p = slurp(path, &n);
    assert_non_null(p);
    static const uint8_t magic[8] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};
    assert_memory_equal(p, magic, 8);
    assert_memory_equal(p + n - 8, magic, 8);
    int footer = 0;
    size_t k = walk(p + 8, n - 16, out, cap, &footer);
    assert_true(footer);
    *keep = p;
    return k;
}

static void test_exact_bytes(void **state)
{
    sensim_mcap *m = open_plain("exact");
    uint16_t clk, pc, imu;
    assert_int_equal(sensim_mcap_add_topic(m, "/clock", SENSIM_ROS_CLOCK, &clk), SENSIM_OK);
    assert_int_equal(sensim_mcap_add_topic(m, "/points", SENSIM_ROS_POINTCLOUD2, &pc), SENSIM_OK);
    assert_int_equal(sensim_mcap_add_topic(m, "/imu", SENSIM_ROS_IMU, &imu), SENSIM_OK);
    assert_int_equal(sensim_mcap_write_clock(m, clk, 7, 5000000006LL), SENSIM_OK);
    sensim_field fx = {"x", 0, SENSIM_FIELD_FLOAT32, 1};
    float one = 1.0f;
    assert_int_equal(sensim_mcap_write_cloud(m, pc, 8, 1000000002LL, "lidar", &fx, 1, 4, &one, 1), SENSIM_OK);
    sensim_nav_sample s;
    memset(&s, 0, sizeof s);
    s.orientation[0] = 1;
    s.t_ns = 3;
    assert_int_equal(sensim_mcap_write_imu(m, imu, 9, "base_link", &s, 0, 0, 0), SENSIM_OK);
    assert_int_equal(sensim_mcap_write_imu(m, imu, 10, "imu", &s, 0, 0, 0), SENSIM_OK);
    uint32_t files;
    assert_int_equal(sensim_mcap_close(m, &files), SENSIM_OK);
    assert_int_equal(files, 1);
    msg ms[8];
    uint8_t *keep;
    assert_int_equal(read_back("exact", ms, 8, &keep), 4);
    /* rosgraph_msgs/Clock{clock{5,6}} */
    static const uint8_t clock_bytes[12] = {0, 1, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0};
    assert_int_equal(ms[0].len, 12);
    assert_memory_equal(ms[0].data, clock_bytes, 12);
    assert_int_equal(ms[0].log, 7);
    /* PointCloud2, frame "lidar", one FLOAT32 field x, one point 1.0f: 77 bytes */
    static const uint8_t pc_bytes[77] = {
        0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,
        0x6c, 0x69, 0x64, 0x61, 0x72, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x78, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x07, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
        0x04, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x3f, 0x01};
    assert_int_equal(ms[1].len, 77);
    assert_memory_equal(ms[1].data, pc_bytes, 77);
    /* Imu: 4 + header (24 with "base_link" incl. 2 pad bytes; 16 with "imu") + 37 float64 */
    assert_int_equal(ms[2].len, 324);
    assert_int_equal(ms[3].len, 316);
    assert_int_equal(ms[2].channel, imu + 1);
    /* orientation.w = 1 at payload offset 24 + 24 (x, y, z before it) */
    double w;
    memcpy(&w, ms[2].data + 4 + 24 + 24, 8);
    assert_true(w == 1.0);
    free(keep);
}

static void test_misuse(void **state)
{
    sensim_mcap *m = open_plain("misuse");
    uint16_t t, pc, tf;
    static const char *const bad[] = {"", "/", "noslash", "/a//b", "/a/", "/a b", "/é"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(sensim_mcap_add_topic(m, bad[i], SENSIM_ROS_CLOCK, &t), SENSIM_ERR_INVALID_ARGUMENT);
    char longname[300];
    memset(longname, 'a', sizeof longname);
    longname[0] = '/';
    longname[299] = 0;
    assert_int_equal(sensim_mcap_add_topic(m, longname, SENSIM_ROS_CLOCK, &t), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_add_topic(m, "/clock", SENSIM_ROS_LANE_INVASION + 1, &t), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_add_topic(m, "/clock", -1, &t), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_add_topic(m, "/clock", SENSIM_ROS_CLOCK, &t), SENSIM_OK);
    assert_int_equal(sensim_mcap_add_topic(m, "/clock", SENSIM_ROS_CLOCK, &t), SENSIM_ERR_DUPLICATE);
    assert_int_equal(sensim_mcap_add_topic(m, "/points", SENSIM_ROS_POINTCLOUD2, &pc), SENSIM_OK);
    assert_int_equal(sensim_mcap_add_topic(m, "/tf", SENSIM_ROS_TF, &tf), SENSIM_OK);
    /* wrong topic, wrong type, times */
    assert_int_equal(sensim_mcap_write_clock(m, 77, 0, 0), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_clock(m, pc, 0, 0), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_clock(m, t, -1, 0), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_mcap_write_clock(m, t, 0, INT64_C(2147483648) * 1000000000), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_mcap_write_clock(m, t, 0, INT64_C(2147483647) * 1000000000 + 999999999), SENSIM_OK);
    /* clouds: bad frame ids, fields outside the record, absurd counts (refused before any allocation) */
    sensim_field fx = {"x", 0, SENSIM_FIELD_FLOAT32, 1}, fbad = {"x", 2, SENSIM_FIELD_FLOAT32, 1};
    sensim_field fdt = {"x", 0, 9, 1}, fname = {"a b", 0, SENSIM_FIELD_FLOAT32, 1};
    float v = 0;
    assert_int_equal(sensim_mcap_write_cloud(m, pc, 0, 0, "", &fx, 1, 4, &v, 1), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_cloud(m, pc, 0, 0, "a b", &fx, 1, 4, &v, 1), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_cloud(m, pc, 0, 0, NULL, &fx, 1, 4, &v, 1), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_cloud(m, pc, 0, 0, "l", &fbad, 1, 4, &v, 1), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_cloud(m, pc, 0, 0, "l", &fdt, 1, 4, &v, 1), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_cloud(m, pc, 0, 0, "l", &fname, 1, 4, &v, 1), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_cloud(m, pc, 0, 0, "l", &fx, 1, 4, NULL, 1), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_cloud(m, pc, 0, 0, "l", &fx, 1, 4, &v, UINT64_C(1) << 40),
                     SENSIM_ERR_TOO_LARGE);
    assert_int_equal(sensim_mcap_write_cloud(m, pc, 0, 0, "l", &fx, 1, 4, &v, UINT32_MAX / 4 + 1),
                     SENSIM_ERR_TOO_LARGE);
    /* transforms: NaN, non-rigid, bad child */
    sensim_ros_transform x;
    memset(&x, 0, sizeof x);
    x.parent_frame = "odom", x.child_frame = "base_link";
    x.pose[0] = x.pose[5] = x.pose[10] = x.pose[15] = 1;
    x.pose[12] = NAN;
    assert_int_equal(sensim_mcap_write_transforms(m, tf, 0, &x, 1), SENSIM_ERR_NOT_FINITE);
    x.pose[12] = 0, x.pose[0] = 2;
    assert_int_equal(sensim_mcap_write_transforms(m, tf, 0, &x, 1), SENSIM_ERR_OUT_OF_RANGE);
    x.pose[0] = 1, x.child_frame = "";
    assert_int_equal(sensim_mcap_write_transforms(m, tf, 0, &x, 1), SENSIM_ERR_INVALID_ARGUMENT);
    x.child_frame = "base_link";
    assert_int_equal(sensim_mcap_write_transforms(m, tf, 0, &x, 0), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_transforms(m, tf, 5, &x, 1), SENSIM_OK);
    /* images */
    uint8_t px[12] = {0};
    uint16_t img;
    assert_int_equal(sensim_mcap_add_topic(m, "/img", SENSIM_ROS_IMAGE, &img), SENSIM_OK);
    assert_int_equal(sensim_mcap_write_image(m, img, 0, 0, "cam", 2, 2, "yuv422", 6, px), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_image(m, img, 0, 0, "cam", 2, 2, "rgb8", 5, px), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_image(m, img, 0, 0, "cam", 0, 2, "rgb8", 6, px), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_mcap_write_image(m, img, 0, 0, "cam", 2, 2, "rgb8", 6, px), SENSIM_OK);
    /* the refusals left the writer usable: 3 messages in a valid file */
    sensim_mcap_stats st;
    assert_int_equal(sensim_mcap_get_stats(m, &st), SENSIM_OK);
    assert_int_equal(st.messages, 3);
    assert_int_equal(sensim_mcap_close(m, NULL), SENSIM_OK);
    msg ms[8];
    uint8_t *keep;
    assert_int_equal(read_back("misuse", ms, 8, &keep), 3);
    free(keep);
    /* handles and options */
    assert_int_equal(sensim_mcap_close(NULL, NULL), SENSIM_OK);
    assert_int_equal(sensim_mcap_write_clock(NULL, 0, 0, 0), SENSIM_ERR_INVALID_ARGUMENT);
    int not_a_writer[64] = {0};
    assert_int_equal(sensim_mcap_write_clock((sensim_mcap *)not_a_writer, 0, 0, 0), SENSIM_ERR_BAD_HANDLE);
    sensim_mcap_options o;
    sensim_mcap *w = NULL;
    sensim_mcap_options_init(&o);
    o.reserved[1] = 1;
    assert_int_equal(sensim_mcap_open("/tmp/x", &o, &w), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_mcap_options_init(&o);
    o.chunk_bytes = 10;
    assert_int_equal(sensim_mcap_open("/tmp/x", &o, &w), SENSIM_ERR_OUT_OF_RANGE);
    sensim_mcap_options_init(&o);
    o.split_ns = -5;
    assert_int_equal(sensim_mcap_open("/tmp/x", &o, &w), SENSIM_ERR_OUT_OF_RANGE);
    sensim_mcap_options_init(&o);
    o.compression = 7;
    assert_int_equal(sensim_mcap_open("/tmp/x", &o, &w), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_open("", NULL, &w), SENSIM_ERR_INVALID_ARGUMENT);
    assert_null(w);
}

/* carla_msgs: every refusal its documented status, the writer usable after them (the values a stack
 * reads are checked by the independent reader in tests/test_mcap.py) */
static void test_carla_misuse(void **state)
{
    (void)state;
    sensim_mcap *m = open_plain("carla");
    uint16_t st, in, ct, co, li;
    assert_int_equal(sensim_mcap_add_topic(m, "/s", SENSIM_ROS_VEHICLE_STATUS, &st), SENSIM_OK);
    assert_int_equal(sensim_mcap_add_topic(m, "/i", SENSIM_ROS_VEHICLE_INFO, &in), SENSIM_OK);
    assert_int_equal(sensim_mcap_add_topic(m, "/c", SENSIM_ROS_VEHICLE_CONTROL, &ct), SENSIM_OK);
    assert_int_equal(sensim_mcap_add_topic(m, "/x", SENSIM_ROS_COLLISION, &co), SENSIM_OK);
    assert_int_equal(sensim_mcap_add_topic(m, "/l", SENSIM_ROS_LANE_INVASION, &li), SENSIM_OK);
    sensim_vehicle_status s;
    memset(&s, 0, sizeof s);
    s.orientation[3] = 1;
    assert_int_equal(sensim_mcap_write_vehicle_status(m, st, 0, 0, "map", NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_vehicle_status(m, in, 0, 0, "map", &s), SENSIM_ERR_INVALID_ARGUMENT);
    s.velocity = -1;
    assert_int_equal(sensim_mcap_write_vehicle_status(m, st, 0, 0, "map", &s), SENSIM_ERR_OUT_OF_RANGE);
    s.velocity = NAN;
    assert_int_equal(sensim_mcap_write_vehicle_status(m, st, 0, 0, "map", &s), SENSIM_ERR_NOT_FINITE);
    s.velocity = 1, s.orientation[3] = 1.001;
    assert_int_equal(sensim_mcap_write_vehicle_status(m, st, 0, 0, "map", &s), SENSIM_ERR_OUT_OF_RANGE);
    s.orientation[3] = 1, s.control.throttle = 1.5f;
    assert_int_equal(sensim_mcap_write_vehicle_status(m, st, 0, 0, "map", &s), SENSIM_ERR_OUT_OF_RANGE);
    s.control.throttle = 1, s.control.reverse = 2;
    assert_int_equal(sensim_mcap_write_vehicle_status(m, st, 0, 0, "map", &s), SENSIM_ERR_OUT_OF_RANGE);
    s.control.reverse = 1, s.reserved[1] = 1;
    assert_int_equal(sensim_mcap_write_vehicle_status(m, st, 0, 0, "map", &s), SENSIM_ERR_OUT_OF_RANGE);
    s.reserved[1] = 0;
    assert_int_equal(sensim_mcap_write_vehicle_status(m, st, 0, 0, "", &s), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_vehicle_status(m, st, 0, 0, "map", &s), SENSIM_OK);
    sensim_vehicle_info v;
    memset(&v, 0, sizeof v);
    v.type = "vehicle.a", v.rolename = "hero";
    v.wheel_count = 2;
    assert_int_equal(sensim_mcap_write_vehicle_info(m, in, 0, &v), SENSIM_ERR_INVALID_ARGUMENT); /* no wheels */
    sensim_vehicle_wheel w[65];
    memset(w, 0, sizeof w);
    v.wheels = w, v.wheel_count = 65;
    assert_int_equal(sensim_mcap_write_vehicle_info(m, in, 0, &v), SENSIM_ERR_OUT_OF_RANGE);
    v.wheel_count = 4, w[3].radius = INFINITY;
    assert_int_equal(sensim_mcap_write_vehicle_info(m, in, 0, &v), SENSIM_ERR_NOT_FINITE);
    w[3].radius = 35, v.use_gear_autobox = 2;
    assert_int_equal(sensim_mcap_write_vehicle_info(m, in, 0, &v), SENSIM_ERR_OUT_OF_RANGE);
    v.use_gear_autobox = 1, v.rolename = NULL;
    assert_int_equal(sensim_mcap_write_vehicle_info(m, in, 0, &v), SENSIM_ERR_INVALID_ARGUMENT);
    v.rolename = "hero";
    assert_int_equal(sensim_mcap_write_vehicle_info(m, in, 0, &v), SENSIM_OK);
    sensim_vehicle_control c = {0.5f, -2.0f, 0, 0, 0, 0, 0, 0};
    assert_int_equal(sensim_mcap_write_vehicle_control(m, ct, 0, 0, "hero", &c), SENSIM_ERR_OUT_OF_RANGE);
    c.steer = NAN;
    assert_int_equal(sensim_mcap_write_vehicle_control(m, ct, 0, 0, "hero", &c), SENSIM_ERR_NOT_FINITE);
    c.steer = -1;
    assert_int_equal(sensim_mcap_write_vehicle_control(m, ct, 0, 0, "hero", &c), SENSIM_OK);
    double imp[3] = {1, NAN, 0};
    assert_int_equal(sensim_mcap_write_collision(m, co, 0, 0, "hero", 7, imp), SENSIM_ERR_NOT_FINITE);
    assert_int_equal(sensim_mcap_write_collision(m, co, 0, 0, "hero", 7, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    imp[1] = 0;
    assert_int_equal(sensim_mcap_write_collision(m, co, 0, 0, "hero", 7, imp), SENSIM_OK);
    int32_t mk[2] = {1, 2};
    assert_int_equal(sensim_mcap_write_lane_invasion(m, li, 0, 0, "hero", NULL, 2), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_mcap_write_lane_invasion(m, li, 0, 0, "hero", mk, 65537), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_mcap_write_lane_invasion(m, li, 0, 0, "hero", mk, 2), SENSIM_OK);
    sensim_mcap_stats ms;
    assert_int_equal(sensim_mcap_get_stats(m, &ms), SENSIM_OK);
    assert_int_equal(ms.messages, 5);
    assert_int_equal(sensim_mcap_close(m, NULL), SENSIM_OK);
}

/* A prefix in a folder that does not exist: the first write fails, later
 * ones are refused, close reports it and leaves nothing behind. */
static void test_io_failure(void **state)
{
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s/missing/run", dir);
    sensim_mcap *m;
    assert_int_equal(sensim_mcap_open(prefix, NULL, &m), SENSIM_OK);
    uint16_t t;
    assert_int_equal(sensim_mcap_add_topic(m, "/clock", SENSIM_ROS_CLOCK, &t), SENSIM_OK);
    assert_int_equal(sensim_mcap_write_clock(m, t, 0, 0), SENSIM_ERR_IO);
    assert_non_null(strstr(sensim_context_last_error(NULL), "missing/run_0.mcap"));
    assert_int_equal(sensim_mcap_write_clock(m, t, 1, 1), SENSIM_ERR_IO);
    uint32_t files = 99;
    assert_int_equal(sensim_mcap_close(m, &files), SENSIM_ERR_IO);
    assert_int_equal(files, 0);
}

/* Splits by size: every file complete, messages continue across files, no
 * temporary file left. */
static void test_split(void **state)
{
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s/split", dir);
    sensim_mcap_options o;
    sensim_mcap_options_init(&o);
    o.compression = SENSIM_MCAP_NONE;
    o.split_bytes = 65536;
    o.chunk_bytes = 8192;
    sensim_mcap *m;
    assert_int_equal(sensim_mcap_open(prefix, &o, &m), SENSIM_OK);
    uint16_t pc;
    assert_int_equal(sensim_mcap_add_topic(m, "/points", SENSIM_ROS_POINTCLOUD2, &pc), SENSIM_OK);
    static sensim_point pts[200];
    sensim_frame_header h;
    memset(&h, 0, sizeof h);
    for (int i = 0; i < 100; i++) {
        h.t_begin_ns = i * 100;
        sensim_frame_view v = {&h, {pts, NULL}, {200, 0}};
        assert_int_equal(sensim_mcap_write_points(m, pc, i * 100, "lidar", &v), SENSIM_OK);
    }
    uint32_t files;
    assert_int_equal(sensim_mcap_close(m, &files), SENSIM_OK);
    /* 100 messages of ~6.7 kB: about 10 per 64 KiB file */
    assert_true(files >= 9 && files <= 12);
    size_t total = 0;
    for (uint32_t f = 0; f < files; f++) {
        char path[300];
        snprintf(path, sizeof path, "%s/split_%u.mcap", dir, f);
        size_t n;
        uint8_t *p = slurp(path, &n);
        assert_non_null(p);
        assert_true(n < 65536 + 8192);
        int footer = 0;
        msg ms[64];
        size_t k = walk(p + 8, n - 16, ms, 64, &footer);
        assert_true(footer && k > 0);
        assert_int_equal(ms[0].log, total * 100); /* continues where the last file stopped */
        total += k;
        free(p);
    }
    assert_int_equal(total, 100);
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)))
        assert_null(strstr(e->d_name, ".tmp."));
    closedir(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_bytes),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_carla_misuse),
        cmocka_unit_test(test_io_failure),
        cmocka_unit_test(test_split),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
