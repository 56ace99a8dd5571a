/* Pattern metrics and Livox CSV export: evaluate the pattern, no tracing. */
#include "lidar_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CELLS (UINT64_C(1) << 26)

sensim_status sensim_pattern_measure(const sensim_lidar *l, int64_t tb, int64_t te, double bin, const int64_t *dur,
                                     uint32_t ndur, double *cov, uint32_t *density, uint64_t density_cap,
                                     sensim_pattern_stats *out)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    if (!out || (ndur && (!dur || !cov)))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_pattern_measure: NULL argument");
    if (sensim__lidar_check_time(l, tb, "sensim_pattern_measure: t_begin_ns") != SENSIM_OK ||
        sensim__lidar_check_time(l, te, "sensim_pattern_measure: t_end_ns") != SENSIM_OK)
        return SENSIM_ERR_OUT_OF_RANGE;
    if (te < tb)
        return sensim__fail(SENSIM_ERR_TIME_ORDER, "sensim_pattern_measure: t_end_ns < t_begin_ns");
    if (!isfinite(bin) || bin < 1e-4 || bin > 0.5)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_pattern_measure: bin = %g rad outside [1e-4, 0.5]", bin);
    memset(out, 0, sizeof *out);
    uint32_t naz = (uint32_t)ceil(2 * SENSIM_PI / bin - 1e-9), nel = (uint32_t)ceil(SENSIM_PI / bin - 1e-9);
    uint64_t cells = (uint64_t)naz * nel;
    if (cells > MAX_CELLS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_pattern_measure: %llu cells exceed 2^26",
                            (unsigned long long)cells);
    if (density && density_cap < cells)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_pattern_measure: density holds %llu, needs %llu",
                            (unsigned long long)density_cap, (unsigned long long)cells);
    int64_t *first = malloc(cells * sizeof *first);
    if (!first)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_pattern_measure: cannot allocate %llu cells",
                            (unsigned long long)cells);
    for (uint64_t c = 0; c < cells; c++)
        first[c] = INT64_MAX;
    if (density)
        memset(density, 0, cells * sizeof *density);
    const sensim_pattern *p = &l->pat;
    int64_t g0 = sensim__pattern_first_at(p, tb), g1 = sensim__pattern_first_at(p, te);
    double azmin = INFINITY, azmax = -INFINITY, elmin = INFINITY, elmax = -INFINITY, maxoff = 0;
    uint64_t none = 0;
    for (int64_t g = g0; g < g1; g++) {
        int64_t t = sensim__pattern_time(p, g);
        uint16_t ch;
        float d[3];
        if (!sensim__pattern_shot(p, g, t, &ch, d)) {
            none++;
            continue;
        }
        double az = atan2(d[1], d[0]), el = asin(fmax(-1.0, fmin(1.0, d[2]))),
               off = acos(fmax(-1.0, fmin(1.0, d[0])));
        azmin = fmin(azmin, az);
        azmax = fmax(azmax, az);
        elmin = fmin(elmin, el);
        elmax = fmax(elmax, el);
        maxoff = fmax(maxoff, off);
        uint32_t ia = (uint32_t)((az + SENSIM_PI) / bin), ie = (uint32_t)((SENSIM_PI / 2 - el) / bin);
        if (ia >= naz)
            ia = naz - 1;
        if (ie >= nel)
            ie = nel - 1;
        uint64_t c = (uint64_t)ie * naz + ia;
        if (first[c] == INT64_MAX)
            first[c] = t;
        if (density)
            density[c]++;
    }
    uint64_t hit = 0;
    for (uint64_t c = 0; c < cells; c++)
        hit += first[c] != INT64_MAX;
    for (uint32_t i = 0; i < ndur; i++) {
        uint64_t k = 0;
        for (uint64_t c = 0; c < cells; c++)
            k += first[c] != INT64_MAX && first[c] < tb + dur[i];
        cov[i] = hit ? (double)k / (double)hit : 0.0;
    }
    free(first);
    out->shots = (uint64_t)(g1 - g0);
    out->no_beam = none;
    out->shots_per_s = te > tb ? (double)out->shots * 1e9 / (double)(te - tb) : 0.0;
    out->az_min_rad = out->shots > none ? azmin : 0;
    out->az_max_rad = out->shots > none ? azmax : 0;
    out->el_min_rad = out->shots > none ? elmin : 0;
    out->el_max_rad = out->shots > none ? elmax : 0;
    out->full_fov_rad = 2 * maxoff;
    out->az_bins = naz;
    out->el_bins = nel;
    out->bins_hit = hit;
    return SENSIM_OK;
}

sensim_status sensim_pattern_export_csv(const sensim_lidar *l, int64_t tb, int64_t te, const char *path,
                                        uint64_t *out_rows)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    if (!path)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_pattern_export_csv: NULL argument");
    if (sensim__lidar_check_time(l, tb, "sensim_pattern_export_csv: t_begin_ns") != SENSIM_OK ||
        sensim__lidar_check_time(l, te, "sensim_pattern_export_csv: t_end_ns") != SENSIM_OK)
        return SENSIM_ERR_OUT_OF_RANGE;
    if (te < tb)
        return sensim__fail(SENSIM_ERR_TIME_ORDER, "sensim_pattern_export_csv: t_end_ns < t_begin_ns");
    char tmp[4200];
    FILE *f = sensim__create_tmp(path, tmp, sizeof tmp);
    if (!f)
        return strlen(path) > 4000 ? SENSIM_ERR_INVALID_ARGUMENT : SENSIM_ERR_IO;
    fputs("Time/s,Azimuth/deg,Zenith/deg,Line\n", f);
    const sensim_pattern *p = &l->pat;
    int64_t g0 = sensim__pattern_first_at(p, tb), g1 = sensim__pattern_first_at(p, te);
    uint64_t rows = 0;
    for (int64_t g = g0; g < g1; g++) {
        int64_t t = sensim__pattern_time(p, g);
        uint16_t ch;
        float d[3];
        if (!sensim__pattern_shot(p, g, t, &ch, d))
            continue;
        double az = atan2(d[1], d[0]) * 180.0 / SENSIM_PI;
        if (az < 0)
            az += 360.0;
        double zen = acos(fmax(-1.0, fmin(1.0, d[2]))) * 180.0 / SENSIM_PI;
        int64_t dt = t - tb;
        fprintf(f, "%lld.%09lld,%.6f,%.6f,%u\n", (long long)(dt / 1000000000), (long long)(dt % 1000000000), az,
                zen, ch);
        rows++;
    }
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0)
        bad = true;
    if (bad || rename(tmp, path) != 0) {
        remove(tmp);
        return sensim__fail(SENSIM_ERR_IO, "%s: write failed", path);
    }
    if (out_rows)
        *out_rows = rows;
    return SENSIM_OK;
}
