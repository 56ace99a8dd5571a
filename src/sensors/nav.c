/* Navigation sensors (sensim/nav.h): IMU, GNSS and odometry sampled from
 * the platform's kinematics on the world clock. */
#include "motion.h"
#include "nav_impl.h"
#include "parse.h"
#include "returns.h"

#include <math.h>
#include <proj.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENSIM_MAGIC_NAV 0x564E4E53u
#define G_STD 9.80665

struct sensim_nav {
    _Atomic uint32_t magic;
    sensim_context *ctx;
    sensim_nav_desc d;
    int64_t period_ns;
    double mount[16];
    PJ_CONTEXT *pjc;
    PJ *pj;                   /* GNSS exact: ENU at the reference -> geodetic degrees */
    double merc_s, merc_mx0, merc_my0; /* GNSS carla */
    sensim__nav_state st;     /* random walks */
};

void sensim_nav_desc_init(sensim_nav_desc *d, int32_t kind)
{
    if (!d)
        return;
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->interp = SENSIM_INTERP_SPLINE;
    d->rate_hz = kind == SENSIM_NAV_GNSS ? 10.0 : 100.0;
    d->gravity_mps2 = G_STD;
    sensim__mat4_identity(d->mount_pose);
}

static sensim_status num(const char *key, const char *value, double lo, double hi, double *out)
{
    return sensim__key_number("navigation", key, value, lo, hi, out);
}

/* "a, b, c" */
static sensim_status triple(const char *key, const char *value, double lo, double hi, double out[3])
{
    const char *p = value, *end = value + strlen(value);
    for (int i = 0; i < 3; i++) {
        p = sensim__skip_space(p, end);
        if (!sensim__parse_double(&p, end, &out[i]) || !isfinite(out[i]) || out[i] < lo || out[i] > hi)
            return sensim__fail(SENSIM_ERR_PARSE, "navigation key %s: '%.64s' needs three finite numbers in "
                                                  "[%g, %g] (a, b, c)", key, value, lo, hi);
        p = sensim__skip_space(p, end);
        if (i < 2 && (p >= end || *p++ != ','))
            return sensim__fail(SENSIM_ERR_PARSE, "navigation key %s: '%.64s' needs a, b, c", key, value);
    }
    if (sensim__skip_space(p, end) != end)
        return sensim__fail(SENSIM_ERR_PARSE, "navigation key %s: '%.64s' has text after a, b, c", key, value);
    return SENSIM_OK;
}

sensim_status sensim_nav_desc_set(sensim_nav_desc *d, const char *key, const char *value)
{
    if (!d || !key || !value)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_nav_desc_set: NULL argument");
    if (!strcmp(key, "interp")) {
        if (strcmp(value, "linear") && strcmp(value, "spline") && strcmp(value, "causal"))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "navigation key interp: '%.64s' (linear, spline or causal)",
                                value);
        d->interp = !strcmp(value, "spline")   ? SENSIM_INTERP_SPLINE
                    : !strcmp(value, "causal") ? SENSIM_INTERP_CAUSAL
                                               : SENSIM_INTERP_LINEAR;
        return SENSIM_OK;
    }
    if (!strcmp(key, "model")) {
        if (strcmp(value, "exact") && strcmp(value, "carla"))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "navigation key model: '%.64s' (exact or carla)", value);
        d->gnss_model = !strcmp(value, "carla") ? SENSIM_GNSS_CARLA : SENSIM_GNSS_EXACT;
        return SENSIM_OK;
    }
    if (!strcmp(key, "mount_xyz_m") || !strcmp(key, "mount_rpy_deg")) {
        /* keep the other half of the mount: read it back from the matrix */
        double xyz[3] = {d->mount_pose[12], d->mount_pose[13], d->mount_pose[14]}, rpy[3], v[3];
        const double *M = d->mount_pose;
        rpy[0] = atan2(M[6], M[10]) * 180 / SENSIM_PI;
        rpy[1] = asin(fmax(-1, fmin(1, -M[2]))) * 180 / SENSIM_PI;
        rpy[2] = atan2(M[1], M[0]) * 180 / SENSIM_PI;
        sensim_status st = triple(key, value, key[6] == 'x' ? -1e6 : -360, key[6] == 'x' ? 1e6 : 360, v);
        if (st != SENSIM_OK)
            return st;
        memcpy(key[6] == 'x' ? xyz : rpy, v, sizeof v);
        sensim__pose_from_xyz_rpy(xyz[0], xyz[1], xyz[2], rpy[0] * SENSIM_PI / 180, rpy[1] * SENSIM_PI / 180,
                                  rpy[2] * SENSIM_PI / 180, d->mount_pose);
        return SENSIM_OK;
    }
    static const char *const axes = "xyz";
    struct {
        const char *k;
        double *p;
        double lo, hi;
    } keys[] = {
        {"rate_hz", &d->rate_hz, 0.1, 10000},
        {"gravity", &d->gravity_mps2, 0, 100},
        {"accel_noise_density", &d->accel_noise_density, 0, 1e3},
        {"gyro_noise_density", &d->gyro_noise_density, 0, 1e3},
        {"accel_random_walk", &d->accel_random_walk, 0, 1e3},
        {"gyro_random_walk", &d->gyro_random_walk, 0, 1e3},
        {"latitude", &d->ref_latitude_deg, -90, 90},
        {"longitude", &d->ref_longitude_deg, -180, 180},
        {"altitude", &d->ref_altitude_m, -1e5, 1e6},
        {"noise_lat_bias", &d->lat_bias_deg, -90, 90},
        {"noise_lat_stddev", &d->lat_stddev_deg, 0, 90},
        {"noise_lon_bias", &d->lon_bias_deg, -180, 180},
        {"noise_lon_stddev", &d->lon_stddev_deg, 0, 180},
        {"noise_alt_bias", &d->alt_bias_m, -1e6, 1e6},
        {"noise_alt_stddev", &d->alt_stddev_m, 0, 1e6},
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!strcmp(keys[i].k, key))
            return num(key, value, keys[i].lo, keys[i].hi, keys[i].p);
    if (!strcmp(key, "seed")) {
        double v;
        sensim_status st = num(key, value, 0, 4294967295.0, &v);
        if (st == SENSIM_OK && v != floor(v))
            return sensim__fail(SENSIM_ERR_PARSE, "navigation key seed: '%.64s' is not an integer", value);
        if (st == SENSIM_OK)
            d->seed = (uint32_t)v;
        return st;
    }
    /* per-axis keys: CARLA's noise_accel_stddev_x ... and accel_bias_x ... */
    struct {
        const char *prefix;
        double *p;
        double lo, hi;
    } axis_keys[] = {
        {"noise_accel_stddev_", d->accel_stddev, 0, 1e3},
        {"noise_gyro_stddev_", d->gyro_stddev, 0, 1e3},
        {"noise_gyro_bias_", d->gyro_bias, -1e3, 1e3},
        {"accel_bias_", d->accel_bias, -1e3, 1e3},
    };
    for (size_t i = 0; i < sizeof axis_keys / sizeof *axis_keys; i++) {
        size_t n = strlen(axis_keys[i].prefix);
        if (strncmp(key, axis_keys[i].prefix, n) != 0) /* also stops at the end of a shorter key */
            continue;
        const char *ax = key[n] ? strchr(axes, key[n]) : NULL;
        if (ax && key[n + 1] == '\0')
            return num(key, value, axis_keys[i].lo, axis_keys[i].hi, &axis_keys[i].p[ax - axes]);
    }
    return sensim__fail(SENSIM_ERR_UNKNOWN_KEY, "unknown navigation key '%.64s'", key);
}

static sensim_status check_desc(const sensim_nav_desc *d)
{
    if (d->kind < SENSIM_NAV_IMU || d->kind > SENSIM_NAV_ODOMETRY)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "navigation sensor: kind %d unknown", d->kind);
    if (d->interp != SENSIM_INTERP_LINEAR && d->interp != SENSIM_INTERP_SPLINE && d->interp != SENSIM_INTERP_CAUSAL)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "navigation sensor: interpolation %d unknown", d->interp);
    if (d->gnss_model != SENSIM_GNSS_EXACT && d->gnss_model != SENSIM_GNSS_CARLA)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "navigation sensor: GNSS model %d unknown", d->gnss_model);
    if (d->reserved_u32)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "navigation sensor: reserved fields must be zero");
    for (int i = 0; i < 8; i++)
        if (d->reserved[i])
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "navigation sensor: reserved fields must be zero");
    const double *nonneg[] = {&d->accel_stddev[0], &d->accel_stddev[1], &d->accel_stddev[2], &d->gyro_stddev[0],
                              &d->gyro_stddev[1], &d->gyro_stddev[2], &d->accel_noise_density,
                              &d->gyro_noise_density, &d->accel_random_walk, &d->gyro_random_walk,
                              &d->lat_stddev_deg, &d->lon_stddev_deg, &d->alt_stddev_m, &d->gravity_mps2};
    for (size_t i = 0; i < sizeof nonneg / sizeof *nonneg; i++) {
        if (!isfinite(*nonneg[i]))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "navigation sensor: a noise or gravity value is not finite");
        if (*nonneg[i] < 0 || *nonneg[i] > 1e6)
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "navigation sensor: noise and gravity must be in [0, 1e6]");
    }
    const double other[] = {d->rate_hz, d->gyro_bias[0], d->gyro_bias[1], d->gyro_bias[2], d->accel_bias[0],
                            d->accel_bias[1], d->accel_bias[2], d->ref_latitude_deg, d->ref_longitude_deg,
                            d->ref_altitude_m, d->lat_bias_deg, d->lon_bias_deg, d->alt_bias_m};
    if (!sensim__finite_array_d(other, sizeof other / sizeof *other))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "navigation sensor: a NaN or infinite value");
    if (!(d->rate_hz >= 0.1 && d->rate_hz <= 10000))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "navigation sensor: rate_hz = %g outside [0.1, 10000]", d->rate_hz);
    if (fabs(d->ref_latitude_deg) > 90 || fabs(d->ref_longitude_deg) > 180 || fabs(d->ref_altitude_m) > 1e6 ||
        fabs(d->lat_bias_deg) > 90 || fabs(d->lon_bias_deg) > 180 || fabs(d->alt_bias_m) > 1e6)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "navigation sensor: reference latitude %g, longitude %g, "
                                                     "altitude %g (or a bias) out of range",
                            d->ref_latitude_deg, d->ref_longitude_deg, d->ref_altitude_m);
    if (d->gnss_model == SENSIM_GNSS_CARLA && fabs(d->ref_latitude_deg) > 89)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "navigation sensor: CARLA's Mercator needs |latitude| <= 89");
    if (fabs(d->gyro_bias[0]) > 1e3 || fabs(d->gyro_bias[1]) > 1e3 || fabs(d->gyro_bias[2]) > 1e3 ||
        fabs(d->accel_bias[0]) > 1e3 || fabs(d->accel_bias[1]) > 1e3 || fabs(d->accel_bias[2]) > 1e3)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "navigation sensor: biases must be within ±1000");
    if (!sensim__mat4_is_zero(d->mount_pose)) {
        sensim_status st = sensim__check_pose(d->mount_pose, "navigation sensor mount");
        if (st != SENSIM_OK)
            return st;
        if (!sensim__mat4_is_rigid(d->mount_pose))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "navigation sensor: the mount pose is not rigid");
    }
    return SENSIM_OK;
}

sensim_status sensim_nav_create(sensim_context *ctx, const sensim_nav_desc *d, sensim_nav **out)
{
    SENSIM_CHECK_HANDLE(ctx, SENSIM_MAGIC_CONTEXT, "context");
    if (!d || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_nav_create: NULL argument");
    sensim_status st = check_desc(d);
    if (st != SENSIM_OK)
        return st;
    sensim_nav *n = calloc(1, sizeof *n);
    if (!n)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot allocate a navigation sensor");
    n->d = *d;
    n->period_ns = (int64_t)floor(1e9 / d->rate_hz + 0.5);
    if (sensim__mat4_is_zero(d->mount_pose))
        sensim__mat4_identity(n->mount);
    else
        memcpy(n->mount, d->mount_pose, sizeof n->mount);
    if (d->kind == SENSIM_NAV_GNSS && d->gnss_model == SENSIM_GNSS_EXACT) {
        char def[512];
        snprintf(def, sizeof def,
                 "+proj=pipeline +step +inv +proj=topocentric +ellps=WGS84 +lat_0=%.17g +lon_0=%.17g +h_0=%.17g "
                 "+step +inv +proj=cart +ellps=WGS84 +step +proj=unitconvert +xy_in=rad +xy_out=deg",
                 d->ref_latitude_deg, d->ref_longitude_deg, d->ref_altitude_m);
        n->pjc = proj_context_create();
        n->pj = n->pjc ? proj_create(n->pjc, def) : NULL;
        if (!n->pj) {
            st = sensim__fail(SENSIM_ERR_IO, "GNSS: PROJ cannot build the ENU -> WGS84 conversion (%s)",
                              n->pjc ? proj_errno_string(proj_context_errno(n->pjc)) : "no context");
            sensim_nav_destroy(n);
            return st;
        }
    }
    if (d->kind == SENSIM_NAV_GNSS && d->gnss_model == SENSIM_GNSS_CARLA) {
        const double R = 6378137.0, lat0 = d->ref_latitude_deg * SENSIM_PI / 180;
        n->merc_s = cos(lat0);
        n->merc_mx0 = n->merc_s * R * d->ref_longitude_deg * SENSIM_PI / 180;
        n->merc_my0 = n->merc_s * R * log(tan((90 + d->ref_latitude_deg) * SENSIM_PI / 360));
    }
    n->ctx = ctx;
    sensim__context_retain(ctx);
    n->magic = SENSIM_MAGIC_NAV;
    *out = n;
    return SENSIM_OK;
}

void sensim_nav_destroy(sensim_nav *n)
{
    if (!n || (n->magic != SENSIM_MAGIC_NAV && n->ctx))
        return;
    n->magic = SENSIM_MAGIC_DEAD;
    if (n->pj)
        proj_destroy(n->pj);
    if (n->pjc)
        proj_context_destroy(n->pjc);
    sensim_context *ctx = n->ctx;
    free(n);
    if (ctx)
        sensim__context_release(ctx);
}

int64_t sensim_nav_period_ns(const sensim_nav *n)
{
    return n && n->magic == SENSIM_MAGIC_NAV ? n->period_ns : 0;
}

/* Standard normal of (sample, axis, purpose) from the counter-based stream. */
static double normal(const sensim_nav *n, uint64_t k, uint32_t axis, uint32_t purpose)
{
    double u1 = sensim__rng_uniform(n->d.seed, n->d.sensor_id, k, 2 * axis, purpose);
    double u2 = sensim__rng_uniform(n->d.seed, n->d.sensor_id, k, 2 * axis + 1, purpose);
    return sqrt(-2.0 * log1p(-u1)) * cos(2.0 * SENSIM_PI * u2);
}

enum { P_ACC_WHITE = 101, P_GYR_WHITE, P_ACC_WALK, P_GYR_WALK, P_ACC_CARLA, P_GYR_CARLA, P_GNSS };

/* Random-walk biases up to and including sample k (stateful; restarts if k goes back). */
static void walk_to(sensim_nav *n, uint64_t k)
{
    sensim__nav_state *s = &n->st;
    if (!s->started || k < s->next) {
        memset(s, 0, sizeof *s);
        s->started = 1;
    }
    const double dt = (double)n->period_ns * 1e-9, sa = n->d.accel_random_walk * sqrt(dt),
                 sg = n->d.gyro_random_walk * sqrt(dt);
    for (; s->next <= k; s->next++)
        for (uint32_t i = 0; i < 3; i++) {
            if (sa > 0)
                s->accel_bias[i] += sa * normal(n, s->next, i, P_ACC_WALK);
            if (sg > 0)
                s->gyro_bias[i] += sg * normal(n, s->next, i, P_GYR_WALK);
        }
}

static void mat3_t_mul(const double *M, const double v[3], double o[3]) /* Mᵀ·v, M column-major 4x4 */
{
    for (int i = 0; i < 3; i++)
        o[i] = M[4 * i] * v[0] + M[4 * i + 1] * v[1] + M[4 * i + 2] * v[2];
}

static void mat3_mul(const double *M, const double v[3], double o[3])
{
    for (int i = 0; i < 3; i++)
        o[i] = M[i] * v[0] + M[4 + i] * v[1] + M[8 + i] * v[2];
}

static void cross3(const double a[3], const double b[3], double o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

sensim_status sensim_nav_sample_at(sensim_nav *n, const sensim_pose_key *keys, uint64_t nk, uint64_t k,
                                   sensim_nav_sample *out)
{
    SENSIM_CHECK_HANDLE(n, SENSIM_MAGIC_NAV, "navigation sensor");
    if (!keys || !out || nk == 0)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_nav_sample_at: NULL argument or no keys");
    if (k > (uint64_t)(SENSIM_MAX_TIME_NS / n->period_ns))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_nav_sample_at: sample %llu is beyond 2^62 ns",
                            (unsigned long long)k);
    const int64_t t = (int64_t)k * n->period_ns;
    sensim_kinematics kin;
    sensim_status st = sensim_kinematics_at(keys, nk, n->d.interp, t, &kin);
    /* the sensor: r = mount offset (body), angular acceleration by central difference of the body rate */
    sensim_kinematics ka, kb;
    const int64_t h = 500000; /* ±0.5 ms */
    if (n->d.interp == SENSIM_INTERP_CAUSAL) /* the model's own angular acceleration, as rigs read it */
        return st == SENSIM_OK ? sensim__nav_sample_kin(n, &kin, k, out) : st;
    if (st == SENSIM_OK && (st = sensim_kinematics_at(keys, nk, n->d.interp, t - h, &ka)) == SENSIM_OK)
        st = sensim_kinematics_at(keys, nk, n->d.interp, t + h, &kb);
    if (st != SENSIM_OK)
        return st;
    for (int i = 0; i < 3; i++)
        kin.angular_acceleration[i] = (kb.angular_velocity[i] - ka.angular_velocity[i]) / (2e-9 * (double)h);
    return sensim__nav_sample_kin(n, &kin, k, out);
}

sensim_status sensim__nav_sample_kin(sensim_nav *n, const sensim_kinematics *kinp, uint64_t k, sensim_nav_sample *out)
{
    if (k > (uint64_t)(SENSIM_MAX_TIME_NS / n->period_ns))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "navigation sample %llu is beyond 2^62 ns", (unsigned long long)k);
    const int64_t t = (int64_t)k * n->period_ns;
    const sensim_kinematics kin = *kinp;
    memset(out, 0, sizeof *out);
    out->t_ns = t;
    out->index = k;
    out->sensor_id = n->d.sensor_id;
    out->kind = n->d.kind;
    const double *B = kin.pose, *r = &n->mount[12], *w = kin.angular_velocity;
    double S[16], alpha[3], wr[3], wwr[3], ar[3], lever_b[3], lever_w[3], vr_w[3];
    sensim__mat4_mul(B, n->mount, S);
    memcpy(alpha, kin.angular_acceleration, sizeof alpha);
    cross3(w, r, wr);
    cross3(w, wr, wwr);
    cross3(alpha, r, ar);
    for (int i = 0; i < 3; i++)
        lever_b[i] = ar[i] + wwr[i];
    mat3_mul(B, lever_b, lever_w);
    mat3_mul(B, wr, vr_w);
    for (int i = 0; i < 3; i++) {
        out->position[i] = S[12 + i];
        out->velocity_world[i] = kin.velocity[i] + vr_w[i];
        out->acceleration_world[i] = kin.acceleration[i] + lever_w[i];
    }
    mat3_t_mul(S, out->velocity_world, out->velocity_body);
    mat3_t_mul(n->mount, w, out->angular_velocity); /* body rate seen in the sensor frame */
    sensim__quat_from_mat(S, out->orientation);
    if (n->d.kind == SENSIM_NAV_IMU) {
        const double fw[3] = {out->acceleration_world[0], out->acceleration_world[1],
                              out->acceleration_world[2] + n->d.gravity_mps2};
        double f[3];
        mat3_t_mul(S, fw, f);
        walk_to(n, k);
        const double rate = n->d.rate_hz;
        for (uint32_t i = 0; i < 3; i++) {
            double na = n->d.accel_stddev[i] * normal(n, k, i, P_ACC_CARLA) +
                        n->d.accel_noise_density * sqrt(rate) * normal(n, k, i, P_ACC_WHITE);
            double ng = n->d.gyro_stddev[i] * normal(n, k, i, P_GYR_CARLA) +
                        n->d.gyro_noise_density * sqrt(rate) * normal(n, k, i, P_GYR_WHITE);
            out->accel[i] = f[i] + n->d.accel_bias[i] + n->st.accel_bias[i] + na;
            out->gyro[i] = out->angular_velocity[i] + n->d.gyro_bias[i] + n->st.gyro_bias[i] + ng;
        }
        /* compass: heading of the sensor's +x on the ground, 0 = north (+y), clockwise (east = π/2) */
        double c = atan2(S[0], S[1]);
        out->compass_rad = c < 0 ? c + 2 * SENSIM_PI : c;
        if (out->compass_rad >= 2 * SENSIM_PI)
            out->compass_rad = 0;
    } else if (n->d.kind == SENSIM_NAV_GNSS) {
        const double *p = out->position;
        if (n->d.gnss_model == SENSIM_GNSS_EXACT) {
            PJ_COORD c = proj_trans(n->pj, PJ_FWD, proj_coord(p[0], p[1], p[2], 0));
            out->latitude_deg = c.xyz.y, out->longitude_deg = c.xyz.x, out->altitude_m = c.xyz.z;
        } else { /* CARLA 0.9.15: world +y is north (CARLA's -y) */
            const double R = 6378137.0, s = n->merc_s, mx = n->merc_mx0 + p[0], my = n->merc_my0 + p[1];
            out->longitude_deg = mx * 180.0 / (SENSIM_PI * R * s);
            out->latitude_deg = 360.0 * atan(exp(my / (R * s))) / SENSIM_PI - 90.0;
            out->altitude_m = n->d.ref_altitude_m + p[2];
        }
        if (!isfinite(out->latitude_deg) || !isfinite(out->longitude_deg) || !isfinite(out->altitude_m))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "GNSS: position (%g, %g, %g) m has no geodetic coordinates",
                                p[0], p[1], p[2]);
        out->latitude_deg += n->d.lat_bias_deg + n->d.lat_stddev_deg * normal(n, k, 0, P_GNSS);
        out->longitude_deg += n->d.lon_bias_deg + n->d.lon_stddev_deg * normal(n, k, 1, P_GNSS);
        out->altitude_m += n->d.alt_bias_m + n->d.alt_stddev_m * normal(n, k, 2, P_GNSS);
    }
    return SENSIM_OK;
}

void sensim__nav_save(const sensim_nav *n, sensim__nav_state *s)
{
    *s = n->st;
}

void sensim__nav_restore(sensim_nav *n, const sensim__nav_state *s)
{
    n->st = *s;
}

bool sensim__nav_check(const sensim_nav *n)
{
    return n && n->magic == SENSIM_MAGIC_NAV;
}

sensim_status sensim_gnss_enu_variance(double lat, double slat, double slon, double salt, double out[3])
{
    if (!out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_gnss_enu_variance: out is NULL");
    if (!isfinite(lat) || !isfinite(slat) || !isfinite(slon) || !isfinite(salt))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_gnss_enu_variance: an argument is not finite");
    if (fabs(lat) > 90 || slat < 0 || slon < 0 || salt < 0)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                            "sensim_gnss_enu_variance: latitude %g outside [-90, 90] or a negative sigma", lat);
    const double a = 6378137.0, f = 1.0 / 298.257223563, e2 = f * (2 - f), d = SENSIM_PI / 180;
    const double s = sin(lat * d), w = 1 - e2 * s * s;
    const double M = a * (1 - e2) / (w * sqrt(w)), N = a / sqrt(w);
    const double north = slat * d * M, east = slon * d * N * cos(lat * d);
    out[0] = east * east, out[1] = north * north, out[2] = salt * salt;
    return SENSIM_OK;
}
