#!/bin/sh
# A stand-in for CKE's ckecli in the tests of docs/switching-from-cke.md, where CKE does not run: it prints what ckecli
# prints (test/fixtures/cke/, kept in ckecli's own formats) and records every call, in order, in $CKECLI_CALLS; for
# `cluster set FILE` it keeps FILE as $CKECLI_CALLS.cluster-set.yaml. A command it does not know fails, so the page
# can name none that the test does not stand in for.
set -eu
: "${CKECLI_FIXTURES:?CKECLI_FIXTURES is not set}" "${CKECLI_CALLS:?CKECLI_CALLS is not set}"
echo "$*" >> "$CKECLI_CALLS"
case "$*" in
  "sabakan get-template") cat -- "$CKECLI_FIXTURES/get-template.yaml" ;;
  "sabakan get-variables") cat -- "$CKECLI_FIXTURES/sabakan-get-variables.json" ;;
  "auto-repair get-variables") cat -- "$CKECLI_FIXTURES/auto-repair-get-variables.json" ;;
  "cluster get") cat -- "$CKECLI_FIXTURES/cluster-get.yaml" ;;
  "constraints show") cat -- "$CKECLI_FIXTURES/constraints-show.json" ;;
  "repair-queue list") cat -- "$CKECLI_FIXTURES/repair-queue-list.json" ;;
  "status") cat -- "$CKECLI_FIXTURES/status.json" ;;
  "sabakan enable" | "sabakan disable" | "auto-repair enable" | "auto-repair disable" | "repair-queue enable" | "repair-queue disable") ;;
  "cluster set "*)
    [ "$#" -eq 3 ] && [ -s "$3" ] || { echo "ckecli stand-in: cluster set needs a non-empty FILE" >&2; exit 1; }
    cp -- "$3" "$CKECLI_CALLS.cluster-set.yaml"
    ;;
  *) echo "ckecli stand-in: no stand-in for: ckecli $*" >&2; exit 1 ;;
esac
