/* Scene materials: defaults per semantic tag, named materials (a hash by
 * name), lidar appearance and camera textures (within the scene's budget). */
#include "scene_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


void sensim_material_default(uint32_t tag, sensim_material *out)
{
    if (out)
        *out = sensim__tag_materials[tag <= SENSIM_TAG_MAX ? tag : 0];
}

static sensim_status check_material(const sensim_material *m)
{
    if (!isfinite(m->reflectivity) || !isfinite(m->retro_gain) || !isfinite(m->specular) ||
        !isfinite(m->transparency))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "material has a NaN or infinite field");
    if (!(m->reflectivity >= 0 && m->reflectivity <= 1) || !(m->retro_gain >= 0 && m->retro_gain <= 1000) ||
        !(m->specular >= 0 && m->specular <= 1) || !(m->transparency >= 0 && m->transparency <= 1) ||
        m->specular + m->transparency > 1.0f + 1e-6f)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                            "material: reflectivity %g, retro_gain %g, specular %g, transparency %g outside "
                            "[0,1], [0,1000], [0,1], [0,1] with specular + transparency <= 1",
                            (double)m->reflectivity, (double)m->retro_gain, (double)m->specular,
                            (double)m->transparency);
    return SENSIM_OK;
}

/* Make room for @p n named materials (load factor <= 1/2). */
static sensim_status mat_hash_reserve(sensim_scene *scene, uint32_t n)
{
    if (2 * n <= scene->mat_hash_cap)
        return SENSIM_OK;
    uint32_t cap = 64;
    while (cap < 2 * n)
        cap *= 2;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot grow the material name table");
    free(scene->mat_hash);
    scene->mat_hash = h;
    scene->mat_hash_cap = cap;
    sensim__scene_rebuild_mat_hash(scene);
    return SENSIM_OK;
}

static uint32_t mat_hash_find(const sensim_scene *scene, const char *name)
{
    if (!scene->mat_hash_cap || !name[0])
        return 0;
    uint32_t mask = scene->mat_hash_cap - 1;
    for (uint32_t i = sensim__mat_name_hash(name) & mask; scene->mat_hash[i]; i = (i + 1) & mask) {
        uint32_t id = scene->mat_hash[i];
        if (strcmp(scene->mats[id].name, name) == 0)
            return id;
    }
    return 0;
}

static sensim_status grow_mats(sensim_scene *scene, uint32_t id)
{
    if (id < scene->mat_count)
        return SENSIM_OK;
    uint32_t n = id + 1;
    if (n > scene->mat_cap) {
        /* geometric growth: one name at a time (the OBJ loader) was a
         * quadratic copy of up to 65 535 entries */
        uint32_t cap = scene->mat_cap ? scene->mat_cap : 16;
        while (cap < n)
            cap *= 2;
        sensim_mat_entry *m = realloc(scene->mats, (size_t)cap * sizeof *m);
        if (!m)
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot grow the material table");
        scene->mats = m;
        scene->mat_cap = cap;
    }
    memset(scene->mats + scene->mat_count, 0, (n - scene->mat_count) * sizeof *scene->mats);
    scene->mat_count = n;
    return SENSIM_OK;
}

sensim_status sensim_scene_set_material(sensim_scene *scene, uint32_t id, const sensim_material *mat)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!mat || id == 0 || id > 65535)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_set_material: NULL argument or id %u outside 1..65535", id);
    sensim_status st = check_material(mat);
    if (st != SENSIM_OK)
        return st;
    if ((st = sensim__scene_edit_begin(scene)) != SENSIM_OK)
        return st;
    if ((st = grow_mats(scene, id)) == SENSIM_OK) {
        scene->mats[id].m = *mat;
        scene->mats[id].defined = 1;
        scene->mats[id].inherit = 0;
        scene->dirty = scene->bounds_dirty = true;
    }
    sensim__scene_edit_end(scene);
    return st;
}

static sensim_status check_appearance(uint32_t id, const sensim_appearance *a)
{
    if (!a || id == 0 || id > 65535)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "material appearance: NULL or id %u outside 1..65535", id);
    if (a->reserved[0] || a->reserved[1] || a->reserved[2] || a->reserved[3])
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "material appearance: reserved fields must be zero");
    for (int c = 0; c < 3; c++) {
        if (!isfinite(a->base_color[c]))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "material appearance: base_color[%d] is not finite", c);
        if (a->base_color[c] < 0 || a->base_color[c] > 1)
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "material appearance: base_color[%d] = %g outside [0, 1]", c,
                                (double)a->base_color[c]);
    }
    if (a->texture && (a->texture_width < 1 || a->texture_width > 16384 || a->texture_height < 1 ||
                       a->texture_height > 16384))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "material appearance: texture %u x %u outside 1..16384 a side",
                            a->texture_width, a->texture_height);
    if (!a->texture && (a->texture_width || a->texture_height))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "material appearance: texture sizes without texels");
    return SENSIM_OK;
}

sensim_status sensim__scene_add_texture_locked(sensim_scene *scene, uint32_t w, uint32_t h, const uint8_t *rgb,
                                               uint32_t *out_tex)
{
    const uint64_t n = (uint64_t)w * h * 3;
    if (scene->tex_bytes + n > SENSIM_SCENE_TEXTURE_BYTES)
        return sensim__fail(SENSIM_ERR_TOO_LARGE,
                            "material appearance: a %u x %u texture would pass the scene's texture budget of %llu "
                            "bytes (%llu held)",
                            w, h, (unsigned long long)SENSIM_SCENE_TEXTURE_BYTES,
                            (unsigned long long)scene->tex_bytes);
    if (scene->tex_count == scene->tex_cap) {
        uint32_t cap = scene->tex_cap ? 2 * scene->tex_cap : 8;
        sensim_texture *t = realloc(scene->textures, cap * sizeof *t);
        if (!t)
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot grow the texture table");
        scene->textures = t;
        scene->tex_cap = cap;
    }
    uint8_t *px = malloc((size_t)n);
    if (!px)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot copy a %u x %u texture", w, h);
    memcpy(px, rgb, (size_t)n);
    scene->textures[scene->tex_count] = (sensim_texture){w, h, px};
    scene->tex_bytes += n;
    *out_tex = ++scene->tex_count;
    return SENSIM_OK;
}

sensim_status sensim__scene_set_appearance_tex_locked(sensim_scene *scene, uint32_t id, const sensim_appearance *a,
                                                      uint32_t tex)
{
    sensim_status st = check_appearance(id, a);
    if (st != SENSIM_OK)
        return st;
    if (a->texture || tex > scene->tex_count)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "material appearance: texture %u of %u", tex, scene->tex_count);
    if ((st = grow_mats(scene, id)) != SENSIM_OK)
        return st;
    sensim_mat_entry *e = &scene->mats[id];
    if (!e->defined) { /* an id set only for its looks keeps the tag's lidar material */
        e->defined = 1;
        e->inherit = 1;
    }
    memcpy(e->kd, a->base_color, sizeof e->kd);
    e->has_kd = 1;
    e->tex = tex;
    scene->dirty = scene->bounds_dirty = true;
    return SENSIM_OK;
}

sensim_status sensim__scene_set_appearance_locked(sensim_scene *scene, uint32_t id, const sensim_appearance *a)
{
    sensim_status st = check_appearance(id, a);
    if (st != SENSIM_OK)
        return st;
    uint32_t tex = 0;
    if (a->texture && (st = sensim__scene_add_texture_locked(scene, a->texture_width, a->texture_height, a->texture,
                                                             &tex)) != SENSIM_OK)
        return st;
    sensim_appearance b = *a;
    b.texture = NULL, b.texture_width = b.texture_height = 0;
    return sensim__scene_set_appearance_tex_locked(scene, id, &b, tex);
}

sensim_status sensim_scene_set_material_appearance(sensim_scene *scene, uint32_t id, const sensim_appearance *a)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    sensim_status st = sensim__scene_edit_begin(scene);
    if (st != SENSIM_OK)
        return st;
    st = sensim__scene_set_appearance_locked(scene, id, a);
    sensim__scene_edit_end(scene);
    return st;
}

sensim_status sensim_scene_find_material(const sensim_scene *scene, const char *name, uint32_t *out_id)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!name || !out_id)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_find_material: NULL argument");
    sensim_status st = sensim__scene_read_begin(scene);
    if (st != SENSIM_OK)
        return st;
    uint32_t id = mat_hash_find(scene, name);
    sensim__scene_read_end(scene);
    if (id == 0)
        return sensim__fail(SENSIM_ERR_NOT_FOUND, "no material named '%.200s'", name);
    *out_id = id;
    return SENSIM_OK;
}

static bool has_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return false;
}

/* Called by the loaders inside their own edit section. */
sensim_status sensim__scene_material_for_name(sensim_scene *scene, const char *name, uint16_t *out_id)
{
    uint32_t id = mat_hash_find(scene, name);
    if (id != 0) {
        *out_id = (uint16_t)id;
        return SENSIM_OK;
    }
    id = scene->mat_count ? scene->mat_count : 1;
    if (id > 65535)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "more than 65535 materials");
    sensim_status st = grow_mats(scene, id);
    if (st == SENSIM_OK)
        st = mat_hash_reserve(scene, id + 1);
    if (st != SENSIM_OK)
        return st;
    sensim_mat_entry *e = &scene->mats[id];
    snprintf(e->name, sizeof e->name, "%s", name);
    e->defined = 1;
    e->inherit = 0;
    memset(&e->m, 0, sizeof e->m);
    if (has_ci(name, "mirror")) {
        e->m.reflectivity = 0.02f, e->m.specular = 1.0f;
    } else if (has_ci(name, "glass") || has_ci(name, "window")) {
        e->m.reflectivity = 0.05f, e->m.specular = 0.08f, e->m.transparency = 0.85f;
    } else if (has_ci(name, "retro")) {
        e->m.reflectivity = 0.5f, e->m.retro_gain = 20.0f;
    } else if (has_ci(name, "water")) {
        e->m.reflectivity = 0.02f, e->m.specular = 0.8f;
    } else if (has_ci(name, "wet")) {
        e->m.reflectivity = 0.08f, e->m.specular = 0.5f;
    } else {
        e->inherit = 1;
    }
    sensim__mat_hash_insert(scene, id);
    scene->dirty = scene->bounds_dirty = true;
    *out_id = (uint16_t)id;
    return SENSIM_OK;
}
