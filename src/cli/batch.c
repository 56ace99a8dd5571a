/* sensim batch: offline point-cloud generation along a trajectory, shardable. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEYS_PER_PIECE 60
#define FORMAT_MCAP 7 /* --format mcap: not a per-frame file format (0..6 are SENSIM_FORMAT_*) */

static volatile sig_atomic_t g_stop;

/* The run's one motion model (--motion): every sensor's poses and kinematics come from the
 * trajectory through it, as a rig's sensors do from its history. */
static int32_t g_motion = SENSIM_INTERP_CAUSAL;
/* Keys a causal piece carries before its span: a key's derivatives read it and the 4 before it. */
static size_t lead_keys(size_t lo)
{
    return g_motion == SENSIM_INTERP_CAUSAL ? (lo < 4 ? lo : 4) : 0;
}

/* A lidar frame without points is almost always a placement mistake: said on stderr and in the frame's JSON. */
#define NO_POINTS_HINT "no points: every beam missed or fell inside the minimum range; check the mount height " \
                       "(mount_xyz_m) and the trajectory's z (a lidar at z = 0 sits in the road)"

static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static void on_sigint(int sig)
{
    (void)sig;
    g_stop = 1;
    /* the scan running now stops within a chunk and writes nothing (one
     * atomic store: async-signal-safe) */
    if (g_ctx)
        sensim_context_set_cancel(g_ctx, 1);
}

/* ---- writer thread: frame i+1 is scanned while frame i is written ---- */
/* A camera of the rig file (type = camera). */
typedef struct cam_sensor {
    sensim_camera *cam;
    sensim_camera_desc d;
    double rate_hz;
    int64_t period_ns;
    uint32_t want;
    double mount[16];
} cam_sensor;

static void mat4_mul(const double a[16], const double b[16], double out[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            out[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] + a[8 + r] * b[4 * c + 2] +
                             a[12 + r] * b[4 * c + 3];
}

/* The camera of rig section @p sp: its preset (or camera file) and camera
 * keys, plus the batch keys rate_hz (default 10), outputs (default all),
 * mount_xyz_m and mount_rpy_deg (platform frame, metres and degrees). */
static int make_camera(const sensor_spec *sp, const char *rig, cam_sensor *c)
{
    int rc = load_camera_arg(sp->preset, &c->d);
    if (rc)
        return rc;
    c->rate_hz = 10;
    c->want = SENSIM_CAMERA_DEPTH | SENSIM_CAMERA_SEMANTIC | SENSIM_CAMERA_INSTANCE | SENSIM_CAMERA_NORMAL |
              SENSIM_CAMERA_RGB;
    double xyz[3] = {0}, rpy[3] = {0};
    for (uint32_t k = 0; k < sp->nsets; k++) {
        char key[64];
        const char *eq = strchr(sp->sets[k], '='), *v = eq + 1;
        snprintf(key, sizeof key, "%.*s", (int)(eq - sp->sets[k] < 63 ? eq - sp->sets[k] : 63), sp->sets[k]);
        if (!strcmp(key, "rate_hz")) {
            if (parse_numbers(v, &c->rate_hz, 1, 1) != 1 || !(c->rate_hz >= 0.1 && c->rate_hz <= 1000)) {
                fprintf(stderr, "sensim: error: %s: sensor '%s': rate_hz must be a number in [0.1, 1000]\n", rig,
                        sp->name);
                return EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_RANGE;
            }
        } else if (!strcmp(key, "outputs")) {
            if (parse_camera_outputs(v, &c->want)) {
                fprintf(stderr, "sensim: error: %s: sensor '%s': bad outputs\n", rig, sp->name);
                return EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
            }
        } else if (!strcmp(key, "mount_xyz_m") || !strcmp(key, "mount_rpy_deg")) {
            if (parse_numbers(v, key[6] == 'x' ? xyz : rpy, 3, 3) != 3) {
                fprintf(stderr, "sensim: error: %s: sensor '%s': %s needs three finite numbers a, b, c\n", rig,
                        sp->name, key);
                return EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
            }
        } else {
            sensim_status st = sensim_camera_desc_set(&c->d, key, v);
            if (st) {
                fprintf(stderr, "sensim: error: %s: sensor '%s': %s\n", rig, sp->name, sensim_context_last_error(NULL));
                return EXIT_STATUS_BASE + (int)st;
            }
        }
    }
    /* the whole capture set the camera keeps in memory */
    c->period_ns = (int64_t)floor(1e9 / c->rate_hz + 0.5);
    sensim_status st;
    if ((st = sensim_pose_from_frame(SENSIM_FRAME_NATIVE, xyz, rpy, c->mount)) ||
        (st = sensim_camera_create(g_ctx, &c->d, &c->cam)) || (st = sensim_camera_set_mount_pose(c->cam, c->mount))) {
        fprintf(stderr, "sensim: error: %s: sensor '%s': %s\n", rig, sp->name, sensim_context_last_error(NULL));
        return EXIT_STATUS_BASE + (int)st;
    }
    return 0;
}

/* An exclusive temporary next to @p path (PATH.tmp.XXXXXX, mode 0644: a
 * planted file or symlink is never followed); NULL after a message. */
static FILE *tmp_open(const char *path, char *tmp, size_t tmp_len)
{
    snprintf(tmp, tmp_len, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "sensim: error: %s: cannot create a temporary file: %s\n", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            remove(tmp);
        }
        return NULL;
    }
    fchmod(fd, 0644);
    return f;
}

/* Close @p f and rename it into place, unless @p rc (an exit status already
 * reported) says the content is bad; on any failure the temporary goes. */
static int tmp_commit(FILE *f, const char *tmp, const char *path, int rc)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rc || rename(tmp, path) != 0) {
        if (!rc)
            fprintf(stderr, "sensim: error: %s: cannot write: %s\n", path, strerror(errno));
        remove(tmp);
        return rc ? rc : EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    return 0;
}

static const char *const nav_names[] = {"imu", "gnss", "odometry"};

static int interp_refused(const char *rig, const sensor_spec *sp)
{
    fprintf(stderr, "sensim: error: %s: sensor '%s': interp is the run's, for every sensor (--motion causal|linear), "
                    "not a sensor's\n", rig, sp->name);
    return EXIT_STATUS_BASE + SENSIM_ERR_UNKNOWN_KEY;
}

/* A navigation sensor of the rig file (type = imu | gnss | odometry): its
 * keys go to sensim_nav_desc_set. */
static int make_nav(const sensor_spec *sp, const char *rig, sensim_nav_desc *d, sensim_nav **out)
{
    sensim_nav_desc_init(d, sp->nav - 1);
    for (uint32_t k = 0; k < sp->nsets; k++) {
        char key[64];
        const char *eq = strchr(sp->sets[k], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - sp->sets[k] < 63 ? eq - sp->sets[k] : 63), sp->sets[k]);
        if (!strcmp(key, "interp"))
            return interp_refused(rig, sp);
        sensim_status st = sensim_nav_desc_set(d, key, eq + 1);
        if (st) {
            fprintf(stderr, "sensim: error: %s: sensor '%s': %s\n", rig, sp->name, sensim_context_last_error(NULL));
            return EXIT_STATUS_BASE + (int)st;
        }
    }
    d->interp = g_motion;
    sensim_status st = sensim_nav_create(g_ctx, d, out);
    if (st) {
        fprintf(stderr, "sensim: error: %s: sensor '%s': %s\n", rig, sp->name, sensim_context_last_error(NULL));
        return EXIT_STATUS_BASE + (int)st;
    }
    return 0;
}

/* OUT/NAME/<type>.csv: samples first .. first + count - 1 of a navigation
 * sensor on the whole trajectory, through a temporary name. */
static int write_nav_csv(const char *out, const char *name, sensim_nav *nav, int kind, const traj *tr, int64_t first,
                         int64_t count)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%.4000s/%.63s/%s.csv", out, name, nav_names[kind]);
    FILE *f = tmp_open(path, tmp, sizeof tmp);
    if (!f)
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    static const char *const header[] = {
        "t_ns,ax,ay,az,gx,gy,gz,compass_rad",
        "t_ns,latitude_deg,longitude_deg,altitude_m",
        "t_ns,x,y,z,qw,qx,qy,qz,vx,vy,vz,vx_body,vy_body,vz_body,wx,wy,wz,ax,ay,az"};
    fprintf(f, "%s\n", header[kind]);
    int rc = 0;
    for (int64_t k = first; k < first + count && !rc; k++) {
        sensim_nav_sample s;
        sensim_status st = sensim_nav_sample_at(nav, tr->keys, tr->n, (uint64_t)k, &s);
        if (st) {
            rc = fail(st);
            break;
        }
        fprintf(f, "%lld", (long long)s.t_ns);
        if (kind == SENSIM_NAV_IMU) {
            const double v[7] = {s.accel[0], s.accel[1], s.accel[2], s.gyro[0], s.gyro[1], s.gyro[2], s.compass_rad};
            for (int i = 0; i < 7; i++)
                fprintf(f, ",%.17g", v[i]);
        } else if (kind == SENSIM_NAV_GNSS) {
            fprintf(f, ",%.17g,%.17g,%.17g", s.latitude_deg, s.longitude_deg, s.altitude_m);
        } else {
            const double *g[6] = {s.position, s.orientation, s.velocity_world, s.velocity_body, s.angular_velocity,
                                  s.acceleration_world};
            const int len[6] = {3, 4, 3, 3, 3, 3};
            for (int a = 0; a < 6; a++)
                for (int i = 0; i < len[a]; i++)
                    fprintf(f, ",%.17g", g[a][i]);
        }
        fputc('\n', f);
    }
    return tmp_commit(f, tmp, path, rc);
}

/* Moving actors of --actors: placed as prototypes once, then moved for
 * each frame or sample: the scene's motion interval becomes [t0, t1] and
 * each actor goes from its trajectory pose at t0 to the one at t1 (linear in
 * between, as scans interpolate; held before and after its trajectory). */
typedef struct actor_set {
    sensim_scene *scene;
    actor_spec *a;
    uint32_t n;
} actor_set;

static int actors_place(actor_set *as, int32_t frame)
{
    for (uint32_t i = 0; i < as->n; i++) {
        actor_spec *a = &as->a[i];
        int rc = load_trajectory_file(a->trajectory, frame, &a->tr);
        if (rc)
            return rc;
        sensim_status st;
        uint32_t mesh;
        if (a->box[0] > 0) { /* centred on the origin in x and y, bottom at z = 0 */
            const double L = a->box[0] / 2, W = a->box[1] / 2, H = a->box[2];
            float v[24];
            for (int c = 0; c < 8; c++)
                v[3 * c] = (float)((c & 1) ? L : -L), v[3 * c + 1] = (float)((c & 2) ? W : -W),
                      v[3 * c + 2] = (float)((c & 4) ? H : 0);
            static const uint32_t idx[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                             2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
            sensim_mesh_desc md;
            sensim_mesh_desc_init(&md);
            md.vertices = v, md.vertex_count = 8, md.indices = idx, md.triangle_count = 12;
            md.tag = (uint8_t)(a->tag >= 0 ? a->tag : 14), md.flags = SENSIM_MESH_PROTOTYPE;
            st = sensim_scene_add_mesh(as->scene, &md, &mesh);
        } else {
            sensim_load_options lo;
            sensim_load_options_init(&lo);
            lo.flags = SENSIM_MESH_PROTOTYPE;
            lo.frame = frame;
            if (a->tag >= 0)
                lo.default_tag = (uint8_t)a->tag;
            st = sensim_scene_load_file(as->scene, a->mesh, &lo, &mesh);
        }
        if (!st)
            st = sensim_scene_add_actor(as->scene, mesh, a->id, a->tr.keys[0].pose);
        if (st) {
            fprintf(stderr, "sensim: error: actor '%s': %s\n", a->name, sensim_context_last_error(NULL));
            return EXIT_STATUS_BASE + (int)st;
        }
    }
    return 0;
}

static int actors_move(actor_set *as, int64_t t0, int64_t t1)
{
    if (!as->n)
        return 0;
    if (t1 <= t0)
        t1 = t0 + 1;
    sensim_status st = sensim_scene_set_motion_interval(as->scene, t0, t1);
    for (uint32_t i = 0; i < as->n && !st; i++) {
        sensim_kinematics k0, k1;
        const actor_spec *a = &as->a[i];
        if (!(st = sensim_kinematics_at(a->tr.keys, a->tr.n, SENSIM_INTERP_LINEAR, t0, &k0)) &&
            !(st = sensim_kinematics_at(a->tr.keys, a->tr.n, SENSIM_INTERP_LINEAR, t1, &k1)))
            st = sensim_scene_set_actor_motion(as->scene, a->id, k0.pose, k1.pose);
    }
    if (!st)
        st = sensim_scene_commit(as->scene);
    return st ? fail(st) : 0;
}

/* A radar of the rig file (type = radar): its keys go to sensim_radar_desc_set. */
static int make_radar(const sensor_spec *sp, const char *rig, sensim_radar_desc *d, sensim_radar **out)
{
    sensim_radar_desc_init(d);
    sensim_status st = SENSIM_OK;
    for (uint32_t k = 0; k < sp->nsets && !st; k++) {
        char key[64];
        const char *eq = strchr(sp->sets[k], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - sp->sets[k] < 63 ? eq - sp->sets[k] : 63), sp->sets[k]);
        if (!strcmp(key, "interp"))
            return interp_refused(rig, sp);
        st = sensim_radar_desc_set(d, key, eq + 1);
    }
    d->interp = g_motion;
    if (!st)
        st = sensim_radar_create(g_ctx, d, out);
    if (st) {
        fprintf(stderr, "sensim: error: %s: sensor '%s': %s\n", rig, sp->name, sensim_context_last_error(NULL));
        return EXIT_STATUS_BASE + (int)st;
    }
    return 0;
}

/* OUT/NAME/radar.csv: every detection of samples first .. first + count - 1. */
static int write_radar_csv(const char *out, const char *name, sensim_radar *r, actor_set *as, const traj *tr,
                           int64_t first, int64_t count)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%.4000s/%.63s/radar.csv", out, name);
    uint64_t cap = sensim_radar_rays_per_sample(r);
    sensim_radar_detection *det = malloc((cap + 1) * sizeof *det);
    FILE *f = det ? tmp_open(path, tmp, sizeof tmp) : NULL;
    if (!f) {
        if (!det)
            fprintf(stderr, "sensim: error: out of memory\n");
        free(det);
        return EXIT_STATUS_BASE + (det ? SENSIM_ERR_IO : SENSIM_ERR_OUT_OF_MEMORY);
    }
    fprintf(f, "t_ns,sample,depth_m,azimuth_rad,altitude_rad,velocity_mps,rcs_dbsm,snr_db,object_id,tag\n");
    int rc = 0;
    for (int64_t k = first; k < first + count && !rc; k++) {
        uint64_t n;
        const int64_t t = k * sensim_radar_period_ns(r);
        if ((rc = actors_move(as, t, t + 1)))
            break;
        sensim_status st = sensim_radar_sample_at(r, as->scene, tr->keys, tr->n, (uint64_t)k, det, cap, &n, NULL);
        if (st) {
            rc = fail(st);
            break;
        }
        for (uint64_t i = 0; i < n; i++)
            fprintf(f, "%lld,%lld,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%u,%u\n", (long long)(k * sensim_radar_period_ns(r)),
                    (long long)k, (double)det[i].depth_m, (double)det[i].azimuth_rad, (double)det[i].altitude_rad,
                    (double)det[i].velocity_mps, (double)det[i].rcs_dbsm, (double)det[i].snr_db, det[i].object_id,
                    det[i].tag);
    }
    free(det);
    return tmp_commit(f, tmp, path, rc);
}

/* Index of the last trajectory key at or before @p t (0 if none). */
static size_t key_at(const traj *tr, int64_t t)
{
    size_t lo = 0, hi = tr->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (tr->keys[mid].t_ns <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* World pose at @p t of a sensor mounted at @p mount, by the run's motion model. */
static void sensor_pose_at(const traj *tr, int64_t t, const double mount[16], double out[16])
{
    double P[16];
    if (g_motion == SENSIM_INTERP_LINEAR) {
        size_t lo = key_at(tr, t);
        sensim_motion_pose_at(&tr->keys[lo], lo + 1 < tr->n ? 2 : 1, t, P);
    } else {
        sensim_kinematics kin;
        sensim_kinematics_at(tr->keys, tr->n, g_motion, t, &kin);
        memcpy(P, kin.pose, sizeof P);
    }
    mat4_mul(P, mount, out);
}

/* The keys a render of [t, t + span] reads, the causal model's lead keys included, into @p m;
 * 0, or an exit status after a message. */
static int camera_keys(const char *name, const traj *tr, int64_t k, int64_t t, int64_t span, sensim_motion *m)
{
    size_t lo = key_at(tr, t), hi = lo;
    while (hi + 1 < tr->n && tr->keys[hi].t_ns < t + span)
        hi++;
    if (hi + 1 < tr->n && hi == lo)
        hi++;
    size_t lead = lead_keys(lo);
    if (hi - lo + 1 + lead > 64 /* keys a sensim_motion takes */) {
        fprintf(stderr, "sensim: error: camera '%s': the rolling shutter of capture %lld spans %zu trajectory "
                        "rows, more than %zu\n", name, (long long)k, hi - lo + 1, 64 - lead);
        return EXIT_STATUS_BASE + SENSIM_ERR_TOO_LARGE;
    }
    memset(m, 0, sizeof *m);
    m->keys = &tr->keys[lo - lead];
    m->key_count = (uint32_t)(hi - lo + 1 + lead);
    m->interp = (uint32_t)g_motion;
    return 0;
}

/* Render and write capture k of a camera (OUT/NAME/<output>/NNNNNN.png,
 * OUT/NAME/NNNNNN.json). 0, or an exit status after a message. */
static int camera_capture(const char *out, const char *name, cam_sensor *c, actor_set *as,
                          const traj *tr, int64_t k, int32_t frame, const sensim_camera_images *im, uint8_t *scratch)
{
    int64_t t = k * c->period_ns, span = c->d.row_readout_ns * (int64_t)(c->d.height - 1);
    sensim_motion m;
    int arc = camera_keys(name, tr, k, t, span, &m);
    if (arc)
        return arc;
    double pose[16];
    arc = actors_move(as, t, t + span + 1);
    if (arc)
        return arc;
    sensim_status st = sensim_camera_render(c->cam, as->scene, &m, t, im, pose);
    if (st)
        return st == SENSIM_ERR_CANCELLED && g_stop ? -1 : fail(st);
    char dir[4200], stem[32];
    snprintf(dir, sizeof dir, "%.4000s/%.63s", out, name);
    snprintf(stem, sizeof stem, "%06lld", (long long)k);
    return camera_write_capture(dir, stem, c->cam, name, c->want, im, scratch, pose, t, frame);
}

static const char *frame_name(int32_t frame)
{
    return frame == SENSIM_FRAME_CARLA ? "carla" : frame == SENSIM_FRAME_UE ? "ue" : "native";
}

/* The collection layout's per-step JSON, OUT/steps/NNNNNN.json: world step
 * s covers [s·Δ, (s+1)·Δ); it lists the platform pose at its start and every
 * sensor frame (lidar frame, camera capture) whose start time lies in it,
 * with that time, the sensor's pose then and the frame's file stem. */
typedef struct step_plan {
    const char *out;
    const traj *tr;
    const sensor_spec *specs;
    uint32_t nspecs;
    const int64_t *periods, *first_frame, *nframes;
    const double (*mounts)[16];
    const int32_t *interp;   /* per sensor: how its poses are interpolated (navigation sensors: theirs) */
    int64_t step_ns;
    int32_t frame;
} step_plan;

static void json_pose(FILE *f, int32_t frame, const double pose[16])
{
    double o[16];
    sensim_pose_matrix_to_frame(frame, pose, o);
    json_numbers(f, o, 16);
}

static int write_step(const step_plan *sp, int64_t s)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%.4000s/steps/%06lld.json", sp->out, (long long)s);
    FILE *f = tmp_open(path, tmp, sizeof tmp);
    if (!f)
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    const int64_t tb = s * sp->step_ns, te = tb + sp->step_ns;
    static const double ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    double P[16];
    sensor_pose_at(sp->tr, tb, ident, P);
    fprintf(f, "{\"step\": %lld, \"t_begin_ns\": %lld, \"t_end_ns\": %lld, \"frame_of_reference\": \"%s\", "
               "\"units\": \"%s\",\n \"platform_pose\": ",
            (long long)s, (long long)tb, (long long)te, frame_name(sp->frame), sp->frame == SENSIM_FRAME_UE ? "cm" : "m");
    json_pose(f, sp->frame, P);
    fprintf(f, ",\n \"sensors\": [");
    int n = 0;
    for (uint32_t j = 0; j < sp->nspecs; j++) {
        const int64_t Pj = sp->periods[j];
        for (int64_t r = -floordiv(-tb, Pj); r * Pj < te; r++) {
            if (r < sp->first_frame[j] || r >= sp->first_frame[j] + sp->nframes[j])
                continue;
            const sensor_spec *sj = &sp->specs[j];
            if (sp->interp[j] == SENSIM_INTERP_LINEAR) {
                sensor_pose_at(sp->tr, r * Pj, sp->mounts[j], P);
            } else {
                sensim_kinematics kin;
                sensim_kinematics_at(sp->tr->keys, sp->tr->n, sp->interp[j], r * Pj, &kin);
                mat4_mul(kin.pose, sp->mounts[j], P);
            }
            fprintf(f, "%s\n  {\"name\": \"%s\", \"type\": \"%s\", \"frame\": %lld, \"t_begin_ns\": %lld, "
                       "\"t_end_ns\": %lld, ",
                    n++ ? "," : "", sj->name,
                    sj->nav ? nav_names[sj->nav - 1] : sj->camera ? "camera" : sj->radar ? "radar" : "lidar",
                    (long long)r, (long long)(r * Pj), (long long)((r + 1) * Pj));
            if (sj->nav)
                fprintf(f, "\"files\": \"%s/%s.csv\", \"row\": %lld, \"sensor_pose\": ", sj->name,
                        nav_names[sj->nav - 1], (long long)(r - sp->first_frame[j] + 1));
            else if (sj->radar)
                fprintf(f, "\"files\": \"%s/radar.csv\", \"sample\": %lld, \"sensor_pose\": ", sj->name, (long long)r);
            else
                fprintf(f, "\"files\": \"%s/%s%06lld\", \"sensor_pose\": ", sj->name, sj->camera ? "" : "frame_",
                        (long long)r);
            json_pose(f, sp->frame, P);
            fprintf(f, "}");
        }
    }
    fprintf(f, "\n ]}\n");
    return tmp_commit(f, tmp, path, 0);
}

typedef struct job {
    sensim_point *pts;
    uint64_t n;
    sensim_frame_header h;
    char base[4096];      /* path without extension */
    const char *sensor;
    const sensim_lidar *lidar;
    int full;
} job;

typedef struct writer {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job slots[2];
    int head, count, quit, error;
    char message[4400];   /* the first error, for the main thread's summary */
    uint64_t written;     /* frames completely on disk */
    int32_t format;
    int32_t frame;        /* output frame of points and poses */
    uint32_t images; /* IMG_* */
    double write_s;
} writer;

static const char *ext_of(int32_t format)
{
    static const char *const e[] = {"ply", "ply", "pcd", "pcd", "bin", "bin", "las", "mcap"};
    return e[format];
}

static const char *format_name(int32_t format)
{
    static const char *const e[] = {"ply", "ply-ascii", "pcd", "pcd-ascii", "kitti", "carla", "las", "mcap"};
    return e[format];
}

/* The per-frame JSON, through an exclusive temporary renamed into place
 * (a symlink or file planted under the temporary name is never followed). */
static int write_frame_json(writer *w, const job *j)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%.4090s.json", j->base);
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(w->message, sizeof w->message, "%s: cannot create a temporary file: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            remove(tmp);
        }
        return 0;
    }
    fchmod(fd, 0644);
    fprintf(f, "{\"sensor\": \"%s\", \"frame\": %llu, \"t_begin_ns\": %lld, \"t_end_ns\": %lld, \"points\": %llu, "
               "\"lost_points\": %llu, \"partial\": %s, \"sensor_pose\": [",
            j->sensor, (unsigned long long)j->h.frame_number, (long long)j->h.t_begin_ns, (long long)j->h.t_end_ns,
            (unsigned long long)j->n, (unsigned long long)j->h.lost_points,
            (j->h.flags & SENSIM_FRAME_PARTIAL) ? "true" : "false");
    double pose[16];
    sensim_pose_matrix_to_frame(w->frame, j->h.sensor_pose, pose);
    for (int i = 0; i < 16; i++)
        fprintf(f, "%s%.17g", i ? ", " : "", pose[i]);
    fprintf(f, "], \"frame_of_reference\": \"%s\", \"units\": \"%s\"%s}\n", frame_name(w->frame),
            w->frame == SENSIM_FRAME_UE ? "cm" : "m", j->n ? "" : ", \"warning\": \"" NO_POINTS_HINT "\"");
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(w->message, sizeof w->message, "%s: write failed (disk full?)", path);
        remove(tmp);
        return 0;
    }
    if (rename(tmp, path) != 0) {
        snprintf(w->message, sizeof w->message, "%s: cannot rename into place: %s", path, strerror(errno));
        remove(tmp);
        return 0;
    }
    return 1;
}

static int write_job(writer *w, job *j)
{
    char path[4200];
    snprintf(path, sizeof path, "%.4090s.%s", j->base, ext_of(w->format));
    /* library errors are per thread: copy the text here, on the writer thread */
    if (sensim_write_points_frame(path, w->format, w->frame, &j->h, j->pts, j->n) != SENSIM_OK) {
        snprintf(w->message, sizeof w->message, "%s", sensim_context_last_error(NULL));
        return 0;
    }
    if (w->images) {
        if (write_frame_images_set(w->images, j->lidar, j->pts, j->n, j->base) != SENSIM_OK) {
            snprintf(w->message, sizeof w->message, "%s", sensim_context_last_error(NULL));
            return 0;
        }
    }
    /* the per-frame JSON is written last: its presence marks a finished frame (--resume) */
    return write_frame_json(w, j);
}

static void *writer_main(void *arg)
{
    writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->count == 0 && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->count == 0 && w->quit)
            break;
        job *j = &w->slots[w->head];
        pthread_mutex_unlock(&w->mu);
        double t0 = now_s();
        int ok = write_job(w, j);
        double dt = now_s() - t0;
        pthread_mutex_lock(&w->mu);
        w->write_s += dt;
        if (ok)
            w->written++;
        if (!ok && !w->error) {
            w->error = 1;
            fprintf(stderr, "sensim: error: %s\n", w->message[0] ? w->message : "writing a frame failed");
        }
        j->full = 0;
        w->head = (w->head + 1) % 2;
        w->count--;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Take a free slot (waits while both are being written). */
static job *writer_slot(writer *w, int *index)
{
    pthread_mutex_lock(&w->mu);
    while (w->count == 2)
        pthread_cond_wait(&w->cv, &w->mu);
    *index = (w->head + w->count) % 2;
    job *j = &w->slots[*index];
    pthread_mutex_unlock(&w->mu);
    return j;
}

static void writer_submit(writer *w)
{
    pthread_mutex_lock(&w->mu);
    w->slots[(w->head + w->count) % 2].full = 1;
    w->count++;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static void writer_drain(writer *w)
{
    pthread_mutex_lock(&w->mu);
    while (w->count > 0)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

/* ---- progress ---- */
/* What each sensor has done of what it will do this run (frames, captures,
 * samples): the line counts exactly that, per sensor when there are several. */
typedef struct prog {
    int tty, quiet;
    uint32_t n;
    const char *name[MAX_SENSORS];
    uint64_t done[MAX_SENSORS], total[MAX_SENSORS];
    uint64_t empty[MAX_SENSORS]; /* lidar frames without a point */
    uint64_t points, shown; /* shown: the count last printed (a final line repeats nothing) */
    double t0, last;
} prog;

static void progress(prog *p, int final)
{
    double now = now_s(), el = now - p->t0;
    uint64_t done = 0, total = 0;
    for (uint32_t s = 0; s < p->n; s++)
        done += p->done[s], total += p->total[s];
    if (p->quiet || (!final && !p->tty && now - p->last < 5.0 && done != total) ||
        (!p->tty && p->shown == done && p->last > 0))
        return;
    p->last = now;
    p->shown = done;
    double rate = el > 0 ? p->points / el : 0, eta = done && done < total ? el / done * (total - done) : 0;
    char per[1024] = "";
    size_t o = 0;
    for (uint32_t s = 0; s < p->n && p->n > 1 && o < sizeof per; s++)
        o += (size_t)snprintf(per + o, sizeof per - o, "%s%s %llu/%llu", s ? ", " : " (", p->name[s],
                              (unsigned long long)p->done[s], (unsigned long long)p->total[s]);
    if (p->n > 1 && o < sizeof per)
        snprintf(per + o, sizeof per - o, ")");
    if (p->tty) {
        int w = 30, fill = total ? (int)(w * (done < total ? done : total) / total) : w;
        fprintf(stderr, "\r[%.*s%*s] %llu/%llu%s, %.2f Mpts/s, ETA %.0f s ", fill, "##############################",
                w - fill, "", (unsigned long long)done, (unsigned long long)total, per, rate / 1e6, eta);
        if (final)
            fputc('\n', stderr);
    } else {
        fprintf(stderr, "sensim batch: %llu/%llu%s, %.2f Mpts/s, ETA %.0f s\n", (unsigned long long)done,
                (unsigned long long)total, per, rate / 1e6, eta);
    }
}

static uint64_t fnv1a_file(const char *path, int *ok)
{
    uint64_t h = 1469598103934665603ULL;
    FILE *f = fopen(path, "rb");
    *ok = f != NULL;
    if (!f)
        return 0;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 1099511628211ULL;
    fclose(f);
    return h;
}

/* Length of the well-formed UTF-8 sequence at @p s (1..4), 0 if none. */
static int utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    int n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || (n == 2 && c < 0xC2) || (n == 4 && c > 0xF4))
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((n == 3 && c == 0xE0 && s[1] < 0xA0) || (n == 3 && c == 0xED && s[1] >= 0xA0) ||
        (n == 4 && c == 0xF0 && s[1] < 0x90) || (n == 4 && c == 0xF4 && s[1] >= 0x90))
        return 0; /* overlong, surrogate, beyond U+10FFFF */
    return n;
}

/* A JSON string that is valid UTF-8 for any bytes: control characters
 * escaped, bytes that are not UTF-8 written as U+FFFD. */
static void json_str(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', f);
    while (*s) {
        int n = utf8_len(s);
        if (n == 0) {
            fputs("\\ufffd", f);
            s++;
            continue;
        }
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if (*s < 0x20 || *s == 0x7F)
            fprintf(f, "\\u%04x", *s);
        else
            fwrite(s, 1, (size_t)n, f);
        s += n;
    }
    fputc('"', f);
}

/* ', "overrides": [...]}' closing a sensor's meta.json entry: its rig keys, then @p extra. */
static void json_overrides(FILE *f, const sensor_spec *sp, const char *const *extra, uint32_t nextra)
{
    fprintf(f, ", \"overrides\": [");
    for (uint32_t k = 0; k < sp->nsets + nextra; k++) {
        fprintf(f, "%s", k ? ", " : "");
        json_str(f, k < sp->nsets ? sp->sets[k] : extra[k - sp->nsets]);
    }
    fprintf(f, "]}");
}

static int file_exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* Whether the run may write into @p out: 0, or an exit status after one
 * line. A folder holds one run: an existing meta.json must describe this
 * run (same inputs, sensors, overrides and format) unless --overwrite; a
 * folder with other files and no meta.json is refused unless --overwrite;
 * a finished or partial run is only continued with --resume (shards of one
 * run share the folder). */
static int check_output(const char *out, const char *mp, const char *meta, size_t len, int resume, int overwrite,
                        uint32_t shard_n)
{
    if (overwrite)
        return 0;
    int fd, tries = 0;
again:
    /* non-blocking and regular only: a FIFO planted as meta.json must not hang the run */
    fd = open(mp, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd >= 0 && (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))) {
        close(fd);
        fprintf(stderr, "sensim: error: %s is not a regular file: refusing to use this folder\n", mp);
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    if (!f) {
        DIR *d = opendir(out);
        struct dirent *e;
        int other = 0, meta_now = 0;
        while (d && (e = readdir(d))) {
            if (!strcmp(e->d_name, "meta.json"))
                meta_now = 1;
            else if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                     strncmp(e->d_name, "meta.json.tmp.", 14) != 0) /* a shard writing meta.json right now */
                other = 1;
        }
        if (d)
            closedir(d);
        /* Another shard renamed its meta.json in between our open and this
         * listing (shards of a job array start together and reach this point
         * within microseconds; its frames may already be there): compare
         * with it instead of refusing the folder. */
        if (meta_now && tries++ < 8)
            goto again;
        other |= meta_now; /* listed but never readable: not ours to replace */
        if (other) {
            fprintf(stderr, "sensim: error: %s is not empty and holds no meta.json of a run: refusing to mix "
                            "(choose an empty folder, or --overwrite)\n", out);
            return EXIT_STATUS_BASE + SENSIM_ERR_DUPLICATE;
        }
        return 0;
    }
    char *old = malloc(len + 2);
    size_t n = old ? fread(old, 1, len + 1, f) : 0;
    fclose(f);
    if (!old) {
        fprintf(stderr, "sensim: error: out of memory\n");
        return EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
    }
    old[n] = '\0';
    if (n == len && memcmp(old, meta, len) == 0) {
        free(old);
        if (resume || shard_n > 1)
            return 0;
        fprintf(stderr, "sensim: error: %s already holds this run: --resume to continue it, --overwrite to "
                        "render every frame again\n", out);
        return EXIT_STATUS_BASE + SENSIM_ERR_DUPLICATE;
    }
    /* name the first line that differs */
    const char *a = old, *b = meta;
    while (*a && *b) {
        const char *ae = strchr(a, '\n'), *be = strchr(b, '\n');
        size_t al = ae ? (size_t)(ae - a) : strlen(a), bl = be ? (size_t)(be - b) : strlen(b);
        if (al != bl || memcmp(a, b, al) != 0)
            break;
        a += al + (ae != NULL);
        b += bl + (be != NULL);
    }
    while (*a == ' ')
        a++;
    while (*b == ' ')
        b++;
    int an = (int)(strchr(a, '\n') ? strchr(a, '\n') - a : (ptrdiff_t)strlen(a));
    int bn = (int)(strchr(b, '\n') ? strchr(b, '\n') - b : (ptrdiff_t)strlen(b));
    fprintf(stderr, "sensim: error: %s holds another run (%s): it has %.*s%s, this run %.*s%s; nothing was "
                    "written (another folder, or --overwrite)\n",
            mp, resume ? "--resume refused" : "refusing to mix", an > 160 ? 160 : an, a, an > 160 ? "..." : "",
            bn > 160 ? 160 : bn, b, bn > 160 ? "..." : "");
    free(old);
    return EXIT_STATUS_BASE + SENSIM_ERR_DUPLICATE;
}

/* ---- --format mcap: one time-ordered rosbag2 MCAP of the whole run ---- */

/* Scan frame r of @p lidar (frame period @p P) along the trajectory into
 * @p ring and pop it into @p pts (capacity @p cap). 0, -1 (cancelled by
 * Ctrl-C) or an exit status after a message. */
static int scan_lidar_frame(sensim_lidar *lidar, sensim_scene *scene, actor_set *as, const traj *tr, int64_t r,
                            int64_t P, sensim_ring *ring, sensim_point *pts, uint64_t cap, sensim_frame_header *h,
                            uint64_t *n)
{
    int64_t fbeg = r * P, fend = fbeg + P;
    int rc;
    if ((rc = actors_move(as, fbeg, fend)))
        return rc;
    /* the frame in pieces of at most KEYS_PER_PIECE trajectory rows */
    size_t lo = 0;
    while (lo + 1 < tr->n && tr->keys[lo + 1].t_ns <= fbeg)
        lo++;
    int64_t a = fbeg;
    while (a < fend) {
        size_t hi = lo, lead = lead_keys(lo);
        while (hi + 1 < tr->n && hi - lo + lead < KEYS_PER_PIECE && tr->keys[hi].t_ns < fend)
            hi++;
        int64_t b = (tr->keys[hi].t_ns < fend && hi + 1 < tr->n) ? tr->keys[hi].t_ns : fend;
        if (b <= a)
            b = fend;
        sensim_motion m;
        memset(&m, 0, sizeof m);
        m.keys = &tr->keys[lo - lead];
        m.key_count = (uint32_t)(hi - lo + 1 + lead);
        m.interp = (uint32_t)g_motion;
        m.world_step = (uint64_t)r;
        sensim_status st = sensim_lidar_scan_motion(lidar, scene, a, b, &m, ring, NULL);
        if (st)
            return st == SENSIM_ERR_CANCELLED && g_stop ? -1 : fail(st);
        a = b;
        while (lo + 1 < tr->n && tr->keys[lo + 1].t_ns <= a)
            lo++;
    }
    sensim_status st = sensim_ring_pop(ring, h, pts, cap, n);
    return st ? fail(st) : 0;
}

typedef struct mcap_opts {
    sensim_mcap_options o;
    int no_tf, no_odom;
    char prefix[128];      /* topic prefix, "" or "/a/b" */
    char odom_frame[64], base_frame[64];
} mcap_opts;

/* Everything run_mcap needs from cmd_batch. */
typedef struct mcap_run {
    const char *out;
    const mcap_opts *mo;
    const traj *tr;
    actor_set *as;
    sensim_scene *scene;
    const sensor_spec *specs;
    uint32_t nspecs;
    sensim_lidar **lidars;
    cam_sensor *cams;
    sensim_nav **navs;
    const sensim_nav_desc *nav_desc;
    sensim_radar **radars;
    const sensim_radar_desc *radar_desc;
    const int64_t *periods, *first_frame, *nframes;
    int64_t fa, fb, step_ns;
    sensim_ring *ring;
    sensim_point *pts;
    uint64_t cap;
    const sensim_camera_images *cim;
    uint8_t *scratch;      /* 3 bytes a pixel */
    int quiet;
    uint64_t frames, points, messages;
    prog *pg;
} mcap_run;

/* A radar detection as a PointCloud2 record: Cartesian x, y, z (sensor
 * frame, metres) in front of the detection's own fields. */
typedef struct radar_point {
    float x, y, z;
    sensim_radar_detection d;
} radar_point;

static sensim_field radar_point_fields[13];

static void init_radar_point_fields(void)
{
    static const char *const xyz[3] = {"x", "y", "z"};
    for (uint32_t i = 0; i < 3; i++)
        radar_point_fields[i] = (sensim_field){xyz[i], 4 * i, SENSIM_FIELD_FLOAT32, 1};
    uint32_t n;
    const sensim_field *f = sensim_radar_fields(&n);
    for (uint32_t i = 0; i < n && i < 10; i++) {
        radar_point_fields[3 + i] = f[i];
        radar_point_fields[3 + i].offset += (uint32_t)offsetof(radar_point, d);
    }
}

/* "/prefix/name/leaf" with '-' of the sensor name as '_' (ROS names have no '-') */
static void topic_name(char *dst, size_t cap, const char *prefix, const char *name, const char *leaf)
{
    snprintf(dst, cap, "%.127s/%.63s%s%.40s", prefix, name, leaf[0] ? "/" : "", leaf);
    for (char *p = dst; *p; p++)
        if (*p == '-')
            *p = '_';
}

static int mcap_fail(void)
{
    fprintf(stderr, "sensim: error: %s\n", sensim_context_last_error(NULL));
    return EXIT_STATUS_BASE + SENSIM_ERR_IO;
}

#define MC(x)                                                                             \
    do {                                                                                  \
        sensim_status st_ = (x);                                                          \
        if (st_) {                                                                        \
            fprintf(stderr, "sensim: error: %s\n", sensim_context_last_error(NULL));      \
            rc = EXIT_STATUS_BASE + (int)st_;                                             \
            goto end;                                                                     \
        }                                                                                 \
    } while (0)

static double max3sq(const double v[3])
{
    double m = 0;
    for (int i = 0; i < 3; i++)
        m = fabs(v[i]) > m ? fabs(v[i]) : m;
    return m * m;
}

/* Body-to-optical: columns are the optical x (right), y (down), z (forward)
 * in the camera body frame (x forward, y left, z up). */
static const double OPTICAL[16] = {0, -1, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, 0, 0, 0, 1};

static int run_mcap(mcap_run *R)
{
    const mcap_opts *mo = R->mo;
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%.4000s/sensim", R->out);
    sensim_mcap *m = NULL;
    int rc = 0;
    uint16_t t_clock = 0, t_tf = 0, t_tfs = 0, t_odom = 0;
    uint16_t tp[MAX_SENSORS][6]; /* per sensor: main topic(s); cameras: 5 outputs + camera_info */
    radar_point *rbuf = NULL;
    MC(sensim_mcap_open(prefix, &mo->o, &m));
    char name[512];
    topic_name(name, sizeof name, mo->prefix, "clock", "");
    MC(sensim_mcap_add_topic(m, mo->prefix[0] ? name : "/clock", SENSIM_ROS_CLOCK, &t_clock));
    if (!mo->no_tf) {
        MC(sensim_mcap_add_topic(m, "/tf", SENSIM_ROS_TF, &t_tf));
        MC(sensim_mcap_add_topic(m, "/tf_static", SENSIM_ROS_TF_STATIC, &t_tfs));
    }
    if (!mo->no_odom) {
        topic_name(name, sizeof name, mo->prefix, "odom", "");
        MC(sensim_mcap_add_topic(m, name, SENSIM_ROS_ODOMETRY, &t_odom));
    }
    static const char *const outs[5] = {"depth", "semantic", "instance", "normal", "rgb"};
    uint64_t max_rays = 0;
    for (uint32_t s = 0; s < R->nspecs; s++) {
        const sensor_spec *sp = &R->specs[s];
        if (sp->camera) {
            for (int k = 0; k < 5; k++)
                if (R->cams[s].want & (1u << k)) {
                    char leaf[32];
                    snprintf(leaf, sizeof leaf, "%s/image", outs[k]);
                    topic_name(name, sizeof name, mo->prefix, sp->name, leaf);
                    MC(sensim_mcap_add_topic(m, name, SENSIM_ROS_IMAGE, &tp[s][k]));
                }
            topic_name(name, sizeof name, mo->prefix, sp->name, "camera_info");
            MC(sensim_mcap_add_topic(m, name, SENSIM_ROS_CAMERA_INFO, &tp[s][5]));
        } else if (sp->nav) {
            static const char *const leaf[3] = {"imu", "fix", "odom"};
            static const int32_t type[3] = {SENSIM_ROS_IMU, SENSIM_ROS_NAVSATFIX, SENSIM_ROS_ODOMETRY};
            topic_name(name, sizeof name, mo->prefix, sp->name, leaf[sp->nav - 1]);
            MC(sensim_mcap_add_topic(m, name, type[sp->nav - 1], &tp[s][0]));
        } else {
            topic_name(name, sizeof name, mo->prefix, sp->name, sp->radar ? "detections" : "points");
            MC(sensim_mcap_add_topic(m, name, SENSIM_ROS_POINTCLOUD2, &tp[s][0]));
            if (sp->radar) {
                uint64_t n = sensim_radar_rays_per_sample(R->radars[s]);
                max_rays = n > max_rays ? n : max_rays;
            }
        }
    }
    init_radar_point_fields();
    if (max_rays && !(rbuf = malloc((max_rays + 1) * (sizeof *rbuf + sizeof(sensim_radar_detection))))) {
        fprintf(stderr, "sensim: error: out of memory for radar detections\n");
        rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        goto end;
    }
    /* events in time order: world steps (clock, tf, odom) first at equal
     * times, then sensors in rig order */
    const int64_t t0 = R->tr->keys[0].t_ns, t1 = R->tr->keys[R->tr->n - 1].t_ns;
    const int64_t s0 = -floordiv(-t0, R->step_ns), ns = floordiv(t1, R->step_ns) - s0;
    int64_t next[MAX_SENSORS + 1];
    for (uint32_t s = 0; s <= R->nspecs; s++)
        next[s] = R->fa;
    int static_done = mo->no_tf;
    static const double ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    while (!g_stop) {
        int best = -1;
        int64_t bt = INT64_MAX;
        for (uint32_t s = 0; s <= R->nspecs; s++) {
            int64_t count = s == R->nspecs ? ns : R->nframes[s];
            if (next[s] >= count || next[s] >= R->fb)
                continue;
            int64_t t = s == R->nspecs ? (s0 + next[s]) * R->step_ns : (R->first_frame[s] + next[s]) * R->periods[s];
            if (t < bt || (t == bt && s == R->nspecs))
                bt = t, best = (int)s;
        }
        if (best < 0)
            break;
        const uint32_t s = (uint32_t)best;
        const int64_t k = s == R->nspecs ? s0 + next[s] : R->first_frame[s] + next[s];
        next[s]++;
        if (!static_done) { /* mounts, once, at the first event */
            sensim_ros_transform st[2 * MAX_SENSORS];
            uint32_t n = 0;
            for (uint32_t j = 0; j < R->nspecs; j++) {
                memset(&st[n], 0, sizeof st[n]);
                st[n].stamp_ns = bt;
                st[n].parent_frame = mo->base_frame;
                st[n].child_frame = R->specs[j].name;
                if (R->specs[j].camera)
                    memcpy(st[n].pose, R->cams[j].mount, sizeof st[n].pose);
                else if (R->navs[j])
                    memcpy(st[n].pose, R->nav_desc[j].mount_pose, sizeof st[n].pose);
                else if (R->radars[j])
                    memcpy(st[n].pose, R->radar_desc[j].mount_pose, sizeof st[n].pose);
                else
                    sensim_lidar_get_mount_pose(R->lidars[j], st[n].pose);
                if (st[n].pose[15] == 0) /* an all-zero mount means identity */
                    memcpy(st[n].pose, ident, sizeof ident);
                n++;
                if (R->specs[j].camera) {
                    static char optical[MAX_SENSORS][80];
                    snprintf(optical[j], sizeof optical[j], "%.63s_optical", R->specs[j].name);
                    memset(&st[n], 0, sizeof st[n]);
                    st[n].stamp_ns = bt;
                    st[n].parent_frame = R->specs[j].name;
                    st[n].child_frame = optical[j];
                    memcpy(st[n].pose, OPTICAL, sizeof OPTICAL);
                    n++;
                }
            }
            if (n)
                MC(sensim_mcap_write_transforms(m, t_tfs, bt, st, n));
            static_done = 1;
        }
        if (s == R->nspecs) { /* world step: clock, platform tf and odometry */
            MC(sensim_mcap_write_clock(m, t_clock, bt, bt));
            if (!mo->no_tf || !mo->no_odom) {
                sensim_kinematics kin;
                MC(sensim_kinematics_at(R->tr->keys, R->tr->n, g_motion, bt, &kin));
                if (!mo->no_tf) {
                    sensim_ros_transform x;
                    memset(&x, 0, sizeof x);
                    x.stamp_ns = bt, x.parent_frame = mo->odom_frame, x.child_frame = mo->base_frame;
                    memcpy(x.pose, kin.pose, sizeof x.pose);
                    MC(sensim_mcap_write_transforms(m, t_tf, bt, &x, 1));
                }
                if (!mo->no_odom) {
                    double vb[3];
                    for (int i = 0; i < 3; i++) /* world velocity in the body frame: R^T v */
                        vb[i] = kin.pose[4 * i] * kin.velocity[0] + kin.pose[4 * i + 1] * kin.velocity[1] +
                                kin.pose[4 * i + 2] * kin.velocity[2];
                    MC(sensim_mcap_write_odometry(m, t_odom, bt, bt, mo->odom_frame, mo->base_frame, kin.pose, vb,
                                                  kin.angular_velocity));
                }
            }
            continue;
        }
        const sensor_spec *sp = &R->specs[s];
        if (sp->camera) {
            cam_sensor *c = &R->cams[s];
            sensim_camera_images im = {0};
            const sensim_camera_images *cim = R->cim;
            im.depth = (c->want & SENSIM_CAMERA_DEPTH) ? cim->depth : NULL;
            im.semantic = (c->want & (SENSIM_CAMERA_SEMANTIC | SENSIM_CAMERA_INSTANCE)) ? cim->semantic : NULL;
            im.instance = (c->want & SENSIM_CAMERA_INSTANCE) ? cim->instance : NULL;
            im.normal = (c->want & SENSIM_CAMERA_NORMAL) ? cim->normal : NULL;
            im.rgb = (c->want & SENSIM_CAMERA_RGB) ? cim->rgb : NULL;
            int64_t t = k * c->period_ns, span = c->d.row_readout_ns * (int64_t)(c->d.height - 1);
            sensim_motion mm;
            if ((rc = camera_keys(sp->name, R->tr, k, t, span, &mm)))
                goto end;
            double pose[16];
            if ((rc = actors_move(R->as, t, t + span + 1)))
                goto end;
            sensim_status st = sensim_camera_render(c->cam, R->scene, &mm, t, &im, pose);
            if (st) {
                rc = st == SENSIM_ERR_CANCELLED && g_stop ? 0 : fail(st);
                goto end;
            }
            const uint32_t W = c->d.width, H = c->d.height;
            char frame[80];
            snprintf(frame, sizeof frame, "%s_optical", sp->name);
            if (im.depth)
                MC(sensim_mcap_write_image(m, tp[s][0], t, t, frame, W, H, "32FC1", 4 * W, im.depth));
            if (c->want & SENSIM_CAMERA_SEMANTIC)
                MC(sensim_mcap_write_image(m, tp[s][1], t, t, frame, W, H, "mono8", W, im.semantic));
            if (im.instance) { /* CARLA's layout: R tag, G and B the low 16 bits of the object id */
                for (size_t p = 0; p < (size_t)W * H; p++) {
                    R->scratch[3 * p] = im.semantic[p];
                    R->scratch[3 * p + 1] = (uint8_t)(im.instance[p] & 255);
                    R->scratch[3 * p + 2] = (uint8_t)((im.instance[p] >> 8) & 255);
                }
                MC(sensim_mcap_write_image(m, tp[s][2], t, t, frame, W, H, "rgb8", 3 * W, R->scratch));
            }
            if (im.normal)
                MC(sensim_mcap_write_image(m, tp[s][3], t, t, frame, W, H, "32FC3", 12 * W, im.normal));
            if (im.rgb)
                MC(sensim_mcap_write_image(m, tp[s][4], t, t, frame, W, H, "rgb8", 3 * W, im.rgb));
            sensim_camera_info ci;
            MC(sensim_camera_get_info(c->cam, &ci));
            MC(sensim_mcap_write_camera_info(m, tp[s][5], t, t, frame, &ci));
            R->frames++, R->pg->done[s]++;
            progress(R->pg, 0);
            continue;
        }
        if (R->navs[s]) {
            sensim_nav_sample ns_;
            MC(sensim_nav_sample_at(R->navs[s], R->tr->keys, R->tr->n, (uint64_t)k, &ns_));
            const sensim_nav_desc *d = &R->nav_desc[s];
            if (sp->nav - 1 == SENSIM_NAV_IMU) {
                double rate = d->rate_hz;
                double gv = max3sq(d->gyro_stddev) + d->gyro_noise_density * d->gyro_noise_density * rate;
                double av = max3sq(d->accel_stddev) + d->accel_noise_density * d->accel_noise_density * rate;
                MC(sensim_mcap_write_imu(m, tp[s][0], ns_.t_ns, sp->name, &ns_, -1, gv, av));
            } else if (sp->nav - 1 == SENSIM_NAV_GNSS) {
                const double mpd = 111319.49079327357; /* metres per degree on the equator (WGS 84 a·π/180) */
                double n = d->lat_stddev_deg * mpd, e = d->lon_stddev_deg * mpd * cos(ns_.latitude_deg * 3.14159265358979323846 / 180);
                double hv = n > e ? n * n : e * e;
                MC(sensim_mcap_write_navsatfix(m, tp[s][0], ns_.t_ns, sp->name, &ns_, hv, d->alt_stddev_m * d->alt_stddev_m));
            } else {
                double pose[16];
                const double *q = ns_.orientation;
                /* unit quaternion (w, x, y, z) to a column-major rotation */
                double w = q[0], x = q[1], y = q[2], z = q[3];
                double rm[16] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y), 0,
                                 2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x), 0,
                                 2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y), 0,
                                 ns_.position[0], ns_.position[1], ns_.position[2], 1};
                memcpy(pose, rm, sizeof pose);
                MC(sensim_mcap_write_odometry(m, tp[s][0], ns_.t_ns, ns_.t_ns, mo->odom_frame, sp->name, pose,
                                              ns_.velocity_body, ns_.angular_velocity));
            }
            R->frames++, R->pg->done[s]++;
            progress(R->pg, 0);
            continue;
        }
        if (R->radars[s]) {
            uint64_t n, cap = sensim_radar_rays_per_sample(R->radars[s]);
            sensim_radar_detection *det = (sensim_radar_detection *)(rbuf + cap + 1);
            int64_t t = k * R->periods[s];
            if ((rc = actors_move(R->as, t, t + 1)))
                goto end;
            MC(sensim_radar_sample_at(R->radars[s], R->scene, R->tr->keys, R->tr->n, (uint64_t)k, det, cap, &n, NULL));
            for (uint64_t i = 0; i < n; i++) {
                double ca = cos(det[i].altitude_rad), r = det[i].depth_m;
                rbuf[i].x = (float)(r * ca * cos(det[i].azimuth_rad));
                rbuf[i].y = (float)(r * ca * sin(det[i].azimuth_rad));
                rbuf[i].z = (float)(r * sin(det[i].altitude_rad));
                rbuf[i].d = det[i];
            }
            MC(sensim_mcap_write_cloud(m, tp[s][0], t, t, sp->name, radar_point_fields, 13, sizeof *rbuf, rbuf, n));
            R->frames++, R->pg->done[s]++;
            progress(R->pg, 0);
            continue;
        }
        /* lidar */
        sensim_lidar_info li;
        sensim_lidar_get_info(R->lidars[s], &li);
        sensim_frame_header h;
        uint64_t n;
        rc = scan_lidar_frame(R->lidars[s], R->scene, R->as, R->tr, k, li.frame_period_ns, R->ring, R->pts, R->cap,
                              &h, &n);
        if (rc) {
            if (rc == -1)
                rc = 0;
            goto end;
        }
        sensim_frame_view v = {&h, {R->pts, NULL}, {n, 0}};
        MC(sensim_mcap_write_points(m, tp[s][0], h.t_end_ns, sp->name, &v));
        R->frames++, R->pg->done[s]++;
        R->points += n, R->pg->points += n;
        R->pg->empty[s] += n == 0;
        progress(R->pg, 0);
    }
end:
    free(rbuf);
    if (m) {
        sensim_mcap_stats ms;
        sensim_mcap_get_stats(m, &ms);
        R->messages = ms.messages;
        uint32_t files = 0;
        sensim_status st = sensim_mcap_close(m, &files);
        if (st && !rc)
            rc = mcap_fail();
        if (!R->quiet && !rc)
            fprintf(stderr, "sensim batch: %llu messages in %u file%s %s_0.mcap%s\n", (unsigned long long)ms.messages,
                    files, files == 1 ? "" : "s", prefix, files > 1 ? " ..." : "");
    }
    return rc;
}

int cmd_batch(int argc, char **argv)
{
    const char *scene_arg = NULL, *lidar_arg = NULL, *rig_arg = NULL, *traj_arg = NULL, *out = NULL, *tags_arg = NULL,
               *actors_arg = NULL, *times_arg = NULL;
    const char *global_sets[MAX_SETS];
    uint32_t nglobal = 0, threads = 0, shard_k = 0, shard_n = 1;
    int64_t fa = 0, fb = INT64_MAX;
    int32_t format = SENSIM_FORMAT_PLY, frame = SENSIM_FRAME_NATIVE;
    int resume = 0, quiet = 0, overwrite = 0, mcap_flags = 0;
    uint32_t images = 0;
    mcap_opts mo;
    memset(&mo, 0, sizeof mo);
    sensim_mcap_options_init(&mo.o);
    g_motion = SENSIM_INTERP_CAUSAL;
    snprintf(mo.odom_frame, sizeof mo.odom_frame, "odom");
    snprintf(mo.base_frame, sizeof mo.base_frame, "base_link");
    int64_t step_ns = 0; /* world step of the per-step JSON (--rig); default: the shortest sensor period */
    int step_given = 0;
    char seedbuf[64];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--images")) {
            if (parse_images_arg(argc, argv, &i, &images))
                return EXIT_USAGE;
            continue;
        }
        if (!strcmp(a, "--resume")) {
            resume = 1;
            continue;
        }
        if (!strcmp(a, "--overwrite")) {
            overwrite = 1;
            continue;
        }
        if (!strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        }
        if (!strcmp(a, "--no-tf") || !strcmp(a, "--no-odom")) {
            *(a[5] == 't' ? &mo.no_tf : &mo.no_odom) = 1;
            mcap_flags = 1;
            continue;
        }
        if (!v)
            return usage_option(a, 1);
        i++;
        if (!strcmp(a, "--tags"))
            tags_arg = v;
        else if (!strcmp(a, "--actors"))
            actors_arg = v;
        else if (!strcmp(a, "--scene"))
            scene_arg = v;
        else if (!strcmp(a, "--lidar"))
            lidar_arg = v;
        else if (!strcmp(a, "--rig"))
            rig_arg = v;
        else if (!strcmp(a, "--trajectory"))
            traj_arg = v;
        else if (!strcmp(a, "--trajectory-times"))
            times_arg = v;
        else if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--mcap-compression")) {
            mcap_flags = 1;
            if (!strcmp(v, "none"))
                mo.o.compression = SENSIM_MCAP_NONE;
            else if (!strcmp(v, "zstd"))
                mo.o.compression = SENSIM_MCAP_ZSTD;
            else if (!strcmp(v, "lz4"))
                mo.o.compression = SENSIM_MCAP_LZ4;
            else
                return usage("--mcap-compression must be none, zstd or lz4");
        } else if (!strcmp(a, "--mcap-split-mb") || !strcmp(a, "--mcap-split-s")) {
            double x;
            mcap_flags = 1;
            if (parse_numbers(v, &x, 1, 1) != 1 || !(x >= 0.001 && x <= 1e6))
                return usage("--mcap-split-mb / --mcap-split-s need a number in [0.001, 1e6]");
            if (a[12] == 'm')
                mo.o.split_bytes = (uint64_t)(x * 1048576.0) < 65536 ? 65536 : (uint64_t)(x * 1048576.0);
            else
                mo.o.split_ns = (int64_t)(x * 1e9);
        } else if (!strcmp(a, "--topic-prefix") || !strcmp(a, "--odom-frame") || !strcmp(a, "--base-frame")) {
            mcap_flags = 1;
            char *dst = a[2] == 't' ? mo.prefix : a[2] == 'o' ? mo.odom_frame : mo.base_frame;
            size_t cap = a[2] == 't' ? sizeof mo.prefix : sizeof mo.odom_frame;
            if (strlen(v) >= cap || (a[2] == 't' && v[0] != '/') || (a[2] != 't' && !v[0]))
                return usage("--topic-prefix needs '/' and a ROS name (under 128 bytes); --odom-frame and "
                             "--base-frame a frame id under 64 bytes");
            snprintf(dst, cap, "%s", v);
        } else if (!strcmp(a, "--threads")) {
            if (!parse_u32(v, &threads) || threads > 1024)
                return usage("--threads needs an integer in 0..1024");
        } else if (!strcmp(a, "--step-ns")) {
            char *end;
            errno = 0;
            long long x = strtoll(v, &end, 10);
            if (end == v || *end || errno || x < 1000 || x > 3600000000000LL)
                return usage("--step-ns needs an integer number of nanoseconds in 1000..3.6e12");
            step_ns = x, step_given = 1;
        } else if (!strcmp(a, "--seed")) {
            uint32_t sd;
            if (!parse_u32(v, &sd) || nglobal == MAX_SETS)
                return usage("--seed needs a non-negative integer");
            snprintf(seedbuf, sizeof seedbuf, "seed=%u", sd);
            global_sets[nglobal++] = seedbuf;
        } else if (!strcmp(a, "--set")) {
            if (!strchr(v, '=') || nglobal == MAX_SETS)
                return usage("--set needs KEY=VALUE");
            global_sets[nglobal++] = v;
        } else if (!strcmp(a, "--shard")) {
            if (!parse_shard(v, &shard_k, &shard_n))
                return usage("--shard needs K/N with 0 <= K < N <= 100000");
        } else if (!strcmp(a, "--frames")) {
            char *end;
            errno = 0;
            long long x = strtoll(v, &end, 10), y;
            if (end == v || *end != ':' || x < 0 || errno || !(v[0] >= '0' && v[0] <= '9'))
                return usage("--frames needs A:B (frame indices, B exclusive, B may be empty)");
            const char *yb = end + 1;
            y = *yb ? strtoll(yb, &end, 10) : INT64_MAX;
            if (*yb && (end == yb || *end || errno || !(*yb >= '0' && *yb <= '9')))
                return usage("--frames needs A:B (two non-negative integers, nothing else)");
            if (y < x)
                return usage("--frames needs A <= B");
            fa = x, fb = y;
        } else if (!strcmp(a, "--format")) {
            static const char *const names[] = {"ply", "ply-ascii", "pcd", "pcd-ascii", "kitti", "carla", "las", "mcap"};
            format = -1;
            for (int k = 0; k < 8; k++)
                if (!strcmp(v, names[k]))
                    format = k;
            if (format < 0)
                return usage("--format must be ply, ply-ascii, pcd, pcd-ascii, kitti, carla, las or mcap");
        } else if (!strcmp(a, "--frame")) {
            if (!strcmp(v, "native") || !strcmp(v, "iso8855"))
                frame = SENSIM_FRAME_NATIVE;
            else if (!strcmp(v, "carla"))
                frame = SENSIM_FRAME_CARLA;
            else if (!strcmp(v, "ue"))
                frame = SENSIM_FRAME_UE;
            else
                return usage("--frame must be native, iso8855, carla or ue");
        } else if (!strcmp(a, "--motion")) {
            if (!strcmp(v, "causal"))
                g_motion = SENSIM_INTERP_CAUSAL;
            else if (!strcmp(v, "linear"))
                g_motion = SENSIM_INTERP_LINEAR;
            else
                return usage("--motion must be causal (the rig's model) or linear (straight between keys)");
        } else {
            char m[256];
            snprintf(m, sizeof m, "unknown option '%s'", a);
            return usage(m);
        }
    }
    if (!scene_arg || !traj_arg || !out || (!lidar_arg == !rig_arg))
        return usage("batch needs --scene, --trajectory, --out and one of --lidar or --rig");
    if (format != FORMAT_MCAP && mcap_flags)
        return usage("--mcap-*, --topic-prefix, --odom-frame, --base-frame, --no-tf and --no-odom go with --format mcap");
    if (format == FORMAT_MCAP) {
        /* one time-ordered bag per run: written whole, in ROS's frame (REP-103 = native) */
        if (frame != SENSIM_FRAME_NATIVE)
            return usage("--format mcap writes ROS's REP-103 frame (native): --frame carla/ue does not apply");
        if (resume)
            return usage("--format mcap writes one bag per run: --resume applies to per-frame formats (rerun with "
                         "--overwrite)");
        if (images)
            return usage("--images writes per-frame PNGs: not with --format mcap");
        if (shard_n > 1)
            return usage("--format mcap writes one time-ordered bag: no --shard (split a long run with --frames "
                         "A:B into folders)");
    }

    sensor_spec specs[MAX_SENSORS];
    uint32_t nspecs = 0;
    int rc = 0;
    if (rig_arg) {
        if ((rc = load_rig_file(rig_arg, specs, &nspecs)) || (rc = rig_mounts_from_frame(specs, nspecs, frame, rig_arg))) {
            free_specs(specs, nspecs);
            return rc;
        }
    } else {
        memset(&specs[0], 0, sizeof specs[0]);
        snprintf(specs[0].name, sizeof specs[0].name, "lidar");
        snprintf(specs[0].preset, sizeof specs[0].preset, "%s", lidar_arg);
        nspecs = 1;
    }
    for (uint32_t s = 0; s < nspecs && rig_arg; s++)
        if (!strcmp(specs[s].name, "steps")) {
            fprintf(stderr, "sensim: error: %s: a sensor may not be called 'steps' (the per-step JSON folder)\n",
                    rig_arg);
            free_specs(specs, nspecs);
            return EXIT_STATUS_BASE + SENSIM_ERR_DUPLICATE;
        }
    static actor_spec actors[MAX_ACTORS];
    uint32_t nactors = 0;
    if (actors_arg && (rc = load_actors_file(actors_arg, actors, &nactors))) {
        free_specs(specs, nspecs);
        return rc;
    }
    traj tr = {0};
    if ((rc = load_trajectory_file_times(traj_arg, frame, times_arg, &tr))) {
        free(tr.keys);
        free_specs(specs, nspecs);
        return rc;
    }

    if ((rc = open_context(threads)))
        return rc;
    sensim_status st;
    sensim_scene *scene = NULL;
    sensim_lidar *lidars[MAX_SENSORS] = {0};
    cam_sensor cams[MAX_SENSORS];
    memset(cams, 0, sizeof cams);
    sensim_nav *navs[MAX_SENSORS] = {0};
    sensim_nav_desc nav_desc[MAX_SENSORS];
    sensim_radar *radars[MAX_SENSORS] = {0};
    sensim_radar_desc radar_desc[MAX_SENSORS];
    void *mem = NULL, *cam_mem = NULL;
    sensim_point *bufs[2] = {0};
    writer w;
    memset(&w, 0, sizeof w);
    int writer_started = 0;
    actor_set aset = {NULL, actors, nactors};
    if ((st = sensim_scene_create(g_ctx, &scene)) || (st = load_scene(scene_arg, frame, tags_arg, scene))) {
        rc = fail(st);
        goto done;
    }
    aset.scene = scene;
    if ((rc = actors_place(&aset, frame)))
        goto done;
    if ((st = sensim_scene_commit(scene))) {
        rc = fail(st);
        goto done;
    }
    uint64_t max_shots = 0;
    size_t max_pixels = 0;
    for (uint32_t s = 0; s < nspecs; s++) {
        if (specs[s].camera) {
            if ((rc = make_camera(&specs[s], rig_arg, &cams[s])))
                goto done;
            size_t px = (size_t)cams[s].d.width * cams[s].d.height;
            max_pixels = px > max_pixels ? px : max_pixels;
            continue;
        }
        if (specs[s].nav) {
            if ((rc = make_nav(&specs[s], rig_arg, &nav_desc[s], &navs[s])))
                goto done;
            continue;
        }
        if (specs[s].radar) {
            if ((rc = make_radar(&specs[s], rig_arg, &radar_desc[s], &radars[s])))
                goto done;
            continue;
        }
        const char *sets[2 * MAX_SETS];
        uint32_t n = 0;
        for (uint32_t k = 0; k < specs[s].nsets; k++)
            sets[n++] = specs[s].sets[k];
        for (uint32_t k = 0; k < nglobal; k++)
            sets[n++] = global_sets[k];
        if ((st = sensim_lidar_create_from_preset(g_ctx, specs[s].preset, sets, n, &lidars[s]))) {
            rc = fail(st);
            goto done;
        }
        sensim_lidar_info li;
        sensim_lidar_get_info(lidars[s], &li);
        max_shots = li.shots_per_frame > max_shots ? li.shots_per_frame : max_shots;
    }
    int64_t periods[MAX_SENSORS];
    for (uint32_t s = 0; s < nspecs; s++) {
        sensim_lidar_info li;
        if (lidars[s])
            sensim_lidar_get_info(lidars[s], &li);
        periods[s] = specs[s].camera ? cams[s].period_ns
                     : navs[s]       ? sensim_nav_period_ns(navs[s])
                     : radars[s]     ? sensim_radar_period_ns(radars[s])
                                     : li.frame_period_ns;
        if (!step_given && (s == 0 || periods[s] < step_ns))
            step_ns = periods[s];
    }
    /* output tree and meta.json (identical for every shard: no shard, no clock) */
    if (!ensure_dir(out)) {
        rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
        goto done;
    }
    {
        char mp[4200], mt[4300];
        snprintf(mp, sizeof mp, "%.4000s/meta.json", out);
        char *meta = NULL;
        size_t meta_len = 0;
        FILE *f = open_memstream(&meta, &meta_len);
        if (!f) {
            fprintf(stderr, "sensim: error: out of memory\n");
            rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
            goto done;
        }
        int ok;
        uint64_t h = strcmp(scene_arg, "street") ? fnv1a_file(scene_arg, &ok) : 0x57EE7ULL;
        fprintf(f, "{\n  \"sensim_version\": \"%s\",\n  \"scene\": ", sensim_version_string());
        json_str(f, scene_arg);
        fprintf(f, ",\n  \"scene_fnv1a64\": \"%016llx\",\n  \"trajectory\": ", (unsigned long long)h);
        json_str(f, traj_arg);
        fprintf(f, ",\n  \"trajectory_rows\": %zu,\n  \"trajectory_fnv1a64\": \"%016llx\",\n", tr.n,
                (unsigned long long)fnv1a_file(traj_arg, &ok));
        if (actors_arg) { /* the actor file and each actor's trajectory identify the run too */
            uint64_t ah = fnv1a_file(actors_arg, &ok);
            for (uint32_t i = 0; i < nactors; i++)
                ah = ah * 1099511628211ULL ^ fnv1a_file(actors[i].trajectory, &ok);
            fprintf(f, "  \"actors\": %u,\n  \"actors_fnv1a64\": \"%016llx\",\n", nactors, (unsigned long long)ah);
        }
        fprintf(f, "  \"format\": \"%s\",\n  \"frame\": \"%s\",\n  \"units\": \"%s\",\n  \"motion\": \"%s\",\n"
                   "  \"command\": [",
                format_name(format), frame_name(frame), frame == SENSIM_FRAME_UE ? "cm" : "m",
                g_motion == SENSIM_INTERP_CAUSAL ? "causal" : "linear");
        int first = 1;
        for (int i = 0; i < argc; i++) {
            if (!strcmp(argv[i], "--shard") || !strcmp(argv[i], "--threads") || !strcmp(argv[i], "--frames") ||
                !strcmp(argv[i], "--out")) {
                i++;
                continue;
            }
            if (!strcmp(argv[i], "--resume") || !strcmp(argv[i], "--quiet") || !strcmp(argv[i], "--overwrite"))
                continue;
            fprintf(f, "%s", first ? "" : ", ");
            json_str(f, argv[i]);
            first = 0;
        }
        fprintf(f, "],\n  \"sensors\": [");
        for (uint32_t s = 0; s < nspecs; s++) {
            if (specs[s].radar) {
                const sensim_radar_desc *rd = &radar_desc[s];
                fprintf(f, "%s\n    {\"name\": ", s ? "," : "");
                json_str(f, specs[s].name);
                fprintf(f, ", \"type\": \"radar\", \"model\": \"%s\", \"rate_hz\": %.17g, \"frame_period_ns\": %lld, "
                           "\"rays_per_sample\": %llu, \"horizontal_fov\": %.17g, \"vertical_fov\": %.17g, "
                           "\"range\": %.17g, \"file\": \"radar.csv\", \"azimuth\": \"positive left (CARLA: negate)\", "
                           "\"mount_pose\": ",
                        rd->model == SENSIM_RADAR_PHYSICAL ? "physical" : "carla", rd->rate_hz, (long long)periods[s],
                        (unsigned long long)sensim_radar_rays_per_sample(radars[s]), rd->hfov_deg, rd->vfov_deg,
                        rd->range_m);
                json_numbers(f, rd->mount_pose, 16);
                json_overrides(f, &specs[s], NULL, 0);
                continue;
            }
            if (specs[s].nav) {
                const sensim_nav_desc *nd = &nav_desc[s];
                fprintf(f, "%s\n    {\"name\": ", s ? "," : "");
                json_str(f, specs[s].name);
                fprintf(f, ", \"type\": \"%s\", \"rate_hz\": %.17g, \"frame_period_ns\": %lld, \"interp\": \"%s\", "
                           "\"frame_of_reference\": \"native\", \"file\": \"%s.csv\", \"mount_pose\": ",
                        nav_names[nd->kind], nd->rate_hz, (long long)periods[s],
                        nd->interp == SENSIM_INTERP_SPLINE ? "spline" : "linear", nav_names[nd->kind]);
                json_numbers(f, nd->mount_pose, 16);
                if (nd->kind == SENSIM_NAV_GNSS)
                    fprintf(f, ", \"model\": \"%s\", \"reference\": [%.17g, %.17g, %.17g]",
                            nd->gnss_model == SENSIM_GNSS_CARLA ? "carla" : "exact", nd->ref_latitude_deg,
                            nd->ref_longitude_deg, nd->ref_altitude_m);
                json_overrides(f, &specs[s], NULL, 0);
                continue;
            }
            if (specs[s].camera) {
                const cam_sensor *c = &cams[s];
                fprintf(f, "%s\n    {\"name\": ", s ? "," : "");
                json_str(f, specs[s].name);
                fprintf(f, ", \"type\": \"camera\", \"preset\": ");
                json_str(f, specs[s].preset);
                fprintf(f, ", \"model\": ");
                json_str(f, c->d.name);
                fprintf(f, ", \"rate_hz\": %.17g, \"frame_period_ns\": %lld, \"row_readout_ns\": %lld, \"outputs\": [",
                        c->rate_hz, (long long)c->period_ns, (long long)c->d.row_readout_ns);
                static const char *const onames[] = {"depth", "semantic", "instance", "normal", "rgb"};
                for (int k = 0, n = 0; k < 5; k++)
                    if (c->want & (1u << k))
                        fprintf(f, "%s\"%s\"", n++ ? ", " : "", onames[k]);
                fprintf(f, "], \"mount_pose\": ");
                json_numbers(f, c->mount, 16);
                fprintf(f, ", \"camera_info\": ");
                json_camera_info(f, c->cam);
                json_overrides(f, &specs[s], NULL, 0);
                continue;
            }
            sensim_lidar_info li;
            sensim_lidar_get_info(lidars[s], &li);
            fprintf(f, "%s\n    {\"name\": ", s ? "," : "");
            json_str(f, specs[s].name);
            fprintf(f, ", \"type\": \"lidar\", \"preset\": ");
            json_str(f, specs[s].preset);
            fprintf(f, ", \"model\": ");
            json_str(f, li.name);
            static const char *const kinds[] = {"mechanical", "table", "risley", "mems", "callback"};
            fprintf(f, ", \"pattern\": \"%s\", \"channels\": %u, \"shots_per_s\": %.17g, \"frame_period_ns\": %lld, "
                       "\"min_range_m\": %.9g, \"max_range_m\": %.9g, \"lidar_id\": %u",
                    li.pattern >= 0 && li.pattern <= 4 ? kinds[li.pattern] : "unknown", li.channel_count, li.shots_per_s, (long long)li.frame_period_ns,
                    (double)li.min_range_m, (double)li.max_range_m, li.lidar_id);
            json_overrides(f, &specs[s], global_sets, nglobal); /* --set and --seed apply to lidars */
        }
        fprintf(f, "\n  ]");
        if (rig_arg)
            fprintf(f, ",\n  \"world_step_ns\": %lld", (long long)step_ns);
        fprintf(f, "\n}\n");
        if (fclose(f) != 0) {
            free(meta);
            fprintf(stderr, "sensim: error: out of memory\n");
            rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
            goto done;
        }
        /* meta.json identifies the run (inputs by hash, sensors, overrides,
         * format; not shard, threads, frames): a folder holds one run. */
        rc = check_output(out, mp, meta, meta_len, resume, overwrite, shard_n);
        if (rc == 0) {
            snprintf(mt, sizeof mt, "%s.tmp.XXXXXX", mp);
            int fd = mkstemp(mt);
            FILE *mf = fd >= 0 ? fdopen(fd, "w") : NULL;
            if (fd >= 0)
                fchmod(fd, 0644);
            int wok = mf && fwrite(meta, 1, meta_len, mf) == meta_len;
            if (mf && fclose(mf) != 0)
                wok = 0;
            if (!wok || rename(mt, mp) != 0) {
                fprintf(stderr, "sensim: error: %s: cannot write: %s\n", mp, strerror(errno));
                if (fd >= 0)
                    remove(mt);
                rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
            }
        }
        free(meta);
        if (rc)
            goto done;
    }
    for (uint32_t s = 0; s <= nspecs && rig_arg && format != FORMAT_MCAP; s++) {
        char d[4200];
        snprintf(d, sizeof d, "%.4000s/%.63s", out, s < nspecs ? specs[s].name : "steps");
        if (!ensure_dir(d)) {
            rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
            goto done;
        }
    }

    /* the frames each sensor renders: those inside the trajectory, selected, sharded */
    uint64_t cap = 2 * (max_shots ? max_shots : 1), total = 0; /* a rig without lidars still gets a small ring */
    int64_t *first_frame = calloc(nspecs, sizeof *first_frame), *nframes = calloc(nspecs, sizeof *nframes);
    size_t ring_size;
    if (!first_frame || !nframes || sensim_ring_required_size(cap, 2, &ring_size) || !(mem = malloc(ring_size)) ||
        !(bufs[0] = malloc(cap * sizeof(sensim_point))) || !(bufs[1] = malloc(cap * sizeof(sensim_point)))) {
        fprintf(stderr, "sensim: error: out of memory\n");
        rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        free(first_frame);
        free(nframes);
        goto done;
    }
    prog pg;
    memset(&pg, 0, sizeof pg);
    pg.n = nspecs;
    for (uint32_t s = 0; s < nspecs; s++) {
        int64_t P = periods[s], t0 = tr.keys[0].t_ns, t1 = tr.keys[tr.n - 1].t_ns;
        int64_t r0 = -floordiv(-t0, P), r1 = floordiv(t1, P); /* frames [r·P, (r+1)·P) inside [t0, t1] */
        first_frame[s] = r0;
        nframes[s] = r1 > r0 ? r1 - r0 : 0;
        pg.name[s] = specs[s].name;
        for (int64_t i = fa; i < nframes[s] && i < fb; i++) {
            if (navs[s] || radars[s]) /* whole streams: shard 0 writes them */
                pg.total[s] += shard_k == 0;
            else
                pg.total[s] += (uint64_t)(i % shard_n) == shard_k;
        }
        if (!navs[s] && !radars[s])
            total += pg.total[s];
    }
    sensim_camera_images cim;
    memset(&cim, 0, sizeof cim);
    uint8_t *cam_scratch = NULL;
    if (max_pixels) { /* one capture's images, as large as the largest camera needs */
        size_t px = max_pixels, off = 0, sz[5] = {4 * px, px, 4 * px, 12 * px, 3 * px};
        cam_mem = malloc(sz[0] + sz[1] + sz[2] + sz[3] + sz[4] + 3 * px + 64);
        if (!cam_mem) {
            fprintf(stderr, "sensim: error: out of memory for camera images\n");
            rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
            free(first_frame);
            free(nframes);
            goto done;
        }
        char *b = cam_mem;
        cim.depth = (float *)(b + off), off += sz[0];
        cim.instance = (uint32_t *)(b + off), off += sz[2];
        cim.normal = (float *)(b + off), off += sz[3];
        cim.semantic = (uint8_t *)(b + off), off += sz[1];
        cim.rgb = (uint8_t *)(b + off), off += sz[4];
        cam_scratch = (uint8_t *)(b + off);
    }
    w.format = format;
    w.images = images;
    w.frame = frame;
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    pthread_t wt;
    if (pthread_create(&wt, NULL, writer_main, &w) != 0) {
        fprintf(stderr, "sensim: error: cannot start the writer thread\n");
        rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        free(first_frame);
        free(nframes);
        goto done;
    }
    writer_started = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    int tty = isatty(2);
    double t_start = now_s(), scan_s = 0;
    pg.tty = tty, pg.quiet = quiet, pg.t0 = t_start;
    uint64_t done_frames = 0, skipped = 0, points = 0;
    uint64_t captures = 0;
    if (format == FORMAT_MCAP) {
        sensim_ring *ring;
        if ((st = sensim_ring_init(mem, ring_size, cap, 2, SENSIM_OVERFLOW_FAIL, &ring))) {
            rc = fail(st);
        } else {
            mcap_run R = {out, &mo, &tr, &aset, scene, specs, nspecs, lidars, cams, navs, nav_desc, radars,
                          radar_desc, periods, first_frame, nframes, fa, fb, step_ns, ring, bufs[0], cap, &cim,
                          cam_scratch, quiet, 0, 0, 0, &pg};
            double a0 = now_s();
            rc = run_mcap(&R);
            scan_s += now_s() - a0;
            done_frames = R.frames;
            points = R.points;
        }
    }
    for (uint32_t s = 0; s < nspecs && !rc && !g_stop && format != FORMAT_MCAP; s++) {
        if (radars[s]) { /* a whole stream: shard 0 writes it */
            char path[4200];
            snprintf(path, sizeof path, "%.4000s/%.63s/radar.csv", out, specs[s].name);
            int64_t first = first_frame[s] + fa, count = (fb < nframes[s] ? fb : nframes[s]) - fa;
            if (shard_k != 0 || count <= 0 || (resume && file_exists(path))) {
                pg.done[s] += shard_k == 0 && count > 0 ? (uint64_t)count : 0; /* resumed */
                continue;
            }
            if ((rc = write_radar_csv(out, specs[s].name, radars[s], &aset, &tr, first, count)))
                break;
            if (!quiet)
                fprintf(stderr, "sensim batch: %s: %lld samples -> %s\n", specs[s].name, (long long)count, path);
            pg.done[s] += (uint64_t)count;
            progress(&pg, 0);
            continue;
        }
        if (navs[s]) { /* a whole stream, cheap: shard 0 writes it */
            char path[4200];
            snprintf(path, sizeof path, "%.4000s/%.63s/%s.csv", out, specs[s].name, nav_names[specs[s].nav - 1]);
            int64_t first = first_frame[s] + fa, count = (fb < nframes[s] ? fb : nframes[s]) - fa;
            if (shard_k != 0 || count <= 0 || (resume && file_exists(path))) {
                pg.done[s] += shard_k == 0 && count > 0 ? (uint64_t)count : 0; /* resumed */
                continue;
            }
            if ((rc = write_nav_csv(out, specs[s].name, navs[s], specs[s].nav - 1, &tr, first, count)))
                break;
            if (!quiet)
                fprintf(stderr, "sensim batch: %s: %lld samples -> %s\n", specs[s].name, (long long)count, path);
            pg.done[s] += (uint64_t)count;
            progress(&pg, 0);
            continue;
        }
        if (specs[s].camera) {
            cam_sensor *c = &cams[s];
            /* the images this camera writes (instance images carry the tag: semantic is traced with them) */
            sensim_camera_images im = {0};
            im.depth = (c->want & SENSIM_CAMERA_DEPTH) ? cim.depth : NULL;
            im.semantic = (c->want & (SENSIM_CAMERA_SEMANTIC | SENSIM_CAMERA_INSTANCE)) ? cim.semantic : NULL;
            im.instance = (c->want & SENSIM_CAMERA_INSTANCE) ? cim.instance : NULL;
            im.normal = (c->want & SENSIM_CAMERA_NORMAL) ? cim.normal : NULL;
            im.rgb = (c->want & SENSIM_CAMERA_RGB) ? cim.rgb : NULL;
            for (int64_t i = fa; i < nframes[s] && i < fb && !rc && !g_stop; i++) {
                if ((uint64_t)(i % shard_n) != shard_k)
                    continue;
                int64_t k = first_frame[s] + i;
                char marker[4200];
                snprintf(marker, sizeof marker, "%.4000s/%.63s/%06lld.json", out, specs[s].name, (long long)k);
                if (resume && file_exists(marker)) {
                    skipped++;
                    done_frames++;
                    pg.done[s]++;
                    continue;
                }
                double a0 = now_s();
                rc = camera_capture(out, specs[s].name, c, &aset, &tr, k, frame, &im, cam_scratch);
                scan_s += now_s() - a0;
                if (rc)
                    break;
                captures++;
                done_frames++;
                pg.done[s]++;
                progress(&pg, 0);
            }
            continue;
        }
        sensim_ring *ring;
        if ((st = sensim_ring_init(mem, ring_size, cap, 2, SENSIM_OVERFLOW_FAIL, &ring))) {
            rc = fail(st);
            break;
        }
        sensim_lidar_info li;
        sensim_lidar_get_info(lidars[s], &li);
        for (int64_t i = fa; i < nframes[s] && i < fb && !rc; i++) {
            if ((uint64_t)(i % shard_n) != shard_k)
                continue;
            if (g_stop)
                break;
            int64_t r = first_frame[s] + i;
            int slot;
            job *j = writer_slot(&w, &slot);
            snprintf(j->base, sizeof j->base, "%.4000s%s%.63s/frame_%06lld", out, rig_arg ? "/" : "",
                     rig_arg ? specs[s].name : "", (long long)r);
            char marker[4200];
            snprintf(marker, sizeof marker, "%.4090s.json", j->base);
            if (resume && file_exists(marker)) {
                skipped++;
                done_frames++;
                pg.done[s]++;
                continue;
            }
            double a0 = now_s();
            uint64_t n;
            if ((rc = scan_lidar_frame(lidars[s], scene, &aset, &tr, r, li.frame_period_ns, ring, bufs[slot], cap,
                                       &j->h, &n)))
                break;
            scan_s += now_s() - a0;
            j->pts = bufs[slot];
            j->n = n;
            j->sensor = specs[s].name;
            j->lidar = lidars[s];
            writer_submit(&w);
            points += n;
            done_frames++;
            pg.done[s]++;
            pg.points = points;
            pg.empty[s] += n == 0;
            progress(&pg, 0);
            if (w.error)
                rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
        }
    }
    if (rig_arg && !rc && !g_stop && format != FORMAT_MCAP) {
        double mounts[MAX_SENSORS][16];
        int32_t interp[MAX_SENSORS];
        for (uint32_t s = 0; s < nspecs; s++) {
            interp[s] = g_motion; /* one motion model for every sensor */
            if (specs[s].camera)
                memcpy(mounts[s], cams[s].mount, sizeof mounts[s]);
            else if (navs[s])
                memcpy(mounts[s], nav_desc[s].mount_pose, sizeof mounts[s]);
            else if (radars[s])
                memcpy(mounts[s], radar_desc[s].mount_pose, sizeof mounts[s]);
            else
                sensim_lidar_get_mount_pose(lidars[s], mounts[s]);
        }
        step_plan sp = {out, &tr, specs, nspecs, periods, first_frame, nframes, (const double(*)[16])mounts,
                        interp, step_ns, frame};
        int64_t t0 = tr.keys[0].t_ns, t1 = tr.keys[tr.n - 1].t_ns;
        int64_t s0 = -floordiv(-t0, step_ns), s1 = floordiv(t1, step_ns);
        for (int64_t i = fa; s0 + i < s1 && i < fb && !rc && !g_stop; i++) {
            char p[4200];
            snprintf(p, sizeof p, "%.4000s/steps/%06lld.json", out, (long long)(s0 + i));
            if ((uint64_t)(i % shard_n) == shard_k && !(resume && file_exists(p)))
                rc = write_step(&sp, s0 + i);
        }
    }
    writer_drain(&w);
    if (rc == -1)
        rc = 0; /* cancelled by Ctrl-C: reported as an interruption below */
    if (format != FORMAT_MCAP)
        done_frames = w.written + captures + skipped; /* what is on disk, not what was handed to the writer */
    if (w.error && !rc)
        rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
    progress(&pg, 1);
    for (uint32_t s = 0; s < nspecs; s++) /* even with --quiet: a silent empty run is a wasted run */
        if (pg.empty[s])
            fprintf(stderr, "sensim batch: warning: lidar '%s': %llu of %llu frames have %s\n", specs[s].name,
                    (unsigned long long)pg.empty[s], (unsigned long long)pg.done[s], NO_POINTS_HINT);
    double wall = now_s() - t_start;
    if (!quiet)
        fprintf(stderr, "sensim batch: %llu frames (%llu resumed), %llu points in %.2f s; scanning %.0f %% of the "
                        "time, writing %.2f s in the writer thread\n",
                (unsigned long long)done_frames, (unsigned long long)skipped, (unsigned long long)points, wall,
                wall > 0 ? 100.0 * scan_s / wall : 100.0, w.write_s);
    if (g_stop && !rc) {
        fprintf(stderr, "sensim batch: interrupted after %llu frames; every written frame is complete; rerun with "
                        "--resume to continue\n",
                (unsigned long long)done_frames);
        rc = EXIT_INTERRUPTED;
    }
    free(first_frame);
    free(nframes);
done:
    if (writer_started) {
        pthread_mutex_lock(&w.mu);
        w.quit = 1;
        pthread_cond_broadcast(&w.cv);
        pthread_mutex_unlock(&w.mu);
        pthread_join(wt, NULL);
    }
    free(bufs[0]);
    free(bufs[1]);
    free(mem);
    free(cam_mem);
    for (uint32_t s = 0; s < nspecs; s++) {
        sensim_lidar_destroy(lidars[s]);
        sensim_camera_destroy(cams[s].cam);
        sensim_nav_destroy(navs[s]);
        sensim_radar_destroy(radars[s]);
    }
    free_specs(specs, nspecs);
    free(tr.keys);
    for (uint32_t i = 0; i < nactors; i++)
        free(actors[i].tr.keys);
    sensim_scene_destroy(scene);
    sensim_context_destroy(g_ctx);
    return rc;
}
