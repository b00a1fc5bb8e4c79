#!/usr/bin/env bash
# Checks that the Dockerfile's runtime stage installs every Debian package the release binaries
# need at run time.
#
#   scripts/check-runtime-deps.sh [--binary PATH]… [--dockerfile PATH] [--scratch-path DIR]
#
# Without --binary it builds the binaries the way the image does
# (`swift build -c release --static-swift-stdlib`) in --scratch-path (default /tmp/rt-build, so
# the working .build folder is left alone) and checks the three the image ships: transcode-worker,
# which links no parser, and transcode-job and transcode-inspect, which load the parsers' and
# renderers' libraries. For each it runs `ldd`, maps every shared
# library to the Debian package that ships it (`dpkg -S`) and compares those packages with the
# `apt-get install` list of the Dockerfile's runtime stage (the stage named `runtime`, else the
# last one):
#
#   - base       libc6, libgcc-s1, libstdc++6: part of debian:bookworm-slim
#   - listed     installed by the runtime stage
#   - via PKG    loaded only through another library and pulled in by PKG's Depends
#   - MISSING    none of the above: the image would fail to start
#
# Libraries the binary names itself (its DT_NEEDED entries) must be listed explicitly; a library
# outside any package, or one `ldd` cannot find, is an error too. Run it on the Debian release the
# runtime stage uses (bookworm), with the -dev packages installed (scripts/install-deps.sh).
# Exit status: 0 all present, 1 something missing, 2 usage or setup error.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BINARIES=()
DOCKERFILE="$ROOT/Dockerfile"
SCRATCH=/tmp/rt-build
BASE_PACKAGES=(libc6 libgcc-s1 libstdc++6)

usage() { sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "check-runtime-deps: $*" >&2; exit 2; }

while (($#)); do
  case "$1" in
    --binary) BINARIES+=("${2:?--binary needs a path}"); shift 2 ;;
    --dockerfile) DOCKERFILE=${2:?--dockerfile needs a path}; shift 2 ;;
    --scratch-path) SCRATCH=${2:?--scratch-path needs a directory}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

for tool in ldd dpkg dpkg-query awk; do
  command -v "$tool" >/dev/null || die "needs '$tool' (run on Debian)"
done
[ -f "$DOCKERFILE" ] || die "no Dockerfile at $DOCKERFILE"

# ---- the binaries ------------------------------------------------------------------------------
if ((${#BINARIES[@]} == 0)); then
  echo "building: swift build -c release --static-swift-stdlib --scratch-path $SCRATCH" >&2
  (cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" >&2)
  BIN_DIR="$(cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --show-bin-path)"
  BINARIES=("$BIN_DIR/transcode-worker" "$BIN_DIR/transcode-job" "$BIN_DIR/transcode-inspect")
fi
for BINARY in "${BINARIES[@]}"; do [ -x "$BINARY" ] || die "not an executable: $BINARY"; done

# ---- the runtime stage's apt-get install list ----------------------------------------------------
# Joins continued lines, drops comment lines, keeps the RUN instructions of the target stage and
# prints the package arguments of each `apt-get install` / `apt install` command in them.
dockerfile_packages() {
  awk '
    function flush() {
      if (buf == "") return
      n = split(buf, w, /[ \t]+/)
      kw = toupper(w[1]); if (kw == "" && n > 1) { kw = toupper(w[2]) }
      if (kw == "FROM") {
        stage++; name[stage] = ""
        for (i = 1; i <= n; i++) if (toupper(w[i]) == "AS" && i < n) name[stage] = tolower(w[i + 1])
      } else if (kw == "RUN") {
        runs[stage] = runs[stage] "\n" buf
      }
      buf = ""
    }
    /^[ \t]*#/ { next }                                   # comments, also inside continuations
    {
      line = $0
      if (line ~ /\\[ \t]*$/) { sub(/\\[ \t]*$/, "", line); buf = buf " " line; next }
      buf = buf " " line; flush()
    }
    END {
      flush()
      target = stage
      for (s = 1; s <= stage; s++) if (name[s] == "runtime") target = s
      text = runs[target]
      gsub(/&&|\|\||;|\|/, "\n", text)                    # one shell command per line
      m = split(text, cmds, "\n")
      for (c = 1; c <= m; c++) {
        k = split(cmds[c], t, /[ \t]+/); seen_install = 0; is_apt = 0
        for (i = 1; i <= k; i++) {
          if (t[i] == "apt-get" || t[i] == "apt") { is_apt = 1; continue }
          if (is_apt && !seen_install && t[i] == "install") { seen_install = 1; continue }
          if (seen_install && t[i] != "" && t[i] !~ /^-/) {
            p = t[i]; sub(/[=:].*$/, "", p); print p
          }
        }
      }
    }' "$DOCKERFILE" | sort -u
}

mapfile -t LISTED < <(dockerfile_packages)
((${#LISTED[@]})) || die "found no 'apt-get install' packages in the runtime stage of $DOCKERFILE"

# ---- library -> package --------------------------------------------------------------------------
# dpkg records a file under the path its package ships; with merged /usr that may be /lib/… or
# /usr/lib/… while ldd reports the other one, so try both spellings, the resolved path, then
# the file name.
package_of() {
  local path=$1 cand out
  local -a candidates=("$path" "$(readlink -f "$path" 2>/dev/null || true)")
  case "$path" in
    /usr/*) candidates+=("${path#/usr}") ;;
    *) candidates+=("/usr$path") ;;
  esac
  for cand in "${candidates[@]}"; do
    [ -n "$cand" ] || continue
    out=$(dpkg -S "$cand" 2>/dev/null | grep -v '^diversion' | head -n1 || true)
    [ -n "$out" ] && { echo "${out%%:*}" | sed 's/:.*//; s/,.*//'; return; }
  done
  out=$(dpkg -S "*/$(basename "$path")" 2>/dev/null | grep -v '^diversion' | grep "/$(basename "$path")\$" | head -n1 || true)
  [ -n "$out" ] && { echo "${out%%:*}" | sed 's/,.*//'; return; }
  echo ""
}

# ---- the Depends closure of the listed packages ----------------------------------------------------
# VIA[pkg] = the listed package whose Pre-Depends/Depends chain pulls pkg in (first alternative of
# each "a | b", as apt picks it). Read from the installed packages' control data.
declare -A VIA=()
closure() {
  local root queue=() pkg deps dep
  for root in "${LISTED[@]}"; do
    queue=("$root")
    while ((${#queue[@]})); do
      pkg=${queue[0]}; queue=("${queue[@]:1}")
      deps=$(dpkg-query -W -f='${Pre-Depends}, ${Depends}' "$pkg" 2>/dev/null || true)
      while IFS= read -r dep; do
        dep=${dep%%|*}; dep=${dep%%(*}; dep=${dep%%:*}; dep=$(echo "$dep" | tr -d '[:space:]')
        [ -n "$dep" ] || continue
        if [ -z "${VIA[$dep]:-}" ]; then VIA[$dep]=$root; queue+=("$dep"); fi
      done < <(echo "$deps" | tr ',' '\n')
    done
  done
}
closure

is_in() { local x=$1; shift; local y; for y in "$@"; do [ "$x" = "$y" ] && return 0; done; return 1; }

failures=0
declare -A NEEDED_PKGS=() DIRECT=()
echo "dockerfile: $DOCKERFILE (runtime stage installs: ${LISTED[*]})"

# One binary's table; adds to `failures` and `NEEDED_PKGS`.
check_binary() {
  local BINARY=$1 line lib path link pkg status
  # The libraries the binary itself names (the rest of ldd's list is loaded through them).
  DIRECT=()
  if command -v readelf >/dev/null; then
    while read -r lib; do DIRECT[$lib]=1; done < <(readelf -d "$BINARY" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  else
    echo "note: readelf not found; treating every library as directly linked" >&2
  fi

  # The table.
  echo "binary:     $BINARY"
  printf '%-28s %-6s %-22s %s\n' LIBRARY LINK PACKAGE STATUS
  printf '%-28s %-6s %-22s %s\n' ------- ---- ------- ------

  while read -r line; do
    [ -n "$line" ] || continue
    lib=""; path=""
    if [[ $line == *"=> not found"* ]]; then
      lib=${line%% *}; path="not found"
    elif [[ $line == *"=>"* ]]; then
      lib=${line%% *}; path=$(echo "${line#*=> }" | awk '{print $1}')
    else
      path=$(echo "$line" | awk '{print $1}'); lib=$(basename "$path")
    fi
    case "$lib" in linux-vdso.so.*|linux-gate.so.*) continue ;; esac
    [[ $path == /* || $path == "not found" ]] || continue
    link=dep; [ -n "${DIRECT[$lib]:-}" ] && link=direct
    if [ "$path" = "not found" ]; then
      printf '%-28s %-6s %-22s %s\n' "$lib" "$link" "-" "MISSING (ldd: not found on this machine)"
      failures=$((failures + 1)); continue
    fi
    pkg=$(package_of "$path")
    if [ -z "$pkg" ]; then
      status="MISSING (no Debian package ships $path)"; failures=$((failures + 1)); pkg="-"
    elif is_in "$pkg" "${BASE_PACKAGES[@]}"; then
      status="ok: base image"
    elif is_in "$pkg" "${LISTED[@]}"; then
      status="ok: listed"
    elif [ "$link" = dep ] && [ -n "${VIA[$pkg]:-}" ]; then
      status="ok: via ${VIA[$pkg]}"
    else
      status="MISSING from the runtime stage's apt-get install"; failures=$((failures + 1))
    fi
    NEEDED_PKGS[$pkg]=1
    printf '%-28s %-6s %-22s %s\n' "$lib" "$link" "$pkg" "$status"
  done < <(ldd "$BINARY")
}

for BINARY in "${BINARIES[@]}"; do
  echo
  check_binary "$BINARY"
done

# Listed packages no library maps to (not an error: data packages, or libraries for code to come).
unused=()
for p in "${LISTED[@]}"; do [ -n "${NEEDED_PKGS[$p]:-}" ] || unused+=("$p"); done
echo
if ((${#unused[@]})); then
  echo "listed but not loaded by the binaries (fine for data packages): ${unused[*]}"
fi
if ((failures)); then
  echo "FAIL: $failures librar$( ((failures == 1)) && echo y || echo ies) not provided by the runtime stage"
  exit 1
fi
echo "OK: every shared library is provided by the runtime stage or the base image"
