/**
 * @file sensim/radar.h
 * @brief Ray-cast radar with Doppler: CARLA's model and a physical one.
 *
 * Frames. The mount pose is in the platform frame; the radar looks along its
 * +x. Angles are in the sensor frame, REP-103 sense: azimuth positive to the
 * left (+y), altitude positive up. CARLA reports azimuth positive to the
 * right: CARLA azimuth = −azimuth. Radial velocity is the range rate,
 * dot(v_target − v_sensor, û) with û the unit vector from the sensor to the
 * hit: approaching targets are negative (CARLA's sign).
 *
 * Time. Sample k is taken at t = k·P, P = round(1e9 / rate_hz): every ray at
 * t, with the sensor's pose and velocity from the platform's kinematics at t
 * (sensim_kinematics_at, lever arm included) and moving actors where they
 * are at t with their velocity at t (linear velocity plus rotation about
 * their origin; the CARLA model leaves the rotation out, as CARLA does).
 *
 * Models.
 *  - `carla`: N = floor(points_per_second · P) rays a sample, each aimed at
 *    (range, r·tan(hfov/2)·range·cos a, r·tan(vfov/2)·range·sin a) with r
 *    and a uniform in [0, 1) and [0, 2π) (so detections concentrate near the
 *    boresight, as CARLA's do); every hit is a detection; no noise.
 *  - `physical`: the same rays, each hit a diffuse scatterer of radar cross
 *    section σ = 4·ρ·R²·Ω·cos θ (the beam footprint R²Ω/cos θ with a
 *    Lambertian monostatic pattern 4ρcos²θ; ρ by tag: vehicles 1, poles and
 *    signs 0.6, buildings, walls, fences and guard rails 0.3, ground and
 *    roads 0.05, vegetation 0.1, people 0.1, others 0.2; Ω = the solid angle
 *    of the field of view over N), SNR = snr_ref_db + 10·log10(σ/10 m²) −
 *    40·log10(R/100 m) (the radar equation referred to a 10 m² target at
 *    100 m), detected with probability Pd from Albersheim's equation
 *    (single pulse): B = (SNR_dB − A)/(0.12·A + 1.7), A = ln(0.62/Pfa),
 *    Pd = 1/(1 + e^−B), the SNR first lowered by rain's two-way loss
 *    2·γ·R (γ = 0.938·rate^0.776 dB/km: Rec. ITU-R P.838's horizontal
 *    coefficients at 77 GHz, interpolated between its 70 and 80 GHz rows
 *    (k 0.851, 0.975; α 0.793, 0.769) on log frequency and log k as the
 *    Recommendation prescribes; 7.6 mm/h, heavy rain, costs 0.91 dB at 100
 *    m; fog, about 1 dB/km at 77 GHz even when dense, is not modelled); then range, azimuth, radial velocity quantised to
 *    their resolutions (0: none) plus Gaussian noise, and the velocity
 *    folded into [−v_max, v_max) (maximum unambiguous velocity; 0: none).
 *  Random numbers are counter-based on (seed, sensor id, sample, ray):
 *  the same inputs give the same detections for any thread count or split.
 */
#ifndef SENSIM_RADAR_H
#define SENSIM_RADAR_H

#include <sensim/nav.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SENSIM_RADAR_CARLA    0 /**< CARLA's radar: every ray's hit a detection, no noise */
#define SENSIM_RADAR_PHYSICAL 1 /**< radar equation, Albersheim detection, resolution and noise */

/** A detection: 32 bytes, the size of sensim_point, so radars write into
 *  point rings (cast the records; sensim_radar_fields() gives the table). */
typedef struct sensim_radar_detection {
    float depth_m;        /**<  0: distance along the ray to the hit */
    float azimuth_rad;    /**<  4: sensor frame, positive to the left */
    float altitude_rad;   /**<  8: positive up */
    float velocity_mps;   /**< 12: radial velocity (range rate; approaching < 0) */
    float rcs_dbsm;       /**< 16: radar cross-section estimate, dB m² (carla model: the same estimate) */
    float snr_db;         /**< 20: physical model's SNR (carla model: the same estimate) */
    uint32_t object_id;   /**< 24: actor id, 0 for the static world */
    uint16_t ray;         /**< 28: ray index in its sample (low 16 bits) */
    uint8_t tag;          /**< 30: semantic tag */
    uint8_t flags;        /**< 31: 0 */
} sensim_radar_detection;

/** Field table of sensim_radar_detection (names: depth azimuth altitude
 *  velocity rcs_dbsm snr_db object_id ray tag flags). Since 0.1. */
SENSIM_API const sensim_field *sensim_radar_fields(uint32_t *out_count);

/** A radar. Fill with sensim_radar_desc_init(). */
typedef struct sensim_radar_desc {
    int32_t model;               /**< SENSIM_RADAR_* */
    int32_t interp;              /**< SENSIM_INTERP_* for the platform's kinematics (default SPLINE); a rig
                                      stepped from its history, or with causal keys, uses its own model */
    uint32_t sensor_id;          /**< written as lidar_id in frame headers */
    uint32_t seed;               /**< ray and noise seed (counter-based: same seed, same detections) */
    double rate_hz;              /**< samples per second, [0.1, 1000] (default 20) */
    double hfov_deg;             /**< horizontal full angle, (0, 170] (default 30: CARLA) */
    double vfov_deg;             /**< vertical full angle, (0, 170] (default 30: CARLA) */
    double range_m;              /**< forward distance of the aim plane, (0, 1e4] (default 100) */
    double points_per_second;    /**< rays per second, [1, 1e7] (default 1500: CARLA) */
    double mount_pose[16];       /**< sensor-to-platform (all zero: identity) */
    /* physical model */
    double snr_ref_db;           /**< SNR of a 10 m² target at 100 m (default 20) */
    double pfa;                  /**< false-alarm probability of the threshold, [1e-12, 1e-2] (default 1e-6) */
    double range_resolution_m;      /**< physical: range bin, metres; 0: not quantised */
    double azimuth_resolution_deg;  /**< physical: azimuth bin, degrees; 0: not quantised */
    double velocity_resolution_mps; /**< physical: radial velocity bin, m/s; 0: not quantised */
    double range_noise_m;           /**< physical: Gaussian σ of range, metres */
    double azimuth_noise_deg;       /**< physical: Gaussian σ of azimuth, degrees */
    double velocity_noise_mps;      /**< physical: Gaussian σ of radial velocity, m/s */
    double max_velocity_mps;     /**< maximum unambiguous |velocity| (0: none) */
    double rain_rate_mm_h;       /**< physical: rain rate, mm/h, [0, 500] (0: none; sensim_radar_set_weather) */
    uint64_t reserved[7]; /**< reserved: 0 */
} sensim_radar_desc;

/** Defaults (CARLA's radar: 30° × 30°, 100 m, 1500 rays/s; 20 Hz; carla
 *  model; SNR 20 dB at 100 m for 10 m², Pfa 1e-6). Since 0.1. */
SENSIM_API void sensim_radar_desc_init(sensim_radar_desc *desc);

/**
 * Set one key from text: model (carla|physical), interp, seed, rate_hz,
 * horizontal_fov, vertical_fov, range, points_per_second, mount_xyz_m,
 * mount_rpy_deg, snr_ref_db, pfa, range_resolution, azimuth_resolution,
 * velocity_resolution, range_noise, azimuth_noise, velocity_noise,
 * max_velocity, rain_rate.
 * @return SENSIM_OK, SENSIM_ERR_UNKNOWN_KEY, SENSIM_ERR_PARSE,
 *         SENSIM_ERR_NOT_FINITE, SENSIM_ERR_OUT_OF_RANGE, SENSIM_ERR_INVALID_ARGUMENT.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_radar_desc_set(sensim_radar_desc *desc, const char *key, const char *value);

/** A radar (opaque; sensim_radar_create()). */
typedef struct sensim_radar sensim_radar;

/** Create a radar (descriptor copied and checked). @return SENSIM_OK,
 *  SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE, SENSIM_ERR_NOT_FINITE,
 *  SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_OUT_OF_MEMORY. Thread safety: any thread. Since 0.1. */
SENSIM_API sensim_status sensim_radar_create(sensim_context *ctx, const sensim_radar_desc *desc,
                                             sensim_radar **out_radar);

/** Destroy (NULL: no-op; not while a rig holds it). Since 0.1. */
SENSIM_API void sensim_radar_destroy(sensim_radar *radar);

/**
 * Detections of sample k on a committed scene with the platform on @p keys
 * (see sensim_kinematics_at): at most @p capacity into @p out, the count in
 * @p out_count (more than @p capacity: SENSIM_ERR_TOO_LARGE, nothing
 * useful written; at most floor(points_per_second · P) detections a sample).
 * @p out_pose (may be NULL) receives the sensor's world pose at k·P.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_NOT_COMMITTED, SENSIM_ERR_BUSY, SENSIM_ERR_TOO_LARGE,
 *         SENSIM_ERR_OUT_OF_RANGE, key errors.
 * Thread safety: one call at a time per radar; many radars may share a scene. Since 0.1.
 */
SENSIM_API sensim_status sensim_radar_sample_at(sensim_radar *radar, const sensim_scene *scene,
                                                const sensim_pose_key *keys, uint64_t key_count, uint64_t k,
                                                sensim_radar_detection *out, uint64_t capacity,
                                                uint64_t *out_count, double out_pose[16]);

/**
 * Change the rain the radar sees (the physical model: SNR lowered by the
 * two-way rain loss; the CARLA model ignores weather, as CARLA's radar
 * does), from the next sample on; @p rain_rate_mm_h in mm/h, [0, 500].
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_NOT_FINITE, SENSIM_ERR_OUT_OF_RANGE (unchanged then),
 *         SENSIM_ERR_BUSY (a sample of this radar runs on another thread).
 * Thread safety: any thread; refused during a sample of this radar. Since 0.2.
 */
SENSIM_API sensim_status sensim_radar_set_weather(sensim_radar *radar, double rain_rate_mm_h);

/** Period of @p radar in ns; 0 for a bad handle. Since 0.1. */
SENSIM_API int64_t sensim_radar_period_ns(const sensim_radar *radar);
/** Rays @p radar casts a sample; 0 for a bad handle. Since 0.1. */
SENSIM_API uint64_t sensim_radar_rays_per_sample(const sensim_radar *radar);

#ifdef __cplusplus
}
#endif

#endif
