# Sourced by the scripts in scripts/: installs what a fresh Debian machine lacks.

# GSL (the GNU Scientific Library) and pkg-config, through apt-get: as root
# directly, otherwise through sudo.
ensure_gsl() {
    if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists gsl; then
        return 0
    fi
    echo "Installing libgsl-dev and pkg-config with apt-get..." >&2
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            echo "error: GSL is missing and this user is not root and has no sudo." >&2
            echo "       Install it first: apt-get install libgsl-dev pkg-config" >&2
            exit 1
        fi
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libgsl-dev pkg-config >/dev/null
    pkg-config --exists gsl || { echo "error: libgsl-dev did not install" >&2; exit 1; }
}

ensure_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        echo "error: the Swift toolchain (6.1 or later) is not on PATH" >&2
        exit 1
    fi
}
