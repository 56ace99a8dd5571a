/* Synchronous rigs: one world clock driving lidars, cameras, proximity and user sensors. */
#include "lidar_impl.h"
#include "motion.h"
#include "nav_impl.h"
#include "proximity.h"
#include "ring_impl.h"
#include "scene_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rig_sensor {
    sensim_lidar *lidar;        /* NULL for a proximity, camera or user sensor */
    sensim_camera *camera;      /* a camera writing into an image ring */
    sensim_nav *nav;            /* a navigation sensor writing into a nav ring */
    sensim_radar *radar;        /* a radar writing detections into a point ring */
    uint32_t camera_id;
    double pixels;              /* a camera's rays a capture (the step's scheduling weighs sensors by rays) */
    sensim_ring *ring;
    sensim_proximity_desc prox;
    sensim_sensor_desc user;    /* user.sample set: a sensor of the caller's */
    int64_t period_ns;          /* proximity, camera and user sensors */
    sensim_ring_consumer consume; /* runs after each committed step (NULL: none) */
    void *consume_user;
} rig_sensor;

#define SENSIM_MAGIC_OUTPUT 0x4F534E53u

struct sensim_sensor_output {
    uint32_t magic; /* SENSIM_MAGIC_OUTPUT during its callback only */
    sensim_ring *ring;
};

struct sensim_rig {
    _Atomic uint32_t magic; /* atomic: destroy may run while another thread checks the handle */
    sensim_context *ctx;
    rig_sensor sensors[SENSIM_RIG_MAX_SENSORS];
    uint32_t count;
    int64_t t_ns;
    uint64_t step;
    bool stepped;        /* a step has committed (the clock and the step number are set) */
    atomic_int stepping; /* a step (and its sensor callbacks) is running */
    sensim__mkey *hist;  /* pushed platform keys, oldest first (allocated at the first push) */
    uint32_t hn;
    sensim_path path;    /* the step's motion (the stepper's: see stepping) */
    char task_err[SENSIM_RIG_MAX_SENSORS][512]; /* a failed sensor's message, from the thread that ran it */
};

/* The motion a step reads: the caller's keys (m set) or the rig's history (mk set). */
typedef struct step_motion {
    const sensim_motion *m;
    const sensim__mkey *mk;
    uint32_t mn;
    sensim_path *path; /* the rig's (24 KB: not on the host's stack) */
} step_motion;

void sensim_proximity_desc_init(sensim_proximity_desc *d)
{
    if (!d)
        return;
    memset(d, 0, sizeof *d);
    d->rate_hz = 10.0;
    d->box_half_extents[0] = d->box_half_extents[1] = d->box_half_extents[2] = 1.0;
}

sensim_status sensim_rig_create(sensim_context *ctx, sensim_rig **out)
{
    SENSIM_CHECK_HANDLE(ctx, SENSIM_MAGIC_CONTEXT, "context");
    if (!out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_create: NULL argument");
    sensim_rig *r = calloc(1, sizeof *r);
    if (!r)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot allocate rig");
    r->magic = SENSIM_MAGIC_RIG;
    r->ctx = ctx;
    sensim__context_retain(ctx);
    *out = r;
    return SENSIM_OK;
}

void sensim_rig_destroy(sensim_rig *rig)
{
    if (!rig || rig->magic != SENSIM_MAGIC_RIG)
        return;
    rig->magic = SENSIM_MAGIC_DEAD;
    sensim_context *ctx = rig->ctx;
    free(rig->hist);
    free(rig);
    sensim__context_release(ctx);
}

/* @p kind: what the sensor writes (SENSIM__RING_*); the ring must hold that. */
static sensim_status add_check(sensim_rig *rig, const void *sensor, const sensim_ring *ring, int32_t kind)
{
    if (atomic_load(&rig->stepping))
        return sensim__fail(SENSIM_ERR_BUSY, "rig: sensors cannot be added while the rig steps");
    sensim_status st = sensim__ring_check(ring);
    if (st != SENSIM_OK)
        return st;
    static const char *const what[] = {"a point ring (sensim_ring_init)", "an image ring (sensim_image_ring_init)",
                                       "a navigation ring (sensim_nav_ring_init)"};
    if (sensim__ring_kind(ring) != kind)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "rig: this sensor needs %s", what[kind]);
    if (rig->count == SENSIM_RIG_MAX_SENSORS)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "rig: more than %d sensors", SENSIM_RIG_MAX_SENSORS);
    for (uint32_t i = 0; i < rig->count; i++)
        if (rig->sensors[i].ring == ring ||
            (sensor && (rig->sensors[i].lidar == sensor || (void *)rig->sensors[i].camera == sensor ||
                        (void *)rig->sensors[i].nav == sensor || (void *)rig->sensors[i].radar == sensor)))
            return sensim__fail(SENSIM_ERR_DUPLICATE, "rig: sensor %u already uses this %s", i,
                                rig->sensors[i].ring == ring ? "ring" : "sensor");
    return SENSIM_OK;
}

/* Append @p s (checked by the caller) as the rig's next sensor. */
static sensim_status append(sensim_rig *rig, const rig_sensor *s, uint32_t *out_index)
{
    rig->sensors[rig->count] = *s;
    if (out_index)
        *out_index = rig->count;
    rig->count++;
    return SENSIM_OK;
}

sensim_status sensim_rig_add_lidar(sensim_rig *rig, sensim_lidar *lidar, sensim_ring *ring, uint32_t *out_index)
{
    SENSIM_CHECK_HANDLE(rig, SENSIM_MAGIC_RIG, "rig");
    SENSIM_CHECK_HANDLE(lidar, SENSIM_MAGIC_LIDAR, "lidar");
    sensim_status st = add_check(rig, lidar, ring, SENSIM__RING_POINTS);
    if (st != SENSIM_OK)
        return st;
    rig_sensor s = {.lidar = lidar, .ring = ring};
    return append(rig, &s, out_index);
}

sensim_status sensim_rig_add_proximity(sensim_rig *rig, const sensim_proximity_desc *d, sensim_ring *ring,
                                       uint32_t *out_index)
{
    SENSIM_CHECK_HANDLE(rig, SENSIM_MAGIC_RIG, "rig");
    if (!d)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_add_proximity: NULL argument");
    const double v[] = {d->rate_hz, d->box_center[0], d->box_center[1], d->box_center[2], d->box_half_extents[0],
                        d->box_half_extents[1], d->box_half_extents[2], d->front_m, d->back_m, d->side_m};
    if (!sensim__finite_array_d(v, sizeof v / sizeof v[0]))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "proximity: NaN or infinite parameter");
    if (!(d->rate_hz >= 0.1 && d->rate_hz <= 1000))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "proximity: rate_hz = %g outside [0.1, 1000]", d->rate_hz);
    if (!(d->box_half_extents[0] > 0 && d->box_half_extents[1] > 0 && d->box_half_extents[2] > 0) ||
        d->front_m < 0 || d->back_m < 0 || d->side_m < 0)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "proximity: half extents must be > 0 and margins >= 0");
    sensim_status st = add_check(rig, NULL, ring, SENSIM__RING_POINTS);
    if (st != SENSIM_OK)
        return st;
    rig_sensor s = {.ring = ring, .prox = *d, .period_ns = (int64_t)floor(1e9 / d->rate_hz + 0.5)};
    return append(rig, &s, out_index);
}

sensim_status sensim_rig_add_camera(sensim_rig *rig, sensim_camera *camera, double rate_hz, uint32_t sensor_id,
                                    sensim_ring *ring, uint32_t *out_index)
{
    SENSIM_CHECK_HANDLE(rig, SENSIM_MAGIC_RIG, "rig");
    sensim_camera_info info;
    sensim_status st = sensim_camera_get_info(camera, &info); /* checks the handle */
    if (st != SENSIM_OK)
        return st;
    if (!isfinite(rate_hz))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_rig_add_camera: rate_hz = %g", rate_hz);
    if (!(rate_hz >= 0.1 && rate_hz <= 1000))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_rig_add_camera: rate_hz = %g outside [0.1, 1000]",
                            rate_hz);
    if ((st = add_check(rig, camera, ring, SENSIM__RING_IMAGES)) != SENSIM_OK)
        return st;
    uint32_t w, h, outputs;
    sensim__ring_image_format(ring, &w, &h, &outputs);
    if (w != info.width || h != info.height)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_add_camera: the ring holds %u x %u images, "
                                                         "the camera takes %u x %u", w, h, info.width, info.height);
    rig_sensor s = {.ring = ring, .camera = camera, .camera_id = sensor_id, .pixels = (double)w * h,
                    .period_ns = (int64_t)floor(1e9 / rate_hz + 0.5)};
    return append(rig, &s, out_index);
}

sensim_status sensim_rig_add_nav(sensim_rig *rig, sensim_nav *nav, sensim_ring *ring, uint32_t *out_index)
{
    SENSIM_CHECK_HANDLE(rig, SENSIM_MAGIC_RIG, "rig");
    sensim_status st = nav ? SENSIM_OK : sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_add_nav: nav is NULL");
    if (st == SENSIM_OK && !sensim__nav_check(nav))
        st = sensim__fail(SENSIM_ERR_BAD_HANDLE, "sensim_rig_add_nav: not a navigation sensor");
    if (st == SENSIM_OK)
        st = add_check(rig, nav, ring, SENSIM__RING_NAV);
    if (st != SENSIM_OK)
        return st;
    rig_sensor s = {.ring = ring, .nav = nav, .period_ns = sensim_nav_period_ns(nav)};
    return append(rig, &s, out_index);
}

sensim_status sensim_rig_add_radar(sensim_rig *rig, sensim_radar *radar, sensim_ring *ring, uint32_t *out_index)
{
    SENSIM_CHECK_HANDLE(rig, SENSIM_MAGIC_RIG, "rig");
    sensim_status st = radar ? SENSIM_OK : sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_add_radar: radar is NULL");
    if (st == SENSIM_OK && !sensim__radar_check(radar))
        st = sensim__fail(SENSIM_ERR_BAD_HANDLE, "sensim_rig_add_radar: not a radar");
    if (st == SENSIM_OK)
        st = add_check(rig, radar, ring, SENSIM__RING_POINTS);
    if (st != SENSIM_OK)
        return st;
    rig_sensor s = {.ring = ring, .radar = radar, .period_ns = sensim_radar_period_ns(radar)};
    return append(rig, &s, out_index);
}

/* The platform's state at @p t under the step's one motion model (the rig's
 * history, or the step's keys with SENSIM_INTERP_CAUSAL). */
static sensim_status model_at(const step_motion *sm, int64_t t, sensim_kinematics *kin)
{
    if (sm->mk) {
        sensim__mkey_eval(sm->mk, sm->mn, t, kin);
        return SENSIM_OK;
    }
    return sensim_kinematics_at(sm->m->keys, sm->m->key_count, SENSIM_INTERP_CAUSAL, t, kin);
}

/* Sample k of a radar: frame [k·P, (k+1)·P) holding its detections. */
static sensim_status radar_frame(const sensim_scene *scene, const rig_sensor *s, uint32_t index,
                                 const step_motion *sm, int64_t k, uint64_t step)
{
    sensim_radar_detection *det = sensim__radar_buffer(s->radar);
    uint64_t n;
    double pose[16];
    const uint64_t cap = sensim_radar_rays_per_sample(s->radar);
    sensim_status st;
    sensim_kinematics kin;
    if (sm->mk || sm->m->interp == SENSIM_INTERP_CAUSAL) {
        st = model_at(sm, k * s->period_ns, &kin);
        if (st == SENSIM_OK)
            st = sensim__radar_sample_kin(s->radar, scene, &kin, (uint64_t)k, det, cap, &n, pose);
    } else {
        st = sensim_radar_sample_at(s->radar, scene, sm->m->keys, sm->m->key_count, (uint64_t)k, det, cap, &n, pose);
    }
    if (st != SENSIM_OK) {
        char pre[64];
        snprintf(pre, sizeof pre, "sensim_rig_step: radar %u", index);
        return sensim__fail_prefixed(st, pre);
    }
    const int64_t t = k * s->period_ns;
    sensim__ring_open_frame(s->ring, (uint64_t)k, t, t + s->period_ns, pose, sensim__radar_sensor_id(s->radar), step);
    sensim__ring_add_scanned(s->ring, s->period_ns, step);
    for (uint64_t i = 0; i < n; i++) {
        sensim_point pt;
        memcpy(&pt, &det[i], sizeof pt);
        sensim__ring_push(s->ring, &pt);
    }
    sensim__ring_close_frame(s->ring);
    return SENSIM_OK;
}

/* Sample k of a navigation sensor: frame [k·P, (k+1)·P) holding it. */
static sensim_status nav_frame(const rig_sensor *s, uint32_t index, const step_motion *sm, int64_t k, uint64_t step)
{
    sensim_nav_sample smp;
    sensim_status st;
    sensim_kinematics kin;
    if (sm->mk || sm->m->interp == SENSIM_INTERP_CAUSAL) {
        st = model_at(sm, k * s->period_ns, &kin);
        if (st == SENSIM_OK)
            st = sensim__nav_sample_kin(s->nav, &kin, (uint64_t)k, &smp);
    } else {
        st = sensim_nav_sample_at(s->nav, sm->m->keys, sm->m->key_count, (uint64_t)k, &smp);
    }
    if (st != SENSIM_OK) {
        char pre[64];
        snprintf(pre, sizeof pre, "sensim_rig_step: navigation sensor %u", index);
        return sensim__fail_prefixed(st, pre);
    }
    double pose[16];
    sensim__mat_from_quat(smp.orientation, smp.position, pose);
    sensim__ring_open_frame(s->ring, (uint64_t)k, smp.t_ns, smp.t_ns + s->period_ns, pose, smp.sensor_id, step);
    sensim__ring_add_scanned(s->ring, s->period_ns, step);
    void *dst = sensim__ring_payload_reserve(s->ring);
    if (dst && sensim__ring_open_pose(s->ring))
        memcpy(dst, &smp, sizeof smp);
    sensim__ring_close_frame(s->ring);
    return SENSIM_OK;
}

/* Capture k of a camera: frame [k·P, (k+1)·P) holding the images taken at k·P. */
static sensim_status camera_frame(const sensim_scene *scene, const rig_sensor *s, uint32_t index,
                                  const step_motion *sm, int64_t k, uint64_t step)
{
    int64_t t = k * s->period_ns;
    double P[16];
    sensim__path_pose(sm->path, t, P);
    sensim__ring_open_frame(s->ring, (uint64_t)k, t, t + s->period_ns, P, s->camera_id, step);
    sensim__ring_add_scanned(s->ring, s->period_ns, step);
    sensim_camera_images im;
    sensim_status st = SENSIM_OK;
    const double *hdr_pose = sensim__ring_open_pose(s->ring);
    if (sensim__ring_image_reserve(s->ring, &im) && hdr_pose) { /* refused: counted, nothing rendered */
        double pose[16];
        st = sm->mk ? sensim__camera_render_path(s->camera, scene, sm->path, t, &im, pose)
                    : sensim_camera_render(s->camera, scene, sm->m, t, &im, pose);
        memcpy((double *)hdr_pose, pose, sizeof pose); /* the camera's pose, not the platform's */
    }
    sensim__ring_close_frame(s->ring);
    if (st != SENSIM_OK) {
        char pre[64];
        snprintf(pre, sizeof pre, "sensim_rig_step: camera %u (t = %lld ns)", index, (long long)t);
        return sensim__fail_prefixed(st, pre);
    }
    return SENSIM_OK;
}

void sensim_sensor_desc_init(sensim_sensor_desc *d)
{
    if (!d)
        return;
    memset(d, 0, sizeof *d);
    d->rate_hz = 10.0;
}

sensim_status sensim_rig_add_sensor(sensim_rig *rig, const sensim_sensor_desc *d, sensim_ring *ring,
                                    uint32_t *out_index)
{
    SENSIM_CHECK_HANDLE(rig, SENSIM_MAGIC_RIG, "rig");
    if (!d || !d->sample)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_add_sensor: %s is NULL", d ? "desc->sample" : "desc");
    if (d->reserved_u32 || d->reserved[0] || d->reserved[1] || d->reserved[2] || d->reserved[3])
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_add_sensor: reserved fields must be zero");
    if (!isfinite(d->rate_hz))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_rig_add_sensor: rate_hz = %g", d->rate_hz);
    if (!(d->rate_hz >= 0.1 && d->rate_hz <= 1e6))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_rig_add_sensor: rate_hz = %g outside [0.1, 1e6]",
                            d->rate_hz);
    sensim_status st = add_check(rig, NULL, ring, SENSIM__RING_POINTS);
    if (st != SENSIM_OK)
        return st;
    rig_sensor s = {.ring = ring, .user = *d, .period_ns = (int64_t)floor(1e9 / d->rate_hz + 0.5)};
    return append(rig, &s, out_index);
}

sensim_status sensim_sensor_output_push(sensim_sensor_output *out, const sensim_point *pts, uint64_t n)
{
    if (!out || out->magic != SENSIM_MAGIC_OUTPUT)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_sensor_output_push: %s",
                            out ? "the output is only valid inside its sensor callback" : "output is NULL");
    if (n && !pts)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_sensor_output_push: points is NULL");
    for (uint64_t i = 0; i < n; i++)
        if (!isfinite(pts[i].x) || !isfinite(pts[i].y) || !isfinite(pts[i].z) || !isfinite(pts[i].range_m))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_sensor_output_push: record %llu has a NaN or "
                                                       "infinite x, y, z or range_m", (unsigned long long)i);
    for (uint64_t i = 0; i < n; i++)
        sensim__ring_push(out->ring, &pts[i]);
    return SENSIM_OK;
}

/* One user-sensor sample k: frame [k·P, (k+1)·P) around the callback. */
static sensim_status user_frame(const sensim_scene *scene, const rig_sensor *s, uint32_t index,
                                const sensim_path *path, int64_t k, uint64_t step)
{
    sensim_sensor_sample smp;
    memset(&smp, 0, sizeof smp);
    smp.sensor_index = index;
    smp.sensor_id = s->user.sensor_id;
    smp.frame_number = (uint64_t)k;
    smp.t_ns = k * s->period_ns;
    smp.period_ns = s->period_ns;
    smp.world_step = step;
    sensim__path_pose(path, smp.t_ns, smp.platform_pose);
    smp.scene = scene;
    sensim_sensor_output out = {SENSIM_MAGIC_OUTPUT, s->ring};
    smp.output = &out;
    sensim__ring_open_frame(s->ring, (uint64_t)k, smp.t_ns, smp.t_ns + s->period_ns, smp.platform_pose,
                            s->user.sensor_id, step);
    sensim__ring_add_scanned(s->ring, s->period_ns, step);
    sensim_status st = s->user.sample(s->user.user, &smp);
    out.magic = SENSIM_MAGIC_DEAD;
    sensim__ring_close_frame(s->ring);
    if (st != SENSIM_OK) {
        char pre[64];
        snprintf(pre, sizeof pre, "sensim_rig_step: sensor %u's callback (t = %lld ns)", index, (long long)smp.t_ns);
        return sensim__fail_prefixed(st, pre);
    }
    return SENSIM_OK;
}

/* Hold the rig for one call (a step holds it too): forbidden concurrent use is refused, not raced. */
static sensim_status hold(sensim_rig *rig, const char *fn)
{
    int idle = 0;
    if (!atomic_compare_exchange_strong(&rig->stepping, &idle, 1))
        return sensim__fail(SENSIM_ERR_BUSY, "%s: the rig is stepping or in another call (from one of its sensor "
                                             "callbacks or consumers, or from two threads)", fn);
    return SENSIM_OK;
}

sensim_status sensim_rig_set_consumer(sensim_rig *rig, uint32_t index, sensim_ring_consumer fn, void *user)
{
    SENSIM_CHECK_HANDLE(rig, SENSIM_MAGIC_RIG, "rig");
    sensim_status st = hold(rig, "sensim_rig_set_consumer");
    if (st != SENSIM_OK)
        return st;
    if (index >= rig->count) {
        st = sensim__fail(SENSIM_ERR_BAD_INDEX, "sensim_rig_set_consumer: sensor %u (the rig has %u)", index,
                          rig->count);
    } else {
        rig->sensors[index].consume = fn;
        rig->sensors[index].consume_user = fn ? user : NULL;
    }
    atomic_store(&rig->stepping, 0);
    return st;
}

/* The consumers of a committed step, in sensor order (the rig still marked
 * stepping: its calls are refused inside them); the first failure is kept. */
static sensim_status run_consumers(sensim_rig *rig)
{
    sensim_status first = SENSIM_OK;
    char msg[512] = "";
    for (uint32_t i = 0; i < rig->count; i++) {
        rig_sensor *s = &rig->sensors[i];
        if (!s->consume)
            continue;
        sensim_status st = s->consume(s->consume_user, i, s->ring);
        if (st != SENSIM_OK && first == SENSIM_OK) {
            char pre[64];
            snprintf(pre, sizeof pre, "sensim_rig_step: the consumer of sensor %u", i);
            first = sensim__fail_prefixed(st, pre);
            snprintf(msg, sizeof msg, "%s", sensim_context_last_error(NULL)); /* later consumers may overwrite it */
        }
    }
    return first == SENSIM_OK ? SENSIM_OK : sensim__fail(first, "%s", msg);
}

void sensim_platform_state_init(sensim_platform_state *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof *s);
    sensim__mat4_identity(s->pose);
}

/* Limits of a pushed state (|vector|): beyond them a state is a unit or frame mistake. */
static const struct {
    uint32_t flag;
    double max;
    const char *name, *unit;
} state_limits[] = {{SENSIM_STATE_VELOCITY, 1e5, "velocity", "m/s"},
                    {SENSIM_STATE_ACCELERATION, 1e6, "acceleration", "m/s²"},
                    {SENSIM_STATE_ANGULAR_VELOCITY, 1e4, "angular_velocity", "rad/s"},
                    {SENSIM_STATE_ANGULAR_ACCELERATION, 1e7, "angular_acceleration", "rad/s²"}};

static sensim_status push_locked(sensim_rig *rig, int64_t t, const sensim_platform_state *s, const char *fn,
                                 bool jump);

static sensim_status push_key(sensim_rig *rig, int64_t t, const sensim_platform_state *s, const char *fn, bool jump)
{
    SENSIM_CHECK_HANDLE(rig, SENSIM_MAGIC_RIG, "rig");
    sensim_status st = hold(rig, fn);
    if (st != SENSIM_OK)
        return st;
    st = push_locked(rig, t, s, fn, jump);
    atomic_store(&rig->stepping, 0);
    return st;
}

static sensim_status push_locked(sensim_rig *rig, int64_t t, const sensim_platform_state *s, const char *fn,
                                 bool jump)
{
    char what[96];
    snprintf(what, sizeof what, "%s: t_ns", fn);
    sensim_status st = sensim__check_time(t, what);
    snprintf(what, sizeof what, "%s: pose (t = %lld ns)", fn, (long long)t);
    if (st != SENSIM_OK || (st = sensim__check_pose(s->pose, what)) != SENSIM_OK)
        return st;
    if (!sensim__mat4_is_rigid(s->pose))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: pose (t = %lld ns) is not rigid (an orthonormal rotation "
                                                     "with determinant +1 and a translation)", fn, (long long)t);
    if (s->given & ~UINT32_C(15))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: state.given = 0x%x has unknown bits", fn, s->given);
    if (s->reserved_u32 || s->reserved[0] || s->reserved[1] || s->reserved[2] || s->reserved[3])
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: reserved fields must be zero", fn);
    const double *vec[4] = {s->velocity, s->acceleration, s->angular_velocity, s->angular_acceleration};
    for (int i = 0; i < 4; i++) {
        if (!(s->given & state_limits[i].flag))
            continue;
        if (!sensim__finite_array_d(vec[i], 3))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s: state.%s (t = %lld ns) has a NaN or infinite component", fn,
                                state_limits[i].name, (long long)t);
        double n = sqrt(vec[i][0] * vec[i][0] + vec[i][1] * vec[i][1] + vec[i][2] * vec[i][2]);
        if (n > state_limits[i].max)
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: state.%s (t = %lld ns) has magnitude %g %s, beyond %g",
                                fn, state_limits[i].name, (long long)t, n, state_limits[i].unit, state_limits[i].max);
    }
    /* a jump may share the last key's time (that key ends the old segment), but not a jump's own */
    if (rig->hn > 0 && (jump ? t < rig->hist[rig->hn - 1].t || (t == rig->hist[rig->hn - 1].t &&
                                                                   rig->hist[rig->hn - 1].jump)
                             : t <= rig->hist[rig->hn - 1].t))
        return sensim__fail(SENSIM_ERR_TIME_ORDER, "%s: t_ns = %lld is not after the last pushed key (%lld ns)%s", fn,
                            (long long)t, (long long)rig->hist[rig->hn - 1].t,
                            jump ? ", nor a jump at its time from a key that is not itself a jump" : "");
    if (jump && rig->hn > 0 && t < rig->t_ns)
        return sensim__fail(SENSIM_ERR_TIME_ORDER, "%s: a jump at t_ns = %lld is before the rig's time %lld ns (the "
                            "steps up to it are done)", fn, (long long)t, (long long)rig->t_ns);
    if (!rig->hist && !(rig->hist = malloc(SENSIM_RIG_HISTORY_KEYS * sizeof *rig->hist)))
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: cannot allocate the pose history", fn);
    if (rig->hn == SENSIM_RIG_HISTORY_KEYS) {
        /* keep the segment holding the rig's time and the 4 keys the next key's stencil reads */
        uint32_t keep = 0;
        while (keep + 1 < rig->hn && rig->hist[keep + 1].t <= rig->t_ns)
            keep++;
        if (keep > rig->hn - 4)
            keep = rig->hn - 4;
        if (keep == 0)
            return sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: %d keys pushed ahead of the rig's time %lld ns: step the "
                                "rig before pushing more", fn, SENSIM_RIG_HISTORY_KEYS, (long long)rig->t_ns);
        memmove(rig->hist, rig->hist + keep, (rig->hn - keep) * sizeof *rig->hist);
        rig->hn -= keep;
    }
    sensim__mkey *k = &rig->hist[rig->hn];
    memset(k, 0, sizeof *k);
    k->t = t;
    k->jump = jump && rig->hn > 0;
    memcpy(k->p, &s->pose[12], sizeof k->p);
    sensim__quat_from_mat(s->pose, k->q);
    if (rig->hn > 0) { /* the nearer hemisphere of the previous key's rotation */
        const double *pq = rig->hist[rig->hn - 1].q;
        if (pq[0] * k->q[0] + pq[1] * k->q[1] + pq[2] * k->q[2] + pq[3] * k->q[3] < 0)
            for (int i = 0; i < 4; i++)
                k->q[i] = -k->q[i];
    }
    if (s->given & SENSIM_STATE_VELOCITY)
        memcpy(k->v, s->velocity, sizeof k->v);
    if (s->given & SENSIM_STATE_ACCELERATION)
        memcpy(k->a, s->acceleration, sizeof k->a);
    if (s->given & SENSIM_STATE_ANGULAR_VELOCITY)
        memcpy(k->w, s->angular_velocity, sizeof k->w);
    if (s->given & SENSIM_STATE_ANGULAR_ACCELERATION)
        memcpy(k->al, s->angular_acceleration, sizeof k->al);
    rig->hn++;
    /* the stencil reads this key's segment only: from the latest jump among the last 5 keys */
    uint32_t first = rig->hn > 5 ? rig->hn - 5 : 0;
    for (uint32_t j = rig->hn - 1; j > first; j--)
        if (rig->hist[j].jump) {
            first = j;
            break;
        }
    sensim__mkey_derive(rig->hist + first, rig->hn - first, s->given);
    return SENSIM_OK;
}

/* A pose as a state with nothing else given, pushed as a key or a jump. */
static sensim_status push_pose_as(sensim_rig *rig, int64_t t_ns, const double pose[16], const char *fn, bool jump)
{
    if (!pose)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: pose is NULL", fn);
    sensim_platform_state s;
    sensim_platform_state_init(&s);
    memcpy(s.pose, pose, sizeof s.pose);
    return push_key(rig, t_ns, &s, fn, jump);
}

sensim_status sensim_rig_push_pose(sensim_rig *rig, int64_t t_ns, const double pose[16])
{
    return push_pose_as(rig, t_ns, pose, "sensim_rig_push_pose", false);
}

sensim_status sensim_rig_jump_to_pose(sensim_rig *rig, int64_t t_ns, const double pose[16])
{
    return push_pose_as(rig, t_ns, pose, "sensim_rig_jump_to_pose", true);
}

sensim_status sensim_rig_jump_to_state(sensim_rig *rig, int64_t t_ns, const sensim_platform_state *state)
{
    if (!state)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_jump_to_state: state is NULL");
    return push_key(rig, t_ns, state, "sensim_rig_jump_to_state", true);
}

sensim_status sensim_rig_push_state(sensim_rig *rig, int64_t t_ns, const sensim_platform_state *state)
{
    if (!state)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_push_state: state is NULL");
    return push_key(rig, t_ns, state, "sensim_rig_push_state", false);
}

sensim_status sensim_rig_platform_at(sensim_rig *rig, int64_t t_ns, sensim_kinematics *out)
{
    SENSIM_CHECK_HANDLE(rig, SENSIM_MAGIC_RIG, "rig");
    if (!out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_platform_at: out is NULL");
    sensim_status st = hold(rig, "sensim_rig_platform_at");
    if (st != SENSIM_OK)
        return st;
    if (rig->hn == 0)
        st = sensim__fail(SENSIM_ERR_EMPTY, "sensim_rig_platform_at: no pose pushed");
    else if (t_ns < rig->hist[0].t || t_ns > rig->hist[rig->hn - 1].t)
        st = sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_rig_platform_at: t_ns = %lld outside the history "
                          "[%lld, %lld] ns", (long long)t_ns, (long long)rig->hist[0].t,
                          (long long)rig->hist[rig->hn - 1].t);
    else
        sensim__mkey_eval(rig->hist, rig->hn, t_ns, out);
    atomic_store(&rig->stepping, 0);
    return st;
}

sensim_status sensim_rig_set_time(sensim_rig *rig, int64_t t_ns)
{
    SENSIM_CHECK_HANDLE(rig, SENSIM_MAGIC_RIG, "rig");
    if (rig->stepped)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_set_time: the rig has already stepped");
    sensim_status st = sensim__check_time(t_ns, "sensim_rig_set_time: t_ns");
    if (st != SENSIM_OK)
        return st;
    rig->t_ns = t_ns;
    return SENSIM_OK;
}

sensim_status sensim_rig_set_world_step(sensim_rig *rig, uint64_t world_step)
{
    SENSIM_CHECK_HANDLE(rig, SENSIM_MAGIC_RIG, "rig");
    if (rig->stepped)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_set_world_step: the rig has already stepped");
    if (world_step > ((uint64_t)1 << 62))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_rig_set_world_step: world_step %llu is above 2^62",
                            (unsigned long long)world_step);
    rig->step = world_step;
    return SENSIM_OK;
}

/* One step's sensor work, shared by the pool's tasks: each writes only its sensor's entries. */
typedef struct step_job {
    sensim_rig *rig;
    const sensim_scene *scene;
    step_motion *sm;
    int64_t t0, t1;
    uint64_t *frames;                          /* frames begun, by sensor */
    uint64_t rays[SENSIM_RIG_MAX_SENSORS];     /* rays traced, by sensor */
    sensim_status st[SENSIM_RIG_MAX_SENSORS];  /* by sensor; the message in rig->task_err */
    uint32_t order[SENSIM_RIG_MAX_SENSORS];    /* pool task -> sensor */
} step_job;

/* Sensor @p i's frames of the step into its ring (its transaction is the caller's). */
static void sensor_work(step_job *j, uint32_t i)
{
    sensim_rig *rig = j->rig;
    rig_sensor *s = &rig->sensors[i];
    const sensim_scene *scene = j->scene;
    sensim_status st = SENSIM_OK;
    if (s->lidar) {
        uint64_t shots, fr, rays;
        st = sensim__lidar_scan_tx(s->lidar, scene, j->t0, j->t1, j->sm->path, rig->step, s->ring, &shots, &fr,
                                   &rays);
        j->frames[i] = fr;
        j->rays[i] = rays;
    } else {
        /* proximity, camera and user sensors: frames whose start lies in [t0, t1) */
        int64_t P = s->period_ns;
        for (int64_t k = -sensim__floordiv(-j->t0, P); st == SENSIM_OK && k * P < j->t1; k++) {
            if (s->user.sample)
                st = user_frame(scene, s, i, j->sm->path, k, rig->step);
            else if (s->camera)
                st = camera_frame(scene, s, i, j->sm, k, rig->step);
            else if (s->nav)
                st = nav_frame(s, i, j->sm, k, rig->step);
            else if (s->radar)
                st = radar_frame(scene, s, i, j->sm, k, rig->step);
            else
                sensim__proximity_frame(scene, &s->prox, s->ring, s->period_ns, j->sm->path, k, rig->step);
            j->frames[i]++;
        }
    }
    j->st[i] = st;
    if (st != SENSIM_OK)
        snprintf(rig->task_err[i], sizeof rig->task_err[i], "%s", sensim_context_last_error(NULL));
}

static void sensor_task(void *arg, uint32_t task, uint32_t who)
{
    (void)who;
    step_job *j = arg;
    sensor_work(j, j->order[task]);
}

static bool job_ok(const step_job *j, uint32_t heavy)
{
    for (uint32_t h = 0; h < heavy; h++)
        if (j->st[j->order[h]] != SENSIM_OK)
            return false;
    return true;
}

/* The step, the rig held (rig->stepping set) by the caller. */
static sensim_status step_locked(sensim_rig *rig, const sensim_scene *scene, int64_t dt, const sensim_motion *platform,
                                 sensim_rig_step_result *out)
{
    if (dt <= 0)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_step: dt_ns = %lld <= 0", (long long)dt);
    int64_t t0 = rig->t_ns, t1;
    if (dt > SENSIM_MAX_TIME_NS || __builtin_add_overflow(t0, dt, &t1) || t1 > SENSIM_MAX_TIME_NS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_rig_step: t = %lld ns + dt_ns %lld goes beyond 2^62 ns",
                            (long long)t0, (long long)dt);
    step_motion sm = {.path = &rig->path};
    sensim_motion m = {0};
    sensim_status st = SENSIM_OK;
    if (platform) {
        if ((st = sensim__path_init(sm.path, platform->keys, platform->key_count, (int32_t)platform->interp)) !=
            SENSIM_OK)
            return st;
        m = *platform;
        m.world_step = rig->step;
        sm.m = &m;
    } else {
        if (rig->hn == 0)
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_step: no platform keys given and no pose "
                                                             "pushed (sensim_rig_push_pose / sensim_rig_push_state)");
        if (t0 < rig->hist[0].t)
            return sensim__fail(SENSIM_ERR_TIME_ORDER, "sensim_rig_step: the step begins at %lld ns, before the first "
                                "pushed pose (%lld ns): push a pose at or before it", (long long)t0,
                                (long long)rig->hist[0].t);
        if (t1 > rig->hist[rig->hn - 1].t)
            return sensim__fail(SENSIM_ERR_TIME_ORDER, "sensim_rig_step: the step ends at %lld ns, after the last "
                                "pushed pose (%lld ns): push the platform's pose at or after %lld ns first",
                                (long long)t1, (long long)rig->hist[rig->hn - 1].t, (long long)t1);
        /* the keys from the last at or before t0 to the first at or after t1, searched from the newest
         * end (a step covers few keys; the history may hold thousands) */
        uint32_t i1 = rig->hn - 1;
        while (i1 > 0 && rig->hist[i1 - 1].t >= t1)
            i1--;
        uint32_t i0 = i1;
        while (i0 > 0 && rig->hist[i0].t > t0)
            i0--;
        sm.mk = &rig->hist[i0];
        sm.mn = i1 - i0 + 1;
        sensim__path_init_model(sm.path, sm.mk, sm.mn);
    }
    /* One step's work is bounded by the rings the host gave: a step that
     * would give a sensor more frames than its ring holds at all (a 1 h dt
     * with a 4-frame lidar ring, 72 000 renders for a 2-image ring) is
     * refused before any work, naming the sensor; shorter steps or a larger
     * ring. */
    for (uint32_t i = 0; i < rig->count; i++) {
        const rig_sensor *s = &rig->sensors[i];
        int64_t P = s->lidar ? s->lidar->pat.frame_ns : s->period_ns;
        if (P <= 0)
            continue;
        /* frames touched: a lidar's open frames at both ends; others start inside [t0, t1) */
        uint64_t n = s->lidar ? (uint64_t)(sensim__floordiv(t1 - 1, P) - sensim__floordiv(t0, P) + 1)
                              : (uint64_t)(-sensim__floordiv(-t1, P) + sensim__floordiv(-t0, P));
        uint32_t cap = sensim__ring_frame_capacity(s->ring);
        if (n > cap)
            return sensim__fail(SENSIM_ERR_TOO_LARGE,
                                "sensim_rig_step: dt_ns = %lld gives sensor %u (%s, period %lld ns) %llu frames, more "
                                "than the %u its ring holds: step at most %lld ns, or give it a larger ring",
                                (long long)dt, i,
                                s->lidar ? "lidar" : s->camera ? "camera" : s->nav ? "navigation" : s->radar ? "radar"
                                : s->user.sample ? "user sensor" : "proximity",
                                (long long)P, (unsigned long long)n, cap, (long long)(cap - 1 > 0 ? (cap - 1) * P : P));
    }
    /* A step is one transaction over all sensors: the scene stays committed
     * for the whole step (no edit lands between sensors), every lidar is
     * held and checked before anything is traced, and a cancel or an error
     * leaves every ring and lidar as before the call (the rig does not
     * advance). Only a FAIL ring that overflows refuses its own sensor. */
    if ((st = sensim__scene_scan_begin(scene)) != SENSIM_OK)
        return st;
    uint32_t held = 0;
    for (; held < rig->count; held++) {
        sensim_lidar *l = rig->sensors[held].lidar;
        if (!l)
            continue;
        if (l->magic != SENSIM_MAGIC_LIDAR) {
            st = sensim__fail(SENSIM_ERR_BAD_HANDLE, "sensim_rig_step: sensor %u's lidar was destroyed", held);
            break;
        }
        /* with keys, each lidar checks them into its own path; from the history, the step's path (only read) */
        if ((st = sensim__lidar_acquire(l)) != SENSIM_OK)
            break;
        if ((st = sensim__lidar_scan_check(l, t0, t1, sm.m, sm.m ? &l->path : sm.path)) != SENSIM_OK) {
            sensim__lidar_release(l);
            {
                char pre[48];
                snprintf(pre, sizeof pre, "sensim_rig_step: sensor %u", held);
                st = sensim__fail_prefixed(st, pre);
            }
            break;
        }
    }
    uint64_t frames = 0, sensor_frames[SENSIM_RIG_MAX_SENSORS] = {0}, rays_traced = 0;
    uint32_t refused = 0;
    sensim__nav_state nav_saved[SENSIM_RIG_MAX_SENSORS];
    for (uint32_t i = 0; i < rig->count; i++)
        if (rig->sensors[i].nav)
            sensim__nav_save(rig->sensors[i].nav, &nav_saved[i]);
    if (st == SENSIM_OK) {
        for (uint32_t i = 0; i < rig->count; i++)
            sensim__ring_tx_begin(rig->sensors[i].ring);
        /* Lidars and cameras with work in the step, by their rays (a lidar's shots x sub-rays, a camera's
         * pixels x captures): one that holds more than a thread's share of them runs alone with the whole
         * pool inside it (its lanes or tiles), one after another; the others run side by side across the
         * pool, each on one thread (16 small lidars use every core; a big camera beside a small lidar is
         * not left to one thread). Then the light sensors (navigation, radar, proximity, the caller's) on
         * the caller's thread, in order. Which thread runs what never changes a bit. */
        step_job job = {.rig = rig, .scene = scene, .sm = &sm, .t0 = t0, .t1 = t1, .frames = sensor_frames};
        uint32_t heavy = 0, small = 0, big[SENSIM_RIG_MAX_SENSORS], nbig = 0;
        double work[SENSIM_RIG_MAX_SENSORS], total = 0;
        for (uint32_t i = 0; i < rig->count; i++) {
            const rig_sensor *s = &rig->sensors[i];
            work[i] = 0;
            if (s->lidar) {
                const sensim_pattern *p = &s->lidar->pat;
                work[i] = (double)(sensim__pattern_first_at(p, t1) - sensim__pattern_first_at(p, t0)) *
                          (s->lidar->rp.nsub ? s->lidar->rp.nsub : 1) + 1;
            } else if (s->camera) {
                const int64_t P = s->period_ns, due = -sensim__floordiv(-t1, P) + sensim__floordiv(-t0, P);
                if (due > 0)
                    work[i] = (double)due * s->pixels;
            }
            total += work[i];
        }
        const uint32_t threads = sensim__threads(rig->ctx);
        for (uint32_t i = 0; i < rig->count; i++) {
            if (work[i] <= 0)
                continue;
            job.order[heavy++] = i;
            if (threads > 1 && work[i] > total / threads)
                big[nbig++] = i;
        }
        for (uint32_t h = 0; h < heavy; h++) { /* the small ones first in order, the big ones after them */
            uint32_t i = job.order[h];
            bool is_big = false;
            for (uint32_t b = 0; b < nbig; b++)
                is_big |= big[b] == i;
            if (!is_big)
                job.order[small++] = i;
        }
        for (uint32_t b = 0; b < nbig; b++)
            job.order[small + b] = big[b];
        for (uint32_t b = 0; b < nbig && job_ok(&job, small + b); b++)
            sensor_work(&job, big[b]);
        if (job_ok(&job, small + nbig))
            sensim__pool_run(rig->ctx->pool, small, threads, sensor_task, &job);
        bool ok = job_ok(&job, heavy); /* after a failure the step is undone: the rest need not run */
        for (uint32_t i = 0; ok && i < rig->count; i++) {
            if (work[i] > 0)
                continue;
            sensor_work(&job, i);
            ok = job.st[i] == SENSIM_OK;
        }
        for (uint32_t i = 0; i < rig->count; i++) {
            rays_traced += job.rays[i];
            if (job.st[i] != SENSIM_OK && st == SENSIM_OK)
                st = sensim__fail(job.st[i], "%s", rig->task_err[i]); /* the first sensor's that failed */
        }
        for (uint32_t i = 0; i < rig->count; i++) {
            rig_sensor *s = &rig->sensors[i];
            if (st != SENSIM_OK) {
                sensim__ring_tx_abort(s->ring);
                if (s->nav) /* its random walks go back with its ring */
                    sensim__nav_restore(s->nav, &nav_saved[i]);
                continue;
            }
            uint64_t written, lost;
            if (sensim__ring_tx_end(s->ring, &written, &lost) != SENSIM_OK) {
                refused++;
                continue;
            }
            frames += sensor_frames[i];
            if (s->lidar) {
                s->lidar->has_last = true;
                s->lidar->last_end_ns = t1;
            }
        }
    }
    for (uint32_t i = 0; i < held; i++)
        if (rig->sensors[i].lidar)
            sensim__lidar_release(rig->sensors[i].lidar);
    sensim__scene_scan_end(scene);
    if (st != SENSIM_OK)
        return st;
    if (out) {
        out->world_step = rig->step;
        out->t_begin_ns = t0;
        out->t_end_ns = t1;
        out->frames_completed = frames;
        out->sensors_refused = refused;
        out->reserved_u32 = 0;
        out->rays_traced = rays_traced;
        memset(out->reserved, 0, sizeof out->reserved);
    }
    rig->t_ns = t1;
    rig->step++;
    rig->stepped = true;
    return run_consumers(rig); /* the step has committed: a consumer's failure does not undo it */
}

sensim_status sensim_rig_step(sensim_rig *rig, const sensim_scene *scene, int64_t dt, const sensim_motion *platform,
                              sensim_rig_step_result *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    SENSIM_CHECK_HANDLE(rig, SENSIM_MAGIC_RIG, "rig");
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    /* held for the whole call: a push or a second step from another thread (forbidden) or from a sensor
     * callback or consumer is refused instead of racing on the history and the clock */
    int idle = 0;
    if (!atomic_compare_exchange_strong(&rig->stepping, &idle, 1))
        return sensim__fail(SENSIM_ERR_BUSY, "sensim_rig_step: the rig is already stepping or in another call "
                                             "(from one of its sensor callbacks or consumers, or from two threads)");
    sensim_status st = step_locked(rig, scene, dt, platform, out);
    atomic_store(&rig->stepping, 0);
    return st;
}

sensim_status sensim_rig_advance(sensim_rig *rig, const sensim_scene *scene, int64_t t_ns, const double pose[16],
                                 uint32_t flags, sensim_rig_step_result *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    SENSIM_CHECK_HANDLE(rig, SENSIM_MAGIC_RIG, "rig");
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!pose)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_advance: pose is NULL");
    if (flags & ~SENSIM_ADVANCE_JUMP)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_rig_advance: flags = 0x%x has unknown bits", flags);
    sensim_status st = hold(rig, "sensim_rig_advance");
    if (st != SENSIM_OK)
        return st;
    sensim_platform_state s;
    sensim_platform_state_init(&s);
    memcpy(s.pose, pose, sizeof s.pose);
    const uint32_t hn = rig->hn;
    const int64_t t0 = rig->t_ns;
    const bool trimmed_safe = hn < SENSIM_RIG_HISTORY_KEYS; /* the push did not shift the history */
    st = push_locked(rig, t_ns, &s, "sensim_rig_advance", (flags & SENSIM_ADVANCE_JUMP) != 0);
    if (st == SENSIM_OK && t_ns > t0) {
        st = step_locked(rig, scene, t_ns - t0, NULL, out);
        if (st != SENSIM_OK && rig->t_ns == t0 && trimmed_safe)
            rig->hn = hn; /* a refused step takes its key back: nothing of the call stays */
    }
    atomic_store(&rig->stepping, 0);
    return st;
}
