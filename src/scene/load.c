/* sensim_scene_load_file: a mesh file by its extension, to the loader that
 * reads it (load_obj.c, load_ply.c, load_assimp.c); above the loaders, which
 * sit above scene.c. */
#include "scene_impl.h"

#include <string.h>
#include <strings.h>

sensim_status sensim_scene_load_file(sensim_scene *scene, const char *path,
                                     const sensim_load_options *opt, uint32_t *out_mesh_id)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!path)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_load_file: NULL argument");
    const char *dot = strrchr(path, '.');
    if (dot && (strcasecmp(dot, ".obj") == 0))
        return sensim_scene_load_obj(scene, path, opt, out_mesh_id);
    if (dot && (strcasecmp(dot, ".ply") == 0))
        return sensim_scene_load_ply(scene, path, opt, out_mesh_id);
#ifdef SENSIM_HAVE_ASSIMP
    if (dot && sensim__assimp_reads(dot))
        return sensim__scene_load_assimp(scene, path, opt, out_mesh_id);
    return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT,
                        "%s: unknown mesh extension (.obj, .ply, or one Assimp reads: .gltf, .glb, .fbx, .dae, ...)",
                        path);
#else
    return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT,
                        "%s: unknown mesh extension (expected .obj or .ply; this build has no Assimp for glTF, FBX, "
                        "COLLADA)",
                        path);
#endif
}
