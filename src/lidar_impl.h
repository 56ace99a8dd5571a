/* Lidar internals: the mechanical pattern and the scan loop. */
#ifndef SENSIM_LIDAR_IMPL_H
#define SENSIM_LIDAR_IMPL_H

#include "returns.h"

/* Columns traced per parallel step; the scratch holds this many columns. */
#define SENSIM_CHUNK_COLS 64u

typedef struct sensim_mech_pattern {
    uint32_t channels;
    uint32_t cols_per_rev;   /* C */
    uint32_t cols_in_fov;    /* columns that fire each revolution */
    int64_t period_ns;       /* P */
    float *cos_el, *sin_el;  /* per channel */
    float *cos_off, *sin_off;/* per channel azimuth offset */
    int32_t *fire_off_ns;    /* per channel */
    uint32_t *fire_order;    /* channels sorted by (firing offset, channel) */
    float *cos_col, *sin_col;/* per column in FOV: start + spin·2πk/C */
    float *elevation_rad;    /* as given, for sensim_lidar_get_elevations */
} sensim_mech_pattern;

/* Column k's firing time within its revolution: floor(k·P/C). */
static inline int64_t sensim__col_time(const sensim_mech_pattern *p, int64_t k)
{
    return k * p->period_ns / p->cols_per_rev;
}

/* Smallest column k >= 0 with col_time(k) >= x (x may exceed P: returns a
 * value > cols_in_fov, clamp at the caller). */
static inline int64_t sensim__col_first_at(const sensim_mech_pattern *p, int64_t x)
{
    if (x <= 0)
        return 0;
    /* floor(kP/C) >= x  <=>  kP/C >= x  <=>  k >= ceil(xC/P) */
    return (x * (int64_t)p->cols_per_rev + p->period_ns - 1) / p->period_ns;
}

sensim_status sensim__mech_pattern_init(sensim_mech_pattern *p, const sensim_lidar_desc *d);
void sensim__mech_pattern_free(sensim_mech_pattern *p);

struct sensim_lidar {
    sensim_context *ctx;
    char name[32];
    sensim_mech_pattern pat;
    sensim_return_params rp;
    double mount[16];
    double rotation_hz;
    int64_t last_end_ns;
    bool has_last;
    /* scratch, allocated at creation: channels × SENSIM_CHUNK_COLS each */
    sensim_ray *rays;
    sensim_hit *hits;
    float *dirs;        /* sensor-frame directions, 3 per slot */
    sensim_point *slots;
    uint8_t *valid;
};

#endif
