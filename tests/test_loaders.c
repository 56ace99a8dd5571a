/* OBJ and PLY loaders: content, tags, every error path. */
#include "helpers.h"
#include "scene_impl.h"

#include <sys/stat.h>
#include <unistd.h>

TEST_GROUP_FIXTURE(1, 1)

static const char *write_file(const char *name, const void *data, size_t n)
{
    return write_test_file(dir, name, data, n);
}

static const char *write_text(const char *name, const char *text)
{
    return write_file(name, text, strlen(text));
}

/* Load into a fresh scene; returns status, fills info. */
static sensim_status load(const char *path, sensim_scene_info *info, sensim_scene **keep)
{
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    sensim_status st = sensim_scene_load_file(s, path, NULL, NULL);
    CHECK_OK(sensim_scene_get_info(s, info));
    if (keep)
        *keep = s;
    else
        sensim_scene_destroy(s);
    return st;
}

/* A lidar looking straight down from 5 m sees the tags of what lies below. */
static void tags_below(sensim_scene *s, uint8_t *out_tags, const double xy[][2], int n)
{
    CHECK_OK(sensim_scene_commit(s));
    float el = (float)(-89.9 * 3.14159265358979 / 180);
    sensim_lidar_desc d;
    sensim_lidar_desc_init(&d);
    d.channel_count = 1;
    d.elevation_rad = &el;
    d.shots_per_s = 10; /* one column per revolution */
    d.rotation_hz = 10;
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create(ctx, &d, &l));
    sensim_ring *r = test_ring(10, 4, SENSIM_OVERFLOW_FAIL);
    for (int i = 0; i < n; i++) {
        double pose[16];
        translation(pose, xy[i][0], xy[i][1], 5.0);
        CHECK_OK(sensim_lidar_scan(l, s, i * 100000000LL, (i + 1) * 100000000LL, pose, r, NULL));
        sensim_point p;
        uint64_t cnt;
        CHECK_OK(sensim_ring_pop(r, NULL, &p, 1, &cnt));
        assert_int_equal(cnt, 1);
        out_tags[i] = p.tag;
    }
    free(r);
    sensim_lidar_destroy(l);
}

static void test_obj_valid(void **state)
{
    (void)state;
    const char *obj =
        "# two squares and a pentagon\r\n"
        "mtllib scene.mtl\r\n"
        "o Road_01\r\n"
        "v 0 0 0\r\nv 10 0 0\r\nv 10 10 0\r\nv 0 10 0\r\n"
        "vt 0 0\r\nvn 0 0 1\r\n"
        "f 1/1/1 2/1/1 3/1/1 4/1/1\r\n"
        "g building_block\r\n"
        "v 20 0 0\nv 30 0 0\nv 30 10 0\nv 20 10 0\n"
        "usemtl SideWalks_concrete\n"
        "f -4//1 -3//1 -2//1 -1//1\n" /* relative indices; usemtl wins over g */
        "usemtl unknownthing\n"
        "v 40 0 0\nv 50 0 0\nv 52 5 0\nv 45 10 0\nv 38 5 0\n"
        "s off\n"
        "f 9 10 11 12 13"; /* pentagon, no trailing newline */
    const char *path = write_text("ok.obj", obj);
    sensim_scene_info info;
    sensim_scene *s;
    CHECK_OK(load(path, &info, &s));
    assert_int_equal(info.mesh_count, 1);
    assert_int_equal(info.vertex_count, 13);
    assert_int_equal(info.triangle_count, 2 + 2 + 3);
    uint8_t tags[3];
    const double xy[3][2] = {{5, 5}, {25, 5}, {45, 5}};
    tags_below(s, tags, xy, 3);
    assert_int_equal(tags[0], 1);  /* o Road_01 -> Roads */
    assert_int_equal(tags[1], 2);  /* usemtl SideWalks -> SideWalks (not Building) */
    assert_int_equal(tags[2], 3);  /* unknown usemtl falls back to g building -> Building */
    sensim_scene_destroy(s);
}

static void expect_fail(const char *name, const char *text, sensim_status want, const char *msg_part)
{
    const char *path = write_text(name, text);
    sensim_scene_info info;
    sensim_status st = load(path, &info, NULL);
    const char *msg = sensim_context_last_error(ctx);
    if (st != want || !strstr(msg, msg_part))
        fail_msg("%s: got %s '%s', want %s containing '%s'", name, sensim_status_string(st), msg,
                 sensim_status_string(want), msg_part);
    assert_int_equal(info.mesh_count, 0); /* nothing half-loaded */
}

static void test_obj_errors(void **state)
{
    (void)state;
    expect_fail("badidx.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", SENSIM_ERR_BAD_INDEX, "badidx.obj:4");
    expect_fail("zeroidx.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", SENSIM_ERR_BAD_INDEX, "zeroidx.obj:4");
    expect_fail("negidx.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n", SENSIM_ERR_BAD_INDEX, "negidx.obj:4");
    expect_fail("nan.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", SENSIM_ERR_NOT_FINITE, "nan.obj:2");
    expect_fail("inf.obj", "v 0 0 0\nv 1 0 0\nv 0 1e999 0\nf 1 2 3\n", SENSIM_ERR_NOT_FINITE, "inf.obj:3");
    expect_fail("empty.obj", "# nothing\nv 0 0 0\n", SENSIM_ERR_EMPTY, "empty.obj");
    expect_fail("trunc.obj", "v 0 0 0\nv 1 0 0\nv 0 1", SENSIM_ERR_PARSE, "trunc.obj:3");
    expect_fail("twoverts.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", SENSIM_ERR_PARSE, "twoverts.obj:4");
    expect_fail("garbage.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nxyz 1 2 3\nf 1 2 3\n", SENSIM_ERR_PARSE,
                "garbage.obj:4");
    expect_fail("badnum.obj", "v 0 0 0\nv 1x 0 0\n", SENSIM_ERR_PARSE, "badnum.obj:2");
    expect_fail("badface.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3a\n", SENSIM_ERR_PARSE, "badface.obj:4");
    expect_fail("binary.obj", "\x01\x02\x03\x04", SENSIM_ERR_PARSE, "binary.obj:1");
    sensim_scene_info info;
    assert_int_equal(load("/nonexistent/x.obj", &info, NULL), SENSIM_ERR_IO);
    assert_non_null(strstr(sensim_context_last_error(ctx), "/nonexistent/x.obj"));
    assert_int_equal(load(dir, &info, NULL), SENSIM_ERR_INVALID_ARGUMENT); /* no extension */
}

/* The same quad + triangle mesh in ascii, little and big endian PLY. */
static size_t put(unsigned char *b, size_t o, const void *v, size_t n, int be)
{
    for (size_t i = 0; i < n; i++)
        b[o + i] = be ? ((const unsigned char *)v)[n - 1 - i] : ((const unsigned char *)v)[i];
    return o + n;
}

static const char *binary_ply(const char *name, int be, int truncate_by)
{
    unsigned char buf[1024];
    const char *hdr_fmt = "ply\nformat %s 1.0\ncomment test\nelement vertex 5\nproperty float x\n"
                          "property double y\nproperty float z\nproperty uchar red\n"
                          "element face 2\nproperty list uchar int vertex_indices\nproperty uchar tag\n"
                          "element extra 1\nproperty list uchar float junk\nend_header\n";
    int n = snprintf((char *)buf, sizeof buf, hdr_fmt, be ? "binary_big_endian" : "binary_little_endian");
    size_t o = (size_t)n;
    const float xs[5] = {0, 10, 10, 0, 5}, zs[5] = {0, 0, 0, 0, 0};
    const double ys[5] = {0, 0, 10, 10, 20};
    for (int i = 0; i < 5; i++) {
        o = put(buf, o, &xs[i], 4, be);
        o = put(buf, o, &ys[i], 8, be);
        o = put(buf, o, &zs[i], 4, be);
        buf[o++] = 200;
    }
    const int32_t quad[4] = {0, 1, 2, 3}, tri[3] = {3, 2, 4};
    buf[o++] = 4;
    for (int i = 0; i < 4; i++)
        o = put(buf, o, &quad[i], 4, be);
    buf[o++] = 1; /* tag Roads */
    buf[o++] = 3;
    for (int i = 0; i < 3; i++)
        o = put(buf, o, &tri[i], 4, be);
    buf[o++] = 9; /* Vegetation */
    buf[o++] = 2;
    const float junk[2] = {1, 2};
    o = put(buf, o, &junk[0], 4, be);
    o = put(buf, o, &junk[1], 4, be);
    return write_file(name, buf, o - (size_t)truncate_by);
}

static const char *ascii_ply =
    "ply\r\nformat ascii 1.0\r\nelement vertex 5\r\nproperty float x\r\nproperty float y\r\nproperty float z\r\n"
    "element face 2\r\nproperty list uchar uint vertex_index\r\nproperty uchar tag\r\nend_header\r\n"
    "0 0 0\r\n10 0 0\r\n10 10 0\r\n0 10 0\r\n5 20 0\r\n4 0 1 2 3 1\r\n3 3 2 4 9\r\n";

/* The common binary layout (float x y z; uchar count, int or uint indices)
 * in the host's byte order, or the other: @p bad 0 = valid, 1 = an index
 * out of range, 2 = a face of 2 vertices, 3 = a NaN vertex, 4 = truncated. */
static const char *plain_ply(const char *name, int be, int uint_idx, int bad)
{
    unsigned char buf[1024];
    int n = snprintf((char *)buf, sizeof buf,
                     "ply\nformat %s 1.0\nelement vertex 5\nproperty float x\nproperty float y\nproperty float z\n"
                     "element face 3\nproperty list uchar %s vertex_indices\nend_header\n",
                     be ? "binary_big_endian" : "binary_little_endian", uint_idx ? "uint" : "int");
    size_t o = (size_t)n;
    const float v[5][3] = {{0, 0, 0}, {10, 0, 0}, {10, 10, 0}, {0, 10, 0}, {5, 20, bad == 3 ? NAN : 0}};
    for (int i = 0; i < 5; i++)
        for (int c = 0; c < 3; c++)
            o = put(buf, o, &v[i][c], 4, be);
    const int32_t quad[4] = {0, 1, 2, 3}, tri[3] = {3, 2, bad == 1 ? 5 : 4}, dup[3] = {2, 0, 1};
    buf[o++] = 4;
    for (int i = 0; i < 4; i++)
        o = put(buf, o, &quad[i], 4, be);
    buf[o++] = bad == 2 ? 2 : 3;
    for (int i = 0; i < (bad == 2 ? 2 : 3); i++)
        o = put(buf, o, &tri[i], 4, be);
    buf[o++] = 3; /* the quad's first triangle again, turned: dropped */
    for (int i = 0; i < 3; i++)
        o = put(buf, o, &dup[i], 4, be);
    return write_file(name, buf, o - (bad == 4 ? 2 : 0));
}

/* That layout is read without the per-value path in the host's order: the
 * same mesh as the other byte order (the general path), and every bad
 * record named exactly as the general path names it. */
static void test_ply_fast_layout_agrees(void **state)
{
    (void)state;
    for (int u = 0; u < 2; u++)
        for (int bad = 0; bad <= 4; bad++) {
            char msg[2][512];
            sensim_status st[2];
            sensim_mesh m[2];
            sensim_scene *s[2];
            for (int be = 0; be < 2; be++) {
                const char *path = plain_ply(be ? "plain_be.ply" : "plain_le.ply", be, u, bad);
                sensim_scene_info info;
                st[be] = load(path, &info, &s[be]);
                const char *e = strstr(sensim_context_last_error(NULL), ".ply");
                snprintf(msg[be], sizeof msg[be], "%s", st[be] == SENSIM_OK || !e ? "" : e + 4);
                if (st[be] == SENSIM_OK)
                    m[be] = s[be]->meshes[0];
            }
            assert_int_equal(st[0], st[1]);
            assert_string_equal(msg[0], msg[1]);
            if (bad == 0) {
                CHECK_OK(st[0]);
                assert_int_equal(m[0].triangle_count, 3);
                assert_int_equal(m[1].triangle_count, 3);
                assert_memory_equal(m[0].vertices, m[1].vertices, 15 * sizeof(float));
                assert_memory_equal(m[0].indices, m[1].indices, 9 * sizeof(uint32_t));
                assert_memory_equal(m[0].tags, m[1].tags, 3);
            } else {
                assert_int_not_equal(st[0], SENSIM_OK);
                assert_true(strlen(msg[0]) > 10);
            }
            sensim_scene_destroy(s[0]);
            sensim_scene_destroy(s[1]);
        }
}

static void test_ply_formats_agree(void **state)
{
    (void)state;
    const char *paths[3];
    char p0[512], p1[512], p2[512];
    snprintf(p0, sizeof p0, "%s", write_text("a.ply", ascii_ply));
    snprintf(p1, sizeof p1, "%s", binary_ply("le.ply", 0, 0));
    snprintf(p2, sizeof p2, "%s", binary_ply("be.ply", 1, 0));
    paths[0] = p0, paths[1] = p1, paths[2] = p2;
    for (int k = 0; k < 3; k++) {
        sensim_scene_info info;
        sensim_scene *s;
        CHECK_OK(load(paths[k], &info, &s));
        assert_int_equal(info.vertex_count, 5);
        assert_int_equal(info.triangle_count, 3);
        uint8_t tags[3];
        const double xy[3][2] = {{2, 7}, {8, 3}, {5, 15}};
        tags_below(s, tags, xy, 3);
        assert_int_equal(tags[0], 1);
        assert_int_equal(tags[1], 1);
        assert_int_equal(tags[2], 9);
        sensim_scene_destroy(s);
    }
}

/* Elements without properties carry no data: any declared count, even 2^40, reads in no time. */
static void test_ply_empty_elements(void **state)
{
    (void)state;
    const char *h = "ply\nformat %s 1.0\nelement marker 1099511627776\nelement vertex 3\nproperty float x\n"
                    "property float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\n"
                    "element trailer 1099511627776\nend_header\n";
    char buf[1024];
    int n = snprintf(buf, sizeof buf, h, "ascii");
    snprintf(buf + n, sizeof buf - (size_t)n, "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
    char pa[512];
    snprintf(pa, sizeof pa, "%s", write_text("empty_a.ply", buf));
    n = snprintf(buf, sizeof buf, h, "binary_little_endian");
    size_t o = (size_t)n;
    const float v[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    for (int i = 0; i < 9; i++)
        o = put((unsigned char *)buf, o, &v[i], 4, 0);
    buf[o++] = 3;
    const int32_t tri[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++)
        o = put((unsigned char *)buf, o, &tri[i], 4, 0);
    const char *pb = write_file("empty_b.ply", buf, o);
    const char *paths[2] = {pa, pb};
    for (int k = 0; k < 2; k++) {
        sensim_scene_info info;
        CHECK_OK(load(paths[k], &info, NULL));
        assert_int_equal(info.vertex_count, 3);
        assert_int_equal(info.triangle_count, 1);
    }
}

static void expect_ply_fail(const char *path, sensim_status want, const char *msg_part)
{
    sensim_scene_info info;
    sensim_status st = load(path, &info, NULL);
    const char *msg = sensim_context_last_error(ctx);
    if (st != want || !strstr(msg, msg_part))
        fail_msg("%s: got %s '%s', want %s containing '%s'", path, sensim_status_string(st), msg,
                 sensim_status_string(want), msg_part);
    assert_int_equal(info.mesh_count, 0);
}

static void test_ply_errors(void **state)
{
    (void)state;
    char p[512];
    for (int cut = 1; cut < 40; cut += 3) {
        snprintf(p, sizeof p, "%s", binary_ply("trunc.ply", 0, cut));
        expect_ply_fail(p, SENSIM_ERR_PARSE, "trunc.ply");
    }
    const char *h = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                    "element face 1\nproperty list uchar int vertex_indices\nend_header\n";
    char text[1024];
    snprintf(text, sizeof text, "%s0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", h);
    expect_ply_fail(write_text("idx.ply", text), SENSIM_ERR_BAD_INDEX, "idx.ply: line 13");
    snprintf(text, sizeof text, "%s0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n", h);
    expect_ply_fail(write_text("nan.ply", text), SENSIM_ERR_NOT_FINITE, "nan.ply: line 11");
    snprintf(text, sizeof text, "%s0 0 0\n1 0 0\n0 1 0\n3 0 1 2 7\n", h);
    expect_ply_fail(write_text("extra.ply", text), SENSIM_ERR_PARSE, "extra.ply: line 13");
    snprintf(text, sizeof text, "%s0 0 0\n1 0 0\n0 1 0\n", h);
    expect_ply_fail(write_text("short.ply", text), SENSIM_ERR_PARSE, "short.ply");
    expect_ply_fail(write_text("nohdr.ply", "ply\nformat ascii 1.0\nelement vertex 3\n"), SENSIM_ERR_PARSE,
                    "end_header");
    expect_ply_fail(write_text("notply.ply", "solid cube\n"), SENSIM_ERR_PARSE, "notply.ply:1");
    expect_ply_fail(write_text("fmt.ply", "ply\nformat binary_middle_endian 1.0\nend_header\n"), SENSIM_ERR_PARSE,
                    "fmt.ply:2");
    expect_ply_fail(write_text("fmt2.ply", "ply\nformat ascii 1.0\nformat binary_little_endian 1.0\nend_header\n"),
                    SENSIM_ERR_PARSE, "fmt2.ply:3: second format line");
    expect_ply_fail(write_text("huge.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 900000000\n"
                                           "property float x\nproperty float y\nproperty float z\n"
                                           "element face 1\nproperty list uchar int vertex_indices\nend_header\n"),
                    SENSIM_ERR_PARSE, "claims 900000000 records");
    snprintf(text, sizeof text,
             "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
             "element face 0\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n");
    expect_ply_fail(write_text("noface.ply", text), SENSIM_ERR_EMPTY, "no faces");
}

static void test_raw_mesh_errors(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float v[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const float vnan[] = {0, 0, 0, NAN, 0, 0, 0, 1, 0};
    const uint32_t idx[] = {0, 1, 2}, bad[] = {0, 1, 3};
    sensim_mesh_desc d;
    sensim_mesh_desc_init(&d);
    d.vertices = v;
    d.vertex_count = 3;
    d.indices = idx;
    d.triangle_count = 0;
    assert_int_equal(sensim_scene_add_mesh(s, &d, NULL), SENSIM_ERR_EMPTY);
    d.triangle_count = 1;
    d.indices = bad;
    assert_int_equal(sensim_scene_add_mesh(s, &d, NULL), SENSIM_ERR_BAD_INDEX);
    d.indices = idx;
    d.vertices = vnan;
    assert_int_equal(sensim_scene_add_mesh(s, &d, NULL), SENSIM_ERR_NOT_FINITE);
    d.vertices = v;
    d.tag = 29;
    assert_int_equal(sensim_scene_add_mesh(s, &d, NULL), SENSIM_ERR_OUT_OF_RANGE);
    d.tag = 0;
    d.flags = 0x80;
    assert_int_equal(sensim_scene_add_mesh(s, &d, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_scene_commit(s), SENSIM_ERR_EMPTY);
    sensim_scene_info info;
    CHECK_OK(sensim_scene_get_info(s, &info));
    assert_int_equal(info.mesh_count, 0);
    double pose[16];
    identity(pose);
    pose[0] = NAN;
    d.flags = SENSIM_MESH_PROTOTYPE;
    uint32_t id;
    CHECK_OK(sensim_scene_add_mesh(s, &d, &id));
    assert_int_equal(sensim_scene_add_actor(s, id, 5, pose), SENSIM_ERR_NOT_FINITE);
    identity(pose);
    pose[0] = 0;
    assert_int_equal(sensim_scene_add_actor(s, id, 5, pose), SENSIM_ERR_OUT_OF_RANGE);
    sensim_scene_destroy(s);
}

static void test_tag_names(void **state)
{
    (void)state;
    assert_int_equal(sensim_tag_from_name("Road"), 1);
    assert_int_equal(sensim_tag_from_name("RoadLine_dashed"), 24);
    assert_int_equal(sensim_tag_from_name("SideWalks"), 2);
    assert_int_equal(sensim_tag_from_name("BUILDING_3"), 3);
    assert_int_equal(sensim_tag_from_name("guardrail"), 28);
    assert_int_equal(sensim_tag_from_name("rail"), 27);
    assert_int_equal(sensim_tag_from_name("car_body"), 14);
    assert_int_equal(sensim_tag_from_name("traffic_light_pole"), 7);
    assert_int_equal(sensim_tag_from_name("zzz"), -1);
    assert_string_equal(sensim_tag_name(14), "Car");
    assert_string_equal(sensim_tag_name(28), "GuardRail");
    assert_string_equal(sensim_tag_name(29), "");
    for (uint32_t t = 1; t <= 28; t++) /* every CARLA name maps back to its own id */
        assert_int_equal(sensim_tag_from_name(sensim_tag_name(t)), (int32_t)t);
    /* whole words, not substrings */
    const struct {
        const char *name;
        int32_t tag;
    } words[] = {
        {"carpet", -1},          {"scar", -1},           {"design", -1},          {"Trailer", -1},
        {"Streetlight_pole", 6}, {"crosswalk_01", 24},   {"SM_TrafficLight02", 7}, {"Cars", 14},
        {"road_line", 24},       {"HTTPRoadSign", 8},    {"wall-2.fence", 4},     {"street light", 6},
        {"Buses", 16},           {"Roadside tree", 9},   {"SM_Hedge_3", 9},       {"railway", 27},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (sensim_tag_from_name(words[i].name) != words[i].tag)
            fail_msg("%s -> %d, want %d", words[i].name, sensim_tag_from_name(words[i].name), words[i].tag);
    }
    assert_int_equal(sensim_tag_from_label("car"), 14);
    assert_int_equal(sensim_tag_from_label("GuardRail"), 28);
    assert_int_equal(sensim_tag_from_label("7"), 7);
    assert_int_equal(sensim_tag_from_label("29"), -1);
    assert_int_equal(sensim_tag_from_label("Carpet"), -1);
}

/* A user mapping file is tried before the built-in names; its errors name the line. */
static void test_tag_map_file(void **state)
{
    (void)state;
    const char *map = "# my asset names\ncrash_barrier = GuardRail\nCarpet = 3   # indoor floor\n\nSM_Car = Static\n";
    const char *map_path = write_test_file(dir, "tags.txt", map, strlen(map));
    char mp[512];
    snprintf(mp, sizeof mp, "%s", map_path);
    const char *obj = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                      "v 3 0 0\nv 4 0 0\nv 4 1 0\nv 3 1 0\n"
                      "v 6 0 0\nv 7 0 0\nv 7 1 0\nv 6 1 0\n"
                      "usemtl SM_CrashBarrier_02\nf 1 2 3 4\nusemtl red_carpet\nf 5 6 7 8\n"
                      "usemtl SM_Car_Sedan\nf 9 10 11 12\n";
    const char *obj_path = write_test_file(dir, "tagged.obj", obj, strlen(obj));
    const double xy[3][2] = {{0.5, 0.5}, {3.5, 0.5}, {6.5, 0.5}};
    uint8_t tags[3];
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    CHECK_OK(sensim_scene_load_obj(s, obj_path, NULL, NULL));
    tags_below(s, tags, xy, 3);
    assert_int_equal(tags[0], 0);  /* no built-in name */
    assert_int_equal(tags[1], 0);  /* carpet is not a car */
    assert_int_equal(tags[2], 14); /* SM_Car -> Car */
    sensim_scene_destroy(s);
    sensim_load_options lo;
    sensim_load_options_init(&lo);
    lo.tag_map_file = mp;
    CHECK_OK(sensim_scene_create(ctx, &s));
    CHECK_OK(sensim_scene_load_obj(s, obj_path, &lo, NULL));
    tags_below(s, tags, xy, 3);
    assert_int_equal(tags[0], 28);
    assert_int_equal(tags[1], 3);
    assert_int_equal(tags[2], 20); /* the user's two-word rule beats the built-in "car" */
    /* bad rules: the file and line are named, nothing is loaded */
    const char *bad[] = {"crash_barrier = Barrier\n", "ok = Car\nno equals sign\n", " = Car\n",
                         "# long\nabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij_xyzw = Car\n"};
    const unsigned lines[] = {1, 2, 1, 2};
    for (int k = 0; k < 4; k++) {
        const char *bp = write_test_file(dir, "bad_tags.txt", bad[k], strlen(bad[k]));
        char bpath[512];
        snprintf(bpath, sizeof bpath, "%s", bp);
        lo.tag_map_file = bpath;
        sensim_scene_info before, after;
        CHECK_OK(sensim_scene_get_info(s, &before));
        assert_int_equal(sensim_scene_load_obj(s, obj_path, &lo, NULL), SENSIM_ERR_PARSE);
        char want[600];
        snprintf(want, sizeof want, "%s:%u:", bpath, lines[k]);
        assert_non_null(strstr(sensim_context_last_error(NULL), want));
        CHECK_OK(sensim_scene_get_info(s, &after));
        assert_int_equal(after.mesh_count, before.mesh_count);
    }
    /* a FIFO as the mapping file: refused, not waited on */
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/tags.fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    lo.tag_map_file = fifo;
    assert_true(sensim_scene_load_obj(s, obj_path, &lo, NULL) != SENSIM_OK);
    sensim_scene_destroy(s);
}

/* Text of an OBJ: one triangle, then @p names usemtl names (prefix @p tag)
 * each with a face. Caller frees. */
static char *obj_with_names(const char *tag, int names)
{
    size_t cap = 64 + (size_t)names * 40;
    char *t = malloc(cap), *p = t;
    p += sprintf(p, "v 0 0 0\nv 1 0 0\nv 0 1 0\n");
    for (int i = 0; i < names; i++)
        p += sprintf(p, "usemtl %s%d\nf 1 2 3\n", tag, i);
    return t;
}

/* A load that fails leaves the scene exactly as it was: no materials of the
 * failed file, no staged change (was: ~25 000 new materials and an
 * uncommitted scene after hitting the 65 535 limit). */
static void test_failed_load_changes_nothing(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    char *a = obj_with_names("a", 40000), *b = obj_with_names("b", 30000);
    CHECK_OK(sensim__scene_load_obj_mem(s, "a.obj", a, strlen(a), NULL, NULL));
    CHECK_OK(sensim_scene_commit(s));
    uint32_t id;
    CHECK_OK(sensim_scene_find_material(s, "a39999", &id));
    assert_int_equal(id, 40000);
    assert_int_equal(sensim__scene_load_obj_mem(s, "b.obj", b, strlen(b), NULL, NULL), SENSIM_ERR_TOO_LARGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "b.obj"));
    sensim_scene_info si;
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.mesh_count, 1);
    assert_int_equal(si.committed, 1);
    assert_int_equal(sensim_scene_find_material(s, "b0", &id), SENSIM_ERR_NOT_FOUND);
    assert_int_equal(sensim_scene_find_material(s, "b25534", &id), SENSIM_ERR_NOT_FOUND);
    CHECK_OK(sensim_scene_find_material(s, "a17", &id));
    assert_int_equal(id, 18);
    /* the names the failed file would have taken are free again */
    char *c = obj_with_names("c", 25535);
    CHECK_OK(sensim__scene_load_obj_mem(s, "c.obj", c, strlen(c), NULL, NULL));
    CHECK_OK(sensim_scene_find_material(s, "c25534", &id));
    assert_int_equal(id, 65535);
    free(a);
    free(b);
    free(c);
    sensim_scene_destroy(s);
}

/* Exact duplicate faces (same positions, any order, even through duplicated
 * vertices) are dropped at load and counted; one million copies of a
 * triangle once cost 47 s per frame. */
static void test_duplicate_faces_dropped(void **state)
{
    (void)state;
    size_t cap = 200 + 2000 * 16;
    char *t = malloc(cap), *p = t;
    p += sprintf(p, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 0 0\nv 5 5 5\n");
    for (int i = 0; i < 1000; i++)
        p += sprintf(p, "f 1 2 3\nf 3 1 4\n"); /* 4 is at 2's position: the same face, reordered */
    p += sprintf(p, "f 1 2 5\n"); /* a different face is kept */
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    CHECK_OK(sensim__scene_load_obj_mem(s, "dup.obj", t, strlen(t), NULL, NULL));
    sensim_scene_info si;
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.triangle_count, 2);
    assert_int_equal(si.duplicate_triangles_dropped, 1999);
    /* PLY too */
    const char *ply = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                      "property float z\nelement face 3\nproperty list uchar int vertex_indices\nend_header\n"
                      "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 2 1 0\n3 1 2 0\n";
    CHECK_OK(sensim__scene_load_ply_mem(s, "dup.ply", ply, strlen(ply), NULL, NULL));
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.triangle_count, 3);
    assert_int_equal(si.duplicate_triangles_dropped, 2001);
    free(t);
    sensim_scene_destroy(s);
}

/* A file is read 4 MiB at a time (parse.c): a CRLF split across the first
 * chunk boundary, a comment line longer than a chunk and CR-only line ends
 * give the same lines and line numbers as the same bytes parsed whole. */
static void test_obj_read_in_chunks(void **state)
{
    (void)state;
    const size_t chunk = 4u << 20;
    char *t = malloc(3 * chunk);
    size_t n = 0;
    unsigned lines = 0, verts = 0;
    while (n < chunk - 64)
        n += (size_t)sprintf(t + n, "v %u 0 %u\r\n", verts % 977, verts / 977), lines++, verts++;
    t[n++] = '#';
    while (n < chunk - 1)
        t[n++] = 'x';
    t[n++] = '\r', t[n++] = '\n', lines++; /* CR the last byte of chunk 1, LF the first of chunk 2 */
    assert_int_equal(t[chunk - 1], '\r');
    t[n++] = '#';
    for (size_t k = 0; k < chunk + chunk / 4; k++)
        t[n++] = 'y';
    t[n++] = '\n', lines++;
    n += (size_t)sprintf(t + n, "v 0 1 0\rv 0 0 1\r"), lines += 2, verts += 2;
    for (unsigned k = 1; k + 2 <= verts; k += 3)
        n += (size_t)sprintf(t + n, "f %u %u %u\n", k, k + 1, k + 2), lines++;
    size_t good = n;
    n += (size_t)sprintf(t + n, "f 1 2 %u\n", verts + 1), lines++;
    const char *path = write_file("chunk.obj", t, n);
    char where[64];
    snprintf(where, sizeof where, "chunk.obj:%u:", lines);
    sensim_scene_info a, b;
    assert_int_equal(load(path, &a, NULL), SENSIM_ERR_BAD_INDEX);
    assert_non_null(strstr(sensim_context_last_error(NULL), where));
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    assert_int_equal(sensim__scene_load_obj_mem(s, "chunk.obj", t, n, NULL, NULL), SENSIM_ERR_BAD_INDEX);
    assert_non_null(strstr(sensim_context_last_error(NULL), where));
    sensim_scene_destroy(s);
    path = write_file("chunk_ok.obj", t, good); /* without the bad face: the same mesh both ways */
    CHECK_OK(load(path, &a, NULL));
    CHECK_OK(sensim_scene_create(ctx, &s));
    CHECK_OK(sensim__scene_load_obj_mem(s, "chunk_ok.obj", t, good, NULL, NULL));
    CHECK_OK(sensim_scene_get_info(s, &b));
    sensim_scene_destroy(s);
    assert_int_equal(a.vertex_count, verts);
    assert_int_equal(b.vertex_count, verts);
    assert_int_equal(a.triangle_count, b.triangle_count);
    assert_int_equal(a.triangle_count + a.duplicate_triangles_dropped, verts / 3);
    free(t);
}

/* Corner UVs are kept from the first face that has them on (24 bytes a
 * triangle were pushed for every face of a mesh without any): the faces
 * before it read NaN, the later ones their vt values. */
static void test_obj_uvs_start_late(void **state)
{
    (void)state;
    const char *t = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0.25 0.5\nvt 0.75 0.5\nvt 0.25 1\n"
                    "f 1 2 3\nf 2 4 3\nf 1/1 2/2 4/3\nf 4 1 3\n";
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    CHECK_OK(sensim__scene_load_obj_mem(s, "late.obj", t, strlen(t), NULL, NULL));
    const sensim_mesh *m = &s->meshes[0];
    assert_int_equal(m->triangle_count, 4);
    assert_non_null(m->uvs);
    for (int k = 0; k < 12; k++)
        assert_true(isnan(m->uvs[k]));
    const float want[6] = {0.25f, 0.5f, 0.75f, 0.5f, 0.25f, 1};
    for (int k = 0; k < 6; k++)
        assert_true(m->uvs[12 + k] == want[k]);
    assert_true(isnan(m->uvs[18]));
    const char *none = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1 2 3\n"; /* vt given, never used */
    CHECK_OK(sensim__scene_load_obj_mem(s, "none.obj", none, strlen(none), NULL, NULL));
    assert_null(s->meshes[1].uvs);
    sensim_scene_destroy(s);
}

/* Duplicate triangles are found with two threads hashing into shared
 * bitmaps (atomic ORs): the mesh kept is the one a single thread keeps.
 * (Not in test_concurrency: ThreadSanitizer cannot see libgomp's joins.) */
static void test_parallel_duplicate_drop(void **state)
{
    (void)state;
    enum { SIDE = 200 }; /* 80 000 triangles: above the size that runs in parallel */
    size_t cap = (size_t)(SIDE + 1) * (SIDE + 1) * 40 + (size_t)SIDE * SIDE * 80;
    char *t = malloc(cap), *p = t;
    for (int j = 0; j <= SIDE; j++)
        for (int i = 0; i <= SIDE; i++)
            p += sprintf(p, "v %d %d %d\n", i, j, (i * 7 + j * 3) % 5);
    unsigned dups = 0;
    for (int j = 0; j < SIDE; j++)
        for (int i = 0; i < SIDE; i++) {
            int a = j * (SIDE + 1) + i + 1, b = a + 1, c = a + SIDE + 1, d = c + 1;
            p += sprintf(p, "f %d %d %d\nf %d %d %d\n", a, b, d, a, d, c);
            if ((i * 31 + j * 17) % 23 == 0) /* the same face again, rotated */
                p += sprintf(p, "f %d %d %d\n", d, a, b), dups++;
        }
    sensim_mesh kept[3];
    uint64_t dropped[3];
    sensim_context *cs[3];
    sensim_scene *ss[3];
    for (int k = 0; k < 3; k++) {
        sensim_context_desc cd;
        sensim_context_desc_init(&cd);
        cd.thread_count = (uint32_t)k + 1; /* bit ranges split 1, 2 and 3 ways */
        CHECK_OK(sensim_context_create(&cd, &cs[k]));
        CHECK_OK(sensim_scene_create(cs[k], &ss[k]));
        CHECK_OK(sensim__scene_load_obj_mem(ss[k], "grid.obj", t, (size_t)(p - t), NULL, NULL));
        sensim_scene_info si;
        CHECK_OK(sensim_scene_get_info(ss[k], &si));
        dropped[k] = si.duplicate_triangles_dropped;
        kept[k] = ss[k]->meshes[0];
    }
    assert_int_equal(dropped[0], dups);
    assert_int_equal(dropped[1], dups);
    assert_int_equal(dropped[2], dups);
    assert_int_equal(kept[0].triangle_count, 2u * SIDE * SIDE);
    assert_int_equal(kept[1].triangle_count, kept[0].triangle_count);
    assert_memory_equal(kept[0].indices, kept[1].indices, 3 * sizeof(uint32_t) * kept[0].triangle_count);
    assert_int_equal(kept[2].triangle_count, kept[0].triangle_count);
    assert_memory_equal(kept[0].indices, kept[2].indices, 3 * sizeof(uint32_t) * kept[0].triangle_count);
    for (int k = 0; k < 3; k++) {
        sensim_scene_destroy(ss[k]);
        sensim_context_destroy(cs[k]);
    }
    free(t);
}

/* The common OBJ lines are parsed on the context's threads, in parts cut
 * at line ends, and applied in file order: the mesh, the error and the
 * line it names must be those of one thread, for a file that mixes every
 * statement and face form (negative indices, v/vt, v//vn, polygons,
 * usemtl and g between runs, CRLF, comments, late UVs, duplicates) and
 * spans several read chunks and windows. */
static uint32_t lcg(uint64_t *r, uint32_t n)
{
    *r = *r * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((*r >> 33) % n);
}

static size_t mixed_obj(char *t, size_t cap, uint32_t *lines)
{
    uint64_t r = 12345;
#define RND(n) lcg(&r, n)
    size_t n = 0;
    unsigned nv = 0, nt = 0, ln = 0;
    while (n < cap - 512) {
        unsigned kind = RND(1000); /* long runs of plain faces early on, every form later */
        const char *eol = RND(7) == 0 ? "\r\n" : "\n";
        if (kind < 400 || nv < 8) {
            int x = (int)RND(2000) - 1000;
            unsigned xf = RND(1000), y = RND(50), z = RND(9);
            n += (size_t)sprintf(t + n, "v %d.%03u %u.5 -%u%s%s", x, xf, y, z, RND(5) == 0 ? " 1.0" : "", eol), nv++;
        } else if (kind < 460) {
            unsigned u = RND(100), v = RND(2);
            n += (size_t)sprintf(t + n, "vt 0.%u %u.25%s", u, v, eol), nt++;
        } else if (kind < 480) {
            n += (size_t)sprintf(t + n, "vn 0 0 1%s", eol);
        } else if (kind < 500) {
            n += (size_t)sprintf(t + n, "%s%s", RND(2) ? "# comment" : " \t ", eol);
        } else if (kind == 500) {
            n += (size_t)sprintf(t + n, "usemtl m%u%s", RND(5), eol);
        } else if (kind == 501) {
            n += (size_t)sprintf(t + n, "%s part%u%s", RND(2) ? "g" : "o", RND(4), eol);
        } else {
            unsigned a = 1 + RND(nv), b = 1 + RND(nv), c = 1 + RND(nv), d = 1 + RND(nv), form = RND(ln < 150000 ? 6 : 10);
            unsigned e = 2 + RND(6), f = 2 + RND(6), ta = 1 + RND(nt ? nt : 1), tb = 1 + RND(nt ? nt : 1);
            if (form < 6)
                n += (size_t)sprintf(t + n, "f %u %u %u%s", a, b, c, eol);
            else if (form == 6)
                n += (size_t)sprintf(t + n, "f -1 -%u -%u%s", e, f, eol);
            else if (form == 7 && nt > 0 && ln > 50000)
                n += (size_t)sprintf(t + n, "f %u/%u %u/%u %u/-1%s", a, ta, b, tb, c, eol);
            else if (form == 8)
                n += (size_t)sprintf(t + n, "f %u//%u %u//1 %u//2 %u%s", a, e, b, c, d, eol);
            else
                n += (size_t)sprintf(t + n, "f %u %u %u%s", c, a, b, eol); /* a duplicate when it repeats */
        }
        ln++;
    }
#undef RND
    *lines = ln;
    return n;
}

static sensim_status load_threads(uint32_t threads, const char *label, const char *t, size_t n, bool from_file,
                                  sensim_context **c, sensim_scene **s)
{
    sensim_context_desc cd;
    sensim_context_desc_init(&cd);
    cd.thread_count = threads;
    CHECK_OK(sensim_context_create(&cd, c));
    CHECK_OK(sensim_scene_create(*c, s));
    if (from_file)
        return sensim_scene_load_obj(*s, write_file(label, t, n), NULL, NULL);
    return sensim__scene_load_obj_mem(*s, label, t, n, NULL, NULL);
}

static void test_obj_parallel_parse_agrees(void **state)
{
    (void)state;
    const size_t cap = 9u << 20; /* three read chunks, several windows */
    char *t = malloc(cap + 256);
    uint32_t lines;
    size_t n = mixed_obj(t, cap, &lines);
    sensim_context *c[4];
    sensim_scene *s[4];
    const uint32_t threads[4] = {1, 2, 3, 2};
    for (int k = 0; k < 4; k++)
        CHECK_OK(load_threads(threads[k], "mixed.obj", t, n, k == 3, &c[k], &s[k]));
    const sensim_mesh *m0 = &s[0]->meshes[0];
    assert_true(m0->triangle_count > 100000);
    assert_non_null(m0->uvs);
    for (int k = 1; k < 4; k++) {
        const sensim_mesh *m = &s[k]->meshes[0];
        assert_int_equal(m->vertex_count, m0->vertex_count);
        assert_int_equal(m->triangle_count, m0->triangle_count);
        assert_int_equal(s[k]->duplicates_dropped, s[0]->duplicates_dropped);
        assert_memory_equal(m->vertices, m0->vertices, 3 * sizeof(float) * m0->vertex_count);
        assert_memory_equal(m->indices, m0->indices, 3 * sizeof(uint32_t) * m0->triangle_count);
        assert_memory_equal(m->tags, m0->tags, m0->triangle_count);
        assert_memory_equal(m->materials, m0->materials, sizeof(uint16_t) * m0->triangle_count);
        assert_memory_equal(m->uvs, m0->uvs, 6 * sizeof(float) * m0->triangle_count);
    }
    for (int k = 0; k < 4; k++)
        sensim_scene_destroy(s[k]), sensim_context_destroy(c[k]);
    /* one bad line well into the file (in a later window and part) */
    static const char *const bad[] = {"f 1 2 999999999\n", "v 1 2 x\n", "f 1/999999 2 3\n", "f 1 2\n",
                                      "v 2e9 0 0\n", "vt 0 nan\n", "f 1 2 3 -99999999\n"};
    const sensim_status want[] = {SENSIM_ERR_BAD_INDEX, SENSIM_ERR_PARSE,        SENSIM_ERR_BAD_INDEX, SENSIM_ERR_PARSE,
                                  SENSIM_ERR_OUT_OF_RANGE, SENSIM_ERR_NOT_FINITE, SENSIM_ERR_BAD_INDEX,
                                  SENSIM_ERR_BAD_INDEX, SENSIM_ERR_BAD_INDEX};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0] + 2; b++) {
        size_t at = b >= 7 ? n / (b == 7 ? 8 : 6) : n / 3 + (n / 16) * b, line = 1; /* the edge cases among plain faces */
        while (t[at - 1] != '\n')
            at++;
        for (size_t i = 0; i < at; i++)
            line += t[i] == '\n';
        char edge[64]; /* one past the vertices so far, after them the same below */
        size_t nv = 0;
        for (size_t i = 0; i + 1 < at; i++)
            nv += t[i] == 'v' && t[i + 1] == ' ' && (i == 0 || t[i - 1] == '\n');
        if (b == 7)
            snprintf(edge, sizeof edge, "f 1 2 %zu\n", nv + 1);
        else if (b == 8)
            snprintf(edge, sizeof edge, "f -%zu 1 2\n", nv + 1);
        const char *line_text = b >= 7 ? edge : bad[b];
        size_t bl = strlen(line_text);
        char *u = malloc(n + bl);
        memcpy(u, t, at), memcpy(u + at, line_text, bl), memcpy(u + at + bl, t + at, n - at);
        char where[64], first[512];
        snprintf(where, sizeof where, "bad.obj:%zu:", line);
        for (int k = 0; k < 4; k++) {
            sensim_status got = load_threads(threads[k], "bad.obj", u, n + bl, k == 3, &c[k], &s[k]);
            if (got != want[b])
                fail_msg("%s: status %d, wanted %d (%s)", line_text, got, want[b], sensim_context_last_error(NULL));
            const char *msg = sensim_context_last_error(NULL);
            if (!strstr(msg, where))
                fail_msg("%s: wanted %s", msg, where);
            if (k == 0)
                snprintf(first, sizeof first, "%s", strstr(msg, "bad.obj"));
            else
                assert_string_equal(strstr(msg, "bad.obj"), first);
            sensim_scene_info si;
            CHECK_OK(sensim_scene_get_info(s[k], &si));
            assert_int_equal(si.mesh_count, 0); /* nothing half loaded */
            sensim_scene_destroy(s[k]), sensim_context_destroy(c[k]);
        }
        free(u);
    }
    free(t);
}

/* Differential: the same file with one random change (a byte replaced or
 * removed, a line inserted) loads to the same status, message and mesh on
 * one thread and on two, whatever the change hits. */
static void test_obj_parallel_parse_mutations(void **state)
{
    (void)state;
    const size_t cap = (9u << 20) / 2; /* beyond one read chunk and one window */
    char *t = malloc(cap + 256), *u = malloc(cap + 512);
    uint32_t lines;
    size_t n = mixed_obj(t, cap, &lines);
    static const char bytes[] = {'\0', '\r', '\n', ' ', '-', '/', 'x', '9', '#', 'e', '.', '+'};
    static const char *const ins[] = {"usemtl z\n", "f -1 -1 -1\n", "vt 1\n", "g\n", "f 1//\n", "v 1 2\n", "f 3 1 2\r"};
    uint64_t r = 99;
    for (int round = 0; round < 12; round++) {
        size_t at = n / 8 + lcg(&r, (uint32_t)(n - n / 4)), un;
        uint32_t op = lcg(&r, 3);
        memcpy(u, t, at);
        if (op == 0) {
            u[at] = bytes[lcg(&r, sizeof bytes)];
            memcpy(u + at + 1, t + at + 1, n - at - 1), un = n;
        } else if (op == 1) {
            memcpy(u + at, t + at + 1, n - at - 1), un = n - 1;
        } else {
            while (at < n && t[at - 1] != '\n')
                at++;
            memcpy(u, t, at);
            const char *l = ins[lcg(&r, sizeof ins / sizeof ins[0])];
            size_t ll = strlen(l);
            memcpy(u + at, l, ll), memcpy(u + at + ll, t + at, n - at), un = n + ll;
        }
        sensim_context *c[2];
        sensim_scene *s[2];
        sensim_status st[2];
        char msg[2][512];
        for (int k = 0; k < 2; k++) {
            st[k] = load_threads((uint32_t)k + 1, "mut.obj", u, un, false, &c[k], &s[k]);
            snprintf(msg[k], sizeof msg[k], "%s", st[k] ? sensim_context_last_error(NULL) : "");
        }
        if (st[0] != st[1] || strcmp(msg[0], msg[1]) != 0)
            fail_msg("round %d (op %u at %zu): %d '%s' vs %d '%s'", round, op, at, st[0], msg[0], st[1], msg[1]);
        if (st[0] == SENSIM_OK) {
            const sensim_mesh *a = &s[0]->meshes[0], *b = &s[1]->meshes[0];
            assert_int_equal(a->vertex_count, b->vertex_count);
            assert_int_equal(a->triangle_count, b->triangle_count);
            assert_memory_equal(a->vertices, b->vertices, 3 * sizeof(float) * a->vertex_count);
            assert_memory_equal(a->indices, b->indices, 3 * sizeof(uint32_t) * a->triangle_count);
            assert_memory_equal(a->tags, b->tags, a->triangle_count);
            assert_memory_equal(a->materials, b->materials, sizeof(uint16_t) * a->triangle_count);
        }
        for (int k = 0; k < 2; k++)
            sensim_scene_destroy(s[k]), sensim_context_destroy(c[k]);
    }
    free(t);
    free(u);
}

/* Integers beyond int64 are refused, not wrapped (18446744073709551617 was
 * read as 1, a valid index); over-long material names are refused, not cut. */
static void test_numbers_and_names_never_wrap(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const char *wrap = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 18446744073709551617 2 3\n";
    assert_int_equal(sensim__scene_load_obj_mem(s, "w.obj", wrap, strlen(wrap), NULL, NULL), SENSIM_ERR_PARSE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "w.obj:4"));
    const char *min = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -9223372036854775808 2 3\n";
    assert_int_equal(sensim__scene_load_obj_mem(s, "m.obj", min, strlen(min), NULL, NULL), SENSIM_ERR_BAD_INDEX);
    const char *ok = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 9223372036854775807 2 3\n";
    assert_int_equal(sensim__scene_load_obj_mem(s, "k.obj", ok, strlen(ok), NULL, NULL), SENSIM_ERR_BAD_INDEX);
    const char *lng = "v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl "
                      "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm\n"
                      "f 1 2 3\n";
    assert_int_equal(sensim__scene_load_obj_mem(s, "n.obj", lng, strlen(lng), NULL, NULL), SENSIM_ERR_TOO_LARGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "n.obj:4"));
    /* huge exponents and digit runs parse to what they are, without overflow */
    /* vertices beyond 1e9 m loaded once and were never hit: refused, naming the line */
    const char *far = "v 0 0 0\nv 1e19 0 0\nv 0 1 0\nf 1 2 3\n";
    assert_int_equal(sensim__scene_load_obj_mem(s, "far.obj", far, strlen(far), NULL, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "far.obj:2"));
    const float fv[] = {0, 0, 0, 1e19f, 0, 0, 0, 1, 0};
    const uint32_t fi[] = {0, 1, 2};
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = fv, md.vertex_count = 3, md.indices = fi, md.triangle_count = 1;
    assert_int_equal(sensim_scene_add_mesh(s, &md, NULL), SENSIM_ERR_OUT_OF_RANGE);
    const char *big = "v 1e99999999999 0 0\n";
    assert_int_equal(sensim__scene_load_obj_mem(s, "b.obj", big, strlen(big), NULL, NULL), SENSIM_ERR_NOT_FINITE);
    sensim_scene_destroy(s);
}

/* Forty materials naming one PNG: decoded once, one texture in the scene that
 * all forty share (it was decoded and copied per material: 7.3 GB for forty
 * materials on one 8192² PNG); past the scene's texture budget a texture is
 * skipped and counted, and the load still lands. */
static void test_shared_texture_once(void **state)
{
    (void)state;
    uint8_t px[16 * 16 * 3];
    for (size_t i = 0; i < sizeof px; i++)
        px[i] = (uint8_t)(i * 7);
    char png[600], png2[600];
    snprintf(png, sizeof png, "%s/shared.png", dir);
    snprintf(png2, sizeof png2, "%s/other.png", dir);
    CHECK_OK(sensim_write_png(png, 16, 16, 3, 8, px, 48));
    CHECK_OK(sensim_write_png(png2, 16, 16, 3, 8, px, 48));
    char mtl[8192] = "", obj[16384] = "mtllib shared.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\n";
    for (int k = 0; k < 41; k++) {
        snprintf(mtl + strlen(mtl), sizeof mtl - strlen(mtl), "newmtl m%d\nKd 1 1 1\nmap_Kd %s\n", k,
                 k < 40 ? "shared.png" : "other.png");
        snprintf(obj + strlen(obj), sizeof obj - strlen(obj), "usemtl m%d\nf 1/1 2/2 3/3\n", k);
    }
    write_test_file(dir, "shared.mtl", mtl, strlen(mtl));
    const char *objp = write_test_file(dir, "shared.obj", obj, strlen(obj));
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    CHECK_OK(sensim_scene_load_file(s, objp, NULL, NULL));
    assert_int_equal(s->tex_count, 2); /* shared.png once, other.png once */
    assert_int_equal(s->tex_bytes, 2 * sizeof px);
    uint32_t uses[3] = {0, 0, 0};
    for (uint32_t id = 1; id < s->mat_count; id++)
        if (s->mats[id].tex <= 2)
            uses[s->mats[id].tex]++;
    assert_int_equal(uses[1], 40);
    assert_int_equal(uses[2], 1);
    sensim_scene_info si;
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.textures_skipped, 0);
    sensim_scene_destroy(s);
    /* a scene whose textures are at the budget: the file's textures are skipped (counted once per file), the
     * geometry and colours land */
    CHECK_OK(sensim_scene_create(ctx, &s));
    s->tex_bytes = SENSIM_SCENE_TEXTURE_BYTES - 10;
    CHECK_OK(sensim_scene_load_file(s, objp, NULL, NULL));
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.textures_skipped, 2);
    assert_int_equal(si.triangle_count, 1); /* 41 copies of one triangle: duplicates dropped */
    assert_int_equal(s->tex_count, 0);
    s->tex_bytes = 0;
    sensim_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_obj_valid),        cmocka_unit_test(test_obj_errors),
        cmocka_unit_test(test_ply_formats_agree), cmocka_unit_test(test_ply_fast_layout_agrees), cmocka_unit_test(test_ply_empty_elements),
        cmocka_unit_test(test_ply_errors),
        cmocka_unit_test(test_raw_mesh_errors),  cmocka_unit_test(test_tag_names), cmocka_unit_test(test_tag_map_file),
        cmocka_unit_test(test_failed_load_changes_nothing), cmocka_unit_test(test_duplicate_faces_dropped),
        cmocka_unit_test(test_numbers_and_names_never_wrap), cmocka_unit_test(test_obj_read_in_chunks),
        cmocka_unit_test(test_obj_uvs_start_late),   cmocka_unit_test(test_parallel_duplicate_drop),
        cmocka_unit_test(test_obj_parallel_parse_agrees),
        cmocka_unit_test(test_obj_parallel_parse_mutations), cmocka_unit_test(test_shared_texture_once),
    };
    return cmocka_run_group_tests_name("loaders", tests, setup, teardown);
}
