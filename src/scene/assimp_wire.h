/* The stream the Assimp helper (sensim-assimp) writes on its stdout and
 * load_assimp.c reads: what libsensim needs of an aiScene, flattened, so
 * that Assimp itself never runs in the host's process.
 *
 * Little-endian (the helper runs on the same machine), no padding: an
 * 8-byte magic, then records { u32 type, u64 length, length bytes }:
 *   UNIT      f64 metres per file unit (FBX UnitScaleFactor / 100, else 1)
 *   TEXTURE   u32 kind (0: a compressed image file's bytes, 1: RGB8 texels),
 *             u32 width, u32 height, the bytes (kind 1: 3·w·h)
 *   MATERIAL  u32 has_colour, f32 rgba[4], u16 name length, name,
 *             u16 texture reference length, reference ("*N": TEXTURE N;
 *             else a path relative to the scene file's folder)
 *   MESH      u32 has_triangles, u32 material, u32 vertices, u32 triangles,
 *             u32 has_uv, u16 name length, name, f32 xyz[3·vertices],
 *             u32 indices[3·triangles] (not checked by the helper),
 *             f32 uv[2·vertices] if has_uv
 *   PLACEMENT u32 mesh, f64 node-to-file transform[16] (column-major,
 *             y-up file frame), u16 node name length, node name
 *   ERROR     u32 sensim_status, the message (the helper's last record)
 *   END       u32 textures, materials, meshes, placements (the last record)
 * Records of one type come in index order (TEXTURE k is the k-th TEXTURE).
 * The reader checks every count, length and index: it trusts nothing the
 * helper says, since a hostile file may have taken the helper over. */
#ifndef SENSIM_ASSIMP_WIRE_H
#define SENSIM_ASSIMP_WIRE_H

#define SENSIM_WIRE_MAGIC "SNSIMAI1"
enum {
    SENSIM_WIRE_UNIT = 1,
    SENSIM_WIRE_TEXTURE = 2,
    SENSIM_WIRE_MATERIAL = 3,
    SENSIM_WIRE_MESH = 4,
    SENSIM_WIRE_PLACEMENT = 5,
    SENSIM_WIRE_ERROR = 6,
    SENSIM_WIRE_END = 7,
};

/* the node walk's limits (the helper refuses past them) */
#define SENSIM_WIRE_MAX_DEPTH 256
#define SENSIM_WIRE_MAX_NODES (1u << 22)
#define SENSIM_WIRE_MAX_NAME 1023


#endif
