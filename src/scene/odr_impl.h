/* The road network of an OpenDRIVE file (odr.c builds it, odr_geom.c
 * evaluates it, road.c is the public API). Lengths in metres, angles in
 * radians; the file's inertial frame (x east, y north, z up) is libsensim's
 * native world frame as it stands. */
#ifndef SENSIM_ODR_IMPL_H
#define SENSIM_ODR_IMPL_H

#include "internal.h"
#include <sensim/road.h>

/* a cubic a + b·d + c·d² + d·d³ in d = s - s0 */
typedef struct odr_poly {
    double s0, a, b, c, d;
} odr_poly;

enum { ODR_LINE, ODR_ARC, ODR_SPIRAL, ODR_POLY3, ODR_PARAMPOLY3 };

typedef struct odr_geom {
    double s0, x, y, hdg, length;
    int type;
    double k0, k1;                 /* arc: k0; spiral: curvStart, curvEnd */
    double u[4], v[4];             /* poly3: v = a..d (u unused); paramPoly3: aU..dU, aV..dV */
    int normalized;                /* paramPoly3 pRange normalized (p = ds / length) */
    /* spiral and poly3: the curve tabulated every TABLE_M metres at load (odr_geom.c), so that evaluating
     * it costs one short quadrature whatever its length: spiral (x, y) relative to its start at k·TABLE_M;
     * poly3 u at k·TABLE_M of u and the arc length there */
    double *tab;
    uint32_t ntab;
} odr_geom;

typedef struct odr_lane {
    int32_t id;
    uint32_t type;                 /* SENSIM_LANE_* */
    int32_t level;
    odr_poly *width;               /* s0 = the section-relative sOffset */
    uint32_t nwidth;
    uint32_t mark_type;            /* the first roadMark's type (SENSIM_MARK_*) and colour */
    uint32_t mark_color;
    int has_pred, has_succ;
    int32_t pred, succ;            /* lane links */
} odr_lane;

typedef struct odr_section {
    double s0, s1;
    odr_lane *lane;                /* in the file's order within left, center, right */
    uint32_t nlane;
    int single_side;
} odr_section;

typedef struct odr_link {
    int kind;                      /* 0 none, 1 road, 2 junction */
    char *id;
    int contact_end;               /* contactPoint="end" */
    uint32_t index;                /* the road's or junction's index, UINT32_MAX when the id names none */
} odr_link;

typedef struct odr_speed {
    double s0, mps;
} odr_speed;

typedef struct odr_road {
    char *id, *name, *junction;
    double length;
    odr_geom *geom;
    uint32_t ngeom;
    odr_poly *elev, *superelev, *lane_offset;
    uint32_t nelev, nsuper, noffset;
    odr_section *sec;
    uint32_t nsec;
    odr_speed *speed;
    uint32_t nspeed;
    odr_link pred, succ;
    uint32_t line;                 /* the <road> tag's line */
    int lht;                       /* rule="LHT": left-hand traffic (positive lane ids travel with s) */
    /* the reference line sampled for locating points (odr_geom.c) */
    double *px, *py, *ps;
    uint32_t np;
    double box[4];                 /* xmin, ymin, xmax, ymax of the road's lanes' reach */
    uint32_t feeders0, feeders1;   /* its range in sensim_road_network.feeders */
} odr_road;

typedef struct odr_connection {
    char *id, *incoming, *connecting;
    uint32_t incoming_index, connecting_index; /* UINT32_MAX when the id names no road */
    int contact_end;
    int32_t (*lane_links)[2];      /* from, to */
    uint32_t nlinks;
} odr_connection;

typedef struct odr_junction {
    char *id, *name;
    odr_connection *conn;
    uint32_t nconn;
} odr_junction;

typedef struct odr_signal {
    char *id, *name, *type, *subtype, *unit, *road_id, *country;
    double s, t, z_offset, value, h_offset, height, width;
    int dynamic, orientation;      /* orientation: +1 "+", -1 "-", 0 "none" */
    int has_value, has_validity;
    int32_t from_lane, to_lane;    /* the first <validity> */
    uint32_t road, line;
} odr_signal;

struct sensim_road_network {
    sensim_context *ctx;
    char *path, *geo_reference;
    odr_road *road;
    uint32_t nroad;
    uint32_t *by_id;               /* road indices sorted by id */
    uint32_t *feeders;             /* per road (its feeders0..1): the roads whose links may lead into it */
    uint64_t table_entries;        /* the geometry tables' and samples' entries */
    uint64_t max_table;            /* their budget */
    odr_junction *junction;
    uint32_t njunction;
    odr_signal *signal;
    uint32_t nsignal;
};

/* odr.c */
void sensim__odr_free(sensim_road_network *net);
struct sensim__xml;
/* the network of an XML document read from @p path, its tables within @p max_table entries (the public
 * loader: SENSIM_ODR_MAX_TABLE; the fuzz target less) */
sensim_status sensim__odr_build(sensim_context *ctx, const char *path, const struct sensim__xml *x,
                                uint64_t max_table, sensim_road_network **out);

/* odr_geom.c: the reference line at @p s of road @p r (clamped to [0, length]):
 * position and heading */
void sensim__odr_ref(const odr_road *r, double s, double *x, double *y, double *hdg);
double sensim__odr_poly_at(const odr_poly *p, uint32_t n, double s);
double sensim__odr_poly_slope(const odr_poly *p, uint32_t n, double s);
/* the section holding @p s */
uint32_t sensim__odr_section_at(const odr_road *r, double s);
/* lane boundaries (t of the inner and outer edge) of every lane of section
 * @p k at @p s, in the section's lane order */
void sensim__odr_lane_bounds(const odr_road *r, uint32_t k, double s, double *t_inner, double *t_outer);
/* tabulates spirals and poly3s, samples the reference lines and bounds the roads (after loading): at most
 * SENSIM_ODR_MAX_TABLE entries in all, else SENSIM_ERR_TOO_LARGE (about 4000 km of road) */
#define SENSIM_ODR_MAX_TABLE (1ull << 23)
sensim_status sensim__odr_prepare(sensim_road_network *net);
/* resolves link ids to indices and builds the feeders index (odr_links.c) */
sensim_status sensim__odr_index_links(sensim_road_network *net);

#endif
