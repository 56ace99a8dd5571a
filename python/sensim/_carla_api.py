"""CARLA 0.9.15's Python API, class by class, and what sensim.carla does with the names it does not offer:
below the facade (never imports sensim.carla). docs/carla.md's API table is checked against this module
(python/tests/test_carla_api.py): every CARLA name of a class is supported, differs (said how) or refused.

A refused name is still an attribute, as in CARLA (``hasattr`` is true); calling it raises RuntimeError
naming the call and what to use instead. A name CARLA does not have either raises AttributeError, with
the closest names offered ("did you mean").
"""
import difflib

# CARLA 0.9.15's names (Docs/python_api.md of carla-simulator/carla at 050ca55, which has 0.9.15's
# WorldSettings.spectator_as_ego; plus the 0.9.15 additions it lacks: Client.load_world_if_different,
# Sensor's enable_for_ros/disable_for_ros/is_enabled_for_ros, Actor's component, bone and socket getters).
CARLA = {
    "Client": """apply_batch apply_batch_sync generate_opendrive_world get_available_maps get_client_version
        get_required_files get_server_version get_trafficmanager get_world load_world load_world_if_different
        reload_world replay_file request_file set_files_base_folder set_replayer_ignore_hero
        set_replayer_ignore_spectator set_replayer_time_factor set_timeout show_recorder_actors_blocked
        show_recorder_collisions show_recorder_file_info start_recorder stop_recorder stop_replayer""",
    "World": """apply_color_texture_to_object apply_color_texture_to_objects apply_float_color_texture_to_object
        apply_float_color_texture_to_objects apply_settings apply_textures_to_object apply_textures_to_objects
        cast_ray debug enable_environment_objects freeze_all_traffic_lights get_actor get_actors
        get_blueprint_library get_environment_objects get_level_bbs get_lightmanager get_map
        get_names_of_all_objects get_random_location_from_navigation get_settings get_snapshot get_spectator
        get_traffic_light get_traffic_light_from_opendrive_id get_traffic_lights_from_waypoint
        get_traffic_lights_in_junction get_traffic_sign get_vehicles_light_states get_weather ground_projection
        id load_map_layer on_tick project_point remove_on_tick reset_all_traffic_lights
        set_pedestrians_cross_factor set_pedestrians_seed set_weather spawn_actor tick try_spawn_actor
        unload_map_layer wait_for_tick""",
    "Map": """cook_in_memory_map generate_waypoints get_all_landmarks get_all_landmarks_from_id
        get_all_landmarks_of_type get_crosswalks get_landmark_group get_spawn_points get_topology get_waypoint
        get_waypoint_xodr name save_to_disk to_opendrive transform_to_geolocation""",
    "Actor": """actor_state add_angular_impulse add_force add_impulse add_torque attributes bounding_box destroy
        disable_constant_velocity enable_constant_velocity get_acceleration get_angular_velocity
        get_bone_names get_bone_relative_transforms get_bone_world_transforms get_component_names
        get_component_relative_transform get_component_world_transform get_location get_socket_names
        get_socket_relative_transforms get_socket_world_transforms get_transform get_velocity get_world id
        is_active is_alive is_dormant parent semantic_tags set_enable_gravity set_location set_simulate_physics
        set_target_angular_velocity set_target_velocity set_transform type_id""",
    "Vehicle": """apply_ackermann_control apply_ackermann_controller_settings apply_control apply_physics_control
        bounding_box close_door enable_carsim enable_chrono_physics get_ackermann_controller_settings
        get_control get_failure_state get_light_state get_physics_control get_speed_limit get_traffic_light
        get_traffic_light_state get_wheel_steer_angle is_at_traffic_light open_door set_autopilot
        set_light_state set_wheel_steer_direction show_debug_telemetry use_carsim_road""",
    "Walker": "apply_control blend_pose get_bones get_control get_pose_from_animation hide_pose set_bones show_pose",
    "Sensor": """disable_for_ros enable_for_ros is_enabled_for_ros is_listening is_listening_gbuffer listen
        listen_to_gbuffer stop stop_gbuffer""",
    "WorldSettings": """actor_active_distance deterministic_ragdolls fixed_delta_seconds max_culling_distance
        max_substep_delta_time max_substeps no_rendering_mode spectator_as_ego substepping synchronous_mode
        tile_stream_distance""",
    # with the binding's deprecated properties (Snapshot.cpp: "use timestamp"), which CARLA's examples read
    "WorldSnapshot": "delta_seconds elapsed_seconds find frame frame_count has_actor id platform_timestamp timestamp",
    "ActorBlueprint": "get_attribute has_attribute has_tag id match_tags set_attribute tags",
    "BlueprintLibrary": "filter filter_by_attribute find",
    "DebugHelper": "draw_arrow draw_box draw_line draw_point draw_string",
    # classes a script cannot obtain from sensim.carla (what would hand them out is refused)
    "Waypoint": """get_junction get_landmarks get_landmarks_of_type get_left_lane get_right_lane id is_junction
        junction_id lane_change lane_id lane_type lane_width left_lane_marking next next_until_lane_end previous
        previous_until_lane_start right_lane_marking road_id s section_id transform""",
    "WalkerAIController": "go_to_location set_max_speed start stop",
    "TrafficLight": """freeze get_affected_lane_waypoints get_elapsed_time get_green_time get_group_traffic_lights
        get_light_boxes get_opendrive_id get_pole_index get_red_time get_state get_stop_waypoints
        get_yellow_time is_frozen reset_group set_green_time set_red_time set_state set_yellow_time state""",
    "TrafficSign": "trigger_volume",
    "TrafficManager": """auto_lane_change collision_detection distance_to_leading_vehicle force_lane_change
        get_all_actions get_next_action get_port global_lane_offset global_percentage_speed_difference
        ignore_lights_percentage ignore_signs_percentage ignore_vehicles_percentage ignore_walkers_percentage
        keep_right_rule_percentage random_left_lanechange_percentage random_right_lanechange_percentage
        set_boundaries_respawn_dormant_vehicles set_desired_speed set_global_distance_to_leading_vehicle
        set_hybrid_physics_mode set_hybrid_physics_radius set_osm_mode set_path set_random_device_seed
        set_respawn_dormant_vehicles set_route set_synchronous_mode shut_down update_vehicle_lights
        vehicle_lane_offset vehicle_percentage_speed_difference""",
    "LightManager": """get_all_lights get_color get_intensity get_light_group get_light_state get_turned_off_lights
        get_turned_on_lights is_active set_active set_color set_colors set_day_night_cycle set_intensities
        set_intensity set_light_group set_light_groups set_light_state set_light_states turn_off turn_on""",
}
CARLA = {k: frozenset(v.split()) for k, v in CARLA.items()}
BASES = {"Vehicle": "Actor", "Walker": "Actor", "Sensor": "Actor", "WalkerAIController": "Actor",
         "TrafficLight": "TrafficSign", "TrafficSign": "Actor"}  # CARLA's class tree (Walker is no Vehicle)

# how a script reaches each class sensim.carla does not hand out, and why not
UNREACHABLE = {
    "TrafficSign": "no traffic-sign actors: OpenDRIVE signals other than lights are read (RoadNetwork.signals) "
                   "but not spawned (a light's trigger_volume is a TrafficLight's)",
    "LightManager": "no street lights: nothing is rendered by lights (World.get_lightmanager is refused)",
}

_NO_PHYSICS = "sensim.carla has no physics: move actors with set_transform or set_target_velocity"
_NO_RECORDER = ("no recorder: record what the sensors measure with sensim's sinks (`sensim run --mcap`, "
                "examples/python/carla_sync_collect.py)")
_NO_TEXTURES = "no engine textures: sensim's cameras render the scene's materials (reflectivity, semantic tags)"
_NO_OBJECTS = "no engine objects: the scene's meshes and their tags are sensim.Scene's (Scene.intersect for rays)"
_NO_SKELETON = "walkers are boxes of CARLA's sizes: no skeleton or animation"
_NO_LANDMARKS = ("no landmarks: find a light with get_traffic_light_from_opendrive_id or "
                 "get_actors().filter('traffic.traffic_light*')")
_NO_SIGNALS = "OpenDRIVE signals are read (sensim.RoadNetwork) but not offered as CARLA landmarks yet"
_NO_SIGNALS_WP = _NO_SIGNALS

# refused names, by class: what RuntimeError says to use instead
WHY_NOT = {
    "Client": dict(
        get_required_files="no server to fetch a map's files from: scene files are local (load_world(path))",
        request_file="no server to fetch a map's files from: scene files are local (load_world(path))",
        set_files_base_folder="no server to fetch a map's files from: scene files are local (load_world(path))",
        **{n: _NO_RECORDER for n in ("replay_file", "set_replayer_ignore_hero", "set_replayer_ignore_spectator",
                                      "set_replayer_time_factor", "show_recorder_actors_blocked",
                                      "show_recorder_collisions", "show_recorder_file_info", "start_recorder",
                                      "stop_recorder", "stop_replayer")}),
    "World": dict(
        cast_ray="no LabelledPoint queries: sensim.Scene.intersect casts rays (native frame)",
        project_point="no LabelledPoint queries: sensim.Scene.intersect casts rays (native frame)",
        ground_projection="no LabelledPoint queries: sensim.Scene.intersect casts rays (native frame)",
        enable_environment_objects=_NO_OBJECTS, get_environment_objects=_NO_OBJECTS, get_level_bbs=_NO_OBJECTS,
        get_names_of_all_objects=_NO_OBJECTS,
        get_lightmanager="no street lights: nothing is rendered by lights",
        load_map_layer="no map layers: a scene is loaded whole", unload_map_layer="no map layers: a scene is "
                                                                                 "loaded whole",
        get_traffic_light=_NO_LANDMARKS, get_traffic_sign="no traffic-sign actors (RoadNetwork.signals reads them)",
        **{n: _NO_TEXTURES for n in ("apply_color_texture_to_object", "apply_color_texture_to_objects",
                                     "apply_float_color_texture_to_object", "apply_float_color_texture_to_objects",
                                     "apply_textures_to_object", "apply_textures_to_objects")}),
    "Map": dict(cook_in_memory_map="no navigation mesh to cook: walkers move by set_target_velocity or set_transform",
                **{n: _NO_SIGNALS for n in ("get_all_landmarks", "get_all_landmarks_from_id",
                                            "get_all_landmarks_of_type", "get_landmark_group")},
                get_crosswalks="crosswalks are not read from the OpenDRIVE file yet"),
    "Waypoint": dict(get_junction="no carla.Junction yet: junction_id and is_junction say which junction",
                     get_landmarks=_NO_SIGNALS_WP, get_landmarks_of_type=_NO_SIGNALS_WP),
    "Actor": dict(
        add_angular_impulse=_NO_PHYSICS, add_force=_NO_PHYSICS, add_impulse=_NO_PHYSICS, add_torque=_NO_PHYSICS,
        set_enable_gravity=_NO_PHYSICS,
        enable_constant_velocity="use set_target_velocity (CARLA's frame, integrated every tick)",
        disable_constant_velocity="use set_target_velocity(carla.Vector3D())",
        **{n: "actors are boxes of CARLA's sizes: no components, bones or sockets"
           for n in ("get_bone_names", "get_bone_relative_transforms", "get_bone_world_transforms",
                     "get_component_names", "get_component_relative_transform", "get_component_world_transform",
                     "get_socket_names", "get_socket_relative_transforms", "get_socket_world_transforms")}),
    "Vehicle": dict(
        apply_ackermann_controller_settings="the kinematic model has no PID: apply_ackermann_control sets the "
                                            "speed and steer it reaches",
        get_ackermann_controller_settings="the kinematic model has no PID: apply_ackermann_control sets the "
                                          "speed and steer it reaches",
        apply_physics_control="no vehicle physics: the kinematic model of sensim/_carla_vehicle.py",
        get_physics_control="no vehicle physics: the kinematic model of sensim/_carla_vehicle.py",
        enable_carsim="no physics engine to hand over: a CarSim co-simulation sets the vehicle's transform each "
                      "tick (examples/python/carla_cosim.py)",
        use_carsim_road="no physics engine to hand over: a CarSim co-simulation sets the vehicle's transform each "
                        "tick (examples/python/carla_cosim.py)",
        enable_chrono_physics="no physics engine to hand over: set the vehicle's transform each tick",
        open_door="vehicles are boxes of CARLA's sizes: no doors", close_door="vehicles are boxes of CARLA's "
                                                                              "sizes: no doors",
        get_wheel_steer_angle="vehicles are boxes: the steer applied is get_control().steer",
        set_wheel_steer_direction="vehicles are boxes: steer with apply_control",
        show_debug_telemetry="no viewport to show it in"),
    "Walker": dict(
        apply_control="no WalkerControl yet: move walkers with set_target_velocity or set_transform",
        get_control="no WalkerControl yet: get_velocity gives what set_target_velocity set",
        **{n: _NO_SKELETON for n in ("blend_pose", "get_bones", "get_pose_from_animation", "hide_pose",
                                     "set_bones", "show_pose")}),
    "TrafficManager": dict(
        **{n: "vehicles on autopilot follow lanes and do not change them yet" for n in ("force_lane_change",)},
        **{n: "routes are chosen at each branch by the manager's random generator; no set paths yet"
           for n in ("set_path", "set_route", "get_next_action", "get_all_actions")}),
    "Sensor": dict(
        **{n: "no renderer G-buffers: each output is a camera blueprint (rgb, depth, semantic_segmentation, "
              "instance_segmentation)" for n in ("is_listening_gbuffer", "listen_to_gbuffer", "stop_gbuffer")}),
}


def _chain(cls_name):
    while cls_name:
        yield cls_name
        cls_name = BASES.get(cls_name)


def why_not(cls_name, name):
    """What to use instead of CARLA's @p cls_name.@p name, or None if it is not refused."""
    for c in _chain(cls_name):
        if name in WHY_NOT.get(c, ()):
            return WHY_NOT[c][name]
    return None


def missing(obj, cls_name, name):
    """``__getattr__`` of sensim.carla's @p cls_name for a @p name it lacks: a refused CARLA name gives a
    callable raising RuntimeError (naming the call and what to use instead); any other name raises
    AttributeError with the closest names."""
    why = why_not(cls_name, name)
    if why is not None:
        def refused(*a, **k):
            raise RuntimeError("%s.%s: %s" % (cls_name, name, why))
        refused.__name__ = name
        return refused
    have = [n for n in dir(type(obj)) if not n.startswith("_")]
    carla = [n for c in _chain(cls_name) for n in CARLA.get(c, ())]
    close = difflib.get_close_matches(name, sorted(set(have + carla)), n=3)
    raise AttributeError("'%s' object has no attribute '%s'%s" % (
        cls_name, name, "; did you mean %s?" % " or ".join(repr(c) for c in close) if close else ""))
