#!/bin/sh
# The demo's hardware, as kintsugi's commands reach it: `sh machine.sh DIR health|repair SECONDS ADDRESS` (kintsugi
# appends the address). A machine works while DIR/healthy-ADDRESS exists. health prints true or false; repair waits
# SECONDS (a power cycle) and makes the machine work again. sh and files, not node: kintsugi runs a health check per
# unfinished entry on every pass, and a demo run at a small scale must not spend its time starting node.
dir=$1
action=$2
seconds=$3
address=$4
case $action in
  health) if [ -f "$dir/healthy-$address" ]; then echo true; else echo false; fi ;;
  repair)
    sleep "$seconds"
    touch "$dir/healthy-$address"
    echo "$address power-cycled and healthy again"
    ;;
  *)
    echo "unknown action $action" >&2
    exit 2
    ;;
esac
