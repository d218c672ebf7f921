# Sourced by the scripts that install a Debian package the tests need (valgrind, redis-server).
# apt_install PACKAGE: as root or through passwordless sudo; quiet; true on success.
apt_install() {
    local apt=(apt-get)
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || return 1
        apt=(sudo -n apt-get)
    fi
    "${apt[@]}" install -y -q "$1" >/dev/null 2>&1 ||
        { "${apt[@]}" update -q >/dev/null 2>&1 && "${apt[@]}" install -y -q "$1" >/dev/null 2>&1; }
}
