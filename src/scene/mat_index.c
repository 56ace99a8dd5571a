/* What the scene derives from its materials when it commits or grows: the
 * name table's slots and the echo/leak bounds of the ghost model. Below
 * both scene.c (which commits) and materials.c (which edits under the
 * scene's lock): neither calls back into the other for these. */
#include "scene_impl.h"

#include <string.h>

/* Defaults per semantic tag: reflectivity, retro-reflective gain, specular, transparency. */
const sensim_material sensim__tag_materials[SENSIM_TAG_MAX + 1] = {
    [0] = {0.3f, 0, 0, 0, {0}},     [1] = {0.12f, 0, 0, 0, {0}},   [2] = {0.25f, 0, 0, 0, {0}},
    [3] = {0.35f, 0, 0, 0, {0}},    [4] = {0.35f, 0, 0, 0, {0}},   [5] = {0.3f, 0, 0, 0, {0}},
    [6] = {0.3f, 0, 0, 0, {0}},     [7] = {0.3f, 0, 0, 0, {0}},    [8] = {0.5f, 5.0f, 0, 0, {0}},
    [9] = {0.5f, 0, 0, 0, {0}},     [10] = {0.3f, 0, 0, 0, {0}},   [11] = {0.0f, 0, 0, 0, {0}},
    [12] = {0.3f, 0, 0, 0, {0}},    [13] = {0.3f, 0, 0, 0, {0}},   [14] = {0.25f, 0, 0.1f, 0, {0}},
    [15] = {0.25f, 0, 0.1f, 0, {0}}, [16] = {0.25f, 0, 0.1f, 0, {0}}, [17] = {0.25f, 0, 0.1f, 0, {0}},
    [18] = {0.25f, 0, 0, 0, {0}},   [19] = {0.25f, 0, 0, 0, {0}},  [20] = {0.3f, 0, 0, 0, {0}},
    [21] = {0.3f, 0, 0, 0, {0}},    [22] = {0.3f, 0, 0, 0, {0}},   [23] = {0.02f, 0, 0.8f, 0, {0}},
    [24] = {0.5f, 1.0f, 0, 0, {0}}, [25] = {0.25f, 0, 0, 0, {0}},  [26] = {0.3f, 0, 0, 0, {0}},
    [27] = {0.2f, 0, 0, 0, {0}},    [28] = {0.4f, 0, 0.1f, 0, {0}},
};

void sensim__scene_echo_bounds(sensim_scene *scene)
{
    double bmax = 0.0, lmax = 0.0;
    for (uint32_t i = 0; i < scene->mesh_count; i++) {
        const sensim_mesh *m = &scene->meshes[i];
        uint32_t last = UINT32_MAX; /* triangles come in runs of one (material, tag) */
        for (uint32_t t = 0; t < m->triangle_count; t++) {
            uint32_t key = (uint32_t)m->materials[t] << 8 | m->tags[t];
            if (key == last)
                continue;
            last = key;
            const sensim_material *mp = sensim__material_for_hit(scene, m->materials[t], m->tags[t]);
            double b = (1.0 - mp->specular - mp->transparency) * mp->reflectivity + mp->retro_gain;
            double l = (double)mp->specular + (double)mp->transparency * mp->transparency;
            bmax = b > bmax ? b : bmax;
            lmax = l > lmax ? l : lmax;
        }
    }
    scene->echo_max = bmax, scene->leak_max = lmax;
}

/* Material names are found through an open-addressing table of ids keyed
 * by name (FNV-1a), so 65 535 names and any number of usemtl lines load in
 * linear time. */
uint32_t sensim__mat_name_hash(const char *s)
{
    return sensim__fnv1a(s, strlen(s));
}

void sensim__mat_hash_insert(sensim_scene *scene, uint32_t id)
{
    uint32_t mask = scene->mat_hash_cap - 1;
    for (uint32_t i = sensim__mat_name_hash(scene->mats[id].name) & mask;; i = (i + 1) & mask)
        if (scene->mat_hash[i] == 0) {
            scene->mat_hash[i] = id;
            return;
        }
}

void sensim__scene_rebuild_mat_hash(sensim_scene *scene)
{
    if (scene->mat_hash)
        memset(scene->mat_hash, 0, scene->mat_hash_cap * sizeof *scene->mat_hash);
    for (uint32_t id = 1; id < scene->mat_count; id++)
        if (scene->mats[id].defined && scene->mats[id].name[0])
            sensim__mat_hash_insert(scene, id);
}
