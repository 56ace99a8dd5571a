/* The return model's set-up from a lidar description: checks, the
 * calibration, extinction (fog, rain), the rain-drop table, the sub-ray
 * rings, the detection's erfc grid (sensim__returns_init; the model per
 * shot: returns.c). */
#include "returns.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double fog_extinction(double vis_m)
{
    double v = vis_m / 1000.0, q;
    if (v > 50)
        q = 1.6;
    else if (v > 6)
        q = 1.3;
    else if (v > 1)
        q = 0.16 * v + 0.34;
    else if (v > 0.5)
        q = v - 0.5;
    else
        q = 0.0;
    return 3.912 / vis_m * pow(905.0 / 550.0, -q);
}

#define CHECK_RANGE(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, __VA_ARGS__);                             \
    } while (0)

sensim_status sensim__returns_init(sensim_return_params *rp, const sensim_lidar_desc *desc)
{
    memset(rp, 0, sizeof *rp);
    sensim_return_desc d = desc->ret;
    const float f[] = {d.intensity_ref_range_m, d.extinction_per_m, d.visibility_m, d.rain_rate_mm_h,
                       d.dropoff_general_rate, d.dropoff_intensity_limit, d.dropoff_zero_intensity,
                       d.detect_threshold, d.detect_noise, d.range_noise_per_m, d.angular_jitter_rad,
                       d.beam_divergence_h_rad, d.beam_divergence_v_rad, d.range_resolution_m, d.pulse_width_ns};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!isfinite(f[i]))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "lidar: a return-model parameter is NaN or infinite");
    if (d.intensity_ref_range_m == 0)
        d.intensity_ref_range_m = 10.0f;
    if (d.detect_threshold == 0)
        d.detect_threshold = 0.0002f;
    if (d.detect_noise == 0)
        d.detect_noise = 0.0001f;
    if (d.range_resolution_m == 0)
        d.range_resolution_m = 0.1f;
    for (int k = 0; k < SENSIM_ERFC_N; k++)
        rp->erfc_grid[k] = erfc((double)k / SENSIM_ERFC_STEP - SENSIM_ERFC_W);
    if (d.max_bounces == -1)
        d.max_bounces = 1;
    if (d.beam_subrays == 0)
        d.beam_subrays = 1;
    CHECK_RANGE(d.intensity_model >= SENSIM_INTENSITY_PHYSICAL && d.intensity_model <= SENSIM_INTENSITY_COSINE,
                "lidar: intensity_model = %d unknown", d.intensity_model);
    CHECK_RANGE(d.dropoff_model >= SENSIM_DROPOFF_NONE && d.dropoff_model <= SENSIM_DROPOFF_PHYSICAL,
                "lidar: dropoff_model = %d unknown", d.dropoff_model);
    CHECK_RANGE(d.return_mode >= SENSIM_RETURN_STRONGEST && d.return_mode <= SENSIM_RETURN_DUAL,
                "lidar: return_mode = %d unknown", d.return_mode);
    CHECK_RANGE(d.intensity_ref_range_m > 0 && d.intensity_ref_range_m <= 1e4f,
                "lidar: intensity_ref_range_m = %g outside (0, 1e4]", (double)d.intensity_ref_range_m);
    CHECK_RANGE(d.extinction_per_m >= 0 && d.extinction_per_m < 10, "lidar: extinction_per_m = %g outside [0, 10)",
                (double)d.extinction_per_m);
    CHECK_RANGE(d.visibility_m == 0 || (d.visibility_m >= 10 && d.visibility_m <= 1e6f),
                "lidar: visibility_m = %g outside {0} u [10, 1e6]", (double)d.visibility_m);
    CHECK_RANGE(d.rain_rate_mm_h >= 0 && d.rain_rate_mm_h <= 500, "lidar: rain_rate_mm_h = %g outside [0, 500]",
                (double)d.rain_rate_mm_h);
    CHECK_RANGE(d.dropoff_general_rate >= 0 && d.dropoff_general_rate <= 1,
                "lidar: dropoff_general_rate = %g outside [0, 1]", (double)d.dropoff_general_rate);
    CHECK_RANGE(d.dropoff_zero_intensity >= 0 && d.dropoff_zero_intensity <= 1,
                "lidar: dropoff_zero_intensity = %g outside [0, 1]", (double)d.dropoff_zero_intensity);
    CHECK_RANGE(d.dropoff_intensity_limit >= 0 && d.dropoff_intensity_limit <= 1,
                "lidar: dropoff_intensity_limit = %g outside [0, 1]", (double)d.dropoff_intensity_limit);
    CHECK_RANGE(d.detect_threshold >= 0 && d.detect_threshold <= 1 && d.detect_noise > 0 && d.detect_noise <= 1,
                "lidar: detect_threshold %g / detect_noise %g outside [0, 1] / (0, 1]", (double)d.detect_threshold,
                (double)d.detect_noise);
    CHECK_RANGE(d.range_noise_per_m >= 0 && d.range_noise_per_m < 1, "lidar: range_noise_per_m = %g outside [0, 1)",
                (double)d.range_noise_per_m);
    CHECK_RANGE(d.angular_jitter_rad >= 0 && d.angular_jitter_rad < 0.1f,
                "lidar: angular_jitter_rad = %g outside [0, 0.1)", (double)d.angular_jitter_rad);
    CHECK_RANGE(d.max_bounces >= 0 && d.max_bounces <= 4, "lidar: max_bounces = %d outside -1..4", d.max_bounces);
    CHECK_RANGE(d.beam_divergence_h_rad >= 0 && d.beam_divergence_h_rad < 0.2f && d.beam_divergence_v_rad >= 0 &&
                    d.beam_divergence_v_rad < 0.2f,
                "lidar: beam divergence (%g, %g) rad outside [0, 0.2)", (double)d.beam_divergence_h_rad,
                (double)d.beam_divergence_v_rad);
    CHECK_RANGE(d.beam_subrays == 1 || d.beam_subrays == 7 || d.beam_subrays == 19 || d.beam_subrays == 37,
                "lidar: beam_subrays = %u must be 1, 7, 19 or 37", d.beam_subrays);
    CHECK_RANGE(d.range_resolution_m > 0 && d.range_resolution_m <= 100, "lidar: range_resolution_m = %g outside (0, 100]",
                (double)d.range_resolution_m);
    CHECK_RANGE(d.pulse_width_ns >= 0 && d.pulse_width_ns <= 1000, "lidar: pulse_width_ns = %g outside [0, 1000]",
                (double)d.pulse_width_ns);
    CHECK_RANGE(d.dropoff_model != SENSIM_DROPOFF_CARLA || d.dropoff_intensity_limit > 0,
                "lidar: CARLA drop-off needs dropoff_intensity_limit > 0");
    rp->d = d;
    rp->r0 = d.intensity_ref_range_m;
    rp->ext_per_m = d.extinction_per_m;
    if (d.visibility_m > 0)
        rp->weather_ext_per_m += fog_extinction(d.visibility_m);
    double lam = 0;
    if (d.rain_rate_mm_h > 0) {
        lam = 4.1 * pow(d.rain_rate_mm_h, -0.21); /* 1/mm */
        rp->weather_ext_per_m += SENSIM_PI * SENSIM_RAIN_N0 * 1e-6 / (lam * lam * lam);
    }
    rp->ext_per_m += rp->weather_ext_per_m;
    /* sub-rays on hexagonal rings, Gaussian weights with 1/e^2 at the divergence edge */
    uint32_t rings = d.beam_subrays == 1 ? 0 : d.beam_subrays == 7 ? 1 : d.beam_subrays == 19 ? 2 : 3, n = 0;
    double wsum = 0;
    for (uint32_t k = 0; k <= rings; k++) {
        uint32_t m = k == 0 ? 1 : 6 * k;
        double rho = rings ? (double)k / rings : 0.0;
        for (uint32_t j = 0; j < m; j++) {
            double phi = 2 * SENSIM_PI * j / m;
            rp->sub_h[n] = (float)(0.5 * d.beam_divergence_h_rad * rho * cos(phi));
            rp->sub_v[n] = (float)(0.5 * d.beam_divergence_v_rad * rho * sin(phi));
            rp->sub_w[n] = (float)exp(-2.0 * rho * rho);
            wsum += rp->sub_w[n];
            n++;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        rp->sub_w[i] = (float)(rp->sub_w[i] / wsum);
        rp->tan_h[i] = tan((double)rp->sub_h[i]);
        rp->tan_v[i] = tan((double)rp->sub_v[i]);
    }
    rp->nsub = n;
    /* angular cell one sub-ray samples: the ring spacing along the wider axis */
    rp->cell_rad = rings ? 0.5 * fmax(d.beam_divergence_h_rad, d.beam_divergence_v_rad) / rings : 0.0;
    rp->pulse_half_m = 0.25 * 0.299792458 * d.pulse_width_ns; /* echoes closer than c·τ/2 overlap */
    if (d.rain_false_returns && d.rain_rate_mm_h > 0) {
        double theta = 0.5 * (d.beam_divergence_h_rad + d.beam_divergence_v_rad);
        if (theta <= 0)
            theta = 3e-3;
        rp->rain_dr = SENSIM_RAIN_MAX_RANGE / SENSIM_RAIN_STEPS;
        rp->rain_lambda_mm = lam;
        double prev = 0;
        rp->rain_cum[0] = 0;
        for (int k = 0; k <= SENSIM_RAIN_STEPS; k++) {
            double r = k * rp->rain_dr, b = SENSIM_BEAM_WAIST_M + 0.5 * theta * r;
            double denom = SENSIM_WATER_FRESNEL * exp(-2 * rp->ext_per_m * r) * sensim__returns_calib(rp, r);
            double dmin_mm = 2000.0 * b * sqrt(d.detect_threshold / denom);
            double rate = SENSIM_PI * b * b * (SENSIM_RAIN_N0 / lam) * exp(-lam * dmin_mm); /* drops per metre */
            if (k > 0)
                rp->rain_cum[k] = rp->rain_cum[k - 1] + 0.5 * (prev + rate) * rp->rain_dr;
            prev = rate;
        }
    }
    return SENSIM_OK;
}

sensim_status sensim__returns_set_weather(sensim_return_params *rp, float visibility_m, float rain_rate_mm_h)
{
    sensim_lidar_desc d;
    memset(&d, 0, sizeof d);
    d.ret = rp->d;
    d.ret.visibility_m = visibility_m;
    d.ret.rain_rate_mm_h = rain_rate_mm_h;
    sensim_return_params *w = malloc(sizeof *w);
    if (!w)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_lidar_set_weather: cannot allocate");
    sensim_status st = sensim__returns_init(w, &d);
    if (st == SENSIM_OK) { /* what the weather decides; the rest (ranges, seeds, noise, the log) stays */
        rp->d = w->d;
        rp->ext_per_m = w->ext_per_m;
        rp->weather_ext_per_m = w->weather_ext_per_m;
        rp->rain_dr = w->rain_dr;
        rp->rain_lambda_mm = w->rain_lambda_mm;
        memcpy(rp->rain_cum, w->rain_cum, sizeof rp->rain_cum);
    }
    free(w);
    return st;
}
