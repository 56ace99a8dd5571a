/* Livox-style scan pattern CSV: "Time/s,Azimuth/deg,Zenith/deg" rows.
 *
 * The angles are kept in double, as the file gives them (degrees to radians
 * in double), and reach the lidar as doubles (sensim__lidar_create): its
 * table directions are computed from them in double and rounded to float
 * once (pattern.c, table_init). They used to be stored as float, up to
 * ~2.4e-7 rad off the file's azimuths of 180-360 deg before any trig.
 * Memory: this table lives only while the lidar is created; 16 bytes a row
 * for the angles (8 before), plus 8 for time_ns and 8 for the parse's
 * seconds with table_time=seconds (unchanged). The lidar keeps 12 bytes a
 * row of float directions (+ 8 of times), as before. */
#ifndef SENSIM_PATTERN_CSV_H
#define SENSIM_PATTERN_CSV_H

#include "internal.h"

typedef struct sensim_csv_table {
    uint64_t n;
    double *az_rad, *el_rad; /* radians, from the file's degrees in double */
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
