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

# A Python virtual environment under .build/ holding the clients analysts read the
# reports with (pandas, DuckDB), for the test that loads every CSV with them. Kept
# between runs: a rerun only checks that both import. Exports WIDGETSIM_PYTHON.
python_clients_venv=.build/python-clients
python_clients="duckdb==2.0.0 pandas==3.1.1"
ensure_python_clients() {
    local venv="$python_clients_venv"
    if ! { [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import duckdb, pandas' 2>/dev/null \
            && [ "$(cat "$venv/.requirements" 2>/dev/null)" = "$python_clients" ]; }; then
        command -v python3 >/dev/null 2>&1 || { echo "error: python3 is not on PATH" >&2; exit 1; }
        if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
            # Debian's python3 keeps venv support in a package of its own.
            apt_install "Python's venv" python3-venv
        fi
        echo "Installing $python_clients into $venv (once)..." >&2
        rm -rf "$venv"
        mkdir -p "$(dirname "$venv")"
        python3 -m venv "$venv"
        "$venv/bin/python" -m pip install -q --disable-pip-version-check $python_clients
        echo "$python_clients" > "$venv/.requirements"
    fi
    WIDGETSIM_PYTHON="$PWD/$venv/bin/python"
    export WIDGETSIM_PYTHON
}

ensure_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        echo "error: the Swift toolchain (6.1 or later) is not on PATH" >&2
        exit 1
    fi
}
