"""Run a task's mutants (:mod:`westbench.agents.mutation`) through its verifier, in the task's own image.

For one task:

1. build the task image (``docker build`` of ``environment/``; Docker's cache makes a rebuild of an
   unchanged task instant);
2. run the reference solution once in a fresh container and copy its artifacts out: the *oracle outputs*,
   cached under ``cache_dir`` by a hash of the environment and the solution, so a change of the verifier or
   of the contract reruns no solution;
3. run every solution-level mutant the same way (each cached by its own hash);
4. verify everything in one container of the image: for each case the artifact paths are put back as the
   image had them, the case's files copied over them (the oracle outputs with an output mutant's changes,
   or a solution mutant's own outputs), ``/logs/verifier`` and ``/tmp`` emptied, and ``tests/test.sh`` run
   with the task's verifier timeout; its reward read as Harbor reads it.

The oracle must score 1 (else every mutant is reported as an error naming the oracle's score). A mutant
scoring below 1 is killed; one the verifier could not grade (no reward written, verifier timeout) is an
error, neither killed nor survived. The do-nothing agent's case (nothing delivered) is verified too: it must
score 0 and record as many checks as the oracle (``nop`` in the record). Containers have no network and the
task's CPU and memory limits.

One module per job: :mod:`~westbench.agents.mutation_run.containers` (the engine, the image, a container),
:mod:`~westbench.agents.mutation_run.solutions` (a solution run and what it delivered),
:mod:`~westbench.agents.mutation_run.verifier` (every case through the verifier) and
:mod:`~westbench.agents.mutation_run.task` (one task's record, :func:`mutate_task`).
"""

from westbench.agents.mutation_run.containers import (
    IMAGE_PREFIX,
    Container,
    Engine,
    MutationError,
    build_image,
    tree_hash,
)
from westbench.agents.mutation_run.solutions import artifact_paths, editable_paths, run_solution
from westbench.agents.mutation_run.task import NOP_CASE, mutate_task
from westbench.agents.mutation_run.verifier import (
    DRIVER,
    MUTANTS_DIR,
    ORACLE_CASE,
    PRISTINE_DIR,
    RESULTS_DIR,
    verify_cases,
)

__all__ = [
    "Container",
    "DRIVER",
    "Engine",
    "IMAGE_PREFIX",
    "MUTANTS_DIR",
    "MutationError",
    "NOP_CASE",
    "ORACLE_CASE",
    "PRISTINE_DIR",
    "RESULTS_DIR",
    "artifact_paths",
    "build_image",
    "editable_paths",
    "mutate_task",
    "run_solution",
    "tree_hash",
    "verify_cases",
]
