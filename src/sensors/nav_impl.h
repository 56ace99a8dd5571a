/* Internals of the rig's non-lidar sensors (navigation, radar, camera) shared with the rig. */
#ifndef SENSIM_NAV_IMPL_H
#define SENSIM_NAV_IMPL_H

#include "internal.h"
#include "motion.h"

/* Random-walk state, saved and restored around a rig step (a transaction). */
typedef struct sensim__nav_state {
    int started;
    uint64_t next;          /* the next sample whose increments are not in yet */
    double accel_bias[3], gyro_bias[3];
} sensim__nav_state;

void sensim__nav_save(const sensim_nav *nav, sensim__nav_state *out);
void sensim__nav_restore(sensim_nav *nav, const sensim__nav_state *state);
bool sensim__nav_check(const sensim_nav *nav);
/* Sample k of @p nav from the platform's state at k·period (pose, velocities, accelerations,
 * angular acceleration included): what sensim_nav_sample_at does after reading its keys. */
sensim_status sensim__nav_sample_kin(sensim_nav *nav, const sensim_kinematics *kin, uint64_t k,
                                     sensim_nav_sample *out);

/* Radars (radar.c): handle check, and a buffer of rays_per_sample detections. */
bool sensim__radar_check(const sensim_radar *radar);
sensim_radar_detection *sensim__radar_buffer(sensim_radar *radar);
uint32_t sensim__radar_sensor_id(const sensim_radar *radar);
/* Sample k of @p radar from the platform's state at k·period: sensim_radar_sample_at after its keys. */
sensim_status sensim__radar_sample_kin(sensim_radar *r, const sensim_scene *scene, const sensim_kinematics *kin,
                                       uint64_t k, sensim_radar_detection *out, uint64_t cap, uint64_t *out_count,
                                       double out_pose[16]);

/* Cameras (camera.c): render at t_ns with the platform's pose from @p path (rows of a
 * rolling shutter at their own times); sensim_camera_render after its keys. */
/* A camera image's largest side, pixels (camera_desc.c checks it, camera.c sizes by it). */
#define MAX_SIDE 16384

sensim_status sensim__camera_render_path(sensim_camera *c, const sensim_scene *scene, const sensim_path *path,
                                         int64_t t_ns, const sensim_camera_images *im, double out_pose[16]);

#endif
