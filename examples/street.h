/* The built-in street for examples, tests and benchmarks: a thin name for
 * sensim_scene_add_street() (<sensim/scene.h>), kept so the programs read
 * as they did when the street lived here. */
#ifndef SENSIM_EXAMPLE_STREET_H
#define SENSIM_EXAMPLE_STREET_H

#include <sensim/sensim.h>

typedef sensim_street_info street_info;

static inline sensim_status street_scene_build(sensim_scene *scene, float length_m, uint32_t detail,
                                               street_info *out_info)
{
    return sensim_scene_add_street(scene, length_m, detail, out_info);
}

#endif
