#!/usr/bin/env bash
# Installs the Debian packages the build links against and the Python packages the tests use.
# Idempotent: only missing packages are installed. Needs root (or sudo) for apt-get.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac

APT_PACKAGES=(
  pkg-config python3
  zlib1g-dev liblz4-dev
  libpng-dev libjpeg62-turbo-dev libwebp-dev
  libpq-dev libssl-dev libmicrohttpd-dev libmeshoptimizer-dev libcairo2-dev
  libseccomp-dev
  fonts-dejavu-core fonts-noto-cjk poppler-utils
  libcurl4-openssl-dev
  postgresql-15 postgresql-client-15
  chromium chromium-driver libjs-three
  gltfpack
)
PIP_PACKAGES=(usd-core numpy trimesh pygltflib jsonschema pillow "moto[server]" deno ezdxf selenium)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "${SKIP_PIP:-0}" != "1" ]; then
  PY=${PYTHON:-python3}
  if ! "$PY" -c 'import pxr, numpy, trimesh, pygltflib, jsonschema, PIL, moto, boto3, deno, ezdxf, selenium; deno.find_deno_bin()' 2>/dev/null; then
    echo "installing Python packages: ${PIP_PACKAGES[*]}"
    "$PY" -m pip install -q "${PIP_PACKAGES[@]}"
  fi
fi
