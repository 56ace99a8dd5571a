/* OpenDRIVE: the XML helper's answer as the host reads it (xml_read.c: a hostile helper's bytes) and the road
 * network built from it (odr.c), then queried. The seeds are the helper's answers for tests/data/xodr. */
#include "odr_impl.h"
#include "xml.h"
#include "fuzz_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    sensim__xml x;
    if (sensim__xml_from_answer("fuzz.xodr", buf, size, &x) != SENSIM_OK)
        return 0; /* freed by the reader */
    sensim_road_network *net = NULL;
    if (sensim__odr_build(NULL, "fuzz.xodr", &x, 1u << 16, &net) == SENSIM_OK) {
        const uint32_t n = sensim_road_network_count(net);
        for (uint32_t r = 0; r < n && r < 8; r++) {
            sensim_road_info info;
            if (sensim_road_network_info(net, r, &info) != SENSIM_OK || !(info.length_m > 0))
                __builtin_trap(); /* a loaded road has a positive length */
            double m[16];
            for (int k = 0; k <= 2; k++)
                if (sensim_road_network_pose(net, r, info.length_m * k / 2, 1.0, 0.5, m) != SENSIM_OK)
                    __builtin_trap();
            sensim_lane_info lanes[16];
            uint32_t nl = 0;
            if (sensim_road_network_lanes(net, r, info.length_m / 2, lanes, 16, &nl) != SENSIM_OK || !nl)
                __builtin_trap(); /* every section has its centre lane */
            for (uint32_t l = 0; l < nl && l < 16; l++) {
                sensim_lane_ref refs[8];
                uint32_t nr;
                if (lanes[l].id == 0)
                    continue;
                if (sensim_road_network_next_lanes(net, r, lanes[l].section, lanes[l].id, refs, 8, &nr) != SENSIM_OK ||
                    sensim_road_network_previous_lanes(net, r, lanes[l].section, lanes[l].id, refs, 8, &nr) !=
                        SENSIM_OK)
                    __builtin_trap();
            }
        }
        const double p[3] = {1.0, -2.0, 0.0};
        sensim_lane_point lp;
        (void)sensim_road_network_locate(net, p, SENSIM_LANE_ANY, &lp);
        sensim_road_network_destroy(net);
    }
    sensim__xml_free(&x);
    return 0;
}
