/* OpenDRIVE files into a road network: the XML through the helper
 * (xml_read.c), then every element this library uses checked and copied.
 * A missing or malformed attribute names the file, the line and the
 * attribute; nothing is half loaded. */
#include "odr_impl.h"
#include "parse.h"
#include "xml.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROADS (1u << 20)
#define MAX_PER_ROAD (1u << 16)

typedef struct bld {
    const char *path;
    const sensim__xml *x;
    sensim_road_network *net;
} bld;

static sensim_status oom(const bld *b) { return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", b->path); }

static sensim_status bad(const bld *b, uint32_t n, const char *attr, const char *why)
{
    const sensim__xml_node *nd = &b->x->node[n];
    return sensim__fail(SENSIM_ERR_PARSE, "%s:%u: <%s> %s%s%s", b->path, nd->line, nd->name, attr ? attr : "",
                        attr ? ": " : "", why);
}

/* a number attribute: required (@p def NULL) or defaulted */
static sensim_status num(const bld *b, uint32_t n, const char *key, const double *def, double *out)
{
    const char *v = sensim__xml_attr(&b->x->node[n], key);
    if (!v) {
        if (def) {
            *out = *def;
            return SENSIM_OK;
        }
        return bad(b, n, key, "missing");
    }
    const char *p = v, *end = v + strlen(v);
    p = sensim__skip_space(p, end);
    double d;
    if (!sensim__parse_double(&p, end, &d) || sensim__skip_space(p, end) != end)
        return bad(b, n, key, "not a number");
    if (!isfinite(d))
        return bad(b, n, key, "not finite");
    *out = d;
    return SENSIM_OK;
}

static const double ZERO = 0.0;

static sensim_status str(const bld *b, uint32_t n, const char *key, const char *def, char **out)
{
    const char *v = sensim__xml_attr(&b->x->node[n], key);
    if (!v && !def)
        return bad(b, n, key, "missing");
    *out = strdup(v ? v : def);
    return *out ? SENSIM_OK : oom(b);
}

static uint32_t count_children(const sensim__xml *x, uint32_t at, const char *name)
{
    uint32_t k = 0;
    if (at == SENSIM_XML_NONE)
        return 0;
    for (uint32_t c = sensim__xml_child(x, at, name, SENSIM_XML_NONE); c != SENSIM_XML_NONE;
         c = sensim__xml_child(x, at, name, c))
        k++;
    return k;
}

#define EACH(x, at, name, c)                                                                                  \
    for (uint32_t c = (at) == SENSIM_XML_NONE ? SENSIM_XML_NONE : sensim__xml_child(x, at, name, SENSIM_XML_NONE); \
         c != SENSIM_XML_NONE; c = sensim__xml_child(x, at, name, c))

/* the cubic records named @p name under @p at, their start in @p s_key */
static sensim_status polys(const bld *b, uint32_t at, const char *name, const char *s_key, odr_poly **out,
                           uint32_t *count)
{
    uint32_t n = count_children(b->x, at, name), k = 0;
    *out = NULL, *count = 0;
    if (!n)
        return SENSIM_OK;
    if (n > MAX_PER_ROAD)
        return bad(b, at, NULL, "too many records (at most 65536 a road)");
    if (!(*out = calloc(n, sizeof **out)))
        return oom(b);
    sensim_status st = SENSIM_OK;
    EACH(b->x, at, name, c) {
        odr_poly *p = &(*out)[k++];
        if ((st = num(b, c, s_key, NULL, &p->s0)) || (st = num(b, c, "a", &ZERO, &p->a)) ||
            (st = num(b, c, "b", &ZERO, &p->b)) || (st = num(b, c, "c", &ZERO, &p->c)) ||
            (st = num(b, c, "d", &ZERO, &p->d)))
            return st;
        if (k > 1 && p->s0 < p[-1].s0)
            return bad(b, c, s_key, "before the previous record's");
    }
    *count = n;
    return SENSIM_OK;
}

static const struct {
    const char *name;
    uint32_t type;
} LANE_TYPES[] = {
    {"none", SENSIM_LANE_NONE}, {"driving", SENSIM_LANE_DRIVING}, {"stop", SENSIM_LANE_STOP},
    {"shoulder", SENSIM_LANE_SHOULDER}, {"biking", SENSIM_LANE_BIKING}, {"sidewalk", SENSIM_LANE_SIDEWALK},
    {"walking", SENSIM_LANE_SIDEWALK}, {"border", SENSIM_LANE_BORDER}, {"restricted", SENSIM_LANE_RESTRICTED},
    {"parking", SENSIM_LANE_PARKING}, {"bidirectional", SENSIM_LANE_BIDIRECTIONAL},
    {"median", SENSIM_LANE_MEDIAN}, {"special1", SENSIM_LANE_SPECIAL1}, {"special2", SENSIM_LANE_SPECIAL2},
    {"special3", SENSIM_LANE_SPECIAL3}, {"roadWorks", SENSIM_LANE_ROADWORKS}, {"tram", SENSIM_LANE_TRAM},
    {"rail", SENSIM_LANE_RAIL}, {"entry", SENSIM_LANE_ENTRY}, {"exit", SENSIM_LANE_EXIT},
    {"offRamp", SENSIM_LANE_OFFRAMP}, {"onRamp", SENSIM_LANE_ONRAMP},
    {"connectingRamp", SENSIM_LANE_ONRAMP}, {"curb", SENSIM_LANE_BORDER},
};

static const struct {
    const char *name;
    uint32_t type;
} MARK_TYPES[] = {
    {"none", SENSIM_MARK_NONE}, {"solid", SENSIM_MARK_SOLID}, {"broken", SENSIM_MARK_BROKEN},
    {"solid solid", SENSIM_MARK_SOLID_SOLID}, {"solid broken", SENSIM_MARK_SOLID_BROKEN},
    {"broken solid", SENSIM_MARK_BROKEN_SOLID}, {"broken broken", SENSIM_MARK_BROKEN_BROKEN},
    {"botts dots", SENSIM_MARK_BOTTS_DOTS}, {"grass", SENSIM_MARK_GRASS}, {"curb", SENSIM_MARK_CURB},
};

static const struct {
    const char *name;
    uint32_t color;
} MARK_COLORS[] = {
    {"standard", SENSIM_MARK_COLOR_STANDARD}, {"white", SENSIM_MARK_COLOR_STANDARD},
    {"blue", SENSIM_MARK_COLOR_BLUE}, {"green", SENSIM_MARK_COLOR_GREEN}, {"red", SENSIM_MARK_COLOR_RED},
    {"yellow", SENSIM_MARK_COLOR_YELLOW},
};

static sensim_status lane(const bld *b, uint32_t n, odr_lane *l)
{
    double id;
    sensim_status st = num(b, n, "id", NULL, &id);
    if (st)
        return st;
    if (id != floor(id) || fabs(id) > 1000)
        return bad(b, n, "id", "not a lane id (an integer, |id| <= 1000)");
    l->id = (int32_t)id;
    const char *t = sensim__xml_attr(&b->x->node[n], "type");
    l->type = SENSIM_LANE_NONE;
    if (t) {
        size_t k = 0;
        while (k < sizeof LANE_TYPES / sizeof *LANE_TYPES && strcmp(LANE_TYPES[k].name, t))
            k++;
        l->type = k < sizeof LANE_TYPES / sizeof *LANE_TYPES ? LANE_TYPES[k].type : SENSIM_LANE_NONE;
    }
    const char *lv = sensim__xml_attr(&b->x->node[n], "level");
    l->level = lv && (!strcmp(lv, "true") || !strcmp(lv, "1"));
    if (sensim__xml_child(b->x, n, "border", SENSIM_XML_NONE) != SENSIM_XML_NONE)
        return bad(b, n, NULL, "lanes given by <border> are not supported (use <width>)");
    if ((st = polys(b, n, "width", "sOffset", &l->width, &l->nwidth)))
        return st;
    if (l->id != 0 && !l->nwidth)
        return bad(b, n, NULL, "a lane without <width>");
    l->mark_type = SENSIM_MARK_NONE, l->mark_color = SENSIM_MARK_COLOR_STANDARD;
    uint32_t m = sensim__xml_child(b->x, n, "roadMark", SENSIM_XML_NONE);
    if (m != SENSIM_XML_NONE) {
        const char *mt = sensim__xml_attr(&b->x->node[m], "type"), *mc = sensim__xml_attr(&b->x->node[m], "color");
        l->mark_type = SENSIM_MARK_OTHER;
        for (size_t k = 0; mt && k < sizeof MARK_TYPES / sizeof *MARK_TYPES; k++)
            if (!strcmp(MARK_TYPES[k].name, mt))
                l->mark_type = MARK_TYPES[k].type;
        l->mark_color = mc ? SENSIM_MARK_COLOR_OTHER : SENSIM_MARK_COLOR_STANDARD;
        for (size_t k = 0; mc && k < sizeof MARK_COLORS / sizeof *MARK_COLORS; k++)
            if (!strcmp(MARK_COLORS[k].name, mc))
                l->mark_color = MARK_COLORS[k].color;
    }
    uint32_t link = sensim__xml_child(b->x, n, "link", SENSIM_XML_NONE);
    if (link != SENSIM_XML_NONE) {
        uint32_t p = sensim__xml_child(b->x, link, "predecessor", SENSIM_XML_NONE);
        uint32_t s = sensim__xml_child(b->x, link, "successor", SENSIM_XML_NONE);
        double v;
        if (p != SENSIM_XML_NONE) {
            if ((st = num(b, p, "id", NULL, &v)))
                return st;
            l->has_pred = 1, l->pred = (int32_t)v;
        }
        if (s != SENSIM_XML_NONE) {
            if ((st = num(b, s, "id", NULL, &v)))
                return st;
            l->has_succ = 1, l->succ = (int32_t)v;
        }
    }
    return SENSIM_OK;
}

static sensim_status section(const bld *b, uint32_t n, odr_section *sec)
{
    sensim_status st = num(b, n, "s", NULL, &sec->s0);
    if (st)
        return st;
    const char *ss = sensim__xml_attr(&b->x->node[n], "singleSide");
    sec->single_side = ss && !strcmp(ss, "true");
    static const char *const SIDES[] = {"left", "center", "right"};
    uint32_t total = 0;
    for (int side = 0; side < 3; side++)
        total += count_children(b->x, sensim__xml_child(b->x, n, SIDES[side], SENSIM_XML_NONE), "lane");
    if (total > MAX_PER_ROAD)
        return bad(b, n, NULL, "too many lanes");
    if (!total || !(sec->lane = calloc(total, sizeof *sec->lane)))
        return total ? oom(b) : bad(b, n, NULL, "a lane section without lanes");
    uint32_t k = 0;
    int have_center = 0;
    for (int side = 0; side < 3; side++) {
        uint32_t g = sensim__xml_child(b->x, n, SIDES[side], SENSIM_XML_NONE);
        uint32_t first = k;
        EACH(b->x, g, "lane", c) {
            if ((st = lane(b, c, &sec->lane[k])))
                return sec->nlane = k + 1, st;
            const int32_t id = sec->lane[k].id;
            if ((side == 0 && id <= 0) || (side == 1 && id != 0) || (side == 2 && id >= 0))
                return sec->nlane = k + 1, bad(b, c, "id", side == 0 ? "a left lane's id must be positive"
                                                        : side == 1 ? "the center lane's id must be 0"
                                                                    : "a right lane's id must be negative");
            have_center |= side == 1;
            k++;
        }
        /* order: left lanes outermost first (descending ids), right lanes from the centre out (descending) */
        for (uint32_t i = first + 1; i < k; i++)
            for (uint32_t j = i; j > first && sec->lane[j - 1].id < sec->lane[j].id; j--) {
                odr_lane t = sec->lane[j];
                sec->lane[j] = sec->lane[j - 1], sec->lane[j - 1] = t;
            }
    }
    sec->nlane = k;
    if (!have_center)
        return bad(b, n, NULL, "a lane section without its center lane");
    for (uint32_t i = 1; i < k; i++)
        if (sec->lane[i].id == sec->lane[i - 1].id)
            return bad(b, n, NULL, "two lanes with one id");
    return SENSIM_OK;
}

static sensim_status geometry(const bld *b, uint32_t n, odr_geom *g)
{
    sensim_status st;
    if ((st = num(b, n, "s", NULL, &g->s0)) || (st = num(b, n, "x", NULL, &g->x)) ||
        (st = num(b, n, "y", NULL, &g->y)) || (st = num(b, n, "hdg", NULL, &g->hdg)) ||
        (st = num(b, n, "length", NULL, &g->length)))
        return st;
    if (g->length < 0)
        return bad(b, n, "length", "negative");
    uint32_t c = b->x->node[n].first_child;
    if (c == SENSIM_XML_NONE)
        return bad(b, n, NULL, "a geometry without its shape (<line>, <arc>, ...)");
    const char *kind = b->x->node[c].name;
    if (!strcmp(kind, "line"))
        g->type = ODR_LINE;
    else if (!strcmp(kind, "arc")) {
        g->type = ODR_ARC;
        return num(b, c, "curvature", NULL, &g->k0);
    } else if (!strcmp(kind, "spiral")) {
        g->type = ODR_SPIRAL;
        if ((st = num(b, c, "curvStart", NULL, &g->k0)) || (st = num(b, c, "curvEnd", NULL, &g->k1)))
            return st;
    } else if (!strcmp(kind, "poly3")) {
        g->type = ODR_POLY3;
        static const char *const K[] = {"a", "b", "c", "d"};
        for (int i = 0; i < 4; i++)
            if ((st = num(b, c, K[i], NULL, &g->v[i])))
                return st;
    } else if (!strcmp(kind, "paramPoly3")) {
        g->type = ODR_PARAMPOLY3;
        static const char *const U[] = {"aU", "bU", "cU", "dU"}, *const V[] = {"aV", "bV", "cV", "dV"};
        for (int i = 0; i < 4; i++)
            if ((st = num(b, c, U[i], NULL, &g->u[i])) || (st = num(b, c, V[i], NULL, &g->v[i])))
                return st;
        const char *r = sensim__xml_attr(&b->x->node[c], "pRange");
        g->normalized = !r || !strcmp(r, "normalized"); /* the default is normalized */
        if (r && !g->normalized && strcmp(r, "arcLength"))
            return bad(b, c, "pRange", "neither \"arcLength\" nor \"normalized\"");
    } else
        return bad(b, c, NULL, "not a geometry OpenDRIVE defines");
    return SENSIM_OK;
}

static sensim_status link_of(const bld *b, uint32_t n, odr_link *l)
{
    if (n == SENSIM_XML_NONE)
        return SENSIM_OK;
    const char *t = sensim__xml_attr(&b->x->node[n], "elementType");
    const char *cp = sensim__xml_attr(&b->x->node[n], "contactPoint");
    l->kind = t && !strcmp(t, "junction") ? 2 : 1;
    l->contact_end = cp && !strcmp(cp, "end");
    return str(b, n, "elementId", NULL, &l->id);
}

static sensim_status road(const bld *b, uint32_t n, odr_road *r)
{
    sensim_status st;
    r->line = b->x->node[n].line;
    if ((st = str(b, n, "id", NULL, &r->id)) || (st = str(b, n, "name", "", &r->name)) ||
        (st = str(b, n, "junction", "-1", &r->junction)) || (st = num(b, n, "length", NULL, &r->length)))
        return st;
    if (r->length <= 0)
        return bad(b, n, "length", "not positive");
    const char *rule = sensim__xml_attr(&b->x->node[n], "rule");
    r->lht = rule && !strcmp(rule, "LHT");
    uint32_t pv = sensim__xml_child(b->x, n, "planView", SENSIM_XML_NONE);
    uint32_t ng = count_children(b->x, pv, "geometry");
    if (!ng)
        return bad(b, n, NULL, "a road without <planView> geometry");
    if (ng > MAX_PER_ROAD)
        return bad(b, n, NULL, "too many geometries");
    if (!(r->geom = calloc(ng, sizeof *r->geom)))
        return oom(b);
    EACH(b->x, pv, "geometry", c) {
        if ((st = geometry(b, c, &r->geom[r->ngeom])))
            return st;
        if (r->ngeom && r->geom[r->ngeom].s0 < r->geom[r->ngeom - 1].s0)
            return bad(b, c, "s", "before the previous geometry's");
        r->ngeom++;
    }
    uint32_t ep = sensim__xml_child(b->x, n, "elevationProfile", SENSIM_XML_NONE);
    uint32_t lp = sensim__xml_child(b->x, n, "lateralProfile", SENSIM_XML_NONE);
    uint32_t lanes = sensim__xml_child(b->x, n, "lanes", SENSIM_XML_NONE);
    if ((st = polys(b, ep, "elevation", "s", &r->elev, &r->nelev)) ||
        (st = polys(b, lp, "superelevation", "s", &r->superelev, &r->nsuper)) ||
        (st = polys(b, lanes, "laneOffset", "s", &r->lane_offset, &r->noffset)))
        return st;
    uint32_t ns = count_children(b->x, lanes, "laneSection");
    if (!ns)
        return bad(b, n, NULL, "a road without <lanes><laneSection>");
    if (ns > MAX_PER_ROAD)
        return bad(b, n, NULL, "too many lane sections");
    if (!(r->sec = calloc(ns, sizeof *r->sec)))
        return oom(b);
    EACH(b->x, lanes, "laneSection", c) {
        r->nsec++;
        if ((st = section(b, c, &r->sec[r->nsec - 1])))
            return st;
        if (r->nsec > 1 && r->sec[r->nsec - 1].s0 < r->sec[r->nsec - 2].s0)
            return bad(b, c, "s", "before the previous lane section's");
    }
    for (uint32_t k = 0; k < r->nsec; k++)
        r->sec[k].s1 = k + 1 < r->nsec ? r->sec[k + 1].s0 : r->length;
    uint32_t nt = count_children(b->x, n, "type");
    if (nt > MAX_PER_ROAD)
        return bad(b, n, NULL, "too many <type> records");
    if (nt && !(r->speed = calloc(nt, sizeof *r->speed)))
        return oom(b);
    EACH(b->x, n, "type", c) {
        uint32_t sp = sensim__xml_child(b->x, c, "speed", SENSIM_XML_NONE);
        if (sp == SENSIM_XML_NONE)
            continue;
        odr_speed *v = &r->speed[r->nspeed];
        double max;
        if ((st = num(b, c, "s", NULL, &v->s0)))
            return st;
        const char *m = sensim__xml_attr(&b->x->node[sp], "max");
        if (m && (!strcmp(m, "no limit") || !strcmp(m, "undefined")))
            continue;
        if ((st = num(b, sp, "max", NULL, &max)))
            return st;
        if (max < 0)
            return bad(b, sp, "max", "negative");
        const char *u = sensim__xml_attr(&b->x->node[sp], "unit");
        v->mps = !u || !strcmp(u, "m/s") ? max : !strcmp(u, "km/h") ? max / 3.6 : !strcmp(u, "mph") ? max * 0.44704
                                                                                                     : -1;
        if (v->mps < 0)
            return bad(b, sp, "unit", "not m/s, km/h or mph");
        r->nspeed++;
    }
    uint32_t ln = sensim__xml_child(b->x, n, "link", SENSIM_XML_NONE);
    if (ln != SENSIM_XML_NONE &&
        ((st = link_of(b, sensim__xml_child(b->x, ln, "predecessor", SENSIM_XML_NONE), &r->pred)) ||
         (st = link_of(b, sensim__xml_child(b->x, ln, "successor", SENSIM_XML_NONE), &r->succ))))
        return st;
    return SENSIM_OK;
}

static sensim_status junction(const bld *b, uint32_t n, odr_junction *j)
{
    sensim_status st;
    if ((st = str(b, n, "id", NULL, &j->id)) || (st = str(b, n, "name", "", &j->name)))
        return st;
    uint32_t nc = count_children(b->x, n, "connection");
    if (nc > MAX_PER_ROAD)
        return bad(b, n, NULL, "too many connections");
    if (nc && !(j->conn = calloc(nc, sizeof *j->conn)))
        return oom(b);
    EACH(b->x, n, "connection", c) {
        odr_connection *cn = &j->conn[j->nconn++];
        if ((st = str(b, c, "id", "", &cn->id)) || (st = str(b, c, "incomingRoad", NULL, &cn->incoming)) ||
            (st = str(b, c, "connectingRoad", sensim__xml_attr(&b->x->node[c], "linkedRoad") ? "" : NULL,
                      &cn->connecting)))
            return st;
        if (!cn->connecting[0]) { /* OpenDRIVE 1.7's direct junction: the linked road itself */
            free(cn->connecting);
            cn->connecting = NULL; /* a missing linkedRoad fails below: nothing freed twice */
            if ((st = str(b, c, "linkedRoad", NULL, &cn->connecting)))
                return st;
        }
        const char *cp = sensim__xml_attr(&b->x->node[c], "contactPoint");
        cn->contact_end = cp && !strcmp(cp, "end");
        uint32_t nl = count_children(b->x, c, "laneLink");
        if (nl > MAX_PER_ROAD)
            return bad(b, c, NULL, "too many lane links");
        if (nl && !(cn->lane_links = calloc(nl, sizeof *cn->lane_links)))
            return oom(b);
        EACH(b->x, c, "laneLink", l) {
            double from, to;
            if ((st = num(b, l, "from", NULL, &from)) || (st = num(b, l, "to", NULL, &to)))
                return st;
            cn->lane_links[cn->nlinks][0] = (int32_t)from, cn->lane_links[cn->nlinks][1] = (int32_t)to;
            cn->nlinks++;
        }
    }
    return SENSIM_OK;
}

static sensim_status signals(const bld *b, uint32_t rn, uint32_t ri)
{
    sensim_road_network *net = b->net;
    uint32_t g = sensim__xml_child(b->x, rn, "signals", SENSIM_XML_NONE);
    uint32_t ns = count_children(b->x, g, "signal");
    if (!ns)
        return SENSIM_OK;
    if (ns > MAX_PER_ROAD)
        return bad(b, g, NULL, "too many signals");
    odr_signal *q = realloc(net->signal, (net->nsignal + ns) * sizeof *q);
    if (!q)
        return oom(b);
    net->signal = q;
    sensim_status st;
    EACH(b->x, g, "signal", c) {
        odr_signal *s = &net->signal[net->nsignal];
        memset(s, 0, sizeof *s);
        net->nsignal++;
        s->road = ri;
        const double NaN0 = 0.0;
        if ((st = str(b, c, "id", NULL, &s->id)) || (st = str(b, c, "name", "", &s->name)) ||
            (st = str(b, c, "type", "-1", &s->type)) || (st = str(b, c, "subtype", "-1", &s->subtype)) ||
            (st = str(b, c, "unit", "", &s->unit)) || (st = num(b, c, "s", NULL, &s->s)) ||
            (st = num(b, c, "t", NULL, &s->t)) || (st = num(b, c, "zOffset", &NaN0, &s->z_offset)) ||
            (st = num(b, c, "hOffset", &NaN0, &s->h_offset)) || (st = num(b, c, "height", &NaN0, &s->height)) ||
            (st = num(b, c, "width", &NaN0, &s->width)))
            return st;
        if ((st = str(b, c, "country", "", &s->country)))
            return st;
        s->line = b->x->node[c].line;
        const char *v = sensim__xml_attr(&b->x->node[c], "value");
        if (v && (st = num(b, c, "value", NULL, &s->value)))
            return st;
        s->has_value = v != NULL;
        uint32_t va = sensim__xml_child(b->x, c, "validity", SENSIM_XML_NONE);
        if (va != SENSIM_XML_NONE) {
            double from, to;
            if ((st = num(b, va, "fromLane", NULL, &from)) || (st = num(b, va, "toLane", NULL, &to)))
                return st;
            if (from != floor(from) || to != floor(to) || fabs(from) > 1000 || fabs(to) > 1000)
                return bad(b, va, NULL, "fromLane/toLane: not lane ids (integers, |id| <= 1000)");
            s->has_validity = 1, s->from_lane = (int32_t)from, s->to_lane = (int32_t)to;
        }
        const char *d = sensim__xml_attr(&b->x->node[c], "dynamic"), *o = sensim__xml_attr(&b->x->node[c], "orientation");
        s->dynamic = d && !strcmp(d, "yes");
        s->orientation = o && !strcmp(o, "-") ? -1 : o && !strcmp(o, "+") ? 1 : 0;
    }
    return SENSIM_OK;
}

static void free_str(char **s)
{
    free(*s);
    *s = NULL;
}

void sensim__odr_free(sensim_road_network *net)
{
    if (!net)
        return;
    for (uint32_t i = 0; i < net->nroad; i++) {
        odr_road *r = &net->road[i];
        free_str(&r->id), free_str(&r->name), free_str(&r->junction);
        free_str(&r->pred.id), free_str(&r->succ.id);
        for (uint32_t k = 0; k < r->ngeom; k++)
            free(r->geom[k].tab);
        free(r->geom), free(r->elev), free(r->superelev), free(r->lane_offset), free(r->speed);
        for (uint32_t k = 0; k < r->nsec; k++) {
            for (uint32_t l = 0; l < r->sec[k].nlane; l++)
                free(r->sec[k].lane[l].width);
            free(r->sec[k].lane);
        }
        free(r->sec), free(r->px), free(r->py), free(r->ps);
    }
    for (uint32_t i = 0; i < net->njunction; i++) {
        odr_junction *j = &net->junction[i];
        for (uint32_t c = 0; c < j->nconn; c++) {
            free(j->conn[c].id), free(j->conn[c].incoming), free(j->conn[c].connecting);
            free(j->conn[c].lane_links);
        }
        free(j->conn), free(j->id), free(j->name);
    }
    for (uint32_t i = 0; i < net->nsignal; i++) {
        odr_signal *s = &net->signal[i];
        free(s->id), free(s->name), free(s->type), free(s->subtype), free(s->unit), free(s->road_id),
            free(s->country);
    }
    free(net->road), free(net->by_id), free(net->feeders), free(net->junction), free(net->signal), free(net->path), free(net->geo_reference);
    free(net);
}

typedef struct idref {
    const char *id;
    uint32_t i;
} idref;

static int idref_cmp(const void *a, const void *b)
{
    const idref *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

SENSIM_API sensim_status sensim_road_network_load(sensim_context *ctx, const char *path, uint64_t max_file_bytes,
                                                  sensim_road_network **out)
{
    if (!out || !path)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_road_network_load: %s is NULL",
                            out ? "path" : "out");
    *out = NULL;
    sensim__xml x;
    sensim_status st = sensim__xml_load(path, max_file_bytes ? max_file_bytes : (1ull << 30), &x);
    if (st)
        return st;
    st = sensim__odr_build(ctx, path, &x, SENSIM_ODR_MAX_TABLE, out);
    sensim__xml_free(&x);
    return st;
}

sensim_status sensim__odr_build(sensim_context *ctx, const char *path, const sensim__xml *xp,
                                uint64_t max_table, sensim_road_network **out)
{
    const sensim__xml x = *xp;
    sensim_status st;
    *out = NULL;
    sensim_road_network *net = calloc(1, sizeof *net);
    bld b = {path, &x, net};
    if (!net || !(net->path = strdup(path))) {
        st = oom(&b);
        goto done;
    }
    net->ctx = ctx, net->max_table = max_table;
    if (strcmp(x.node[0].name, "OpenDRIVE")) {
        st = bad(&b, 0, NULL, "not an OpenDRIVE file (its root element is not <OpenDRIVE>)");
        goto done;
    }
    uint32_t hd = sensim__xml_child(&x, 0, "header", SENSIM_XML_NONE);
    uint32_t geo = hd == SENSIM_XML_NONE ? SENSIM_XML_NONE : sensim__xml_child(&x, hd, "geoReference", SENSIM_XML_NONE);
    if (geo != SENSIM_XML_NONE && !(net->geo_reference = strdup(x.node[geo].text))) {
        st = oom(&b);
        goto done;
    }
    uint32_t nr = count_children(&x, 0, "road"), nj = count_children(&x, 0, "junction");
    if (!nr) {
        st = bad(&b, 0, NULL, "no <road>");
        goto done;
    }
    if (nr > MAX_ROADS || nj > MAX_ROADS) {
        st = bad(&b, 0, NULL, "more than 2^20 roads or junctions");
        goto done;
    }
    if (!(net->road = calloc(nr, sizeof *net->road)) || (nj && !(net->junction = calloc(nj, sizeof *net->junction)))) {
        st = oom(&b);
        goto done;
    }
    EACH(&x, 0, "road", c) {
        net->nroad++;
        if ((st = road(&b, c, &net->road[net->nroad - 1])) || (st = signals(&b, c, net->nroad - 1)))
            goto done;
    }
    EACH(&x, 0, "junction", c) {
        net->njunction++;
        if ((st = junction(&b, c, &net->junction[net->njunction - 1])))
            goto done;
    }
    /* ids are unique (lookups by id are unambiguous): sorted, neighbours compared */
    idref *refs = malloc(net->nroad * sizeof *refs);
    if (!refs || !(net->by_id = malloc(net->nroad * sizeof *net->by_id))) {
        free(refs);
        st = oom(&b);
        goto done;
    }
    for (uint32_t i = 0; i < net->nroad; i++)
        refs[i] = (idref){net->road[i].id, i};
    qsort(refs, net->nroad, sizeof *refs, idref_cmp);
    for (uint32_t i = 0; i < net->nroad; i++)
        net->by_id[i] = refs[i].i;
    for (uint32_t i = 1; i < net->nroad && st == SENSIM_OK; i++)
        if (!strcmp(refs[i - 1].id, refs[i].id)) /* sorted by index within one id: refs[i] is the later road */
            st = sensim__fail(SENSIM_ERR_PARSE, "%s:%u: <road> id: \"%s\" is also the id of the road at line %u",
                              path, net->road[refs[i].i].line, refs[i].id, net->road[refs[i - 1].i].line);
    free(refs);
    if (st)
        goto done;
    if ((st = sensim__odr_index_links(net)) == SENSIM_OK)
        st = sensim__odr_prepare(net);
done:
    if (st) {
        sensim__odr_free(net);
        return st;
    }
    *out = net;
    return SENSIM_OK;
}

SENSIM_API void sensim_road_network_destroy(sensim_road_network *net) { sensim__odr_free(net); }

uint32_t sensim_road_network_signal_count(const sensim_road_network *net)
{
    return net ? net->nsignal : 0;
}

sensim_status sensim_road_network_signal(const sensim_road_network *net, uint32_t index, sensim_road_signal *out)
{
    if (!net || !out || index >= net->nsignal)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_road_network_signal: %s",
                            !net || !out ? "a NULL argument" : "no such signal");
    const odr_signal *g = &net->signal[index];
    memset(out, 0, sizeof *out);
    out->id = g->id, out->name = g->name, out->type = g->type, out->subtype = g->subtype, out->unit = g->unit;
    out->country = g->country;
    out->road = g->road, out->line = g->line;
    out->s = g->s, out->t = g->t, out->z_offset = g->z_offset, out->h_offset = g->h_offset;
    out->height = g->height, out->width = g->width, out->value = g->has_value ? g->value : NAN;
    out->dynamic = g->dynamic, out->orientation = g->orientation;
    out->has_validity = g->has_validity, out->from_lane = g->from_lane, out->to_lane = g->to_lane;
    return SENSIM_OK;
}
