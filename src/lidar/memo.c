/* A lidar's pattern memo: the shots of a pattern that costs more to compute
 * than to copy (Risley, MEMS), filled between scans by lidar.c and read by
 * the lanes (lane.c) and the placement survey; below both. */
#include "lidar_impl.h"

#include <stdlib.h>
#include <string.h>

/* The pattern's own shots g0 .. g0 + n - 1. */
static void pattern_shots(const sensim_lidar *l, int64_t g0, uint32_t n, int64_t *t, uint16_t *ch, float *dir,
                          uint8_t *ok)
{
    if (g0 >= 0 && g0 + (int64_t)n <= l->memo_n) {
        memcpy(t, &l->memo_t[g0], n * sizeof *t);
        memcpy(ch, &l->memo_ch[g0], n * sizeof *ch);
        memcpy(dir, &l->memo_dir[3 * g0], 3 * n * sizeof *dir);
        memcpy(ok, &l->memo_ok[g0], n * sizeof *ok);
        return;
    }
    sensim__pattern_batch(&l->pat, g0, n, t, ch, dir, ok);
}

void sensim__lidar_pattern_batch(const sensim_lidar *l, int64_t g0, uint32_t n, int64_t *t, uint16_t *ch, float *dir,
                                 uint8_t *ok)
{
    const int64_t d = l->shot_offset;
    pattern_shots(l, g0 + d, n, t, ch, dir, ok);
    if (d) /* the pattern ahead or behind its clock (sensim_lidar_set_shot_offset): the shots keep their times */
        for (uint32_t i = 0; i < n; i++)
            t[i] = sensim__pattern_time(&l->pat, g0 + (int64_t)i);
}

void sensim__lidar_pattern_memo(sensim_lidar *l, int64_t g1)
{
    const int64_t cap = (int64_t)(SENSIM_PATTERN_MEMO_BYTES / (sizeof *l->memo_t + sizeof *l->memo_ch +
                                                               3 * sizeof *l->memo_dir + sizeof *l->memo_ok));
    if (l->pat.kind != SENSIM_PATTERN_RISLEY && l->pat.kind != SENSIM_PATTERN_MEMS)
        return;
    g1 = g1 < cap ? g1 : cap;
    if (g1 <= l->memo_n)
        return;
    int64_t *t = malloc((size_t)g1 * sizeof *t);
    uint16_t *ch = malloc((size_t)g1 * sizeof *ch);
    float *dir = calloc((size_t)g1 * 3, sizeof *dir); /* (a shot the pattern skips: no direction written) */
    uint8_t *ok = malloc((size_t)g1 * sizeof *ok);
    if (!t || !ch || !dir || !ok) {
        free(t), free(ch), free(dir), free(ok);
        return;
    }
    for (int64_t g = 0; g < g1; g += 65536) { /* shot by shot the same as any batch (split invariant) */
        const uint32_t n = (uint32_t)(g1 - g < 65536 ? g1 - g : 65536);
        sensim__pattern_batch(&l->pat, g, n, &t[g], &ch[g], &dir[3 * g], &ok[g]);
    }
    free(l->memo_t), free(l->memo_ch), free(l->memo_dir), free(l->memo_ok);
    l->memo_t = t, l->memo_ch = ch, l->memo_dir = dir, l->memo_ok = ok, l->memo_n = g1;
}
