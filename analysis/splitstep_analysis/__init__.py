"""splitstep-analysis: splitstep's results files in pandas, plots, run-to-run comparison, nccl-tests
side by side, scaling and projection tables, trace views (analysis/README.md, docs/analysis.md).

The loaders are in `splitstep_analysis.results`; each subcommand of the `splitstep-analysis`
command is a module of this package with the same name.
"""
