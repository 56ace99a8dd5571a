/* Cameras (sensim/camera.h): lens models, and a tiled ray-traced render of
 * depth, semantic, instance, normal and shaded colour images. Rays go
 * through the trace module in 4 x 4 pixel tiles (one 16-wide packet). */
#include "motion.h"
#include "nav_impl.h"
#include "parse.h"
#include "trace.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SENSIM_MAGIC_CAMERA 0x43434E53u
#define TILE 4
#define MAX_PIXELS (1u << 26) /* 8192 x 8192 or 16384 x 4096: 1 GiB of lens rays, 256 MiB a depth image */
#define LENS_AHEAD 4 /* tiles: how far ahead lens_rays4() prefetches the lens table */
#define SRGB_BINS 4096

struct sensim_camera {
    _Atomic uint32_t magic;
    sensim_context *ctx;
    sensim_camera_desc d;
    double fx, fy, cx, cy;
    double mount[16];
    atomic_int busy;
    /* The lens table: for every 4 pixels x = 4b .. 4b + 3 of a row, one
     * 64-byte block of 16 floats, the optical unit rays' x[4], y[4], z[4]
     * and where max_depth_m cuts them, tfar[4] (pinhole: planar depth;
     * fisheye: along the ray). NaN: outside the lens model, or past the
     * right edge. Blocks row by row, lens_bw blocks a row. 16 bytes a
     * pixel: a tile row reads one cache line. */
    float *lens;
    uint32_t lens_bw;
    sensim_path path; /* sensim_camera_render's motion (24 KB: not on the host's stack; the holder's, see busy) */
    double *row_pose; /* world pose of the camera for each row (rolling shutter) */
    float *row_time;  /* normalised scene ray time of each row */
    uint32_t grid;    /* sqrt(samples_per_pixel) */
    double srgb_lin[256];  /* linear value of each sRGB code */
    double srgb_edge[255]; /* linear value of code c + 1/2: codes c and c + 1 meet there */
    uint8_t srgb_bin[4096];  /* sRGB code of linear i / 4096 */
    float sky_depth;         /* depth of a pixel that meets nothing: +inf, or max_depth_m (depth_far_plane) */
};

/* ---------------------------------------------------------------- lens models */

static void distort_pinhole(const double *k, double x, double y, double *xd, double *yd)
{
    double r2 = x * x + y * y, rad = 1 + r2 * (k[0] + r2 * (k[1] + r2 * k[4]));
    *xd = x * rad + 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x);
    *yd = y * rad + k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y;
}

static double fisheye_theta_d(const double *k, double th)
{
    double t2 = th * th;
    return th * (1 + t2 * (k[0] + t2 * (k[1] + t2 * (k[2] + t2 * k[3]))));
}

static bool has_distortion(const double *k)
{
    return k[0] != 0 || k[1] != 0 || k[2] != 0 || k[3] != 0 || k[4] != 0;
}

/* Optical unit direction through normalised distorted coordinates (xd, yd). */
static bool unproject_norm(const sensim_camera_desc *d, double xd, double yd, double out[3])
{
    const double *k = d->distortion;
    if (d->model == SENSIM_CAMERA_FISHEYE) {
        double rd = sqrt(xd * xd + yd * yd), th = rd;
        if (rd == 0) {
            out[0] = out[1] = 0, out[2] = 1;
            return true;
        }
        for (int it = 0; it < 60; it++) {
            double t2 = th * th;
            double f = fisheye_theta_d(k, th) - rd;
            double df = 1 + t2 * (3 * k[0] + t2 * (5 * k[1] + t2 * (7 * k[2] + t2 * 9 * k[3])));
            if (!(fabs(df) > 1e-12))
                return false;
            double step = f / df;
            th -= step;
            if (fabs(step) < 1e-14)
                break;
        }
        if (!(th >= 0 && th <= SENSIM_PI) || fabs(fisheye_theta_d(k, th) - rd) > 1e-9)
            return false;
        double s = sin(th) / rd;
        out[0] = xd * s, out[1] = yd * s, out[2] = cos(th);
        return true;
    }
    double x = xd, y = yd;
    if (has_distortion(k)) {
        int it;
        for (it = 0; it < 60; it++) {
            double ex, ey, h = 1e-7;
            distort_pinhole(k, x, y, &ex, &ey);
            double fx = ex - xd, fy = ey - yd;
            if (fabs(fx) < 1e-13 && fabs(fy) < 1e-13)
                break;
            double ax, ay, bx, by; /* Jacobian by central differences (exact enough at h = 1e-7) */
            double p1x, p1y, m1x, m1y;
            distort_pinhole(k, x + h, y, &p1x, &p1y);
            distort_pinhole(k, x - h, y, &m1x, &m1y);
            ax = (p1x - m1x) / (2 * h), ay = (p1y - m1y) / (2 * h);
            distort_pinhole(k, x, y + h, &p1x, &p1y);
            distort_pinhole(k, x, y - h, &m1x, &m1y);
            bx = (p1x - m1x) / (2 * h), by = (p1y - m1y) / (2 * h);
            double det = ax * by - bx * ay;
            if (!(fabs(det) > 1e-12))
                return false;
            x -= (by * fx - bx * fy) / det;
            y -= (-ay * fx + ax * fy) / det;
            if (!isfinite(x) || !isfinite(y))
                return false;
        }
        double ex, ey;
        distort_pinhole(k, x, y, &ex, &ey);
        if (!(fabs(ex - xd) < 1e-9 && fabs(ey - yd) < 1e-9))
            return false;
    }
    double l = sqrt(x * x + y * y + 1);
    out[0] = x / l, out[1] = y / l, out[2] = 1 / l;
    return true;
}

/* ---------------------------------------------------------------- object */

static double srgb_decode(double s);
static uint8_t to_srgb8_search(const sensim_camera *c, double lin);

/* Planar depth per metre along a pixel's ray: its optical z for a pinhole
 * (depth is planar), 1 for a fisheye (depth along the ray). */
static inline float pixel_dz(const sensim_camera *c, const float o[3])
{
    return c->d.model == SENSIM_CAMERA_PINHOLE ? o[2] : 1.0f;
}

/* The lens table's block of pixels x & ~3 .. (x & ~3) + 3 of row y. */
static inline const float *lens_block(const sensim_camera *c, uint32_t x, uint32_t y)
{
    return &c->lens[16 * ((size_t)y * c->lens_bw + x / 4)];
}

/* Optical unit ray through the centre of pixel (x, y) and where max_depth_m
 * cuts it, from the lens table; false outside the lens model. */
static inline bool pixel_ray(const sensim_camera *c, uint32_t x, uint32_t y, float o[3], float *tfar)
{
    const float *b = lens_block(c, x, y);
    uint32_t k = x % 4;
    o[0] = b[k], o[1] = b[4 + k], o[2] = b[8 + k], *tfar = b[12 + k];
    return o[0] == o[0];
}

sensim_status sensim_camera_create(sensim_context *ctx, const sensim_camera_desc *desc, sensim_camera **out)
{
    SENSIM_CHECK_HANDLE(ctx, SENSIM_MAGIC_CONTEXT, "context");
    if (!desc || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_camera_create: %s is NULL", desc ? "out" : "desc");
    *out = NULL;
    const sensim_camera_desc *d = desc;
    for (int i = 0; i < 6; i++)
        if (d->reserved[i] || d->reserved_u32)
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "camera: reserved fields are not zero");
    if (d->depth_far_plane > 1)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera: depth_far_plane %u is not 0 or 1", d->depth_far_plane);
    if (!(d->pixel_center_offset >= 0 && d->pixel_center_offset <= 0.5))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera: pixel_center_offset %g outside [0, 0.5]",
                            d->pixel_center_offset);
    if (d->width < 1 || d->width > MAX_SIDE || d->height < 1 || d->height > MAX_SIDE)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera: size %ux%u (each 1..%d)", d->width, d->height, MAX_SIDE);
    if ((uint64_t)d->width * d->height > MAX_PIXELS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                            "camera: size %ux%u is %llu pixels, over the budget of %u (8192 x 8192 or 16384 x 4096: "
                            "the lens rays alone would take %llu MB)",
                            d->width, d->height, (unsigned long long)d->width * d->height, MAX_PIXELS,
                            (unsigned long long)d->width * d->height * 16 / 1000000);
    if (d->model != SENSIM_CAMERA_PINHOLE && d->model != SENSIM_CAMERA_FISHEYE)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera: model %d (0 pinhole, 1 fisheye)", d->model);
    uint32_t g = (uint32_t)lround(sqrt((double)d->samples_per_pixel));
    if (d->samples_per_pixel < 1 || d->samples_per_pixel > 256 || g * g != d->samples_per_pixel)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera: samples_per_pixel %u (a square 1..256: 1, 4, 9, 16, ...)",
                            d->samples_per_pixel);
    const double *vals[] = {&d->hfov_deg, &d->fx, &d->fy, &d->cx, &d->cy, &d->max_depth_m, &d->sun_azimuth_deg,
                            &d->sun_elevation_deg, &d->ambient, &d->distortion[0], &d->distortion[1],
                            &d->distortion[2], &d->distortion[3], &d->distortion[4]};
    const char *names[] = {"hfov_deg", "fx", "fy", "cx", "cy", "max_depth_m", "sun_azimuth_deg", "sun_elevation_deg",
                           "ambient", "k1", "k2", "p1 (fisheye k3)", "p2 (fisheye k4)", "k3"};
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++)
        if (!isfinite(*vals[i]))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "camera: %s is %g", names[i], *vals[i]);
    for (int i = 0; i < 5; i++)
        if (fabs(d->distortion[i]) > 10)
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera: %s = %g (|value| <= 10)", names[9 + i],
                                d->distortion[i]);
    if (d->model == SENSIM_CAMERA_FISHEYE && d->distortion[4] != 0)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera: fisheye takes k1..k4 (distortion[4] must be 0)");
    if (d->max_depth_m < 0 || d->max_depth_m > 1e9 || d->ambient < 0 || d->ambient > 1)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera: max_depth_m %g (0..1e9) or ambient %g (0..1)",
                            d->max_depth_m, d->ambient);
    if (d->row_readout_ns < 0 || d->row_readout_ns > 1000000000 ||
        (double)d->row_readout_ns * d->height > 1e9)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera: row_readout_ns %lld (0..; height x readout <= 1 s)",
                            (long long)d->row_readout_ns);
    double fx = d->fx, fy = d->fy, cx = d->cx, cy = d->cy;
    if (fx == 0) {
        double fov = d->hfov_deg * SENSIM_PI / 180.0;
        if (!(d->hfov_deg > 0) || (d->model == SENSIM_CAMERA_PINHOLE && d->hfov_deg >= 180) || d->hfov_deg > 360)
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera: hfov_deg %g (pinhole: (0, 180), fisheye: (0, 360])",
                                d->hfov_deg);
        fx = d->model == SENSIM_CAMERA_PINHOLE ? d->width / (2.0 * tan(fov / 2)) : (d->width / 2.0) / (fov / 2);
        fy = fx, cx = d->width / 2.0 - d->pixel_center_offset, cy = d->height / 2.0 - d->pixel_center_offset;
    } else if (!(fx > 0 && fy > 0 && fx <= 1e9 && fy <= 1e9) || fabs(cx) > 1e9 || fabs(cy) > 1e9) {
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera: fx %g, fy %g (> 0), cx %g, cy %g", fx, fy, cx, cy);
    }
    sensim_camera *c = calloc(1, sizeof *c);
    const uint32_t bw = (d->width + 3) / 4;
    if (!c || !(c->lens = aligned_alloc(64, (size_t)bw * d->height * 16 * sizeof *c->lens)) ||
        !(c->row_pose = malloc((size_t)d->height * 16 * sizeof *c->row_pose)) ||
        !(c->row_time = malloc((size_t)d->height * sizeof *c->row_time))) {
        if (c)
            free(c->lens), free(c->row_pose);
        free(c);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "camera: %ux%u images", d->width, d->height);
    }
    c->d = *d;
    c->d.name[sizeof c->d.name - 1] = '\0';
    if (c->d.max_depth_m == 0)
        c->d.max_depth_m = 1000.0;
    c->sky_depth = c->d.depth_far_plane ? (float)c->d.max_depth_m : INFINITY;
    c->fx = fx, c->fy = fy, c->cx = cx, c->cy = cy, c->grid = g;
    for (int k = 0; k < 256; k++)
        c->srgb_lin[k] = srgb_decode(k / 255.0);
    for (int k = 0; k < 255; k++)
        c->srgb_edge[k] = srgb_decode((k + 0.5) / 255.0);
    for (int k = 0; k < SRGB_BINS; k++)
        c->srgb_bin[k] = to_srgb8_search(c, (double)k / SRGB_BINS);
    sensim__mat4_identity(c->mount);
    c->lens_bw = bw;
    for (uint32_t j = 0; j < d->height; j++)
        for (uint32_t i = 0; i < 4 * bw; i++) {
            double dir[3];
            float o[3], *b = &c->lens[16 * ((size_t)j * bw + i / 4)];
            if (i < d->width && unproject_norm(&c->d, (i - cx) / fx, (j - cy) / fy, dir))
                o[0] = (float)dir[0], o[1] = (float)dir[1], o[2] = (float)dir[2];
            else
                o[0] = o[1] = o[2] = NAN;
            b[i % 4] = o[0], b[4 + i % 4] = o[1], b[8 + i % 4] = o[2];
            b[12 + i % 4] = (float)(c->d.max_depth_m / pixel_dz(c, o));
        }
    c->ctx = ctx;
    sensim__context_retain(ctx);
    atomic_init(&c->busy, 0);
    c->magic = SENSIM_MAGIC_CAMERA;
    *out = c;
    return SENSIM_OK;
}

void sensim_camera_destroy(sensim_camera *c)
{
    if (!c || c->magic != SENSIM_MAGIC_CAMERA)
        return;
    c->magic = SENSIM_MAGIC_DEAD;
    sensim_context *ctx = c->ctx;
    free(c->lens);
    free(c->row_pose);
    free(c->row_time);
    free(c);
    sensim__context_release(ctx);
}

sensim_status sensim_camera_set_mount_pose(sensim_camera *c, const double pose[16])
{
    SENSIM_CHECK_HANDLE(c, SENSIM_MAGIC_CAMERA, "camera");
    if (!pose)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_camera_set_mount_pose: pose is NULL");
    sensim_status st = sensim__check_pose(pose, "camera mount pose");
    if (st != SENSIM_OK)
        return st;
    if (!sensim__mat4_is_rigid(pose))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "camera mount pose is not rigid (rotation + translation)");
    if (atomic_load(&c->busy))
        return sensim__fail(SENSIM_ERR_BUSY, "camera mount pose: the camera is rendering");
    memcpy(c->mount, pose, sizeof c->mount);
    return SENSIM_OK;
}

sensim_status sensim_camera_get_mount_pose(const sensim_camera *c, double out[16])
{
    SENSIM_CHECK_HANDLE(c, SENSIM_MAGIC_CAMERA, "camera");
    if (!out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_camera_get_mount_pose: NULL argument");
    memcpy(out, c->mount, sizeof c->mount);
    return SENSIM_OK;
}

sensim_status sensim_camera_get_info(const sensim_camera *c, sensim_camera_info *o)
{
    SENSIM_CHECK_HANDLE(c, SENSIM_MAGIC_CAMERA, "camera");
    if (!o)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_camera_get_info: out_info is NULL");
    memset(o, 0, sizeof *o);
    o->width = c->d.width, o->height = c->d.height;
    snprintf(o->distortion_model, sizeof o->distortion_model, "%s",
             c->d.model == SENSIM_CAMERA_FISHEYE ? "equidistant" : "plumb_bob");
    if (c->d.model == SENSIM_CAMERA_FISHEYE)
        memcpy(o->d, c->d.distortion, 4 * sizeof(double));
    else
        memcpy(o->d, c->d.distortion, 5 * sizeof(double));
    double K[9] = {c->fx, 0, c->cx, 0, c->fy, c->cy, 0, 0, 1};
    memcpy(o->k, K, sizeof K);
    o->r[0] = o->r[4] = o->r[8] = 1;
    double P[12] = {c->fx, 0, c->cx, 0, 0, c->fy, c->cy, 0, 0, 0, 1, 0};
    memcpy(o->p, P, sizeof P);
    /* the image's edges: u = -o and W - o with the pixel convention's offset o (0.5: pixel i spans i +- 0.5) */
    const double left = c->cx + c->d.pixel_center_offset, right = c->d.width - c->d.pixel_center_offset - c->cx;
    if (c->d.model == SENSIM_CAMERA_FISHEYE)
        o->hfov_deg = (left / c->fx + right / c->fx) * 180.0 / SENSIM_PI;
    else
        o->hfov_deg = (atan(left / c->fx) + atan(right / c->fx)) * 180.0 / SENSIM_PI;
    return SENSIM_OK;
}

sensim_status sensim_camera_project(const sensim_camera *c, const double p[3], double uv[2])
{
    SENSIM_CHECK_HANDLE(c, SENSIM_MAGIC_CAMERA, "camera");
    if (!p || !uv)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_camera_project: NULL argument");
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_camera_project: point (%g, %g, %g)", p[0], p[1], p[2]);
    double xd, yd;
    if (c->d.model == SENSIM_CAMERA_FISHEYE) {
        double r = hypot(p[0], p[1]);
        if (r == 0 && p[2] <= 0)
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_camera_project: point on the fisheye's axis "
                                                         "behind it or at its centre");
        if (r == 0) {
            xd = yd = 0;
        } else {
            double td = fisheye_theta_d(c->d.distortion, atan2(r, p[2]));
            xd = td * p[0] / r, yd = td * p[1] / r;
        }
    } else {
        if (!(p[2] > 0))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_camera_project: point behind the camera (z = %g)",
                                p[2]);
        distort_pinhole(c->d.distortion, p[0] / p[2], p[1] / p[2], &xd, &yd);
    }
    uv[0] = c->fx * xd + c->cx, uv[1] = c->fy * yd + c->cy;
    if (!isfinite(uv[0]) || !isfinite(uv[1]))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_camera_project: image coordinates overflow");
    return SENSIM_OK;
}

sensim_status sensim_camera_unproject(const sensim_camera *c, double u, double v, double dir[3])
{
    SENSIM_CHECK_HANDLE(c, SENSIM_MAGIC_CAMERA, "camera");
    if (!dir)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_camera_unproject: out_dir is NULL");
    if (!isfinite(u) || !isfinite(v))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_camera_unproject: (%g, %g)", u, v);
    if (!unproject_norm(&c->d, (u - c->cx) / c->fx, (v - c->cy) / c->fy, dir))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_camera_unproject: (%g, %g) is outside the lens model",
                            u, v);
    return SENSIM_OK;
}

void sensim_depth_to_carla_rgb(float depth_m, uint8_t rgb[3])
{
    uint32_t n = sensim__carla_depth24(depth_m);
    rgb[0] = (uint8_t)(n & 255), rgb[1] = (uint8_t)((n >> 8) & 255), rgb[2] = (uint8_t)(n >> 16);
}

/* ---------------------------------------------------------------- render */

/* Optical direction -> body frame (x forward, y left, z up) -> world. */
static inline void optical_to_world(const double *P, const float o[3], float w[3])
{
    double b0 = o[2], b1 = -o[0], b2 = -o[1];
    w[0] = (float)(P[0] * b0 + P[4] * b1 + P[8] * b2);
    w[1] = (float)(P[1] * b0 + P[5] * b1 + P[9] * b2);
    w[2] = (float)(P[2] * b0 + P[6] * b1 + P[10] * b2);
}

typedef struct render_job {
    const sensim_camera *c;
    const sensim_scene *scene;
    const sensim_camera_images *im;
    float sun[3];
    bool sun_up;
} render_job;

static double srgb_decode(double s)
{
    return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4);
}

/* sRGB code of a linear value: the number of code boundaries (the linear
 * values of codes c − 1/2, c = 1..255) at or below it, i.e. the rounded
 * sRGB encoding, by binary search in the camera's table (no pow per pixel). */
static uint8_t to_srgb8_search(const sensim_camera *c, double lin)
{
    uint32_t lo = 0, hi = 255; /* answer in [lo, hi] */
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1) / 2;
        if (lin >= c->srgb_edge[mid - 1])
            lo = mid;
        else
            hi = mid - 1;
    }
    return (uint8_t)lo;
}

/* The same code in a step or two: the code at the start of lin's 1/4096 bin
 * (exact: lin * 4096 is exact), then up over the edges inside the bin. */
static inline uint8_t to_srgb8(const sensim_camera *c, double lin)
{
    if (!(lin >= 0)) /* negative, NaN: no edge lies below */
        return 0;
    uint32_t code = c->srgb_bin[lin < 1 ? (uint32_t)(lin * SRGB_BINS) : SRGB_BINS - 1];
    while (code < 255 && lin >= c->srgb_edge[code])
        code++;
    return (uint8_t)code;
}

static inline double from_srgb8(const sensim_camera *c, uint8_t v)
{
    return c->srgb_lin[v];
}

/* Linear base colour of a hit: its material's appearance (base colour times
 * the nearest texel at the hit's UV, repeating, where the mesh has UVs),
 * else its tag's CityScapes colour. */
static void base_color(const render_job *j, const sensim_ray_hit *h, double out[3])
{
    const sensim_scene *s = j->scene;
    if (h->material && h->material < s->cmat_count && s->cmats[h->material].has_kd) {
        const sensim_mat_entry *e = &s->cmats[h->material];
        for (int q = 0; q < 3; q++)
            out[q] = e->kd[q];
        const sensim_mesh *m = h->mesh_id < s->mesh_count ? &s->meshes[h->mesh_id] : NULL;
        const float *uv = e->tex && m && m->uvs && h->primitive_id < m->triangle_count
                              ? &m->uvs[6 * (size_t)h->primitive_id] : NULL;
        if (uv && uv[0] == uv[0]) { /* NaN: a triangle without UVs */
            const double w0 = 1.0 - h->u - h->v;
            double tu = w0 * uv[0] + h->u * uv[2] + h->v * uv[4];
            double tv = w0 * uv[1] + h->u * uv[3] + h->v * uv[5];
            tu -= floor(tu), tv -= floor(tv);
            const sensim_texture *t = &s->textures[e->tex - 1];
            uint32_t x = (uint32_t)(tu * t->w), y = (uint32_t)((1.0 - tv) * t->h);
            x = x < t->w ? x : t->w - 1, y = y < t->h ? y : t->h - 1;
            const uint8_t *px = &t->rgb[3 * ((size_t)y * t->w + x)];
            for (int q = 0; q < 3; q++)
                out[q] *= from_srgb8(j->c, px[q]);
        }
        return;
    }
    uint8_t col[3];
    sensim_tag_color(h->hit ? h->tag : 11, col); /* nothing hit: the sky */
    for (int q = 0; q < 3; q++)
        out[q] = from_srgb8(j->c, col[q]);
}

/* Linear colour of n rays' hits: base colour, sun with a shadow ray, sky ambient. */
static void shade(const render_job *j, const sensim_ray *rays, const sensim_ray_hit *h, uint32_t n, double (*rgb)[3])
{
    sensim_ray sh[TILE * TILE];
    uint8_t occ[TILE * TILE];
    uint32_t m = 0, idx[TILE * TILE];
    double ndl[TILE * TILE], base[TILE * TILE][3];
    const double amb = j->c->d.ambient;
    for (uint32_t k = 0; k < n; k++) {
        base_color(j, &h[k], base[k]);
        if (!h[k].hit) {
            for (int q = 0; q < 3; q++)
                rgb[k][q] = base[k][q];
            continue;
        }
        double nl = j->sun_up ? h[k].normal[0] * j->sun[0] + h[k].normal[1] * j->sun[1] + h[k].normal[2] * j->sun[2]
                              : 0;
        for (int q = 0; q < 3; q++)
            rgb[k][q] = base[k][q] * amb;
        if (nl > 0) {
            sensim_ray *r = &sh[m];
            float eps = 1e-4f * (1.0f + h[k].distance);
            for (int q = 0; q < 3; q++) {
                r->org[q] = rays[k].org[q] + rays[k].dir[q] * h[k].distance + h[k].normal[q] * eps;
                r->dir[q] = j->sun[q];
            }
            r->tnear = 0, r->tfar = INFINITY, r->time = rays[k].time;
            ndl[m] = nl;
            idx[m++] = k;
        }
    }
    if (!m)
        return;
    sensim__trace_occluded(j->scene, sh, m, occ);
    for (uint32_t s = 0; s < m; s++)
        if (!occ[s]) {
            uint32_t k = idx[s];
            for (int q = 0; q < 3; q++)
                rgb[k][q] += base[k][q] * (1 - amb) * ndl[s];
        }
}

/* A pixel outside the lens model: nothing to see. */
static void blank_pixel(const render_job *j, size_t p)
{
    if (j->im->depth)
        j->im->depth[p] = INFINITY;
    if (j->im->semantic)
        j->im->semantic[p] = 0;
    if (j->im->instance)
        j->im->instance[p] = 0;
    if (j->im->normal)
        j->im->normal[3 * p] = j->im->normal[3 * p + 1] = j->im->normal[3 * p + 2] = 0;
    if (j->im->rgb)
        j->im->rgb[3 * p] = j->im->rgb[3 * p + 1] = j->im->rgb[3 * p + 2] = 0;
}


/* Rays of pixels x0 .. x0 + 3 (x0 a multiple of 4) of row y into lanes
 * n .. n + 3 of @p pk (world frame from row pose @p P), from the lens
 * table: the same IEEE operations in the same order as pixel_ray() and
 * optical_to_world(), so the same bits. False (nothing written) when one
 * of the four is outside the lens model. 4-wide
 * double vectors (AVX where the CPU has it, chosen at load time; two SSE2
 * halves otherwise). No FMA in either clone. */
SENSIM_AVX_CLONES static bool lens_rays4(const sensim_camera *c, const double *P, uint32_t x0, uint32_t y,
                                         float time, sensim_packet16 *pk, uint32_t n, float *dz)
{
    const float *blk = lens_block(c, x0, y);
    if (x0 / 4 + LENS_AHEAD < c->lens_bw) /* a miss here stalls the tile: fetch this row of a tile further on */
        __builtin_prefetch(blk + 16 * LENS_AHEAD);
    sensim_v4f o0, o1, o2, tf;
    memcpy(&o0, blk, sizeof o0);
    memcpy(&o1, blk + 4, sizeof o1);
    memcpy(&o2, blk + 8, sizeof o2);
    memcpy(&tf, blk + 12, sizeof tf);
    if (!(o0[0] == o0[0] && o0[1] == o0[1] && o0[2] == o0[2] && o0[3] == o0[3]))
        return false;
    sensim_v4d b0 = __builtin_convertvector(o2, sensim_v4d), b1 = -__builtin_convertvector(o0, sensim_v4d),
        b2 = -__builtin_convertvector(o1, sensim_v4d);
    sensim_v4f w0 = __builtin_convertvector(P[0] * b0 + P[4] * b1 + P[8] * b2, sensim_v4f);
    sensim_v4f w1 = __builtin_convertvector(P[1] * b0 + P[5] * b1 + P[9] * b2, sensim_v4f);
    sensim_v4f w2 = __builtin_convertvector(P[2] * b0 + P[6] * b1 + P[10] * b2, sensim_v4f);
    memcpy(&pk->dx[n], &w0, sizeof w0);
    memcpy(&pk->dy[n], &w1, sizeof w1);
    memcpy(&pk->dz[n], &w2, sizeof w2);
    memcpy(&pk->tfar[n], &tf, sizeof tf);
    if (c->d.model == SENSIM_CAMERA_PINHOLE)
        memcpy(&dz[n], &o2, sizeof o2);
    else
        dz[n] = dz[n + 1] = dz[n + 2] = dz[n + 3] = 1.0f;
    const float ox = (float)P[12], oy = (float)P[13], oz = (float)P[14];
    for (uint32_t k = 0; k < 4; k++)
        pk->ox[n + k] = ox, pk->oy[n + k] = oy, pk->oz[n + k] = oz, pk->time[n + k] = time;
    return true;
}

/* Depth, semantic and instance of a run of tiles: a band of TILE rows and
 * up to RUN_TILES tiles rendered into per-thread staging rows, then copied
 * into the images row by row. Scattered 16-byte writes straight into a
 * frame's images evicted the BVH the next tiles trace through (measured:
 * ~10 % of a depth + semantic frame against writes into a cached buffer). */
enum { RUN_TILES = 64, RUN_W = RUN_TILES * TILE };
typedef struct label_stage {
    float depth[TILE][RUN_W];
    uint32_t instance[TILE][RUN_W];
    uint8_t semantic[TILE][RUN_W];
} label_stage;

/* One tile into the staging rows (x relative to the run's first column x0):
 * its rays written straight into a 16-wide packet, hits decoded without
 * normals (the same bytes as the general path below, which goes through
 * ray records and full hits). */
static void render_tile_labels(const render_job *j, uint32_t tx, uint32_t ty, uint32_t x0, label_stage *st)
{
    const sensim_camera *c = j->c;
    const uint32_t W = c->d.width, H = c->d.height;
    sensim_packet16 pk;
    sensim__packet16_init(&pk);
    uint16_t px[TILE * TILE]; /* row << 10 | column within the run */
    uint32_t n = 0;
    bool full = true; /* every row of the tile went through lens_rays4: pixel k at row k / TILE, column k % TILE */
    float dz[TILE * TILE];
    for (uint32_t y = ty; y < ty + TILE && y < H; y++) {
        const double *P = &c->row_pose[16 * y];
        const uint16_t row = (uint16_t)((y - ty) << 10);
        if (tx + TILE <= W && lens_rays4(c, P, tx, y, c->row_time[y], &pk, n, dz)) { /* a whole tile row */
            for (uint32_t k = 0; k < TILE; k++)
                px[n + k] = (uint16_t)(row | (tx - x0 + k));
            n += TILE;
            continue;
        }
        full = false;
        for (uint32_t x = tx; x < tx + TILE && x < W; x++) {
            float o[3], tf, w[3];
            if (!pixel_ray(c, x, y, o, &tf)) { /* outside the lens model: what blank_pixel() writes */
                st->depth[y - ty][x - x0] = INFINITY;
                st->semantic[y - ty][x - x0] = 0;
                st->instance[y - ty][x - x0] = 0;
                continue;
            }
            optical_to_world(P, o, w);
            pk.ox[n] = (float)P[12], pk.oy[n] = (float)P[13], pk.oz[n] = (float)P[14];
            pk.dx[n] = w[0], pk.dy[n] = w[1], pk.dz[n] = w[2];
            pk.tfar[n] = tf;
            pk.time[n] = c->row_time[y];
            dz[n] = pixel_dz(c, o);
            px[n++] = (uint16_t)(row | (x - x0));
        }
    }
    if (!n)
        return;
    float t[TILE * TILE];
    uint8_t tag[TILE * TILE];
    uint32_t obj[TILE * TILE];
    sensim__trace_packet16(j->scene, &pk, n, t, tag, obj);
    if (n == TILE * TILE && full) { /* a whole tile: rows of TILE pixels, vectorised */
        const float sky = c->sky_depth;
        const uint32_t xa = tx - x0;
        for (uint32_t r = 0; r < TILE; r++)
            for (uint32_t q = 0; q < TILE; q++) {
                const uint32_t k = r * TILE + q;
                const bool hit = t[k] < INFINITY;
                st->depth[r][xa + q] = hit ? t[k] * dz[k] : sky;
                st->semantic[r][xa + q] = hit ? tag[k] : 11;
                st->instance[r][xa + q] = hit ? obj[k] : 0;
            }
        return;
    }
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t r = px[k] >> 10, x = px[k] & 1023u;
        const bool hit = t[k] < INFINITY;
        st->depth[r][x] = hit ? t[k] * dz[k] : c->sky_depth;
        st->semantic[r][x] = hit ? tag[k] : 11;
        st->instance[r][x] = hit ? obj[k] : 0;
    }
}

/* Tiles tx0 .. tx0 + RUN_TILES - 1 of the band at row ty, then their rows
 * copied out (only the outputs asked for). */
static void render_run_labels(const render_job *j, uint32_t tx0, uint32_t ty)
{
    const uint32_t W = j->c->d.width, H = j->c->d.height;
    label_stage st;
    const uint32_t x0 = tx0 * TILE, x1 = x0 + RUN_W < W ? x0 + RUN_W : W;
    for (uint32_t x = x0; x < x1; x += TILE)
        render_tile_labels(j, x, ty, x0, &st);
    for (uint32_t y = ty; y < ty + TILE && y < H; y++) {
        const size_t q = (size_t)y * W + x0, len = x1 - x0;
        if (j->im->depth)
            memcpy(&j->im->depth[q], st.depth[y - ty], len * sizeof(float));
        if (j->im->semantic)
            memcpy(&j->im->semantic[q], st.semantic[y - ty], len);
        if (j->im->instance)
            memcpy(&j->im->instance[q], st.instance[y - ty], len * sizeof(uint32_t));
    }
}

static void render_tile(const render_job *j, uint32_t tx, uint32_t ty)
{
    const sensim_camera *c = j->c;
    const uint32_t W = c->d.width, H = c->d.height;
    sensim_ray rays[TILE * TILE];
    sensim_ray_hit hits[TILE * TILE];
    uint32_t px[TILE * TILE], n = 0;
    float dz[TILE * TILE];
    for (uint32_t y = ty; y < ty + TILE && y < H; y++)
        for (uint32_t x = tx; x < tx + TILE && x < W; x++) {
            size_t p = (size_t)y * W + x;
            float o[3], tf;
            if (!pixel_ray(c, x, y, o, &tf)) {
                blank_pixel(j, p);
                continue;
            }
            const double *P = &c->row_pose[16 * y];
            sensim_ray *r = &rays[n];
            optical_to_world(P, o, r->dir);
            r->org[0] = (float)P[12], r->org[1] = (float)P[13], r->org[2] = (float)P[14];
            r->tnear = 0;
            dz[n] = pixel_dz(c, o);
            r->tfar = tf;
            r->time = c->row_time[y];
            px[n++] = (uint32_t)p;
        }
    if (!n)
        return;
    sensim__trace_query(j->scene, rays, n, hits);
    double rgb[TILE * TILE][3];
    if (j->im->rgb && c->grid == 1)
        shade(j, rays, hits, n, rgb);
    for (uint32_t k = 0; k < n; k++) {
        size_t p = px[k];
        const sensim_ray_hit *h = &hits[k];
        if (j->im->depth)
            j->im->depth[p] = h->hit ? h->distance * dz[k] : j->c->sky_depth;
        if (j->im->semantic)
            j->im->semantic[p] = h->hit ? h->tag : 11;
        if (j->im->instance)
            j->im->instance[p] = h->hit ? h->object_id : 0;
        if (j->im->normal) {
            float *o = &j->im->normal[3 * p];
            if (h->hit) { /* world -> body (R^T) -> optical (x = -y_b, y = -z_b, z = x_b) */
                const double *P = &c->row_pose[16 * (p / W)];
                double b[3];
                for (int q = 0; q < 3; q++)
                    b[q] = P[4 * q] * h->normal[0] + P[4 * q + 1] * h->normal[1] + P[4 * q + 2] * h->normal[2];
                o[0] = (float)-b[1], o[1] = (float)-b[2], o[2] = (float)b[0];
            } else {
                o[0] = o[1] = o[2] = 0;
            }
        }
        if (j->im->rgb && c->grid == 1)
            for (int q = 0; q < 3; q++)
                j->im->rgb[3 * p + q] = to_srgb8(c, rgb[k][q]);
    }
    if (!j->im->rgb || c->grid == 1)
        return;
    /* anti-aliased colour: g x g sub-pixel rays per pixel, one pixel's samples per trace */
    const uint32_t g = c->grid, ns = g * g;
    for (uint32_t k = 0; k < n; k++) {
        size_t p = px[k];
        uint32_t x = (uint32_t)(p % W), y = (uint32_t)(p / W);
        const double *P = &c->row_pose[16 * y];
        double acc[3] = {0, 0, 0};
        float dz0[3], tf0;
        pixel_ray(c, x, y, dz0, &tf0); /* inside the lens model: the tile kept only such pixels */
        for (uint32_t s0 = 0; s0 < ns; s0 += TILE * TILE) {
            uint32_t m = 0;
            sensim_ray sr[TILE * TILE];
            sensim_ray_hit shh[TILE * TILE];
            for (uint32_t s = s0; s < ns && s < s0 + TILE * TILE; s++) {
                double du = ((s % g) + 0.5) / g - 0.5, dv = ((s / g) + 0.5) / g - 0.5, dir[3];
                float o[3];
                if (!unproject_norm(&c->d, (x + du - c->cx) / c->fx, (y + dv - c->cy) / c->fy, dir))
                    dir[0] = dz0[0], dir[1] = dz0[1], dir[2] = dz0[2]; /* a sub-pixel outside the model: the centre ray */
                o[0] = (float)dir[0], o[1] = (float)dir[1], o[2] = (float)dir[2];
                sensim_ray *r = &sr[m++];
                optical_to_world(P, o, r->dir);
                r->org[0] = (float)P[12], r->org[1] = (float)P[13], r->org[2] = (float)P[14];
                r->tnear = 0;
                r->tfar = (float)(c->d.max_depth_m / pixel_dz(c, o));
                r->time = c->row_time[y];
            }
            sensim__trace_query(j->scene, sr, m, shh);
            double col[TILE * TILE][3];
            shade(j, sr, shh, m, col);
            for (uint32_t s = 0; s < m; s++)
                for (int q = 0; q < 3; q++)
                    acc[q] += col[s][q];
        }
        for (int q = 0; q < 3; q++)
            j->im->rgb[3 * p + q] = to_srgb8(c, acc[q] / ns);
    }
}

static sensim_status acquire(sensim_camera *c, int64_t t_ns);
static sensim_status render_held(sensim_camera *c, const sensim_scene *scene, const sensim_path *path, int64_t t_ns,
                                 const sensim_camera_images *im, double out_pose[16]);

sensim_status sensim_camera_render(sensim_camera *c, const sensim_scene *scene, const sensim_motion *platform,
                                   int64_t t_ns, const sensim_camera_images *im, double out_pose[16])
{
    SENSIM_CHECK_HANDLE(c, SENSIM_MAGIC_CAMERA, "camera");
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!platform || !im)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_camera_render: %s is NULL",
                            platform ? "images" : "platform");
    if (!im->depth && !im->semantic && !im->instance && !im->normal && !im->rgb)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_camera_render: no image buffer is set");
    for (int i = 0; i < 4; i++)
        if (im->reserved[i] || (i < 4 && platform->reserved[i]))
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_camera_render: reserved fields must be zero");
    if (!platform->keys || platform->key_count < 1 || platform->key_count > SENSIM_MAX_KEYS)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_camera_render: platform needs 1..%d pose keys",
                            SENSIM_MAX_KEYS);
    sensim_status st = acquire(c, t_ns);
    if (st != SENSIM_OK)
        return st;
    if ((st = sensim__path_init(&c->path, platform->keys, platform->key_count, (int32_t)platform->interp)) ==
        SENSIM_OK)
        st = render_held(c, scene, &c->path, t_ns, im, out_pose);
    atomic_store(&c->busy, 0);
    return st;
}

sensim_status sensim__camera_render_path(sensim_camera *c, const sensim_scene *scene, const sensim_path *path,
                                         int64_t t_ns, const sensim_camera_images *im, double out_pose[16])
{
    sensim_status st = acquire(c, t_ns);
    if (st != SENSIM_OK)
        return st;
    st = render_held(c, scene, path, t_ns, im, out_pose);
    atomic_store(&c->busy, 0);
    return st;
}

/* Check the capture's times (its first and last row) and take the camera:
 * SENSIM_ERR_BUSY while another thread renders it. */
static sensim_status acquire(sensim_camera *c, int64_t t_ns)
{
    sensim_status st = sensim__check_time(t_ns, "camera capture time");
    if (st != SENSIM_OK)
        return st;
    const int64_t span = c->d.row_readout_ns * (int64_t)(c->d.height - 1);
    if ((st = sensim__check_time(t_ns + span, "camera last row time")) != SENSIM_OK)
        return st;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&c->busy, &expect, 1))
        return sensim__fail(SENSIM_ERR_BUSY, "camera '%s' is already rendering on another thread", c->d.name);
    return SENSIM_OK;
}

/* A render's work in chunks of @p per items (tiles, or runs of label tiles), one pool task each. */
typedef struct render_chunks {
    const render_job *j;
    const sensim_camera *c;
    bool labels;
    uint32_t tw;
    int64_t runs_per_band, items, per;
    atomic_int cancelled;
} render_chunks;

static void render_chunk(void *arg, uint32_t task, uint32_t who)
{
    (void)who;
    render_chunks *rc = arg;
    const int64_t end = ((int64_t)task + 1) * rc->per < rc->items ? ((int64_t)task + 1) * rc->per : rc->items;
    for (int64_t t = (int64_t)task * rc->per; t < end; t++) {
        if (atomic_load_explicit(&rc->cancelled, memory_order_relaxed))
            return;
        if (sensim__context_cancelled(rc->c->ctx)) {
            atomic_store(&rc->cancelled, 1);
            return;
        }
        if (rc->labels)
            render_run_labels(rc->j, (uint32_t)(t % rc->runs_per_band) * RUN_TILES,
                              (uint32_t)(t / rc->runs_per_band) * TILE);
        else
            render_tile(rc->j, (uint32_t)(t % rc->tw) * TILE, (uint32_t)(t / rc->tw) * TILE);
    }
}

/* The render, the camera held by the caller (which releases it). */
static sensim_status render_held(sensim_camera *c, const sensim_scene *scene, const sensim_path *path, int64_t t_ns,
                                 const sensim_camera_images *im, double out_pose[16])
{
    sensim_status st = sensim__scene_scan_begin(scene);
    if (st != SENSIM_OK)
        return st;
    const uint32_t W = c->d.width, H = c->d.height;
    for (uint32_t y = 0; y < H; y++) {
        int64_t t = t_ns + c->d.row_readout_ns * (int64_t)y;
        double B[16];
        if (y > 0 && c->d.row_readout_ns == 0) {
            memcpy(&c->row_pose[16 * y], c->row_pose, sizeof B);
            c->row_time[y] = c->row_time[0];
            continue;
        }
        sensim__path_pose(path, t, B);
        sensim__mat4_mul(B, c->mount, &c->row_pose[16 * y]);
        c->row_time[y] = sensim__scene_ray_time(scene, t);
    }
    if (out_pose)
        memcpy(out_pose, c->row_pose, 16 * sizeof(double));
    render_job j = {.c = c, .scene = scene, .im = im};
    double az = c->d.sun_azimuth_deg * SENSIM_PI / 180, el = c->d.sun_elevation_deg * SENSIM_PI / 180;
    j.sun[0] = (float)(cos(el) * cos(az)), j.sun[1] = (float)(cos(el) * sin(az)), j.sun[2] = (float)sin(el);
    j.sun_up = c->d.sun_elevation_deg > 0;
    const uint32_t tw = (W + TILE - 1) / TILE, th = (H + TILE - 1) / TILE;
    const int64_t tiles = (int64_t)tw * th;
    /* depth, semantic and instance only: runs of RUN_TILES tiles of a band
     * each; otherwise 64 tiles a chunk, handed out dynamically on the
     * context's pool (workers that block between renders) */
    const bool labels = !im->normal && !im->rgb;
    const int64_t runs_per_band = (tw + RUN_TILES - 1) / RUN_TILES, items = labels ? runs_per_band * th : tiles;
    render_chunks rc = {.j = &j, .c = c, .labels = labels, .tw = tw, .runs_per_band = runs_per_band,
                        .items = items, .per = labels ? 1 : 64};
    atomic_init(&rc.cancelled, 0);
    sensim__pool_run(c->ctx->pool, (uint32_t)((items + rc.per - 1) / rc.per), sensim__threads(c->ctx), render_chunk,
                     &rc);
    atomic_int cancelled = atomic_load(&rc.cancelled);
    sensim__scene_scan_end(scene);
    if (atomic_load(&cancelled))
        return sensim__fail(SENSIM_ERR_CANCELLED, "camera '%s': render cancelled by the host", c->d.name);
    return SENSIM_OK;
}

/* ---------------------------------------------------------------- bench */

sensim_status sensim_bench_camera_trace(const sensim_camera *c, const sensim_scene *scene, const double platform[16],
                                        double *out_s, uint64_t *out_rays, uint64_t *out_hits)
{
    SENSIM_CHECK_HANDLE(c, SENSIM_MAGIC_CAMERA, "camera");
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!platform || !out_s)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_bench_camera_trace: NULL argument");
    sensim_status st = sensim__check_pose(platform, "bench platform pose");
    if (st != SENSIM_OK || (st = sensim__scene_scan_begin(scene)) != SENSIM_OK)
        return st;
    const uint32_t W = c->d.width, H = c->d.height;
    sensim_ray *rays = malloc((size_t)W * H * sizeof *rays);
    if (!rays) {
        sensim__scene_scan_end(scene);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "bench: %ux%u rays", W, H);
    }
    double P[16];
    sensim__mat4_mul(platform, c->mount, P);
    uint64_t m = 0;
    for (uint32_t ty = 0; ty < H; ty += TILE) /* the render's order: 4 x 4 tiles, rows of tiles */
        for (uint32_t tx = 0; tx < W; tx += TILE)
            for (uint32_t y = ty; y < ty + TILE && y < H; y++)
                for (uint32_t x = tx; x < tx + TILE && x < W; x++) {
                    float o[3], tf;
                    if (!pixel_ray(c, x, y, o, &tf))
                        continue;
                    sensim_ray *r = &rays[m++];
                    optical_to_world(P, o, r->dir);
                    r->org[0] = (float)P[12], r->org[1] = (float)P[13], r->org[2] = (float)P[14];
                    r->tnear = 0, r->time = 0;
                    r->tfar = tf;
                }
    struct timespec a, b;
    uint64_t hits = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    sensim__trace_bench(scene, rays, m, SENSIM_BENCH_PACKET16, c->ctx->thread_count, &hits);
    clock_gettime(CLOCK_MONOTONIC, &b);
    *out_s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    free(rays);
    sensim__scene_scan_end(scene);
    if (out_rays)
        *out_rays = m;
    if (out_hits)
        *out_hits = hits;
    return SENSIM_OK;
}
