/* Prints sizeof of every public struct; the Python tests compare them with
 * their ctypes mirrors so a header change cannot silently break the binding. */
#include <sensim/sensim.h>
#include <stdio.h>

#define P(T) printf("%s %zu\n", #T, sizeof(T))

int main(void)
{
    P(sensim_context_desc);
    P(sensim_road_info);
    P(sensim_road_signal);
    P(sensim_road_mesh_options);
    P(sensim_road_mesh_info);
    P(sensim_road_geometry);
    P(sensim_lane_info);
    P(sensim_lane_ref);
    P(sensim_lane_point);
    P(sensim_mcap_options);
    P(sensim_mcap_stats);
    P(sensim_ros2_options);
    P(sensim_ros2_endpoint);
    P(sensim_ros_transform);
    P(sensim_vehicle_control);
    P(sensim_vehicle_model);
    P(sensim_vehicle_status);
    P(sensim_vehicle_wheel);
    P(sensim_vehicle_info);
    P(sensim_mesh_desc);
    P(sensim_load_options);
    P(sensim_scene_info);
    P(sensim_street_info);
    P(sensim_roi_desc);
    P(sensim_roi_metrics);
    P(sensim_material);
    P(sensim_field);
    P(sensim_frame_header);
    P(sensim_frame_view);
    P(sensim_ring_stats);
    P(sensim_lidar_info);
    P(sensim_scan_result);
    P(sensim_pose_key);
    P(sensim_motion);
    P(sensim_pattern_stats);
    P(sensim_proximity_desc);
    P(sensim_rig_step_result);
    P(sensim_ray_batch);
    P(sensim_ray_hit);
    P(sensim_camera_desc);
    P(sensim_camera_info);
    P(sensim_camera_images);
    P(sensim_image_view);
    P(sensim_appearance);
    P(sensim_kinematics);
    P(sensim_platform_state);
    P(sensim_frame_sink_desc);
    P(sensim_image_sink_desc);
    P(sensim_image_sink_stats);
    P(sensim_csv_sink_desc);
    P(sensim_nav_desc);
    P(sensim_nav_sample);
    P(sensim_radar_desc);
    P(sensim_radar_detection);
    P(sensim_sensor_sample);
    P(sensim_sensor_desc);
    return 0;
}
