"""Mutation testing of verifiers: wrong variants of each reference solution, derived automatically.

A verifier is only as good as the wrong answers it rejects. From a task's reference solution this module
derives *mutants*, each one mistake on top of it, and :mod:`westbench.agents.mutation_run` runs the
task's verifier on every one: a mutant scoring below 1 is *killed*; one scoring 1 *survives* and is either a
hole in the verifier or an equivalent mutant (its mistake changes nothing the task asks for), justified in
``tasks/<task>/mutants.toml`` (``[equivalent]``, mutant id = reason).

One module per job:

* :mod:`~westbench.agents.mutation.catalogue`: the operators, the two levels and the :class:`Mutant` record.
* :mod:`~westbench.agents.mutation.numeric`: one number's mistakes (unit swaps, index shifts, a plausible constant).
* one module per family of delivered files: :mod:`~westbench.agents.mutation.json_files`,
  :mod:`~westbench.agents.mutation.tables` (CSV/TSV), :mod:`~westbench.agents.mutation.structures` (PDB/GRO
  coordinates, GROMACS index files), :mod:`~westbench.agents.mutation.reports` (Markdown/text) and
  :mod:`~westbench.agents.mutation.xml_files`.
* :mod:`~westbench.agents.mutation.deliverables`: which delivered files are text and which the task asks for.
* :mod:`~westbench.agents.mutation.parameters`: the contract's mutants (parameters, criteria, steps removed).
* :mod:`~westbench.agents.mutation.harness`: every mutant of a task, derived from its reference solution.
* :mod:`~westbench.agents.mutation.scoring`: equivalent survivors (``mutants.toml``), the scores and their tables.

Two levels:

* ``output`` mutants edit the files the reference solution delivered (its artifacts, computed once): only
  the verifier reruns, in the task's image;
* ``solution`` mutants edit the reference solution itself (a run parameter in its run-input lines, a
  required step deleted) and rerun it in the image: its delivered files are then consistent with the
  mistake, as an agent's would be.

Operators (:data:`OPERATORS`): unit swaps (``unit-x10``, ``unit-x0.1`` on every delivered number and
column; ``unit-x4.184``, ``unit-/4.184`` on energies; ``coords-x10`` on PDB/GRO coordinates: nm written as
angstrom; ``report-x10`` on a report's decimals), index base shifts (``index+1``, ``index-1`` on integers),
a computed number replaced by a plausible constant (``constant``: the value rounded to one significant
figure, a column to its mean's), tolerance-edge probes (``nudge+1%``, ``nudge-1%``: a number or column one
percent off, a slip inside a window wider than the quantity's resolution), an off-by-one selection
(``drop-first-row``: a table's first row, the first frame skipped), a verdict flipped (``negate``), a
required step removed (``delete``: a deliverable left out; ``drop-row``: a table's last row; ``remove-step``:
the lines of the reference solution a contract item names), and from the task's contract
(:mod:`westbench.agents.contract`) every parameter moved outside its allowed value or range (``param``) and
every convergence criterion loosened (``converge``).

Examples
--------
>>> import json, tempfile, pathlib
>>> out = pathlib.Path(tempfile.mkdtemp())
>>> _ = (out / "summary.json").write_text(json.dumps({"n_frames": 10, "mean_rg_nm": 0.7312, "ok": True}))
>>> _ = (out / "errors.json").write_text(json.dumps({"errors": [{"iteration": 23, "weight": 0.9993}]}))
>>> _ = (out / "rg.csv").write_text("frame,rg_nm\\n0,0.71\\n1,0.75\\n")
>>> mutants = output_mutants(out)
>>> sorted(m.id for m in mutants if m.file == "summary.json")  # doctest: +NORMALIZE_WHITESPACE
['constant:summary.json:mean_rg_nm', 'delete:summary.json', 'index+1:summary.json:n_frames',
 'index-1:summary.json:n_frames', 'negate:summary.json:ok', 'nudge+1%:summary.json:mean_rg_nm',
 'nudge-1%:summary.json:mean_rg_nm', 'unit-x0.1:summary.json:mean_rg_nm', 'unit-x10:summary.json:mean_rg_nm']
>>> sorted(m.id for m in mutants if m.file == "errors.json")  # doctest: +NORMALIZE_WHITESPACE
['constant:errors.json:errors[*].weight', 'delete:errors.json', 'index+1:errors.json:errors[*].iteration',
 'index-1:errors.json:errors[*].iteration', 'nudge+1%:errors.json:errors[*].weight',
 'nudge-1%:errors.json:errors[*].weight', 'unit-x0.1:errors.json:errors[*].weight',
 'unit-x10:errors.json:errors[*].weight']
>>> m = next(m for m in mutants if m.id == "constant:summary.json:mean_rg_nm")
>>> json.loads(m.changes["summary.json"])["mean_rg_nm"], m.operator, m.level
(0.7, 'constant', 'output')
>>> next(m for m in mutants if m.id == "index+1:rg.csv:frame").changes["rg.csv"]
'frame,rg_nm\\n1,0.71\\n2,0.75\\n'
"""

from westbench.agents.mutation.catalogue import LEVELS, OPERATORS, Mutant
from westbench.agents.mutation.deliverables import deliverable_filter, read_text
from westbench.agents.mutation.harness import all_mutants, apply_output_mutant, delete_mutants, output_mutants
from westbench.agents.mutation.json_files import json_mutants
from westbench.agents.mutation.numeric import (
    INT_OPERATORS,
    KCAL_TO_KJ,
    float_operators,
    format_like,
    plausible_constant,
)
from westbench.agents.mutation.parameters import contract_mutants, contract_target_files, key_pattern, out_of_range
from westbench.agents.mutation.reports import report_mutant
from westbench.agents.mutation.scoring import (
    EQUIVALENTS,
    MUTATION_COLUMNS,
    SCORE_COLUMNS,
    load_equivalents,
    score_table,
    suite_score,
    write_mutation_tables,
)
from westbench.agents.mutation.structures import coordinate_mutant, ndx_mutants
from westbench.agents.mutation.tables import csv_mutants
from westbench.agents.mutation.xml_files import xml_mutants

__all__ = [
    "EQUIVALENTS",
    "INT_OPERATORS",
    "KCAL_TO_KJ",
    "LEVELS",
    "MUTATION_COLUMNS",
    "Mutant",
    "OPERATORS",
    "SCORE_COLUMNS",
    "all_mutants",
    "apply_output_mutant",
    "contract_mutants",
    "contract_target_files",
    "coordinate_mutant",
    "csv_mutants",
    "delete_mutants",
    "deliverable_filter",
    "float_operators",
    "format_like",
    "json_mutants",
    "key_pattern",
    "load_equivalents",
    "ndx_mutants",
    "out_of_range",
    "output_mutants",
    "plausible_constant",
    "read_text",
    "report_mutant",
    "score_table",
    "suite_score",
    "write_mutation_tables",
    "xml_mutants",
]
