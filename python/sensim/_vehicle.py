"""The kinematic vehicle model of sensim/vehicle.h (what sensim.carla drives its vehicles with and
`sensim ros2 --control-in` drives the ego with) for hosts in Python."""
import ctypes

from . import _lib
from ._core import (InvalidArgument, _L, _check, _f64, _mat16, _need_numpy, _np)
from ._files import _vehicle_control

VEHICLE_MODEL_FIELDS = tuple(k for k, _ in _lib.VehicleModel._fields_ if k != "reserved")


def vehicle_model():
    """The model's figures (sensim.carla's) as a dict: wheelbase_m, throttle_mps2, reverse_mps2, brake_mps2,
    hand_brake_mps2, drag_linear_hz, drag_quadratic_pm, max_wheel_rad."""
    m = _lib.VehicleModel()
    _L.sensim_vehicle_model_init(ctypes.byref(m))
    return {k: getattr(m, k) for k in VEHICLE_MODEL_FIELDS}


def vehicle_step(control, dt_s, speed_mps, pose_matrix, model=None):
    """Advance a vehicle by dt_s under control (a carla.VehicleControl or a dict of its fields): returns
    (new signed speed m/s, new 4x4 pose as a numpy array, yaw rate rad/s, positive left). pose_matrix: the
    vehicle's rigid pose in the world (REP-103, z up). model: a dict of figures to change (vehicle_model()'s
    keys). Safe from any thread (it touches only its arguments)."""
    _need_numpy("vehicle_step")
    m = _lib.VehicleModel()
    _L.sensim_vehicle_model_init(ctypes.byref(m))
    for k, v in (model or {}).items():
        if k not in VEHICLE_MODEL_FIELDS:
            raise InvalidArgument(1, "model has no figure %r (%s)" % (k, ", ".join(VEHICLE_MODEL_FIELDS)))
        setattr(m, k, _f64(v, "model[%r]" % k))
    c = _vehicle_control(control)
    speed = ctypes.c_double(_f64(speed_mps, "speed_mps"))
    pose = _mat16(pose_matrix)
    rate = ctypes.c_double()
    _check(_L.sensim_vehicle_step(ctypes.byref(m), ctypes.byref(c), _f64(dt_s, "dt_s"), ctypes.byref(speed), pose,
                                  ctypes.byref(rate)))
    return speed.value, _np.array(list(pose), dtype=_np.float64).reshape(4, 4).T.copy(), rate.value
