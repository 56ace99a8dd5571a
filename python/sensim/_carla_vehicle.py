"""sensim.carla's vehicle model: CARLA's VehicleControl and VehicleAckermannControl, and the kinematic model
that turns them into motion (CARLA drives its vehicles with PhysX; a headless library has no physics).

The model, per tick of dt seconds, for a vehicle of wheelbase L (1.2 x its bounding-box half length, 2.9 m
for a Tesla Model 3):
  * speed v (m/s, signed: negative in reverse) changes by (throttle x 3.5 m/s^2 forward, 2.0 in reverse)
    minus braking (brake x 7.0 m/s^2, hand brake 5.0) minus resistance (0.05 v + 0.0015 v|v|), and never
    changes sign through braking or resistance; top speed about 33 m/s at full throttle;
  * the front wheels turn by steer x 35 degrees (positive: to the right, CARLA's sign); the yaw rate is
    v tan(wheel angle) / L (a kinematic bicycle: no slip, no load transfer, no gears);
  * Ackermann control: v moves towards ``speed`` at ``acceleration`` (3.5 m/s^2 when 0), the wheels at
    ``steer`` radians (positive: to the left, as CARLA's Ackermann controller; limited to 35 degrees).
The vehicle then moves along its heading at the new speed, turning at that rate, in the world's plane (its
pitch and roll are kept). Limits: no slopes, collisions, gravity or tyre forces; set_transform still puts
the vehicle anywhere (a jump), set_target_velocity still drives it directly (a control applied since
takes over)."""
import math
import struct


def _f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


A_THROTTLE, A_REVERSE, A_BRAKE, A_HAND = 3.5, 2.0, 7.0, 5.0
DRAG_LIN, DRAG_QUAD = 0.05, 0.0015
MAX_WHEEL_DEG = 35.0


class VehicleControl:
    """CARLA's carla.VehicleControl (fields as C floats and bools, the binding's defaults)."""

    def __init__(self, throttle=0.0, steer=0.0, brake=0.0, hand_brake=False, reverse=False,
                 manual_gear_shift=False, gear=0):
        self.throttle, self.steer, self.brake = _f32(throttle), _f32(steer), _f32(brake)
        self.hand_brake, self.reverse, self.manual_gear_shift = bool(hand_brake), bool(reverse), bool(manual_gear_shift)
        self.gear = int(gear)

    def _clamped(self):
        """As CARLA's vehicle applies it: throttle and brake in [0, 1], steer in [-1, 1]."""
        return VehicleControl(min(max(self.throttle, 0.0), 1.0), min(max(self.steer, -1.0), 1.0),
                              min(max(self.brake, 0.0), 1.0), self.hand_brake, self.reverse, self.manual_gear_shift,
                              self.gear)

    def __eq__(self, o):
        return isinstance(o, VehicleControl) and all(getattr(self, k) == getattr(o, k) for k in (
            "throttle", "steer", "brake", "hand_brake", "reverse", "manual_gear_shift", "gear"))

    def __ne__(self, o):
        return not self == o

    __hash__ = None

    def __repr__(self):
        return ("VehicleControl(throttle=%g, steer=%g, brake=%g, hand_brake=%s, reverse=%s, manual_gear_shift=%s, "
                "gear=%d)" % (self.throttle, self.steer, self.brake, self.hand_brake, self.reverse,
                              self.manual_gear_shift, self.gear))


class VehicleAckermannControl:
    """CARLA's carla.VehicleAckermannControl: steer (rad, positive left), steer_speed (rad/s), speed (m/s),
    acceleration (m/s^2), jerk (m/s^3), as C floats."""

    def __init__(self, steer=0.0, steer_speed=0.0, speed=0.0, acceleration=0.0, jerk=0.0):
        self.steer, self.steer_speed, self.speed = _f32(steer), _f32(steer_speed), _f32(speed)
        self.acceleration, self.jerk = _f32(acceleration), _f32(jerk)

    def __repr__(self):
        return "VehicleAckermannControl(steer=%g, steer_speed=%g, speed=%g, acceleration=%g, jerk=%g)" % (
            self.steer, self.steer_speed, self.speed, self.acceleration, self.jerk)


def step(v, control, dt, wheelbase):
    """(new signed speed m/s, yaw rate deg/s in CARLA's sense: positive turns right) after @p dt seconds."""
    if isinstance(control, VehicleAckermannControl):
        a = abs(control.acceleration) or A_THROTTLE
        dv = control.speed - v
        v = control.speed if abs(dv) <= a * dt else v + math.copysign(a * dt, dv)
        wheel = -max(min(control.steer, math.radians(MAX_WHEEL_DEG)), -math.radians(MAX_WHEEL_DEG))
    else:
        c = control
        push = (-A_REVERSE if c.reverse else A_THROTTLE) * c.throttle
        slow = A_BRAKE * c.brake + (A_HAND if c.hand_brake else 0.0) + DRAG_LIN * abs(v) + DRAG_QUAD * v * v
        v1 = v + push * dt
        if v1 != 0.0:  # braking and resistance take speed away, never past standstill
            cut = slow * dt
            v1 = 0.0 if cut >= abs(v1) else v1 - math.copysign(cut, v1)
        v = v1
        wheel = math.radians(MAX_WHEEL_DEG) * c.steer
    return v, math.degrees(v * math.tan(wheel) / wheelbase)
