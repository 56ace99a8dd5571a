/* Kinematics and navigation sensors against closed forms: a circle, constant
 * velocity and rotation, quadratic motion. */
#include "helpers.h"

TEST_GROUP_FIXTURE(1, 0)

/* Keys every dt_s on a circle of radius r at speed v, heading along the track. */
static sensim_pose_key *circle_keys(double r, double v, double dt_s, int n)
{
    sensim_pose_key *k = calloc((size_t)n, sizeof *k);
    for (int i = 0; i < n; i++) {
        double th = v / r * i * dt_s, c = cos(th + M_PI / 2), s = sin(th + M_PI / 2);
        k[i].t_ns = (int64_t)llround(i * dt_s * 1e9);
        double *P = k[i].pose;
        memset(P, 0, sizeof k[i].pose);
        P[0] = c, P[1] = s, P[4] = -s, P[5] = c, P[10] = 1, P[15] = 1;
        P[12] = r * cos(th), P[13] = r * sin(th), P[14] = 0;
    }
    return k;
}

static void test_circle(void **state)
{
    (void)state;
    const double r = 50, v = 10;
    sensim_pose_key *k = circle_keys(r, v, 0.1, 101);
    double worst_a = 0, worst_w = 0, worst_v = 0;
    for (int i = 0; i < 997; i++) {
        int64_t t = 5000000 + (int64_t)i * 9973000; /* off the keys, across 10 s */
        sensim_kinematics s;
        CHECK_OK(sensim_kinematics_at(k, 101, SENSIM_INTERP_SPLINE, t, &s));
        double th = v / r * t * 1e-9, ax = -v * v / r * cos(th), ay = -v * v / r * sin(th);
        worst_a = fmax(worst_a, hypot(s.acceleration[0] - ax, s.acceleration[1] - ay));
        worst_a = fmax(worst_a, fabs(s.acceleration[2]));
        worst_v = fmax(worst_v, fabs(hypot(s.velocity[0], s.velocity[1]) - v));
        worst_w = fmax(worst_w, fabs(s.angular_velocity[2] - v / r) + fabs(s.angular_velocity[0]) +
                                    fabs(s.angular_velocity[1]));
    }
    printf("# circle r 50 m, 10 m/s, keys at 10 Hz: |a| error %.2e m/s^2, speed %.2e m/s, yaw rate %.2e rad/s\n",
           worst_a, worst_v, worst_w);
    /* the first and last segments use one-sided key estimates: the interior is what the bounds are for */
    assert_true(worst_a < 1e-3 || 0);
    assert_true(worst_w < 1e-6);
    free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_circle),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
