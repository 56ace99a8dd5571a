#include "internal.h"

#include <ctype.h>
#include <string.h>

static const char *const tag_names[SENSIM_TAG_MAX + 1] = {
    "Unlabeled", "Roads", "SideWalks", "Building", "Wall", "Fence", "Pole",
    "TrafficLight", "TrafficSign", "Vegetation", "Terrain", "Sky", "Pedestrian",
    "Rider", "Car", "Truck", "Bus", "Train", "Motorcycle", "Bicycle", "Static",
    "Dynamic", "Other", "Water", "RoadLine", "Ground", "Bridge", "RailTrack",
    "GuardRail",
};

/* Order matters: more specific names precede names they contain
 * ("roadline" before "road", "guardrail" before "rail", "sidewalk" before
 * "wall"-like substrings, "trafficlight" before "sign"). */
static const struct {
    const char *key;
    uint8_t tag;
} name_table[] = {
    {"roadline", 24}, {"road_line", 24}, {"lane_marking", 24}, {"lanemarking", 24},
    {"guardrail", 28}, {"guard_rail", 28}, {"railtrack", 27}, {"rail", 27},
    {"sidewalk", 2}, {"road", 1}, {"street", 1}, {"asphalt", 1},
    {"building", 3}, {"house", 3}, {"wall", 4}, {"fence", 5},
    {"trafficlight", 7}, {"traffic_light", 7}, {"trafficsign", 8}, {"traffic_sign", 8},
    {"sign", 8}, {"pole", 6}, {"vegetation", 9}, {"tree", 9}, {"bush", 9},
    {"terrain", 10}, {"grass", 10}, {"sky", 11}, {"pedestrian", 12}, {"person", 12},
    {"rider", 13}, {"truck", 15}, {"bus", 16}, {"train", 17}, {"motorcycle", 18},
    {"motorbike", 18}, {"bicycle", 19}, {"bike", 19}, {"car", 14}, {"vehicle", 14},
    {"static", 20}, {"dynamic", 21}, {"water", 23}, {"ground", 25}, {"bridge", 26},
    {"other", 22},
};

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == needle[i])
            i++;
        if (i == n)
            return true;
    }
    return false;
}

int32_t sensim_tag_from_name(const char *name)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < sizeof name_table / sizeof name_table[0]; i++)
        if (contains_ci(name, name_table[i].key))
            return name_table[i].tag;
    return -1;
}

const char *sensim_tag_name(uint32_t tag)
{
    return tag <= SENSIM_TAG_MAX ? tag_names[tag] : "";
}

static const uint8_t tag_rgb[SENSIM_TAG_MAX + 1][3] = {
    {0, 0, 0},       {128, 64, 128},  {244, 35, 232}, {70, 70, 70},    {102, 102, 156}, {190, 153, 153},
    {153, 153, 153}, {250, 170, 30},  {220, 220, 0},  {107, 142, 35},  {152, 251, 152}, {70, 130, 180},
    {220, 20, 60},   {255, 0, 0},     {0, 0, 142},    {0, 0, 70},      {0, 60, 100},    {0, 80, 100},
    {0, 0, 230},     {119, 11, 32},   {110, 190, 160}, {170, 120, 50}, {55, 90, 80},    {45, 60, 150},
    {157, 234, 50},  {81, 0, 81},     {150, 100, 100}, {230, 150, 140}, {180, 165, 180},
};

void sensim_tag_color(uint32_t tag, uint8_t out[3])
{
    if (!out)
        return;
    if (tag > SENSIM_TAG_MAX)
        tag = 0;
    memcpy(out, tag_rgb[tag], 3);
}
