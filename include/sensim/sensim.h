/**
 * @file sensim/sensim.h
 * @brief libsensim: headless lidar simulation over Embree. Include this.
 *
 * Thread-safety rule: the library is not thread-safe except where a
 * function's "Thread safety" line says otherwise. In short: a committed scene
 * may be scanned by several lidars from several threads at once; each lidar,
 * each ring (apart from its one producer and one consumer) and each staged
 * scene is used by one thread at a time.
 *
 * Units: metres, radians, integer nanoseconds. Frames: right-handed, x
 * forward, y left, z up. Matrices: double[16], column-major.
 */
#ifndef SENSIM_SENSIM_H
#define SENSIM_SENSIM_H

#include <sensim/common.h>
#include <sensim/context.h>
#include <sensim/scene.h>
#include <sensim/query.h>
#include <sensim/ring.h>
#include <sensim/lidar.h>
#include <sensim/io.h>
#include <sensim/pattern.h>
#include <sensim/rig.h>
#include <sensim/sink.h>
#include <sensim/camera.h>
#include <sensim/nav.h>
#include <sensim/radar.h>
#include <sensim/mcap.h>
#include <sensim/placement.h>
#include <sensim/road.h>
#include <sensim/vehicle.h>
#include <sensim/frames.h>
#include <sensim/bench.h>

#endif
