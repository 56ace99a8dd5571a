/* Scene files read through Assimp run it in the helper process sensim-assimp:
 * a file that crashes Assimp, exhausts its memory budget or references a
 * FIFO is an error naming the file, this process goes on, and the scene is
 * as it was. The helper's answer is read as hostile input: every truncation
 * and every single-byte change of a real answer gives a status, never a
 * crash (ASan watches this test in the sanitizer build). */
#include "helpers.h"
#include "scene_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TEST_GROUP_FIXTURE(1, 1)

/* A glTF whose nodes are @p nodes (JSON text) over one triangle; buffer URI @p uri (NULL: embedded). */
static const char *write_gltf(const char *name, const char *nodes, const char *uri)
{
    static const char data[] = "data:application/octet-stream;base64,"
                               "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAEAAAACAAAA";
    size_t cap = strlen(nodes) + 2048;
    char *g = malloc(cap);
    assert_non_null(g);
    int n = snprintf(g, cap,
                     "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0]}], \"nodes\": %s,"
                     " \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}, \"indices\": 1}]}],"
                     " \"buffers\": [{\"byteLength\": 48, \"uri\": \"%s\"}],"
                     " \"bufferViews\": [{\"buffer\": 0, \"byteLength\": 36},"
                     " {\"buffer\": 0, \"byteOffset\": 36, \"byteLength\": 12}],"
                     " \"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 3, \"type\": \"VEC3\","
                     " \"min\": [0, 0, 0], \"max\": [1, 1, 0]},"
                     " {\"bufferView\": 1, \"componentType\": 5125, \"count\": 3, \"type\": \"SCALAR\"}]}",
                     nodes, uri ? uri : data);
    const char *p = write_test_file(dir, name, g, (size_t)n);
    free(g);
    return p;
}

/* "[{children:[1]}, {children:[2]}, ..., {mesh:0}]": a chain @p depth nodes deep; @p twice: each
 * node lists the next one twice (a DAG of 2^depth paths in 1 KB). */
static char *chain(int depth, int twice)
{
    char *s = malloc((size_t)depth * 40 + 64), *p = s;
    p += sprintf(p, "[");
    for (int i = 0; i < depth; i++)
        p += twice ? sprintf(p, "{\"children\": [%d, %d]},", i + 1, i + 1) : sprintf(p, "{\"children\": [%d]},", i + 1);
    sprintf(p, "{\"mesh\": 0}]");
    return s;
}

static sensim_scene *scene_with_one_triangle(void)
{
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const char *ok = write_gltf("one.gltf", "[{\"mesh\": 0}]", NULL);
    CHECK_OK(sensim_scene_load_file(s, ok, NULL, NULL));
    return s;
}

static void assert_unchanged(sensim_scene *s)
{
    sensim_scene_info si;
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.mesh_count, 1);
    assert_int_equal(si.triangle_count, 1);
}

static void test_good_file_through_the_helper(void **state)
{
    (void)state;
    sensim_scene *s = scene_with_one_triangle();
    assert_unchanged(s);
    /* two nodes sharing the mesh: one prototype placed twice */
    const char *two = write_gltf("two.gltf", "[{\"children\": [1, 2]}, {\"mesh\": 0, \"translation\": [5, 0, 0]},"
                                             " {\"mesh\": 0, \"translation\": [-5, 0, 0]}]", NULL);
    CHECK_OK(sensim_scene_load_file(s, two, NULL, NULL));
    sensim_scene_info si;
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.instance_count, 2);
    sensim_scene_destroy(s);
}

static void test_crash_is_an_error(void **state)
{
    (void)state;
    sensim_scene *s = scene_with_one_triangle();
    /* 200 000 nested nodes: Assimp recurses per level and overflows its stack */
    char *nodes = chain(200000, 0);
    const char *deep = write_gltf("deep.gltf", nodes, NULL);
    free(nodes);
    sensim_status st = sensim_scene_load_file(s, deep, NULL, NULL);
    assert_true(st == SENSIM_ERR_PARSE || st == SENSIM_ERR_TOO_LARGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "deep.gltf"));
    assert_unchanged(s);
    /* 300 levels that Assimp survives: our own walk's depth limit */
    nodes = chain(300, 0);
    const char *d300 = write_gltf("d300.gltf", nodes, NULL);
    free(nodes);
    assert_int_equal(sensim_scene_load_file(s, d300, NULL, NULL), SENSIM_ERR_TOO_LARGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "deeper than 256"));
    assert_unchanged(s);
    /* not a glTF at all */
    const char *junk = write_test_file(dir, "junk.glb", "glTF\x02\0\0\0\xff\xff\xff\x7f", 12);
    assert_int_not_equal(sensim_scene_load_file(s, junk, NULL, NULL), SENSIM_OK);
    assert_non_null(strstr(sensim_context_last_error(NULL), "junk.glb"));
    assert_unchanged(s);
    sensim_scene_destroy(s);
}

/* A COLLADA unit of 0 flattens the file, a negative one mirrors it: refused by name (they loaded silently). */
static void test_collada_units(void **state)
{
    (void)state;
    sensim_scene *s = scene_with_one_triangle();
    for (int k = 0; k < 3; k++) {
        static const char *const unit[] = {"1", "0", "-1"};
        char dae[2048], name[32];
        snprintf(dae, sizeof dae,
                 "<?xml version=\"1.0\"?><COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" "
                 "version=\"1.4.1\"><asset><unit name=\"u\" meter=\"%s\"/><up_axis>Z_UP</up_axis></asset>"
                 "<library_geometries><geometry id=\"g\"><mesh><source id=\"p\"><float_array id=\"pa\" "
                 "count=\"9\">0 0 0 1 0 0 0 1 0</float_array><technique_common><accessor source=\"#pa\" "
                 "count=\"3\" stride=\"3\"><param name=\"X\" type=\"float\"/><param name=\"Y\" "
                 "type=\"float\"/><param name=\"Z\" type=\"float\"/></accessor></technique_common></source>"
                 "<vertices id=\"v\"><input semantic=\"POSITION\" source=\"#p\"/></vertices><triangles "
                 "count=\"1\"><input semantic=\"VERTEX\" source=\"#v\" offset=\"0\"/><p>0 1 2</p></triangles>"
                 "</mesh></geometry></library_geometries><library_visual_scenes><visual_scene id=\"s\"><node "
                 "id=\"n\"><instance_geometry url=\"#g\"/></node></visual_scene></library_visual_scenes><scene>"
                 "<instance_visual_scene url=\"#s\"/></scene></COLLADA>",
                 unit[k]);
        snprintf(name, sizeof name, "unit%d.dae", k);
        const char *p = write_test_file(dir, name, dae, strlen(dae));
        sensim_status st = sensim_scene_load_file(s, p, NULL, NULL);
        if (k == 0) {
            CHECK_OK(st);
            continue;
        }
        assert_int_equal(st, SENSIM_ERR_PARSE);
        assert_non_null(strstr(sensim_context_last_error(NULL), k == 1 ? "singular" : "mirrors"));
        assert_non_null(strstr(sensim_context_last_error(NULL), name));
    }
    sensim_scene_info si;
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.mesh_count, 2); /* the triangle and the unit-1 file, nothing of the others */
    sensim_scene_destroy(s);
}

/* An OFF face naming vertex 9 of 4: Assimp logs the error, replaces the index and goes on; the load is
 * refused naming it (the same file with index 3 loads). */
static void test_repaired_files_are_refused(void **state)
{
    (void)state;
    sensim_scene *s = scene_with_one_triangle();
    const char bad[] = "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n3 0 1 2\n3 1 9 3\n";
    const char *p = write_test_file(dir, "bad.off", bad, sizeof bad - 1);
    assert_int_equal(sensim_scene_load_file(s, p, NULL, NULL), SENSIM_ERR_PARSE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "bad.off"));
    assert_non_null(strstr(sensim_context_last_error(NULL), "out of range"));
    assert_unchanged(s);
    const char good[] = "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n3 0 1 2\n3 1 2 3\n";
    p = write_test_file(dir, "good.off", good, sizeof good - 1);
    CHECK_OK(sensim_scene_load_file(s, p, NULL, NULL));
    sensim_scene_destroy(s);
}

/* A 1 KB node DAG that Assimp expands to 2^40 nodes: the helper's memory
 * budget stops it (RLIMIT_AS, or ASan's RSS limit in the sanitizer build). */
static void test_memory_bomb_is_an_error(void **state)
{
    (void)state;
    sensim_scene *s = scene_with_one_triangle();
    char *nodes = chain(40, 1);
    const char *dag = write_gltf("dag.gltf", nodes, NULL);
    free(nodes);
    sensim_status st = sensim_scene_load_file(s, dag, NULL, NULL);
    assert_int_not_equal(st, SENSIM_OK);
    assert_non_null(strstr(sensim_context_last_error(NULL), "dag.gltf"));
    assert_unchanged(s);
    sensim_scene_destroy(s);
}

/* Files a scene references go through the same checks as the scene: a FIFO
 * (which would block a plain open forever), a device, a missing file. */
static void test_referenced_files_are_checked(void **state)
{
    (void)state;
    sensim_scene *s = scene_with_one_triangle();
    char fifo[600];
    snprintf(fifo, sizeof fifo, "%s/fifo.bin", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *ref = write_gltf("fifo_ref.gltf", "[{\"mesh\": 0}]", "fifo.bin");
    assert_int_equal(sensim_scene_load_file(s, ref, NULL, NULL), SENSIM_ERR_IO);
    const char *m = sensim_context_last_error(NULL);
    assert_non_null(strstr(m, "fifo_ref.gltf: references"));
    assert_non_null(strstr(m, "fifo.bin: not a regular file (a FIFO)"));
    char link[600];
    snprintf(link, sizeof link, "%s/zero.bin", dir);
    assert_int_equal(symlink("/dev/zero", link), 0); /* an endless device behind a harmless name */
    const char *dev = write_gltf("dev_ref.gltf", "[{\"mesh\": 0}]", "zero.bin");
    assert_int_equal(sensim_scene_load_file(s, dev, NULL, NULL), SENSIM_ERR_IO);
    assert_non_null(strstr(sensim_context_last_error(NULL), "zero.bin: not a regular file (a device"));
    const char *gone = write_gltf("gone_ref.gltf", "[{\"mesh\": 0}]", "gone.bin");
    assert_int_equal(sensim_scene_load_file(s, gone, NULL, NULL), SENSIM_ERR_IO);
    assert_non_null(strstr(sensim_context_last_error(NULL), "gone_ref.gltf: references"));
    assert_unchanged(s);
    sensim_scene_destroy(s);
}

/* @p name: file @p from with its first @p old replaced by @p new (NULL: cut to @p cut bytes). */
static const char *variant(const char *from, const char *name, const char *old, const char *new, size_t cut)
{
    FILE *f = fopen(from, "rb");
    assert_non_null(f);
    static char text[8192], out[8400];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    if (!old)
        return write_test_file(dir, name, text, cut < n ? cut : n);
    char *at = strstr(text, old);
    assert_non_null(at);
    int k = snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, new, at + strlen(old));
    return write_test_file(dir, name, out, (size_t)k);
}

static void assert_refused_naming(sensim_scene *s, const char *path, sensim_status want, const char *a, const char *b)
{
    assert_int_equal(sensim_scene_load_file(s, path, NULL, NULL), want);
    const char *m = sensim_context_last_error(NULL);
    if (!strstr(m, a) || !strstr(m, b))
        fail_msg("%s: want '%s' and '%s' in: %s", path, a, b, m);
}

/* Issue 62 item 16: a glTF's fault is named by its part (Assimp said "Invalid byteLength exceeds size of
 * actual data", "Accessor with offset/length (0/1200) is out of range", "No suitable reader found" for a
 * cut file): the buffer file and index, the accessor, the bufferView, the JSON's line. */
static void test_gltf_faults_name_the_part(void **state)
{
    (void)state;
    sensim_scene *s = scene_with_one_triangle();
    static const unsigned char tri[48] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0,
                                          0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0,
                                          0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0};
    write_test_file(dir, "tri.bin", (const char *)tri, sizeof tri);
    char ok[700]; /* write_test_file's answer is overwritten by the next call */
    snprintf(ok, sizeof ok, "%s", write_gltf("tri_ref.gltf", "[{\"mesh\": 0}]", "tri.bin"));
    CHECK_OK(sensim_scene_load_file(s, ok, NULL, NULL)); /* the file all the others are cut from */
    write_test_file(dir, "short.bin", (const char *)tri, 20);
    assert_refused_naming(s, write_gltf("short_ref.gltf", "[{\"mesh\": 0}]", "short.bin"), SENSIM_ERR_PARSE,
                          "short_ref.gltf: buffer 0 (short.bin): 20 bytes, its byteLength says 48", "truncated");
    assert_refused_naming(s, variant(ok, "count.gltf", "\"count\": 3, \"type\": \"VEC3\"",
                                     "\"count\": 100, \"type\": \"VEC3\"", 0),
                          SENSIM_ERR_PARSE, "count.gltf: accessor 0 (100 x VEC3)", "bufferView 0, which has 36");
    assert_refused_naming(s, variant(ok, "view.gltf", "\"byteLength\": 36", "\"byteLength\": 400", 0),
                          SENSIM_ERR_PARSE, "view.gltf: bufferView 0", "beyond buffer 0's byteLength 48");
    assert_refused_naming(s, variant(ok, "attr.gltf", "\"POSITION\": 0", "\"POSITION\": 7", 0), SENSIM_ERR_PARSE,
                          "attr.gltf: mesh 0 primitive 0: attribute POSITION names accessor 7", "the file has 2");
    assert_refused_naming(s, variant(ok, "cut.gltf", NULL, NULL, 200), SENSIM_ERR_PARSE,
                          "cut.gltf: not valid JSON at line 1, column", "(the file is truncated)");
    sensim_scene_info si;
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.mesh_count, 2); /* the triangle and tri_ref.gltf, nothing of the others */
    sensim_scene_destroy(s);
}

static char logged[2048];
static void keep_log(void *user, int32_t level, const char *message)
{
    (void)user;
    if (level == SENSIM_LOG_WARN)
        snprintf(logged + strlen(logged), sizeof logged - strlen(logged), "%s\n", message);
}

/* Issue 62 item 16, textures: one that cannot be used still loads (counted, as documented), and the
 * context's log names the material, the texture and why (the count alone named nothing). */
static void test_unusable_texture_is_named(void **state)
{
    (void)state;
    sensim_context_desc cd;
    sensim_context_desc_init(&cd);
    cd.thread_count = 1;
    cd.log_fn = keep_log;
    sensim_context *c2;
    CHECK_OK(sensim_context_create(&cd, &c2));
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(c2, &s));
    char one[700];
    snprintf(one, sizeof one, "%s", write_gltf("plain.gltf", "[{\"mesh\": 0}]", NULL));
    static const char png_head[] = "\x89PNG\r\n\x1a\nnot a png at all";
    write_test_file(dir, "broken.png", png_head, sizeof png_head - 1);
    for (int k = 0; k < 2; k++) {
        char with[600];
        snprintf(with, sizeof with,
                 "\"indices\": 1, \"material\": 0}]}], \"materials\": [{\"name\": \"paint\", \"pbrMetallicRoughness\":"
                 " {\"baseColorTexture\": {\"index\": 0}}}], \"textures\": [{\"source\": 0}], \"images\": [{\"uri\": "
                 "\"%s\"}]", k ? "broken.png" : "nope.png");
        logged[0] = 0;
        CHECK_OK(sensim_scene_load_file(s, variant(one, k ? "tex_broken.gltf" : "tex_gone.gltf",
                                                   "\"indices\": 1}]}]", with, 0), NULL, NULL));
        if (!strstr(logged, "material 'paint': texture") || !strstr(logged, k ? "broken.png" : "nope.png: cannot open"))
            fail_msg("texture %d: the log says: %s", k, logged);
    }
    sensim_scene_info si;
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.textures_skipped, 2);
    sensim_scene_destroy(s);
    sensim_context_destroy(c2);
}

/* Issue 62 item 17: a COLLADA file of one empty node has no geometry. Assimp's SkeletonMeshBuilder gave it a
 * stand-in mesh (8 triangles), which loaded with SENSIM_OK; it is refused as an OBJ without faces is. */
static void test_collada_without_geometry(void **state)
{
    (void)state;
    sensim_scene *s = scene_with_one_triangle();
    static const char dae[] =
        "<?xml version=\"1.0\"?><COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">"
        "<asset><unit name=\"m\" meter=\"1\"/><up_axis>Z_UP</up_axis></asset><library_visual_scenes><visual_scene "
        "id=\"s\"><node id=\"n\"/></visual_scene></library_visual_scenes><scene><instance_visual_scene "
        "url=\"#s\"/></scene></COLLADA>";
    const char *p = write_test_file(dir, "empty_node.dae", dae, sizeof dae - 1);
    assert_refused_naming(s, p, SENSIM_ERR_EMPTY, "empty_node.dae", "no triangles");
    assert_unchanged(s);
    sensim_scene_destroy(s);
}

/* The helper's answer for a file with instancing, run directly. */
static unsigned char *helper_answer(const char *file, size_t *len)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "%s/sensim-assimp '%s' 100000000 4000000000 30", SENSIM_BUILD_ROOT, file);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 20, n = 0, k;
    unsigned char *b = malloc(cap);
    while ((k = fread(b + n, 1, cap - n, p)) > 0)
        n += k;
    assert_int_equal(pclose(p), 0);
    assert_true(n < cap);
    *len = n;
    return b;
}

static void test_hostile_answers(void **state)
{
    (void)state;
    const char *two = write_gltf("two.gltf", "[{\"children\": [1, 2]}, {\"mesh\": 0, \"translation\": [5, 0, 0]},"
                                             " {\"mesh\": 0, \"translation\": [-5, 0, 0]}]", NULL);
    size_t n;
    unsigned char *good = helper_answer(two, &n), *work = malloc(n);
    uint32_t c[4];
    memcpy(work, good, n);
    CHECK_OK(sensim__assimp_parse_answer("two.gltf", work, n, c));
    assert_int_equal(c[2], 1); /* one mesh */
    assert_int_equal(c[3], 2); /* placed twice */
    /* every truncation is an error: the END record comes last */
    for (size_t cut = 0; cut < n; cut++) {
        memcpy(work, good, cut);
        assert_int_not_equal(sensim__assimp_parse_answer("two.gltf", work, cut, NULL), SENSIM_OK);
    }
    /* every byte changed (three ways) gives a status: parsed or refused, never a crash */
    uint32_t refused = 0;
    for (size_t i = 0; i < n; i++)
        for (int v = 0; v < 3; v++) {
            memcpy(work, good, n);
            work[i] = v == 0 ? 0xff : v == 1 ? 0x00 : (unsigned char)(good[i] ^ 0x80);
            refused += sensim__assimp_parse_answer("two.gltf", work, n, NULL) != SENSIM_OK;
        }
    assert_true(refused > 0);
    free(work);
    free(good);
}


/* An FBX mesh without a material (Blender exports them) gets Assimp's
 * default material: loaded as any material whose name we do not know,
 * not refused as a "repair" (issue 49). Two quads: 4 triangles. */
static void test_fbx_without_material(void **state)
{
    (void)state;
    static const char fbx[] =
        "; FBX 7.4.0 project file\n"
        "FBXHeaderExtension:  {\n"
        "\tFBXHeaderVersion: 1003\n"
        "\tFBXVersion: 7400\n"
        "}\n"
        "GlobalSettings:  {\n"
        "\tVersion: 1000\n"
        "\tProperties70:  {\n"
        "\t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",2\n"
        "\t\tP: \"UpAxisSign\", \"int\", \"Integer\", \"\",1\n"
        "\t\tP: \"FrontAxis\", \"int\", \"Integer\", \"\",1\n"
        "\t\tP: \"FrontAxisSign\", \"int\", \"Integer\", \"\",1\n"
        "\t\tP: \"CoordAxis\", \"int\", \"Integer\", \"\",0\n"
        "\t\tP: \"CoordAxisSign\", \"int\", \"Integer\", \"\",1\n"
        "\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",100\n"
        "\t}\n"
        "}\n"
        "Objects:  {\n"
        "\tGeometry: 1000, \"Geometry::tri\", \"Mesh\" {\n"
        "\t\tVertices: *24 {\n"
        "\t\t\ta: -5000,-5000,-200,5000,-5000,-200,5000,5000,-200,-5000,5000,-200,-5000,-200,-5000,5000,-200,-5000,5000,-200,5000,-5000,-200,5000\n"
        "\t\t}\n"
        "\t\tPolygonVertexIndex: *8 {\n"
        "\t\t\ta: 0,1,2,-4,4,5,6,-8\n"
        "\t\t}\n"
        "\t\tGeometryVersion: 124\n"
        "\t}\n"
        "\tModel: 2000, \"Model::tri\", \"Mesh\" {\n"
        "\t\tVersion: 232\n"
        "\t\tProperties70:  {\n"
        "\t\t}\n"
        "\t}\n"
        "}\n"
        "Connections:  {\n"
        "\tC: \"OO\",1000,2000\n"
        "\tC: \"OO\",2000,0\n"
        "}\n"
        "";
    const char *p = write_test_file(dir, "nomat.fbx", fbx, sizeof fbx - 1);
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    CHECK_OK(sensim_scene_load_file(s, p, NULL, NULL));
    sensim_scene_info si;
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.triangle_count, 4);
    sensim_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file_through_the_helper), cmocka_unit_test(test_fbx_without_material),
        cmocka_unit_test(test_crash_is_an_error),
        cmocka_unit_test(test_memory_bomb_is_an_error),
        cmocka_unit_test(test_collada_units),
        cmocka_unit_test(test_repaired_files_are_refused),
        cmocka_unit_test(test_referenced_files_are_checked),
        cmocka_unit_test(test_gltf_faults_name_the_part),
        cmocka_unit_test(test_collada_without_geometry),
        cmocka_unit_test(test_unusable_texture_is_named),
        cmocka_unit_test(test_hostile_answers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
