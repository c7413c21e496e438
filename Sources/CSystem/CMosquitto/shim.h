// libmosquitto, the Eclipse Mosquitto project's MQTT client (Debian's libmosquitto-dev), for the home's
// broker: Sources/SnapServices/MQTTLink.swift.
#include <mosquitto.h>
#include <mqtt_protocol.h>
// The link's own wake-up beside the broker's socket, for its event loop.
#include <sys/eventfd.h>
