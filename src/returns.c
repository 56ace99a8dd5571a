#include "returns.h"

#include <cglm/vec3.h>
#include <math.h>

/* SplitMix64 finaliser: a strong 64-bit mixer, cheap enough per shot. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

double sensim__rng_uniform(uint64_t seed, uint32_t lidar_id, uint64_t shot, uint32_t subray,
                           uint32_t purpose)
{
    uint64_t h = mix64(seed ^ UINT64_C(0x9e3779b97f4a7c15));
    h = mix64(h ^ ((uint64_t)lidar_id << 32 | purpose));
    h = mix64(h ^ shot);
    h = mix64(h ^ subray);
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

static double gaussian(const sensim_return_params *rp, uint64_t shot, uint32_t purpose)
{
    double u1 = sensim__rng_uniform(rp->seed, rp->lidar_id, shot, 0, purpose);
    double u2 = sensim__rng_uniform(rp->seed, rp->lidar_id, shot, 1, purpose);
    return sqrt(-2.0 * log1p(-u1)) * cos(2.0 * SENSIM_PI * u2);
}

bool sensim__returns_point(const sensim_return_params *rp, const sensim_hit *hit,
                           const float dir_sensor[3], uint64_t shot_index, sensim_point *out)
{
    if (!hit->hit)
        return false;
    float range = hit->t;
    if (range < rp->min_range_m || range >= rp->max_range_m)
        return false;
    if (rp->range_noise_stddev_m > 0.0f) {
        range += (float)(rp->range_noise_stddev_m * gaussian(rp, shot_index, SENSIM_RNG_RANGE_NOISE));
        if (range <= 0.0f)
            return false;
    }
    vec3 p;
    glm_vec3_scale((float *)dir_sensor, range, p);
    out->x = p[0];
    out->y = p[1];
    out->z = p[2];
    out->range_m = range;
    /* Plain intensity (CARLA-compatible): reflectivity 1 attenuated by the
     * atmosphere, exp(-a·d). The physical range-equation model comes later. */
    out->intensity = expf(-rp->atmos_atten_per_m * hit->t);
    out->object_id = hit->object_id;
    out->tag = hit->tag;
    out->flags = 0;
    return true;
}
