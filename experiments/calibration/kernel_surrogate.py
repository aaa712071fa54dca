"""Every kernel of every simulated row's stages, as arrays, timed at any constants θ exactly as
sim/model/kernel_time.cc does: the surrogate both calibrations (calibrate.py, calibrate_h100.py) fit
on. θ = (η, τ, η_mem, kernel floor[, η_fp8]); without η_fp8 an FP8 GEMM takes η, as pipegrid does."""
import os

import numpy as np


def gpu_file_with(gpu_file, names, theta, folder):
    """`gpu_file` with the constants θ inline, written in `folder` ([constants] wins over the shipped
    calibration): what each round of a fit runs pipegrid with."""
    path = os.path.join(folder, "trial-" + os.path.basename(gpu_file))
    with open(gpu_file) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text + "\n[constants]\n" + "".join(f"{n} = {v!r}\n" for n, v in zip(names, theta)))
    return path


class Kernels:
    def __init__(self, summaries):
        first = summaries[0]["compute_breakdown"]
        self.sms, self.peak, self.bw = first["sms"], first["tensor_flops"], first["hbm_bandwidth"]
        self.fp8_peak = first.get("precision", {}).get("fp8_tensor_flops", 0.0)
        rec = {k: [] for k in ["row", "stage", "pass", "count", "m", "n", "k", "batch", "flops", "bytes", "seconds",
                               "fp8"]}
        self.cpp_stage = []  # (row, stage, F, I, W, optimizer) as pipegrid computed them
        for r, s in enumerate(summaries):
            breakdown = s["compute_breakdown"]
            c = {name: i for i, name in enumerate(breakdown["kernel_columns"])}
            for st in breakdown["stages"]:
                self.cpp_stage.append((r, st["stage"], st["seconds"]["F"], st["seconds"]["I"], st["seconds"]["W"],
                                       st["optimizer_seconds"]))
                for kr in st["kernels"]:
                    rec["row"].append(r)
                    rec["stage"].append(st["stage"])
                    rec["pass"].append("FIWs".index(kr[c["pass"]][0]))
                    for name in ["count", "m", "n", "k", "batch", "flops", "bytes", "seconds"]:
                        rec[name].append(kr[c[name]])
                    rec["fp8"].append(bool(kr[c["fp8"]]) if "fp8" in c else False)
            if "precision" in breakdown:
                self.fp8_peak = breakdown["precision"]["fp8_tensor_flops"]
        a = {k: np.array(v, dtype=float) for k, v in rec.items()}
        self.a = a
        self.rows = len(summaries)
        self.max_stages = int(a["stage"].max()) + 1
        self.fp8 = a["fp8"] > 0
        tiles = np.array(first["gemm_tiles"], dtype=float)
        self.gemm = a["batch"] > 0
        # Per tile: waves and the time of a wave's tile on one SM at the full peak of its precision.
        peak = np.where(self.fp8, self.fp8_peak or self.peak, self.peak)
        waves = np.zeros((len(a["m"]), len(tiles)))
        work = np.zeros_like(waves)
        for j, (tm, tn) in enumerate(tiles):
            count = a["batch"] * np.ceil(a["m"] / tm) * np.ceil(a["n"] / tn)
            waves[:, j] = np.ceil(count / self.sms)
            work[:, j] = waves[:, j] * 2.0 * tm * tn * a["k"] / (peak / self.sms)
        self.waves, self.work = waves, work
        self.index = (a["row"] * self.max_stages + a["stage"]).astype(int)

    def seconds(self, theta):
        eta, tau, eta_m, floor = theta[:4]
        eta_gemm = np.where(self.fp8, theta[4], eta) if len(theta) > 4 else eta
        a = self.a
        scale = eta_gemm[:, None] if np.ndim(eta_gemm) else eta_gemm
        tiled = np.min(self.work / scale + self.waves * tau, axis=1, initial=np.inf)
        compute = np.where(self.gemm, tiled, a["flops"] / (self.peak * eta))
        compute = np.where(self.gemm | (a["flops"] > 0), compute, 0.0)
        return a["count"] * np.maximum(np.maximum(floor, compute), a["bytes"] / (self.bw * eta_m))

    def stage_passes(self, theta):
        """[rows, stages, 4]: F, I, W and the optimizer's step, seconds."""
        t = self.seconds(theta)
        out = np.zeros(self.rows * self.max_stages * 4)
        np.add.at(out, self.index * 4 + self.a["pass"].astype(int), t)
        return out.reshape(self.rows, self.max_stages, 4)

    def collapsed(self, weight):
        """The same kernels folded per row: identical kernels of a row (the same shape, bytes and
        precision in any stage or pass) become one, their counts × `weight` (one per kernel) summed.
        stage_passes then has one stage and one pass, the weighted total, at a fraction of the cost."""
        a = self.a
        keys = np.stack([a["row"], a["m"], a["n"], a["k"], a["batch"], a["flops"], a["bytes"], a["fp8"]], axis=1)
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        out = object.__new__(Kernels)
        out.__dict__.update(self.__dict__)
        counts = np.bincount(inverse, weights=a["count"] * weight, minlength=len(unique))
        first = np.zeros(len(unique), dtype=int)
        first[inverse[::-1]] = np.arange(len(inverse))[::-1]
        out.a = {"row": unique[:, 0], "m": unique[:, 1], "n": unique[:, 2], "k": unique[:, 3], "batch": unique[:, 4],
                 "flops": unique[:, 5], "bytes": unique[:, 6], "fp8": unique[:, 7], "count": counts,
                 "pass": np.zeros(len(unique)), "stage": np.zeros(len(unique))}
        out.fp8, out.gemm = unique[:, 7] > 0, unique[:, 4] > 0
        out.waves, out.work = self.waves[first], self.work[first]
        out.max_stages = 1
        out.index = unique[:, 0].astype(int)
        return out

    def check(self, theta):
        """Exits unless these times are pipegrid's own to 1e-9 (the two must agree)."""
        got_all = self.stage_passes(theta)
        for r, s, f_, i_, w_, o_ in self.cpp_stage:
            for got, want in zip(got_all[r, s], (f_, i_, w_, o_)):
                if abs(got - want) > 1e-9 * max(1.0, abs(want)):
                    raise SystemExit(f"the script's kernel times differ from pipegrid's (row {r}, stage {s}: {got} vs "
                                     f"{want}): sim/model/kernel_time.cc and kernel_surrogate.py must agree")
        return got_all
