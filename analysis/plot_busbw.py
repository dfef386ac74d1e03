"""Bus bandwidth against message size from splitstep result files."""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from splitstep_results import load_cases  # noqa: E402

COLLECTIVES = ("allreduce", "reduce_scatter", "allgather", "broadcast")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", nargs="+", help="splitstep results.json files")
    parser.add_argument("--reference", help="CSV: collective,size_bytes,time_us,busbw_gbps,label")
    parser.add_argument("--title", default="Bus bandwidth")
    parser.add_argument("-o", "--output", required=True, help="PNG to write")
    args = parser.parse_args()

    frame = pd.concat([load_cases(path) for path in args.results], ignore_index=True)
    frame = frame[frame["suite"].isin(COLLECTIVES) & frame["busbw GB/s"].notna()]
    if frame.empty:
        raise SystemExit("no collective cases with a bus bandwidth in the result files")
    figure, axes = plt.subplots(figsize=(9, 5.5))
    keys = ["suite", "backend", "dtype", "placement", "file"]
    for key, group in frame.groupby(keys):
        suite, backend, dtype, placement, path = key
        label = f"splitstep {suite} {backend} {dtype} {placement}"
        if len(args.results) > 1:
            label += f" ({path.rsplit('/', 1)[-1]})"
        group = group.sort_values("size")
        axes.plot(group["size"], group["busbw GB/s"], marker="o", label=label)
    if args.reference:
        reference = pd.read_csv(args.reference, comment="#")
        for (collective, label), group in reference.groupby(["collective", "label"]):
            axes.plot(group["size_bytes"], group["busbw_gbps"], linestyle="--", marker="x",
                      color="black", label=f"{label} {collective} (reference)")
    axes.set_xscale("log", base=2)
    axes.set_xlabel("message size (bytes)")
    axes.set_ylabel("busbw (GB/s, 1 GB = 1e9 B)")
    axes.set_title(args.title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(args.output, dpi=120)


if __name__ == "__main__":
    main()
