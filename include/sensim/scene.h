/**
 * @file sensim/scene.h
 * @brief Scene: static meshes, actors (rigid instances), loaders, commit.
 *
 * Geometry is in metres, native frame (right-handed, x forward, y left, z up).
 * Poses are double[16], column-major 4x4 homogeneous matrices mapping the
 * object frame to the world frame (element [12..14] is the translation).
 *
 * Edits are staged; sensim_scene_commit() builds the acceleration structure.
 * A committed scene is read-only and may be scanned by several lidars from
 * several threads at once. An edit after a commit makes the scene
 * uncommitted again until the next commit. Edits while a scan runs on the
 * scene are refused with SENSIM_ERR_BUSY.
 */
#ifndef SENSIM_SCENE_H
#define SENSIM_SCENE_H

#include <sensim/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A scene: meshes, actors and the BVH the sensors trace (opaque; sensim_scene_create()). */
typedef struct sensim_scene sensim_scene;

/** Semantic tags use CARLA 0.9.14+ numbering (0 Unlabeled ... 28 GuardRail). */
#define SENSIM_TAG_UNLABELED 0
#define SENSIM_TAG_MAX       28 /**< the highest tag (GuardRail) */

/** Flags of a mesh. */
#define SENSIM_MESH_STATIC    0u /**< placed in the world as static geometry (object id 0) */
#define SENSIM_MESH_PROTOTYPE 1u /**< only used through actors, not placed by itself */

/** Triangle mesh supplied as raw arrays. */
typedef struct sensim_mesh_desc {
    /** xyz triples, metres, float32; copied. */
    const float *vertices;
    uint32_t vertex_count;     /**< xyz triples in vertices */
    /** Three vertex indices per triangle; copied. */
    const uint32_t *indices;
    uint32_t triangle_count;   /**< triangles in indices */
    /** Optional per-triangle semantic tags (NULL: all get @ref tag); copied. */
    const uint8_t *triangle_tags;
    /** Optional per-triangle material ids (NULL: all get @ref material_id); copied. */
    const uint16_t *triangle_materials;
    /** Tag for all triangles when triangle_tags is NULL (0..SENSIM_TAG_MAX). */
    uint8_t tag;
    /** Material id for all triangles when triangle_materials is NULL. */
    uint16_t material_id;
    /** SENSIM_MESH_STATIC (default) or SENSIM_MESH_PROTOTYPE. */
    uint32_t flags;
    /** Optional texture coordinates: 6 floats per triangle, (u, v) of its
     *  three corners in index order (u right, v up, as OBJ `vt`; repeating
     *  outside [0, 1]); copied. Cameras sample material textures with them. */
    const float *triangle_uvs;
    uint64_t reserved[5]; /**< reserved: 0 */
} sensim_mesh_desc;

/** Fill @p desc with defaults (zero). Thread safety: any thread. Since 0.1. */
SENSIM_API void sensim_mesh_desc_init(sensim_mesh_desc *desc);

/** Options for the file loaders; fill with sensim_load_options_init(). */
typedef struct sensim_load_options {
    /** SENSIM_MESH_STATIC (default) or SENSIM_MESH_PROTOTYPE. */
    uint32_t flags;
    /** Uniform scale applied to vertices (0 = 1.0), e.g. 0.01 for centimetres. */
    float scale;
    /** Tag when no name maps to one (default 0, Unlabeled). */
    uint8_t default_tag;
    /** Largest accepted file in bytes (0 = 4 GiB). */
    uint64_t max_file_bytes;
    /** Frame of the file's coordinates (SENSIM_FRAME_*, <sensim/frames.h>):
     *  CARLA/UE files are converted to native on load (y negated; UE cm → m). */
    int32_t frame;
    uint32_t reserved_u32; /**< reserved: 0 */
    /** Optional tag mapping file (borrowed for the call): lines "name = Tag"
     *  (Tag a CARLA tag name such as Car or GuardRail, or 0..28; # starts a
     *  comment). A rule matches when its name's words appear as a run of the
     *  OBJ usemtl/g/o name's words (see sensim_tag_from_name); the user rules
     *  are tried before the built-in table, the longest run wins, ties go to
     *  the earlier rule. Errors name the file and line (SENSIM_ERR_PARSE). */
    const char *tag_map_file;
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_load_options;

/** Fill @p opt with defaults. Thread safety: any thread. Since 0.1. */
SENSIM_API void sensim_load_options_init(sensim_load_options *opt);

/**
 * Create an empty scene on @p ctx (which it keeps alive).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_MEMORY,
 *         SENSIM_ERR_BACKEND.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_create(sensim_context *ctx,
                                             sensim_scene **out_scene);

/** Destroy a scene. NULL is a no-op. Scans (and edits) already running on
 * other threads are waited for, not freed under; using the handle after
 * destroy has begun is undefined. Thread safety: any thread. Since 0.1. */
SENSIM_API void sensim_scene_destroy(sensim_scene *scene);

/**
 * Add a mesh from raw arrays (all copied).
 * @param out_mesh_id  receives the mesh id (0, 1, 2, ... in order of addition); may be NULL.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_EMPTY (no triangles),
 *         SENSIM_ERR_NOT_FINITE (NaN/Inf vertex), SENSIM_ERR_BAD_INDEX
 *         (index >= vertex_count), SENSIM_ERR_OUT_OF_RANGE (tag > 28),
 *         SENSIM_ERR_TOO_LARGE, SENSIM_ERR_BUSY, SENSIM_ERR_OUT_OF_MEMORY.
 * On failure the scene is unchanged.
 * Thread safety: one thread at a time per scene. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_add_mesh(sensim_scene *scene,
                                               const sensim_mesh_desc *desc,
                                               uint32_t *out_mesh_id);

/**
 * Load a Wavefront OBJ file as one mesh. Supports v and f (v, v/t, v/t/n,
 * v//n; polygons fan-triangulated; negative indices), usemtl, g and o.
 * Per-triangle semantic tags come from the usemtl name, else the g/o name,
 * mapped by the name table of sensim_tag_from_name(). vt, vn, s, mtllib, l, p
 * and the other OBJ statements are ignored; any other keyword is an error.
 * Exact duplicate triangles (the same three vertex positions in any order)
 * are dropped, keeping the first (sensim_scene_info counts them). usemtl
 * names are at most 63 bytes; vertices within ±1e9 m.
 * The file is read a few MiB at a time; its v, vt and f lines are parsed
 * and duplicates found on the context's threads (OpenMP), with the same
 * mesh, status and message (first failing line) for any thread count.
 * @param path  file path, borrowed for the call.
 * @param opt   options, NULL for defaults.
 * @return SENSIM_OK, SENSIM_ERR_IO, SENSIM_ERR_PARSE, SENSIM_ERR_BAD_INDEX,
 *         SENSIM_ERR_NOT_FINITE, SENSIM_ERR_OUT_OF_RANGE (vertex beyond
 *         ±1e9 m), SENSIM_ERR_EMPTY, SENSIM_ERR_TOO_LARGE (incl. more than
 *         65 535 materials in the scene, a usemtl name over 63 bytes),
 *         SENSIM_ERR_BUSY, SENSIM_ERR_OUT_OF_MEMORY. The message names file
 *         and line. On failure the scene is unchanged: no mesh, no material,
 *         no staged change.
 * Thread safety: one thread at a time per scene. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_load_obj(sensim_scene *scene, const char *path,
                                               const sensim_load_options *opt,
                                               uint32_t *out_mesh_id);

/**
 * Load a PLY file (ascii, binary_little_endian, binary_big_endian) as one
 * mesh: element vertex with x, y, z (any scalar type), element face with a
 * list property vertex_indices or vertex_index (polygons of any size,
 * fan-triangulated), optional face scalar property "tag" (semantic tag per
 * face). Other elements and properties are skipped.
 * Same statuses and guarantees as sensim_scene_load_obj(); messages name the
 * file and the header line or element record.
 * Thread safety: one thread at a time per scene. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_load_ply(sensim_scene *scene, const char *path,
                                               const sensim_load_options *opt,
                                               uint32_t *out_mesh_id);

/** What sensim_scene_add_street() added. */
typedef struct sensim_street_info {
    uint32_t static_triangles; /**< triangles of the static street mesh */
    uint32_t car_count;        /**< parked cars: actors 1..car_count */
    uint32_t static_mesh_id;   /**< the static mesh */
    uint32_t car_mesh_id;      /**< the car prototype mesh */
    uint64_t reserved[2];      /**< zero */
} sensim_street_info;

/**
 * Add the built-in street (what `sensim --scene street` scans): a straight
 * street along +x, x in [-length_m/2, length_m/2], centred on the origin,
 * native frame (metres, z up): a 7 m road (tag Roads) at z = 0 with a lane
 * marking, raised sidewalks, building blocks, poles, trees, terrain, and
 * parked cars as actors 1..N of one prototype (tag Car). Deterministic: the
 * same arguments give the same triangles. Does not commit.
 * @param length_m 16..10000 (the CLI uses 200; `sensim bench` 400).
 * @param detail   1..64: subdivisions of road and facades (more triangles;
 *                 the CLI uses 1, `sensim bench` 12).
 * @param out_info may be NULL.
 * @return SENSIM_OK; SENSIM_ERR_OUT_OF_RANGE for the arguments;
 *         SENSIM_ERR_DUPLICATE when an actor id the cars need is taken
 *         (nothing is added); SENSIM_ERR_BUSY, SENSIM_ERR_OUT_OF_MEMORY. On
 *         failure the scene is unchanged.
 * Thread safety: one thread at a time per scene. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_add_street(sensim_scene *scene, float length_m, uint32_t detail,
                                                 sensim_street_info *out_info);

/**
 * Load a mesh file, choosing the loader by extension (.obj, .ply, any case;
 * in builds with Assimp also .gltf, .glb, .fbx, .dae and the other formats
 * Assimp 5.2 reads).
 *
 * Assimp never runs in the caller's process: the helper program
 * sensim-assimp (installed in libexecdir/sensim, found beside the library)
 * imports the file in a process of its own and sends back what the scene
 * needs. Its budgets for a file of B bytes: 2 GiB + 64·B of address space
 * (at most 16 GiB), 30 s + 1 s per MB of CPU time, twice that + 10 s of
 * wall-clock time, an answer of at most 256 MiB + 64·B. Every file the scene
 * references (glTF buffers and images, ...) must be a regular file within
 * the load's byte limit: a FIFO, a device or a missing file is refused by
 * name. A crash of the importer (deep nesting, broken accessors) is
 * SENSIM_ERR_PARSE, a budget SENSIM_ERR_TOO_LARGE, a refused reference
 * SENSIM_ERR_IO, each naming the file; the scene is as it was.
 *
 * Textures (MTL map_Kd, glTF/FBX base colour): a file several materials
 * name is decoded once and held once. A scene holds at most 2 GiB of
 * texels; a texture past that is skipped and counted in
 * sensim_scene_info.textures_skipped, and the load still lands.
 * @return as the loaders, or SENSIM_ERR_INVALID_ARGUMENT for another extension.
 * Thread safety: one thread at a time per scene; loads of different scenes
 * may run at once (each runs its own helper). Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_load_file(sensim_scene *scene, const char *path,
                                                const sensim_load_options *opt,
                                                uint32_t *out_mesh_id);

/**
 * Add an actor: a rigid instance of mesh @p mesh_id carrying @p actor_id
 * (caller-chosen, non-zero; 0 is reserved for static world) in every point
 * it produces.
 * @param pose  object-to-world transform, column-major double[16], copied.
 *              Rotation part must be invertible; use rigid poses for exact
 *              ranges.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (actor_id 0, NULL pose),
 *         SENSIM_ERR_BAD_INDEX (no such mesh), SENSIM_ERR_DUPLICATE,
 *         SENSIM_ERR_NOT_FINITE, SENSIM_ERR_OUT_OF_RANGE (singular),
 *         SENSIM_ERR_BUSY, SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: one thread at a time per scene. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_add_actor(sensim_scene *scene, uint32_t mesh_id,
                                                uint32_t actor_id, const double pose[16]);

/**
 * Add a static instance: mesh @p mesh_id (usually a SENSIM_MESH_PROTOTYPE)
 * placed again at @p pose as part of the static world: its points carry
 * object id 0 like every static mesh, it never moves and cannot be removed
 * alone. A mesh placed N times costs one mesh's memory (an Embree instance
 * each): a forest of one tree. The glTF/Assimp loader places meshes that
 * several nodes reference this way.
 * @param pose  object-to-world, column-major double[16], copied (rules of sensim_scene_add_actor).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_BAD_INDEX,
 *         SENSIM_ERR_NOT_FINITE, SENSIM_ERR_OUT_OF_RANGE, SENSIM_ERR_TOO_LARGE,
 *         SENSIM_ERR_BUSY, SENSIM_ERR_OUT_OF_MEMORY, SENSIM_ERR_BAD_HANDLE.
 * Thread safety: one thread at a time per scene. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_add_instance(sensim_scene *scene, uint32_t mesh_id, const double pose[16]);

/**
 * Move an existing actor (staged until the next commit).
 * @return SENSIM_OK, SENSIM_ERR_NOT_FOUND, SENSIM_ERR_NOT_FINITE,
 *         SENSIM_ERR_OUT_OF_RANGE, SENSIM_ERR_BUSY, SENSIM_ERR_INVALID_ARGUMENT.
 * Thread safety: one thread at a time per scene. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_set_actor_pose(sensim_scene *scene, uint32_t actor_id,
                                                     const double pose[16]);

/**
 * Set the scene's motion interval [t0_ns, t1_ns] (t1 > t0): actors given a
 * motion with sensim_scene_set_actor_motion() move from their pose at t0 to
 * their pose at t1 (position linearly, rotation by slerp), and a shot fired
 * at time t sees them at clamp((t − t0)/(t1 − t0), 0, 1) of the way. Hosts
 * typically set it to each world step before committing that step's poses.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_TIME_ORDER, SENSIM_ERR_BUSY.
 * Thread safety: one thread at a time per scene. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_set_motion_interval(sensim_scene *scene, int64_t t0_ns, int64_t t1_ns);

/**
 * Give an actor a motion over the scene's motion interval (staged): rigid
 * poses at t0 and t1 (copied). sensim_scene_set_actor_pose() makes it static
 * again.
 * @return SENSIM_OK, SENSIM_ERR_NOT_FOUND, SENSIM_ERR_NOT_FINITE,
 *         SENSIM_ERR_OUT_OF_RANGE (not rigid), SENSIM_ERR_BUSY, SENSIM_ERR_INVALID_ARGUMENT.
 * Thread safety: one thread at a time per scene. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_set_actor_motion(sensim_scene *scene, uint32_t actor_id,
                                                       const double pose_t0[16], const double pose_t1[16]);

/**
 * Remove an actor (staged until the next commit).
 * @return SENSIM_OK, SENSIM_ERR_NOT_FOUND, SENSIM_ERR_BUSY, SENSIM_ERR_INVALID_ARGUMENT.
 * Thread safety: one thread at a time per scene. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_remove_actor(sensim_scene *scene, uint32_t actor_id);

/**
 * Trace parked actors and static instances as part of the static world
 * ("flattened") instead of as instances: from the next commit on, each
 * actor or static instance that is parked has its mesh transformed once
 * into world coordinates and built into the static BVH, in the order they
 * were added, while their triangles together stay within @p max_triangles
 * (0, the default: none, every actor an instance). A ray near a parked car
 * then walks one BVH, not two: on the built-in street (35 parked cars),
 * pandar128 and vlp16 took 0.90 of the time, mid40 0.92, mems_m1 0.86
 * (one thread; BENCHMARKS.md).
 *
 * Parked: added before the scene's first commit (a loaded scene's props and
 * parked cars; static instances of a glTF file) and since then never given
 * another pose (sensim_scene_set_actor_pose() with the same pose keeps it
 * parked) nor a motion (sensim_scene_set_actor_motion()). Actors added
 * later (spawned traffic) stay instances and cost no rebuild.
 *
 * What stays: points, camera labels and queries carry the actor's id, its
 * mesh's tags and materials; thread count and time splits change no bit.
 * What differs: a flattened actor's vertices are rounded to float in world
 * coordinates, where an instance rounds its pose instead, so ranges to it
 * differ from the instanced path's by float rounding (up to 1.5e-5 m seen
 * at 60 m on the street, two float ulps); both are equally close to the
 * exact geometry. That is outside the numeric contract between releases,
 * hence off by default.
 * Cost: when the flattened set changes (a parked actor moves or is removed,
 * the budget changes), the next commit rebuilds the static BVH (about
 * 0.4 s per million triangles); memory: 12 bytes per flattened vertex
 * plus its share of the BVH (sensim_context_backend_bytes()).
 * sensim_scene_info.flattened_count tells how many were flattened.
 * @param max_triangles  budget of flattened triangles in all; 0 turns it off.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL scene), SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_BUSY.
 * Thread safety: one thread at a time per scene, as the other edits.
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_set_flatten(sensim_scene *scene, uint64_t max_triangles);

/**
 * Build the acceleration structure from the staged state. Cheap after only
 * actor moves (the static geometry is not rebuilt; with sensim_scene_set_flatten(),
 * it is when a flattened actor moves).
 * @return SENSIM_OK, SENSIM_ERR_EMPTY (nothing to trace), SENSIM_ERR_BACKEND,
 *         SENSIM_ERR_BUSY, SENSIM_ERR_OUT_OF_MEMORY, SENSIM_ERR_INVALID_ARGUMENT.
 * Thread safety: one thread at a time per scene, not during a scan. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_commit(sensim_scene *scene);

/**
 * Surface material at the lidar wavelength (905 nm class).
 * Material id 0 on a triangle means "the default of its semantic tag"
 * (sensim_material_default()). Ids 1..65535 are set with
 * sensim_scene_set_material() or created by the OBJ loader per usemtl name.
 */
typedef struct sensim_material {
    float reflectivity;  /**< diffuse (Lambertian) reflectivity, [0, 1] */
    float retro_gain;    /**< retro-reflective gain added to the diffuse term, [0, 1000] (signs ~5) */
    float specular;      /**< mirror fraction, [0, 1] (mirror 1, water 0.8, glass 0.08) */
    float transparency;  /**< fraction transmitted, [0, 1] (glass 0.85); specular + transparency <= 1 */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_material;

/**
 * Default material of a semantic tag (CARLA 0.9.14+ ids):
 * Unlabeled 0.3; Roads 0.12; SideWalks 0.25; Building 0.35; Wall 0.35;
 * Fence 0.3; Pole 0.3; TrafficLight 0.3; TrafficSign 0.5 + retro 5;
 * Vegetation 0.5; Terrain 0.3; Sky 0; Pedestrian 0.3; Rider 0.3; Car, Truck,
 * Bus, Train 0.25 with specular 0.1 (glossy paint); Motorcycle, Bicycle 0.25;
 * Static, Dynamic, Other 0.3; Water 0.02 with specular 0.8; RoadLine 0.5 +
 * retro 1; Ground 0.25; Bridge 0.3; RailTrack 0.2; GuardRail 0.4 with
 * specular 0.1. Tags > 28 get Unlabeled's. Thread safety: any thread. Since 0.1.
 */
SENSIM_API void sensim_material_default(uint32_t tag, sensim_material *out);

/**
 * Set material @p id (1..65535; staged until the next commit).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (id 0, NULL), SENSIM_ERR_NOT_FINITE,
 *         SENSIM_ERR_OUT_OF_RANGE (a field outside its range), SENSIM_ERR_BUSY,
 *         SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: one thread at a time per scene. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_set_material(sensim_scene *scene, uint32_t id, const sensim_material *mat);

/** How a material looks to cameras (lidars do not use it). */
typedef struct sensim_appearance {
    float base_color[3];          /**< linear RGB, [0, 1] (OBJ/MTL `Kd`) */
    const uint8_t *texture;       /**< optional sRGB texture, 3 bytes a texel, row 0 at the top (v = 1), no
                                       padding; copied; multiplies base_color where a mesh has UVs */
    uint32_t texture_width;  /**< texels, 1..16384 (0 with texture NULL) */
    uint32_t texture_height; /**< texels, 1..16384 (0 with texture NULL) */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_appearance;

/**
 * Set the camera appearance of material @p id (1..65535; staged until the
 * next commit; the material's lidar properties are unchanged). Cameras
 * colour a surface with its material's base colour times the texel at the
 * hit's UV (nearest texel, repeating) where its mesh has UVs, else with the
 * base colour; surfaces of materials without an appearance take their tag's
 * CityScapes colour. The OBJ loader sets it from MTL `Kd` and `map_Kd`
 * (PNG).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (id 0, NULL, reserved
 *         fields, a texture without sizes), SENSIM_ERR_NOT_FINITE,
 *         SENSIM_ERR_OUT_OF_RANGE (a colour outside [0, 1], sizes),
 *         SENSIM_ERR_BUSY, SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: one thread at a time per scene. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_set_material_appearance(sensim_scene *scene, uint32_t id,
                                                              const sensim_appearance *appearance);

/**
 * Id of the material the OBJ loader created for usemtl @p name (exact,
 * case-sensitive). Names containing (case-insensitive) mirror, glass|window,
 * retro, water or wet get built-in materials (mirror: ρ 0.02, specular 1;
 * glass: ρ 0.05, specular 0.08, transparency 0.85; retroreflector: ρ 0.5,
 * retro 20; water: ρ 0.02, specular 0.8; wet: ρ 0.08, specular 0.5);
 * other names take their triangles' tag defaults until set.
 * @return SENSIM_OK, SENSIM_ERR_NOT_FOUND, SENSIM_ERR_INVALID_ARGUMENT,
 *         SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_BUSY (an edit is running).
 * Thread safety: any thread; refused during an edit. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_find_material(const sensim_scene *scene, const char *name,
                                                    uint32_t *out_id);

/** Counts of a scene (staged state). */
typedef struct sensim_scene_info {
    uint32_t mesh_count;       /**< meshes (prototypes) */
    uint32_t actor_count;      /**< actors (moving or movable objects) */
    uint64_t triangle_count;   /**< triangles of all meshes (prototypes counted once) */
    uint64_t vertex_count;     /**< vertices of all meshes */
    int32_t committed;         /**< 1 when the staged state is committed */
    /** Exact duplicate triangles (same three vertex positions in any order)
     *  the OBJ/PLY loaders left out, keeping the first. */
    uint32_t duplicate_triangles_dropped;
    /** OBJ mtllib files that do not exist: their materials keep the tag
     *  colours (the geometry loads; a malformed MTL is an error). */
    uint32_t material_files_missing;
    /** MTL map_Kd textures that could not be used (missing, not a PNG,
     *  unreadable, too large): those materials show Kd alone. */
    uint32_t textures_skipped;
    /** Static instances (sensim_scene_add_instance); not in actor_count. */
    uint32_t instance_count;
    /** Actors and static instances traced as static geometry at the last
     *  commit (sensim_scene_set_flatten()). */
    uint32_t flattened_count;
    uint32_t reserved[2]; /**< reserved: 0 */
} sensim_scene_info;

/**
 * Query counts. @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT,
 * SENSIM_ERR_BUSY (an edit is running on another thread).
 * Thread safety: any thread; refused during an edit. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_get_info(const sensim_scene *scene,
                                               sensim_scene_info *out_info);

/**
 * Map an object/material/group name to a semantic tag (CARLA 0.9.14+ ids)
 * by whole words: the name is split into words at every character that is
 * not a letter or digit, at camelCase humps and at letter/digit boundaries
 * ("SM_TrafficLight02" -> sm traffic light 02), lower-cased; a key matches a
 * run of consecutive words whose concatenation is the key or its plural
 * (+s, +es). The longest run wins, ties go to the earlier key:
 * roadline|lanemarking|crosswalk→24, guardrail→28, railtrack|railway|rail→27,
 * sidewalk|pavement→2, road|street|asphalt→1, building|house→3, wall→4,
 * fence→5, trafficlight→7, trafficsign|roadsign|streetsign|sign→8,
 * streetlight|lamppost|pole→6,
 * vegetation|tree|bush|hedge→9, terrain|grass→10, sky→11,
 * pedestrian|person→12, rider→13, truck→15, bus→16, train→17,
 * motorcycle|motorbike→18, bicycle|bike→19, car|vehicle→14, static→20,
 * dynamic→21, water→23, ground→25, bridge→26, other→22. So "carpet",
 * "scar", "design" and "Trailer" match nothing, "Streetlight_pole" is a Pole.
 * No match gives -1 (use a mapping file, sensim_load_options.tag_map_file).
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API int32_t sensim_tag_from_name(const char *name);

/** Tag id of a CARLA tag name ("Car", "guardrail"; case-insensitive) or of a
 *  decimal id 0..28; -1 otherwise. Thread safety: any thread. Since 0.1. */
SENSIM_API int32_t sensim_tag_from_label(const char *label);

/** CARLA palette colour of a tag (RGB), black for ids > 28. Since 0.1. */
SENSIM_API void sensim_tag_color(uint32_t tag, uint8_t out_rgb[3]);

/** CARLA name of a tag ("Roads", "Car", ...); "" for ids > 28. Since 0.1. */
SENSIM_API const char *sensim_tag_name(uint32_t tag);

#ifdef __cplusplus
}
#endif

#endif
