/**
 * @file sensim/road.h
 * @brief Road networks from OpenDRIVE files (.xodr, ASAM OpenDRIVE 1.4–1.8):
 * roads, their reference lines, lanes, junctions and signals.
 *
 * Frame: the file's inertial frame (x east, y north, z up, right-handed,
 * headings counter-clockwise from x) is libsensim's native world frame as it
 * stands; CARLA's Unreal frame is the same with y negated. Lengths in
 * metres, angles in radians, speeds in m/s.
 *
 * A road is addressed by its index (0 .. sensim_road_network_count() - 1,
 * in the file's order) or found by its OpenDRIVE id. A point of a road is
 * (s, t, h): s along the reference line from its start, t to the left of it,
 * h up from the road surface. Lanes are numbered as in OpenDRIVE: positive
 * ids left of the centre lane (0), negative right.
 *
 * Geometry: line, arc, spiral (clothoid: curvature linear in s), poly3
 * (v(u) in the local frame, s the arc length) and paramPoly3 (pRange
 * arcLength: p = s - s0; normalized: p = (s - s0) / length), evaluated in
 * double precision (spirals and arc lengths by Gauss–Legendre quadrature,
 * 1e-9 m). Elevation, superelevation (roll about the reference line),
 * laneOffset and lane widths are OpenDRIVE's cubic polynomials (0 before a
 * profile's first record). Lanes given
 * by \<border\> instead of \<width\> are refused (SENSIM_ERR_PARSE, naming the
 * line).
 *
 * Loading reads the XML through the helper program sensim-xml (expat, in a
 * process of its own, as Assimp is run: see sensim_scene_load_file): a
 * crash, a budget or a hang of the parser is an error naming the file. A
 * missing or malformed attribute is SENSIM_ERR_PARSE naming the file, the
 * line and the attribute; nothing is half loaded.
 *
 * Thread safety: a loaded network is read-only; any number of threads may
 * query it at once. Loading and destroying: one thread per network.
 */
#ifndef SENSIM_ROAD_H
#define SENSIM_ROAD_H

#include <sensim/context.h>
#include <sensim/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A loaded road network (opaque). */
typedef struct sensim_road_network sensim_road_network;

/** Lane types: OpenDRIVE's, as CARLA's carla.LaneType bits (a mask selects several). */
#define SENSIM_LANE_NONE          0x1u      /**< "none" */
#define SENSIM_LANE_DRIVING       0x2u      /**< "driving" */
#define SENSIM_LANE_STOP          0x4u      /**< "stop" */
#define SENSIM_LANE_SHOULDER      0x8u      /**< "shoulder" */
#define SENSIM_LANE_BIKING        0x10u     /**< "biking" */
#define SENSIM_LANE_SIDEWALK      0x20u     /**< "sidewalk" */
#define SENSIM_LANE_BORDER        0x40u     /**< "border" */
#define SENSIM_LANE_RESTRICTED    0x80u     /**< "restricted" */
#define SENSIM_LANE_PARKING       0x100u    /**< "parking" */
#define SENSIM_LANE_BIDIRECTIONAL 0x200u    /**< "bidirectional" */
#define SENSIM_LANE_MEDIAN        0x400u    /**< "median" */
#define SENSIM_LANE_SPECIAL1      0x800u    /**< "special1" */
#define SENSIM_LANE_SPECIAL2      0x1000u   /**< "special2" */
#define SENSIM_LANE_SPECIAL3      0x2000u   /**< "special3" */
#define SENSIM_LANE_ROADWORKS     0x4000u   /**< "roadWorks" */
#define SENSIM_LANE_TRAM          0x8000u   /**< "tram" */
#define SENSIM_LANE_RAIL          0x10000u  /**< "rail" */
#define SENSIM_LANE_ENTRY         0x20000u  /**< "entry" */
#define SENSIM_LANE_EXIT          0x40000u  /**< "exit" */
#define SENSIM_LANE_OFFRAMP       0x80000u  /**< "offRamp" */
#define SENSIM_LANE_ONRAMP        0x100000u /**< "onRamp" */
#define SENSIM_LANE_ANY           0xFFFFFFFEu /**< every type but "none" (CARLA's LaneType.Any) */

/** Lane marking types (CARLA's carla.LaneMarkingType values). */
#define SENSIM_MARK_OTHER           0u     /**< a type not listed */
#define SENSIM_MARK_BROKEN          1u     /**< "broken" */
#define SENSIM_MARK_SOLID           2u     /**< "solid" */
#define SENSIM_MARK_SOLID_SOLID     3u     /**< "solid solid" */
#define SENSIM_MARK_SOLID_BROKEN    4u     /**< "solid broken" */
#define SENSIM_MARK_BROKEN_SOLID    5u     /**< "broken solid" */
#define SENSIM_MARK_BROKEN_BROKEN   6u     /**< "broken broken" */
#define SENSIM_MARK_BOTTS_DOTS      7u     /**< "botts dots" */
#define SENSIM_MARK_GRASS           8u     /**< "grass" */
#define SENSIM_MARK_CURB            9u     /**< "curb" */
#define SENSIM_MARK_NONE            10u    /**< "none" or no roadMark */

/** Lane marking colours (CARLA's carla.LaneMarkingColor values; white is standard). */
#define SENSIM_MARK_COLOR_STANDARD  0u     /**< "standard" or "white" */
#define SENSIM_MARK_COLOR_BLUE      1u     /**< "blue" */
#define SENSIM_MARK_COLOR_GREEN     2u     /**< "green" */
#define SENSIM_MARK_COLOR_RED       3u     /**< "red" */
#define SENSIM_MARK_COLOR_YELLOW    4u     /**< "yellow" */
#define SENSIM_MARK_COLOR_OTHER     5u     /**< another colour */

/**
 * Load an OpenDRIVE file.
 * @param ctx the context (errors are reported through it)
 * @param path the .xodr file (borrowed for the call)
 * @param max_file_bytes the largest accepted file (0: 1 GiB)
 * @param[out] out the network; the caller owns it (sensim_road_network_destroy)
 * @return SENSIM_OK; SENSIM_ERR_IO (missing, not a regular file),
 *   SENSIM_ERR_TOO_LARGE (past max_file_bytes or the parser's budgets),
 *   SENSIM_ERR_PARSE (malformed XML or OpenDRIVE: file, line and field named),
 *   SENSIM_ERR_OUT_OF_MEMORY, SENSIM_ERR_INVALID_ARGUMENT (NULL arguments).
 * Budgets for a file of B bytes: the parser gets 512 MiB + 16·B of address
 * space, 10 s + 1 s per MB of CPU time and an answer of 64 MiB + 4·B; the
 * network holds at most 2^20 roads, 2^16 geometries, sections and lanes a
 * road.
 * Thread safety: any thread; one load per @p out. Since 0.1.
 */
SENSIM_API sensim_status sensim_road_network_load(sensim_context *ctx, const char *path, uint64_t max_file_bytes,
                                                  sensim_road_network **out);

/** Free a network (NULL is a no-op). Thread safety: no query may run on it. Since 0.1. */
SENSIM_API void sensim_road_network_destroy(sensim_road_network *net);

/** A road's description; strings are borrowed from the network (valid until it is destroyed). */
typedef struct sensim_road_info {
    const char *id;            /**< OpenDRIVE id */
    const char *name;          /**< name ("" when none) */
    const char *junction;      /**< the junction's id, "-1" when the road is not in one */
    double length_m;           /**< the reference line's length */
    double speed_limit_mps;    /**< the first \<type\>\<speed max\> (0: none given) */
    uint32_t geometry_count;   /**< planView geometries */
    uint32_t section_count;    /**< lane sections */
    uint32_t line;             /**< the \<road\> element's line in the file */
    uint32_t left_hand_traffic; /**< 1 for rule="LHT" (positive lane ids travel with s), else 0 */
    uint64_t reserved[4];      /**< reserved: 0 */
} sensim_road_info;

/** Number of roads. Thread safety: any thread. Since 0.1. */
SENSIM_API uint32_t sensim_road_network_count(const sensim_road_network *net);

/** Describe road @p road. @return SENSIM_OK or SENSIM_ERR_INVALID_ARGUMENT (no such road).
 *  Thread safety: any thread. Since 0.1. */
SENSIM_API sensim_status sensim_road_network_info(const sensim_road_network *net, uint32_t road,
                                                  sensim_road_info *out);

/** A signal of the network (OpenDRIVE \<signal\> under a road's \<signals\>);
 *  strings owned by the network, valid until it is destroyed. */
typedef struct sensim_road_signal {
    const char *id;            /**< the signal's id */
    const char *name;          /**< its name ("" when none) */
    const char *type;          /**< type code ("1000001": a traffic light in the German catalogue; "-1": none) */
    const char *subtype;       /**< subtype ("-1": none) */
    const char *country;       /**< country code ("" when none) */
    const char *unit;          /**< unit of value ("" when none) */
    uint32_t road;             /**< index of the road it belongs to */
    uint32_t line;             /**< the \<signal\> element's line in the file */
    double s;                  /**< position along the road's reference line, metres */
    double t;                  /**< lateral offset, metres (positive left) */
    double z_offset;           /**< height of its bottom above the road, metres */
    double h_offset;           /**< heading offset from the road's direction (orientation "+"), radians */
    double height;             /**< metres (0 when not given) */
    double width;              /**< metres (0 when not given) */
    double value;              /**< value (a speed limit's number; NaN when not given) */
    int32_t dynamic;           /**< 1 for dynamic="yes" (a traffic light), else 0 */
    int32_t orientation;       /**< +1: valid for traffic along +s, -1: against, 0: both */
    int32_t has_validity;      /**< 1 when a \<validity\> child limits it to lanes from_lane..to_lane */
    int32_t from_lane;         /**< the first \<validity\>'s fromLane */
    int32_t to_lane;           /**< the first \<validity\>'s toLane */
    uint32_t reserved_u32;     /**< reserved: 0 */
    uint64_t reserved[4];      /**< reserved: 0 */
} sensim_road_signal;

/** Number of signals (all roads', in file order). Thread safety: any thread. Since 0.2. */
SENSIM_API uint32_t sensim_road_network_signal_count(const sensim_road_network *net);

/** Describe signal @p index. @return SENSIM_OK or SENSIM_ERR_INVALID_ARGUMENT (NULL, no such signal).
 *  Thread safety: any thread. Since 0.2. */
SENSIM_API sensim_status sensim_road_network_signal(const sensim_road_network *net, uint32_t index,
                                                    sensim_road_signal *out);

/** Index of the road with OpenDRIVE id @p id. @return SENSIM_OK or SENSIM_ERR_NOT_FOUND.
 *  Thread safety: any thread. Since 0.1. */
SENSIM_API sensim_status sensim_road_network_find(const sensim_road_network *net, const char *id, uint32_t *road);

/** Geometry kinds of a road's reference line (sensim_road_geometry.type). */
#define SENSIM_GEOMETRY_LINE        0u     /**< \<line\> */
#define SENSIM_GEOMETRY_ARC         1u     /**< \<arc\> */
#define SENSIM_GEOMETRY_SPIRAL      2u     /**< \<spiral\> */
#define SENSIM_GEOMETRY_POLY3       3u     /**< \<poly3\> */
#define SENSIM_GEOMETRY_PARAMPOLY3  4u     /**< \<paramPoly3\> */

/** One \<planView\> geometry of a road, as the file gives it. */
typedef struct sensim_road_geometry {
    double s0;                 /**< where it starts on the road */
    double x;                  /**< its start's x, native world frame */
    double y;                  /**< its start's y */
    double hdg;                /**< the heading of its local frame (for paramPoly3 not always the road's) */
    double length;             /**< its length along the road */
    uint32_t type;             /**< SENSIM_GEOMETRY_* */
    uint32_t reserved_u32;     /**< reserved: 0 */
    uint64_t reserved[2];      /**< reserved: 0 */
} sensim_road_geometry;

/** Geometry @p index (0 .. sensim_road_info.geometry_count - 1) of road @p road.
 *  @return SENSIM_OK or SENSIM_ERR_INVALID_ARGUMENT. Thread safety: any thread. Since 0.1. */
SENSIM_API sensim_status sensim_road_network_geometry(const sensim_road_network *net, uint32_t road, uint32_t index,
                                                      sensim_road_geometry *out);

/**
 * The pose of point (@p s, @p t, @p h) of road @p road, native world frame:
 * column-major 4×4 with x along the road (its heading and the elevation's
 * slope), y to the left across it (rolled by the superelevation), z up from
 * the surface, the translation the point. s outside [0, length] is clamped.
 * @return SENSIM_OK or SENSIM_ERR_INVALID_ARGUMENT (no such road, non-finite s, t or h).
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_road_network_pose(const sensim_road_network *net, uint32_t road, double s, double t,
                                                  double h, double pose[16]);

/** A lane at one s of a road. */
typedef struct sensim_lane_info {
    int32_t id;                /**< OpenDRIVE lane id (0: the centre lane, of width 0) */
    uint32_t type;             /**< SENSIM_LANE_* */
    double t_inner;            /**< t of the edge nearer the centre lane */
    double t_outer;            /**< t of the edge farther from it (|t_outer - t_inner| is the width) */
    uint32_t section;          /**< its lane section's index in the road */
    uint32_t mark_type;        /**< its outer edge's first roadMark type (SENSIM_MARK_*) */
    uint32_t mark_color;       /**< that mark's colour (SENSIM_MARK_COLOR_*) */
    int32_t level;             /**< OpenDRIVE's level (1: kept horizontal across superelevation) */
    double section_s0;         /**< where its section starts on the road */
    double section_s1;         /**< where it ends */
    uint64_t reserved[2];      /**< reserved: 0 */
} sensim_lane_info;

/**
 * The lanes of road @p road at @p s (clamped to [0, length]), in the file's
 * order: left lanes outermost first, the centre lane, then the right lanes
 * from the centre out. Writes at most @p cap; *@p count is the number the
 * section has (a larger *count than @p cap: call again with more room).
 * @return SENSIM_OK or SENSIM_ERR_INVALID_ARGUMENT.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_road_network_lanes(const sensim_road_network *net, uint32_t road, double s,
                                                   sensim_lane_info *lanes, uint32_t cap, uint32_t *count);

/** A lane of a lane section, and where on its road it begins in its direction of travel. */
typedef struct sensim_lane_ref {
    uint32_t road;             /**< road index */
    int32_t lane;              /**< lane id */
    uint32_t section;          /**< lane section index in the road */
    uint32_t reserved_u32;     /**< reserved: 0 */
    double s;                  /**< where the lane begins in its direction of travel: its section's start for
                                    a lane travelling with s (right-hand traffic: a negative id), else its end */
    uint64_t reserved[2];      /**< reserved: 0 */
} sensim_lane_ref;

/**
 * The lanes that follow lane @p lane of section @p section of road @p road
 * in its direction of travel (right-hand traffic: negative ids travel with
 * s, positive against it; a road with rule="LHT" the other way round), as
 * the file links them: the next lane section's
 * lane (its \<successor\>/\<predecessor\> id, else the same id), the linked
 * road's lane (contactPoint decides which end and direction), or through a
 * junction the connecting roads' lanes its \<connection\>\<laneLink\>s name. A
 * dead end has none. Writes at most @p cap; *@p count is how many there are.
 * @return SENSIM_OK or SENSIM_ERR_INVALID_ARGUMENT (no such road, section or lane).
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_road_network_next_lanes(const sensim_road_network *net, uint32_t road,
                                                        uint32_t section, int32_t lane, sensim_lane_ref *out,
                                                        uint32_t cap, uint32_t *count);

/**
 * The lanes that lead into lane @p lane of section @p section of road
 * @p road: exactly the lanes whose sensim_road_network_next_lanes() holds it
 * (their s is where they begin, as there).
 * @return as sensim_road_network_next_lanes(). Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_road_network_previous_lanes(const sensim_road_network *net, uint32_t road,
                                                            uint32_t section, int32_t lane, sensim_lane_ref *out,
                                                            uint32_t cap, uint32_t *count);

/** Where a world point lies on the network (sensim_road_network_locate). */
typedef struct sensim_lane_point {
    uint32_t road;             /**< road index */
    int32_t lane;              /**< lane id */
    double s;                  /**< along the road's reference line */
    double t;                  /**< across it (left positive): the point's own t, not the lane's centre */
    double distance_m;         /**< from the point to the lane (0 inside it; the height above the surface counts) */
    uint64_t reserved[2];      /**< reserved: 0 */
} sensim_lane_point;

/**
 * The lane, among the types in @p lane_types (a mask of SENSIM_LANE_*), that
 * is nearest to the native-frame point @p xyz (CARLA's Map.get_waypoint with
 * project_to_road). Ties go to the road earlier in the file.
 * @return SENSIM_OK, SENSIM_ERR_NOT_FOUND (no lane of those types), or
 *   SENSIM_ERR_INVALID_ARGUMENT (non-finite point).
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_road_network_locate(const sensim_road_network *net, const double xyz[3],
                                                    uint32_t lane_types, sensim_lane_point *out);

/** Options of sensim_scene_add_road_network(); fill with sensim_road_mesh_options_init(). */
typedef struct sensim_road_mesh_options {
    double step_m;             /**< along-road spacing of the surface's rows (default 1 m; 0.05 .. 100) */
    double ground_margin_m;    /**< the flat ground reaches this far beyond the roads (default 50 m; <0: none) */
    double sidewalk_height_m;  /**< sidewalks raised by this much (default 0.15 m) */
    double marking_width_m;    /**< lane markings' width (default 0.15 m) */
    uint64_t reserved[4];      /**< reserved: 0 */
} sensim_road_mesh_options;

/** What sensim_scene_add_road_network() added. */
typedef struct sensim_road_mesh_info {
    uint32_t mesh_id;          /**< the static mesh added */
    uint32_t reserved_u32;     /**< reserved: 0 */
    uint64_t triangles;        /**< its triangles */
    uint64_t road_triangles;   /**< tagged Roads (1) */
    uint64_t sidewalk_triangles; /**< tagged SideWalks (2) */
    uint64_t marking_triangles;  /**< tagged RoadLine (24) */
    uint64_t ground_triangles;   /**< tagged Terrain (10) */
    uint64_t reserved[2];      /**< reserved: 0 */
} sensim_road_mesh_info;

/** Fill @p opt with the defaults. Thread safety: any thread. Since 0.1. */
SENSIM_API void sensim_road_mesh_options_init(sensim_road_mesh_options *opt);

/**
 * Add a drivable surface built from @p net to @p scene as one static mesh,
 * as CARLA builds a world from an OpenDRIVE file: every lane with a width
 * (driving, parking, shoulder, ... tagged Roads; sidewalks tagged SideWalks,
 * raised by sidewalk_height_m, their top only), lane markings 0.5 cm above
 * the surface along each lane's outer edge, inside the lane (the centre
 * lane's centred on it), where the file marks one (solid and
 * double lines whole, broken ones 3 m on and 6 m off along s; tagged
 * RoadLine), and a flat ground (Terrain) under the roads' extent plus the
 * margin, 5 cm below their lowest point. Rows every step_m along s and at
 * every lane section's ends; triangles face up.
 * @return SENSIM_OK; SENSIM_ERR_INVALID_ARGUMENT (NULL, options out of
 *   range), SENSIM_ERR_TOO_LARGE (more than 2^30 triangles), and what
 *   sensim_scene_add_mesh() returns; on failure the scene is unchanged.
 * Thread safety: one thread at a time per scene; the network is only read. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_add_road_network(sensim_scene *scene, const sensim_road_network *net,
                                                       const sensim_road_mesh_options *opt,
                                                       sensim_road_mesh_info *out_info);

#ifdef __cplusplus
}
#endif

#endif
