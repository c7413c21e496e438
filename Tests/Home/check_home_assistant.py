#!/usr/bin/env python3
"""The station in Home Assistant, against a real Mosquitto broker and Eclipse Paho's client (paho-mqtt from
PyPI, in .build-bench/venv-mqtt): the real binary on simulated devices, in meal mode, the AI service the
stand-in (Tests/Fakes/fake_services.py).

- every discovery config the station publishes is read and checked against Home Assistant's schema for its
  component, as homeassistant/components/mqtt and sensor/const.py define it (2026.2): the required keys,
  the topic's form, the device, the device classes with their units and state classes;
- a meal saved at the station shows in the day's kcal within a second of its save;
- the countdown button started from the hub starts the countdown;
- the broker stopped through five of the station's tries (its waits of 1, 2, 4 and 8 s, read in its log,
  not slept here) costs the station nothing (its memory), and the states come back at its next try once the
  broker is back (no persistence: the station publishes them again);
- the station killed: its will marks it offline;
- a wrong password: the station says so in its log and on its page.

    python3 Tests/Home/check_home_assistant.py [--binary .build/debug/snapstation] [--tries 5]
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Support"))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Benchmarks"))
from pychecks import check, finish, in_venv  # noqa: E402  (Tests/Support/pychecks.py)


def have_paho():
    import importlib.util
    return importlib.util.find_spec("paho") is not None and importlib.util.find_spec("paho.mqtt") is not None


in_venv("venv-mqtt", ["paho-mqtt==2.1.0"], have_paho)
import paho.mqtt.client as mqtt  # noqa: E402
from common import Station  # noqa: E402  (Tests/Benchmarks/common.py)

USER, PASSWORD = "station", "hall-pass-42"

# Home Assistant 2026.2: homeassistant/components/sensor/const.py (DEVICE_CLASS_UNITS,
# DEVICE_CLASS_STATE_CLASSES) for the classes the station uses; binary_sensor/__init__.py's classes.
SENSOR_UNITS = {
    "energy": {"J", "kJ", "MJ", "GJ", "mWh", "Wh", "kWh", "MWh", "GWh", "TWh", "cal", "kcal", "Mcal", "Gcal"},
    "weight": {"g", "kg", "mg", "µg", "oz", "lb", "st"},
}
SENSOR_STATE_CLASSES = {"energy": {"total", "total_increasing"}, "weight": {"measurement", "total", "total_increasing"}}
BINARY_CLASSES = {
    "battery", "battery_charging", "carbon_monoxide", "cold", "connectivity", "door", "garage_door", "gas", "heat",
    "light", "lock", "moisture", "motion", "moving", "occupancy", "opening", "plug", "power", "presence",
    "problem", "running", "safety", "smoke", "sound", "tamper", "update", "vibration", "window",
}
# mqtt/config.py MQTT_RO_SCHEMA (state_topic), mqtt/button.py (command_topic), mqtt/image.py (one of two).
REQUIRED = {"sensor": {"state_topic"}, "binary_sensor": {"state_topic"}, "update": {"state_topic"},
            "button": {"command_topic"}, "image": set()}
TOPIC = re.compile(r"^homeassistant/(?P<component>\w+)/(?:(?P<node>[a-zA-Z0-9_-]+)/)?(?P<object>[a-zA-Z0-9_-]+)/config$")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """Mosquitto on a free port of 127.0.0.1, one user, no persistence: stopped, it forgets everything."""

    def __init__(self, folder):
        self.folder, self.port, self.process = folder, free_port(), None
        passwords = os.path.join(folder, "passwords")
        subprocess.run(["mosquitto_passwd", "-c", "-b", passwords, USER, PASSWORD], check=True)
        with open(os.path.join(folder, "mosquitto.conf"), "w") as f:
            f.write(f"allow_anonymous false\npassword_file {passwords}\npersistence false\nuser root\n"
                    f"listener {self.port} 127.0.0.1\n")
        self.start()

    def start(self):
        self.process = subprocess.Popen(["mosquitto", "-c", os.path.join(self.folder, "mosquitto.conf")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


class Hub:
    """What Home Assistant sees: every retained and new message under homeassistant/ and snapstation/."""

    def __init__(self, port):
        self.messages, self.arrived = {}, {}
        self.condition = threading.Condition()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="home-assistant")
        self.client.username_pw_set(USER, PASSWORD)
        self.client.on_connect = lambda client, *_: client.subscribe([("homeassistant/#", 0), ("snapstation/#", 0)])
        self.client.on_message = self.message
        self.client.reconnect_delay_set(1, 2)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def message(self, client, userdata, message):
        with self.condition:
            self.messages[message.topic] = message.payload
            self.arrived[message.topic] = time.monotonic()
            self.condition.notify_all()

    def clear(self):
        with self.condition:
            self.messages.clear()

    def until(self, test, timeout=30, what="the messages"):
        deadline = time.monotonic() + timeout
        with self.condition:
            while not test(self.messages):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"{what}: not within {timeout} s; topics: {sorted(self.messages)[:12]}")
                self.condition.wait(remaining)
            return dict(self.messages)

    def json(self, topic):
        with self.condition:
            payload = self.messages.get(topic)
        return json.loads(payload) if payload else None

    def stop(self):
        self.client.loop_stop()
        self.client.disconnect()


def config_file(folder, ai_base, port, password_env, countdown_button=True):
    path = os.path.join(folder, "snapstation.toml")
    with open(path, "w") as f:
        f.write(f"""[station]
name = "Kitchen station"
time_zone = "UTC"
default_mode = "meal"
[display]
idle_seconds = 0
[countdown]
seconds = 1
[ai]
base_url = "{ai_base}/v1"
key_source = "env:HOME_AI_KEY"
auto_save_seconds = 1
[web]
address = "127.0.0.1"
port = 0
[mqtt]
url = "mqtt://127.0.0.1:{port}"
username = "{USER}"
key_source = "env:{password_env}"
countdown_button = {"true" if countdown_button else "false"}
""")
    return path


def check_config(topic, config):
    """What Home Assistant would refuse in one discovery config, as a list of words (empty: none)."""
    found = TOPIC.match(topic)
    if not found:
        return [f"{topic} is not a discovery topic Home Assistant matches"]
    component = found["component"]
    wrong = []
    missing = REQUIRED.get(component, {"?"}) - set(config)
    if missing:
        wrong.append(f"{topic}: lacks {sorted(missing)}")
    if component == "image" and ("image_topic" in config) == ("url_topic" in config):
        wrong.append(f"{topic}: needs exactly one of image_topic and url_topic")
    device = config.get("device", {})
    if not (device.get("identifiers") or device.get("connections")):
        wrong.append(f"{topic}: its device has no identifiers")
    if "origin" in config and "name" not in config["origin"]:
        wrong.append(f"{topic}: its origin has no name")
    if config.get("unique_id") != found["object"] and not config.get("unique_id", "").endswith(found["object"]):
        wrong.append(f"{topic}: unique_id {config.get('unique_id')} is not its object id")
    if "availability_topic" not in config:
        wrong.append(f"{topic}: no availability_topic")
    device_class = config.get("device_class")
    if component == "sensor" and device_class:
        if config.get("unit_of_measurement") not in SENSOR_UNITS.get(device_class, set()):
            wrong.append(f"{topic}: unit {config.get('unit_of_measurement')} is not one of {device_class}'s")
        if config.get("state_class") not in SENSOR_STATE_CLASSES.get(device_class, set()):
            wrong.append(f"{topic}: state class {config.get('state_class')} is impossible for {device_class}")
    if "last_reset_value_template" in config and config.get("state_class") != "total":
        wrong.append(f"{topic}: last_reset_value_template needs state_class total")
    if component == "binary_sensor" and device_class and device_class not in BINARY_CLASSES:
        wrong.append(f"{topic}: {device_class} is no binary_sensor class")
    if component == "update" and device_class not in (None, "firmware"):
        wrong.append(f"{topic}: {device_class} is no update class")
    if config.get("entity_category") not in (None, "diagnostic", "config"):
        wrong.append(f"{topic}: entity_category {config['entity_category']}")
    if component in ("sensor", "binary_sensor") and config.get("entity_category") == "config":
        wrong.append(f"{topic}: a {component} cannot be in the config category")
    return wrong


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "snapstation"))
    parser.add_argument("--tries", type=int, default=5, help="the station's tries while the broker is away")
    args = parser.parse_args()
    if not shutil.which("mosquitto"):
        sys.exit("SKIPPED: no Mosquitto broker (apt-get install mosquitto mosquitto-clients: .ci/install-deps)")
    folder = tempfile.mkdtemp(prefix="home-")
    node = "snapstation_kitchen_station"
    broker = Broker(folder)
    fake = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "Fakes", "fake_services.py"), "--port", "0"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ai_base = "http://127.0.0.1:" + fake.stdout.readline().split()[1]
    hub = Hub(broker.port)
    environment = {"HOME_AI_KEY": "test-key", "HOME_MQTT_PASSWORD": PASSWORD}
    station = Station(args.binary, config_file(folder, ai_base, broker.port, "HOME_MQTT_PASSWORD"),
                      os.path.join(folder, "state"), environment, arguments=["--simulate", "--log-level", "debug"])
    try:
        station.wait("screen: ready")

        kcal_topic = f"snapstation/{node}/person/household/state"
        with check("every discovery config is one Home Assistant takes: required keys, device, classes and units"):
            expected = [f"homeassistant/{c}/{node}/{o}/config" for c, o in [
                ("button", "countdown"), ("image", "group_photo"), ("sensor", "household_kcal"),
                ("sensor", "household_fats"), ("sensor", "ai_left"), ("update", "software"), ("binary_sensor", "problem")]]
            # The household's five sensors, the station's four, the problem, the update, the photo, the button.
            messages = hub.until(lambda m: all(t in m for t in expected)
                                 and sum(1 for t in m if t.startswith("homeassistant/") and t.endswith("/config")) >= 13,
                                 what="the 13 configs")
            configs = {topic: json.loads(payload) for topic, payload in messages.items()
                       if topic.startswith("homeassistant/") and topic.endswith("/config") and payload}
            components = sorted({TOPIC.match(t)["component"] for t in configs})
            print(f"     {len(configs)} configs: {', '.join(components)}")
            wrong = [w for topic, config in configs.items() for w in check_config(topic, config)]
            assert not wrong, "; ".join(wrong)
            assert components == ["binary_sensor", "button", "image", "sensor", "update"], components
            assert len(configs) == 13, sorted(configs)
            kcal = configs[f"homeassistant/sensor/{node}/household_kcal/config"]
            assert (kcal["device_class"], kcal["unit_of_measurement"], kcal["state_class"]) == ("energy", "kcal", "total")
            assert kcal["device"]["name"] == "Kitchen station" and kcal["device"]["sw_version"], kcal["device"]
        with check("the station is online, and its day starts at 0 kcal"):
            hub.until(lambda m: m.get(f"snapstation/{node}/availability") == b"online", what="online")
            hub.until(lambda m: kcal_topic in m, what="the household's state")
            assert hub.json(kcal_topic)["kcal"] == 0, hub.json(kcal_topic)
        with check("the countdown button in the hub starts the countdown; the meal saved shows within a second"):
            mark = station.mark()
            hub.client.publish(f"snapstation/{node}/countdown/press", "PRESS")
            station.wait("screen: countdown", after=mark, timeout=20)
            station.wait("screen: meal-result", after=mark, timeout=60)
            saved_at, _ = station.wait("screen: ready", after=mark, timeout=60)
            station_topic = f"snapstation/{node}/state"
            state = hub.until(lambda m: json.loads(m[kcal_topic])["kcal"] > 0
                              and json.loads(m[station_topic])["last_meal"], timeout=10, what="the kcal")
            delay = hub.arrived[kcal_topic] - saved_at
            meal = json.loads(state[kcal_topic])
            print(f"     {meal['kcal']} kcal, {delay * 1000:.0f} ms after the station's ready screen")
            assert delay < 1.0, f"{delay:.2f} s"
            print(f"     the hub's state: {state[station_topic].decode()}")
            assert json.loads(state[station_topic])["ai_left"] == 9, state[station_topic]
        with check(f"the broker away for {args.tries} of the station's tries costs nothing, and the states come back"):
            before = station.memory()[0]
            mark = station.mark()
            broker.stop()
            station.wait("mqtt: 127.0.0.1 not reached", after=mark, timeout=30)
            # Each failed try is followed by the station's line naming its next wait (MQTTLink's backoff).
            for _ in range(args.tries):
                _, line = station.wait("mqtt: trying 127.0.0.1 again in", after=mark, timeout=90)
                mark = line + 1
            print(f"     {args.tries} tries, the last: {station.lines[mark - 1][1].split('mqtt: ')[-1]}")
            after = station.memory()[0]
            hub.clear()
            broker.start()
            messages = hub.until(lambda m: kcal_topic in m and f"homeassistant/sensor/{node}/household_kcal/config" in m
                                 and m.get(f"snapstation/{node}/availability") == b"online", timeout=90,
                                 what="the states after the broker came back")
            print(f"     RSS {before} kB before, {after} kB after the outage; {len(messages)} topics back")
            assert json.loads(messages[kcal_topic])["kcal"] == meal["kcal"]
            assert after - before < 2048, f"grew {after - before} kB while the broker was away"
        with check("the station killed: its will marks it offline"):
            station.process.send_signal(signal.SIGKILL)
            station.process.wait()
            hub.until(lambda m: m.get(f"snapstation/{node}/availability") == b"offline", timeout=90, what="offline")
    finally:
        station.stop()

    with check("a wrong password: the log and the page's Keys say the broker refused it"):
        environment["HOME_MQTT_PASSWORD"] = "not-the-password"
        wrong = Station(args.binary, config_file(folder, ai_base, broker.port, "HOME_MQTT_PASSWORD"),
                        os.path.join(folder, "state"), environment, arguments=["--simulate", "--log-level", "debug"])
        try:
            wrong.wait("refused the station: credentials", timeout=30)
            port = int(wrong.match(r"owner's page at http://127\.0\.0\.1:(\d+)/pair"))
            headers = wrong.pair(port)
            import http.client
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("GET", "/keys", headers=headers)
            page = connection.getresponse().read().decode()
            assert "The broker refused the user name or password." in page, page[-800:]
        finally:
            wrong.stop()
    with check("an entity the station no longer makes is removed: the button, once the config forbids it"):
        environment["HOME_MQTT_PASSWORD"] = PASSWORD
        button = f"homeassistant/button/{node}/countdown/config"
        assert hub.messages.get(button), "the button's config was there"
        again = Station(args.binary, config_file(folder, ai_base, broker.port, "HOME_MQTT_PASSWORD", countdown_button=False),
                        os.path.join(folder, "state"), environment, arguments=["--simulate"])
        try:
            hub.until(lambda m: m.get(button) == b"", timeout=30, what="the button's config removed")
            assert hub.messages.get(f"homeassistant/sensor/{node}/household_kcal/config"), "the others stay"
        finally:
            again.stop()
    hub.stop()
    broker.stop()
    fake.terminate()
    finish("home assistant: ")


if __name__ == "__main__":
    main()
