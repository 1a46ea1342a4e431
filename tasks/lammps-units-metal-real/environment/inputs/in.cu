# fcc copper, Foiles EAM (Cu_u3.eam): 10 ps NVT at 300 K, 1 fs steps
units           metal
atom_style      atomic
boundary        p p p
lattice         fcc 3.615
region          box block 0 4 0 4 0 4
create_box      1 box
create_atoms    1 box
mass            1 63.546
pair_style      eam
pair_coeff      1 1 /usr/share/lammps/potentials/Cu_u3.eam
neighbor        2.0 bin
velocity        all create 300.0 4928459 mom yes rot yes dist gaussian
timestep        1.0
fix             1 all nvt temp 300.0 300.0 100.0
variable        pgpa equal press*1.01325e-4
thermo_style    custom step time temp pe etotal press v_pgpa
thermo          100
run             10000
