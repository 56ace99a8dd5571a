/* Bare Embree (no sensim): the top-level build of N instances of one
 * 12-triangle box, as sensim_scene_commit does it for actors (issue 66).
 * Three forms of the same translating box: static (one matrix), motion as
 * two matrices, motion as two quaternion decompositions (what sensim uses
 * for a moving actor: Embree slerps the rotation). The instances are kept
 * and only their transforms set again each step, as a commit that keeps
 * the top level does. Printed: median ms of setting the N transforms and of
 * rtcCommitScene over REPS steps.
 *
 *   bench_embree_mb [N [REPS]]      (defaults 3000, 9)
 */
#include "bench_util.h"

#include <embree3/rtcore.h>
#include <stdio.h>

enum { STATIC, MATRIX_MB, QUATERNION_MB };

static double run(RTCDevice dev, RTCScene proto, int n, int form, int reps, double *set_ms)
{
    RTCScene top = rtcNewScene(dev);
    rtcSetSceneFlags(top, RTC_SCENE_FLAG_ROBUST);
    rtcSetSceneBuildQuality(top, RTC_BUILD_QUALITY_MEDIUM);
    RTCGeometry *gi = calloc((size_t)n, sizeof *gi);
    double tb[64], ts[64];
    if (!gi)
        exit(1);
    for (int r = 0; r < reps && r < 64; r++) {
        double a = now_s();
        for (int i = 0; i < n; i++) {
            if (!gi[i]) {
                gi[i] = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_INSTANCE);
                rtcSetGeometryInstancedScene(gi[i], proto);
                rtcSetGeometryTimeStepCount(gi[i], form == STATIC ? 1 : 2);
                rtcAttachGeometry(top, gi[i]);
                rtcReleaseGeometry(gi[i]);
            }
            float x = 10.0f * (float)(i % 55) + 0.1f * (float)r, y = 10.0f * (float)(i / 55);
            for (unsigned s = 0; s < (form == STATIC ? 1u : 2u); s++) {
                if (form == QUATERNION_MB) {
                    struct RTCQuaternionDecomposition qd;
                    rtcInitQuaternionDecomposition(&qd);
                    rtcQuaternionDecompositionSetQuaternion(&qd, 1, 0, 0, 0);
                    rtcQuaternionDecompositionSetTranslation(&qd, x + 0.1f * (float)s, y, 0);
                    rtcSetGeometryTransformQuaternion(gi[i], s, &qd);
                } else {
                    const float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x + 0.1f * (float)s, y, 0, 1};
                    rtcSetGeometryTransform(gi[i], s, RTC_FORMAT_FLOAT4X4_COLUMN_MAJOR, m);
                }
            }
            rtcCommitGeometry(gi[i]);
        }
        double b = now_s();
        rtcCommitScene(top);
        ts[r] = b - a, tb[r] = now_s() - b;
    }
    int k = reps < 64 ? reps : 64;
    qsort(tb, (size_t)k, sizeof *tb, cmp);
    qsort(ts, (size_t)k, sizeof *ts, cmp);
    rtcReleaseScene(top);
    free(gi);
    *set_ms = 1e3 * ts[k / 2];
    return 1e3 * tb[k / 2];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3000, reps = argc > 2 ? atoi(argv[2]) : 9;
    if (n < 1 || reps < 1)
        return 2;
    RTCDevice dev = rtcNewDevice(NULL);
    static const float v[] = {-2, -1, 0, 2, -1, 0, 2, 1, 0, -2, 1, 0, -2, -1, 1.5f, 2, -1, 1.5f, 2, 1, 1.5f, -2, 1, 1.5f};
    static const unsigned ix[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                  1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
    RTCScene proto = rtcNewScene(dev);
    RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, v, 0, 12, 8);
    rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, ix, 0, 12, 12);
    rtcCommitGeometry(g);
    rtcAttachGeometry(proto, g);
    rtcReleaseGeometry(g);
    rtcCommitScene(proto);
    static const char *names[] = {"static (one matrix)", "motion, two matrices", "motion, two quaternions"};
    double build[3];
    printf("%d instances, bare Embree: median ms over %d steps\n", n, reps);
    for (int f = 0; f < 3; f++) {
        double set;
        build[f] = run(dev, proto, n, f, reps, &set);
        printf("%-26s set %.3f  rtcCommitScene %.3f  (%.2f us an instance)\n", names[f], set, build[f],
               1e3 * build[f] / n);
    }
    printf("quaternion / matrix motion: %.2f; matrix motion / static: %.2f\n", build[2] / build[1],
           build[1] / build[0]);
    rtcReleaseScene(proto);
    rtcReleaseDevice(dev);
    return 0;
}
