/* Navigation sensor internals shared with the rig. */
#ifndef SENSIM_NAV_IMPL_H
#define SENSIM_NAV_IMPL_H

#include "internal.h"

/* Random-walk state, saved and restored around a rig step (a transaction). */
typedef struct sensim__nav_state {
    int started;
    uint64_t next;          /* the next sample whose increments are not in yet */
    double accel_bias[3], gyro_bias[3];
} sensim__nav_state;

void sensim__nav_save(const sensim_nav *nav, sensim__nav_state *out);
void sensim__nav_restore(sensim_nav *nav, const sensim__nav_state *state);
bool sensim__nav_check(const sensim_nav *nav);

/* Radars (radar.c): handle check, and a buffer of rays_per_sample detections. */
bool sensim__radar_check(const sensim_radar *radar);
sensim_radar_detection *sensim__radar_buffer(sensim_radar *radar);
uint32_t sensim__radar_sensor_id(const sensim_radar *radar);

#endif
