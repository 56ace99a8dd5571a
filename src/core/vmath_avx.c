/* The AVX part of vmath.c, the only file compiled with -mavx: called only
 * when the CPU has AVX (vmath.c checks). SLEEF's AVX sincos without FMA:
 * the same bits as its SSE2 and portable C versions. */
#include <stdint.h>

#include <immintrin.h>
#include <sleef.h>

void sensim__sincos_avx(const double *x, double *s, double *c, uint32_t n);

void sensim__sincos_avx(const double *x, double *s, double *c, uint32_t n)
{
    uint32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        Sleef___m256d_2 r = Sleef_sincosd4_u10avx(_mm256_loadu_pd(x + i));
        _mm256_storeu_pd(s + i, r.x);
        _mm256_storeu_pd(c + i, r.y);
    }
    if (i < n) { /* the tail through a padded vector */
        double xt[4] = {0, 0, 0, 0}, st[4], ct[4];
        for (uint32_t k = 0; i + k < n; k++)
            xt[k] = x[i + k];
        Sleef___m256d_2 r = Sleef_sincosd4_u10avx(_mm256_loadu_pd(xt));
        _mm256_storeu_pd(st, r.x);
        _mm256_storeu_pd(ct, r.y);
        for (uint32_t k = 0; i + k < n; k++)
            s[i + k] = st[k], c[i + k] = ct[k];
    }
}
