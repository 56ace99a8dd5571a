/* Procedural street scene used by `sensim demo`, `--scene street`, tests and
 * benchmarks. Deterministic: the same arguments give the same triangles. */
#ifndef SENSIM_EXAMPLE_STREET_H
#define SENSIM_EXAMPLE_STREET_H

#include <sensim/sensim.h>

typedef struct street_info {
    uint32_t static_triangles;
    uint32_t car_count;       /* actors, ids 1..car_count */
} street_info;

/* Add a straight street along +x (x in [-length/2, length/2]) centred on the
 * origin: road (tag Roads) 7 m wide at z = 0, raised sidewalks, building
 * blocks, poles, trees and parked cars (actors 1..N, tag Car). Does not
 * commit. @p detail >= 1 subdivides the road and facades (more triangles). */
sensim_status street_scene_build(sensim_scene *scene, float length_m, uint32_t detail,
                                 street_info *out_info);

#endif
