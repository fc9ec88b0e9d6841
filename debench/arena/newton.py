"""Newton's method for many small convex problems at once (one row of parameters each).

Each row's Newton step is halved until its objective decreases; a step that moves no parameter by
more than the tolerance is taken and ends that row (Newton's error after it is of the order of the
step squared: ~1e-8 logits after a step of 1e-4). Rows that cannot decrease along their Newton
direction are reported as not converged.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

POINT_TOLERANCE = 1e-9
"""Logits: the fit on all the data stops after a step below this (and takes it)."""
RESAMPLE_TOLERANCE = 1e-4
"""Logits: a resample's fit stops after a step below this (and takes it): its error is then ~1e-8
logits (~2e-6 Elo-like points), far below any interval's width."""
MAX_ITERATIONS = 100
MAX_HALVINGS = 60

Terms = tuple[np.ndarray, np.ndarray, np.ndarray]
"""Objective (b,), gradient (b, p) and Hessian (b, p, p) of ``b`` rows."""


def minimise(
    theta: np.ndarray, terms: Callable[[np.ndarray, np.ndarray], Terms], first: Terms, tolerance: float
) -> tuple[np.ndarray, np.ndarray]:
    """``terms(theta_rows, row_index)`` evaluates rows; ``first`` is their value at ``theta``.
    Returns the minimisers and which rows converged."""
    theta = theta.copy()
    active = np.arange(len(theta))
    loss, grad, hess = first
    converged = np.zeros(len(theta), dtype=bool)
    for _ in range(MAX_ITERATIONS):
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        finite = np.isfinite(step).all(axis=1)
        small = finite & (np.abs(step).max(axis=1) <= tolerance)
        theta[active[small]] -= step[small]
        converged[active[small]] = True
        keep = finite & ~small
        active, step, loss = active[keep], step[keep], loss[keep]
        if not len(active):
            break
        t = np.ones(len(active))
        todo = np.arange(len(active))
        grad, hess = np.empty((len(active), *grad.shape[1:])), np.empty((len(active), *hess.shape[1:]))
        for _halving in range(MAX_HALVINGS):
            cand = theta[active[todo]] - t[todo, None] * step[todo]
            c_loss, c_grad, c_hess = terms(cand, active[todo])
            ok = c_loss <= loss[todo] + 1e-13 * np.abs(loss[todo])
            done = todo[ok]
            theta[active[done]] = cand[ok]
            loss[done], grad[done], hess[done] = c_loss[ok], c_grad[ok], c_hess[ok]
            todo = todo[~ok]
            if not len(todo):
                break
            t[todo] *= 0.5
        if len(todo):  # no decrease within 2^-60 of the step: stuck, not converged
            keep = np.ones(len(active), dtype=bool)
            keep[todo] = False
            active, loss, grad, hess = active[keep], loss[keep], grad[keep], hess[keep]
            if not len(active):
                break
    return theta, converged
