#!/bin/sh
# The demo's hardware, as kintsugi's commands reach it: `sh machine.sh DIR health|reboot|repair SECONDS ADDRESS`
# (kintsugi appends the address). A machine works while DIR/healthy-ADDRESS exists; DIR/stuck-ADDRESS marks a fault a
# reboot does not clear; DIR/bmc-dead-ADDRESS a BMC that does not answer, so reboot and repair fail (exit 1, saying so
# on stderr as ipmitool does) until the BMC is reseated. health prints true or false; reboot waits SECONDS and makes
# the machine work again unless it is stuck; repair (a power cycle) waits SECONDS and makes it work again whatever
# the fault. sh and files, not node:
# kintsugi runs a health check per unfinished entry on every pass, and a demo run at a small scale must not spend its
# time starting node.
dir=$1
action=$2
seconds=$3
address=$4
bmc_dead() {
  if [ -f "$dir/bmc-dead-$address" ]; then
    echo "Error: Unable to establish IPMI v2 / RMCP+ session" >&2
    echo "Unable to set Chassis Power Control to $action: $address does not answer" >&2
    exit 1
  fi
}
case $action in
  health) if [ -f "$dir/healthy-$address" ]; then echo true; else echo false; fi ;;
  reboot)
    sleep "$seconds"
    bmc_dead
    if [ -f "$dir/stuck-$address" ]; then
      echo "$address rebooted, still faulty"
    else
      touch "$dir/healthy-$address"
      echo "$address rebooted and healthy again"
    fi
    ;;
  repair)
    sleep "$seconds"
    bmc_dead
    rm -f "$dir/stuck-$address"
    touch "$dir/healthy-$address"
    echo "$address power-cycled and healthy again"
    ;;
  *)
    echo "unknown action $action" >&2
    exit 2
    ;;
esac
