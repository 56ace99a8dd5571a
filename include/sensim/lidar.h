/**
 * @file sensim/lidar.h
 * @brief Lidar: scan pattern, range limits, mount, and the scan call.
 *
 * Angles in radians (degrees only in preset files and CLI flags), time in
 * integer nanoseconds. Sensor frame: x forward, y left, z up; azimuth is
 * measured from +x towards +y (counter-clockwise seen from above), elevation
 * up from the xy plane.
 *
 * Mechanical pattern: a revolution lasts P = frame_period_ns = round(1e9 /
 * rotation_hz). Revolution-locked (default) it holds C =
 * columns_per_revolution equally spaced columns (C = round(shots_per_s /
 * channels / rotation_hz), or round(2π / azimuth_resolution_rad)); column k
 * of revolution r fires at
 *     T = r · P + floor(k · P / C)   at head angle  start_azimuth + spin · 2π·k/C,
 * where spin is -1 for clockwise (default, as Velodyne, Hesai, Ouster and
 * CARLA) and +1 for counter-clockwise; with a horizontal FOV below 2π only
 * the columns with 2π·k/C < hfov fire. Free-running (column_period_ns > 0,
 * Velodyne's firing cycle) columns fire every column_period_ns regardless of
 * the revolution, at the head angle of their time. Channel ch fires at
 * T + firing_offset_ns[ch] and points at
 *     head angle + azimuth_offset[ch] + spin · 2π · firing_offset_ns[ch] / P
 * (the head keeps turning while a column's lasers fire, so every point's
 * azimuth is where the head was at its own timestamp), elevation
 * elevation[ch]. A frame is one revolution: [r·P, (r+1)·P).
 * Shot times are a pure function of the shot index, so the phase continues
 * across calls and any split of time gives the same points, bit for bit.
 */
#ifndef SENSIM_LIDAR_H
#define SENSIM_LIDAR_H

#include <sensim/context.h>
#include <sensim/ring.h>
#include <sensim/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A lidar: its scan pattern, return model and scan state (opaque; sensim_lidar_create()). */
typedef struct sensim_lidar sensim_lidar;

#define SENSIM_SPIN_CW  (-1) /**< clockwise seen from above (default) */
#define SENSIM_SPIN_CCW   1  /**< counter-clockwise seen from above */

#define SENSIM_MAX_CHANNELS 1024 /**< most lasers (channels) a lidar has */
#define SENSIM_MAX_PRISMS   8    /**< most prisms of a Risley head */

/** Pattern kinds (sensim_lidar_desc.pattern). */
#define SENSIM_PATTERN_MECHANICAL 0 /**< spinning head, per-channel tables (default) */
#define SENSIM_PATTERN_TABLE      1 /**< replayed list of directions (solid-state, Livox CSV) */
#define SENSIM_PATTERN_RISLEY     2 /**< rotating wedge prisms traced exactly (Livox class) */
#define SENSIM_PATTERN_MEMS       3 /**< MEMS Lissajous raster (PCSim rs_m1 / mems_m1 layout) */
#define SENSIM_PATTERN_CALLBACK   4 /**< caller-supplied direction function */

/*
 * Non-mechanical patterns ("sequence" patterns) fire columns of L shots
 * (L = channel_count lasers for RISLEY and MEMS, L = 1 for TABLE and
 * CALLBACK) at a uniform rate: column m fires at
 *     t = floor(m · q / 1000) ns,   q = round(1e12 · L / shots_per_s) ps,
 * and shot index g = m · L + lane. Frames are cut every
 * round(1e9 / frame_rate_hz) ns. A TABLE with time_ns instead fires entry
 * e of pass p at p · period_ns + time_ns[e]. Replay cursors are pure
 * functions of time: tables wrap exactly, with no skipped or repeated entry,
 * however the host splits time.
 */

/**
 * Direction of shot @p shot_index (fired at @p t_ns, sensor frame, unit
 * vector, x forward) and its channel. Return 0 to fire, non-zero for "no
 * shot" (blanking). Called from worker threads concurrently: it must be a
 * pure, thread-safe function of its arguments.
 */
typedef int32_t (*sensim_shot_fn)(void *user, int64_t shot_index, int64_t t_ns, uint16_t *out_channel,
                                  float out_dir[3]);

/** Table pattern: one entry per shot, replayed cyclically. */
typedef struct sensim_table_desc {
    uint64_t shot_count;         /**< entries, 1 .. 2^32 */
    const float *azimuth_rad;    /**< per entry, copied */
    const float *elevation_rad;  /**< per entry, (-π/2, π/2), copied */
    const uint16_t *channel;     /**< optional per-entry channel (< channel_count), copied */
    const int64_t *time_ns;      /**< optional nondecreasing firing times within one pass, [0, period_ns) */
    int64_t period_ns;           /**< duration of one pass; required with time_ns */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_table_desc;

/**
 * Risley prisms, traced with vector Snell's law at every face. The beam of
 * each laser starts along +x, tilted by its elevation_rad / azimuth_offset_rad,
 * and passes prism 0 first. A positive wedge angle means the tilted face is
 * the entrance face (flat exit); negative means flat entrance, tilted exit
 * (HELIOS++ convention). Prism i rotates to angle 2π·rotation_hz[i]·t +
 * phase_rad[i] about +x. Total internal reflection drops the shot.
 */
typedef struct sensim_risley_desc {
    uint32_t prism_count;                      /**< 1 .. SENSIM_MAX_PRISMS */
    float wedge_rad[SENSIM_MAX_PRISMS];        /**< signed wedge angles, |α| < 80° */
    float refractive_index[SENSIM_MAX_PRISMS]; /**< 1 .. 5 */
    double rotation_hz[SENSIM_MAX_PRISMS];     /**< signed rotation rate of prism i about +x, Hz */
    double phase_rad[SENSIM_MAX_PRISMS];       /**< angle of prism i at t = 0, radians */
    double boresight_elevation_rad;            /**< tilt of the optical axis above the xy plane */
    double head_spin_hz;                       /**< rotation of the whole head about +z (0 = none) */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_risley_desc;

/** MEMS raster: PCSim's ten-column Lissajous layout, evaluated continuously. */
typedef struct sensim_mems_desc {
    double h_freq_hz;   /**< horizontal carrier, 0 = 7200 */
    double v_freq_hz;   /**< vertical carrier, 0 = 100 */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_mems_desc;

/** Intensity models (sensim_return_desc.intensity_model). */
#define SENSIM_INTENSITY_PHYSICAL 0 /**< range equation with materials (default) */
#define SENSIM_INTENSITY_CARLA    1 /**< CARLA's exp(-a·d), a = atmos_atten_per_m */
#define SENSIM_INTENSITY_COSINE   2 /**< |cos(incidence)|: CARLA's semantic-lidar cos_inc_angle */

/** Drop-out models. */
#define SENSIM_DROPOFF_NONE     0 /**< keep every hit, however faint (ideal detector) */
#define SENSIM_DROPOFF_CARLA    1 /**< CARLA's general rate + intensity limit + zero-intensity drop */
#define SENSIM_DROPOFF_PHYSICAL 2 /**< detection against a threshold and shot noise (sensim_lidar_desc_init's default) */

/** Which returns a shot reports. */
#define SENSIM_RETURN_STRONGEST 0 /**< the strongest return of the beam */
#define SENSIM_RETURN_LAST      1 /**< the farthest return of the beam */
#define SENSIM_RETURN_FIRST     2 /**< the nearest return of the beam */
#define SENSIM_RETURN_DUAL      3 /**< strongest (index 0) and last (index 1) if they differ */

/**
 * Return model. Each step is switchable; formulas (ranges R in metres,
 * intensities dimensionless):
 *
 * - Physical intensity of a surface hit (Lambertian range equation):
 *   I = (w_d·ρ + g_retro)·|cos θ|·T(R)·(R0 / max(R, R0))², clamped to [0, 1],
 *   with ρ the material's diffuse reflectivity, g_retro its retro-reflective
 *   gain, w_d = 1 − specular − transparency its diffuse share, θ the incidence
 *   angle, R0 = intensity_ref_range_m (calibration: a white Lambertian target
 *   at normal incidence reads 1.0 at R0 or nearer in clear air) and the
 *   two-way transmission T(R) = exp(−2·a·R), a = extinction_per_m + fog + rain:
 *   fog from visibility V (Koschmieder 3.912/V scaled to 905 nm with Kim's
 *   exponent q(V)); rain from a Marshall–Palmer drop spectrum (N0 = 8000
 *   m⁻³mm⁻¹, Λ = 4.1·R^−0.21 mm⁻¹) with extinction efficiency 2:
 *   a_rain = π·N0·Λ⁻³ = 3.67e-4·rate^0.63 m⁻¹.
 * - CARLA intensity: I = exp(−atmos_atten_per_m · R)·T_w(R) (materials
 *   ignored), T_w(R) = exp(−2·(fog + rain)·R) the weather's two-way
 *   transmission (1 in clear air: CARLA's own formula), so CARLA's
 *   intensity drop-off sees the weather.
 * - Cosine "intensity": I = |cos θ| of the surface hit (what CARLA's
 *   semantic lidar reports as cos_inc_angle); weighted by sub-ray energy.
 * - Beam divergence: beam_subrays (1, 7, 19 or 37) rays on hexagonal rings
 *   filling an ellipse of the given full angles (1/e² full angles; a
 *   datasheet FWHM converts as 1/e² = 1.6986 × FWHM), weighted by a Gaussian
 *   whose 1/e² contour is that ellipse. Every sub-ray, layer and bounce
 *   counts (nothing is capped).
 * - Echo merging: each hit stands for the beam patch its sub-ray samples
 *   (angular cell δ = max divergence / 2 / rings), which on a surface at
 *   incidence θ spreads the echo over R·tanθ·δ of range, widened by the
 *   pulse (c·pulse_width_ns/2). Hits sorted by range join one return while
 *   the next echo starts less than range_resolution_m after the group's
 *   end: a beam on slanted ground is one return with the beam's intensity;
 *   surfaces further apart than the resolution and pulse give separate
 *   returns (summed energy, energy-weighted range, strongest hit's object).
 * - Transparency τ: the beam continues behind the surface with energy τ².
 * - Ghost multipath: at a surface with specular fraction s, the mirror
 *   direction is followed (up to max_bounces times) carrying the specular
 *   share s of the energy; a hit there is a return at the total path length
 *   R1 + R2 along the original beam, flagged SENSIM_POINT_GHOST, carrying
 *   the reflected object's id and tag, intensity s × the second surface's
 *   over the whole path (glossy paint, s = 0.1, keeps its direct return).
 * - Rain droplets (rain_false_returns): a droplet of diameter D at range r
 *   returns I = 0.02·(D / beam diameter)²·T(r)·(R0/max(r,R0))² (0.02: water's
 *   Fresnel reflectance); drops above the detection threshold arrive along the
 *   beam as a Poisson process over the Marshall–Palmer spectrum; the first one
 *   before the target (within 50 m) becomes a return with tag 0, object 0 and
 *   flag SENSIM_POINT_WEATHER.
 * - Return selection by return_mode, then per point: min/max range, range
 *   noise σ = range_noise_stddev_m + range_noise_per_m·R along the beam,
 *   drop-out, and the point placed along the nominal beam direction (beam
 *   pointing jitter of σ angular_jitter_rad moves the traced ray only).
 * - CARLA drop-out: a shot is dropped before tracing with probability
 *   dropoff_general_rate; a return with I ≤ dropoff_intensity_limit is kept
 *   with probability 1 − z + z·I/limit (z = dropoff_zero_intensity).
 * - Physical detection (default): the receiver's noise is shot-noise
 *   limited, σ(I) = detect_noise·√(I / detect_threshold); a return is
 *   detected with probability Φ((I − detect_threshold) / σ(I)), and never
 *   when I = 0 (no light, no detection). Half are detected at the threshold,
 *   fewer than 1e-7 below a ninth of it. Detection range of a target of
 *   reflectivity ρ at normal incidence (50 %): ρ·(R0/R)²·exp(−2aR) =
 *   detect_threshold; with fog of visibility V = 50 m a 35 % wall is seen
 *   to 32.6 m and never beyond 43.1 m (two-way transmission at R = V is
 *   0.02², Koschmieder's 2 % contrast squared). SENSIM_DROPOFF_NONE reports
 *   every hit, however faint.
 * Every random draw is a counter hash of (seed, lidar id, shot, sub-ray,
 * purpose): independent of threads and call splits.
 */
typedef struct sensim_return_desc {
    int32_t intensity_model;         /**< SENSIM_INTENSITY_* */
    float intensity_ref_range_m;     /**< R0, metres (> 0); 0 = 10 */
    float extinction_per_m;          /**< clear-air extinction a, 1/m (>= 0) */
    float visibility_m;              /**< fog visibility, metres (0 = no fog; else >= 10) */
    float rain_rate_mm_h;            /**< rain rate, mm/h (0 = none, <= 500) */
    int32_t rain_false_returns;      /**< 1: droplet returns in rain */
    int32_t dropoff_model;           /**< SENSIM_DROPOFF_* */
    float dropoff_general_rate;      /**< CARLA, [0, 1] */
    float dropoff_intensity_limit;   /**< CARLA, (0, 1] */
    float dropoff_zero_intensity;    /**< CARLA, [0, 1] */
    float detect_threshold;          /**< physical drop-out and droplets, intensity (>= 0); 0 = 0.0002 (a 10 % target at 200 m with R0 = 10 m) */
    float detect_noise;              /**< physical drop-out, intensity σ (> 0); 0 = 0.0001 */
    float range_noise_per_m;         /**< extra range σ per metre of range (>= 0) */
    float angular_jitter_rad;        /**< beam pointing jitter σ, radians (>= 0) */
    int32_t max_bounces;             /**< specular bounces followed, 0..4; −1 = default 1 */
    float beam_divergence_h_rad;     /**< full angle, radians (>= 0) */
    float beam_divergence_v_rad;     /**< full angle, radians (>= 0) */
    uint32_t beam_subrays;           /**< 0 or 1 = single ray; 7, 19 or 37 */
    int32_t return_mode;             /**< SENSIM_RETURN_* */
    float range_resolution_m;        /**< separation of distinct returns (> 0); 0 = 0.1 */
    float pulse_width_ns;            /**< laser pulse width τ, ns, [0, 1000]: echoes closer than c·τ/2 merge; 0 = none */
    uint32_t reserved_u32; /**< reserved: 0 */
    uint64_t reserved[7]; /**< reserved: 0 */
} sensim_return_desc;

/** Lidar description; fill with sensim_lidar_desc_init(). */
typedef struct sensim_lidar_desc {
    /** Preset / model name for headers and logs (copied, truncated to 31 chars). */
    const char *name;
    /** SENSIM_PATTERN_* (default MECHANICAL). */
    int32_t pattern;
    /** Channels (lasers), 1..SENSIM_MAX_CHANNELS. */
    uint32_t channel_count;
    /** Elevation per channel, radians, in (-π/2, π/2); copied. Required for
     *  MECHANICAL; for RISLEY the lasers' tilts (NULL = 0); unused otherwise. */
    const float *elevation_rad;
    /** Azimuth offset per channel, radians, |v| < π; NULL = zeros; copied. */
    const float *azimuth_offset_rad;
    /** Firing delay per channel after its column time, ns, 0 <= v < column period; NULL = zeros. */
    const int32_t *firing_offset_ns;
    /** Rotation rate, Hz, in [0.25, 1000]. 0 = 10 Hz. */
    double rotation_hz;
    /** Shots per second summed over channels (> 0). MECHANICAL: ignored when
     *  azimuth_resolution_rad > 0. Sequence patterns: required. */
    double shots_per_s;
    /** Azimuth step between columns, radians (> 0 selects this over shots_per_s). */
    double azimuth_resolution_rad;
    /** Horizontal field of view, radians, (0, 2π]. 0 = 2π. */
    double hfov_rad;
    /** Azimuth of the first column of each frame, radians. */
    double start_azimuth_rad;
    /** SENSIM_SPIN_CW (default; 0 also means CW) or SENSIM_SPIN_CCW. */
    int32_t spin;
    /** Returns nearer than this are discarded, metres (>= 0). */
    float min_range_m;
    /** Returns farther than this are discarded, metres. 0 = 100 m. */
    float max_range_m;
    /** Gaussian range noise sigma, metres (>= 0), seeded per shot (see ret). */
    float range_noise_stddev_m;
    /** a of the CARLA intensity model exp(-a · range), 1/m (>= 0).
     *  sensim_lidar_desc_init sets 0.004 (CARLA's default). */
    float atmos_atten_per_m;
    /** Sensor-to-platform transform, column-major; all zero = identity. */
    double mount_pose[16];
    /** Id written into frame headers and mixed into the random stream. */
    uint32_t lidar_id;
    /** Seed of every random decision (noise, jitter, drop-out, ghosts, droplets). */
    uint64_t seed;
    /** Sequence patterns: frames per second (0 = 10). */
    double frame_rate_hz;
    /** SENSIM_POINTS_SENSOR (default), SENSIM_POINTS_DESKEWED or SENSIM_POINTS_WORLD. */
    int32_t points_frame;
    /** Return model (sensim_lidar_desc_init sets the defaults). */
    sensim_return_desc ret;
    /** SENSIM_PATTERN_TABLE data (copied at creation). */
    sensim_table_desc table;
    /** SENSIM_PATTERN_RISLEY parameters; lasers are the channels. */
    sensim_risley_desc risley;
    /** SENSIM_PATTERN_MEMS parameters; channel_count must be 10. */
    sensim_mems_desc mems;
    /** SENSIM_PATTERN_CALLBACK function and its user pointer (borrowed for
     *  the lidar's life). */
    sensim_shot_fn shot_fn;
    void *shot_user; /**< passed to shot_fn; borrowed for the lidar's life */
    /** MECHANICAL free-running firing: a column fires every column_period_ns
     *  (ns, fractional allowed, resolved to 1 ps; [1, 1e9]) whatever the
     *  revolution, as Velodyne's firing cycle (VLP-16: 55.296 µs). Column m
     *  fires at floor(m · round(1000·column_period_ns) / 1000) ns and its
     *  head angle is start_azimuth + spin · 2π · (t mod P) / P. Columns whose
     *  head angle is beyond hfov produce no beam. 0 = revolution-locked
     *  (C columns per revolution, below). */
    double column_period_ns;
    /** MECHANICAL: 1 = every channel of a column fires at the column time
     *  (CARLA/PCSim "column firing"; firing_offset_ns ignored); 0 = each
     *  channel at its firing offset. */
    int32_t column_firing;
    /** MECHANICAL, revolution-locked, hfov < 2π: SENSIM_SWEEP_REVOLUTION (0)
     *  = the head turns the whole circle each period and fires inside hfov
     *  only (a real sensor's blanking); SENSIM_SWEEP_SECTOR (1) = the columns
     *  sweep hfov once per period, start_azimuth to start + spin·hfov, every
     *  column of the period inside it (CARLA's ray_cast lidar with
     *  horizontal_fov < 360: the sector scanned rotation_hz times a second
     *  with all of points_per_second). Since 0.2 (was reserved_u32). */
    uint32_t sweep;
    /** MECHANICAL: distance of the beam origin from the rotation axis, metres,
     *  [0, 1], along the head angle of the column (Ouster's
     *  lidar_origin_to_beam_origin_mm / 1000). Rays start there; range_m is
     *  measured from it (Ouster's raw range is range_m + this offset). */
    double beam_origin_offset_m;
    uint64_t reserved[5]; /**< reserved: 0 */
} sensim_lidar_desc;

#define SENSIM_SWEEP_REVOLUTION 0 /**< sensim_lidar_desc.sweep: the whole circle, firing inside hfov */
#define SENSIM_SWEEP_SECTOR     1 /**< sensim_lidar_desc.sweep: hfov swept once per period (CARLA) */

/** Fill @p desc with defaults. Thread safety: any thread. Since 0.1. */
SENSIM_API void sensim_lidar_desc_init(sensim_lidar_desc *desc);

/**
 * Create a lidar. All arrays are copied. The scratch of a block of shots
 * is allocated here; each worker thread's lane scratch (about 250 KB, 440 KB
 * for a spinning lidar of more than 64 channels, 1.5 MB for a MEMS
 * pattern, plus beam sub-rays; 63 KB of each are a moving sensor's pose
 * slots and spans) by the first scan that
 * runs on that many threads, so later scans allocate nothing.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE
 *         (message names the field and value), SENSIM_ERR_NOT_FINITE,
 *         SENSIM_ERR_EMPTY (0 channels), SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_lidar_create(sensim_context *ctx, const sensim_lidar_desc *desc,
                                             sensim_lidar **out_lidar);

/**
 * Create a lidar from a preset file (format in scan_patterns/README.md).
 * @param name_or_path  a preset name ("vlp16", looked up as NAME.preset in
 *        the preset search path) or a path to a preset file; borrowed.
 * @param overrides     "key=value" strings applied after the file, as if
 *        appended to it (NULL when count is 0); borrowed.
 * @return SENSIM_OK, SENSIM_ERR_NOT_FOUND, SENSIM_ERR_IO, SENSIM_ERR_PARSE,
 *         SENSIM_ERR_UNKNOWN_KEY, SENSIM_ERR_OUT_OF_RANGE, SENSIM_ERR_NOT_FINITE,
 *         and those of sensim_lidar_create(). Messages name file and line
 *         (or "override N").
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_lidar_create_from_preset(sensim_context *ctx,
                                                         const char *name_or_path,
                                                         const char *const *overrides,
                                                         uint32_t override_count,
                                                         sensim_lidar **out_lidar);

/**
 * Register a pattern under @p name on @p ctx so that
 * sensim_lidar_create_from_preset(ctx, name, ...) finds it before any preset
 * file, with the same overrides (scalar keys of scan_patterns/README.md).
 * The descriptor and its arrays are copied (validated by creating a lidar
 * from it); a callback's user pointer is borrowed for the context's life.
 * Registering an existing name replaces it.
 * @param name  1..31 characters of a-z 0-9 _ -.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (name), SENSIM_ERR_TOO_LARGE
 *         (more than 64 registered), the statuses of sensim_lidar_create().
 * Thread safety: not concurrently with other calls on the same context. Since 0.1.
 */
SENSIM_API sensim_status sensim_context_register_pattern(sensim_context *ctx, const char *name,
                                                         const sensim_lidar_desc *desc);

/**
 * Directory @p index of the preset search path: the directories of
 * $SENSIM_PRESET_PATH (colon-separated) in order, then the source tree's
 * scan_patterns/ only when the library runs from its build tree, then the
 * installed data directory (an installed library never reads the build
 * machine's source tree).
 * Returns NULL past the end. Static or environment text; do not free.
 * Thread safety: any thread (not while the environment changes). Since 0.1.
 */
SENSIM_API const char *sensim_preset_search_dir(uint32_t index);

/** Destroy a lidar. NULL is a no-op. A scan of it already running on another
 * thread is waited for (its scratch is not freed under it); using the handle
 * after destroy has begun is undefined. Thread safety: any thread. Since 0.1. */
SENSIM_API void sensim_lidar_destroy(sensim_lidar *lidar);

/** Derived figures of a lidar. */
typedef struct sensim_lidar_info {
    char name[32];                    /**< the preset's or description's name, NUL-terminated */
    uint32_t channel_count;           /**< lasers (channels) */
    uint32_t columns_per_revolution;  /**< C (mechanical; free-running: ceil(P / column period); 0 otherwise) */
    uint32_t columns_per_frame;       /**< columns inside the FOV (mechanical, free-running: an upper bound; 0 otherwise) */
    uint64_t shots_per_frame;         /**< most shots any frame holds (exact for revolution-locked mechanical) */
    double shots_per_s;               /**< effective, after rounding C */
    double frame_rate_hz;             /**< 1e9 / frame_period_ns */
    int64_t frame_period_ns;          /**< frame (revolution, pattern period) length, ns */
    float min_range_m;                /**< nearer returns are not reported, metres */
    float max_range_m;                /**< farther returns are not reported, metres */
    uint32_t lidar_id;                /**< written to frame headers */
    int32_t pattern;                  /**< SENSIM_PATTERN_* */
    uint64_t table_size;              /**< TABLE: entries in one pass */
    /** Most points one frame can hold: shots_per_frame × 2 (the return
     *  model writes at most two records a shot: dual returns, a ghost or a
     *  rain droplet beside the direct return). Size rings by this, not by
     *  shots_per_frame (sensim_lidar_ring_size()). */
    uint64_t max_points_per_frame;
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_lidar_info;

/**
 * Query derived figures. @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT.
 * Thread safety: any thread, not during destroy. Since 0.1.
 */
SENSIM_API sensim_status sensim_lidar_get_info(const sensim_lidar *lidar,
                                               sensim_lidar_info *out_info);

/**
 * Ring memory for @p frame_capacity whole frames of @p lidar (1..2^24):
 * point capacity = max_points_per_frame × frame_capacity, so no frame of this
 * lidar can overflow a ring of that size whatever its return mode, ghosts or
 * rain. Pass both outputs to sensim_ring_init().
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE,
 *         SENSIM_ERR_TOO_LARGE, SENSIM_ERR_BAD_HANDLE.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_lidar_ring_size(const sensim_lidar *lidar, uint32_t frame_capacity,
                                                uint64_t *out_point_capacity, size_t *out_bytes);

/**
 * Copy the per-channel elevations (radians) into @p dst; with dst NULL only
 * the count is returned.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_TOO_LARGE (capacity short).
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_lidar_get_elevations(const sensim_lidar *lidar, float *dst,
                                                     uint32_t capacity, uint32_t *out_count);

/**
 * Number of shots whose firing time lies in [t_begin_ns, t_end_ns).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_TIME_ORDER.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_lidar_count_shots(const sensim_lidar *lidar, int64_t t_begin_ns,
                                                  int64_t t_end_ns, uint64_t *out_shots);

/**
 * Replace the sensor-to-platform mount transform (column-major, copied).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_NOT_FINITE,
 *         SENSIM_ERR_OUT_OF_RANGE (translation beyond ±1e9 m, linear element
 *         beyond ±1e6, last row not 0 0 0 1), SENSIM_ERR_BUSY (a scan of
 *         this lidar runs on another thread).
 * Thread safety: any thread; refused during a scan of this lidar. Since 0.1.
 */
SENSIM_API sensim_status sensim_lidar_set_mount_pose(sensim_lidar *lidar, const double pose[16]);

/** Bound of sensim_lidar_set_shot_offset (10^15 shots: 16 years at 2 M shots a second). */
#define SENSIM_SHOT_OFFSET_MAX INT64_C(1000000000000000)

/**
 * Run the pattern ahead of (@p shots > 0) or behind (< 0) its clock, from
 * the next scan on: shot g, fired at its own time t(g) as always, takes the
 * direction, channel, beam origin and validity of the pattern's shot
 * g + @p shots. Times, frames, drop-out and noise keep following g (a
 * scan's shots are the same in number and time; only where they point
 * moves). 0, the default, is the pattern itself. What it is for: a host that
 * pauses a lidar between measurements (CARLA's sensor_tick, where each
 * measurement holds one world tick of shots and the next continues the
 * sweep where this one stopped) moves the pattern back by the shots of the
 * ticks it skipped. Give a whole number of columns (the shots of a column:
 * channel_count for mechanical patterns) to keep each time with its own
 * channel's firing offset.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL), SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_OUT_OF_RANGE (|shots| > SENSIM_SHOT_OFFSET_MAX),
 *         SENSIM_ERR_BUSY (a scan of this lidar runs on another thread).
 * Thread safety: any thread; refused during a scan of this lidar. Since 0.2.
 */
SENSIM_API sensim_status sensim_lidar_set_shot_offset(sensim_lidar *lidar, int64_t shots);

/**
 * Change the weather the lidar sees, from the next scan on: fog of
 * visibility @p visibility_m (metres; 0 = no fog, else [10, 1e6]) and rain
 * of @p rain_rate_mm_h (mm/h, [0, 500]), as the description's
 * ret.visibility_m and ret.rain_rate_mm_h (formulas at sensim_return_desc:
 * extinction in the physical and CARLA intensity models, droplet returns
 * when rain_false_returns is on). A scan after the change gives the points a
 * lidar created with that weather gives. A rig's lidar: between steps.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL), SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_NOT_FINITE, SENSIM_ERR_OUT_OF_RANGE (message names the
 *         field; the weather is then unchanged), SENSIM_ERR_OUT_OF_MEMORY,
 *         SENSIM_ERR_BUSY (a scan of this lidar runs on another thread).
 * Thread safety: any thread; refused during a scan of this lidar. Since 0.2.
 */
SENSIM_API sensim_status sensim_lidar_set_weather(sensim_lidar *lidar, float visibility_m, float rain_rate_mm_h);

/**
 * Forget where the previous scan ended, so the next sensim_lidar_scan may
 * start at any time, as on a new lidar (a placement search scans the same
 * span from many poses with one lidar). A scan after a rewind gives the
 * points a new lidar of the same description gives for the same call. A frame
 * that a scan left open in a ring is not continued: rewind with its frames
 * complete (scans ending on frame boundaries) or use another ring.
 * A Risley or MEMS lidar keeps its pattern's shots from time 0 to where the
 * previous scan ended (up to 32 MB, 23 bytes a shot: 1.4 M shots; computed
 * here once, O(shots)), and later scans replay them instead of tracing the
 * prisms or carriers again: the same bits, a placement search's mid40
 * candidates at 1.6 x the rate. Kept until the lidar is destroyed.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL), SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_BUSY (a scan of this lidar runs on another thread).
 * Thread safety: any thread; refused during a scan of this lidar. Since 0.2.
 */
SENSIM_API sensim_status sensim_lidar_rewind(sensim_lidar *lidar);

/** The sensor-to-platform mount transform (column-major) into @p out_pose.
 *  @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_BAD_HANDLE.
 *  Thread safety: not while sensim_lidar_set_mount_pose runs. Since 0.1. */
SENSIM_API sensim_status sensim_lidar_get_mount_pose(const sensim_lidar *lidar, double out_pose[16]);

/** A timed platform pose. */
typedef struct sensim_pose_key {
    int64_t t_ns;      /**< time, ns */
    double pose[16];   /**< platform-to-world, column-major, rigid */
} sensim_pose_key;

/**
 * Platform motion for one scan call: the pose at each shot's firing time is
 * interpolated between the keys — by default position linearly and rotation
 * by slerp (exact for constant linear and angular velocity), or with
 * @ref sensim_motion::interp = SENSIM_INTERP_CAUSAL (sensim/nav.h) by the rig's motion
 * model over these keys (give the 4 keys before the span too: a key's
 * derivatives come from it and the 4 before it in the array); before the
 * first key or after the last the nearest key's pose is held. Within 250 us
 * spans of the world clock (k x 250 us) that hold no key, a shot's pose is
 * a quadratic through the span's exact poses, within 1e-10 of the model
 * in rotation and 1e-8 m in position (checked per span, exact where it
 * would not hold): a function of the shot's time alone, so the same for
 * any thread count and any way the calls split time. Frame headers carry
 * the exact pose.
 */
typedef struct sensim_motion {
    const sensim_pose_key *keys; /**< 1..64 keys, strictly increasing times; borrowed for the call */
    uint32_t key_count;          /**< entries of keys */
    uint32_t interp;             /**< 0 = SENSIM_INTERP_LINEAR, or SENSIM_INTERP_CAUSAL (others refused with
                                      SENSIM_ERR_INVALID_ARGUMENT). Since 0.2 (was reserved) */
    uint64_t world_step;         /**< host world step, written to frame headers (0 if unused) */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_motion;

/** Where points are expressed (sensim_lidar_desc.points_frame). */
#define SENSIM_POINTS_SENSOR   0 /**< sensor frame at the shot's firing time (raw, distorted like a real sensor) */
#define SENSIM_POINTS_DESKEWED 1 /**< sensor frame at the frame header's pose (motion removed) */
#define SENSIM_POINTS_WORLD    2 /**< world frame */

/**
 * Two keys for constant motion over [t0_ns, t1_ns]: linear velocity
 * @p v_world (m/s, world frame) and angular velocity @p w_body (rad/s,
 * platform frame) starting from @p pose at t0.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_NOT_FINITE, SENSIM_ERR_TIME_ORDER.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_motion_from_velocity(const double pose[16], int64_t t0_ns, int64_t t1_ns,
                                                     const double v_world[3], const double w_body[3],
                                                     sensim_pose_key out_keys[2]);

/**
 * Pose at @p t_ns of a key list (same interpolation as scans).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, 0 or > 64 keys),
 *         SENSIM_ERR_TIME_ORDER (times not increasing), SENSIM_ERR_NOT_FINITE.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_motion_pose_at(const sensim_pose_key *keys, uint32_t key_count, int64_t t_ns,
                                               double out_pose[16]);

/** Summary of one scan call. */
typedef struct sensim_scan_result {
    uint64_t shots;            /**< shots fired in the interval */
    uint64_t points;           /**< points written to the ring */
    uint64_t frames_completed; /**< frames published by this call */
    uint64_t points_lost;      /**< points lost to overflow in this call (DROP_OLDEST) */
    /** Rays traced in this call: one a shot traced (not a shot dropped
     *  before tracing by the CARLA general drop-off, nor a beam the pattern
     *  loses, such as one totally reflected inside a prism), its beam sub-rays
     *  (beam_subrays - 1 more), and every reflection and transmission the
     *  return model followed (mirror rays off specular surfaces such as car
     *  paint, rays through transparent ones). rays_traced / shots above
     *  beam_subrays is the return model's own tracing (ghosts). */
    uint64_t rays_traced;
    uint64_t reserved[3]; /**< reserved: 0 */
} sensim_scan_result;

/**
 * Fire exactly the shots whose firing time lies in [t_begin_ns, t_end_ns)
 * into @p scene and write the returns into @p ring.
 *
 * Points are in the sensor frame at the shot's firing time, ordered by firing
 * time, then channel (within a column, by firing offset). A frame is published when the call passes its end time;
 * an unfinished frame stays open in the ring and the next call continues it.
 * Time must not go backwards: t_begin_ns must be >= the previous call's
 * t_end_ns (a gap is allowed; frames that miss time get SENSIM_FRAME_PARTIAL).
 *
 * @param scene          committed scene, borrowed for the call.
 * @param platform_pose  platform-to-world, column-major double[16], used for
 *                       every shot of the interval (borrowed).
 * @param ring           destination ring; use one ring per lidar.
 * @param out_result     optional summary (may be NULL).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_NOT_COMMITTED,
 *         SENSIM_ERR_TIME_ORDER, SENSIM_ERR_NOT_FINITE (pose),
 *         SENSIM_ERR_OUT_OF_RANGE (a pose or mount translation beyond ±1e9 m
 *         or linear element beyond ±1e6; a time beyond ±2^62 ns or beyond
 *         where this pattern's shot index fits int64),
 *         SENSIM_ERR_RING_FULL (FAIL policy: nothing written, lidar
 *         unchanged; the scan stops tracing at the first chunk that no
 *         longer fits), SENSIM_ERR_CANCELLED (sensim_context_set_cancel():
 *         nothing written, lidar unchanged), SENSIM_ERR_BUSY (the lidar is
 *         scanning on another thread, or the scene is being edited),
 *         SENSIM_ERR_BAD_HANDLE (ring memory not initialised),
 *         SENSIM_ERR_OUT_OF_MEMORY (the lane scratch of more threads than
 *         any scan before: nothing written, lidar unchanged).
 * Output is bit-identical for any thread count and any split of time.
 * Thread safety: one call at a time per lidar (a second concurrent call is
 * refused with SENSIM_ERR_BUSY) and per ring; several lidars may scan one
 * committed scene concurrently. Allocates only the lane scratch, on the
 * first call with more threads than before (see sensim_lidar_create()).
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_lidar_scan(sensim_lidar *lidar, const sensim_scene *scene,
                                           int64_t t_begin_ns, int64_t t_end_ns,
                                           const double platform_pose[16], sensim_ring *ring,
                                           sensim_scan_result *out_result);

/**
 * sensim_lidar_scan() with platform motion: each shot uses the platform pose
 * interpolated at its own firing time, and moving actors are where they are
 * at that time (see sensim_scene_set_actor_motion). Same statuses as
 * sensim_lidar_scan(), plus SENSIM_ERR_TIME_ORDER / SENSIM_ERR_INVALID_ARGUMENT
 * for bad keys. Same-keys calls are split invariant: scanning [a,c) or
 * [a,b)+[b,c) with the same key list gives the same bytes.
 * Thread safety: as sensim_lidar_scan(). Since 0.1.
 */
SENSIM_API sensim_status sensim_lidar_scan_motion(sensim_lidar *lidar, const sensim_scene *scene,
                                                  int64_t t_begin_ns, int64_t t_end_ns,
                                                  const sensim_motion *motion, sensim_ring *ring,
                                                  sensim_scan_result *out_result);

#ifdef __cplusplus
}
#endif

#endif
