"""Compares a program's own tally line with what its trace holds.

    python3 check_counts.py PROGRAM_STDOUT TRACE_DUMP_CSV

PROGRAM_STDOUT holds a line "tally kernels=K memcpy=C memset=S bytes_htod=H bytes_dtoh=D bytes_dtod=E
bytes_memset=M" (kernels/common.cuh prints it); the CSV is `gpuanalyze dump --type kernel,memcpy,memset
--format csv`. Prints one line per quantity and exits 1 on any difference.
"""
import csv
import sys


def main():
    tally = None
    for line in open(sys.argv[1]):
        if line.startswith("tally "):
            tally = dict(kv.split("=") for kv in line.split()[1:])
    if tally is None:
        print("check_counts: no tally line in", sys.argv[1])
        return 1
    got = {"kernels": 0, "memcpy": 0, "memset": 0, "bytes_htod": 0, "bytes_dtoh": 0,
           "bytes_dtod": 0, "bytes_memset": 0}
    with open(sys.argv[2], newline="") as f:
        for row in csv.DictReader(f):
            t = row["type"]
            if t == "kernel":
                got["kernels"] += 1
            elif t == "memcpy":
                if int(row["flags"] or 0) & 2:
                    continue  # GT_COPY_TOOL: made by gputrace's shadow capture, not the program
                got["memcpy"] += 1
                k = {"HtoD": "bytes_htod", "DtoH": "bytes_dtoh", "DtoD": "bytes_dtod"}.get(row["copy_kind"])
                if k:
                    got[k] += int(row["bytes"])
            elif t == "memset":
                got["memset"] += 1
                got["bytes_memset"] += int(row["bytes"])
    bad = 0
    for k, v in got.items():
        want = int(tally.get(k, -1))
        ok = want == v
        bad += not ok
        print(f"  {k:13s} program {want:>12d}  trace {v:>12d}  {'ok' if ok else 'DIFFERENT'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
