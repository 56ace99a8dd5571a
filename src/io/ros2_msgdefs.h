/* ros2msg schema texts and REP-2011 type hashes (generated ros2_msgdefs.c). */
#ifndef SENSIM_ROS2_MSGDEFS_H
#define SENSIM_ROS2_MSGDEFS_H

#define SENSIM__ROS2_TYPES 14 /* indexed by SENSIM_ROS_* */

extern const char *const sensim__ros2_type_names[SENSIM__ROS2_TYPES];
extern const char *const sensim__ros2_msgdefs[SENSIM__ROS2_TYPES];
/* "RIHS01_<64 hex>": what Jazzy's rmw puts in USER_DATA and rosbag2 in topic_type_hash */
extern const char *const sensim__ros2_type_hashes[SENSIM__ROS2_TYPES];
/* rmw_dds_common/msg/ParticipantEntitiesInfo's (Gid uint8[16]), the ros_discovery_info endpoints' */
extern const char sensim__ros2_graph_type_hash[];

/* The QoS profile a ROS 2 publisher of each type offers, for the live
 * writers' DDS QoS (ros2_dds.c) and the bag's offered_qos_profiles (mcap.c):
 * clouds, images and camera info SensorDataQoS (best effort, depth 5);
 * /tf tf2's broadcaster (depth 100); /tf_static its static broadcaster
 * (depth 1, transient local); /clock depth 1 (reliable: it matches the
 * best-effort ClockQoS readers and loses no step); the rest the default
 * (reliable, depth 10). Type -1 is the ROS graph topic (ros_discovery_info:
 * reliable, depth 1, transient local, as rmw's). */
typedef struct sensim__ros2_profile {
    int reliable, depth, transient_local;
} sensim__ros2_profile;

static inline sensim__ros2_profile sensim__ros2_profile_of(int type)
{
    sensim__ros2_profile p = {1, 10, 0};
    if (type == 0 || type == 1 || type == 2) /* PointCloud2, Image, CameraInfo */
        p.reliable = 0, p.depth = 5;
    else if (type == 6) /* /tf */
        p.depth = 100;
    else if (type == 7 || type == -1) /* /tf_static, ros_discovery_info */
        p.depth = 1, p.transient_local = 1;
    else if (type == 10) /* carla_msgs/CarlaEgoVehicleInfo */
        p.transient_local = 1;
    else if (type == 8) /* /clock */
        p.depth = 1;
    return p;
}

#endif
