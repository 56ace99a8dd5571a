/* Camera descriptors (sensim/camera.h): defaults, presets and keys typed
 * by users (CARLA's attribute names among them). */
#include "internal.h"
#include "nav_impl.h"
#include "parse.h"

#include <sensim/camera.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sensim_camera_desc_init(sensim_camera_desc *d)
{
    if (!d)
        return;
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "carla_default");
    d->width = 800, d->height = 600;
    d->model = SENSIM_CAMERA_PINHOLE;
    d->samples_per_pixel = 1;
    d->hfov_deg = 90.0;
    d->max_depth_m = 1000.0;
    d->sun_azimuth_deg = 135.0, d->sun_elevation_deg = 45.0;
    d->ambient = 0.3;
}

static const struct {
    const char *name;
    uint32_t w, h;
    int32_t model;
    double fov;
} presets[] = {
    /* CARLA's sensor.camera.rgb defaults: image_size_x 800, image_size_y 600, fov 90 (carla_sensors.md 1.1) */
    {"carla_default", 800, 600, SENSIM_CAMERA_PINHOLE, 90.0},
    {"pinhole_720p", 1280, 720, SENSIM_CAMERA_PINHOLE, 90.0},
    {"pinhole_1080p", 1920, 1080, SENSIM_CAMERA_PINHOLE, 90.0},
    /* a generic 190-degree equidistant fisheye (surround-view style), not a vendor's datasheet */
    {"fisheye_190", 1280, 960, SENSIM_CAMERA_FISHEYE, 190.0},
};

sensim_status sensim_camera_desc_preset(const char *name, sensim_camera_desc *d)
{
    if (!name || !d)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_camera_desc_preset: %s is NULL", d ? "name" : "desc");
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
        if (!strcmp(presets[i].name, name)) {
            sensim_camera_desc_init(d);
            snprintf(d->name, sizeof d->name, "%s", name);
            d->width = presets[i].w, d->height = presets[i].h, d->model = presets[i].model;
            d->hfov_deg = presets[i].fov;
            /* Unreal (CARLA) samples pixel i at i + 0.5 about cx = W/2: the axis on the image's centre */
            d->pixel_center_offset = !strcmp(name, "carla_default") ? 0.5 : 0.0;
            d->depth_far_plane = !strcmp(name, "carla_default");
            return SENSIM_OK;
        }
    return sensim__fail(SENSIM_ERR_NOT_FOUND,
                        "camera preset '%.64s' not found (built in: carla_default, pinhole_720p, pinhole_1080p, "
                        "fisheye_190)", name);
}

sensim_status sensim_camera_desc_set(sensim_camera_desc *d, const char *key, const char *value)
{
    if (!d || !key || !value)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_camera_desc_set: NULL argument");
    if (!strcmp(key, "model")) {
        if (!strcmp(value, "pinhole"))
            d->model = SENSIM_CAMERA_PINHOLE;
        else if (!strcmp(value, "fisheye"))
            d->model = SENSIM_CAMERA_FISHEYE;
        else
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera key model: '%.64s' (pinhole or fisheye)", value);
        return SENSIM_OK;
    }
    const bool fish = d->model == SENSIM_CAMERA_FISHEYE;
    /* CARLA's attribute names: the image size with the intrinsics derived from fov again (as CARLA does) */
    const bool carla_size = !strcmp(key, "image_size_x") || !strcmp(key, "image_size_y");
    if (carla_size)
        key = key[11] == 'x' ? "width" : "height";
    struct {
        const char *k;
        double *dp;
        uint32_t *up;
        int64_t *ip;
        double lo, hi;
    } keys[] = {
        {"width", NULL, &d->width, NULL, 1, MAX_SIDE},
        {"height", NULL, &d->height, NULL, 1, MAX_SIDE},
        {"samples_per_pixel", NULL, &d->samples_per_pixel, NULL, 1, 256},
        {"fov", &d->hfov_deg, NULL, NULL, 1e-3, 360},
        {"fx", &d->fx, NULL, NULL, 1e-6, 1e9},
        {"fy", &d->fy, NULL, NULL, 1e-6, 1e9},
        {"cx", &d->cx, NULL, NULL, -1e9, 1e9},
        {"cy", &d->cy, NULL, NULL, -1e9, 1e9},
        /* pinhole: k1 k2 p1 p2 k3 in distortion[0..4]; fisheye: k1 k2 k3 k4 in distortion[0..3] */
        {"k1", &d->distortion[0], NULL, NULL, -10, 10},
        {"k2", &d->distortion[1], NULL, NULL, -10, 10},
        {"p1", fish ? NULL : &d->distortion[2], NULL, NULL, -10, 10},
        {"p2", fish ? NULL : &d->distortion[3], NULL, NULL, -10, 10},
        {"k3", &d->distortion[fish ? 2 : 4], NULL, NULL, -10, 10},
        {"k4", fish ? &d->distortion[3] : NULL, NULL, NULL, -10, 10},
        {"max_depth_m", &d->max_depth_m, NULL, NULL, 0, 1e9},
        {"row_readout_ns", NULL, NULL, &d->row_readout_ns, 0, 1e9},
        {"sun_azimuth_deg", &d->sun_azimuth_deg, NULL, NULL, -360, 360},
        {"sun_elevation_deg", &d->sun_elevation_deg, NULL, NULL, -90, 90},
        {"ambient", &d->ambient, NULL, NULL, 0, 1},
        {"pixel_center_offset", &d->pixel_center_offset, NULL, NULL, 0, 0.5},
        {"depth_far_plane", NULL, &d->depth_far_plane, NULL, 0, 1},
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        if (strcmp(keys[i].k, key))
            continue;
        if (!keys[i].dp && !keys[i].up && !keys[i].ip)
            return sensim__fail(SENSIM_ERR_UNKNOWN_KEY, "camera key %s: %s", key,
                                fish ? "a fisheye takes k1 k2 k3 k4" : "a pinhole takes k1 k2 p1 p2 k3 (k4 is a fisheye "
                                                                       "coefficient: set model = fisheye first)");
        const char *p = value, *end = value + strlen(value);
        double v;
        int64_t iv = 0;
        bool ok = keys[i].dp ? sensim__parse_double(&p, end, &v) : sensim__parse_int(&p, end, &iv);
        if (!keys[i].dp)
            v = (double)iv;
        if (!ok || sensim__skip_space(p, end) != end)
            return sensim__fail(SENSIM_ERR_PARSE, "camera key %s: '%.64s' is not a%s number", key, value,
                                keys[i].dp ? "" : "n integer");
        if (!isfinite(v))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "camera key %s: %.64s", key, value);
        if (v < keys[i].lo || v > keys[i].hi)
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera key %s: %.64s outside [%g, %g]", key, value,
                                keys[i].lo, keys[i].hi);
        if (keys[i].dp)
            *keys[i].dp = v;
        else if (keys[i].up)
            *keys[i].up = (uint32_t)v;
        else
            *keys[i].ip = iv;
        if (!strcmp(key, "fov") || carla_size)
            d->fx = d->fy = d->cx = d->cy = 0;
        return SENSIM_OK;
    }
    static const char *const others[] = {"model", "image_size_x", "image_size_y"};
    const char *best = NULL;
    int bd = 99;
    for (size_t i = 0; i < sizeof keys / sizeof *keys + 3; i++) {
        const char *k = i < sizeof keys / sizeof *keys ? keys[i].k : others[i - sizeof keys / sizeof *keys];
        int e = (int)sensim__edit_distance(key, k, 99);
        if (e < bd)
            bd = e, best = k;
    }
    if (best && bd <= (strlen(key) > 10 ? 3 : 2))
        return sensim__fail(SENSIM_ERR_UNKNOWN_KEY, "unknown camera key '%.64s' (did you mean '%s'?)", key, best);
    return sensim__fail(SENSIM_ERR_UNKNOWN_KEY, "unknown camera key '%.64s'", key);
}
