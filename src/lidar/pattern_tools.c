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

sensim_status sensim_pattern_footprint_coverage(const sensim_lidar *l, int64_t tb, double fp, const int64_t *dur,
                                                uint32_t ndur, double *cov, double *out_fov_sr)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    if (!ndur || !dur || !cov)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_pattern_footprint_coverage: no durations");
    if (fp == 0)
        fp = fmax(l->rp.d.beam_divergence_h_rad, l->rp.d.beam_divergence_v_rad);
    if (!isfinite(fp) || !(fp > 0 && fp <= 0.1))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_pattern_footprint_coverage: footprint %g rad outside "
                            "(0, 0.1] (the preset gives no beam divergence: pass the footprint)", fp);
    int64_t longest = 0;
    for (uint32_t i = 0; i < ndur; i++) {
        if (dur[i] <= 0 || dur[i] > INT64_C(3600000000000))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_pattern_footprint_coverage: duration %u is %lld ns",
                                i, (long long)dur[i]);
        longest = dur[i] > longest ? dur[i] : longest;
    }
    sensim_status st = sensim__lidar_check_time(l, tb, "t_begin_ns");
    if (st == SENSIM_OK)
        st = sensim__lidar_check_time(l, tb + longest, "t_begin_ns + duration");
    if (st != SENSIM_OK)
        return st;
    /* the FOV: a round one for a Risley pattern without head spin, else the extents */
    sensim_pattern_stats ps;
    if ((st = sensim_pattern_measure(l, tb, tb + longest, 0.01, NULL, 0, NULL, NULL, 0, &ps)) != SENSIM_OK)
        return st;
    const sensim_pattern *p = &l->pat;
    const bool round = p->kind == SENSIM_PATTERN_RISLEY && p->head_hz == 0 && p->bore_el == 0 && ps.full_fov_rad < SENSIM_PI;
    const double r = fp / 2, cell = fp / 4, half = ps.full_fov_rad / 2;
    double a0 = round ? -half : ps.az_min_rad - r, a1 = round ? half : ps.az_max_rad + r;
    double e0 = round ? -half : ps.el_min_rad - r, e1 = round ? half : ps.el_max_rad + r;
    a0 = fmax(a0, -SENSIM_PI), a1 = fmin(a1, SENSIM_PI), e0 = fmax(e0, -SENSIM_PI / 2), e1 = fmin(e1, SENSIM_PI / 2);
    const double na = ceil((a1 - a0) / cell), ne = ceil((e1 - e0) / cell);
    if (!(na >= 1 && ne >= 1) || na * ne > (double)(1u << 24))
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_pattern_footprint_coverage: %.0f x %.0f cells of %g rad "
                            "(at most 2^24): use a larger footprint", na, ne, cell);
    const uint32_t NA = (uint32_t)na, NE = (uint32_t)ne;
    int64_t *first = malloc((size_t)NA * NE * sizeof *first);
    if (!first)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_pattern_footprint_coverage: %u x %u cells", NA, NE);
    for (size_t c = 0; c < (size_t)NA * NE; c++)
        first[c] = INT64_MAX;
    /* a cell is in the FOV when its centre is; its area is cos(el) of it */
#define CELL_AZ(i) (a0 + ((double)(i) + 0.5) * cell)
#define CELL_EL(j) (e0 + ((double)(j) + 0.5) * cell)
    const double cr = cos(r);
    int64_t g0 = sensim__pattern_first_at(p, tb), g1 = sensim__pattern_first_at(p, tb + longest);
    for (int64_t g = g0; g < g1; g++) {
        int64_t t = sensim__pattern_time(p, g);
        uint16_t ch;
        float d[3];
        if (!sensim__pattern_shot(p, g, t, &ch, d))
            continue;
        double el = asin(fmax(-1.0, fmin(1.0, d[2]))), az = atan2(d[1], d[0]);
        double span = r / fmax(cos(fabs(el) + r), 1e-6); /* azimuth half-width of the footprint's box */
        int64_t j0 = (int64_t)floor((el - r - e0) / cell), j1 = (int64_t)floor((el + r - e0) / cell);
        int64_t i0 = (int64_t)floor((az - span - a0) / cell), i1 = (int64_t)floor((az + span - a0) / cell);
        for (int64_t j = j0 < 0 ? 0 : j0; j <= j1 && j < NE; j++) {
            double ce = CELL_EL(j), se = sin(ce), ke = cos(ce);
            for (int64_t i = i0 < 0 ? 0 : i0; i <= i1 && i < NA; i++) {
                double ca = CELL_AZ(i);
                /* the angle between the beam and the cell centre: cos = d . c */
                if (d[0] * ke * cos(ca) + d[1] * ke * sin(ca) + d[2] * se >= cr) {
                    int64_t *f = &first[(size_t)j * NA + (size_t)i];
                    *f = t < *f ? t : *f;
                }
            }
        }
    }
    double total = 0;
    for (uint32_t k = 0; k < ndur; k++)
        cov[k] = 0;
    for (uint32_t j = 0; j < NE; j++) {
        double ce = CELL_EL(j), w = cos(ce);
        for (uint32_t i = 0; i < NA; i++) {
            double ca = CELL_AZ(i);
            if (round && acos(fmax(-1.0, fmin(1.0, cos(ce) * cos(ca)))) > half)
                continue; /* outside the round FOV */
            if (!round && (ca < ps.az_min_rad || ca > ps.az_max_rad || ce < ps.el_min_rad || ce > ps.el_max_rad))
                continue;
            total += w;
            int64_t f = first[(size_t)j * NA + i];
            for (uint32_t k = 0; k < ndur; k++)
                if (f != INT64_MAX && f < tb + dur[k])
                    cov[k] += w;
        }
    }
#undef CELL_AZ
#undef CELL_EL
    free(first);
    for (uint32_t k = 0; k < ndur; k++)
        cov[k] = total > 0 ? cov[k] / total : 0;
    if (out_fov_sr)
        *out_fov_sr = total * cell * cell;
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
