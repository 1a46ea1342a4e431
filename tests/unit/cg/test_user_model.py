"""A user's CG model (cg.models): formats, units, energy or forces, the contract's clear errors, the engine."""

import textwrap

import numpy as np
import pytest
import torch

from westbench.cg.engine import CGEngine
from westbench.cg.user import ModelContractError, check_user_model, load_user_model
from westbench.config import validate_config
from westbench.errors import ConfigError
from westbench.we.engine_entry import user_model_options

BASIS = np.zeros((5, 3))
BASIS[:, 0] = 0.38 * np.arange(5)  # nm


class Bonds(torch.nn.Module):
    """Harmonic bonds of 3.8 (in whatever length unit the positions are)."""

    def __init__(self, k: float = 1.0, rest: float = 3.8):
        super().__init__()
        self.k = torch.nn.Parameter(torch.tensor(float(k)))
        self.rest = rest

    def forward(self, x):
        return self.k * (torch.linalg.vector_norm(x[:, 1:] - x[:, :-1], dim=-1) - self.rest).pow(2).sum(-1)


class BondForces(torch.nn.Module):
    def forward(self, x):
        return torch.zeros_like(x)


class PerBead(torch.nn.Module):
    def forward(self, x):
        return x.pow(2).sum(-1)  # (n_frames, n_beads): not one energy per frame


class Detached(torch.nn.Module):
    def forward(self, x):
        return torch.as_tensor(x.detach().numpy().sum((1, 2)))


def scripted(tmp_path, module, name="m.pt"):
    path = tmp_path / name
    torch.jit.script(module).save(str(path))
    return str(path)


def spec(path, **changes):
    return {"path": path, "format": "torchscript", **changes}


def test_the_schema_fills_an_entry_and_refuses_unknown_units():
    protein = {"id": "p", "name": "P", "sequence": "GYDPE", "source": "sequence"}
    config = validate_config(
        {"proteins": [protein], "cg": {"models": {"mine": {"path": "m.pt", "format": "torchscript"}}}}
    )
    assert config["cg"]["models"]["mine"] == {
        "path": "m.pt",
        "format": "torchscript",
        "class": None,
        "kwargs": {},
        "python_path": None,
        "returns": "energy",
        "length_unit": "nm",
        "energy_unit": "kj/mol",
        "prior": "none",
    }
    with pytest.raises(ConfigError, match=r"cg\.models\.mine\.length_unit"):
        validate_config(
            {
                "proteins": [protein],
                "cg": {"models": {"mine": {"path": "m.pt", "format": "torchscript", "length_unit": "bohr"}}},
            }
        )


def test_units_are_converted_to_nm_and_kj_mol(tmp_path):
    path = scripted(tmp_path, Bonds(rest=3.8))
    x = torch.as_tensor(BASIS[None] * 1.05)  # bonds of 0.399 nm = 3.99 Angstrom
    in_angstrom = load_user_model(spec(path, length_unit="angstrom", energy_unit="kcal/mol"), "p")
    assert float(in_angstrom(x.float()).detach()) == pytest.approx(4 * 0.19**2 * 4.184, rel=1e-4)
    record = check_user_model(spec(path, length_unit="angstrom"), "mine", BASIS, "p")
    assert record["n_beads"] == 5 and record["warnings"] == [] and record["max_force_kj_mol_nm"] < 1e3
    # The same model read as nm: bonds of 0.38 against a rest length of 3.8 nm, forces far larger, still finite.
    assert check_user_model(spec(path), "mine", BASIS, "p")["energy_kj_mol"] > 40


def test_a_state_dict_model_is_built_from_its_class(tmp_path):
    package = tmp_path / "lib" / "usermodels_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "nets.py").write_text(
        textwrap.dedent("""
        import torch
        class Bonds(torch.nn.Module):
            def __init__(self, k=1.0):
                super().__init__()
                self.k = torch.nn.Parameter(torch.tensor(float(k)))
            def forward(self, x):
                return self.k * (torch.linalg.vector_norm(x[:, 1:] - x[:, :-1], dim=-1) - 0.38).pow(2).sum(-1)
    """)
    )
    torch.save(Bonds(k=2.0).state_dict(), tmp_path / "sd.pt")
    entry = {
        "path": str(tmp_path / "sd.pt"),
        "format": "state_dict",
        "class": "usermodels_pkg.nets:Bonds",
        "kwargs": {"k": 1.0},
        "python_path": str(tmp_path / "lib"),
    }
    model = load_user_model(entry, "p")
    assert float(model.module.k.detach()) == 2.0  # the file's weights, not the constructor's
    with pytest.raises(ModelContractError, match=r"cg\.models\.mine .*does not load into usermodels_pkg.nets:Bonds"):
        torch.save({"other": torch.zeros(1)}, tmp_path / "bad.pt")
        check_user_model({**entry, "path": str(tmp_path / "bad.pt")}, "mine", BASIS, "p")
    with pytest.raises(ModelContractError, match=r"format state_dict needs `class`"):
        check_user_model({**entry, "class": None}, "mine", BASIS, "p")


@pytest.mark.parametrize(
    "module, changes, message",
    [
        (
            PerBead(),
            {},
            r"cg\.models\.mine \(engine cg_mine, protein p\): forward\(x\) returned \(2, 5\) for x of shape "
            r"\(2, 5, 3\); the contract \(returns: energy\) is energies \(n_frames,\)",
        ),
        (Detached(), {}, r"do not depend differentiably on the positions.*Fix"),
        (Bonds(), {"returns": "forces"}, r"returned \(2,\).*forces \(n_frames, n_beads, 3\)"),
    ],
)
def test_a_model_that_breaks_the_contract_is_a_clear_error(tmp_path, module, changes, message):
    path = str(tmp_path / "m.pt")
    if isinstance(module, Detached):
        torch.save(module.state_dict(), path)  # cannot be scripted: load it through a class instead
        changes = {"format": "state_dict", "class": f"{__name__}:Detached"}
    else:
        path = scripted(tmp_path, module)
    with pytest.raises(ModelContractError, match=message):
        check_user_model(spec(path, **changes), "mine", BASIS, "p")


def test_missing_and_foreign_files_are_named(tmp_path):
    with pytest.raises(ModelContractError, match=r"model file .*nothere.pt not found.*Fix: set `path`"):
        check_user_model(spec(str(tmp_path / "nothere.pt")), "mine", BASIS, "p")
    (tmp_path / "text.pt").write_text("not a model")
    with pytest.raises(ModelContractError, match=r"is not a TorchScript file.*Fix"):
        check_user_model(spec(str(tmp_path / "text.pt")), "mine", BASIS, "p")


@pytest.mark.parametrize("returns", ["energy", "forces"])
def test_the_cg_engine_runs_a_users_model(tmp_path, returns):
    path = scripted(tmp_path, Bonds(k=10.0, rest=0.38) if returns == "energy" else BondForces())
    entry = {"format": "torchscript", "returns": returns}
    engine = CGEngine(
        path, "p", basis_positions=BASIS, bead_mass_amu=100.0, device="cpu", model_spec=user_model_options(entry)
    )
    results = engine.propagate([engine.basis_state()] * 2, n_steps=20, save_every=10, seeds=[1, 2])
    assert [r.status for r in results] == ["ok", "ok"] and results[0].frames.shape == (2, 5, 3)
    assert not np.allclose(results[0].frames, results[1].frames)  # own noise per walker
