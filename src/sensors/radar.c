/* Ray-cast radar with Doppler (sensim/radar.h): CARLA's model and a
 * physical one (radar equation, Albersheim detection, resolution, noise). */
#include "motion.h"
#include "nav_impl.h"
#include "parse.h"
#include "returns.h"
#include "trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENSIM_MAGIC_RADAR 0x44524E53u
#define MAX_RAYS 65536

struct sensim_radar {
    _Atomic uint32_t magic;
    sensim_context *ctx;
    sensim_radar_desc d;
    int64_t period_ns;
    uint64_t rays;       /* per sample */
    double mount[16];
    double omega;        /* solid angle of one ray's share of the field of view, sr */
    double rain_db_per_m; /* rain's one-way specific attenuation (physical model) */
    atomic_int busy;
    sensim_ray *buf;     /* rays of a sample */
    sensim_ray_hit *hits;
    sensim_radar_detection *det; /* for rigs */
};

_Static_assert(sizeof(sensim_radar_detection) == sizeof(sensim_point), "a detection is a point record's size");

static const sensim_field radar_fields[] = {
    {"depth", 0, SENSIM_FIELD_FLOAT32, 1},     {"azimuth", 4, SENSIM_FIELD_FLOAT32, 1},
    {"altitude", 8, SENSIM_FIELD_FLOAT32, 1},  {"velocity", 12, SENSIM_FIELD_FLOAT32, 1},
    {"rcs_dbsm", 16, SENSIM_FIELD_FLOAT32, 1}, {"snr_db", 20, SENSIM_FIELD_FLOAT32, 1},
    {"object_id", 24, SENSIM_FIELD_UINT32, 1}, {"ray", 28, SENSIM_FIELD_UINT16, 1},
    {"tag", 30, SENSIM_FIELD_UINT8, 1},        {"flags", 31, SENSIM_FIELD_UINT8, 1},
};

const sensim_field *sensim_radar_fields(uint32_t *out_count)
{
    if (out_count)
        *out_count = (uint32_t)(sizeof radar_fields / sizeof radar_fields[0]);
    return radar_fields;
}

void sensim_radar_desc_init(sensim_radar_desc *d)
{
    if (!d)
        return;
    memset(d, 0, sizeof *d);
    d->model = SENSIM_RADAR_CARLA;
    d->interp = SENSIM_INTERP_SPLINE;
    d->rate_hz = 20;
    d->hfov_deg = d->vfov_deg = 30;
    d->range_m = 100;
    d->points_per_second = 1500;
    sensim__mat4_identity(d->mount_pose);
    d->snr_ref_db = 20;
    d->pfa = 1e-6;
}

sensim_status sensim_radar_desc_set(sensim_radar_desc *d, const char *key, const char *value)
{
    if (!d || !key || !value)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_radar_desc_set: NULL argument");
    if (!strcmp(key, "model")) {
        if (strcmp(value, "carla") && strcmp(value, "physical"))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "radar key model: '%.64s' (carla or physical)", value);
        d->model = !strcmp(value, "physical") ? SENSIM_RADAR_PHYSICAL : SENSIM_RADAR_CARLA;
        return SENSIM_OK;
    }
    /* keys shared with navigation sensors (interp, seed, rate_hz, mounts): their parser, then copy back */
    if (!strcmp(key, "interp") || !strcmp(key, "seed") || !strcmp(key, "mount_xyz_m") ||
        !strcmp(key, "mount_rpy_deg")) {
        sensim_nav_desc n;
        sensim_nav_desc_init(&n, SENSIM_NAV_ODOMETRY);
        n.interp = d->interp, n.seed = d->seed;
        memcpy(n.mount_pose, d->mount_pose, sizeof n.mount_pose);
        if (sensim__mat4_is_zero(n.mount_pose))
            sensim__mat4_identity(n.mount_pose);
        sensim_status st = sensim_nav_desc_set(&n, key, value);
        if (st == SENSIM_OK) {
            d->interp = n.interp, d->seed = n.seed;
            memcpy(d->mount_pose, n.mount_pose, sizeof d->mount_pose);
        }
        return st;
    }
    struct {
        const char *k;
        double *p;
        double lo, hi;
    } keys[] = {
        {"rate_hz", &d->rate_hz, 0.1, 1000},
        {"horizontal_fov", &d->hfov_deg, 1e-3, 170},
        {"vertical_fov", &d->vfov_deg, 1e-3, 170},
        {"range", &d->range_m, 1e-3, 1e4},
        {"points_per_second", &d->points_per_second, 1, 1e7},
        {"snr_ref_db", &d->snr_ref_db, -100, 200},
        {"pfa", &d->pfa, 1e-12, 1e-2},
        {"range_resolution", &d->range_resolution_m, 0, 100},
        {"azimuth_resolution", &d->azimuth_resolution_deg, 0, 90},
        {"velocity_resolution", &d->velocity_resolution_mps, 0, 100},
        {"range_noise", &d->range_noise_m, 0, 100},
        {"azimuth_noise", &d->azimuth_noise_deg, 0, 90},
        {"velocity_noise", &d->velocity_noise_mps, 0, 100},
        {"max_velocity", &d->max_velocity_mps, 0, 1e4},
        {"rain_rate", &d->rain_rate_mm_h, 0, 500},
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!strcmp(keys[i].k, key))
            return sensim__key_number("radar", key, value, keys[i].lo, keys[i].hi, keys[i].p);
    return sensim__fail(SENSIM_ERR_UNKNOWN_KEY, "unknown radar key '%.64s'", key);
}

/* Rec. ITU-R P.838 (horizontal polarisation): gamma = k·rate^alpha dB/km, k and alpha at 77 GHz from
 * the 70 and 80 GHz rows (k 0.851 / 0.975, alpha 0.793 / 0.769), log k and alpha linear in log f */
static double rain_db_per_m(double rate_mm_h)
{
    if (!(rate_mm_h > 0))
        return 0;
    const double u = log(77.0 / 70.0) / log(80.0 / 70.0);
    const double k = exp(log(0.851) + u * (log(0.975) - log(0.851))), alpha = 0.793 + u * (0.769 - 0.793);
    return k * pow(rate_mm_h, alpha) * 1e-3;
}

sensim_status sensim_radar_set_weather(sensim_radar *r, double rain_rate_mm_h)
{
    SENSIM_CHECK_HANDLE(r, SENSIM_MAGIC_RADAR, "radar");
    if (!isfinite(rain_rate_mm_h))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_radar_set_weather: rain_rate_mm_h is NaN or infinite");
    if (!(rain_rate_mm_h >= 0 && rain_rate_mm_h <= 500))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_radar_set_weather: rain_rate_mm_h = %g outside [0, 500]",
                            rain_rate_mm_h);
    int expect = 0;
    if (!atomic_compare_exchange_strong(&r->busy, &expect, 1))
        return sensim__fail(SENSIM_ERR_BUSY, "sensim_radar_set_weather: a sample of this radar runs on another thread");
    r->d.rain_rate_mm_h = rain_rate_mm_h;
    r->rain_db_per_m = r->d.model == SENSIM_RADAR_PHYSICAL ? rain_db_per_m(rain_rate_mm_h) : 0.0;
    atomic_store(&r->busy, 0);
    return SENSIM_OK;
}

sensim_status sensim_radar_create(sensim_context *ctx, const sensim_radar_desc *d, sensim_radar **out)
{
    SENSIM_CHECK_HANDLE(ctx, SENSIM_MAGIC_CONTEXT, "context");
    if (!d || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_radar_create: NULL argument");
    for (int i = 0; i < 7; i++)
        if (d->reserved[i])
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "radar: reserved fields must be zero");
    if ((d->model != SENSIM_RADAR_CARLA && d->model != SENSIM_RADAR_PHYSICAL) ||
        (d->interp != SENSIM_INTERP_LINEAR && d->interp != SENSIM_INTERP_SPLINE && d->interp != SENSIM_INTERP_CAUSAL))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "radar: model %d or interpolation %d unknown", d->model,
                            d->interp);
    const double v[] = {d->rate_hz, d->hfov_deg, d->vfov_deg, d->range_m, d->points_per_second, d->snr_ref_db,
                        d->pfa, d->range_resolution_m, d->azimuth_resolution_deg, d->velocity_resolution_mps,
                        d->range_noise_m, d->azimuth_noise_deg, d->velocity_noise_mps, d->max_velocity_mps, d->rain_rate_mm_h};
    if (!sensim__finite_array_d(v, sizeof v / sizeof *v))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "radar: a NaN or infinite parameter");
    if (!(d->rate_hz >= 0.1 && d->rate_hz <= 1000) || !(d->hfov_deg > 0 && d->hfov_deg <= 170) ||
        !(d->vfov_deg > 0 && d->vfov_deg <= 170) || !(d->range_m > 0 && d->range_m <= 1e4) ||
        !(d->points_per_second >= 1 && d->points_per_second <= 1e7) || !(d->pfa >= 1e-12 && d->pfa <= 1e-2) ||
        fabs(d->snr_ref_db) > 200 || d->range_resolution_m < 0 || d->azimuth_resolution_deg < 0 ||
        d->velocity_resolution_mps < 0 || d->range_noise_m < 0 || d->azimuth_noise_deg < 0 ||
        d->velocity_noise_mps < 0 || d->max_velocity_mps < 0 || !(d->rain_rate_mm_h >= 0 && d->rain_rate_mm_h <= 500))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "radar: a parameter outside its range (rate [0.1, 1000] Hz, "
                                                     "fov (0, 170]°, range (0, 1e4] m, 1..1e7 rays/s, Pfa "
                                                     "[1e-12, 1e-2], resolutions and noise >= 0, rain_rate_mm_h [0, 500])");
    if (!sensim__mat4_is_zero(d->mount_pose)) {
        sensim_status st = sensim__check_pose(d->mount_pose, "radar mount");
        if (st != SENSIM_OK)
            return st;
        if (!sensim__mat4_is_rigid(d->mount_pose))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "radar: the mount pose is not rigid");
    }
    const int64_t period = (int64_t)floor(1e9 / d->rate_hz + 0.5);
    const double n = floor(d->points_per_second * (double)period * 1e-9 + 1e-9);
    if (n > MAX_RAYS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "radar: %.0f rays a sample (points_per_second / rate_hz) "
                                                     "beyond %d", n, MAX_RAYS);
    sensim_radar *r = calloc(1, sizeof *r);
    if (r) {
        r->buf = malloc(((size_t)n + 1) * sizeof *r->buf);
        r->hits = malloc(((size_t)n + 1) * sizeof *r->hits);
        r->det = malloc(((size_t)n + 1) * sizeof *r->det);
    }
    if (!r || !r->buf || !r->hits || !r->det) {
        if (r)
            free(r->buf), free(r->hits), free(r->det);
        free(r);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot allocate a radar");
    }
    r->d = *d;
    r->period_ns = period;
    r->rays = (uint64_t)n;
    if (sensim__mat4_is_zero(d->mount_pose))
        sensim__mat4_identity(r->mount);
    else
        memcpy(r->mount, d->mount_pose, sizeof r->mount);
    /* solid angle of the elliptical cone through the aim plane's ellipse, shared by the rays */
    const double a = tan(d->hfov_deg * SENSIM_PI / 360), b = tan(d->vfov_deg * SENSIM_PI / 360);
    r->omega = (r->rays ? SENSIM_PI * a * b / (double)r->rays : 0) / sqrt(1 + 0.5 * (a * a + b * b));
    r->rain_db_per_m = d->model == SENSIM_RADAR_PHYSICAL ? rain_db_per_m(d->rain_rate_mm_h) : 0.0;
    r->ctx = ctx;
    sensim__context_retain(ctx);
    atomic_init(&r->busy, 0);
    r->magic = SENSIM_MAGIC_RADAR;
    *out = r;
    return SENSIM_OK;
}

void sensim_radar_destroy(sensim_radar *r)
{
    if (!r || r->magic != SENSIM_MAGIC_RADAR)
        return;
    r->magic = SENSIM_MAGIC_DEAD;
    sensim_context *ctx = r->ctx;
    free(r->buf);
    free(r->hits);
    free(r->det);
    free(r);
    sensim__context_release(ctx);
}

int64_t sensim_radar_period_ns(const sensim_radar *r)
{
    return r && r->magic == SENSIM_MAGIC_RADAR ? r->period_ns : 0;
}

uint64_t sensim_radar_rays_per_sample(const sensim_radar *r)
{
    return r && r->magic == SENSIM_MAGIC_RADAR ? r->rays : 0;
}

enum { P_R = 201, P_A, P_DET, P_NR, P_NA, P_NV };

static double rnd(const sensim_radar *r, uint64_t k, uint64_t ray, uint32_t purpose)
{
    return sensim__rng_uniform(r->d.seed, r->d.sensor_id, k, (uint32_t)ray, purpose);
}

static double gauss(const sensim_radar *r, uint64_t k, uint64_t ray, uint32_t purpose)
{
    double u1 = sensim__rng_uniform(r->d.seed, r->d.sensor_id, k, (uint32_t)(2 * ray), purpose);
    double u2 = sensim__rng_uniform(r->d.seed, r->d.sensor_id, k, (uint32_t)(2 * ray + 1), purpose);
    return sqrt(-2.0 * log1p(-u1)) * cos(2.0 * SENSIM_PI * u2);
}

/* Radar reflectivity ρ of a tag (CARLA 0.9.14+ ids). */
static double tag_rho(uint8_t tag)
{
    switch (tag) {
    case 14: case 15: case 16: case 17: case 18: case 19: /* car, truck, bus, train, motorcycle, bicycle */
        return 1.0;
    case 5: case 7: case 8: /* pole, traffic light, traffic sign */
        return 0.6;
    case 3: case 4: case 6: case 28: /* building, wall, fence, guard rail */
        return 0.3;
    case 1: case 2: case 10: case 24: case 25: /* roads, sidewalks, terrain, road lines, ground */
        return 0.05;
    case 9: /* vegetation */
        return 0.1;
    case 12: case 13: /* pedestrian, rider */
        return 0.1;
    default:
        return 0.2;
    }
}

static double quantise(double v, double step)
{
    return step > 0 ? step * floor(v / step + 0.5) : v;
}

sensim_status sensim_radar_sample_at(sensim_radar *r, const sensim_scene *scene, const sensim_pose_key *keys,
                                     uint64_t nk, uint64_t k, sensim_radar_detection *out, uint64_t cap,
                                     uint64_t *out_count, double out_pose[16])
{
    SENSIM_CHECK_HANDLE(r, SENSIM_MAGIC_RADAR, "radar");
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!keys || nk == 0 || !out_count || (!out && cap))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_radar_sample_at: NULL argument or no keys");
    *out_count = 0;
    if (k > (uint64_t)(SENSIM_MAX_TIME_NS / r->period_ns))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_radar_sample_at: sample %llu is beyond 2^62 ns",
                            (unsigned long long)k);
    const int64_t t = (int64_t)k * r->period_ns;
    sensim_kinematics kin;
    sensim_status st = sensim_kinematics_at(keys, nk, r->d.interp, t, &kin);
    if (st != SENSIM_OK)
        return st;
    return sensim__radar_sample_kin(r, scene, &kin, k, out, cap, out_count, out_pose);
}

sensim_status sensim__radar_sample_kin(sensim_radar *r, const sensim_scene *scene, const sensim_kinematics *kinp,
                                       uint64_t k, sensim_radar_detection *out, uint64_t cap, uint64_t *out_count,
                                       double out_pose[16])
{
    *out_count = 0;
    if (k > (uint64_t)(SENSIM_MAX_TIME_NS / r->period_ns))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "radar sample %llu is beyond 2^62 ns", (unsigned long long)k);
    const int64_t t = (int64_t)k * r->period_ns;
    const sensim_kinematics kin = *kinp;
    sensim_status st = SENSIM_OK;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&r->busy, &expect, 1))
        return sensim__fail(SENSIM_ERR_BUSY, "radar: already sampling on another thread");
    if ((st = sensim__scene_scan_begin(scene)) != SENSIM_OK) {
        atomic_store(&r->busy, 0);
        return st;
    }
    double S[16], wr[3], vs[3];
    sensim__mat4_mul(kin.pose, r->mount, S);
    if (out_pose)
        memcpy(out_pose, S, sizeof S);
    /* the sensor's velocity: the platform's plus ω × r (r: the mount offset), in the world */
    const double *w = kin.angular_velocity, *mo = &r->mount[12];
    wr[0] = w[1] * mo[2] - w[2] * mo[1], wr[1] = w[2] * mo[0] - w[0] * mo[2], wr[2] = w[0] * mo[1] - w[1] * mo[0];
    for (int i = 0; i < 3; i++)
        vs[i] = kin.velocity[i] + kin.pose[i] * wr[0] + kin.pose[4 + i] * wr[1] + kin.pose[8 + i] * wr[2];
    const double ta = tan(r->d.hfov_deg * SENSIM_PI / 360), tb = tan(r->d.vfov_deg * SENSIM_PI / 360);
    const float time = sensim__scene_ray_time(scene, t);
    for (uint64_t i = 0; i < r->rays; i++) {
        double rr = rnd(r, k, i, P_R), a = 2 * SENSIM_PI * rnd(r, k, i, P_A);
        /* aim point in the sensor frame: x forward, y left (CARLA's right is −y), z up */
        double d[3] = {1.0, -rr * ta * cos(a), rr * tb * sin(a)}, l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        sensim_ray *ray = &r->buf[i];
        for (int q = 0; q < 3; q++) {
            ray->org[q] = (float)S[12 + q];
            ray->dir[q] = (float)((S[q] * d[0] + S[4 + q] * d[1] + S[8 + q] * d[2]) / l);
        }
        ray->tnear = 0;
        ray->tfar = (float)(r->d.range_m * l); /* up to the aim plane, as CARLA's traces */
        ray->time = time;
    }
    sensim__trace_query(scene, r->buf, (uint32_t)r->rays, r->hits);
    uint64_t n = 0;
    for (uint64_t i = 0; i < r->rays && st == SENSIM_OK; i++) {
        const sensim_ray_hit *h = &r->hits[i];
        if (!h->hit)
            continue;
        const sensim_ray *ray = &r->buf[i];
        double u[3] = {ray->dir[0], ray->dir[1], ray->dir[2]}, p[3], vt[3] = {0, 0, 0};
        for (int q = 0; q < 3; q++)
            p[q] = ray->org[q] + u[q] * (double)h->distance;
        if (h->object_id) {
            const sensim_actor *act = sensim__scene_actor_by_id(scene, h->object_id);
            double wa[3] = {0, 0, 0};
            if (act) {
                sensim__actor_velocity_at(scene, act, t, vt, wa);
                if (r->d.model == SENSIM_RADAR_PHYSICAL) { /* + ω × (hit − origin) */
                    double A[16], rel[3];
                    sensim__actor_pose_at(act, time, A);
                    for (int q = 0; q < 3; q++)
                        rel[q] = p[q] - A[12 + q];
                    vt[0] += wa[1] * rel[2] - wa[2] * rel[1];
                    vt[1] += wa[2] * rel[0] - wa[0] * rel[2];
                    vt[2] += wa[0] * rel[1] - wa[1] * rel[0];
                }
            }
        }
        double vel = (vt[0] - vs[0]) * u[0] + (vt[1] - vs[1]) * u[1] + (vt[2] - vs[2]) * u[2];
        /* angles of the ray in the sensor frame */
        double ls[3];
        for (int q = 0; q < 3; q++)
            ls[q] = S[4 * q] * u[0] + S[4 * q + 1] * u[1] + S[4 * q + 2] * u[2];
        double az = atan2(ls[1], ls[0]), alt = asin(fmax(-1.0, fmin(1.0, ls[2]))), R = h->distance;
        double cosi = -(h->normal[0] * u[0] + h->normal[1] * u[1] + h->normal[2] * u[2]);
        cosi = cosi > 1e-6 ? cosi : 1e-6;
        double rcs = 4 * tag_rho(h->tag) * R * R * r->omega * cosi;
        double snr = r->d.snr_ref_db + 10 * log10(rcs / 10.0) - 40 * log10(R / 100.0) - r->rain_db_per_m * 2 * R;
        if (r->d.model == SENSIM_RADAR_PHYSICAL) {
            const double A = log(0.62 / r->d.pfa), B = (snr - A) / (0.12 * A + 1.7), pd = 1 / (1 + exp(-B));
            if (rnd(r, k, i, P_DET) >= pd)
                continue;
            R = quantise(R, r->d.range_resolution_m) + r->d.range_noise_m * gauss(r, k, i, P_NR);
            const double ares = r->d.azimuth_resolution_deg * SENSIM_PI / 180;
            az = quantise(az, ares) + r->d.azimuth_noise_deg * SENSIM_PI / 180 * gauss(r, k, i, P_NA);
            vel = quantise(vel, r->d.velocity_resolution_mps) + r->d.velocity_noise_mps * gauss(r, k, i, P_NV);
            if (r->d.max_velocity_mps > 0) { /* fold into [−v_max, v_max) */
                const double span = 2 * r->d.max_velocity_mps;
                vel -= span * floor((vel + r->d.max_velocity_mps) / span);
            }
        }
        if (n == cap) {
            st = sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_radar_sample_at: more than %llu detections",
                              (unsigned long long)cap);
            break;
        }
        sensim_radar_detection *o = &out[n++];
        memset(o, 0, sizeof *o);
        o->depth_m = (float)R, o->azimuth_rad = (float)az, o->altitude_rad = (float)alt, o->velocity_mps = (float)vel;
        o->rcs_dbsm = (float)(10 * log10(rcs)), o->snr_db = (float)snr;
        o->object_id = h->object_id, o->ray = (uint16_t)i, o->tag = h->tag;
    }
    sensim__scene_scan_end(scene);
    atomic_store(&r->busy, 0);
    *out_count = n;
    return st;
}

bool sensim__radar_check(const sensim_radar *r)
{
    return r && r->magic == SENSIM_MAGIC_RADAR;
}

sensim_radar_detection *sensim__radar_buffer(sensim_radar *r)
{
    return r->det;
}

uint32_t sensim__radar_sensor_id(const sensim_radar *r)
{
    return r->d.sensor_id;
}
