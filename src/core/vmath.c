/* Vector maths from SLEEF; see vmath.h. The variants are chosen for equal
 * bits, not the fastest: SLEEF's AVX2 sincos uses FMA and differs from its
 * AVX one in the last bit of 0.3 % of arguments (measured on 4 M), so a
 * scan would depend on the CPU. */
#include "vmath.h"

#include <sleef.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* vmath_avx.c, compiled with -mavx (sleef.h declares its AVX functions only then) */
void sensim__sincos_avx(const double *x, double *s, double *c, uint32_t n);


static void sincos_sse2(const double *x, double *s, double *c, uint32_t n)
{
    uint32_t i = 0;
    for (; i + 2 <= n; i += 2) {
        Sleef___m128d_2 r = Sleef_sincosd2_u10sse2(_mm_loadu_pd(x + i));
        _mm_storeu_pd(s + i, r.x);
        _mm_storeu_pd(c + i, r.y);
    }
    if (i < n) {
        Sleef___m128d_2 r = Sleef_sincosd2_u10sse2(_mm_set_pd(0.0, x[i]));
        s[i] = _mm_cvtsd_f64(r.x), c[i] = _mm_cvtsd_f64(r.y);
    }
}

void sensim__sincos_n(const double *x, double *s, double *c, uint32_t n)
{
    if (__builtin_cpu_supports("avx"))
        sensim__sincos_avx(x, s, c, n);
    else
        sincos_sse2(x, s, c, n);
}
#else
void sensim__sincos_n(const double *x, double *s, double *c, uint32_t n)
{
    sensim__sincos_variant(SENSIM_VMATH_PUREC, x, s, c, n);
}
#endif

bool sensim__sincos_variant(int variant, const double *x, double *s, double *c, uint32_t n)
{
    switch (variant) {
    case SENSIM_VMATH_PUREC:
        for (uint32_t i = 0; i < n; i++) {
            Sleef_double_2 r = Sleef_sincosd1_u10purec(x[i]);
            s[i] = r.x, c[i] = r.y;
        }
        return true;
#if defined(__x86_64__) && defined(__GNUC__)
    case SENSIM_VMATH_SSE2:
        sincos_sse2(x, s, c, n);
        return true;
    case SENSIM_VMATH_AVX:
        if (!__builtin_cpu_supports("avx"))
            return false;
        sensim__sincos_avx(x, s, c, n);
        return true;
#endif
    default:
        return false;
    }
}
