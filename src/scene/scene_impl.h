/* Scene internals shared by scene.c, the loaders and trace.c. */
#ifndef SENSIM_SCENE_IMPL_H
#define SENSIM_SCENE_IMPL_H

#include "actor_map.h"
#include "internal.h"

typedef struct sensim_mesh {
    float *vertices;        /* xyz, vertex_count*3 + 1 float of padding (Embree reads 16 B) */
    float lo[3], hi[3];     /* bounding box in the mesh frame */
    uint32_t vertex_count;
    uint32_t *indices;      /* triangle_count*3 */
    uint32_t triangle_count;
    uint8_t *tags;          /* per triangle */
    uint16_t *materials;    /* per triangle */
    float *uvs;             /* per triangle: (u, v) of its 3 corners (NaN: none), or NULL */
    uint32_t flags;
    void *proto;            /* trace.c: scene of this mesh alone, for actors */
} sensim_mesh;

typedef struct sensim_actor {
    uint32_t id;
    uint32_t mesh;
    double pose[16];     /* static pose, or the pose at the motion interval's start */
    double pose1[16];    /* pose at the motion interval's end when moving */
    bool moving;
    bool parked;         /* added before the first commit, never moved since (sensim_scene_set_flatten) */
} sensim_actor;

/* A camera texture: sRGB texels, immutable once added (freed with the scene). */
typedef struct sensim_texture {
    uint32_t w, h;
    uint8_t *rgb;
} sensim_texture;

typedef struct sensim_mat_entry {
    sensim_material m;
    float kd[3];     /* base colour (linear), valid when has_kd */
    uint8_t has_kd;
    uint32_t tex;    /* 1-based index into scene->textures, 0: none */
    char name[64];   /* usemtl name, "" if set by id only */
    uint8_t defined; /* id in use */
    uint8_t inherit; /* take the triangle's tag default */
} sensim_mat_entry;

struct sensim_scene {
    _Atomic uint32_t magic; /* atomic: destroy may run while another thread checks the handle */
    sensim_context *ctx;
    sensim_mesh *meshes;
    uint32_t mesh_count, mesh_cap;
    sensim_actor *actors;
    uint32_t actor_count, actor_cap; /* actors, and static instances (id 0) among them */
    sensim_actor_map actor_map;      /* actor id -> index in actors[] (ids > 0) */
    uint32_t instance_count;         /* static instances in actors[] */
    bool static_dirty;   /* static meshes changed since the last commit */
    bool dirty;          /* anything changed since the last commit */
    bool bounds_dirty;   /* meshes or materials changed since echo_max/leak_max were computed: the next
                            commit walks the triangles again (a commit that only moved actors does not) */
    bool ever_committed;
    uint64_t flatten_budget; /* triangles of parked actors traced as static geometry (0: none) */
    uint32_t flat_count;     /* actors and instances flattened at the last commit */
    atomic_int use;      /* > 0: scans running; -1: an edit is running */
    void *trace;         /* trace.c committed state */
    sensim_mat_entry *mats;   /* staged, indexed by id */
    uint32_t mat_count, mat_cap;
    sensim_mat_entry *cmats;  /* committed copy read by scans */
    uint32_t cmat_count;
    /* over the (material, tag) pairs of the committed triangles: the most a
     * surface returns, (1 - spec - transp)·refl + retro, and the most it
     * passes on, spec + transp² (sensim__scene_echo_bounds) */
    double echo_max, leak_max;
    int64_t motion_t0, motion_t1; /* actor motion interval (t1 > t0 when set) */
    uint32_t *mat_hash;       /* open addressing: material ids by name, 0 = empty */
    uint32_t mat_hash_cap;    /* power of two, or 0 */
    uint32_t duplicates_dropped; /* duplicate triangles the loaders left out */
    uint32_t mtl_missing, tex_skipped; /* OBJ material files and textures that could not be used */
    sensim_texture *textures;    /* appended only; committed materials may refer to any of them */
    uint32_t tex_count, tex_cap;
    uint64_t tex_bytes;          /* texels held (SENSIM_SCENE_TEXTURE_BYTES at most) */
};

/* All camera textures of one scene: 2 GiB of texels (ten 8192² textures). */
#define SENSIM_SCENE_TEXTURE_BYTES (2ull << 30)

/* What a failed load restores (loaders only append). */
typedef struct sensim_scene_mark {
    uint32_t mat_count, tex_count;
    uint32_t mesh_count, actor_count, instance_count;
    bool dirty, static_dirty;
} sensim_scene_mark;
void sensim__scene_mark(const sensim_scene *scene, sensim_scene_mark *mark);
void sensim__scene_rollback(sensim_scene *scene, const sensim_scene_mark *mark);
/* Rebuild the material name hash from scene->mats (materials.c). */
void sensim__scene_rebuild_mat_hash(sensim_scene *scene);
/* The name table (mat_index.c): FNV-1a of a name, and the insertion of material @p id (open
 * addressing, load factor <= 1/2 kept by materials.c). */
uint32_t sensim__mat_name_hash(const char *s);
void sensim__mat_hash_insert(sensim_scene *scene, uint32_t id);
/* A static instance of mesh @p mesh_id (checked by the caller) inside an edit section the caller holds. */
sensim_status sensim__scene_add_instance_locked(sensim_scene *scene, uint32_t mesh_id, const double pose[16]);
#ifdef SENSIM_HAVE_ASSIMP
/* glTF/GLB, FBX, COLLADA, ... through Assimp (load_assimp.c). */
sensim_status sensim__scene_load_assimp(sensim_scene *scene, const char *path, const sensim_load_options *opt,
                                        uint32_t *out_mesh_id);
/* True for an extension (".gltf", any case) the Assimp helper reads. */
bool sensim__assimp_reads(const char *dot);
/* Parse the helper's answer (assimp_wire.h; @p buf is modified) and count its
 * textures, materials, meshes and placements: for tests of hostile answers. */
sensim_status sensim__assimp_parse_answer(const char *path, unsigned char *buf, size_t len, uint32_t counts[4]);
#endif

/* Drop exact duplicate triangles (the same three vertex positions in any
 * order) from @p mesh in place, keeping the first in file order, hashing
 * on up to @p threads threads (the result does not depend on them). Returns
 * how many were dropped; 0 when memory is short (nothing changes). */
uint32_t sensim__mesh_drop_duplicates(sensim_mesh *mesh, uint32_t threads);

/* Normalised ray time of a shot at @p t in the motion interval. */
static inline float sensim__scene_ray_time(const sensim_scene *scene, int64_t t)
{
    if (scene->motion_t1 <= scene->motion_t0)
        return 0.0f;
    double u = (double)(t - scene->motion_t0) / (double)(scene->motion_t1 - scene->motion_t0);
    return (float)(u < 0 ? 0 : u > 1 ? 1 : u);
}

/* World pose of actor @p a at normalised time @p u. */
void sensim__actor_pose_at(const sensim_actor *a, double u, double out[16]);
/* Linear velocity of its origin and world angular velocity at @p t (ns):
 * constant inside the motion interval, zero outside (the pose is held). */
void sensim__actor_velocity_at(const sensim_scene *scene, const sensim_actor *a, int64_t t, double v[3], double w[3]);
const sensim_actor *sensim__scene_actor_by_id(const sensim_scene *scene, uint32_t id);

/* Effective material of a hit (committed table); never NULL, read-only. */
extern const sensim_material sensim__tag_materials[SENSIM_TAG_MAX + 1];
static inline const sensim_material *sensim__material_for_hit(const sensim_scene *scene, uint16_t id, uint8_t tag)
{
    if (id != 0 && id < scene->cmat_count && scene->cmats[id].defined && !scene->cmats[id].inherit)
        return &scene->cmats[id].m;
    return &sensim__tag_materials[tag <= SENSIM_TAG_MAX ? tag : 0];
}
/* echo_max and leak_max of @p scene from its meshes' triangles and its
 * committed materials (at commit). */
void sensim__scene_echo_bounds(sensim_scene *scene);
/* Set material @p id's appearance inside an edit section (validated here;
 * the texture is copied). */
sensim_status sensim__scene_set_appearance_locked(sensim_scene *scene, uint32_t id, const sensim_appearance *a);
/* Copy @p w x @p h sRGB texels into the scene's textures (1-based index in
 * *@p out_tex), inside an edit section; SENSIM_ERR_TOO_LARGE past the
 * scene's texture budget (SENSIM_SCENE_TEXTURE_BYTES). Loaders add a file's
 * texture once and share it between the materials that name it. */
sensim_status sensim__scene_add_texture_locked(sensim_scene *scene, uint32_t w, uint32_t h, const uint8_t *rgb,
                                               uint32_t *out_tex);
/* As sensim__scene_set_appearance_locked() with texture @p tex (an index
 * from sensim__scene_add_texture_locked, 0: none) in place of a->texture,
 * which must be NULL. */
sensim_status sensim__scene_set_appearance_tex_locked(sensim_scene *scene, uint32_t id, const sensim_appearance *a,
                                                      uint32_t tex);
/* Id for usemtl @p name, creating it (built-in by keyword, else inherit). */
sensim_status sensim__scene_material_for_name(sensim_scene *scene, const char *name, uint16_t *out_id);

/* Take ownership of @p mesh's arrays (validated by the caller) and append it.
 * On failure frees them. */
sensim_status sensim__scene_append_mesh(sensim_scene *scene, sensim_mesh *mesh, uint32_t *out_id);
/* The same inside an edit section the caller holds. */
sensim_status sensim__scene_append_mesh_locked(sensim_scene *scene, sensim_mesh *mesh, uint32_t *out_id);
void sensim__mesh_free(sensim_mesh *mesh);

/* What a loader works on: validated options and the bytes (from the file,
 * or from memory when @p mem is given). */
typedef struct sensim_load_input {
    sensim_load_options o;
    float scale;
    const char *data;
    size_t size;
    char *owned;       /* free() when done */
} sensim_load_input;
/* A load's file size limit: the option, or 4 GiB when it is 0. */
static inline uint64_t sensim__load_max_bytes(const sensim_load_options *o)
{
    return o->max_file_bytes ? o->max_file_bytes : (UINT64_C(4) << 30);
}
/* The load options checked (scale, default tag, frame) into @p in. */
sensim_status sensim__load_options(const char *path, const sensim_load_options *opt, sensim_load_input *in);
/* The same, and the file's bytes (or @p mem) into in->data. */
sensim_status sensim__load_begin(const char *path, const sensim_load_options *opt, const char *mem, size_t mem_size,
                                 sensim_load_input *in);

/* Loaders from memory (@p label names the data in messages); for fuzzing. */
sensim_status sensim__scene_load_obj_mem(sensim_scene *scene, const char *label, const char *data, size_t size,
                                         const sensim_load_options *opt, uint32_t *out_mesh_id);
sensim_status sensim__scene_load_ply_mem(sensim_scene *scene, const char *label, const char *data, size_t size,
                                         const sensim_load_options *opt, uint32_t *out_mesh_id);

/* Exclusive edit section; fails with SENSIM_ERR_BUSY while scans run. */
sensim_status sensim__scene_edit_begin(sensim_scene *scene);
void sensim__scene_edit_end(sensim_scene *scene);
/* Shared scan section; fails with SENSIM_ERR_BUSY during an edit,
 * SENSIM_ERR_NOT_COMMITTED when staged edits are pending. */
sensim_status sensim__scene_scan_begin(const sensim_scene *scene);
/* Shared read section (committed or not): keeps edits and destroy out. */
sensim_status sensim__scene_read_begin(const sensim_scene *scene);
void sensim__scene_read_end(const sensim_scene *scene);
void sensim__scene_scan_end(const sensim_scene *scene);

#endif
