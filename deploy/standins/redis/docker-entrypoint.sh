#!/bin/sh
# Protected mode off, as the public redis image has it (there a default compiled in): the server answers
# the stack's other containers, which reach it over the stack's own network only.
set -eu
if [ "${1:-}" = redis-server ]; then
    shift
    exec redis-server "$@" --protected-mode no
fi
exec "$@"
