/* Return model: from the hits of one shot to at most two point records.
 * Formulas are documented with sensim_return_desc in <sensim/lidar.h>. */
#ifndef SENSIM_RETURNS_H
#define SENSIM_RETURNS_H

#include "trace.h"

#include <stdatomic.h>

#define SENSIM_MAX_SUBRAYS 37
#define SENSIM_RAIN_STEPS 200
#define SENSIM_ERFC_W 6
#define SENSIM_ERFC_STEP 16
#define SENSIM_ERFC_N (2 * SENSIM_ERFC_W * SENSIM_ERFC_STEP + 1)

/* Bench only (sensim_bench_record_secondary): where a lidar's scans log
 * the secondary rays they trace (mirror rays, transmissions), any thread;
 * rays offered beyond cap are counted in n but not kept. */
typedef struct sensim_ray_log {
    sensim_ray *rays;
    uint64_t cap;
    _Atomic uint64_t n;
} sensim_ray_log;

typedef struct sensim_return_params {
    float min_range_m;
    float max_range_m;
    float range_noise_stddev_m;
    float atmos_atten_per_m;  /* CARLA model */
    uint64_t seed;
    uint32_t lidar_id;
    uint64_t rng_key[8];      /* sensim__rng_key(seed, lidar_id, purpose) per SENSIM_RNG_* purpose */
    sensim_return_desc d;     /* with defaults resolved */
    double ext_per_m;         /* physical two-way extinction a: clear + fog + rain */
    double weather_ext_per_m; /* its fog + rain share (the CARLA intensity model's weather) */
    double r0;                /* intensity calibration range */
    uint32_t nsub;            /* sub-rays (1 = single) */
    double cell_rad;          /* angular spacing of the sub-ray rings */
    double pulse_half_m;      /* c·pulse_width/4: half the range overlap of two echoes */
    float sub_h[SENSIM_MAX_SUBRAYS], sub_v[SENSIM_MAX_SUBRAYS], sub_w[SENSIM_MAX_SUBRAYS];
    double tan_h[SENSIM_MAX_SUBRAYS + 3], tan_v[SENSIM_MAX_SUBRAYS + 3]; /* tan of sub_h, sub_v (no jitter);
                                                                        3 more: four are read at a time */
    /* rain droplets: cumulative expected count of detectable drops up to r = k·rain_dr */
    double rain_dr, rain_lambda_mm;
    double rain_cum[SENSIM_RAIN_STEPS + 1];
    /* erfc(w) at w = k / SENSIM_ERFC_STEP - SENSIM_ERFC_W, k = 0 .. SENSIM_ERFC_N - 1 (libm's values):
     * brackets for the physical detection draw, which calls erfc only when its uniform falls
     * between two neighbours */
    double erfc_grid[SENSIM_ERFC_N];
    sensim_ray_log *log;      /* NULL unless a bench records the secondary rays */
} sensim_return_params;

/* Random purposes: each random decision of a shot draws from its own stream. */
#define SENSIM_RNG_RANGE_NOISE 1u
#define SENSIM_RNG_JITTER      2u
#define SENSIM_RNG_DROP_SHOT   3u
#define SENSIM_RNG_DROP_POINT  4u
#define SENSIM_RNG_GHOST       5u /* unused since ghosts carry the specular share (kept: streams are numbered) */
#define SENSIM_RNG_RAIN        6u

/* Counter-based hash -> uniform in [0, 1). Same inputs, same number, always. */
double sensim__rng_uniform(uint64_t seed, uint32_t lidar_id, uint64_t shot, uint32_t subray,
                           uint32_t purpose);
/* The part of that hash fixed by (seed, lidar, purpose). */
uint64_t sensim__rng_key(uint64_t seed, uint32_t lidar_id, uint32_t purpose);
/* A standard normal draw of stream (shot, sub, purpose) (Ziggurat). */
double sensim__returns_normal(const sensim_return_params *rp, uint64_t shot, uint32_t sub, uint32_t purpose);
/* Set the seed and the lidar id of @p rp (and the keys derived from them). */
void sensim__returns_seed(sensim_return_params *rp, uint64_t seed, uint32_t lidar_id);

/* Validate @p d's return fields and fill @p rp. */
sensim_status sensim__returns_init(sensim_return_params *rp, const sensim_lidar_desc *d);
/* Replace @p rp's fog visibility and rain rate (checked as by init; on an error @p rp is unchanged). */
sensim_status sensim__returns_set_weather(sensim_return_params *rp, float visibility_m, float rain_rate_mm_h);

/* Whether a return of @p intensity (return index @p idx of @p shot) is detected: the
 * drop-off model's decision, with its draw from stream SENSIM_RNG_DROP_POINT. */
bool sensim__returns_detect(const sensim_return_params *rp, uint64_t shot, uint32_t idx, double intensity);

/* False if the shot is dropped before tracing (CARLA general drop-off). */
bool sensim__returns_keep_shot(const sensim_return_params *rp, uint64_t shot);

/* Sensor-frame direction actually traced for sub-ray @p k (jitter, divergence). */
void sensim__returns_subray_dir(const sensim_return_params *rp, uint64_t shot, uint32_t k,
                                const float nominal[3], float out[3]);

/* What a shot's points carry besides the return model's values: the offset
 * of the beam's origin from the sensor origin (sensor frame, metres; added
 * to x, y, z in float), the firing time from the frame start and the
 * channel. */
typedef struct sensim_shot_meta {
    float origin[3];
    uint32_t t_offset_ns;
    uint16_t channel;
} sensim_shot_meta;

/* The rays of sub-rays 1 .. nsub - 1 of a shot whose sub-ray 0 is @p ray0
 * (origin, range and time taken from it): R is the sensor-to-world rotation
 * (column-major 3x3) at the shot, @p nominal its sensor-frame direction. The
 * caller traces them (in packets with other shots' sub-rays). */
void sensim__returns_subrays(const sensim_return_params *rp, const float R[9], const float nominal[3],
                             const sensim_ray *ray0, uint64_t shot, sensim_ray *out);

/* All returns of one shot. @p hit0 is sub-ray 0's hit (already traced with
 * @p ray0); @p sub_rays / @p sub_hits hold sub-rays 1 .. nsub - 1 from
 * sensim__returns_subrays(), traced (unused when nsub == 1). @p onward
 * (NULL: traced here): the hits of the rays the first hits pass light on
 * along (sensim__returns_onward), traced by the caller. The other
 * bounces and transmissions are traced here; all are counted into
 * *@p rays. Writes up to two whole points (sensor frame) and returns their
 * number. No allocation. */
uint32_t sensim__returns_shot(const sensim_return_params *rp, const sensim_scene *scene, const float nominal[3],
                              const sensim_ray *ray0, const sensim_hit *hit0, const sensim_ray *sub_rays,
                              const sensim_hit *sub_hits, const sensim_hit *onward, uint64_t shot,
                              const sensim_shot_meta *meta, sensim_point out[2], uint32_t *rays);

/* A shot's outcome when its single ray hit a plain surface or nothing
 * (sensim__returns_plain). */
enum { SENSIM_PLAIN_NONE, SENSIM_PLAIN_POINT, SENSIM_PLAIN_FULL };
typedef struct sensim_plain {
    double range;    /* SENSIM_PLAIN_POINT: the point's range (noise added), m */
    float intensity; /* and its intensity */
    uint8_t kind;    /* SENSIM_PLAIN_*: no point, one point, or call sensim__returns_shot() */
} sensim_plain;

/* The return model of @p m shots at once, for those it can take whole:
 * out[j] says whether shot shot0 + live[j] (ray rays[j], hit hits[j])
 * gives no point, one point (written by sensim__returns_plain_point()), or
 * needs sensim__returns_shot() (bounces, transmissions, sub-rays, rain);
 * the same points as sensim__returns_shot(), bit for bit. */
void sensim__returns_plain(const sensim_return_params *rp, const sensim_scene *scene, uint32_t m,
                           const sensim_ray *rays, const sensim_hit *hits, uint64_t shot0, const int64_t *live,
                           sensim_plain *out);

/* The rays the first hits of the SENSIM_PLAIN_FULL shots among @p m pass
 * light on along (transmissions, mirror rays), as sensim__returns_shot()
 * would trace them one at a time: shot j's from out[at[j]] on, for the
 * caller to trace together (16-ray packets: a mid40 frame's mirror rays
 * took 0.151 ms one at a time, 0.081 in packets) and hand to
 * sensim__returns_shot() as &hits[at[j]]. Sub-rays 1 .. nsub - 1 of shot j
 * (more rays a shot) are sub_rays / sub_hits[sub_at[j] ..], traced. The
 * shots are taken in @p order (order[k]: the k-th shot; NULL: 0 .. m - 1),
 * so that neighbours share packets. @p out holds @p cap rays: a shot whose
 * rays find no room gets at[j] = SENSIM_ONWARD_NONE (sensim__returns_shot()
 * traces them). Returns how many. */
uint32_t sensim__returns_onward(const sensim_return_params *rp, const sensim_scene *scene, uint32_t m,
                                const sensim_ray *rays, const sensim_hit *hits, const sensim_plain *plain,
                                const int16_t *order, const sensim_ray *sub_rays, const sensim_hit *sub_hits,
                                const uint16_t *sub_at, uint16_t *at, sensim_ray *out, uint32_t cap);
#define SENSIM_ONWARD_NONE UINT16_MAX /* at[j]: no room (cap), trace them */
/* Whether any surface of @p scene passes light on (a specular or a
 * transparent material): else no hit has onward rays, and
 * sensim__returns_onward() need not run. */
bool sensim__returns_scene_passes_light(const sensim_scene *scene);

/* The rain model's constants (returns.c, returns_init.c). */
#define SENSIM_RAIN_N0 8000.0     /* Marshall–Palmer, m^-3 mm^-1 */
#define SENSIM_WATER_FRESNEL 0.02 /* reflectance of water at normal incidence */
#define SENSIM_RAIN_MAX_RANGE 50.0
#define SENSIM_BEAM_WAIST_M 0.005

/* The intensity calibration's range falloff (r0 / max(r, r0))². */
static inline double sensim__returns_calib(const sensim_return_params *rp, double r)
{
    double x = rp->r0 / (r > rp->r0 ? r : rp->r0);
    return x * x;
}

/* The point at @p range along @p nominal (sensor frame) with the shot's
 * metadata; the beam origin added in float, as it was added to the stored
 * point before. Inline: the lane writes most points through
 * sensim__returns_plain_point() (a call a point was 3.4 % of a pandar128
 * frame). */
static inline void sensim__returns_write_point(const sensim_shot_meta *m, const float nominal[3], double range,
                                               float intensity, uint32_t object_id, uint8_t tag, uint8_t flags,
                                               sensim_point *p)
{
    p->x = (float)(nominal[0] * range) + m->origin[0];
    p->y = (float)(nominal[1] * range) + m->origin[1];
    p->z = (float)(nominal[2] * range) + m->origin[2];
    p->intensity = intensity;
    p->range_m = (float)range;
    p->t_offset_ns = m->t_offset_ns;
    p->object_id = object_id;
    p->channel = m->channel;
    p->tag = tag;
    p->flags = flags;
}

/* The point of a SENSIM_PLAIN_POINT shot (sensim__returns_plain). */
static inline void sensim__returns_plain_point(const sensim_plain *pl, const sensim_hit *hit, const float nominal[3],
                                               const sensim_shot_meta *meta, sensim_point *out)
{
    sensim__returns_write_point(meta, nominal, pl->range, pl->intensity, hit->object_id, hit->tag, 0, out);
}

#endif
