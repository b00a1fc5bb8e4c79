# syntax=docker/dockerfile:1
#
# The CrowdRoom transcode worker image.
#
#   docker build -t crowdroom/transcode-worker .
#   docker run --rm -e DATABASE_URL=postgres://… crowdroom/transcode-worker          # run
#   docker run --rm crowdroom/transcode-worker migrate --database-url postgres://…  # any command
#
# Two stages: "build" compiles the release binary with the Swift standard library and Foundation
# linked in statically; "runtime" is debian:bookworm-slim with only the shared libraries the binary
# loads (scripts/check-runtime-deps.sh checks that list against `ldd` of a real build).

############################################################################################
# Build stage
############################################################################################
FROM swift:6.3-bookworm AS build

# The -dev packages of the C libraries the system-library targets in Package.swift wrap, and
# libcurl4-openssl-dev: with --static-swift-stdlib, FoundationNetworking is linked in statically
# and the link needs -lcurl (the swift image usually ships it; listed so the build never
# depends on that).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        pkg-config \
        zlib1g-dev liblz4-dev \
        libpng-dev libjpeg62-turbo-dev libwebp-dev \
        libpq-dev libssl-dev libmicrohttpd-dev \
        libmeshoptimizer-dev libcairo2-dev \
        libseccomp-dev \
        libcurl4-openssl-dev \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /src

# Package.swift declares the test targets and SwiftPM checks that their folders exist, so Tests/
# is copied too (`swift build` does not compile it).
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests

# The .build folder lives in a cache mount (faster rebuilds), so the binary is copied out of it
# in the same step.
RUN --mount=type=cache,target=/src/.build \
    swift build -c release --static-swift-stdlib \
 && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/transcode-worker" \
        /out/transcode-worker \
 && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/transcode-job" \
        /out/transcode-job \
 && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/transcode-inspect" \
        /out/transcode-inspect \
 && /out/transcode-worker version \
 && /out/transcode-job --help > /dev/null \
 && /out/transcode-inspect --version > /dev/null \
 && /out/transcode-worker convert --help > /dev/null \
 && /out/transcode-worker inspect --help > /dev/null

############################################################################################
# Runtime stage
############################################################################################
FROM debian:bookworm-slim AS runtime

# Only the runtime libraries the binary links (libc6, libgcc-s1 and libstdc++6 are in the base
# image; their own dependencies, such as libpq5's Kerberos/LDAP libraries, come with them):
#   zlib1g liblz4-1                    USD crate decompression
#   libpng16-16 libjpeg62-turbo        texture decoding
#   libwebp7                           WebP thumbnails
#   libpq5                             the Postgres queue
#   libssl3                            libcrypto (hashes)
#   libmicrohttpd12                    the HTTP API (libmicrohttpd)
#   libmeshoptimizer2d                 the model's meshopt compression
#   libcairo2                          the floor plan's PDF and raster (with fontconfig)
#   libseccomp2                        the job child's seccomp filter (built by the launcher)
#   fonts-dejavu-core fonts-noto-cjk   the plan's text: Latin, and Chinese
#   libcurl4                           FoundationNetworking (the transcode-done POST)
#   ca-certificates                    TLS to Postgres and the transcode-done endpoint
#   tzdata                             time zones for TZ
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        zlib1g liblz4-1 \
        libpng16-16 libjpeg62-turbo \
        libwebp7 \
        libpq5 \
        libssl3 \
        libmicrohttpd12 \
        libseccomp2 \
        libmeshoptimizer2d libcairo2 fonts-dejavu-core fonts-noto-cjk \
        libcurl4 \
        ca-certificates tzdata \
 && rm -rf /var/lib/apt/lists/*

# A fixed non-root user; the numeric uid lets Kubernetes verify runAsNonRoot.
RUN groupadd --system --gid 10001 transcode \
 && useradd --system --uid 10001 --gid transcode --no-create-home \
        --home-dir /var/lib/transcode --shell /usr/sbin/nologin transcode \
 && install -d -o transcode -g transcode -m 0750 /var/lib/transcode

# The job child's executable goes beside the worker, which runs it for every job and for
# `convert` (the pipeline alone: it loads none of the worker's database, HTTP or networking
# libraries; the worker links no parser).
COPY --from=build /out/transcode-worker /usr/local/bin/transcode-worker
COPY --from=build /out/transcode-job /usr/local/bin/transcode-job
# `inspect` as a program of its own, for operators looking at a source file (the reader alone);
# `transcode-worker inspect` runs it.
COPY --from=build /out/transcode-inspect /usr/local/bin/transcode-inspect

# The working directory is where the default file storage (file://$PWD/transcode-storage) goes;
# in production set TRANSCODE_STORAGE_URL and mount the storage there. Job workspaces are made
# under TMPDIR (/tmp).
WORKDIR /var/lib/transcode
ENV TMPDIR=/tmp
USER 10001:10001

# The worker's HTTP API: /livez, /readyz, /metrics and the token-protected /v1 routes.
EXPOSE 8080

# Liveness: GET /livez on the local HTTP server (the image has no curl; `probe` is the binary's
# own client and exits 0 on 200, 1 otherwise). Docker starts a health check with the container's
# whole environment, every secret included: `env -i` replaces itself at once by a `probe` whose
# environment is empty, so no long-lived process of the check holds a secret (and `probe`, like
# every command, is non-dumpable). It asks 127.0.0.1:8080; with another TRANSCODE_HTTP_ADDR,
# override the check with `--http-addr HOST:PORT` after `livez`.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/bin/env", "-i", "/usr/local/bin/transcode-worker", "probe", "livez"]

# SIGTERM starts the graceful drain (TRANSCODE_SHUTDOWN_GRACE_SECONDS); give `docker stop` a
# longer timeout than that, e.g. `docker stop -t 90`.
STOPSIGNAL SIGTERM

ENTRYPOINT ["transcode-worker"]
CMD ["run"]
