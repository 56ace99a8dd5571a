/* OpenDRIVE geometry: reference lines (line, arc, spiral, poly3,
 * paramPoly3), elevation, superelevation, lane offsets and widths, and the
 * search for the lane nearest a point. Double precision throughout; the
 * integrals (a spiral's position, a poly3's arc length) by 8-point
 * Gauss-Legendre over pieces short enough that the error is far below
 * 1e-9 m. */
#include "odr_impl.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* last_at_or_before() reads a record's start from its first member */
_Static_assert(offsetof(odr_poly, s0) == 0 && offsetof(odr_geom, s0) == 0 && offsetof(odr_section, s0) == 0,
               "records start with s0");

/* 8-point Gauss-Legendre on [-1, 1] */
static const double GL_X[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363};
static const double GL_W[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763};

/* ---- polynomials ---- */

/* The last of @p n records (each @p stride bytes, its first member the double where it starts) that starts at
 * or before @p s; the first when @p s is before them all. */
static uint32_t last_at_or_before(const void *records, size_t stride, uint32_t n, double s)
{
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (*(const double *)((const char *)records + mid * stride) <= s)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static uint32_t poly_index(const odr_poly *p, uint32_t n, double s) { return last_at_or_before(p, sizeof *p, n, s); }

double sensim__odr_poly_at(const odr_poly *p, uint32_t n, double s)
{
    if (!n || s < p[0].s0) /* before a profile's first record: 0 */
        return 0.0;
    const odr_poly *q = &p[poly_index(p, n, s)];
    const double d = s - q->s0;
    return q->a + d * (q->b + d * (q->c + d * q->d));
}

double sensim__odr_poly_slope(const odr_poly *p, uint32_t n, double s)
{
    if (!n || s < p[0].s0)
        return 0.0;
    const odr_poly *q = &p[poly_index(p, n, s)];
    const double d = s - q->s0;
    return q->b + d * (2.0 * q->c + 3.0 * d * q->d);
}

/* ---- reference line ---- */

#define TABLE_M 0.5 /* the tables' step (m of arc length for spirals, of u for poly3) */

/* the spiral's heading h0 + k0·u + c·u²/2 integrated over [u0, u1] (one 8-point Gauss-Legendre piece) */
static void spiral_piece(double h0, double k0, double c, double u0, double u1, double *dx, double *dy)
{
    const double mid = 0.5 * (u0 + u1), half = 0.5 * (u1 - u0);
    double x = 0, y = 0;
    for (int i = 0; i < 4; i++)
        for (int sg = -1; sg <= 1; sg += 2) {
            const double u = mid + sg * GL_X[i] * half;
            const double th = h0 + u * (k0 + 0.5 * c * u);
            x += GL_W[i] * half * cos(th);
            y += GL_W[i] * half * sin(th);
        }
    *dx = x, *dy = y;
}

static double poly3_slope(const double v[4], double u) { return v[1] + u * (2.0 * v[2] + 3.0 * u * v[3]); }

/* arc length of v(u) over [u0, u1] (one piece) */
static double poly3_piece(const double v[4], double u0, double u1)
{
    const double mid = 0.5 * (u0 + u1), half = 0.5 * (u1 - u0);
    double L = 0;
    for (int i = 0; i < 4; i++)
        for (int sg = -1; sg <= 1; sg += 2) {
            const double d = poly3_slope(v, mid + sg * GL_X[i] * half);
            L += GL_W[i] * half * sqrt(1.0 + d * d);
        }
    return L;
}

static double spiral_c(const odr_geom *g) { return g->length > 0 ? (g->k1 - g->k0) / g->length : 0.0; }

/* entries a geometry's table needs (0: none) */
static uint64_t table_size(const odr_geom *g)
{
    if (g->type != ODR_SPIRAL && g->type != ODR_POLY3)
        return 0;
    return (uint64_t)ceil(g->length / TABLE_M) + 1;
}

/* spiral: (x, y) at k·TABLE_M; poly3: arc length at u = k·TABLE_M (the last entry at the geometry's end:
 * a poly3's u never exceeds its length, as the arc length is at least u) */
static void table_fill(odr_geom *g)
{
    const uint32_t n = g->ntab;
    if (g->type == ODR_SPIRAL) {
        const double c = spiral_c(g);
        g->tab[0] = g->tab[1] = 0;
        for (uint32_t k = 1; k < n; k++) {
            double dx, dy;
            const double u0 = (k - 1) * TABLE_M, u1 = fmin(k * TABLE_M, g->length);
            spiral_piece(g->hdg, g->k0, c, u0, u1, &dx, &dy);
            g->tab[2 * k] = g->tab[2 * k - 2] + dx, g->tab[2 * k + 1] = g->tab[2 * k - 1] + dy;
        }
    } else {
        g->tab[0] = 0;
        for (uint32_t k = 1; k < n; k++)
            g->tab[k] = g->tab[k - 1] + poly3_piece(g->v, (k - 1) * TABLE_M, fmin(k * TABLE_M, g->length));
    }
}

/* a spiral's position after arc length ds, relative to its start */
static void spiral_xy(const odr_geom *g, double ds, double *dx, double *dy)
{
    double k = floor(ds / TABLE_M);
    if (k > g->ntab - 1.0)
        k = g->ntab - 1.0;
    if (k < 0)
        k = 0;
    const uint32_t i = (uint32_t)k;
    double px, py;
    spiral_piece(g->hdg, g->k0, spiral_c(g), fmin(i * TABLE_M, g->length), ds, &px, &py);
    *dx = g->tab[2 * i] + px, *dy = g->tab[2 * i + 1] + py;
}

/* a poly3's u where its arc length is ds: the table's piece, then Newton's method within it */
static double poly3_u(const odr_geom *g, double ds)
{
    uint32_t lo = 0, hi = g->ntab;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->tab[mid] <= ds)
            lo = mid;
        else
            hi = mid;
    }
    const double u0 = fmin(lo * TABLE_M, g->length), L0 = g->tab[lo];
    double u = u0 + (ds - L0);
    for (int it = 0; it < 30; it++) {
        const double d = poly3_slope(g->v, u), f = L0 + poly3_piece(g->v, u0, u) - ds;
        const double step = f / sqrt(1.0 + d * d);
        u -= step;
        if (fabs(step) < 1e-13)
            break;
    }
    return u;
}

static void geom_at(const odr_geom *g, double ds, double *x, double *y, double *hdg)
{
    const double c0 = cos(g->hdg), s0 = sin(g->hdg);
    switch (g->type) {
    case ODR_LINE:
        *x = g->x + ds * c0, *y = g->y + ds * s0, *hdg = g->hdg;
        return;
    case ODR_ARC: {
        const double k = g->k0;
        if (fabs(k * ds) < 1e-9) { /* a straight line to 1e-18 m */
            *x = g->x + ds * c0 - 0.5 * k * ds * ds * s0, *y = g->y + ds * s0 + 0.5 * k * ds * ds * c0;
            *hdg = g->hdg + k * ds;
            return;
        }
        const double h = g->hdg + k * ds;
        *x = g->x + (sin(h) - s0) / k, *y = g->y - (cos(h) - c0) / k, *hdg = h;
        return;
    }
    case ODR_SPIRAL: {
        const double c = spiral_c(g);
        double dx, dy;
        spiral_xy(g, ds, &dx, &dy);
        *x = g->x + dx, *y = g->y + dy, *hdg = g->hdg + ds * (g->k0 + 0.5 * c * ds);
        return;
    }
    case ODR_POLY3: { /* s is the arc length */
        const double u = poly3_u(g, ds);
        const double v = g->v[0] + u * (g->v[1] + u * (g->v[2] + u * g->v[3]));
        *x = g->x + u * c0 - v * s0, *y = g->y + u * s0 + v * c0, *hdg = g->hdg + atan(poly3_slope(g->v, u));
        return;
    }
    default: { /* ODR_PARAMPOLY3 */
        const double p = g->normalized ? (g->length > 0 ? ds / g->length : 0.0) : ds;
        const double u = g->u[0] + p * (g->u[1] + p * (g->u[2] + p * g->u[3]));
        const double v = g->v[0] + p * (g->v[1] + p * (g->v[2] + p * g->v[3]));
        const double du = g->u[1] + p * (2.0 * g->u[2] + 3.0 * p * g->u[3]);
        const double dv = g->v[1] + p * (2.0 * g->v[2] + 3.0 * p * g->v[3]);
        *x = g->x + u * c0 - v * s0, *y = g->y + u * s0 + v * c0;
        *hdg = g->hdg + (du == 0 && dv == 0 ? 0.0 : atan2(dv, du));
        return;
    }
    }
}

void sensim__odr_ref(const odr_road *r, double s, double *x, double *y, double *hdg)
{
    s = s < 0 ? 0 : s > r->length ? r->length : s;
    const uint32_t k = last_at_or_before(r->geom, sizeof *r->geom, r->ngeom, s);
    const double ds = s - r->geom[k].s0;
    geom_at(&r->geom[k], ds < 0 ? 0 : ds, x, y, hdg);
}

uint32_t sensim__odr_section_at(const odr_road *r, double s)
{
    return last_at_or_before(r->sec, sizeof *r->sec, r->nsec, s);
}

void sensim__odr_lane_bounds(const odr_road *r, uint32_t k, double s, double *t_inner, double *t_outer)
{
    const odr_section *sec = &r->sec[k];
    const double off = sensim__odr_poly_at(r->lane_offset, r->noffset, s), ds = s - sec->s0;
    uint32_t c = 0;
    while (c < sec->nlane && sec->lane[c].id != 0)
        c++;
    t_inner[c] = t_outer[c] = off;
    double t = off;
    for (uint32_t i = c; i-- > 0;) { /* left: from the centre out */
        double w = sensim__odr_poly_at(sec->lane[i].width, sec->lane[i].nwidth, ds);
        t_inner[i] = t, t += w > 0 ? w : 0, t_outer[i] = t;
    }
    t = off;
    for (uint32_t i = c + 1; i < sec->nlane; i++) { /* right */
        double w = sensim__odr_poly_at(sec->lane[i].width, sec->lane[i].nwidth, ds);
        t_inner[i] = t, t -= w > 0 ? w : 0, t_outer[i] = t;
    }
}

/* The pose of (s, t, h): x along the road (heading, elevation slope), y across it (rolled by the
 * superelevation), z up from the surface. */
static void pose_at(const odr_road *r, double s, double t, double h, double m[16])
{
    double x, y, hdg;
    s = s < 0 ? 0 : s > r->length ? r->length : s;
    sensim__odr_ref(r, s, &x, &y, &hdg);
    const double z = sensim__odr_poly_at(r->elev, r->nelev, s);
    const double p = atan(sensim__odr_poly_slope(r->elev, r->nelev, s));
    const double roll = sensim__odr_poly_at(r->superelev, r->nsuper, s);
    const double ch = cos(hdg), sh = sin(hdg), cp = cos(p), sp = sin(p), cr = cos(roll), sr = sin(roll);
    const double T[3] = {ch * cp, sh * cp, sp}, L0[3] = {-sh, ch, 0}, U0[3] = {-sp * ch, -sp * sh, cp};
    double L[3], U[3];
    for (int i = 0; i < 3; i++)
        L[i] = cr * L0[i] + sr * U0[i], U[i] = -sr * L0[i] + cr * U0[i];
    for (int i = 0; i < 3; i++)
        m[i] = T[i], m[4 + i] = L[i], m[8 + i] = U[i];
    m[3] = m[7] = m[11] = 0, m[15] = 1;
    m[12] = x + t * L[0] + h * U[0], m[13] = y + t * L[1] + h * U[1], m[14] = z + t * L[2] + h * U[2];
}

/* ---- preparing the lookups ---- */

#define SAMPLE_M 0.5
#define MAX_SAMPLES (1u << 20)

static uint32_t sample_count(const odr_road *r)
{
    const double n = ceil(r->length / SAMPLE_M) + 1;
    return n > MAX_SAMPLES ? MAX_SAMPLES : n < 2 ? 2 : (uint32_t)n;
}

sensim_status sensim__odr_prepare(sensim_road_network *net)
{
    uint64_t total = 0; /* the budget first: nothing is computed for a network past it */
    for (uint32_t i = 0; i < net->nroad && total <= net->max_table; i++) {
        const odr_road *r = &net->road[i];
        total += sample_count(r);
        for (uint32_t k = 0; k < r->ngeom; k++) {
            const double len = r->geom[k].length;
            total += len > 1e12 ? net->max_table + 1 : table_size(&r->geom[k]);
        }
    }
    if (total > net->max_table)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: the road network is too long: its reference lines need more "
                            "than %llu entries of %.1f m (about %.0f km of road)", net->path,
                            (unsigned long long)net->max_table, SAMPLE_M, (double)net->max_table * SAMPLE_M / 2000.0);
    net->table_entries = total;
    for (uint32_t i = 0; i < net->nroad; i++)
        for (uint32_t k = 0; k < net->road[i].ngeom; k++) {
            odr_geom *g = &net->road[i].geom[k];
            const uint64_t n = table_size(g);
            if (!n)
                continue;
            if (!(g->tab = malloc(n * (g->type == ODR_SPIRAL ? 2 : 1) * sizeof *g->tab)))
                return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", net->path);
            g->ntab = (uint32_t)n;
            table_fill(g);
        }
    for (uint32_t i = 0; i < net->nroad; i++) {
        odr_road *r = &net->road[i];
        const uint32_t np = sample_count(r);
        uint32_t maxlanes = 1;
        for (uint32_t k = 0; k < r->nsec; k++)
            maxlanes = r->sec[k].nlane > maxlanes ? r->sec[k].nlane : maxlanes;
        r->px = malloc(np * sizeof *r->px), r->py = malloc(np * sizeof *r->py), r->ps = malloc(np * sizeof *r->ps);
        double *ti = malloc(2 * maxlanes * sizeof *ti);
        if (!r->px || !r->py || !r->ps || !ti) {
            free(ti);
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", net->path);
        }
        r->np = np;
        r->box[0] = r->box[1] = INFINITY, r->box[2] = r->box[3] = -INFINITY;
        for (uint32_t k = 0; k < np; k++) {
            const double s = r->length * k / (np - 1);
            double hdg;
            sensim__odr_ref(r, s, &r->px[k], &r->py[k], &hdg);
            r->ps[k] = s;
            const uint32_t sec = sensim__odr_section_at(r, s);
            sensim__odr_lane_bounds(r, sec, s, ti, ti + maxlanes);
            double lo = 0, hi = 0;
            for (uint32_t l = 0; l < r->sec[sec].nlane; l++) {
                lo = fmin(lo, fmin(ti[l], ti[maxlanes + l])), hi = fmax(hi, fmax(ti[l], ti[maxlanes + l]));
            }
            for (int e = 0; e < 2; e++) {
                const double t = e ? hi : lo;
                const double x = r->px[k] - t * sin(hdg), y = r->py[k] + t * cos(hdg);
                r->box[0] = fmin(r->box[0], x), r->box[1] = fmin(r->box[1], y);
                r->box[2] = fmax(r->box[2], x), r->box[3] = fmax(r->box[3], y);
            }
        }
        /* the samples between are at most SAMPLE_M apart along the line: a chord's sagitta is far below this */
        r->box[0] -= 1, r->box[1] -= 1, r->box[2] += 1, r->box[3] += 1;
        free(ti);
    }
    return SENSIM_OK;
}

/* ---- the public queries ---- */

SENSIM_API uint32_t sensim_road_network_count(const sensim_road_network *net) { return net ? net->nroad : 0; }

SENSIM_API sensim_status sensim_road_network_info(const sensim_road_network *net, uint32_t road,
                                                  sensim_road_info *out)
{
    if (!net || !out || road >= net->nroad)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_road_network_info: %s",
                            !net || !out ? "a NULL argument" : "no such road");
    const odr_road *r = &net->road[road];
    memset(out, 0, sizeof *out);
    out->id = r->id, out->name = r->name, out->junction = r->junction, out->length_m = r->length;
    out->speed_limit_mps = r->nspeed ? r->speed[0].mps : 0.0;
    out->geometry_count = r->ngeom, out->section_count = r->nsec, out->line = r->line;
    out->left_hand_traffic = (uint32_t)r->lht;
    return SENSIM_OK;
}

SENSIM_API sensim_status sensim_road_network_find(const sensim_road_network *net, const char *id, uint32_t *road)
{
    if (!net || !id || !road)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_road_network_find: a NULL argument");
    uint32_t lo = 0, hi = net->nroad;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(net->road[net->by_id[mid]].id, id);
        if (c == 0) {
            *road = net->by_id[mid];
            return SENSIM_OK;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return sensim__fail(SENSIM_ERR_NOT_FOUND, "%s: no road with id \"%s\"", net->path, id);
}

SENSIM_API sensim_status sensim_road_network_geometry(const sensim_road_network *net, uint32_t road, uint32_t index,
                                                      sensim_road_geometry *out)
{
    if (!net || !out || road >= net->nroad || index >= net->road[road].ngeom)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_road_network_geometry: %s",
                            !net || !out ? "a NULL argument" : "no such road or geometry");
    const odr_geom *g = &net->road[road].geom[index];
    memset(out, 0, sizeof *out);
    out->s0 = g->s0, out->x = g->x, out->y = g->y, out->hdg = g->hdg, out->length = g->length;
    out->type = (uint32_t)g->type; /* ODR_* are SENSIM_GEOMETRY_* */
    return SENSIM_OK;
}

SENSIM_API sensim_status sensim_road_network_pose(const sensim_road_network *net, uint32_t road, double s, double t,
                                                  double h, double pose[16])
{
    if (!net || !pose || road >= net->nroad || !isfinite(s) || !isfinite(t) || !isfinite(h))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_road_network_pose: %s",
                            !net || !pose ? "a NULL argument" : road >= net->nroad ? "no such road"
                                                                                 : "s, t or h is not finite");
    pose_at(&net->road[road], s, t, h, pose);
    return SENSIM_OK;
}

SENSIM_API sensim_status sensim_road_network_lanes(const sensim_road_network *net, uint32_t road, double s,
                                                   sensim_lane_info *lanes, uint32_t cap, uint32_t *count)
{
    if (!net || !count || (cap && !lanes) || road >= net->nroad || !isfinite(s))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_road_network_lanes: %s",
                            road < (net ? net->nroad : 0) && count && (!cap || lanes) ? "s is not finite"
                                                                                      : "a NULL argument or no such road");
    const odr_road *r = &net->road[road];
    s = s < 0 ? 0 : s > r->length ? r->length : s;
    const uint32_t k = sensim__odr_section_at(r, s);
    const odr_section *sec = &r->sec[k];
    *count = sec->nlane;
    double *ti = malloc(2 * sec->nlane * sizeof *ti);
    if (!ti)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_road_network_lanes: out of memory");
    sensim__odr_lane_bounds(r, k, s, ti, ti + sec->nlane);
    for (uint32_t i = 0; i < sec->nlane && i < cap; i++) {
        sensim_lane_info *o = &lanes[i];
        memset(o, 0, sizeof *o);
        o->id = sec->lane[i].id, o->type = sec->lane[i].type, o->level = sec->lane[i].level;
        o->t_inner = ti[i], o->t_outer = ti[sec->nlane + i], o->section = k;
        o->mark_type = sec->lane[i].mark_type, o->mark_color = sec->lane[i].mark_color;
        o->section_s0 = sec->s0, o->section_s1 = sec->s1;
    }
    free(ti);
    return SENSIM_OK;
}

/* the s of road @p r nearest (x, y) in the plane: the nearest sample, then a golden-section search between
 * its neighbours */
static double project(const odr_road *r, double x, double y)
{
    uint32_t best = 0;
    double bd = INFINITY;
    for (uint32_t k = 0; k < r->np; k++) {
        const double d = (r->px[k] - x) * (r->px[k] - x) + (r->py[k] - y) * (r->py[k] - y);
        if (d < bd)
            bd = d, best = k;
    }
    double a = r->ps[best ? best - 1 : 0], b = r->ps[best + 1 < r->np ? best + 1 : best];
    const double g = 0.6180339887498949;
    for (int it = 0; it < 60 && b - a > 1e-10; it++) {
        const double c = b - g * (b - a), d = a + g * (b - a);
        double xc, yc, xd, yd, h;
        sensim__odr_ref(r, c, &xc, &yc, &h);
        sensim__odr_ref(r, d, &xd, &yd, &h);
        if ((xc - x) * (xc - x) + (yc - y) * (yc - y) < (xd - x) * (xd - x) + (yd - y) * (yd - y))
            b = d;
        else
            a = c;
    }
    /* then Newton on (p - ref(s))·tangent(s) = 0 (the squared distance is too flat near its minimum for a
     * search to find s closer than sqrt(eps) times the distance) */
    double s = 0.5 * (a + b);
    for (int it = 0; it < 8; it++) {
        double xs, ys, h;
        sensim__odr_ref(r, s, &xs, &ys, &h);
        const double step = (x - xs) * cos(h) + (y - ys) * sin(h);
        const double next = s + step;
        if (next < r->ps[best ? best - 1 : 0] || next > r->ps[best + 1 < r->np ? best + 1 : best] || fabs(step) < 1e-13)
            break;
        s = next;
    }
    return s;
}

SENSIM_API sensim_status sensim_road_network_locate(const sensim_road_network *net, const double xyz[3],
                                                    uint32_t lane_types, sensim_lane_point *out)
{
    if (!net || !xyz || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_road_network_locate: a NULL argument");
    if (!isfinite(xyz[0]) || !isfinite(xyz[1]) || !isfinite(xyz[2]))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_road_network_locate: the point is not finite");
    double best = INFINITY;
    int found = 0;
    for (uint32_t i = 0; i < net->nroad; i++) {
        const odr_road *r = &net->road[i];
        const double bx = fmax(fmax(r->box[0] - xyz[0], xyz[0] - r->box[2]), 0.0);
        const double by = fmax(fmax(r->box[1] - xyz[1], xyz[1] - r->box[3]), 0.0);
        if (bx * bx + by * by >= best * best)
            continue; /* its lanes are all farther than the best so far */
        const double s = project(r, xyz[0], xyz[1]);
        double m[16];
        pose_at(r, s, 0, 0, m);
        /* t: the point's offset across the road in the plane (the horizontal left direction) */
        const double lx = m[4], ly = m[5], ln = hypot(lx, ly);
        const double t = ln > 0 ? ((xyz[0] - m[12]) * lx + (xyz[1] - m[13]) * ly) / ln : 0.0;
        const uint32_t k = sensim__odr_section_at(r, s);
        const odr_section *sec = &r->sec[k];
        double ti[2 * 64], *tb = sec->nlane <= 64 ? ti : malloc(2 * sec->nlane * sizeof *tb);
        if (!tb)
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_road_network_locate: out of memory");
        sensim__odr_lane_bounds(r, k, s, tb, tb + sec->nlane);
        for (uint32_t l = 0; l < sec->nlane; l++) {
            if (!(sec->lane[l].type & lane_types) || sec->lane[l].id == 0)
                continue;
            const double lo = fmin(tb[l], tb[sec->nlane + l]), hi = fmax(tb[l], tb[sec->nlane + l]);
            if (hi - lo <= 0)
                continue; /* a lane of no width here */
            const double tc = t < lo ? lo : t > hi ? hi : t;
            double q[16];
            pose_at(r, s, tc, 0, q);
            const double d = sqrt((xyz[0] - q[12]) * (xyz[0] - q[12]) + (xyz[1] - q[13]) * (xyz[1] - q[13]) +
                                  (xyz[2] - q[14]) * (xyz[2] - q[14]));
            const double dist = d;
            if (dist < best) {
                best = dist, found = 1;
                memset(out, 0, sizeof *out);
                out->road = i, out->lane = sec->lane[l].id, out->s = s, out->t = t, out->distance_m = dist;
            }
        }
        if (tb != ti)
            free(tb);
    }
    if (!found)
        return sensim__fail(SENSIM_ERR_NOT_FOUND, "%s: no lane of the types 0x%x", net->path, lane_types);
    return SENSIM_OK;
}
