/* sensim batch: the sensors along the trajectory (cameras, navigation, radar, actors, lidar
 * frames, step JSON), each through the run's one motion model. */
#include "batch.h"

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

void mat4_mul(const double a[16], const double b[16], double out[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            out[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] + a[8 + r] * b[4 * c + 2] +
                             a[12 + r] * b[4 * c + 3];
}

/* The camera of rig section @p sp: its preset (or camera file) and camera
 * keys, plus the batch keys rate_hz (default 10), outputs (default all),
 * mount_xyz_m and mount_rpy_deg (platform frame, metres and degrees). */
int make_camera(const sensor_spec *sp, const char *rig, cam_sensor *c)
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


static int interp_refused(const char *rig, const sensor_spec *sp)
{
    fprintf(stderr, "sensim: error: %s: sensor '%s': interp is the run's, for every sensor (--motion causal|linear), "
                    "not a sensor's\n", rig, sp->name);
    return EXIT_STATUS_BASE + SENSIM_ERR_UNKNOWN_KEY;
}

/* A navigation sensor of the rig file (type = imu | gnss | odometry): its
 * keys go to sensim_nav_desc_set. */
int make_nav(const sensor_spec *sp, const char *rig, sensim_nav_desc *d, sensim_nav **out)
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

int actors_place(actor_set *as, int32_t frame)
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

int actors_move(actor_set *as, int64_t t0, int64_t t1)
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
int make_radar(const sensor_spec *sp, const char *rig, sensim_radar_desc *d, sensim_radar **out)
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

/* Index of the last trajectory key at or before @p t (0 if none). */
size_t key_at(const traj *tr, int64_t t)
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
void sensor_pose_at(const traj *tr, int64_t t, const double mount[16], double out[16])
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



static void json_pose(FILE *f, int32_t frame, const double pose[16])
{
    double o[16];
    sensim_pose_matrix_to_frame(frame, pose, o);
    cli_json_numbers(f, o, 16);
}

int write_step(const step_plan *sp, int64_t s)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%.4000s/steps/%06lld.json", sp->out, (long long)s);
    FILE *f = cli_tmp_create(path, tmp, sizeof tmp);
    if (!f)
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    const int64_t tb = s * sp->step_ns, te = tb + sp->step_ns;
    static const double ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    double P[16];
    sensor_pose_at(sp->tr, tb, ident, P);
    fprintf(f, "{\"step\": %lld, \"t_begin_ns\": %lld, \"t_end_ns\": %lld, \"frame_of_reference\": \"%s\", "
               "\"units\": \"%s\",\n \"platform_pose\": ",
            (long long)s, (long long)tb, (long long)te, sensim_frame_name(sp->frame), sp->frame == SENSIM_FRAME_UE ? "cm" : "m");
    json_pose(f, sp->frame, P);
    fprintf(f, ",\n \"sensors\": [");
    int n = 0;
    for (uint32_t j = 0; j < sp->nspecs; j++) {
        const int64_t Pj = sp->periods[j];
        for (int64_t r = -floordiv(-tb, Pj); r * Pj < te; r++) {
            if (r < sp->first_frame[j] || r >= sp->first_frame[j] + sp->nframes[j])
                continue;
            const sensor_spec *sj = &sp->specs[j];
            sensor_pose_at(sp->tr, r * Pj, sp->mounts[j], P); /* one motion model for every sensor */
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
