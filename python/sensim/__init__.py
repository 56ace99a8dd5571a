"""libsensim from Python: a ctypes layer over the same C ABI.

Objects (Context, Scene, Lidar, Ring, Rig) own C handles and free them
deterministically with ``close()`` or ``with``; they also close when garbage
collected, in any order (children keep their parents alive, in Python and in
C). Every failing C call raises a subclass of :class:`Error` carrying the
status code and the library's message.

Matrices are 4x4 nested sequences or numpy arrays in mathematical layout
(``m[row][col]``, translation in the last column); they are converted to the
C API's column-major doubles.

Units, one rule for the whole package: poses and motions you give are in the
CLI's units -- metres, degrees (:func:`pose`, :func:`pose_from_frame`) and
degrees per second (:func:`motion_from_velocity`); every other angle carries
its unit in its name (``bin_rad``, ``full_fov_rad``, ``latitude_deg``);
sensor measurements are SI as in ROS messages (rad/s, m/s²); times are
integer nanoseconds.

Point records: with numpy (and ``SENSIM_DISABLE_NUMPY`` unset) frames come
back as structured arrays whose dtype is built from the library's own field
table; without numpy, as ``memoryview`` objects over the 32-byte records plus
:func:`unpack_points` to decode them.
"""

# The namespace: the floor's names (private ones included: the package's other modules and its users'
# scripts reach sensim._L, sensim._check and the like), then the modules by responsibility. Nothing here
# is imported back by them: they take what they need from _core and from each other (issue 67).
from . import _core
globals().update({k: v for k, v in vars(_core).items() if not (k.startswith("__") and k.endswith("__"))})
__version__ = _core.__version__

from ._sensors import (Camera, Lidar, NAV_KINDS, Nav, NavRing, RADAR_DTYPE, Radar, motion_from_velocity,
                       radar_fields)  # noqa: E402,F401
from ._files import (MCAP_COMPRESSION, MCAP_TYPES, McapWriter, POINT_FORMATS, Ros2Publisher, Ros2Reader, gnss_enu_variance,
                     read_ply, ros2_available, write_pcd, write_ply, write_png, write_points)  # noqa: E402,F401
from ._sinks import (CAMERA_OUTPUTS, CSV_KINDS, CsvSink, FrameSink, ImageSink, McapSink,
                     SINK_IMAGES)  # noqa: E402,F401
from ._rig import (Rig)  # noqa: E402,F401
from ._roads import LANE_TYPES, RoadNetwork  # noqa: E402,F401
from ._vehicle import vehicle_model, vehicle_step  # noqa: E402,F401
