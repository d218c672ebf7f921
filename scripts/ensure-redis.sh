#!/usr/bin/env bash
# Makes sure `redis-server` is there for the shared-state tests: installs the
# Debian package with apt-get (as root or through `sudo -n`) when it is missing, and fails
# when it still is not there. The tests start their own servers on free loopback ports.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/apt.sh
. scripts/apt.sh
if ! command -v redis-server >/dev/null 2>&1; then
    echo "installing redis-server..."
    apt_install redis-server || true
fi
if ! command -v redis-server >/dev/null 2>&1; then
    echo "redis-server is not installed and apt-get (as root or through sudo -n) could not install it: install redis-server and run again" >&2
    exit 1
fi
