/* Return model: from a hit to a point record (or no point). */
#ifndef SENSIM_RETURNS_H
#define SENSIM_RETURNS_H

#include "trace.h"

typedef struct sensim_return_params {
    float min_range_m;
    float max_range_m;
    float range_noise_stddev_m;
    float atmos_atten_per_m;
    uint64_t seed;
    uint32_t lidar_id;
} sensim_return_params;

/* Random purposes: each random decision of a shot draws from its own stream. */
#define SENSIM_RNG_RANGE_NOISE 1u

/* Counter-based hash -> uniform in [0, 1). Same inputs, same number, always. */
double sensim__rng_uniform(uint64_t seed, uint32_t lidar_id, uint64_t shot, uint32_t subray,
                           uint32_t purpose);

/* Fill @p out (sensor-frame xyz from @p dir_sensor) for the hit; false when the
 * shot gives no point (miss, too near, too far). */
bool sensim__returns_point(const sensim_return_params *rp, const sensim_hit *hit,
                           const float dir_sensor[3], uint64_t shot_index, sensim_point *out);

#endif
