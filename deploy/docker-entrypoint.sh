#!/bin/bash
# Entry point of the cdcd image.
#
#   (no arguments)              cdcd run $CDCD_PIPELINE --state-dir $CDCD_STATE_DIR --admin-address $CDCD_ADMIN_ADDRESS
#   --flag ...                  the same, with extra flags (e.g. --log-format json, --reset-state)
#   run|validate|describe|checkpoints|version|help ...   cdcd with these arguments
#   healthcheck                 exit 0 when the admin endpoint answers /healthz with 200 (HEALTHCHECK)
#   anything else               executed as is (e.g. bash)
#
# cdcd is exec'ed, so it runs as PID 1's replacement and receives SIGTERM from `docker stop`.
set -euo pipefail

CDCD_BIN="${CDCD_BIN:-cdcd}"
CDCD_PIPELINE="${CDCD_PIPELINE:-/etc/cdcd/pipeline.yaml}"
CDCD_STATE_DIR="${CDCD_STATE_DIR:-/var/lib/cdcd}"
CDCD_ADMIN_ADDRESS="${CDCD_ADMIN_ADDRESS:-0.0.0.0:8081}"

healthcheck() {
  # No curl in the slim image: bash's /dev/tcp. 0.0.0.0 (listen on all) is probed on loopback.
  local address="${CDCD_HEALTH_ADDRESS:-$CDCD_ADMIN_ADDRESS}"
  local host="${address%:*}" port="${address##*:}"
  [[ "$host" == "0.0.0.0" || -z "$host" ]] && host=127.0.0.1
  host="${host#[}"; host="${host%]}"
  [[ "$host" == "::" ]] && host=::1
  exec 3<>"/dev/tcp/$host/$port" || { echo "healthcheck: cannot connect to $host:$port" >&2; exit 1; }
  printf 'GET /healthz HTTP/1.0\r\nHost: %s\r\n\r\n' "$host" >&3
  local status
  IFS= read -r -t 5 status <&3 || { echo "healthcheck: no answer from $host:$port" >&2; exit 1; }
  exec 3<&-
  [[ "$status" == "HTTP/1."?" 200"* ]] || { echo "healthcheck: $status" >&2; exit 1; }
}

if (($# == 0)) || [[ "$1" == -* ]]; then
  exec "$CDCD_BIN" run "$CDCD_PIPELINE" --state-dir "$CDCD_STATE_DIR" --admin-address "$CDCD_ADMIN_ADDRESS" "$@"
fi
case "$1" in
  healthcheck) healthcheck ;;
  run | validate | describe | checkpoints | version | help) exec "$CDCD_BIN" "$@" ;;
  *) exec "$@" ;;
esac
