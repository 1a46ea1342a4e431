"""westbench: benchmark molecular-dynamics engines and coding agents in one Snakemake DAG."""

__version__ = "0.1.0"
