/* A drivable scene from a road network (sensim_scene_add_road_network):
 * lane surfaces tagged by lane type, markings, a flat ground. */
#include "odr_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TAG_ROADS 1
#define TAG_SIDEWALKS 2
#define TAG_TERRAIN 10
#define TAG_ROADLINE 24
#define MAX_TRIANGLES (1u << 30)
#define DASH_ON 3.0
#define DASH_PERIOD 9.0

typedef struct mesh {
    float *v;
    uint32_t *idx;
    uint8_t *tag;
    uint64_t nv, nt, cv, ct;
    int oom;
} mesh;

static uint32_t vert(mesh *m, const double p[3])
{
    if (m->nv == m->cv) {
        uint64_t c = m->cv ? 2 * m->cv : 4096;
        float *q = realloc(m->v, c * 3 * sizeof *q);
        if (!q) {
            m->oom = 1;
            return 0;
        }
        m->v = q, m->cv = c;
    }
    m->v[3 * m->nv] = (float)p[0], m->v[3 * m->nv + 1] = (float)p[1], m->v[3 * m->nv + 2] = (float)p[2];
    return (uint32_t)m->nv++;
}

/* a quad a, b, c, d (a-b one row, c-d the next, b and d outward) as two triangles facing up */
static void quad(mesh *m, const double a[3], const double b[3], const double c[3], const double d[3], uint8_t tag)
{
    if (m->oom || m->nt + 2 > MAX_TRIANGLES) {
        m->oom = m->oom ? m->oom : 2;
        return;
    }
    if (m->nt + 2 > m->ct) {
        uint64_t c2 = m->ct ? 2 * m->ct : 8192;
        uint32_t *qi = realloc(m->idx, c2 * 3 * sizeof *qi);
        if (qi)
            m->idx = qi;
        uint8_t *qt = qi ? realloc(m->tag, c2) : NULL;
        if (!qi || !qt) {
            m->oom = 1;
            return;
        }
        m->tag = qt, m->ct = c2;
    }
    /* the normal's up component of (b - a) x (c - a) decides the winding */
    const double up = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    const uint32_t ia = vert(m, a), ib = vert(m, b), ic = vert(m, c), id = vert(m, d);
    if (m->oom)
        return;
    const uint32_t t1[3] = {ia, up >= 0 ? ib : ic, up >= 0 ? ic : ib};
    const uint32_t t2[3] = {ib, up >= 0 ? id : ic, up >= 0 ? ic : id};
    memcpy(&m->idx[3 * m->nt], t1, sizeof t1), m->tag[m->nt++] = tag;
    memcpy(&m->idx[3 * m->nt], t2, sizeof t2), m->tag[m->nt++] = tag;
}

static void point(const odr_road *r, double s, double t, double h, double p[3])
{
    double x, y, hdg;
    sensim__odr_ref(r, s, &x, &y, &hdg);
    const double z = sensim__odr_poly_at(r->elev, r->nelev, s), roll = sensim__odr_poly_at(r->superelev, r->nsuper, s);
    const double pitch = atan(sensim__odr_poly_slope(r->elev, r->nelev, s));
    const double ch = cos(hdg), sh = sin(hdg), cp = cos(pitch), sp = sin(pitch), cr = cos(roll), sr = sin(roll);
    const double L0[3] = {-sh, ch, 0}, U0[3] = {-sp * ch, -sp * sh, cp};
    for (int i = 0; i < 3; i++) {
        const double L = cr * L0[i] + sr * U0[i], U = -sr * L0[i] + cr * U0[i];
        p[i] = (i == 0 ? x : i == 1 ? y : z) + t * L + h * U;
    }
}

static int marked(uint32_t type)
{
    return type >= SENSIM_MARK_BROKEN && type <= SENSIM_MARK_BOTTS_DOTS;
}

static int broken(uint32_t type) { return type == SENSIM_MARK_BROKEN || type == SENSIM_MARK_BROKEN_BROKEN || type == SENSIM_MARK_BOTTS_DOTS; }

/* one row pair [s0, s1] of section k of road r */
static void rows(mesh *m, const odr_road *r, uint32_t k, double s0, double s1, double *ta, double *tb,
                 const sensim_road_mesh_options *o, sensim_road_mesh_info *info)
{
    const odr_section *sec = &r->sec[k];
    const uint32_t n = sec->nlane;
    sensim__odr_lane_bounds(r, k, s0, ta, ta + n);
    sensim__odr_lane_bounds(r, k, s1, tb, tb + n);
    for (uint32_t l = 0; l < n; l++) {
        const odr_lane *ln = &sec->lane[l];
        if (ln->id == 0 || ln->type == SENSIM_LANE_NONE)
            continue;
        if (fabs(ta[n + l] - ta[l]) < 1e-3 && fabs(tb[n + l] - tb[l]) < 1e-3)
            continue; /* no width here */
        const int walk = ln->type == SENSIM_LANE_SIDEWALK;
        const double h = walk ? o->sidewalk_height_m : 0.0;
        double a[3], b[3], c[3], d[3];
        point(r, s0, ta[l], h, a), point(r, s0, ta[n + l], h, b), point(r, s1, tb[l], h, c);
        point(r, s1, tb[n + l], h, d);
        quad(m, a, b, c, d, walk ? TAG_SIDEWALKS : TAG_ROADS);
        info->sidewalk_triangles += walk ? 2 : 0, info->road_triangles += walk ? 0 : 2;
    }
    /* markings at each lane's outer edge (the centre lane's at its own line) */
    const double w = 0.5 * o->marking_width_m;
    for (uint32_t l = 0; l < n; l++) {
        const odr_lane *ln = &sec->lane[l];
        if (!marked(ln->mark_type))
            continue;
        const double mid = 0.5 * (s0 + s1);
        if (broken(ln->mark_type) && fmod(mid, DASH_PERIOD) >= DASH_ON)
            continue;
        double a[3], b[3], c[3], d[3];
        const double h = ln->type == SENSIM_LANE_SIDEWALK ? o->sidewalk_height_m + 0.005 : 0.005;
        /* inside the lane, along its outer edge (a raised neighbour would hide what reached over); the centre
         * lane's line is centred on it */
        const double ia = ln->id == 0 ? -w : ta[n + l] > ta[l] ? -2 * w : 0, ib = ia + 2 * w;
        const double ic = ln->id == 0 ? -w : tb[n + l] > tb[l] ? -2 * w : 0, id = ic + 2 * w;
        point(r, s0, ta[n + l] + ia, h, a), point(r, s0, ta[n + l] + ib, h, b);
        point(r, s1, tb[n + l] + ic, h, c), point(r, s1, tb[n + l] + id, h, d);
        quad(m, a, b, c, d, TAG_ROADLINE);
        info->marking_triangles += 2;
    }
}

SENSIM_API void sensim_road_mesh_options_init(sensim_road_mesh_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->step_m = 1.0, opt->ground_margin_m = 50.0, opt->sidewalk_height_m = 0.15, opt->marking_width_m = 0.15;
}

SENSIM_API sensim_status sensim_scene_add_road_network(sensim_scene *scene, const sensim_road_network *net,
                                                       const sensim_road_mesh_options *opt,
                                                       sensim_road_mesh_info *out_info)
{
    sensim_road_mesh_options o;
    sensim_road_mesh_options_init(&o);
    if (opt)
        o = *opt;
    if (!scene || !net)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_add_road_network: %s is NULL",
                            scene ? "net" : "scene");
    if (!(o.step_m >= 0.05 && o.step_m <= 100) || !isfinite(o.ground_margin_m) || !(o.sidewalk_height_m >= 0 &&
        o.sidewalk_height_m <= 10) || !(o.marking_width_m > 0 && o.marking_width_m <= 2))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_add_road_network: step_m %g (0.05 .. 100), "
                            "sidewalk_height_m %g (0 .. 10) or marking_width_m %g (0 .. 2] out of range, or "
                            "ground_margin_m not finite", o.step_m, o.sidewalk_height_m, o.marking_width_m);
    sensim_road_mesh_info info;
    memset(&info, 0, sizeof info);
    mesh m;
    memset(&m, 0, sizeof m);
    uint32_t maxlanes = 1;
    double zmin = INFINITY, box[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < net->nroad; i++)
        for (uint32_t k = 0; k < net->road[i].nsec; k++)
            maxlanes = net->road[i].sec[k].nlane > maxlanes ? net->road[i].sec[k].nlane : maxlanes;
    double *ta = malloc(4 * (size_t)maxlanes * sizeof *ta);
    if (!ta)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_scene_add_road_network: out of memory");
    double *tb = ta + 2 * (size_t)maxlanes;
    for (uint32_t i = 0; i < net->nroad && !m.oom; i++) {
        const odr_road *r = &net->road[i];
        for (int e = 0; e < 4; e++)
            box[e] = e < 2 ? fmin(box[e], r->box[e]) : fmax(box[e], r->box[e]);
        for (uint32_t k = 0; k < r->nsec && !m.oom; k++) {
            const double a = r->sec[k].s0, b = fmin(r->sec[k].s1, r->length);
            if (!(b > a))
                continue;
            /* rows every step, and at the dash ends so that a broken line's dashes start and stop exactly */
            double s = a;
            while (s < b && !m.oom) {
                double next = fmin(b, s + o.step_m);
                const double ph = fmod(s, DASH_PERIOD);
                const double edge = s - ph + (ph < DASH_ON ? DASH_ON : DASH_PERIOD);
                if (edge > s + 1e-9 && edge < next)
                    next = edge;
                rows(&m, r, k, s, next, ta, tb, &o, &info);
                zmin = fmin(zmin, sensim__odr_poly_at(r->elev, r->nelev, s));
                s = next;
            }
        }
    }
    free(ta);
    if (!m.oom && o.ground_margin_m >= 0 && isfinite(box[0]) && isfinite(zmin)) {
        const double g = o.ground_margin_m, z = zmin - 0.05;
        const double a[3] = {box[0] - g, box[1] - g, z}, b[3] = {box[2] + g, box[1] - g, z};
        const double c[3] = {box[0] - g, box[3] + g, z}, d[3] = {box[2] + g, box[3] + g, z};
        quad(&m, a, b, c, d, TAG_TERRAIN);
        info.ground_triangles = 2;
    }
    sensim_status st = SENSIM_OK;
    if (m.oom == 2)
        st = sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_scene_add_road_network: %s: more than 2^30 triangles (a larger "
                          "step_m makes fewer)", net->path);
    else if (m.oom)
        st = sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_scene_add_road_network: out of memory");
    else if (!m.nt)
        st = sensim__fail(SENSIM_ERR_EMPTY, "sensim_scene_add_road_network: %s: no lane with a width", net->path);
    else {
        sensim_mesh_desc d;
        sensim_mesh_desc_init(&d);
        d.vertices = m.v, d.vertex_count = (uint32_t)m.nv, d.indices = m.idx, d.triangle_count = (uint32_t)m.nt;
        d.triangle_tags = m.tag;
        st = m.nv > UINT32_MAX ? sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_scene_add_road_network: too many vertices")
                               : sensim_scene_add_mesh(scene, &d, &info.mesh_id);
    }
    info.triangles = m.nt;
    free(m.v), free(m.idx), free(m.tag);
    if (st == SENSIM_OK && out_info)
        *out_info = info;
    return st;
}
