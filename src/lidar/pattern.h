/* Scan patterns: a pure function from a global shot index to (firing time,
 * channel, direction). Every kind exposes the same four operations. */
#ifndef SENSIM_PATTERN_H
#define SENSIM_PATTERN_H

#include "internal.h"

typedef struct sensim_pattern {
    int32_t kind;            /* SENSIM_PATTERN_* */
    uint32_t channels;
    int64_t frame_ns;        /* F: frames are [r·F, (r+1)·F) */
    int64_t t_limit_ns;      /* |t| beyond which shot indices would leave int64 (set by the lidar) */
    float *elevation_rad;    /* per channel (mechanical, risley lasers), for get_elevations */

    /* MECHANICAL. Revolution-locked (col_q_ps == 0): shot s of a revolution
     * is column s / channels, channel fire_order[s % channels]. Free-running
     * (col_q_ps > 0): global column m = g / channels fires at
     * floor(m·col_q_ps/1000) ns whatever the revolution, and points where
     * the head is at that time. Either way a channel fires fire_off_ns
     * after its column and points az_off + spin·2π·fire_off/P from the
     * column's head angle (cos_off, sin_off): the head keeps turning. */
    uint32_t cols_per_rev, cols_in_fov;
    uint64_t shots_per_rev;  /* free-running: upper bound of shots in one revolution */
    float *cos_el, *sin_el, *cos_off, *sin_off, *cos_col, *sin_col;
    int32_t *fire_off_ns;
    uint32_t *fire_order;
    int64_t col_q_ps;        /* free-running column period, ps; 0 = revolution-locked */
    double start_az, spin, hfov; /* free-running head angle: start + spin·2π·(t mod P)/P */
    double beam_origin_m;    /* beam origin this far from the axis along the head angle */

    /* Sequence kinds: column m fires at floor(m·q_ps/1000), L shots each. */
    uint32_t lanes;
    int64_t q_ps;

    /* TABLE */
    uint64_t table_n;
    float *tdir;             /* 3 per entry, unit vectors */
    uint16_t *tchan;         /* optional */
    int64_t *ttime;          /* optional explicit times within a pass */
    int64_t tperiod;

    /* RISLEY */
    uint32_t nprism;
    double wedge[SENSIM_MAX_PRISMS], index[SENSIM_MAX_PRISMS], rot_hz[SENSIM_MAX_PRISMS],
        phase[SENSIM_MAX_PRISMS];
    double bore_el, head_hz;
    double cos_wedge[SENSIM_MAX_PRISMS], sin_wedge[SENSIM_MAX_PRISMS], cos_bore, sin_bore;
    float *laser_dir;        /* 3 per laser */
    /* The batch walks the prism (and head) angles from column to column:
     * consecutive columns are walk_dt or walk_dt + 1 ns apart (floor and
     * ceiling of the column period), a rotation by each angle's turn in
     * that time: walk_c/s[k][i] for prism i (i = nprism: the head); MEMS:
     * i = 0 the horizontal carrier, 1 the vertical. */
    int64_t walk_dt;
    int64_t walk;            /* an anchor every walk-th column (pattern_risley.c, WALK) */
    double walk_c[2][SENSIM_MAX_PRISMS + 1], walk_s[2][SENSIM_MAX_PRISMS + 1];

    /* MEMS */
    double mems_h_hz, mems_v_hz;

    /* CALLBACK */
    sensim_shot_fn fn;
    void *fn_user;
} sensim_pattern;

/* A TABLE pattern's angles in double (a pattern CSV's, pattern_csv.h):
 * with them the directions are computed from these instead of the desc's
 * float azimuth_rad / elevation_rad (which may then be NULL), rounded to
 * float once. NULL, NULL: the desc's floats (the public API). */
sensim_status sensim__pattern_init(sensim_pattern *p, const sensim_lidar_desc *d, const double *table_az_rad,
                                   const double *table_el_rad);
/* sensim_lidar_create (lidar.c) with a TABLE's angles in double, as above. */
sensim_status sensim__lidar_create(sensim_context *ctx, const sensim_lidar_desc *d, const double *table_az_rad,
                                   const double *table_el_rad, sensim_lidar **out);
void sensim__pattern_free(sensim_pattern *p);

/* Firing time of shot g, ns. */
int64_t sensim__pattern_time(const sensim_pattern *p, int64_t g);
/* Smallest shot index whose firing time is >= t. */
int64_t sensim__pattern_first_at(const sensim_pattern *p, int64_t t);
/* Channel and sensor-frame unit direction of shot g fired at t; false if the
 * shot produces no beam (total internal reflection, blanking). */
bool sensim__pattern_shot(const sensim_pattern *p, int64_t g, int64_t t, uint16_t *channel, float dir[3]);
/* Shots g0 .. g0+n-1 at once (times, channels, directions, beam flags);
 * equal, shot by shot, to sensim__pattern_time + sensim__pattern_shot, but
 * sharing per-column work (column times, prism angles, MEMS carriers; the
 * Risley and MEMS angles walked between exact anchors, directions within
 * ~1e-14 rad of the closed form, the same bits wherever a batch starts). */
void sensim__pattern_batch(const sensim_pattern *p, int64_t g0, uint32_t n, int64_t *t, uint16_t *ch, float *dir,
                           uint8_t *ok);
/* Sensor-frame beam origin of shot g (fired at t): zero unless the pattern
 * has a beam-origin offset (mechanical beam_origin_offset_m). */
void sensim__pattern_origin(const sensim_pattern *p, int64_t g, int64_t t, float org[3]);

/* Upper bound of shots in one frame. */
uint64_t sensim__pattern_max_frame_shots(const sensim_pattern *p);

/* Kind-specific parts, in their own files. */
sensim_status sensim__mech_init(sensim_pattern *p, const sensim_lidar_desc *d);
int64_t sensim__mech_time(const sensim_pattern *p, int64_t g);
int64_t sensim__mech_first_at(const sensim_pattern *p, int64_t t);
bool sensim__mech_dir(const sensim_pattern *p, int64_t g, uint16_t *channel, float dir[3]);
void sensim__mech_batch(const sensim_pattern *p, int64_t g0, uint32_t n, int64_t *t, uint16_t *ch, float *dir,
                        uint8_t *ok);

sensim_status sensim__risley_init(sensim_pattern *p, const sensim_lidar_desc *d);
/* Times are integer ns (exact phase at any epoch). */
bool sensim__risley_dir(const sensim_pattern *p, uint32_t laser, int64_t t_ns, float dir[3]);
/* The same with the prism angles (and head angle) of time t_s computed once. */
/* Per-time state of the prisms: face-normal angles (cos, sin) and head angle. */
typedef struct sensim_risley_state {
    double c[SENSIM_MAX_PRISMS], s[SENSIM_MAX_PRISMS];
    double ch, sh;
} sensim_risley_state;
void sensim__risley_angles(const sensim_pattern *p, int64_t t_ns, sensim_risley_state *st);
bool sensim__risley_dir_at(const sensim_pattern *p, uint32_t laser, const sensim_risley_state *st, float dir[3]);
/* Shots g0 .. g0 + n - 1 of a Risley pattern, four at a time: the same
 * times, channels and bits as sensim__risley_dir_at() shot by shot. */
void sensim__risley_batch(const sensim_pattern *p, int64_t g0, uint32_t n, int64_t *t, uint16_t *ch, float *dir,
                          uint8_t *ok);
/* Time of column m of a Risley or MEMS pattern (ns; floor of m · period, the
 * period in ps: exact in 128 bits). Inline: the Risley batch's per-column
 * time and the pattern's shot time share it without one calling the other. */
__extension__ typedef __int128 sensim_i128;
static inline int64_t sensim__pattern_column_time(const sensim_pattern *p, int64_t m)
{
    sensim_i128 a = (sensim_i128)m * p->q_ps, q = a / 1000;
    if (a % 1000 != 0 && a < 0)
        q--;
    return (int64_t)q;
}
/* Exact trace of one beam through the prisms at the given prism angles;
 * false on total internal reflection. Exposed for tests. */
bool sensim__risley_trace(const sensim_pattern *p, const double in_dir[3], const double *angles, double out[3]);
sensim_status sensim__mems_init(sensim_pattern *p, const sensim_lidar_desc *d);
void sensim__mems_dir(const sensim_pattern *p, uint32_t column, int64_t t_ns, float dir[3]);
void sensim__mems_carriers(const sensim_pattern *p, int64_t t_ns, double *X, double *s);
void sensim__mems_dir_at(uint32_t column, double X, double s, float dir[3]);
/* Shots g0 .. g0 + n - 1 of a MEMS pattern: the same times and channels
 * as sensim__mems_dir() shot by shot, directions within ~1e-15 rad (the
 * carriers walked from column to column between exact anchors, as the
 * Risley batch walks its prism angles). */
void sensim__mems_batch(const sensim_pattern *p, int64_t g0, uint32_t n, int64_t *t, uint16_t *ch, float *dir,
                        uint8_t *ok);
/* Sub-pattern @p column's azimuth and elevation (rad) from the carriers. */
void sensim__mems_angles(uint32_t column, double X, double s, double *az, double *el);
/* Directions of @p n shots from their angles (SLEEF's sincos, vmath.h; the
 * same bits as sensim__mems_dir_at of each). */
void sensim__mems_dirs(const double *az, const double *el, uint32_t n, float *dir);

#endif
