/* Compiled with -std=c11 -pedantic-errors -Werror: the public headers must
 * be strict C11 on their own. */
#include <sensim/sensim.h>

int main(void)
{
    sensim_lidar_desc d;
    sensim_lidar_desc_init(&d);
    return sizeof(sensim_point) == 32 && d.channel_count == 0 ? 0 : 1;
}
