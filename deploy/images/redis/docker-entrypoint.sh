#!/bin/sh
# The entry point of the Debian-built Redis image: what the official image's does. As
# root, own /data and run again as redis; `redis-server` gets `--protected-mode no` first
# (after its configuration file, if one is named), so later arguments may still turn it on.
set -eu
case "${1:-}" in -*) set -- redis-server "$@" ;; esac
if [ "${1:-}" = redis-server ] && [ "$(id -u)" = 0 ]; then
  find . \! -user redis -exec chown redis:redis {} +
  exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
fi
if [ "${1:-}" = redis-server ]; then
  shift
  if [ -f "${1:-}" ]; then
    config=$1
    shift
    set -- redis-server "$config" --protected-mode no "$@"
  else
    set -- redis-server --protected-mode no "$@"
  fi
fi
exec "$@"
