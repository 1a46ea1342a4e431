"""A small task written to a folder: a solution stating dt and a minimization, a contract breaking both,
two deliverables and a by-product."""

import json


def write_task(root):
    """The task folder and its delivered files (``out/``)."""
    (root / "solution").mkdir(parents=True)
    (root / "solution" / "solve.sh").write_text("cat > md.mdp <<EOF\ndt = 0.002\nnsteps = 2500\nEOF\nrun_minimize\n")
    (root / "instruction.md").write_text("Write `/app/output/energy.json` and `/app/output/md.mdp`.")
    (root / "contract.toml").write_text(
        '[[item]]\nid = "dt"\nkind = "parameter"\nquote = "2 fs"\nchecks = ["c"]\nvalue = 2\n'
        'mutate = {key = "dt", scale = 0.001}\n'
        '[[item]]\nid = "minimize"\nkind = "computed"\nquote = "minimize"\nchecks = ["c"]\n'
        'mutate = {remove = "^run_minimize\\\\n"}\n'
        '[[item]]\nid = "energy.json"\nkind = "file"\nfile = ["energy.json", "md.mdp"]\nquote = "q"\nchecks = ["c"]\n'
    )
    out = root / "out"
    out.mkdir()
    (out / "energy.json").write_text(json.dumps({"potential_kj_mol": -1234.5, "frames": 51}))
    (out / "md.mdp").write_text("dt = 0.002\n")
    (out / "mdout.mdp").write_text("dt = 0.002\n")  # a by-product, no deliverable
    return root, out
