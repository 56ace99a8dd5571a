/* A rig's proximity sensor, stepped by rig.c. */
#ifndef SENSIM_PROXIMITY_H
#define SENSIM_PROXIMITY_H

#include "internal.h"
#include "motion.h"

#include <sensim/rig.h>

/* Proximity frame k ([k·period, (k+1)·period), evaluated at its start) into @p ring's open transaction: one
 * point (centre, object id, tag) for every moving actor whose box overlaps the platform's box at that time. */
void sensim__proximity_frame(const sensim_scene *scene, const sensim_proximity_desc *d, sensim_ring *ring,
                             int64_t period_ns, const sensim_path *path, int64_t k, uint64_t step);

#endif
