/* ros2msg schema texts for the MCAP writer (generated ros2_msgdefs.c). */
#ifndef SENSIM_ROS2_MSGDEFS_H
#define SENSIM_ROS2_MSGDEFS_H

#define SENSIM__ROS2_TYPES 9 /* indexed by SENSIM_ROS_* */

extern const char *const sensim__ros2_type_names[SENSIM__ROS2_TYPES];
extern const char *const sensim__ros2_msgdefs[SENSIM__ROS2_TYPES];

#endif
