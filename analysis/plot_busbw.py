"""Bus bandwidth against message size from splitstep result files, all collectives in one
figure (plots.py draws one figure per collective and the other plots)."""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from plots import (collective_frame, finish_busbw_axes, plot_busbw_lines,  # noqa: E402
                   plot_reference_lines)
from splitstep_results import load_cases  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", nargs="+", help="splitstep results.json files")
    parser.add_argument("--reference", help="CSV: collective,size_bytes,time_us,busbw_gbps,label")
    parser.add_argument("--title", default="Bus bandwidth")
    parser.add_argument("-o", "--output", required=True, help="PNG to write")
    args = parser.parse_args()

    frame = collective_frame(pd.concat([load_cases(path) for path in args.results],
                                       ignore_index=True))
    if frame.empty:
        raise SystemExit("no collective cases with a bus bandwidth in the result files")
    figure, axes = plt.subplots(figsize=(9, 5.5))
    plot_busbw_lines(axes, frame, label_file=len(args.results) > 1)
    if args.reference:
        plot_reference_lines(axes, pd.read_csv(args.reference, comment="#"))
    finish_busbw_axes(axes, args.title)
    figure.tight_layout()
    figure.savefig(args.output, dpi=120)


if __name__ == "__main__":
    main()
