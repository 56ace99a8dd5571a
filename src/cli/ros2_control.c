/* sensim ros2 --control-in TOPIC: the ego driven by a stack's
 * carla_msgs/msg/CarlaEgoVehicleControl messages (as CARLA's native ROS 2
 * takes /carla/hero/vehicle_control_cmd) through the kinematic vehicle model
 * of sensim/vehicle.h, instead of a trajectory or --pose-in.
 *
 * The vehicle starts at rest at the first row of --trajectory FILE (the rest
 * of the file is not used). Before each world step the newest message that
 * arrived is the control in force (CARLA's vehicle keeps its control until a
 * new one comes; before the first, none: the vehicle stands) and the model
 * moves the vehicle over the step: one trajectory row per world step, so the
 * rig's motion model sees the path the model drives. Values outside CARLA's
 * ranges are clamped as CARLA clamps them. A message that does not decode
 * (cut short, not little-endian CDR, not finite) ends the run with a message
 * naming the topic and the message's index, as --pose-in does. The run ends
 * when the control's publisher leaves (after one was seen), or on Ctrl-C.
 * Paced at real time unless --rate says otherwise: a stack's controller runs
 * on the wall clock. */
#include "batch.h"
#include "mcap_walk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char CONTROL_TYPE[] = "carla_msgs/msg/CarlaEgoVehicleControl";

static struct {
    sensim_ros2_reader *rd;
    sensim_vehicle_model model;
    sensim_vehicle_control now; /* in force */
    double speed;
    uint64_t messages, steps, changed;
    size_t cap;
    int seen; /* a publisher was matched once */
} C;

int live_control_parse(const char *v)
{
    size_t n = strlen(v);
    if (n < 2 || n >= sizeof g_live.pose_topic || v[0] != '/')
        return usage("--control-in needs a ROS topic (/carla/hero/vehicle_control_cmd: "
                     "carla_msgs/msg/CarlaEgoVehicleControl)");
    g_live.control_in = 1;
    snprintf(g_live.pose_topic, sizeof g_live.pose_topic, "%s", v);
    return 0;
}

static int fail_status(sensim_status st)
{
    fprintf(stderr, "sensim: error: %s\n", sensim_context_last_error(NULL));
    return EXIT_STATUS_BASE + (int)st;
}

/* A CarlaEgoVehicleControl's values: 1, or -1 and a reason. */
static int decode(const uint8_t *p, size_t n, sensim_vehicle_control *c, char *why, size_t cap)
{
    if (n < 4 || p[0] != 0 || p[1] != 1) {
        snprintf(why, cap, "not little-endian CDR (encapsulation %02x%02x; %zu bytes)", n ? p[0] : 0,
                 n > 1 ? p[1] : 0, n);
        return -1;
    }
    size_t pad = p[3] & 3u;
    cdr r = {p, n - (pad < n - 4 ? pad : 0), 4, 0};
    char frame[256];
    cdr_u(&r, 4), cdr_u(&r, 4); /* header.stamp: the control applies from the next step, whatever it says */
    cdr_str(&r, frame, sizeof frame);
    float f[3];
    for (int i = 0; i < 3; i++) {
        uint32_t u = (uint32_t)cdr_u(&r, 4);
        memcpy(&f[i], &u, 4);
    }
    uint8_t hand = (uint8_t)cdr_u(&r, 1), rev = (uint8_t)cdr_u(&r, 1);
    int32_t gear = (int32_t)(uint32_t)cdr_u(&r, 4);
    uint8_t manual = (uint8_t)cdr_u(&r, 1);
    if (r.bad) {
        snprintf(why, cap, "a %s cut short or with a length past its end (%zu bytes)", CONTROL_TYPE, n);
        return -1;
    }
    if (!isfinite(f[0]) || !isfinite(f[1]) || !isfinite(f[2])) {
        snprintf(why, cap, "throttle %g, steer %g or brake %g not finite", (double)f[0], (double)f[1],
                 (double)f[2]);
        return -1;
    }
    memset(c, 0, sizeof *c);
    /* clamped as CARLA's vehicle applies them; a bool is any non-zero byte, as DDS reads it */
    c->throttle = f[0] < 0 ? 0.0f : f[0] > 1 ? 1.0f : f[0];
    c->steer = f[1] < -1 ? -1.0f : f[1] > 1 ? 1.0f : f[1];
    c->brake = f[2] < 0 ? 0.0f : f[2] > 1 ? 1.0f : f[2];
    c->hand_brake = hand != 0, c->reverse = rev != 0, c->manual_gear_shift = manual != 0, c->gear = gear;
    return 1;
}

/* 0, or an exit status after a message. */
int live_control_open(traj *tr)
{
    int rc = live_writer_open();
    if (rc)
        return rc;
    sensim_status st = sensim_ros2_reader_open(g_live.m, g_live.pose_topic, CONTROL_TYPE, &C.rd);
    if (st)
        return fail_status(st);
    sensim_vehicle_model_init(&C.model);
    memset(&C.now, 0, sizeof C.now);
    C.speed = 0, C.messages = C.steps = C.changed = 0, C.seen = 0;
    tr->n = tr->n ? 1 : 0; /* the start; the model writes the rest */
    C.cap = tr->n;
    fprintf(stderr, "sensim ros2: the ego driven by %s (%s; the kinematic model of sensim/vehicle.h, wheelbase "
                    "%g m)\n", g_live.pose_topic, CONTROL_TYPE, C.model.wheelbase_m);
    return tr->n ? 0 : EXIT_STATUS_BASE + SENSIM_ERR_EMPTY;
}

int live_control_more(traj *tr)
{
    if (g_stop || g_live.stream_rc || !C.rd || tr->n == 0)
        return 0;
    const uint8_t *msg;
    size_t n;
    for (;;) { /* the newest message that arrived */
        sensim_status st = sensim_ros2_read(C.rd, 0, &msg, &n);
        if (st) {
            g_live.stream_rc = fail_status(st);
            return 0;
        }
        if (!n)
            break;
        C.messages++;
        char why[200];
        sensim_vehicle_control c;
        if (decode(msg, n, &c, why, sizeof why) < 0) {
            fprintf(stderr, "sensim: error: %s: message %llu: %s\n", g_live.pose_topic,
                    (unsigned long long)C.messages, why);
            g_live.stream_rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
            return 0;
        }
        C.changed += memcmp(&c, &C.now, sizeof c) != 0;
        C.now = c;
    }
    uint32_t now = 0, ever = 0;
    sensim_status st = sensim_ros2_reader_publishers(C.rd, &now, &ever);
    if (st) {
        g_live.stream_rc = fail_status(st);
        return 0;
    }
    C.seen |= ever > 0;
    if (C.seen && !now) {
        fprintf(stderr, "sensim ros2: the publisher of %s left: the run ends\n", g_live.pose_topic);
        return 0;
    }
    if (tr->n == C.cap) {
        size_t c = C.cap < 256 ? 256 : 2 * C.cap;
        sensim_pose_key *q = realloc(tr->keys, c * sizeof *q);
        if (!q) {
            g_live.stream_rc = fail_status(SENSIM_ERR_OUT_OF_MEMORY);
            return 0;
        }
        tr->keys = q, C.cap = c;
    }
    sensim_pose_key k = tr->keys[tr->n - 1];
    k.t_ns += g_live.control_step_ns;
    if ((st = sensim_vehicle_step(&C.model, &C.now, (double)g_live.control_step_ns * 1e-9, &C.speed, k.pose, NULL))) {
        g_live.stream_rc = fail_status(st);
        return 0;
    }
    tr->keys[tr->n++] = k;
    C.steps++;
    return 1;
}

void live_control_close(void)
{
    if (!C.rd)
        return;
    sensim_ros2_reader_close(C.rd);
    C.rd = NULL;
    fprintf(stderr, "sensim ros2: %llu control message%s from %s (%llu changed the control); %llu model steps; "
                    "speed at the end %.3f m/s\n", (unsigned long long)C.messages, C.messages == 1 ? "" : "s",
            g_live.pose_topic, (unsigned long long)C.changed, (unsigned long long)C.steps, C.speed);
}
