/* Livox-style scan pattern CSV: "Time/s,Azimuth/deg,Zenith/deg" rows. */
#ifndef SENSIM_PATTERN_CSV_H
#define SENSIM_PATTERN_CSV_H

#include "internal.h"

typedef struct sensim_csv_table {
    uint64_t n;
    float *az_rad, *el_rad;
    int64_t *time_ns;   /* only when loaded with time in seconds */
    int64_t period_ns;
} sensim_csv_table;

/* Load a pattern CSV. With @p time_seconds the first column is a firing time
 * in seconds (nondecreasing); times become relative to the first row and the
 * pass lasts @p period_s (0: last time plus the mean interval). Otherwise the
 * first column is ignored (several official files hold an index there). */
sensim_status sensim__csv_load(const char *path, int time_seconds, double period_s, sensim_csv_table *out);
void sensim__csv_free(sensim_csv_table *t);
/* The same from a buffer (@p path only names it in messages). */
sensim_status sensim__csv_parse(const char *path, const char *data, size_t size, int time_seconds, double period_s,
                                sensim_csv_table *out);

#endif
