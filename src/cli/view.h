/* sensim view: what the readers of runs, PLY files and MCAP bags produce
 * (view_read.c) and the page writer consumes (view.c). */
#ifndef SENSIM_VIEW_H
#define SENSIM_VIEW_H

#include <stddef.h>
#include <stdint.h>

#define MAX_CLOUDS 100000
#define MAX_IMAGES 20000
#define VIEW_IMAGE_PIXELS (128ull << 20) /* image pixels a page embeds (MCAP images decoded): 16 of 2816 x 2816 */

typedef struct cloud {
    char sensor[64];
    char frame[64];     /* MCAP: the cloud's frame_id */
    int64_t t_ns;
    double pose[16];
    uint32_t n;
    float *xyz, *range;
    uint8_t *tag, *inten;
} cloud;

typedef struct image {
    char sensor[64];
    int64_t t_ns;
    char path[4200];
} image;

typedef struct view_data {
    cloud *clouds;
    size_t nclouds;
    image *images;
    size_t nimages;
    uint32_t max_points;
    uint64_t points_total, points_budget;  /* points kept; clouds past the budget are left out and counted */
    uint64_t pixels_total, pixels_budget;  /* image pixels kept (MCAP images), likewise */
    size_t clouds_dropped, images_dropped;
    size_t cloud_cap, image_cap; /* entries clouds and images hold (MAX_CLOUDS, MAX_IMAGES) */
    char tmpdir[32];    /* MCAP: the folder of its decoded images ("" until one), removed by view_free */
} view_data;

/* Readers: 0, or an exit status after a one-line message naming the file.
 * Clouds and images are appended to @p V; free with view_free(). */
int view_read_ply(const char *path, const char *sensor, uint32_t max_points, cloud *c);
int view_read_folder(view_data *V, const char *dir, const char *sensor);
int view_read_mcap(view_data *V, const char *path);
void view_free(view_data *V);
/* One line "sensim: error: " + fmt(a, b) on stderr; EXIT_STATUS_BASE + SENSIM_ERR_PARSE. */
int view_fail(const char *fmt, const char *a, const char *b);
int view_is_dir(const char *p);
int view_ends_with(const char *s, const char *suf);
char **view_list_dir(const char *dir, size_t *n);
void view_free_list(char **v, size_t n);

#endif
