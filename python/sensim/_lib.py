"""ctypes declarations of libsensim's C ABI (include/sensim/*.h).

Struct layouts mirror the C headers field by field; tests compare every
ctypes size with the C compiler's sizeof (tests/struct_sizes.c)."""
import ctypes
import ctypes.util
import os
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_float, c_int32, c_int64, c_size_t,
                    c_uint8, c_uint16, c_uint32, c_uint64, c_void_p, CFUNCTYPE)

status_t = c_int32


class ContextDesc(Structure):
    _fields_ = [("thread_count", c_uint32), ("log_fn", c_void_p), ("log_user", c_void_p),
                ("reserved", c_uint64 * 8)]


class MeshDesc(Structure):
    _fields_ = [("vertices", POINTER(c_float)), ("vertex_count", c_uint32), ("indices", POINTER(c_uint32)),
                ("triangle_count", c_uint32), ("triangle_tags", POINTER(c_uint8)),
                ("triangle_materials", POINTER(c_uint16)), ("tag", c_uint8), ("material_id", c_uint16),
                ("flags", c_uint32), ("triangle_uvs", POINTER(c_float)), ("reserved", c_uint64 * 5)]


class LoadOptions(Structure):
    _fields_ = [("flags", c_uint32), ("scale", c_float), ("default_tag", c_uint8), ("max_file_bytes", c_uint64),
                ("frame", c_int32), ("reserved_u32", c_uint32), ("tag_map_file", c_char_p),
                ("reserved", c_uint64 * 4)]


class SceneInfo(Structure):
    _fields_ = [("mesh_count", c_uint32), ("actor_count", c_uint32), ("triangle_count", c_uint64),
                ("vertex_count", c_uint64), ("committed", c_int32), ("duplicate_triangles_dropped", c_uint32),
                ("material_files_missing", c_uint32), ("textures_skipped", c_uint32), ("instance_count", c_uint32),
                ("flattened_count", c_uint32), ("reserved", c_uint32 * 2)]


class StreetInfo(Structure):
    _fields_ = [("static_triangles", c_uint32), ("car_count", c_uint32), ("static_mesh_id", c_uint32),
                ("car_mesh_id", c_uint32), ("reserved", c_uint64 * 2)]


class RoiDesc(Structure):
    _fields_ = [("xmin", c_double), ("ymin", c_double), ("xmax", c_double), ("ymax", c_double), ("zmin", c_double),
                ("zmax", c_double), ("cell_m", c_double), ("min_points", c_uint32), ("nuc_disks", c_uint32),
                ("nuc_radius_m", c_double), ("seed", c_uint64), ("reserved", c_uint64 * 4)]


class RoiMetrics(Structure):
    _fields_ = [("points", c_uint64), ("density_per_m2", c_double), ("cell_cv", c_double), ("nuc", c_double),
                ("coverage", c_double), ("cells_x", c_uint32), ("cells_y", c_uint32), ("reserved", c_uint64 * 4)]


class Appearance(Structure):
    _fields_ = [("base_color", c_float * 3), ("texture", c_void_p), ("texture_width", c_uint32),
                ("texture_height", c_uint32), ("reserved", c_uint64 * 4)]


class Material(Structure):
    _fields_ = [("reflectivity", c_float), ("retro_gain", c_float), ("specular", c_float),
                ("transparency", c_float), ("reserved", c_uint64 * 4)]


class Field(Structure):
    _fields_ = [("name", c_char_p), ("offset", c_uint32), ("datatype", c_uint32), ("count", c_uint32)]


class FrameHeader(Structure):
    _fields_ = [("frame_number", c_uint64), ("t_begin_ns", c_int64), ("t_end_ns", c_int64),
                ("point_count", c_uint64), ("lost_points", c_uint64), ("first_point", c_uint64),
                ("sensor_pose", c_double * 16), ("lidar_id", c_uint32), ("flags", c_uint32),
                ("scanned_ns", c_int64), ("world_step_first", c_uint64), ("world_step_last", c_uint64),
                ("reserved", c_uint64 * 2)]


class FrameView(Structure):
    _fields_ = [("header", POINTER(FrameHeader)), ("points", c_void_p * 2), ("counts", c_uint64 * 2)]


class RingStats(Structure):
    _fields_ = [("frames_written", c_uint64), ("frames_dropped", c_uint64), ("points_dropped", c_uint64),
                ("points_lost", c_uint64), ("scans_refused", c_uint64), ("points_refused", c_uint64),
                ("frames_ready", c_uint64), ("reserved", c_uint64 * 5)]


class LidarInfo(Structure):
    _fields_ = [("name", c_char * 32), ("channel_count", c_uint32), ("columns_per_revolution", c_uint32),
                ("columns_per_frame", c_uint32), ("shots_per_frame", c_uint64), ("shots_per_s", c_double),
                ("frame_rate_hz", c_double), ("frame_period_ns", c_int64), ("min_range_m", c_float),
                ("max_range_m", c_float), ("lidar_id", c_uint32), ("pattern", c_int32), ("table_size", c_uint64),
                ("max_points_per_frame", c_uint64), ("reserved", c_uint64 * 4)]


class ScanResult(Structure):
    _fields_ = [("shots", c_uint64), ("points", c_uint64), ("frames_completed", c_uint64),
                ("points_lost", c_uint64), ("rays_traced", c_uint64), ("reserved", c_uint64 * 3)]


class PoseKey(Structure):
    _fields_ = [("t_ns", c_int64), ("pose", c_double * 16)]


class Motion(Structure):
    _fields_ = [("keys", POINTER(PoseKey)), ("key_count", c_uint32), ("interp", c_uint32),
                ("world_step", c_uint64), ("reserved", c_uint64 * 4)]


class PatternStats(Structure):
    _fields_ = [("shots", c_uint64), ("no_beam", c_uint64), ("shots_per_s", c_double), ("az_min_rad", c_double),
                ("az_max_rad", c_double), ("el_min_rad", c_double), ("el_max_rad", c_double),
                ("full_fov_rad", c_double), ("az_bins", c_uint32), ("el_bins", c_uint32), ("bins_hit", c_uint64),
                ("reserved", c_uint64 * 4)]


class ProximityDesc(Structure):
    _fields_ = [("sensor_id", c_uint32), ("exclude_actor_id", c_uint32), ("rate_hz", c_double),
                ("box_center", c_double * 3), ("box_half_extents", c_double * 3), ("front_m", c_double),
                ("back_m", c_double), ("side_m", c_double), ("reserved", c_uint64 * 4)]


class SensorSample(Structure):
    _fields_ = [("sensor_index", c_uint32), ("sensor_id", c_uint32), ("frame_number", c_uint64), ("t_ns", c_int64),
                ("period_ns", c_int64), ("world_step", c_uint64), ("platform_pose", c_double * 16),
                ("scene", c_void_p), ("output", c_void_p), ("reserved", c_uint64 * 4)]


SENSOR_FN = CFUNCTYPE(c_int32, c_void_p, POINTER(SensorSample))
CONSUMER_FN = CFUNCTYPE(c_int32, c_void_p, c_uint32, c_void_p)


class SensorDesc(Structure):
    _fields_ = [("sensor_id", c_uint32), ("reserved_u32", c_uint32), ("rate_hz", c_double), ("sample", SENSOR_FN),
                ("user", c_void_p), ("reserved", c_uint64 * 4)]


class RigStepResult(Structure):
    _fields_ = [("world_step", c_uint64), ("t_begin_ns", c_int64), ("t_end_ns", c_int64),
                ("frames_completed", c_uint64), ("sensors_refused", c_uint32), ("reserved_u32", c_uint32),
                ("rays_traced", c_uint64), ("reserved", c_uint64 * 3)]


class RayBatch(Structure):
    _fields_ = [("count", c_uint64), ("origins", c_void_p), ("directions", c_void_p), ("tnear", c_void_p),
                ("tfar", c_void_p), ("time_ns", c_void_p), ("time_ns_all", c_int64), ("origin_stride", c_uint32),
                ("direction_stride", c_uint32), ("tnear_stride", c_uint32), ("tfar_stride", c_uint32),
                ("time_stride", c_uint32), ("reserved_u32", c_uint32), ("reserved", c_uint64 * 4)]


class RayHit(Structure):
    _fields_ = [("distance", c_float), ("normal", c_float * 3), ("u", c_float), ("v", c_float),
                ("object_id", c_uint32), ("mesh_id", c_uint32), ("primitive_id", c_uint32), ("material", c_uint16),
                ("tag", c_uint8), ("hit", c_uint8)]


class CameraDesc(Structure):
    _fields_ = [("name", c_char * 32), ("width", c_uint32), ("height", c_uint32), ("model", c_int32),
                ("samples_per_pixel", c_uint32), ("hfov_deg", c_double), ("fx", c_double), ("fy", c_double),
                ("cx", c_double), ("cy", c_double), ("distortion", c_double * 5), ("max_depth_m", c_double),
                ("row_readout_ns", c_int64), ("sun_azimuth_deg", c_double), ("sun_elevation_deg", c_double),
                ("ambient", c_double), ("pixel_center_offset", c_double), ("depth_far_plane", c_uint32),
                ("reserved_u32", c_uint32), ("reserved", c_uint64 * 6)]


class CameraInfo(Structure):
    _fields_ = [("width", c_uint32), ("height", c_uint32), ("distortion_model", c_char * 16), ("d", c_double * 5),
                ("k", c_double * 9), ("r", c_double * 9), ("p", c_double * 12), ("hfov_deg", c_double),
                ("reserved", c_uint64 * 4)]


class CameraImages(Structure):
    _fields_ = [("depth", c_void_p), ("semantic", c_void_p), ("instance", c_void_p), ("normal", c_void_p),
                ("rgb", c_void_p), ("reserved", c_uint64 * 4)]


class ImageView(Structure):
    _fields_ = [("header", POINTER(FrameHeader)), ("width", c_uint32), ("height", c_uint32), ("outputs", c_uint32),
                ("reserved_u32", c_uint32), ("depth", c_void_p), ("semantic", c_void_p), ("instance", c_void_p),
                ("normal", c_void_p), ("rgb", c_void_p), ("reserved", c_uint64 * 4)]


class PlatformState(Structure):
    _fields_ = [("pose", c_double * 16), ("given", c_uint32), ("reserved_u32", c_uint32),
                ("velocity", c_double * 3), ("acceleration", c_double * 3), ("angular_velocity", c_double * 3),
                ("angular_acceleration", c_double * 3), ("reserved", c_uint64 * 4)]


class McapSinkDesc(Structure):
    _fields_ = [("writer", c_void_p), ("name", c_char_p), ("topic_prefix", c_char_p), ("camera", c_void_p),
                ("nav_kind", c_int32), ("reserved_i32", c_int32), ("gyro_var", c_double * 3),
                ("accel_var", c_double * 3), ("enu_var_m2", c_double * 3), ("lidar", c_void_p),
                ("reserved", c_uint64 * 3)]


class FrameSinkDesc(Structure):
    _fields_ = [("dir", c_char_p), ("sensor_name", c_char_p), ("format", c_int32), ("frame", c_int32),
                ("images", c_uint32), ("reserved_u32", c_uint32), ("lidar", c_void_p), ("reserved", c_uint64 * 4)]


class ImageSinkDesc(Structure):
    _fields_ = [("dir", c_char_p), ("camera_name", c_char_p), ("camera", c_void_p), ("frame", c_int32),
                ("outputs", c_uint32), ("threads", c_uint32), ("reserved_u32", c_uint32), ("queue_bytes", c_uint64),
                ("reserved", c_uint64 * 2)]


class ImageSinkStats(Structure):
    _fields_ = [("captures", c_uint64), ("files", c_uint64), ("bytes", c_uint64), ("encode_cpu_s", c_double),
                ("write_s", c_double), ("wait_s", c_double), ("waits", c_uint64), ("queue_peak_bytes", c_uint64),
                ("queued_bytes", c_uint64), ("threads", c_uint32), ("reserved_u32", c_uint32),
                ("reserved", c_uint64 * 4)]


class CsvSinkDesc(Structure):
    _fields_ = [("path", c_char_p), ("kind", c_int32), ("frame", c_int32), ("reserved", c_uint64 * 4)]


class Kinematics(Structure):
    _fields_ = [("pose", c_double * 16), ("velocity", c_double * 3), ("acceleration", c_double * 3),
                ("angular_velocity", c_double * 3), ("angular_acceleration", c_double * 3),
                ("reserved", c_uint64 * 1)]


class NavDesc(Structure):
    _fields_ = [("kind", c_int32), ("interp", c_int32), ("sensor_id", c_uint32), ("seed", c_uint32),
                ("rate_hz", c_double), ("mount_pose", c_double * 16), ("gravity_mps2", c_double),
                ("accel_stddev", c_double * 3), ("gyro_stddev", c_double * 3), ("gyro_bias", c_double * 3),
                ("accel_bias", c_double * 3), ("accel_noise_density", c_double), ("gyro_noise_density", c_double),
                ("accel_random_walk", c_double), ("gyro_random_walk", c_double), ("gnss_model", c_int32),
                ("reserved_u32", c_uint32), ("ref_latitude_deg", c_double), ("ref_longitude_deg", c_double),
                ("ref_altitude_m", c_double), ("lat_bias_deg", c_double), ("lat_stddev_deg", c_double),
                ("lon_bias_deg", c_double), ("lon_stddev_deg", c_double), ("alt_bias_m", c_double),
                ("alt_stddev_m", c_double), ("reserved", c_uint64 * 8)]


class NavSample(Structure):
    _fields_ = [("t_ns", c_int64), ("index", c_uint64), ("sensor_id", c_uint32), ("kind", c_int32),
                ("accel", c_double * 3), ("gyro", c_double * 3), ("compass_rad", c_double),
                ("latitude_deg", c_double), ("longitude_deg", c_double), ("altitude_m", c_double),
                ("position", c_double * 3), ("orientation", c_double * 4), ("velocity_world", c_double * 3),
                ("velocity_body", c_double * 3), ("angular_velocity", c_double * 3),
                ("acceleration_world", c_double * 3), ("reserved", c_uint64 * 4)]


class RadarDesc(Structure):
    _fields_ = [("model", c_int32), ("interp", c_int32), ("sensor_id", c_uint32), ("seed", c_uint32),
                ("rate_hz", c_double), ("hfov_deg", c_double), ("vfov_deg", c_double), ("range_m", c_double),
                ("points_per_second", c_double), ("mount_pose", c_double * 16), ("snr_ref_db", c_double),
                ("pfa", c_double), ("range_resolution_m", c_double), ("azimuth_resolution_deg", c_double),
                ("velocity_resolution_mps", c_double), ("range_noise_m", c_double), ("azimuth_noise_deg", c_double),
                ("velocity_noise_mps", c_double), ("max_velocity_mps", c_double), ("rain_rate_mm_h", c_double),
                ("reserved", c_uint64 * 7)]


class RadarDetection(Structure):
    _fields_ = [("depth_m", c_float), ("azimuth_rad", c_float), ("altitude_rad", c_float), ("velocity_mps", c_float),
                ("rcs_dbsm", c_float), ("snr_db", c_float), ("object_id", c_uint32), ("ray", c_uint16),
                ("tag", c_uint8), ("flags", c_uint8)]


class McapOptions(Structure):
    _fields_ = [("compression", c_int32), ("zstd_level", c_int32), ("chunk_bytes", c_uint64),
                ("split_bytes", c_uint64), ("split_ns", c_int64), ("reserved", c_uint64 * 4)]


class McapStats(Structure):
    _fields_ = [("messages", c_uint64), ("chunks", c_uint64), ("bytes", c_uint64), ("files", c_uint32),
                ("topics", c_uint32), ("dropped", c_uint64), ("reserved", c_uint64 * 3)]


class Ros2Options(Structure):
    _fields_ = [("domain_id", c_int32), ("qos", c_int32), ("graph_gid_bytes", c_int32), ("reserved_i32", c_int32),
                ("reserved", c_uint64 * 3)]


class Ros2Endpoint(Structure):
    _fields_ = [("topic", c_char * 256), ("type", c_char * 128), ("reliable", c_int32), ("transient_local", c_int32),
                ("depth", c_int32), ("reserved", c_int32), ("gid", c_uint8 * 16)]


class RosTransform(Structure):
    _fields_ = [("stamp_ns", c_int64), ("parent_frame", c_char_p), ("child_frame", c_char_p),
                ("pose", c_double * 16)]


class VehicleControlC(Structure):
    _fields_ = [("throttle", c_float), ("steer", c_float), ("brake", c_float), ("gear", c_int32),
                ("hand_brake", c_uint8), ("reverse", c_uint8), ("manual_gear_shift", c_uint8), ("reserved0", c_uint8)]


class VehicleModel(Structure):
    _fields_ = [(k, c_double) for k in ("wheelbase_m", "throttle_mps2", "reverse_mps2", "brake_mps2",
                                        "hand_brake_mps2", "drag_linear_hz", "drag_quadratic_pm",
                                        "max_wheel_rad")] + [("reserved", c_uint64 * 4)]


class VehicleStatus(Structure):
    _fields_ = [("velocity", c_double), ("linear_acceleration", c_double * 3), ("angular_acceleration", c_double * 3),
                ("orientation", c_double * 4), ("control", VehicleControlC), ("reserved", c_uint64 * 2)]


class VehicleWheel(Structure):
    _fields_ = [(k, c_float) for k in ("tire_friction", "damping_rate", "max_steer_angle", "radius",
                                       "max_brake_torque", "max_handbrake_torque")] + [("position", c_double * 3)]


VEHICLE_INFO_FLOATS = ("max_rpm", "moi", "damping_rate_full_throttle", "damping_rate_zero_throttle_clutch_engaged",
                       "damping_rate_zero_throttle_clutch_disengaged", "gear_switch_time", "clutch_strength", "mass",
                       "drag_coefficient")


class VehicleInfo(Structure):
    _fields_ = [("id", c_uint32), ("wheel_count", c_uint32), ("type", c_char_p), ("rolename", c_char_p),
                ("wheels", POINTER(VehicleWheel))] + [(k, c_float) for k in VEHICLE_INFO_FLOATS] + [
                ("use_gear_autobox", c_uint8), ("reserved0", c_uint8 * 3), ("center_of_mass", c_double * 3),
                ("reserved", c_uint64 * 2)]


class RoadInfo(Structure):
    _fields_ = [("id", c_char_p), ("name", c_char_p), ("junction", c_char_p), ("length_m", c_double),
                ("speed_limit_mps", c_double), ("geometry_count", c_uint32), ("section_count", c_uint32),
                ("line", c_uint32), ("left_hand_traffic", c_uint32), ("reserved", c_uint64 * 4)]


class RoadSignal(Structure):
    _fields_ = [("id", c_char_p), ("name", c_char_p), ("type", c_char_p), ("subtype", c_char_p),
                ("country", c_char_p), ("unit", c_char_p), ("road", c_uint32), ("line", c_uint32), ("s", c_double),
                ("t", c_double), ("z_offset", c_double), ("h_offset", c_double), ("height", c_double),
                ("width", c_double), ("value", c_double), ("dynamic", c_int32), ("orientation", c_int32),
                ("has_validity", c_int32), ("from_lane", c_int32), ("to_lane", c_int32), ("reserved_u32", c_uint32),
                ("reserved", c_uint64 * 4)]


class RoadGeometry(Structure):
    _fields_ = [("s0", c_double), ("x", c_double), ("y", c_double), ("hdg", c_double), ("length", c_double),
                ("type", c_uint32), ("reserved_u32", c_uint32), ("reserved", c_uint64 * 2)]


class LaneInfo(Structure):
    _fields_ = [("id", c_int32), ("type", c_uint32), ("t_inner", c_double), ("t_outer", c_double),
                ("section", c_uint32), ("mark_type", c_uint32), ("mark_color", c_uint32), ("level", c_int32),
                ("section_s0", c_double), ("section_s1", c_double), ("reserved", c_uint64 * 2)]


class LaneRef(Structure):
    _fields_ = [("road", c_uint32), ("lane", c_int32), ("section", c_uint32), ("reserved_u32", c_uint32),
                ("s", c_double), ("reserved", c_uint64 * 2)]


class LanePoint(Structure):
    _fields_ = [("road", c_uint32), ("lane", c_int32), ("s", c_double), ("t", c_double), ("distance_m", c_double),
                ("reserved", c_uint64 * 2)]


class RoadMeshOptions(Structure):
    _fields_ = [("step_m", c_double), ("ground_margin_m", c_double), ("sidewalk_height_m", c_double),
                ("marking_width_m", c_double), ("reserved", c_uint64 * 4)]


class RoadMeshInfo(Structure):
    _fields_ = [("mesh_id", c_uint32), ("reserved_u32", c_uint32), ("triangles", c_uint64),
                ("road_triangles", c_uint64), ("sidewalk_triangles", c_uint64), ("marking_triangles", c_uint64),
                ("ground_triangles", c_uint64), ("reserved", c_uint64 * 2)]


STRUCTS = {
    "sensim_road_mesh_options": RoadMeshOptions, "sensim_road_mesh_info": RoadMeshInfo,
    "sensim_road_info": RoadInfo, "sensim_road_signal": RoadSignal, "sensim_road_geometry": RoadGeometry, "sensim_lane_info": LaneInfo,
    "sensim_lane_ref": LaneRef, "sensim_lane_point": LanePoint,
    "sensim_mcap_options": McapOptions, "sensim_ros2_options": Ros2Options, "sensim_ros2_endpoint": Ros2Endpoint, "sensim_mcap_stats": McapStats, "sensim_ros_transform": RosTransform,
    "sensim_vehicle_control": VehicleControlC, "sensim_vehicle_model": VehicleModel, "sensim_vehicle_status": VehicleStatus,
    "sensim_vehicle_wheel": VehicleWheel, "sensim_vehicle_info": VehicleInfo,
    "sensim_ray_batch": RayBatch, "sensim_ray_hit": RayHit, "sensim_camera_desc": CameraDesc,
    "sensim_camera_info": CameraInfo, "sensim_camera_images": CameraImages, "sensim_image_view": ImageView,
    "sensim_appearance": Appearance, "sensim_kinematics": Kinematics, "sensim_platform_state": PlatformState, "sensim_frame_sink_desc": FrameSinkDesc,
    "sensim_image_sink_desc": ImageSinkDesc, "sensim_image_sink_stats": ImageSinkStats, "sensim_csv_sink_desc": CsvSinkDesc, "sensim_nav_desc": NavDesc,
    "sensim_nav_sample": NavSample, "sensim_radar_desc": RadarDesc, "sensim_radar_detection": RadarDetection,
    "sensim_sensor_sample": SensorSample, "sensim_sensor_desc": SensorDesc,
    "sensim_context_desc": ContextDesc, "sensim_mesh_desc": MeshDesc, "sensim_load_options": LoadOptions,
    "sensim_scene_info": SceneInfo, "sensim_street_info": StreetInfo, "sensim_roi_desc": RoiDesc,
    "sensim_roi_metrics": RoiMetrics, "sensim_material": Material, "sensim_field": Field,
    "sensim_frame_header": FrameHeader, "sensim_frame_view": FrameView, "sensim_ring_stats": RingStats,
    "sensim_lidar_info": LidarInfo, "sensim_scan_result": ScanResult, "sensim_pose_key": PoseKey,
    "sensim_motion": Motion, "sensim_pattern_stats": PatternStats, "sensim_proximity_desc": ProximityDesc,
    "sensim_rig_step_result": RigStepResult,
}

d16 = c_double * 16
d3 = c_double * 3

# name: (restype, argtypes)
PROTOTYPES = {
    "sensim_road_network_load": (status_t, [c_void_p, c_char_p, c_uint64, POINTER(c_void_p)]),
    "sensim_road_network_destroy": (None, [c_void_p]),
    "sensim_road_network_count": (c_uint32, [c_void_p]),
    "sensim_road_network_info": (status_t, [c_void_p, c_uint32, POINTER(RoadInfo)]),
    "sensim_road_network_signal_count": (c_uint32, [c_void_p]),
    "sensim_road_network_signal": (status_t, [c_void_p, c_uint32, POINTER(RoadSignal)]),
    "sensim_road_network_find": (status_t, [c_void_p, c_char_p, POINTER(c_uint32)]),
    "sensim_road_network_geometry": (status_t, [c_void_p, c_uint32, c_uint32, POINTER(RoadGeometry)]),
    "sensim_road_network_pose": (status_t, [c_void_p, c_uint32, c_double, c_double, c_double, d16]),
    "sensim_road_network_lanes": (status_t, [c_void_p, c_uint32, c_double, POINTER(LaneInfo), c_uint32,
                                             POINTER(c_uint32)]),
    "sensim_road_network_next_lanes": (status_t, [c_void_p, c_uint32, c_uint32, c_int32, POINTER(LaneRef), c_uint32,
                                                  POINTER(c_uint32)]),
    "sensim_road_network_previous_lanes": (status_t, [c_void_p, c_uint32, c_uint32, c_int32, POINTER(LaneRef),
                                                      c_uint32, POINTER(c_uint32)]),
    "sensim_road_network_locate": (status_t, [c_void_p, d3, c_uint32, POINTER(LanePoint)]),
    "sensim_road_mesh_options_init": (None, [POINTER(RoadMeshOptions)]),
    "sensim_scene_add_road_network": (status_t, [c_void_p, c_void_p, POINTER(RoadMeshOptions),
                                                 POINTER(RoadMeshInfo)]),
    "sensim_status_string": (c_char_p, [status_t]),
    "sensim_version_string": (c_char_p, []),
    "sensim_version_number": (c_uint32, []),
    "sensim_context_desc_init": (None, [POINTER(ContextDesc)]),
    "sensim_context_create": (status_t, [POINTER(ContextDesc), POINTER(c_void_p)]),
    "sensim_context_destroy": (None, [c_void_p]),
    "sensim_context_last_error": (c_char_p, [c_void_p]),
    "sensim_context_thread_count": (c_uint32, [c_void_p]),
    "sensim_context_set_thread_count": (status_t, [c_void_p, c_uint32]),
    "sensim_scene_create": (status_t, [c_void_p, POINTER(c_void_p)]),
    "sensim_scene_destroy": (None, [c_void_p]),
    "sensim_mesh_desc_init": (None, [POINTER(MeshDesc)]),
    "sensim_scene_add_mesh": (status_t, [c_void_p, POINTER(MeshDesc), POINTER(c_uint32)]),
    "sensim_load_options_init": (None, [POINTER(LoadOptions)]),
    "sensim_scene_load_file": (status_t, [c_void_p, c_char_p, POINTER(LoadOptions), POINTER(c_uint32)]),
    "sensim_scene_add_actor": (status_t, [c_void_p, c_uint32, c_uint32, d16]),
    "sensim_scene_add_instance": (status_t, [c_void_p, c_uint32, d16]),
    "sensim_scene_set_actor_pose": (status_t, [c_void_p, c_uint32, d16]),
    "sensim_scene_remove_actor": (status_t, [c_void_p, c_uint32]),
    "sensim_scene_set_motion_interval": (status_t, [c_void_p, c_int64, c_int64]),
    "sensim_scene_set_flatten": (status_t, [c_void_p, c_uint64]),
    "sensim_scene_set_actor_motion": (status_t, [c_void_p, c_uint32, d16, d16]),
    "sensim_scene_commit": (status_t, [c_void_p]),
    "sensim_scene_get_info": (status_t, [c_void_p, POINTER(SceneInfo)]),
    "sensim_scene_add_street": (status_t, [c_void_p, c_float, c_uint32, POINTER(StreetInfo)]),
    "sensim_scene_intersect": (status_t, [c_void_p, POINTER(RayBatch), c_void_p]),
    "sensim_scene_occluded": (status_t, [c_void_p, POINTER(RayBatch), c_void_p]),
    "sensim_camera_desc_preset": (status_t, [c_char_p, POINTER(CameraDesc)]),
    "sensim_camera_desc_set": (status_t, [POINTER(CameraDesc), c_char_p, c_char_p]),
    "sensim_camera_create": (status_t, [c_void_p, POINTER(CameraDesc), POINTER(c_void_p)]),
    "sensim_camera_destroy": (None, [c_void_p]),
    "sensim_camera_set_mount_pose": (status_t, [c_void_p, d16]),
    "sensim_camera_get_info": (status_t, [c_void_p, POINTER(CameraInfo)]),
    "sensim_camera_render": (status_t, [c_void_p, c_void_p, POINTER(Motion), c_int64, POINTER(CameraImages), d16]),
    "sensim_scene_set_material": (status_t, [c_void_p, c_uint32, POINTER(Material)]),
    "sensim_scene_set_material_appearance": (status_t, [c_void_p, c_uint32, POINTER(Appearance)]),
    "sensim_scene_find_material": (status_t, [c_void_p, c_char_p, POINTER(c_uint32)]),
    "sensim_material_default": (None, [c_uint32, POINTER(Material)]),
    "sensim_tag_from_name": (c_int32, [c_char_p]),
    "sensim_tag_from_label": (c_int32, [c_char_p]),
    "sensim_tag_name": (c_char_p, [c_uint32]),
    "sensim_point_fields": (POINTER(Field), [POINTER(c_uint32)]),
    "sensim_ring_required_size": (status_t, [c_uint64, c_uint32, POINTER(c_size_t)]),
    "sensim_ring_init": (status_t, [c_void_p, c_size_t, c_uint64, c_uint32, c_int32, POINTER(c_void_p)]),
    "sensim_ring_peek": (status_t, [c_void_p, POINTER(FrameView)]),
    "sensim_ring_peek_open": (status_t, [c_void_p, POINTER(FrameView)]),
    "sensim_ring_release": (status_t, [c_void_p]),
    "sensim_image_ring_required_size": (status_t, [c_uint32, c_uint32, c_uint32, c_uint32, POINTER(c_size_t)]),
    "sensim_image_ring_init": (status_t, [c_void_p, c_size_t, c_uint32, c_uint32, c_uint32, c_uint32, c_int32,
                                          POINTER(c_void_p)]),
    "sensim_ring_peek_image": (status_t, [c_void_p, POINTER(ImageView)]),
    "sensim_kinematics_at": (status_t, [POINTER(PoseKey), c_uint64, c_int32, c_int64, POINTER(Kinematics)]),
    "sensim_nav_desc_init": (None, [POINTER(NavDesc), c_int32]),
    "sensim_nav_desc_set": (status_t, [POINTER(NavDesc), c_char_p, c_char_p]),
    "sensim_nav_create": (status_t, [c_void_p, POINTER(NavDesc), POINTER(c_void_p)]),
    "sensim_nav_destroy": (None, [c_void_p]),
    "sensim_nav_sample_at": (status_t, [c_void_p, POINTER(PoseKey), c_uint64, c_uint64, POINTER(NavSample)]),
    "sensim_nav_ring_required_size": (status_t, [c_uint32, POINTER(c_size_t)]),
    "sensim_nav_ring_init": (status_t, [c_void_p, c_size_t, c_uint32, c_int32, POINTER(c_void_p)]),
    "sensim_ring_peek_nav": (status_t, [c_void_p, POINTER(POINTER(FrameHeader)), POINTER(POINTER(NavSample))]),
    "sensim_rig_add_nav": (status_t, [c_void_p, c_void_p, c_void_p, POINTER(c_uint32)]),
    "sensim_radar_fields": (POINTER(Field), [POINTER(c_uint32)]),
    "sensim_radar_desc_init": (None, [POINTER(RadarDesc)]),
    "sensim_radar_desc_set": (status_t, [POINTER(RadarDesc), c_char_p, c_char_p]),
    "sensim_radar_create": (status_t, [c_void_p, POINTER(RadarDesc), POINTER(c_void_p)]),
    "sensim_radar_destroy": (None, [c_void_p]),
    "sensim_radar_sample_at": (status_t, [c_void_p, c_void_p, POINTER(PoseKey), c_uint64, c_uint64, c_void_p,
                                          c_uint64, POINTER(c_uint64), c_void_p]),
    "sensim_radar_rays_per_sample": (c_uint64, [c_void_p]),
    "sensim_radar_period_ns": (c_int64, [c_void_p]),
    "sensim_rig_add_radar": (status_t, [c_void_p, c_void_p, c_void_p, POINTER(c_uint32)]),
    "sensim_rig_add_camera": (status_t, [c_void_p, c_void_p, c_double, c_uint32, c_void_p, POINTER(c_uint32)]),
    "sensim_ring_pop": (status_t, [c_void_p, POINTER(FrameHeader), c_void_p, c_uint64, POINTER(c_uint64)]),
    "sensim_ring_get_stats": (status_t, [c_void_p, POINTER(RingStats)]),
    "sensim_lidar_create_from_preset": (status_t, [c_void_p, c_char_p, POINTER(c_char_p), c_uint32,
                                                   POINTER(c_void_p)]),
    "sensim_lidar_destroy": (None, [c_void_p]),
    "sensim_lidar_get_info": (status_t, [c_void_p, POINTER(LidarInfo)]),
    "sensim_lidar_ring_size": (status_t, [c_void_p, c_uint32, POINTER(c_uint64), POINTER(c_size_t)]),
    "sensim_lidar_get_elevations": (status_t, [c_void_p, POINTER(c_float), c_uint32, POINTER(c_uint32)]),
    "sensim_lidar_count_shots": (status_t, [c_void_p, c_int64, c_int64, POINTER(c_uint64)]),
    "sensim_roi_desc_init": (None, [POINTER(RoiDesc)]),
    "sensim_roi_grid_size": (status_t, [POINTER(RoiDesc), POINTER(c_uint32), POINTER(c_uint32)]),
    "sensim_roi_accumulate": (status_t, [POINTER(RoiDesc), c_void_p, c_uint64, c_void_p, POINTER(c_uint64)]),
    "sensim_roi_evaluate": (status_t, [POINTER(RoiDesc), c_void_p, POINTER(RoiMetrics)]),
    "sensim_roi_information_gain": (status_t, [POINTER(RoiDesc), c_void_p, c_void_p, POINTER(c_double),
                                               POINTER(c_double)]),
    "sensim_boxes_count": (status_t, [c_void_p, c_uint32, c_void_p, c_uint64, c_void_p]),
    "sensim_lidar_box_shots": (status_t, [c_void_p, c_int64, c_int64, POINTER(c_double), c_void_p, c_uint32,
                                          c_void_p, c_void_p, c_void_p, c_void_p, c_void_p]),
    "sensim_write_roi_png": (status_t, [c_char_p, POINTER(RoiDesc), c_void_p, c_void_p, c_uint32,
                                        POINTER(c_uint32), POINTER(c_uint32)]),
    "sensim_lidar_set_mount_pose": (status_t, [c_void_p, d16]),
    "sensim_lidar_rewind": (status_t, [c_void_p]),
    "sensim_lidar_set_shot_offset": (status_t, [c_void_p, c_int64]),
    "sensim_lidar_set_weather": (status_t, [c_void_p, c_float, c_float]),
    "sensim_radar_set_weather": (status_t, [c_void_p, c_double]),
    "sensim_lidar_scan": (status_t, [c_void_p, c_void_p, c_int64, c_int64, d16, c_void_p, POINTER(ScanResult)]),
    "sensim_lidar_scan_motion": (status_t, [c_void_p, c_void_p, c_int64, c_int64, POINTER(Motion), c_void_p,
                                            POINTER(ScanResult)]),
    "sensim_motion_from_velocity": (status_t, [d16, c_int64, c_int64, d3, d3, POINTER(PoseKey)]),
    "sensim_motion_pose_at": (status_t, [POINTER(PoseKey), c_uint32, c_int64, d16]),
    "sensim_preset_search_dir": (c_char_p, [c_uint32]),
    "sensim_write_ply": (status_t, [c_char_p, POINTER(FrameHeader), c_void_p, c_uint64]),
    "sensim_write_points": (status_t, [c_char_p, c_int32, POINTER(FrameHeader), c_void_p, c_uint64]),
    "sensim_write_png": (status_t, [c_char_p, c_uint32, c_uint32, c_uint32, c_uint32, c_void_p, c_size_t]),
    "sensim_tag_color": (None, [c_uint32, c_void_p]),
    "sensim_pattern_measure": (status_t, [c_void_p, c_int64, c_int64, c_double, POINTER(c_int64), c_uint32,
                                          POINTER(c_double), POINTER(c_uint32), c_uint64, POINTER(PatternStats)]),
    "sensim_pattern_export_csv": (status_t, [c_void_p, c_int64, c_int64, c_char_p, POINTER(c_uint64)]),
    "sensim_proximity_desc_init": (None, [POINTER(ProximityDesc)]),
    "sensim_rig_create": (status_t, [c_void_p, POINTER(c_void_p)]),
    "sensim_rig_destroy": (None, [c_void_p]),
    "sensim_rig_add_lidar": (status_t, [c_void_p, c_void_p, c_void_p, POINTER(c_uint32)]),
    "sensim_rig_add_proximity": (status_t, [c_void_p, POINTER(ProximityDesc), c_void_p, POINTER(c_uint32)]),
    "sensim_rig_set_time": (status_t, [c_void_p, c_int64]),
    "sensim_rig_set_world_step": (status_t, [c_void_p, c_uint64]),
    "sensim_platform_state_init": (None, [POINTER(PlatformState)]),
    "sensim_rig_push_pose": (status_t, [c_void_p, c_int64, POINTER(c_double * 16)]),
    "sensim_rig_push_state": (status_t, [c_void_p, c_int64, POINTER(PlatformState)]),
    "sensim_rig_jump_to_pose": (status_t, [c_void_p, c_int64, POINTER(c_double * 16)]),
    "sensim_rig_advance": (status_t, [c_void_p, c_void_p, c_int64, c_void_p, c_uint32, c_void_p]),
    "sensim_rig_jump_to_state": (status_t, [c_void_p, c_int64, POINTER(PlatformState)]),
    "sensim_rig_platform_at": (status_t, [c_void_p, c_int64, POINTER(Kinematics)]),
    "sensim_rig_set_consumer": (status_t, [c_void_p, c_uint32, c_void_p, c_void_p]),
    "sensim_frame_sink_desc_init": (None, [POINTER(FrameSinkDesc)]),
    "sensim_frame_sink_create": (status_t, [POINTER(FrameSinkDesc), POINTER(c_void_p)]),
    "sensim_frame_sink_destroy": (None, [c_void_p]),
    "sensim_mcap_sink_desc_init": (None, [POINTER(McapSinkDesc)]),
    "sensim_mcap_sink_create": (status_t, [POINTER(McapSinkDesc), POINTER(c_void_p)]),
    "sensim_mcap_sink_destroy": (None, [c_void_p]),
    "sensim_mcap_sink_consume": (status_t, [c_void_p, c_uint32, c_void_p]),
    "sensim_frame_sink_consume": (status_t, [c_void_p, c_uint32, c_void_p]),
    "sensim_image_sink_desc_init": (None, [POINTER(ImageSinkDesc)]),
    "sensim_image_sink_create": (status_t, [POINTER(ImageSinkDesc), POINTER(c_void_p)]),
    "sensim_image_sink_destroy": (None, [c_void_p]),
    "sensim_image_sink_consume": (status_t, [c_void_p, c_uint32, c_void_p]),
    "sensim_image_sink_flush": (status_t, [c_void_p]),
    "sensim_image_sink_get_stats": (status_t, [c_void_p, POINTER(ImageSinkStats)]),
    "sensim_csv_sink_desc_init": (None, [POINTER(CsvSinkDesc)]),
    "sensim_csv_sink_create": (status_t, [POINTER(CsvSinkDesc), POINTER(c_void_p)]),
    "sensim_csv_sink_close": (status_t, [c_void_p]),
    "sensim_csv_sink_destroy": (None, [c_void_p]),
    "sensim_csv_sink_consume": (status_t, [c_void_p, c_uint32, c_void_p]),
    "sensim_sensor_desc_init": (None, [POINTER(SensorDesc)]),
    "sensim_rig_add_sensor": (status_t, [c_void_p, POINTER(SensorDesc), c_void_p, POINTER(c_uint32)]),
    "sensim_sensor_output_push": (status_t, [c_void_p, c_void_p, c_uint64]),
    "sensim_rig_step": (status_t, [c_void_p, c_void_p, c_int64, POINTER(Motion), POINTER(RigStepResult)]),
    "sensim_mcap_options_init": (None, [POINTER(McapOptions)]),
    "sensim_mcap_open": (status_t, [c_char_p, POINTER(McapOptions), POINTER(c_void_p)]),
    "sensim_mcap_close": (status_t, [c_void_p, POINTER(c_uint32)]),
    "sensim_mcap_add_topic": (status_t, [c_void_p, c_char_p, c_int32, POINTER(c_uint16)]),
    "sensim_mcap_write_cloud": (status_t, [c_void_p, c_uint16, c_int64, c_int64, c_char_p, POINTER(Field), c_uint32,
                                           c_uint32, c_void_p, c_uint64]),
    "sensim_mcap_write_points": (status_t, [c_void_p, c_uint16, c_int64, c_char_p, POINTER(FrameView)]),
    "sensim_mcap_write_image": (status_t, [c_void_p, c_uint16, c_int64, c_int64, c_char_p, c_uint32, c_uint32,
                                           c_char_p, c_uint32, c_void_p]),
    "sensim_mcap_write_camera_info": (status_t, [c_void_p, c_uint16, c_int64, c_int64, c_char_p,
                                                 POINTER(CameraInfo)]),
    "sensim_mcap_write_imu": (status_t, [c_void_p, c_uint16, c_int64, c_char_p, POINTER(NavSample), c_double,
                                         c_double, c_double]),
    "sensim_mcap_write_imu_axes": (status_t, [c_void_p, c_uint16, c_int64, c_char_p, POINTER(NavSample), c_double,
                                   POINTER(c_double), POINTER(c_double)]),
    "sensim_mcap_write_navsatfix_enu": (status_t, [c_void_p, c_uint16, c_int64, c_char_p, POINTER(NavSample),
                                        POINTER(c_double)]),
    "sensim_gnss_enu_variance": (status_t, [c_double, c_double, c_double, c_double, POINTER(c_double)]),
    "sensim_mcap_write_navsatfix": (status_t, [c_void_p, c_uint16, c_int64, c_char_p, POINTER(NavSample), c_double,
                                               c_double]),
    "sensim_mcap_write_odometry": (status_t, [c_void_p, c_uint16, c_int64, c_int64, c_char_p, c_char_p, d16, d3,
                                              d3]),
    "sensim_mcap_write_transforms": (status_t, [c_void_p, c_uint16, c_int64, POINTER(RosTransform), c_uint32]),
    "sensim_mcap_write_clock": (status_t, [c_void_p, c_uint16, c_int64, c_int64]),
    "sensim_mcap_write_vehicle_status": (status_t, [c_void_p, c_uint16, c_int64, c_int64, c_char_p,
                                                    POINTER(VehicleStatus)]),
    "sensim_vehicle_model_init": (None, [POINTER(VehicleModel)]),
    "sensim_vehicle_step": (status_t, [POINTER(VehicleModel), POINTER(VehicleControlC), c_double,
                                       POINTER(c_double), d16, POINTER(c_double)]),
    "sensim_mcap_write_vehicle_info": (status_t, [c_void_p, c_uint16, c_int64, POINTER(VehicleInfo)]),
    "sensim_mcap_write_vehicle_control": (status_t, [c_void_p, c_uint16, c_int64, c_int64, c_char_p,
                                                     POINTER(VehicleControlC)]),
    "sensim_mcap_write_collision": (status_t, [c_void_p, c_uint16, c_int64, c_int64, c_char_p, c_uint32, d3]),
    "sensim_mcap_write_lane_invasion": (status_t, [c_void_p, c_uint16, c_int64, c_int64, c_char_p,
                                                   POINTER(c_int32), c_uint32]),
    "sensim_mcap_get_stats": (status_t, [c_void_p, POINTER(McapStats)]),
    "sensim_ros2_options_init": (None, [POINTER(Ros2Options)]),
    "sensim_ros2_open": (status_t, [POINTER(Ros2Options), POINTER(c_void_p)]),
    "sensim_ros2_subscribers": (status_t, [c_void_p, c_uint16, POINTER(c_uint32)]),
    "sensim_mcap_set_ring_order": (status_t, [c_void_p, c_uint16, POINTER(c_float), c_uint32]),
    "sensim_mcap_set_stamp_offset": (status_t, [c_void_p, c_int64]),
    "sensim_mcap_topic": (status_t, [c_void_p, c_uint16, POINTER(c_char_p), POINTER(c_int32)]),
    "sensim_ros2_reader_open": (status_t, [c_void_p, c_char_p, c_char_p, POINTER(c_void_p)]),
    "sensim_ros2_read": (status_t, [c_void_p, c_int64, POINTER(POINTER(c_uint8)), POINTER(c_size_t)]),
    "sensim_ros2_reader_publishers": (status_t, [c_void_p, POINTER(c_uint32), POINTER(c_uint32)]),
    "sensim_ros2_reader_close": (None, [c_void_p]),
    "sensim_ros2_publications": (status_t, [c_void_p, POINTER(Ros2Endpoint), c_uint32, POINTER(c_uint32)]),
    "sensim_ros2_message_definition": (c_char_p, [c_char_p]),
    "sensim_ros2_incompatible": (status_t, [c_void_p, c_uint16, POINTER(c_uint32), POINTER(c_char_p)]),
    "sensim_ros2_set_node": (status_t, [c_void_p, c_char_p, c_char_p]),
    "sensim_ros2_available": (c_int32, []),
    "sensim_pose_from_frame": (status_t, [c_int32, d3, d3, d16]),
    "sensim_pose_to_frame": (status_t, [c_int32, d16, d3, d3]),
    "sensim_point_to_frame": (status_t, [c_int32, d3, d3]),
    "sensim_point_from_frame": (status_t, [c_int32, d3, d3]),
}


def _candidates():
    env = os.environ.get("SENSIM_LIBRARY")
    if env:
        yield env
        return
    # Installed code looks only in installed places: the library of its own
    # prefix (meson writes _installed.py at install time), then the loader
    # path. (A guess at ../build/libsensim.so would load whatever sits there
    # when the package is copied; a source checkout sets SENSIM_LIBRARY.)
    try:
        from . import _installed
    except ImportError:
        _installed = None
    if _installed is not None:
        own = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                            _installed.LIBDIR_FROM_PACKAGE, _installed.SONAME))
        if os.path.exists(own):
            yield own
    yield "libsensim.so.0"
    found = ctypes.util.find_library("sensim")
    if found:
        yield found


def load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append("%s: not found" % path)
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append("%s: %s" % (path, e))
            continue
        for name, (res, args) in PROTOTYPES.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        lib._path = path
        return lib
    raise OSError("libsensim not found (set SENSIM_LIBRARY); tried: " + "; ".join(errors))


LOG_FN = CFUNCTYPE(None, c_void_p, c_int32, c_char_p)
