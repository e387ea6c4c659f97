"""The four experiments, one function per run stage: each returns the per-replicate rows of one seed."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.papers.mec_mmd import baselines, kernels, method, two_sample, variance
from neurips26.papers.mec_mmd.data import audit, device_from_cfg, mixture_from_cfg, stream
from neurips26.papers.mec_mmd.models import GaussianModel, SampleModel, population_mmd2


def _model_q(cfg, h: float) -> GaussianModel:
    return GaussianModel(np.asarray(cfg.model_q.mean, float), cfg.model_q.variance * np.eye(cfg.dim), h)


def run_bias(cfg, seed: int) -> pd.DataFrame:
    """Data held fixed per dataset; the audit is redrawn `replicates` times per (noise level, audit size)."""
    b, mix, rows = cfg.bias, mixture_from_cfg(cfg.mixture), []
    for ds in range(b.datasets):
        rng = stream(seed, "bias", ds)
        x, eps = mix.sample(rng, b.N), rng.standard_normal((b.N, cfg.dim))  # one eps for all noise levels
        q = np.asarray(cfg.model_q.mean, float)
        z = q + np.sqrt(cfg.model_q.variance) * rng.standard_normal((b.model_samples, cfg.dim))
        for li, noise in enumerate(cfg.bias.noise_levels):
            y = device_from_cfg(cfg.device_model, noise).apply(x, eps)
            h = kernels.median_bandwidth(y)
            rows += _bias_cell(seed, ds, li, noise, x, y, SampleModel(z, h), h, b)
    return pd.DataFrame(rows)


def _bias_cell(seed, ds, li, noise, x, y, model, h, b) -> list[dict]:
    noisy, fx = method.noisy_parts(y, model, h), model.mean_kernel(x)
    oracle = kernels.u_mean(x, h) - 2.0 * fx.mean() + noisy.model_self
    naive = noisy.u_yy - 2.0 * noisy.fy.mean() + noisy.model_self
    mus = method.exact_moments(x, y, fx, noisy.fy, h)
    rows = []
    for n in b.audit_sizes:
        exact = variance.variance_at(1.0, variance.quadratic_in_w(n, b.N, *mus))
        rng = stream(seed, "bias", ds, li, n)
        for r in range(b.replicates):
            idx = audit(rng, b.N, n)
            parts = method.AuditParts(idx, kernels.gram(x[idx], x[idx], h), kernels.gram(y[idx], y[idx], h), fx[idx])
            v = method.plugin_coefficients(noisy, parts)
            w_opt = variance.optimal_weight(v)
            rc = baselines.regression_calibration(x[idx], y, idx, model, h) if r < b.rc_replicates else np.nan
            rows.append({"seed": seed, "dataset": ds, "noise": noise, "n": n, "replicate": r, "bandwidth": h,
                         "oracle": oracle, "mec": method.mec_estimate(noisy, parts, 1.0),
                         "mec_opt": method.mec_estimate(noisy, parts, w_opt), "w_opt": w_opt, "naive": naive,
                         "audit_only": method._u(parts.kxx) - 2.0 * parts.fx.mean() + noisy.model_self,
                         "regression_calibration": rc, "plugin_var": variance.variance_at(1.0, v),
                         "plugin_var_opt": variance.variance_at(w_opt, v), "exact_var": exact})
    return rows


def run_rate(cfg, seed: int) -> pd.DataFrame:
    """RMSE against the closed-form population MMD^2 (fixed bandwidth) as N grows with n = N / 10."""
    h, mix = float(cfg.rate.bandwidth), mixture_from_cfg(cfg.mixture)
    model = _model_q(cfg, h)  # Q's kernel mean embedding in closed form, so only N (and n) vary
    population = population_mmd2(mix.components, model.as_mixture, h)
    device, rows = device_from_cfg(cfg.device_model, cfg.rate.noise_level), []
    for N in cfg.rate.N_grid:
        n = int(round(cfg.rate.audit_fraction * N))
        for r in range(cfg.rate.replicates):
            rng = stream(seed, "rate", N, r)
            x = mix.sample(rng, N)
            y, idx = device.measure(x, rng), audit(rng, N, n)
            noisy = method.noisy_parts(y, model, h)
            mec = method.mec_estimate(noisy, method.audit_parts(x[idx], y, idx, model, h))
            rows.append({"seed": seed, "N": N, "n": n, "replicate": r, "population": population, "mec": mec,
                         "oracle": baselines.oracle(x, model, h),
                         "naive": noisy.u_yy - 2.0 * noisy.fy.mean() + noisy.model_self})
    return pd.DataFrame(rows)


def run_estimation(cfg, seed: int) -> pd.DataFrame:
    """Fit theta = (mu, log sigma) of X = mu + sigma E by minimising each loss; record the parameter errors."""
    from neurips26.papers.mec_mmd import losses  # torch is imported only by the stage that needs it

    e, mix = cfg.estimation, mixture_from_cfg(cfg.mixture)
    base_mean, base_sd = mix.moments()
    truth = np.append(np.asarray(e.true_mean, float), e.true_log_sigma)
    device, rows = device_from_cfg(cfg.device_model, e.noise_level), []
    for r in range(e.replicates):
        rng = stream(seed, "estimation", r)
        x = truth[:-1] + np.exp(truth[-1]) * (mix.sample(rng, e.N) - base_mean) / base_sd  # standardized base law
        y, idx = device.measure(x, rng), audit(rng, e.N, e.audit_size)
        base = (mix.sample(rng, e.model_samples) - base_mean) / base_sd
        eps = rng.standard_normal((e.model_samples, cfg.dim))
        h = kernels.median_bandwidth(y)
        theta0 = np.append(x[idx].mean(axis=0), np.log(x[idx].std(axis=0).mean()))  # common start: audit moments
        for name in losses.METHODS:
            spec = losses.method_spec(name, x, y, idx, device, device.mean_noise_sd(x))
            err = losses.fit(spec, base, eps, h, theta0, e.iterations) - truth
            rows.append({"seed": seed, "replicate": r, "method": name, "err_mu0": err[0], "err_mu1": err[1],
                         "err_log_sigma": err[2], "sq_err": float(err @ err)})
    return pd.DataFrame(rows)


def run_testing(cfg, seed: int) -> pd.DataFrame:
    """Two devices, two groups; size under equal X laws, power under a shift; alpha from the config."""
    t, mix, rows = cfg.testing, mixture_from_cfg(cfg.mixture), []
    devices = [device_from_cfg(cfg.device_model, d.noise, d.gain, d.offset) for d in (t.device1, t.device2)]
    for hi, hypothesis in enumerate(("H0", "H1")):  # not "null": pandas reads that back as NaN
        laws = (mix, mix if hypothesis == "H0" else mix.shifted(t.shift))
        for k in range(t.tests):
            rng = stream(seed, "testing", hi, k)
            xs = [law.sample(rng, t.N) for law in laws]
            ys = [dev.measure(x, rng) for dev, x in zip(devices, xs)]
            idxs = [audit(rng, t.N, t.audit_size) for _ in xs]
            h = kernels.median_bandwidth(np.vstack(ys))
            p = {"naive": two_sample.permutation_test(ys[0], ys[1], h, rng, t.permutations),
                 "oracle": two_sample.permutation_test(xs[0], xs[1], h, rng, t.permutations),
                 "audit_only": two_sample.permutation_test(xs[0][idxs[0]], xs[1][idxs[1]], h, rng, t.permutations),
                 "mec": two_sample.mec_bootstrap_test([(x[i], y, i) for x, y, i in zip(xs, ys, idxs)], h, rng,
                                                      t.bootstrap)}
            rows += [{"seed": seed, "hypothesis": hypothesis, "test": k, "method": m, "p_value": pv,
                      "alpha": t.alpha, "reject": int(pv <= t.alpha)} for m, pv in p.items()]
    return pd.DataFrame(rows)
