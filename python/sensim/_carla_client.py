"""sensim.carla's Client: CARLA's carla.Client for a world in this process (no server; host and port are kept).
Below the facade: it makes worlds of the class sensim.carla gives it (Client._World), so it never imports
sensim.carla."""
import os

from . import _carla_command as command
from ._carla_api import missing as _missing


class Client:
    """CARLA's Client: host and port are accepted and ignored (no server)."""

    def __init__(self, host="localhost", port=2000, worker_threads=0):
        self.host, self.port = host, port
        self._world = None

    def set_timeout(self, seconds):
        self._timeout = float(seconds)

    def get_client_version(self):
        return "0.9.15-sensim"

    def get_server_version(self):
        return "0.9.15-sensim"

    def get_world(self):
        if self._world is None:  # the runner's --scene (SENSIM_CARLA_SCENE), else the built-in street
                self._world = self._World(self, os.environ.get("SENSIM_CARLA_SCENE") or "street")
        return self._world

    def load_world(self, map_name, reset_settings=True, map_layers=None):
        """``street`` (the built-in street), ``town`` (the built-in grid of streets with junctions and traffic
        lights), an OpenDRIVE .xodr file (a world built from its roads) or a scene file path (native frame);
        other CARLA maps raise."""
        if map_name not in ("street", "town") and not os.path.isfile(str(map_name)):
            raise RuntimeError("Client.load_world(%r): sensim.carla has the built-in 'street' and 'town' and "
                               "scene files, not CARLA's towns" % (map_name,))
        if self._world is not None:
            self._world._clock.stop()  # the old world stops (CARLA's server unloads it)
            self._world._ros.close()
        self._world = self._World(self, map_name)
        return self._world

    def get_available_maps(self):
        return ["street", "town"]

    def reload_world(self, reset_settings=True):
        """A new world of the current map (CARLA's reload: actors gone, frame 0 here)."""
        w = self.get_world()
        if w._xodr is not None and w._scene_name == "":
            return self.generate_opendrive_world(w._xodr, None, reset_settings)
        return self.load_world(w._scene_name, reset_settings)

    def generate_opendrive_world(self, opendrive, parameters=None, reset_settings=True):
        """CARLA's: a world built from OpenDRIVE text (the lanes, raised sidewalks, markings and a flat ground
        of sensim_scene_add_road_network; parameters, CARLA's mesh options, are accepted and not used)."""
        if not isinstance(opendrive, str):
            raise TypeError("Client.generate_opendrive_world: the OpenDRIVE text as a str, not %s" %
                            type(opendrive).__name__)
        if self._world is not None:
            self._world._clock.stop()
            self._world._ros.close()
        self._world = self._World(self, "", xodr_text=opendrive)
        return self._world

    def get_trafficmanager(self, port=8000):
        """The current world's traffic manager on @p port (sensim.carla._carla_traffic)."""
        return self.get_world()._tm(port)

    def load_world_if_different(self, map_name, reset_settings=True, map_layers=None):
        """CARLA 0.9.15's: load_world unless ``map_name`` is the current map (then None)."""
        if self._world is not None and str(map_name) == self._world._scene_name:
            return None
        return self.load_world(map_name, reset_settings, map_layers)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return _missing(self, "Client", name)

    def apply_batch(self, commands, do_tick=False):
        """carla.command's commands, run in order (each as the call it names); failures are not reported,
        as in CARLA (apply_batch_sync returns them)."""
        self.apply_batch_sync(commands, do_tick)

    def apply_batch_sync(self, commands, do_tick=False):
        """Run carla.command's commands in order and return a carla.command.Response for each (its
        actor_id, and error "" or the failure's message, as CARLA's); then tick the world if asked."""
        world = self.get_world()
        with world._lock:  # one batch between two ticks, as CARLA's server applies it
            out = [command.run(world, cmd) for cmd in commands]
        if do_tick:
            world.tick()
        return out

