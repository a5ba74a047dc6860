# Sourced by the scripts in scripts/: installs what a fresh Debian machine lacks.

# Installs Debian packages through apt-get: as root directly, otherwise through sudo.
# Usage: apt_install WHAT PACKAGE...   (WHAT names the need in messages)
apt_install() {
    local what="$1"
    shift
    echo "Installing $* with apt-get..." >&2
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            echo "error: $what is missing and this user is not root and has no sudo." >&2
            echo "       Install it first: apt-get install $*" >&2
            exit 1
        fi
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

# GSL (the GNU Scientific Library) and pkg-config.
ensure_gsl() {
    if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists gsl; then
        return 0
    fi
    apt_install GSL libgsl-dev pkg-config
    pkg-config --exists gsl || { echo "error: libgsl-dev did not install" >&2; exit 1; }
}

# gnuplot without X11, which draws the charts of report.html (its SVG terminal).
ensure_gnuplot() {
    command -v gnuplot >/dev/null 2>&1 && return 0
    apt_install gnuplot gnuplot-nox
    command -v gnuplot >/dev/null 2>&1 || { echo "error: gnuplot-nox did not install" >&2; exit 1; }
}

# Chromium, which the tests run headless to load report.html as a browser does.
ensure_chromium() {
    command -v chromium >/dev/null 2>&1 && return 0
    apt_install Chromium chromium
    command -v chromium >/dev/null 2>&1 || { echo "error: chromium did not install" >&2; exit 1; }
}

ensure_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        echo "error: the Swift toolchain (6.1 or later) is not on PATH" >&2
        exit 1
    fi
}
