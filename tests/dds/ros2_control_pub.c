/* A ROS 2 node that drives a CARLA ego vehicle over CARLA's native ROS 2, written against Cyclone DDS alone
 * (carla_msgs/msg/CarlaEgoVehicleControl from tests/dds/ros2_msgs.idl through idlc), for sensim.carla's
 * control subscriber (tests/test_carla_ros2.py).
 *
 * Usage: ros2_control_pub TOPIC THROTTLE STEER BRAKE [--pad N] [--hz H] [--ackermann 1]
 *   --ackermann 1: ackermann_msgs/msg/AckermannDriveStamped instead (CARLA's ackermann_control_cmd):
 *   speed THROTTLE m/s, steering_angle STEER rad, acceleration BRAKE m/s^2;
 *   --pad N: header.frame_id is N bytes long (a message far over RTPS's fragment size arrives in pieces);
 *   --hz H: one message every 1/H s (default 20), as a stack's controller publishes at its rate.
 * QoS reliable, volatile, keep last 10 (carla-ros-bridge's control publishers use depth 10).
 * Prints "ready", then "matched" once a reader matched, then publishes until stdin ends, and prints
 * "sent N". */
#ifndef asm
#define asm __asm__
#endif
#include "ros2_msgs.h"
#include "dds_node.h"

#include <dds/dds.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die(const char *what, dds_return_t rc)
{
    node_die("ros2_control_pub", what, rc);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: ros2_control_pub TOPIC THROTTLE STEER BRAKE [--pad N] [--hz H]\n");
        return 2;
    }
    long pad = 0;
    double hz = 20;
    int ackermann = 0;
    for (int i = 5; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--pad"))
            pad = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--hz"))
            hz = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--ackermann"))
            ackermann = atoi(argv[i + 1]) != 0;
        else {
            fprintf(stderr, "ros2_control_pub: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (pad < 0 || pad > (1L << 24) || !(hz > 0 && hz <= 1000)) {
        fprintf(stderr, "ros2_control_pub: --pad 0..16M, --hz (0, 1000]\n");
        return 2;
    }
    char *frame = calloc((size_t)pad + 1, 1);
    if (!frame)
        return 2;
    memset(frame, 'x', (size_t)pad);
    dds_entity_t pp = node_participant("ros2_control_pub");
    char name[300];
    snprintf(name, sizeof name, "rt%s", argv[1]);
    dds_qos_t *q = dds_create_qos();
    dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
    dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 10);
    dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
    dds_entity_t tp = dds_create_topic(pp, ackermann ? &ackermann_msgs_msg_dds__AckermannDriveStamped__desc
                                                     : &carla_msgs_msg_dds__CarlaEgoVehicleControl__desc,
                                       name, NULL, NULL);
    if (tp < 0)
        die("dds_create_topic", tp);
    dds_entity_t w = dds_create_writer(pp, tp, q, NULL);
    dds_delete_qos(q);
    if (w < 0)
        die("dds_create_writer", w);
    node_wait_matched(w);
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    long sent = 0;
    for (;;) {
        char c;
        ssize_t r = read(0, &c, 1);
        if (r == 0)
            break; /* stdin ended: the node stops */
        carla_msgs_msg_dds__CarlaEgoVehicleControl_ m;
        memset(&m, 0, sizeof m);
        m.header.stamp.sec = (int32_t)sent;
        m.header.frame_id = frame;
        m.throttle = (float)atof(argv[2]);
        m.steer = (float)atof(argv[3]);
        m.brake = (float)atof(argv[4]);
        m.gear = 1;
        ackermann_msgs_msg_dds__AckermannDriveStamped_ a;
        memset(&a, 0, sizeof a);
        a.header = m.header;
        a.drive.speed = m.throttle, a.drive.steering_angle = m.steer, a.drive.acceleration = m.brake;
        dds_return_t rc = ackermann ? dds_write(w, &a) : dds_write(w, &m);
        if (rc < 0)
            die("dds_write", rc);
        sent++;
        dds_sleepfor((dds_duration_t)(1e9 / hz)); /* the node's rate, not a wait for a state */
    }
    printf("sent %ld\n", sent);
    fflush(stdout);
    dds_delete(pp);
    free(frame);
    return 0;
}
