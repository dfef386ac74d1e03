# Sourced by the launch scripts: what mpirun needs on every machine splitstep runs on.
# Open MPI refuses to run as root without explicit consent (containers and CI run as root).
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
