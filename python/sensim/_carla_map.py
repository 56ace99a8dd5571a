"""sensim.carla's Map: the world's map as CARLA's carla.Map gives it to scripts (its name, geolocation, spawn
points); what needs a road network is refused by name (sensim.carla._carla_api). Below the facade."""
from ._carla_api import missing as _missing
from ._carla_types import GeoLocation, Location, Rotation, Transform, _native


class Map:
    def __init__(self, world, name):
        self._world, self.name = world, name

    def transform_to_geolocation(self, location):
        """CARLA's scaled spherical Mercator about the map's reference (0, 0, 0 for the street), the
        same conversion a GNSS sensor applies (sensim.Nav gnss, model = carla)."""
        pose = _native(Transform(location, Rotation()))
        s = self._world._geo.sample([(0, pose), (1, pose)], 0)
        return GeoLocation(s["latitude_deg"], s["longitude_deg"], s["altitude_m"])

    def get_spawn_points(self):
        return [Transform(Location(x, y, 0.5), Rotation(yaw=yaw)) for x in (-60, -30, 0, 30, 60)
                for y, yaw in ((-1.75, 0.0), (1.75, 180.0))]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return _missing(self, "Map", name)
