/* Preset files: "key = value" lines, '#' comments, comma-separated tables.
 * Keys are documented in scan_patterns/README.md. */
#define _GNU_SOURCE /* dladdr */
#include "internal.h"
#include "motion.h"
#include "parse.h"
#include "pattern.h"
#include "pattern_csv.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define DEG (SENSIM_PI / 180.0)

typedef struct preset {
    char name[32];
    sensim_lidar_desc d;
    int64_t channels;
    double mount_xyz[3], mount_rpy_deg[3];
    float *elev, *azoff;
    int32_t *fireoff;
    uint32_t n_elev, n_azoff, n_fireoff;
    uint32_t n_prism[4];       /* entries of wedge, index, rotation, phase */
    char table_file[1024];
    int table_seconds;
    double table_period_s;
    unsigned long long table_line; /* where table_file was set, for messages */
    int mount_set;                 /* a mount key was given */
    int ideal_beam;                /* beam = ideal: drop divergence, sub-rays, noise, pulse */
    int noise_override;            /* range_noise_stddev_m given as an override: kept under beam = ideal */
    char (*seen)[64];              /* keys given in the file, to refuse a second one */
    uint32_t n_seen;
    double upper_fov, lower_fov;   /* CARLA's upper_fov / lower_fov (degrees), when fov_set */
    int fov_set;                   /* bit 0 upper_fov, bit 1 lower_fov given */
} preset;

/* CARLA's attribute names (sensor.lidar.ray_cast) and the keys they mean. */
static const char *const CARLA_ALIAS[][2] = {
    {"range", "max_range_m"},
    {"points_per_second", "shots_per_s"},
    {"rotation_frequency", "rotation_hz"},
    {"horizontal_fov", "hfov_deg"},
    {"atmosphere_attenuation_rate", "atmos_atten_per_m"},
    {"noise_stddev", "range_noise_stddev_m"},
    {"noise_seed", "seed"},
};

/* Every key a preset takes, for "did you mean" (the scalars' table has the rest). */
static const char *const OTHER_KEYS[] = {
    "name", "description", "source", "type", "table_file", "table_time", "prism_wedge_deg", "prism_index",
    "prism_rotation_hz", "prism_phase_deg", "intensity_model", "dropoff_model", "return_mode", "points_frame",
    "firing", "beam", "spin", "elevation_deg", "azimuth_offset_deg", "firing_offset_ns", "mount_xyz_m",
    "mount_rpy_deg", "upper_fov", "lower_fov", "sensor_tick", "range", "points_per_second", "rotation_frequency",
    "horizontal_fov", "atmosphere_attenuation_rate", "noise_stddev", "noise_seed",
};


/* Where a key/value came from, for messages: "file:line" or "override N". */
typedef struct origin {
    const char *file;
    unsigned long long line;
    int override_index; /* >= 0 for overrides */
} origin;

static sensim_status failo(sensim_status s, const origin *o, const char *fmt, const char *key, const char *what)
{
    char where[512];
    if (o->override_index >= 0)
        snprintf(where, sizeof where, "override %d", o->override_index + 1);
    else
        snprintf(where, sizeof where, "%.400s:%llu", o->file, o->line);
    char msg[512];
    snprintf(msg, sizeof msg, fmt, key, what);
    return sensim__fail(s, "%s: %s", where, msg);
}

static sensim_status parse_list(const char *b, const char *e, const origin *o, const char *key, double **out,
                                uint32_t *out_n)
{
    uint32_t cap = 16, n = 0;
    double *v = malloc(cap * sizeof *v);
    if (!v)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "out of memory");
    const char *p = b;
    for (;;) {
        p = sensim__skip_space(p, e);
        double x;
        if (!sensim__parse_double(&p, e, &x)) {
            free(v);
            return failo(SENSIM_ERR_PARSE, o, "%s: %s", key, "expected a comma-separated list of numbers");
        }
        if (!isfinite(x)) {
            free(v);
            return failo(SENSIM_ERR_NOT_FINITE, o, "%s: %s", key, "list holds NaN or infinity");
        }
        if (n == cap) {
            cap *= 2;
            double *nv = realloc(v, cap * sizeof *nv);
            if (!nv) {
                free(v);
                return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "out of memory");
            }
            v = nv;
        }
        v[n++] = x;
        if (n > SENSIM_MAX_CHANNELS) {
            free(v);
            return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "more than 1024 entries");
        }
        p = sensim__skip_space(p, e);
        if (p >= e)
            break;
        if (*p != ',') {
            free(v);
            return failo(SENSIM_ERR_PARSE, o, "%s: %s", key, "expected ',' between numbers");
        }
        p++;
    }
    *out = v;
    *out_n = n;
    return SENSIM_OK;
}

static sensim_status parse_number(const char *b, const char *e, const origin *o, const char *key, double *out)
{
    const char *p = sensim__skip_space(b, e);
    double x;
    if (!sensim__parse_double(&p, e, &x) || sensim__skip_space(p, e) != e)
        return failo(SENSIM_ERR_PARSE, o, "%s: %s", key, "expected one number");
    if (!isfinite(x))
        return failo(SENSIM_ERR_NOT_FINITE, o, "%s: %s", key, "value is NaN or infinite");
    *out = x;
    return SENSIM_OK;
}

static sensim_status apply_kv(preset *ps, const char *kb, const char *ke, const char *vb, const char *ve,
                              const origin *o)
{
    char key[64];
    size_t kl = (size_t)(ke - kb);
    if (kl >= sizeof key)
        return failo(SENSIM_ERR_UNKNOWN_KEY, o, "key '%.40s...' %s", kb, "is too long to be a key");
    memcpy(key, kb, kl);
    key[kl] = '\0';
    if (memchr(key, '\0', kl))
        return failo(SENSIM_ERR_PARSE, o, "%s%s", "NUL byte in a key", "");
    for (size_t i = 0; i < sizeof CARLA_ALIAS / sizeof CARLA_ALIAS[0]; i++) /* CARLA's name: the same key */
        if (!strcmp(key, CARLA_ALIAS[i][0])) {
            snprintf(key, sizeof key, "%s", CARLA_ALIAS[i][1]);
            break;
        }
    /* A key twice in one file is a mistake to report, not "last wins";
     * overrides are meant to replace file values and are not counted. */
    if (o->override_index < 0) {
        for (uint32_t i = 0; i < ps->n_seen; i++)
            if (!strcmp(ps->seen[i], key))
                return failo(SENSIM_ERR_DUPLICATE, o, "key '%s' %s", key, "given twice in the file");
        if ((ps->n_seen & (ps->n_seen - 1)) == 0) {
            void *n = realloc(ps->seen, (ps->n_seen ? 2 * ps->n_seen : 16) * sizeof *ps->seen);
            if (!n)
                return failo(SENSIM_ERR_OUT_OF_MEMORY, o, "%s%s", "out of memory", "");
            ps->seen = n;
        }
        memcpy(ps->seen[ps->n_seen++], key, sizeof key);
    }
    /* trim value */
    vb = sensim__skip_space(vb, ve);
    while (ve > vb && (ve[-1] == ' ' || ve[-1] == '\t'))
        ve--;
    if (vb == ve)
        return failo(SENSIM_ERR_PARSE, o, "%s: %s", key, "empty value");

    if (!strcmp(key, "upper_fov") || !strcmp(key, "lower_fov")) { /* CARLA: an evenly spaced table */
        double x;
        sensim_status st = parse_number(vb, ve, o, key, &x);
        if (st != SENSIM_OK)
            return st;
        if (!(x > -90 && x < 90))
            return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "must be in (-90, 90) degrees");
        *(key[0] == 'u' ? &ps->upper_fov : &ps->lower_fov) = x;
        ps->fov_set |= key[0] == 'u' ? 1 : 2;
        return SENSIM_OK;
    }
    if (!strcmp(key, "sensor_tick")) { /* CARLA: how often the sensor runs; a lidar frame here is a turn */
        double x;
        sensim_status st = parse_number(vb, ve, o, key, &x);
        if (st != SENSIM_OK)
            return st;
        if (x != 0)
            return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key,
                         "only 0 (every tick): a lidar frame is one turn (rotation_frequency); the rig or "
                         "sensim.carla slices turns into ticks");
        return SENSIM_OK;
    }
    if (!strcmp(key, "name")) {
        size_t n = (size_t)(ve - vb);
        if (n >= sizeof ps->name)
            return failo(SENSIM_ERR_TOO_LARGE, o, "%s: %s", key, "longer than 31 bytes");
        if (memchr(vb, '\0', n))
            return failo(SENSIM_ERR_PARSE, o, "%s: %s", key, "NUL byte in the value");
        memcpy(ps->name, vb, n);
        ps->name[n] = '\0';
        return SENSIM_OK;
    }
    if (!strcmp(key, "description") || !strcmp(key, "source"))
        return SENSIM_OK;
    if (!strcmp(key, "type")) {
        static const char *const kinds[] = {"mechanical", "table", "risley", "mems"};
        for (int k = 0; k < 4; k++)
            if (sensim__token_is(vb, ve, kinds[k])) {
                ps->d.pattern = k;
                return SENSIM_OK;
            }
        return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "must be mechanical, table, risley or mems");
    }
    if (!strcmp(key, "table_file")) {
        size_t n = (size_t)(ve - vb);
        if (n >= sizeof ps->table_file)
            return failo(SENSIM_ERR_TOO_LARGE, o, "%s: %s", key, "path too long");
        memcpy(ps->table_file, vb, n);
        ps->table_file[n] = '\0';
        ps->table_line = o->line;
        return SENSIM_OK;
    }
    if (!strcmp(key, "table_time")) {
        if (sensim__token_is(vb, ve, "index"))
            ps->table_seconds = 0;
        else if (sensim__token_is(vb, ve, "seconds"))
            ps->table_seconds = 1;
        else
            return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "must be index or seconds");
        return SENSIM_OK;
    }
    static const char *const prism_keys[4] = {"prism_wedge_deg", "prism_index", "prism_rotation_hz",
                                              "prism_phase_deg"};
    for (int k = 0; k < 4; k++) {
        if (strcmp(key, prism_keys[k]))
            continue;
        double *v = NULL;
        uint32_t n = 0;
        sensim_status st = parse_list(vb, ve, o, key, &v, &n);
        if (st != SENSIM_OK)
            return st;
        if (n > SENSIM_MAX_PRISMS) {
            free(v);
            return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "more than 8 prisms");
        }
        sensim_risley_desc *r = &ps->d.risley;
        for (uint32_t i = 0; i < n; i++) {
            if (k == 0)
                r->wedge_rad[i] = (float)(v[i] * DEG);
            else if (k == 1)
                r->refractive_index[i] = (float)v[i];
            else if (k == 2)
                r->rotation_hz[i] = v[i];
            else
                r->phase_rad[i] = v[i] * DEG;
        }
        ps->n_prism[k] = n;
        free(v);
        return SENSIM_OK;
    }
    static const struct {
        const char *key;
        size_t off;
        const char *names[5];
    } enums[] = {
        {"intensity_model", offsetof(sensim_lidar_desc, ret.intensity_model), {"physical", "carla", "cosine", NULL}},
        {"dropoff_model", offsetof(sensim_lidar_desc, ret.dropoff_model), {"none", "carla", "physical", NULL}},
        {"return_mode", offsetof(sensim_lidar_desc, ret.return_mode), {"strongest", "last", "first", "dual", NULL}},
        {"points_frame", offsetof(sensim_lidar_desc, points_frame), {"sensor", "deskewed", "world", NULL}},
        {"firing", offsetof(sensim_lidar_desc, column_firing), {"sequential", "column", NULL}},
        {"sweep", offsetof(sensim_lidar_desc, sweep), {"revolution", "sector", NULL}},
    };
    for (size_t i = 0; i < sizeof enums / sizeof enums[0]; i++) {
        if (strcmp(key, enums[i].key))
            continue;
        for (int32_t k = 0; enums[i].names[k]; k++)
            if (sensim__token_is(vb, ve, enums[i].names[k])) {
                memcpy((char *)&ps->d + enums[i].off, &k, sizeof k);
                return SENSIM_OK;
            }
        return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "unknown value (see scan_patterns/README.md)");
    }
    if (!strcmp(key, "beam")) {
        if (sensim__token_is(vb, ve, "datasheet"))
            ps->ideal_beam = 0;
        else if (sensim__token_is(vb, ve, "ideal"))
            ps->ideal_beam = 1;
        else
            return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "must be datasheet or ideal");
        return SENSIM_OK;
    }
    if (!strcmp(key, "spin")) {
        if (sensim__token_is(vb, ve, "cw"))
            ps->d.spin = SENSIM_SPIN_CW;
        else if (sensim__token_is(vb, ve, "ccw"))
            ps->d.spin = SENSIM_SPIN_CCW;
        else
            return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "must be cw or ccw");
        return SENSIM_OK;
    }
    if (!strcmp(key, "elevation_deg") || !strcmp(key, "azimuth_offset_deg") || !strcmp(key, "firing_offset_ns") ||
        !strcmp(key, "mount_xyz_m") || !strcmp(key, "mount_rpy_deg")) {
        double *v = NULL;
        uint32_t n = 0;
        sensim_status st = parse_list(vb, ve, o, key, &v, &n);
        if (st != SENSIM_OK)
            return st;
        if (!strcmp(key, "mount_xyz_m") || !strcmp(key, "mount_rpy_deg")) {
            if (n != 3) {
                free(v);
                return failo(SENSIM_ERR_PARSE, o, "%s: %s", key, "needs exactly 3 numbers");
            }
            memcpy(!strcmp(key, "mount_xyz_m") ? ps->mount_xyz : ps->mount_rpy_deg, v, 3 * sizeof(double));
            ps->mount_set = 1;
            free(v);
            return SENSIM_OK;
        }
        if (!strcmp(key, "firing_offset_ns")) {
            int32_t *f = malloc(n * sizeof *f);
            if (!f) {
                free(v);
                return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "out of memory");
            }
            for (uint32_t i = 0; i < n; i++) {
                if (v[i] != floor(v[i]) || fabs(v[i]) > 2e9) {
                    free(v);
                    free(f);
                    return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "entries must be integers (ns)");
                }
                f[i] = (int32_t)v[i];
            }
            free(ps->fireoff);
            ps->fireoff = f;
            ps->n_fireoff = n;
            free(v);
            return SENSIM_OK;
        }
        float *f = malloc(n * sizeof *f);
        if (!f) {
            free(v);
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "out of memory");
        }
        for (uint32_t i = 0; i < n; i++)
            f[i] = (float)(v[i] * DEG);
        free(v);
        if (!strcmp(key, "elevation_deg")) {
            free(ps->elev);
            ps->elev = f;
            ps->n_elev = n;
        } else {
            free(ps->azoff);
            ps->azoff = f;
            ps->n_azoff = n;
        }
        return SENSIM_OK;
    }

    static const struct {
        const char *key;
        int kind; /* 0 double, 1 float, 2 uint32, 3 uint64, 4 channels, 5 table period, 6 int32 */
        size_t off;
        double scale;
        int zero_is_default; /* 0 in the descriptor selects the default: refuse an explicit 0 */
    } scalars[] = {
        {"channels", 4, 0, 1, 0},
        {"rotation_hz", 0, offsetof(sensim_lidar_desc, rotation_hz), 1, 1},
        {"shots_per_s", 0, offsetof(sensim_lidar_desc, shots_per_s), 1, 0},
        {"azimuth_resolution_deg", 0, offsetof(sensim_lidar_desc, azimuth_resolution_rad), DEG, 0},
        {"hfov_deg", 0, offsetof(sensim_lidar_desc, hfov_rad), DEG, 1},
        {"start_azimuth_deg", 0, offsetof(sensim_lidar_desc, start_azimuth_rad), DEG, 0},
        {"min_range_m", 1, offsetof(sensim_lidar_desc, min_range_m), 1, 0},
        {"max_range_m", 1, offsetof(sensim_lidar_desc, max_range_m), 1, 1},
        {"range_noise_stddev_m", 1, offsetof(sensim_lidar_desc, range_noise_stddev_m), 1, 0},
        {"atmos_atten_per_m", 1, offsetof(sensim_lidar_desc, atmos_atten_per_m), 1, 0},
        {"lidar_id", 2, offsetof(sensim_lidar_desc, lidar_id), 1, 0},
        {"seed", 3, offsetof(sensim_lidar_desc, seed), 1, 0},
        {"frame_rate_hz", 0, offsetof(sensim_lidar_desc, frame_rate_hz), 1, 1},
        {"column_period_ns", 0, offsetof(sensim_lidar_desc, column_period_ns), 1, 0},
        {"beam_origin_offset_mm", 0, offsetof(sensim_lidar_desc, beam_origin_offset_m), 1e-3, 0},
        {"boresight_elevation_deg", 0, offsetof(sensim_lidar_desc, risley.boresight_elevation_rad), DEG, 0},
        {"head_spin_hz", 0, offsetof(sensim_lidar_desc, risley.head_spin_hz), 1, 0},
        {"mems_h_freq_hz", 0, offsetof(sensim_lidar_desc, mems.h_freq_hz), 1, 0},
        {"mems_v_freq_hz", 0, offsetof(sensim_lidar_desc, mems.v_freq_hz), 1, 0},
        {"table_period_s", 5, 0, 1, 0},
        {"intensity_ref_range_m", 1, offsetof(sensim_lidar_desc, ret.intensity_ref_range_m), 1, 1},
        {"extinction_per_m", 1, offsetof(sensim_lidar_desc, ret.extinction_per_m), 1, 0},
        {"visibility_m", 1, offsetof(sensim_lidar_desc, ret.visibility_m), 1, 0},
        {"rain_rate_mm_h", 1, offsetof(sensim_lidar_desc, ret.rain_rate_mm_h), 1, 0},
        {"rain_false_returns", 2, offsetof(sensim_lidar_desc, ret.rain_false_returns), 1, 0},
        {"dropoff_general_rate", 1, offsetof(sensim_lidar_desc, ret.dropoff_general_rate), 1, 0},
        {"dropoff_intensity_limit", 1, offsetof(sensim_lidar_desc, ret.dropoff_intensity_limit), 1, 0},
        {"dropoff_zero_intensity", 1, offsetof(sensim_lidar_desc, ret.dropoff_zero_intensity), 1, 0},
        {"detect_threshold", 1, offsetof(sensim_lidar_desc, ret.detect_threshold), 1, 1},
        {"detect_noise", 1, offsetof(sensim_lidar_desc, ret.detect_noise), 1, 1},
        {"range_noise_per_m", 1, offsetof(sensim_lidar_desc, ret.range_noise_per_m), 1, 0},
        {"angular_jitter_deg", 1, offsetof(sensim_lidar_desc, ret.angular_jitter_rad), DEG, 0},
        {"max_bounces", 6, offsetof(sensim_lidar_desc, ret.max_bounces), 1, 0},
        {"beam_divergence_h_mrad", 1, offsetof(sensim_lidar_desc, ret.beam_divergence_h_rad), 1e-3, 0},
        {"beam_divergence_v_mrad", 1, offsetof(sensim_lidar_desc, ret.beam_divergence_v_rad), 1e-3, 0},
        {"beam_subrays", 2, offsetof(sensim_lidar_desc, ret.beam_subrays), 1, 1},
        {"range_resolution_m", 1, offsetof(sensim_lidar_desc, ret.range_resolution_m), 1, 1},
        {"pulse_width_ns", 1, offsetof(sensim_lidar_desc, ret.pulse_width_ns), 1, 0},
        /* FWHM full angles, stored as 1/e² full angles: × √(2/ln 2) = 1.6986 */
        {"beam_divergence_fwhm_h_mrad", 1, offsetof(sensim_lidar_desc, ret.beam_divergence_h_rad), 1.69864e-3, 0},
        {"beam_divergence_fwhm_v_mrad", 1, offsetof(sensim_lidar_desc, ret.beam_divergence_v_rad), 1.69864e-3, 0},
    };
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
        if (strcmp(key, scalars[i].key))
            continue;
        double x = 0.0;
        sensim_status st = parse_number(vb, ve, o, key, &x);
        if (st != SENSIM_OK)
            return st;
        if (scalars[i].zero_is_default && x == 0.0)
            return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key,
                         "0 is not a valid value (leave the key out for the default)");
        if (!strcmp(key, "range_noise_stddev_m")) {
            if (x < 0.0)
                return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "a standard deviation must be >= 0");
            ps->noise_override |= o->override_index >= 0;
        }
        char *base = (char *)&ps->d;
        switch (scalars[i].kind) {
        case 0: {
            double v = x * scalars[i].scale;
            memcpy(base + scalars[i].off, &v, sizeof v);
            break;
        }
        case 1: {
            float v = (float)(x * scalars[i].scale);
            if (fabs(x) > 3e38)
                return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "value too large");
            memcpy(base + scalars[i].off, &v, sizeof v);
            break;
        }
        case 2: {
            if (x < 0 || x > 4294967295.0 || x != floor(x))
                return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "must be an integer in 0..2^32-1");
            uint32_t v = (uint32_t)x;
            memcpy(base + scalars[i].off, &v, sizeof v);
            break;
        }
        case 3: {
            if (x < 0 || x > 9007199254740992.0 || x != floor(x))
                return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "must be an integer in 0..2^53");
            uint64_t v = (uint64_t)x;
            memcpy(base + scalars[i].off, &v, sizeof v);
            break;
        }
        case 6: {
            if (x < -1 || x > 2147483647.0 || x != floor(x))
                return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "must be an integer >= -1");
            int32_t v = (int32_t)x;
            memcpy(base + scalars[i].off, &v, sizeof v);
            break;
        }
        case 5:
            if (!(x > 0 && x <= 1e6))
                return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "must be in (0, 1e6] seconds");
            ps->table_period_s = x;
            break;
        default:
            if (x < 1 || x > SENSIM_MAX_CHANNELS || x != floor(x))
                return failo(SENSIM_ERR_OUT_OF_RANGE, o, "%s: %s", key, "must be an integer in 1..1024");
            ps->channels = (int64_t)x;
        }
        return SENSIM_OK;
    }
    /* the nearest known key, when it is near (two edits, or a third for long keys) */
    const char *best = NULL;
    int bd = 99;
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
        int d = (int)sensim__edit_distance(key, scalars[i].key, 99);
        if (d < bd)
            bd = d, best = scalars[i].key;
    }
    for (size_t i = 0; i < sizeof OTHER_KEYS / sizeof OTHER_KEYS[0]; i++) {
        int d = (int)sensim__edit_distance(key, OTHER_KEYS[i], 99);
        if (d < bd)
            bd = d, best = OTHER_KEYS[i];
    }
    char hint[160];
    if (best && bd <= (strlen(key) > 10 ? 3 : 2))
        snprintf(hint, sizeof hint, " (did you mean '%s'? see scan_patterns/README.md)", best);
    else
        snprintf(hint, sizeof hint, " (see scan_patterns/README.md)");
    return failo(SENSIM_ERR_UNKNOWN_KEY, o, "unknown key '%s'%s", key, hint);
}

static sensim_status parse_line(preset *ps, const char *lb, const char *le, const origin *o)
{
    const char *p = lb;
    if (!sensim__line_content(&p, &le))
        return SENSIM_OK;
    const char *eq = memchr(p, '=', (size_t)(le - p));
    if (!eq)
        return failo(SENSIM_ERR_PARSE, o, "%s%s", "expected 'key = value'", "");
    const char *ke = eq;
    while (ke > p && (ke[-1] == ' ' || ke[-1] == '\t'))
        ke--;
    if (ke == p)
        return failo(SENSIM_ERR_PARSE, o, "%s%s", "missing key before '='", "");
    return apply_kv(ps, p, ke, eq + 1, le, o);
}

static bool is_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n > 7 && !strcmp(s + n - 7, ".preset"));
}

static _Thread_local char dir_buf[4096];

const char *sensim_preset_search_dir(uint32_t index)
{
    const char *env = getenv("SENSIM_PRESET_PATH");
    uint32_t i = 0;
    if (env && *env) {
        const char *s = env;
        for (;;) {
            const char *c = strchr(s, ':');
            size_t n = c ? (size_t)(c - s) : strlen(s);
            if (n > 0) {
                if (i == index) {
                    if (n >= sizeof dir_buf)
                        n = sizeof dir_buf - 1;
                    memcpy(dir_buf, s, n);
                    dir_buf[n] = '\0';
                    return dir_buf;
                }
                i++;
            }
            if (!c)
                break;
            s = c + 1;
        }
    }
    if (sensim__running_uninstalled()) {
        if (index == i)
            return SENSIM_SOURCE_PRESET_DIR;
        i++;
    }
    if (!sensim__running_uninstalled()) {
        /* beside the installed library first: a moved prefix finds its own presets */
        const char *beside = sensim__preset_dir_beside_library();
        char installed[PATH_MAX];
        if (beside && !(realpath(SENSIM_INSTALL_PRESET_DIR, installed) && !strcmp(installed, beside))) {
            if (index == i)
                return beside;
            i++;
        }
    }
    if (index == i)
        return SENSIM_INSTALL_PRESET_DIR;
    return NULL;
}

/* The installed preset closest to @p name within a few edits ("" if none):
 * for "did you mean" in the not-found message. */
static void closest_preset(const char *name, char *best, size_t cap)
{
    uint32_t bestd = (uint32_t)strlen(name) / 3 + 2;
    best[0] = 0;
    for (uint32_t i = 0;; i++) {
        const char *dir = sensim_preset_search_dir(i);
        if (!dir)
            break;
        DIR *d = opendir(dir);
        if (!d)
            continue;
        for (struct dirent *e; (e = readdir(d));) {
            size_t n = strlen(e->d_name);
            char cand[64];
            if (n <= 7 || n - 7 >= sizeof cand || strcmp(e->d_name + n - 7, ".preset"))
                continue;
            memcpy(cand, e->d_name, n - 7);
            cand[n - 7] = 0;
            uint32_t dist = sensim__edit_distance(name, cand, bestd);
            if (dist < bestd || (dist == bestd && best[0] && strcmp(cand, best) < 0)) { /* ties: first by name */
                snprintf(best, cap, "%s", cand);
                bestd = dist;
            }
        }
        closedir(d);
    }
}

static sensim_status resolve(const char *name, char *out, size_t cap)
{
    struct stat sb;
    if (is_path(name)) {
        snprintf(out, cap, "%s", name);
        return SENSIM_OK;
    }
    bool plain = true;
    for (size_t n = strlen(name), i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_' ||
              name[i] == '-'))
            plain = false;
    for (uint32_t i = 0; plain; i++) {
        const char *dir = sensim_preset_search_dir(i);
        if (!dir)
            break;
        snprintf(out, cap, "%s/%s.preset", dir, name);
        if (stat(out, &sb) == 0 && S_ISREG(sb.st_mode))
            return SENSIM_OK;
    }
    char best[64], dirs[512] = "";
    closest_preset(name, best, sizeof best);
    for (uint32_t i = 0; sensim_preset_search_dir(i); i++) {
        size_t k = strlen(dirs);
        snprintf(dirs + k, sizeof dirs - k, "%s%s", i ? ", " : "", sensim_preset_search_dir(i));
    }
    if (!plain)
        return sensim__fail(SENSIM_ERR_NOT_FOUND, "preset name '%.64s' has characters other than a-z 0-9 _ -%s%s%s",
                            name, best[0] ? " (did you mean '" : "", best, best[0] ? "'?)" : "");
    return sensim__fail(SENSIM_ERR_NOT_FOUND, "no preset named '%.64s'%s%s%s (searched %s)", name,
                        best[0] ? "; did you mean '" : "", best, best[0] ? "'?" : "", dirs);
}

static bool ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* Checks that need the whole preset: required keys and table lengths. */
static sensim_status finish(preset *ps, const char *path)
{
    int kind = ps->d.pattern;
    if (ps->channels == 0) {
        if (kind == SENSIM_PATTERN_TABLE)
            ps->channels = 1;
        else if (kind == SENSIM_PATTERN_MEMS)
            ps->channels = 10;
        else
            return sensim__fail(SENSIM_ERR_EMPTY, "%s: no 'channels' key", path);
    }
    if (ps->fov_set) { /* CARLA's table: channel i at upper - i (upper - lower) / (channels - 1), top first */
        if (kind != SENSIM_PATTERN_MECHANICAL)
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: upper_fov / lower_fov make a mechanical lidar's table",
                                path);
        if (ps->fov_set != 3)
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: upper_fov and lower_fov go together", path);
        if (!(ps->upper_fov >= ps->lower_fov) || (ps->channels > 1 && ps->upper_fov == ps->lower_fov))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: upper_fov %g below lower_fov %g", path, ps->upper_fov,
                                ps->lower_fov);
        float *e = malloc((size_t)ps->channels * sizeof *e);
        if (!e)
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "out of memory");
        for (int64_t i = 0; i < ps->channels; i++) {
            double deg = ps->channels > 1 ? ps->upper_fov - (double)i * (ps->upper_fov - ps->lower_fov) /
                                                                 (double)(ps->channels - 1)
                                          : ps->upper_fov;
            e[i] = (float)(deg * DEG);
        }
        free(ps->elev);
        ps->elev = e, ps->n_elev = (uint32_t)ps->channels;
        /* the vendor's per-channel tables no longer describe these channels */
        if (ps->azoff && ps->n_azoff != ps->channels)
            free(ps->azoff), ps->azoff = NULL, ps->n_azoff = 0;
        if (ps->fireoff && ps->n_fireoff != ps->channels)
            free(ps->fireoff), ps->fireoff = NULL, ps->n_fireoff = 0;
    }
    if (kind == SENSIM_PATTERN_MECHANICAL || ps->elev) {
        if (ps->n_elev != ps->channels)
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                                "%s: elevation_deg has %u entries, channels = %lld (give upper_fov and lower_fov, "
                                "CARLA's names, for an evenly spaced table of that many channels)",
                                path, ps->n_elev, (long long)ps->channels);
    }
    if (kind == SENSIM_PATTERN_MECHANICAL && ps->d.column_period_ns != 0.0 &&
        (ps->d.shots_per_s > 0.0 || ps->d.azimuth_resolution_rad > 0.0))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                            "%s: column_period_ns (free-running firing) and shots_per_s / azimuth_resolution_deg "
                            "(revolution-locked) are both set; override column_period_ns=0 to use the latter",
                            path);
    if (ps->azoff && ps->n_azoff != ps->channels)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: azimuth_offset_deg has %u entries, channels = %lld", path,
                            ps->n_azoff, (long long)ps->channels);
    if (ps->fireoff && ps->n_fireoff != ps->channels)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: firing_offset_ns has %u entries, channels = %lld", path,
                            ps->n_fireoff, (long long)ps->channels);
    if (kind == SENSIM_PATTERN_RISLEY) {
        uint32_t n = ps->n_prism[0];
        if (n == 0)
            return sensim__fail(SENSIM_ERR_EMPTY, "%s: risley preset needs prism_wedge_deg", path);
        if (ps->n_prism[1] != n || ps->n_prism[2] != n || (ps->n_prism[3] && ps->n_prism[3] != n))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                                "%s: prism_wedge_deg has %u entries but prism_index %u, prism_rotation_hz %u, "
                                "prism_phase_deg %u",
                                path, n, ps->n_prism[1], ps->n_prism[2], ps->n_prism[3]);
        ps->d.risley.prism_count = n;
    }
    return SENSIM_OK;
}

/* Resolve a table path relative to the preset file's directory. */
static void relative_to(const char *preset_path, const char *file, char *out, size_t cap)
{
    const char *slash = strrchr(preset_path, '/');
    if (file[0] == '/' || !slash)
        snprintf(out, cap, "%s", file);
    else
        snprintf(out, cap, "%.*s/%s", (int)(slash - preset_path), preset_path, file);
}

/* A check across keys failed after the overrides applied (min_range_m <
 * max_range_m, ...): name the overrides whose keys the message mentions
 * (all of them when it names none), so the user looks at the --set they
 * typed and not at the preset file. */
static void blame_overrides(sensim_status st, const char *const *overrides, uint32_t n)
{
    char msg[1024], list[512] = "";
    snprintf(msg, sizeof msg, "%s", sensim_context_last_error(NULL));
    for (int pass = 0; pass < 2 && !list[0]; pass++)
        for (uint32_t i = 0; i < n; i++) {
            const char *eq = strchr(overrides[i], '=');
            size_t klen = eq ? (size_t)(eq - overrides[i]) : strlen(overrides[i]);
            char key[64];
            if (klen == 0 || klen >= sizeof key)
                continue;
            memcpy(key, overrides[i], klen);
            key[klen] = 0;
            if (pass == 0 && !strstr(msg, key))
                continue;
            size_t k = strlen(list);
            snprintf(list + k, sizeof list - k, "%soverride %u '%.80s'", k ? ", " : "", i + 1, overrides[i]);
        }
    sensim__fail(st, "%s, applied to %s", list, msg);
}

static sensim_status create_impl(sensim_context *ctx, const char *name_or_path, const char *const *overrides,
                                 uint32_t override_count, sensim_lidar **out, const char *mem, size_t mem_size);

sensim_status sensim_lidar_create_from_preset(sensim_context *ctx, const char *name_or_path,
                                              const char *const *overrides, uint32_t override_count,
                                              sensim_lidar **out)
{
    return create_impl(ctx, name_or_path, overrides, override_count, out, NULL, 0);
}

sensim_status sensim__lidar_from_preset_mem(sensim_context *ctx, const char *label, const char *data, size_t size,
                                            const char *const *overrides, uint32_t override_count,
                                            sensim_lidar **out)
{
    return create_impl(ctx, label, overrides, override_count, out, data ? data : "", size);
}

static sensim_status create_impl(sensim_context *ctx, const char *name_or_path, const char *const *overrides,
                                 uint32_t override_count, sensim_lidar **out, const char *mem, size_t mem_size)
{
    if (!ctx || !name_or_path || !out || (override_count && !overrides))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_create_from_preset: NULL argument");
    *out = NULL;
    char path[4096];
    sensim_status st = SENSIM_OK;
    preset ps;
    memset(&ps, 0, sizeof ps);
    sensim_lidar_desc_init(&ps.d);
    bool csv = !mem && ends_with_ci(name_or_path, ".csv");
    unsigned long long last_line = 0;
    const sensim_lidar_desc *reg = (csv || mem) ? NULL : sensim__context_find_pattern(ctx, name_or_path);
    if (reg) {
        /* a registered pattern: overrides apply to its scalar keys */
        snprintf(path, sizeof path, "registered pattern '%s'", name_or_path);
        ps.d = *reg;
        ps.channels = reg->channel_count;
        snprintf(ps.name, sizeof ps.name, "%s", name_or_path);
        ps.n_prism[0] = ps.n_prism[1] = ps.n_prism[2] = ps.n_prism[3] = reg->risley.prism_count;
        st = SENSIM_OK;
    } else if (csv) {
        /* A pattern CSV given directly: a one-channel table, times from the
         * shot rate (override shots_per_s, or table_time=seconds). */
        snprintf(path, sizeof path, "%s", name_or_path);
        ps.d.pattern = SENSIM_PATTERN_TABLE;
        snprintf(ps.table_file, sizeof ps.table_file, "%s", name_or_path);
        const char *base = strrchr(name_or_path, '/');
        snprintf(ps.name, sizeof ps.name, "%s", base ? base + 1 : name_or_path);
        st = SENSIM_OK;
    } else {
        char *data, *owned = NULL;
        size_t size;
        if (mem) {
            snprintf(path, sizeof path, "%s", name_or_path);
            data = (char *)mem, size = mem_size;
        } else {
            if ((st = resolve(name_or_path, path, sizeof path)) != SENSIM_OK)
                return st;
            if ((st = sensim__read_file(path, 16u << 20, &data, &size)) != SENSIM_OK)
                return st;
            owned = data;
        }
        sensim_lines it = {data, data + size, 0, NULL};
        const char *lb, *le;
        origin o = {path, 0, -1};
        while (st == SENSIM_OK && sensim__next_line(&it, &lb, &le)) {
            o.line = it.line_no;
            st = parse_line(&ps, lb, le, &o);
        }
        last_line = it.line_no;
        free(owned);
    }
    for (uint32_t i = 0; st == SENSIM_OK && i < override_count; i++) {
        if (!overrides[i]) {
            st = sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "override %u is NULL", i + 1);
            break;
        }
        origin oo = {path, 0, (int)i};
        const char *s = overrides[i];
        if (!strchr(s, '='))
            st = failo(SENSIM_ERR_PARSE, &oo, "%s%s", "expected KEY=VALUE", "");
        else
            st = parse_line(&ps, s, s + strlen(s), &oo);
    }
    (void)last_line;
    const bool overrides_parsed = st == SENSIM_OK; /* later failures may come from an override's value */
    if (st == SENSIM_OK && !reg)
        st = finish(&ps, path);
    sensim_csv_table table = {0};
    if (st == SENSIM_OK && ps.d.pattern == SENSIM_PATTERN_TABLE && !(reg && !ps.table_file[0])) {
        if (!ps.table_file[0]) {
            st = sensim__fail(SENSIM_ERR_EMPTY, "%s: table preset needs table_file", path);
        } else {
            char tpath[4096];
            if (csv)
                snprintf(tpath, sizeof tpath, "%s", ps.table_file);
            else
                relative_to(path, ps.table_file, tpath, sizeof tpath);
            st = sensim__csv_load(tpath, ps.table_seconds, ps.table_period_s, &table);
            if (st == SENSIM_OK && !ps.table_seconds && !(ps.d.shots_per_s > 0))
                st = sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                                  "%s: a pattern CSV replayed by index needs shots_per_s (CLI: --shot-rate HZ)",
                                  tpath);
            ps.d.table.shot_count = table.n;
            /* the angles go in double (sensim__lidar_create), not as the desc's floats */
            ps.d.table.azimuth_rad = NULL;
            ps.d.table.elevation_rad = NULL;
            ps.d.table.time_ns = table.time_ns;
            ps.d.table.period_ns = table.period_ns;
        }
    }
    if (st == SENSIM_OK && ps.ideal_beam) {
        /* the ideal beam: one thin, noiseless ray per shot, whatever the preset says */
        ps.d.ret.beam_divergence_h_rad = ps.d.ret.beam_divergence_v_rad = 0;
        ps.d.ret.beam_subrays = 1;
        ps.d.ret.angular_jitter_rad = 0;
        ps.d.ret.range_noise_per_m = 0;
        ps.d.ret.pulse_width_ns = 0;
        if (!ps.noise_override) /* noise the user set on top (CARLA's noise_stddev) is applied */
            ps.d.range_noise_stddev_m = 0;
    }
    if (st == SENSIM_OK) {
        ps.d.name = ps.name[0] ? ps.name : name_or_path;
        ps.d.channel_count = (uint32_t)ps.channels;
        if (!reg || ps.elev)
            ps.d.elevation_rad = ps.elev;
        if (!reg || ps.azoff)
            ps.d.azimuth_offset_rad = ps.azoff;
        if (!reg || ps.fireoff)
            ps.d.firing_offset_ns = ps.fireoff;
        if (reg && ps.channels != (int64_t)reg->channel_count)
            st = sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: channels cannot be overridden", path);
        if (st == SENSIM_OK && (!reg || ps.mount_set))
            sensim__pose_from_xyz_rpy(ps.mount_xyz[0], ps.mount_xyz[1], ps.mount_xyz[2], ps.mount_rpy_deg[0] * DEG,
                                  ps.mount_rpy_deg[1] * DEG, ps.mount_rpy_deg[2] * DEG, ps.d.mount_pose);
        if (st == SENSIM_OK)
            st = sensim__lidar_create(ctx, &ps.d, table.az_rad, table.el_rad, out);
        if (st != SENSIM_OK) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", sensim_context_last_error(ctx));
            sensim__fail(st, "%s: %s", path, msg);
        }
    }
    if (st != SENSIM_OK && overrides_parsed && override_count)
        blame_overrides(st, overrides, override_count);
    sensim__csv_free(&table);
    free(ps.elev);
    free(ps.azoff);
    free(ps.fireoff);
    free(ps.seen);
    return st;
}
