/* Road networks from OpenDRIVE (issue 65 item 1): the geometry against
 * analytic answers (a line, a quarter circle, a clothoid's end from the
 * Fresnel integrals, poly3 and paramPoly3), lanes, offsets, elevation and
 * superelevation by their polynomials, locating points; published files
 * (ASAM's examples, esmini's and maliput's, licences in
 * tests/data/xodr/README.md) evaluated continuously across every geometry
 * boundary against the starts the file gives; hostile files refused by
 * name and line, the parser in its own process. */
#include "helpers.h"

#include <unistd.h>

#ifndef SENSIM_SOURCE_ROOT
#define SENSIM_SOURCE_ROOT "."
#endif

static char tmp_path[256];

/* one road of @p body (planView, lanes, ...) in a file of its own */
static const char *xodr(const char *roads_and_more)
{
    snprintf(tmp_path, sizeof tmp_path, "/tmp/sensim_test_road_%d.xodr", (int)getpid());
    FILE *f = fopen(tmp_path, "w");
    assert_non_null(f);
    fprintf(f, "<?xml version=\"1.0\"?>\n<OpenDRIVE>\n<header revMajor=\"1\" revMinor=\"6\"/>\n%s</OpenDRIVE>\n",
            roads_and_more);
    fclose(f);
    return tmp_path;
}

#define LANES_1                                                                                                   \
    "<lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\"/></center>"                                 \
    "<right><lane id=\"-1\" type=\"driving\"><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane></right>" \
    "</laneSection></lanes>"

static sensim_road_network *load(const char *path)
{
    sensim_road_network *net = NULL;
    CHECK_OK(sensim_road_network_load(NULL, path, 0, &net));
    return net;
}

static void at(const sensim_road_network *net, uint32_t road, double s, double t, double h, double m[16])
{
    CHECK_OK(sensim_road_network_pose(net, road, s, t, h, m));
}

static void test_line_and_arc(void **state)
{
    (void)state;
    char buf[2048];
    snprintf(buf, sizeof buf,
             "<road id=\"7\" length=\"%.17g\" junction=\"-1\"><planView>"
             "<geometry s=\"0\" x=\"1\" y=\"2\" hdg=\"0.3\" length=\"100\"><line/></geometry>"
             "<geometry s=\"100\" x=\"0\" y=\"0\" hdg=\"0\" length=\"%.17g\"><arc curvature=\"0.01\"/></geometry>"
             "</planView>" LANES_1 "</road>",
             100 + 50 * M_PI, 50 * M_PI);
    sensim_road_network *net = load(xodr(buf));
    assert_int_equal(sensim_road_network_count(net), 1);
    sensim_road_info info;
    CHECK_OK(sensim_road_network_info(net, 0, &info));
    assert_string_equal(info.id, "7");
    assert_string_equal(info.junction, "-1");
    assert_int_equal(info.geometry_count, 2);
    double m[16];
    at(net, 0, 60, 0, 0, m); /* on the line */
    assert_double_close(m[12], 1 + 60 * cos(0.3), 1e-12);
    assert_double_close(m[13], 2 + 60 * sin(0.3), 1e-12);
    assert_double_close(atan2(m[1], m[0]), 0.3, 1e-12);
    at(net, 0, 100 + 50 * M_PI, 0, 0, m); /* the arc of radius 100 from (0, 0) heading east: a quarter turn left */
    assert_double_close(m[12], 100, 1e-9);
    assert_double_close(m[13], 100, 1e-9);
    assert_double_close(atan2(m[1], m[0]), M_PI / 2, 1e-12);
    at(net, 0, 100 + 25 * M_PI, -3, 0, m); /* halfway, 3 m to the right: radius 103 about (0, 100) */
    assert_double_close(hypot(m[12], m[13] - 100), 103, 1e-9);
    assert_double_close(atan2(m[13] - 100, m[12]), -M_PI / 4, 1e-12);
    at(net, 0, 1e9, 0, 0, m); /* s is clamped to the road */
    assert_double_close(m[12], 100, 1e-9);
    sensim_road_network_destroy(net);
}

static void test_spiral_is_a_clothoid(void **state)
{
    (void)state;
    /* curvature s / A² with A·sqrt(pi) = L: the end is L·(C(1), S(1)), the normalised Fresnel integrals
     * (C(1) = 0.7798934003768228, S(1) = 0.4382591473903548), the heading pi/2 */
    const double L = 100.0, kend = M_PI / L;
    char buf[2048];
    snprintf(buf, sizeof buf,
             "<road id=\"1\" length=\"%.17g\" junction=\"-1\"><planView><geometry s=\"0\" x=\"0\" y=\"0\" "
             "hdg=\"0\" length=\"%.17g\"><spiral curvStart=\"0\" curvEnd=\"%.17g\"/></geometry></planView>" LANES_1
             "</road>",
             L, L, kend);
    sensim_road_network *net = load(xodr(buf));
    double m[16];
    at(net, 0, L, 0, 0, m);
    assert_double_close(m[12], L * 0.7798934003768228, 1e-9);
    assert_double_close(m[13], L * 0.4382591473903548, 1e-9);
    assert_double_close(atan2(m[1], m[0]), M_PI / 2, 1e-12);
    /* at s = L / sqrt 2: L·(C, S)(1/sqrt 2), the series summed to 40 digits: 0.66471693..., 0.17712196... */
    at(net, 0, L / sqrt(2.0), 0, 0, m);
    assert_double_close(m[12], L * 0.6647169317774971, 1e-9);
    assert_double_close(m[13], L * 0.1771219699791394, 1e-9);
    sensim_road_network_destroy(net);
}

static void test_poly3_and_parampoly3(void **state)
{
    (void)state;
    const char *roads =
        /* poly3 v = 0.1 u: a straight line of slope 0.1, s its arc length */
        "<road id=\"a\" length=\"50\" junction=\"-1\"><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" "
        "length=\"50\"><poly3 a=\"0\" b=\"0.1\" c=\"0\" d=\"0\"/></geometry></planView>" LANES_1 "</road>"
        /* paramPoly3 in arcLength: u = p, v = 0.001 p^3 */
        "<road id=\"b\" length=\"20\" junction=\"-1\"><planView><geometry s=\"0\" x=\"5\" y=\"0\" hdg=\"1.5707963267948966\" "
        "length=\"20\"><paramPoly3 aU=\"0\" bU=\"1\" cU=\"0\" dU=\"0\" aV=\"0\" bV=\"0\" cV=\"0\" dV=\"0.001\" "
        "pRange=\"arcLength\"/></geometry></planView>" LANES_1 "</road>"
        /* the same curve normalized: u = 20 p, v = 8 p^3 */
        "<road id=\"c\" length=\"20\" junction=\"-1\"><planView><geometry s=\"0\" x=\"5\" y=\"0\" hdg=\"1.5707963267948966\" "
        "length=\"20\"><paramPoly3 aU=\"0\" bU=\"20\" cU=\"0\" dU=\"0\" aV=\"0\" bV=\"0\" cV=\"0\" dV=\"8\" "
        "pRange=\"normalized\"/></geometry></planView>" LANES_1 "</road>";
    sensim_road_network *net = load(xodr(roads));
    double m[16], n[16];
    at(net, 0, 30, 0, 0, m);
    assert_double_close(m[12], 30 / sqrt(1.01), 1e-9);
    assert_double_close(m[13], 3 / sqrt(1.01), 1e-9);
    assert_double_close(atan2(m[1], m[0]), atan(0.1), 1e-12);
    uint32_t b, c;
    CHECK_OK(sensim_road_network_find(net, "b", &b));
    CHECK_OK(sensim_road_network_find(net, "c", &c));
    assert_int_equal(b, 1);
    assert_int_equal(c, 2);
    assert_int_equal(sensim_road_network_find(net, "d", &c), SENSIM_ERR_NOT_FOUND);
    at(net, b, 10, 0, 0, m); /* the local frame turned by 90 degrees: (u, v) = (10, 1) is (5 - 1, 10) */
    assert_double_close(m[12], 4, 1e-12);
    assert_double_close(m[13], 10, 1e-12);
    assert_double_close(atan2(m[1], m[0]), M_PI / 2 + atan(0.003 * 100), 1e-12);
    at(net, 2, 10, 0, 0, n);
    for (int i = 0; i < 16; i++)
        assert_double_close(m[i], n[i], 1e-12);
    sensim_road_geometry g;
    CHECK_OK(sensim_road_network_geometry(net, b, 0, &g));
    assert_int_equal(g.type, SENSIM_GEOMETRY_PARAMPOLY3);
    assert_double_close(g.x, 5, 0);
    assert_int_equal(sensim_road_network_geometry(net, b, 1, &g), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_road_network_destroy(net);
}

static void test_lanes_offsets_elevation_superelevation(void **state)
{
    (void)state;
    const char *road =
        "<road id=\"9\" name=\"main\" length=\"100\" junction=\"-1\">"
        "<type s=\"0\" type=\"town\"><speed max=\"50\" unit=\"km/h\"/></type>"
        "<planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/></geometry></planView>"
        "<elevationProfile><elevation s=\"0\" a=\"1\" b=\"0.05\" c=\"0\" d=\"0\"/></elevationProfile>"
        "<lateralProfile><superelevation s=\"50\" a=\"0.1\" b=\"0\" c=\"0\" d=\"0\"/></lateralProfile>"
        "<lanes><laneOffset s=\"0\" a=\"0.5\" b=\"0\" c=\"0\" d=\"0\"/>"
        "<laneSection s=\"0\">"
        "<left><lane id=\"1\" type=\"driving\"><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>"
        "<roadMark sOffset=\"0\" type=\"solid\" color=\"yellow\"/></lane></left>"
        "<center><lane id=\"0\" type=\"none\"><roadMark sOffset=\"0\" type=\"broken\"/></lane></center>"
        "<right><lane id=\"-2\" type=\"sidewalk\"><width sOffset=\"0\" a=\"2\" b=\"0\" c=\"0\" d=\"0\"/></lane>"
        "<lane id=\"-1\" type=\"driving\"><width sOffset=\"0\" a=\"3\" b=\"0.01\" c=\"0\" d=\"0\"/></lane></right>"
        "</laneSection>"
        "<laneSection s=\"60\"><center><lane id=\"0\"/></center>"
        "<right><lane id=\"-1\" type=\"driving\"><width sOffset=\"0\" a=\"4\" b=\"0\" c=\"0\" d=\"0\"/></lane></right>"
        "</laneSection></lanes></road>";
    sensim_road_network *net = load(xodr(road));
    sensim_road_info info;
    CHECK_OK(sensim_road_network_info(net, 0, &info));
    assert_string_equal(info.name, "main");
    assert_double_close(info.speed_limit_mps, 50 / 3.6, 1e-12);
    assert_int_equal(info.section_count, 2);
    sensim_lane_info lanes[8];
    uint32_t n = 0;
    CHECK_OK(sensim_road_network_lanes(net, 0, 10, lanes, 8, &n));
    assert_int_equal(n, 4); /* left outermost first, centre, right from the centre out (the file lists -2 first) */
    const int32_t ids[4] = {1, 0, -1, -2};
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(lanes[i].id, ids[i]);
    assert_double_close(lanes[0].t_inner, 0.5, 1e-12);
    assert_double_close(lanes[0].t_outer, 4.0, 1e-12);
    assert_int_equal(lanes[0].mark_type, SENSIM_MARK_SOLID);
    assert_int_equal(lanes[0].mark_color, SENSIM_MARK_COLOR_YELLOW);
    assert_double_close(lanes[2].t_inner, 0.5, 1e-12);
    assert_double_close(lanes[2].t_outer, 0.5 - 3.1, 1e-12); /* 3 + 0.01 x 10 */
    assert_double_close(lanes[3].t_outer, 0.5 - 3.1 - 2, 1e-12);
    assert_int_equal(lanes[3].type, SENSIM_LANE_SIDEWALK);
    assert_double_close(lanes[2].section_s1, 60, 0);
    CHECK_OK(sensim_road_network_lanes(net, 0, 70, lanes, 1, &n)); /* room for fewer: the count says how many */
    assert_int_equal(n, 2);
    assert_int_equal(lanes[0].id, 0);
    double m[16];
    at(net, 0, 20, 0, 0, m); /* elevation 1 + 0.05 s, pitched up by atan 0.05 */
    assert_double_close(m[14], 2, 1e-12);
    assert_double_close(m[2], sin(atan(0.05)), 1e-12);
    at(net, 0, 80, 2, 0, m); /* superelevation 0.1 rad from s = 50: the left side higher */
    assert_double_close(m[6], sin(0.1) * cos(atan(0.05)), 1e-12);
    assert_double_close(m[14], 1 + 0.05 * 80 + 2 * sin(0.1) * cos(atan(0.05)), 1e-12);
    /* locating: a point in lane -1 at s = 10, 2 m right of the reference line */
    const double p[3] = {10, -2, 1.5};
    sensim_lane_point lp;
    CHECK_OK(sensim_road_network_locate(net, p, SENSIM_LANE_DRIVING, &lp));
    assert_int_equal(lp.road, 0);
    assert_int_equal(lp.lane, -1);
    assert_double_close(lp.s, 10, 1e-8);
    assert_double_close(lp.t, -2, 1e-8);
    assert_double_close(lp.distance_m, 0, 1e-8); /* 1 + 0.05 x 10 = 1.5: on the surface */
    CHECK_OK(sensim_road_network_locate(net, p, SENSIM_LANE_SIDEWALK, &lp));
    assert_int_equal(lp.lane, -2);
    assert_double_close(lp.distance_m, 0.6, 1e-6); /* to the sidewalk's edge at t = -2.6 */
    assert_int_equal(sensim_road_network_locate(net, p, SENSIM_LANE_PARKING, &lp), SENSIM_ERR_NOT_FOUND);
    const double nan3[3] = {NAN, 0, 0};
    assert_int_equal(sensim_road_network_locate(net, nan3, SENSIM_LANE_ANY, &lp), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_road_network_pose(net, 0, NAN, 0, 0, m), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_road_network_pose(net, 1, 0, 0, 0, m), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_road_network_destroy(net);
}

/* Every geometry of a published file continues the one before: the end of geometry k (evaluated here) is the
 * start the file gives for geometry k + 1, and the road's tangent does not turn there. */
static void check_file(const char *name, double tol_m, double tol_rad, uint32_t roads, uint32_t geometries)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/xodr/%s", SENSIM_SOURCE_ROOT, name);
    sensim_road_network *net = load(path);
    assert_int_equal(sensim_road_network_count(net), roads);
    uint32_t total = 0;
    double worst = 0, worst_hdg = 0;
    for (uint32_t r = 0; r < roads; r++) {
        sensim_road_info info;
        CHECK_OK(sensim_road_network_info(net, r, &info));
        total += info.geometry_count;
        for (uint32_t k = 1; k < info.geometry_count; k++) {
            sensim_road_geometry g;
            CHECK_OK(sensim_road_network_geometry(net, r, k, &g));
            double a[16], b[16];
            at(net, r, g.s0 - 1e-9, 0, 0, a);
            at(net, r, g.s0, 0, 0, b);
            /* the start is the file's (a paramPoly3's aU, aV may move it off by what the file says) */
            assert_true(hypot(b[12] - g.x, b[13] - g.y) <= (g.type == SENSIM_GEOMETRY_PARAMPOLY3 ? 1e-4 : 1e-12));
            worst = fmax(worst, hypot(a[12] - b[12], a[13] - b[13]));
            double dh = atan2(b[1], b[0]) - atan2(a[1], a[0]);
            dh = remainder(dh, 2 * M_PI);
            worst_hdg = fmax(worst_hdg, fabs(dh));
        }
        uint32_t n;
        CHECK_OK(sensim_road_network_lanes(net, r, 0.5 * info.length_m, NULL, 0, &n));
        assert_true(n >= 1);
    }
    assert_int_equal(total, geometries);
    printf("%s: %u roads, %u geometries: position gaps <= %.3g m, tangent turns <= %.3g rad\n", name, roads, total,
           worst, worst_hdg);
    assert_true(worst <= tol_m);
    assert_true(worst_hdg <= tol_rad);
    sensim_road_network_destroy(net);
}

static void test_published_files(void **state)
{
    (void)state;
    /* the tolerances are the files' own precision (their numbers are rounded: 4.7e-6 m in ASAM's example;
     * maliput's paramPoly3 fit turns by 0.0086 rad at its joints) */
    check_file("Ex_Line-Spiral-Arc.xodr", 1e-5, 1e-9, 1, 5);               /* ASAM: lines, arcs, spirals */
    check_file("Ex_Bidirectional_Junction.xodr", 1e-8, 1e-9, 6, 18);       /* ASAM: a junction */
    check_file("Road2_20.xodr", 1e-8, 1e-9, 2, 22);                        /* RoadRunner: superelevation */
    check_file("soderleden.xodr", 1e-8, 1e-9, 5, 17);                      /* paramPoly3 in arcLength */
    check_file("ParametricCubicCurveComplexRoad.xodr", 2e-5, 1e-2, 1, 4);  /* paramPoly3 normalized */
}

/* Signals as the published file gives them (esmini's lane_offset_intersection.xodr: a stop sign, type 206,
 * and a stop line, 294, at the end of road 1, lines 66 and 67). */
static void test_published_signals(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/xodr/lane_offset_intersection.xodr", SENSIM_SOURCE_ROOT);
    sensim_road_network *net = load(path);
    assert_int_equal(sensim_road_network_signal_count(net), 2);
    sensim_road_signal g[2];
    CHECK_OK(sensim_road_network_signal(net, 0, &g[0]));
    CHECK_OK(sensim_road_network_signal(net, 1, &g[1]));
    sensim_road_info info;
    CHECK_OK(sensim_road_network_info(net, g[0].road, &info));
    assert_string_equal(info.id, "1");
    assert_true(fabs(g[0].s - info.length_m) < 1e-12); /* at the road's end, before the junction */
    assert_string_equal(g[0].id, "3");
    assert_string_equal(g[0].name, "sign_16");
    assert_string_equal(g[0].type, "206");
    assert_string_equal(g[0].subtype, "");
    assert_string_equal(g[0].country, "DE");
    assert_int_equal(g[0].line, 66);
    assert_true(fabs(g[0].s - 28.295339204595706) < 1e-12 && fabs(g[0].t + 5.7133901941696354) < 1e-12);
    assert_true(fabs(g[0].z_offset - 2.200000047683716) < 1e-12 && fabs(g[0].width - 0.6000000238418579) < 1e-12);
    assert_int_equal(g[0].orientation, -1);
    assert_int_equal(g[0].dynamic, 0);
    assert_int_equal(g[0].has_validity, 0);
    assert_true(isnan(g[0].value));
    assert_string_equal(g[1].name, "stop_line_17");
    assert_string_equal(g[1].type, "294");
    assert_string_equal(g[1].subtype, "None");
    assert_int_equal(g[1].line, 67);
    assert_true(fabs(g[1].s - 23.508931719209357) < 1e-12 && g[1].width == 3.5 && fabs(g[1].height - 0.01) < 1e-15);
    assert_int_equal(sensim_road_network_signal(net, 2, &g[0]), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_road_network_signal(NULL, 0, &g[0]), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_road_network_signal_count(NULL), 0);
    sensim_road_network_destroy(net);
}

/* the centre of lane @p id at @p s of road @p r, native frame */
static void lane_centre(const sensim_road_network *net, uint32_t r, int32_t id, double s, double xyz[3])
{
    sensim_lane_info lanes[64];
    uint32_t n;
    CHECK_OK(sensim_road_network_lanes(net, r, s, lanes, 64, &n));
    for (uint32_t i = 0; i < n && i < 64; i++)
        if (lanes[i].id == id) {
            double m[16];
            at(net, r, s, 0.5 * (lanes[i].t_inner + lanes[i].t_outer), 0, m);
            xyz[0] = m[12], xyz[1] = m[13], xyz[2] = m[14];
            return;
        }
    fail_msg("no lane %d at s %g of road %u", id, s, r);
}

/* Linked lanes meet: where a lane ends in its direction of travel, each lane the file links after it begins,
 * centre on centre (incoming roads, the connecting roads through the junction, outgoing roads); and
 * previous_lanes is the inverse of next_lanes. */
static void links_meet(const char *name, uint32_t min_links, uint32_t min_junction, double tol_m)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/xodr/%s", SENSIM_SOURCE_ROOT, name);
    sensim_road_network *net = load(path);
    uint32_t links = 0, through_junction = 0;
    double worst = 0;
    for (uint32_t r = 0; r < sensim_road_network_count(net); r++) {
        sensim_road_info info;
        CHECK_OK(sensim_road_network_info(net, r, &info));
        for (double at_s = 0;;) { /* each lane section in turn */
            sensim_lane_info lanes[64];
            uint32_t n;
            CHECK_OK(sensim_road_network_lanes(net, r, at_s, lanes, 64, &n));
            const uint32_t k = lanes[0].section;
            for (uint32_t i = 0; i < n; i++) {
                const int32_t id = lanes[i].id;
                if (id == 0)
                    continue;
                sensim_lane_ref next[16];
                uint32_t nn;
                CHECK_OK(sensim_road_network_next_lanes(net, r, k, id, next, 16, &nn));
                const double end = id < 0 ? lanes[i].section_s1 : lanes[i].section_s0;
                double a[3];
                lane_centre(net, r, id, end, a);
                for (uint32_t j = 0; j < nn; j++) {
                    double b[3];
                    lane_centre(net, next[j].road, next[j].lane, next[j].s, b);
                    worst = fmax(worst, sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                                             (a[2] - b[2]) * (a[2] - b[2])));
                    sensim_road_info to;
                    CHECK_OK(sensim_road_network_info(net, next[j].road, &to));
                    through_junction += strcmp(to.junction, "-1") != 0;
                    links++;
                    sensim_lane_ref prev[16];
                    uint32_t np, found = 0;
                    CHECK_OK(sensim_road_network_previous_lanes(net, next[j].road, next[j].section, next[j].lane,
                                                                prev, 16, &np));
                    for (uint32_t q = 0; q < np; q++)
                        found += prev[q].road == r && prev[q].lane == id && prev[q].section == k;
                    assert_int_equal(found, 1);
                }
            }
            if (lanes[0].section_s1 >= info.length_m)
                break;
            at_s = lanes[0].section_s1;
        }
    }
    printf("%s: %u lane links (%u into junction roads): the lanes meet within %.3g m\n", name, links,
           through_junction, worst);
    assert_true(links >= min_links);
    assert_true(through_junction >= min_junction);
    assert_true(worst <= tol_m);
    sensim_lane_ref r1;
    uint32_t n1;
    assert_int_equal(sensim_road_network_next_lanes(net, 0, 0, 99, &r1, 1, &n1), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_road_network_destroy(net);
}

/* rule="LHT": positive lanes travel with s; a successor entered at its end (contactPoint="end") is travelled
 * against its s */
static void test_left_hand_traffic_and_contact_points(void **state)
{
    (void)state;
#define LANES_LR                                                                                                  \
    "<lanes><laneSection s=\"0\"><left><lane id=\"1\" type=\"driving\"><link><successor id=\"1\"/></link>"          \
    "<width sOffset=\"0\" a=\"3\"/></lane></left><center><lane id=\"0\"/></center><right><lane id=\"-1\" "           \
    "type=\"driving\"><width sOffset=\"0\" a=\"3\"/></lane></right></laneSection></lanes>"
    sensim_road_network *net = load(xodr(
        "<road rule=\"LHT\" id=\"a\" length=\"10\" junction=\"-1\"><link><successor elementType=\"road\" elementId=\"b\" "
        "contactPoint=\"start\"/></link><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"10\"><line/>"
        "</geometry></planView>" LANES_LR "</road>"
        "<road rule=\"LHT\" id=\"b\" length=\"10\" junction=\"-1\"><planView><geometry s=\"0\" x=\"10\" y=\"0\" "
        "hdg=\"0\" length=\"10\"><line/></geometry></planView>" LANES_LR "</road>"
        "<road id=\"c\" length=\"10\" junction=\"-1\"><link><successor elementType=\"road\" elementId=\"d\" "
        "contactPoint=\"end\"/></link><planView><geometry s=\"0\" x=\"0\" y=\"50\" hdg=\"0\" length=\"10\"><line/>"
        "</geometry></planView>" LANES_LR "</road>"
        "<road id=\"d\" length=\"10\" junction=\"-1\"><planView><geometry s=\"0\" x=\"20\" y=\"50\" hdg=\"3.141592653589793\" "
        "length=\"10\"><line/></geometry></planView>" LANES_LR "</road>"));
    sensim_lane_ref next[4];
    uint32_t n;
    CHECK_OK(sensim_road_network_next_lanes(net, 0, 0, 1, next, 4, &n)); /* a's lane 1 travels with s in LHT */
    assert_int_equal(n, 1);
    assert_int_equal(next[0].road, 1);
    assert_int_equal(next[0].lane, 1);
    assert_double_close(next[0].s, 0, 0);
    CHECK_OK(sensim_road_network_next_lanes(net, 0, 0, -1, next, 4, &n)); /* lane -1 travels against s: */
    assert_int_equal(n, 0);                                               /* a has no predecessor */
    /* c's lane -1 (RHT, with s) ends where d ends: d is entered at its end, on its lane 1 (against d's s) */
    CHECK_OK(sensim_road_network_next_lanes(net, 2, 0, -1, next, 4, &n));
    assert_int_equal(n, 1);
    assert_int_equal(next[0].road, 3);
    assert_int_equal(next[0].lane, 1);
    assert_double_close(next[0].s, 10, 0);
    double a[3], b[3];
    lane_centre(net, 2, -1, 10, a);
    lane_centre(net, 3, 1, 10, b);
    assert_double_close(a[0], b[0], 1e-12); /* the two lanes meet */
    assert_double_close(a[1], b[1], 1e-12);
    sensim_road_network_destroy(net);
}

static void test_lane_links_meet(void **state)
{
    (void)state;
    /* esmini's intersection: 4 roads into a junction of 6 connecting roads, one laneLink each (right-hand
     * traffic: a lane travels with s when its id is negative). ASAM's bidirectional example: its one-lane roads
     * carry both directions, which lane ids cannot say; the links it has still meet. */
    links_meet("lane_offset_intersection.xodr", 12, 6, 1e-5); /* its numbers meet to 5.9e-6 m */
    links_meet("Ex_Bidirectional_Junction.xodr", 4, 2, 1e-8);
}

/* The drivable scene: rays cast straight down land on the lane surface (Roads), the raised sidewalk
 * (SideWalks), a solid marking at a lane's outer edge (RoadLine), and the ground beyond the roads (Terrain),
 * each at the height the road's profile gives. */
static void test_scene_from_the_network(void **state)
{
    (void)state;
    const char *road =
        "<road id=\"9\" length=\"60\" junction=\"-1\">"
        "<planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0.5\" length=\"60\"><arc curvature=\"0.01\"/></geometry>"
        "</planView><elevationProfile><elevation s=\"0\" a=\"2\" b=\"0.02\" c=\"0\" d=\"0\"/></elevationProfile>"
        "<lanes><laneSection s=\"0\"><center><lane id=\"0\"><roadMark sOffset=\"0\" type=\"broken\"/></lane></center>"
        "<right><lane id=\"-1\" type=\"driving\"><width sOffset=\"0\" a=\"3.5\"/>"
        "<roadMark sOffset=\"0\" type=\"solid\"/></lane>"
        "<lane id=\"-2\" type=\"sidewalk\"><width sOffset=\"0\" a=\"2\"/></lane></right></laneSection></lanes></road>";
    sensim_road_network *net = load(xodr(road));
    sensim_context *ctx;
    sensim_context_desc cd;
    sensim_context_desc_init(&cd);
    cd.thread_count = 1;
    CHECK_OK(sensim_context_create(&cd, &ctx));
    sensim_scene *scene;
    CHECK_OK(sensim_scene_create(ctx, &scene));
    sensim_road_mesh_info info;
    CHECK_OK(sensim_scene_add_road_network(scene, net, NULL, &info));
    CHECK_OK(sensim_scene_commit(scene));
    assert_true(info.road_triangles > 0 && info.sidewalk_triangles > 0 && info.marking_triangles > 0);
    assert_int_equal(info.ground_triangles, 2);
    assert_int_equal(info.triangles, info.road_triangles + info.sidewalk_triangles + info.marking_triangles + 2);
    /* (s, t, expected tag, expected height above the reference surface) */
    const struct {
        double s, t, h;
        uint8_t tag;
    } probes[] = {
        {20.3, -1.75, 0.0, 1},     /* the driving lane's middle */
        {20.3, -4.5, 0.15, 2},     /* the sidewalk, raised */
        {20.3, -3.425, 0.005, 24}, /* the solid line along the lane's outer edge, inside the lane */
        {1.5, 0.05, 0.005, 24},    /* the broken centre line (0.15 m wide): a dash (s in [0, 3)) */
        {4.5, 0.05, 0.0, 0},       /* ... and its gap: nothing there (the left side has no lane) */
    };
    for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
        double m[16];
        at(net, 0, probes[i].s, probes[i].t, probes[i].h, m);
        const float o[3] = {(float)m[12], (float)m[13], (float)(m[14] + 10)}, dir[3] = {0, 0, -1};
        sensim_ray_batch b;
        memset(&b, 0, sizeof b);
        b.count = 1, b.origins = o, b.directions = dir;
        sensim_ray_hit hit;
        CHECK_OK(sensim_scene_intersect(scene, &b, &hit));
        if (probes[i].tag == 0) { /* the gap: the ray goes on to the ground, 5 cm below the lowest road point */
            assert_int_equal(hit.tag, 10);
            assert_double_close(o[2] - hit.distance, 2.0 - 0.05, 1e-3);
            continue;
        }
        assert_int_equal(hit.tag, probes[i].tag);
        assert_double_close(o[2] - hit.distance, m[14], 2e-3); /* float vertices, 1 m rows on an arc */
    }
    sensim_road_mesh_options opt;
    sensim_road_mesh_options_init(&opt);
    opt.step_m = 0;
    assert_int_equal(sensim_scene_add_road_network(scene, net, &opt, &info), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    sensim_road_network_destroy(net);
}

static void refused(const char *text, sensim_status want, const char *needle)
{
    sensim_road_network *net = (sensim_road_network *)1;
    sensim_status st = sensim_road_network_load(NULL, xodr(text), 0, &net);
    if (st != want || !strstr(sensim_context_last_error(NULL), needle))
        fail_msg("want %s with \"%s\", got %s: %s", sensim_status_string(want), needle, sensim_status_string(st),
                 sensim_context_last_error(NULL));
    assert_null(net);
}

static void test_hostile_files(void **state)
{
    (void)state;
    refused("<road id=\"1\" junction=\"-1\"><planView/></road>", SENSIM_ERR_PARSE, ":4: <road> length: missing");
    refused("<road id=\"1\" length=\"ten\" junction=\"-1\"/>", SENSIM_ERR_PARSE, "<road> length: not a number");
    refused("<road id=\"1\" length=\"nan\" junction=\"-1\"/>", SENSIM_ERR_PARSE, "<road> length: not ");
    refused("<road id=\"1\" length=\"5\"><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"5\">"
            "<clothoid/></geometry></planView>" LANES_1 "</road>", SENSIM_ERR_PARSE, "<clothoid> not a geometry");
    refused("<road id=\"1\" length=\"5\"><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"5\"><line/>"
            "</geometry></planView><lanes><laneSection s=\"0\"><center><lane id=\"0\"/></center><right>"
            "<lane id=\"-1\"><border sOffset=\"0\" a=\"3\"/></lane></right></laneSection></lanes></road>",
            SENSIM_ERR_PARSE, "<border>");
    refused("<road id=\"1\" length=\"5\"><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"5\"><line/>"
            "</geometry></planView>" LANES_1 "</road><road id=\"1\" length=\"5\"><planView><geometry s=\"0\" x=\"0\" "
            "y=\"0\" hdg=\"0\" length=\"5\"><line/></geometry></planView>" LANES_1 "</road>",
            SENSIM_ERR_PARSE, "is also the id of the road at line 4");
    refused("<road id=\"1\" length=\"5\"><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"5\"><line/>"
            "</geometry></planView><lanes><laneSection s=\"0\"><center><lane id=\"0\"/></center><right>"
            "<lane id=\"1\"><width sOffset=\"0\" a=\"3\"/></lane></right></laneSection></lanes></road>",
            SENSIM_ERR_PARSE, "a right lane's id must be negative");
    refused("<road id=\"1\" length=\"5\"><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"5\"><line/>"
            "</geometry></planView>" LANES_1 "<signals><signal id=\"7\" s=\"1\" t=\"2\" dynamic=\"yes\">"
            "<validity fromLane=\"-1\" toLane=\"0.5\"/></signal></signals></road>",
            SENSIM_ERR_PARSE, "<validity> fromLane/toLane: not lane ids");
    refused("<road id=\"1\" length=\"5\"></OpenDRIVE>", SENSIM_ERR_PARSE, ":4:27: mismatched tag"); /* line, column */
    refused("", SENSIM_ERR_PARSE, "no <road>");
    /* past the tables' budget (8.4 M entries of 0.5 m): refused before anything is computed */
    refused("<road id=\"1\" length=\"1e7\"><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"1e7\">"
            "<spiral curvStart=\"0\" curvEnd=\"0.001\"/></geometry></planView>" LANES_1 "</road>",
            SENSIM_ERR_TOO_LARGE, "the road network is too long");
    /* nesting deeper than the helper's limit */
    static char deep[300 * 7 + 300 * 8 + 64];
    size_t k = 0;
    for (int i = 0; i < 300; i++)
        k += (size_t)sprintf(deep + k, "<a>");
    for (int i = 0; i < 300; i++)
        k += (size_t)sprintf(deep + k, "</a>");
    refused(deep, SENSIM_ERR_TOO_LARGE, "nested deeper than 256");
    /* an entity bomb: expat's amplification guard stops it in the helper */
    FILE *f = fopen(tmp_path, "w");
    assert_non_null(f);
    fprintf(f, "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY a \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\">");
    for (int i = 1; i < 12; i++)
        fprintf(f, "<!ENTITY %c \"&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;\">", 'a' + i, 'a' + i - 1, 'a' + i - 1,
                'a' + i - 1, 'a' + i - 1, 'a' + i - 1, 'a' + i - 1, 'a' + i - 1, 'a' + i - 1, 'a' + i - 1,
                'a' + i - 1);
    fprintf(f, "]><OpenDRIVE><header name=\"&l;\"/></OpenDRIVE>\n");
    fclose(f);
    sensim_road_network *net = NULL;
    sensim_status st = sensim_road_network_load(NULL, tmp_path, 0, &net);
    assert_true(st == SENSIM_ERR_PARSE || st == SENSIM_ERR_TOO_LARGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), tmp_path));
    assert_null(net);
    /* not a file, too large, missing */
    assert_int_equal(sensim_road_network_load(NULL, "/tmp", 0, &net), SENSIM_ERR_IO);
    xodr(LANES_1);
    assert_int_equal(sensim_road_network_load(NULL, tmp_path, 16, &net), SENSIM_ERR_TOO_LARGE);
    assert_int_equal(sensim_road_network_load(NULL, "/nonexistent/x.xodr", 0, &net), SENSIM_ERR_IO);
    assert_int_equal(sensim_road_network_load(NULL, NULL, 0, &net), SENSIM_ERR_INVALID_ARGUMENT);
    unlink(tmp_path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_and_arc),
        cmocka_unit_test(test_spiral_is_a_clothoid),
        cmocka_unit_test(test_poly3_and_parampoly3),
        cmocka_unit_test(test_lanes_offsets_elevation_superelevation),
        cmocka_unit_test(test_published_files),
        cmocka_unit_test(test_published_signals),
        cmocka_unit_test(test_lane_links_meet),
        cmocka_unit_test(test_left_hand_traffic_and_contact_points),
        cmocka_unit_test(test_scene_from_the_network),
        cmocka_unit_test(test_hostile_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
