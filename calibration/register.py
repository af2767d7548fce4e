"""Mat registration from the board's ArUco markers → :class:`MatTransform`, and the drift check.

Frames: detections and residuals are in **image px** (undistorted px once intrinsics are known);
board geometry in **mat mm**.

Stages (each a plain function taking its slice of :class:`~calibration.config.CalibrationConfig`):

1. :func:`detect_markers`: every marker of the board's dictionary, corners refined to subpixel;
2. :func:`register_detections`: the known markers' corners ↔ their mat positions; RANSAC
   homography; iteratively reweighted Levenberg-Marquardt on the inliers; with intrinsics, the
   pose by ``solvePnP`` (z = 0) so the transform has exact R, t; residual and the covariance of H
   for ``sigma_mm``; sanity (degenerate, mirrored) and consistency checks with typed errors;
3. :func:`check_drift`: a new registration against the current one → "mat moved" and by how much.

:func:`register_markers` runs 1-2 on an image.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.board import Board
from calibration.config import DetectorConfig, DriftConfig, RegistrationConfig
from calibration.errors import MarkersNotFoundError, RegistrationError, UnknownMarkersError
from calibration.transform import (MatTransform, apply_homography, homography_covariance, homography_is_sane,
                                   homography_param_jacobian)

_REFINE = {"none": "CORNER_REFINE_NONE", "subpix": "CORNER_REFINE_SUBPIX", "contour": "CORNER_REFINE_CONTOUR",
           "apriltag": "CORNER_REFINE_APRILTAG"}


@dataclass(frozen=True)
class MarkerDetections:
    """Markers found in one image. ``ids`` (n,) int; ``corners`` (n, 4, 2) float image px in
    ArUco order (the printed marker's top-left, top-right, bottom-right, bottom-left);
    ``edge_refined`` (n,) bool: corners from fitted edge lines (precise) rather than from the
    corner detector alone (biased by blur, for markers too small to fit edges on)."""

    ids: np.ndarray
    corners: np.ndarray
    dictionary: str = ""
    edge_refined: np.ndarray | None = None

    def __post_init__(self):
        ids = np.asarray(self.ids, dtype=np.int64).reshape(-1)
        corners = np.asarray(self.corners, dtype=np.float64).reshape(-1, 4, 2)
        if len(ids) != len(corners):
            raise ValueError(f"ids (shape {ids.shape}) and corners (shape {corners.shape}) must have the same length")
        refined = (np.zeros(len(ids), bool) if self.edge_refined is None
                   else np.asarray(self.edge_refined, dtype=bool).reshape(-1))
        if len(refined) != len(ids):
            raise ValueError(f"edge_refined must have shape ({len(ids)},), but got shape {refined.shape}")
        object.__setattr__(self, "ids", ids)
        object.__setattr__(self, "corners", corners)
        object.__setattr__(self, "edge_refined", refined)

    def __len__(self) -> int:
        return len(self.ids)


def _ids_text(ids) -> str:
    ids = sorted(int(i) for i in ids)
    return ", ".join(f"#{i}" for i in ids) if ids else "none"


# --------------------------------------------------------------------------------------------
# 1. detection


def detector_parameters(cfg: DetectorConfig):
    """``cv2.aruco.DetectorParameters`` from the configuration (subpixel corner refinement)."""
    import cv2

    p = cv2.aruco.DetectorParameters()
    p.cornerRefinementMethod = int(getattr(cv2.aruco, _REFINE[cfg.corner_refine]))
    p.cornerRefinementWinSize = int(cfg.corner_refine_win_px)
    p.cornerRefinementMaxIterations = int(cfg.corner_refine_max_iterations)
    p.cornerRefinementMinAccuracy = float(cfg.corner_refine_min_accuracy_px)
    p.adaptiveThreshWinSizeMin = int(cfg.adaptive_thresh_win_min_px)
    p.adaptiveThreshWinSizeMax = int(cfg.adaptive_thresh_win_max_px)
    p.adaptiveThreshWinSizeStep = int(cfg.adaptive_thresh_win_step_px)
    p.minMarkerPerimeterRate = float(cfg.min_marker_perimeter_rate)
    p.errorCorrectionRate = float(cfg.error_correction_rate)
    p.perspectiveRemovePixelPerCell = int(cfg.perspective_remove_px_per_cell)
    p.perspectiveRemoveIgnoredMarginPerCell = float(cfg.perspective_remove_margin_per_cell)
    return p


def detect_markers(image: np.ndarray, dictionary: str, cfg: DetectorConfig) -> MarkerDetections:
    """Every marker of ``dictionary`` in ``image`` (BGR or grey), corners in image px.

    Small images are searched at twice their size (small markers decode better); corners are
    refined by the detector (``cfg.corner_refine``) and then, for markers big enough, by fitting
    lines to the four edges of the black square (:func:`calibration.edges.fit_quad_edges`), which
    removes the blur bias of corner refinement."""
    import cv2

    from calibration.capture import check_image
    from calibration.edges import fit_quad_edges
    from calibration.markers import aruco_dictionary, marker_cells

    img = check_image(image)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    aruco = aruco_dictionary(dictionary)
    detector = cv2.aruco.ArucoDetector(aruco, detector_parameters(cfg))
    up = 2 if max(grey.shape) < cfg.upscale_below_px else 1
    search = cv2.resize(grey, None, fx=up, fy=up, interpolation=cv2.INTER_CUBIC) if up > 1 else grey
    corners, ids, _ = detector.detectMarkers(search)
    if ids is None or len(ids) == 0:
        return MarkerDetections(np.zeros(0, np.int64), np.zeros((0, 4, 2)), dictionary)
    quads = np.stack([c.reshape(4, 2) for c in corners]).astype(np.float64)
    if up > 1:  # cv2.resize maps pixel centres: x_big = up * x + (up - 1) / 2
        quads = (quads - (up - 1) / 2.0) / up
    refined = np.zeros(len(quads), bool)
    if cfg.edge_refine:
        grey_f = grey.astype(np.float32)
        cells = marker_cells(aruco)
        for k, quad in enumerate(quads):
            side = float(np.mean(np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)))
            module = side / cells
            if module < cfg.edge_refine_min_module_px:
                continue
            fit = fit_quad_edges(grey_f, quad, band_px=min(cfg.edge_refine_band_modules * module, 4.0), exclude=0.1)
            if fit is not None and np.max(np.linalg.norm(fit.corners - quad, axis=1)) < 0.5 * module:
                quads[k] = fit.corners
                refined[k] = True
    return MarkerDetections(ids.reshape(-1), quads, dictionary, refined)


def _mirrored_markers(image: np.ndarray, board: Board, cfg: DetectorConfig) -> list[int]:
    """Board markers that read only in the left-right flipped image (a mirroring webcam)."""
    import cv2

    flipped = detect_markers(cv2.flip(np.asarray(image), 1), board.markers.dictionary, cfg)
    known = {m.id for m in board.markers.items}
    return sorted({int(i) for i in flipped.ids if int(i) in known})


# --------------------------------------------------------------------------------------------
# 2. registration


def _normaliser(points: np.ndarray) -> np.ndarray:
    """3x3 similarity moving ``points`` to centroid 0 and mean distance √2 (Hartley)."""
    c = points.mean(axis=0)
    d = np.mean(np.linalg.norm(points - c, axis=1))
    s = np.sqrt(2.0) / d if d > 0 else 1.0
    return np.array([[s, 0.0, -s * c[0]], [0.0, s, -s * c[1]], [0.0, 0.0, 1.0]])


def refine_homography(H: np.ndarray, mat_pts: np.ndarray, img_pts: np.ndarray, iterations: int = 20,
                      huber_px: float = 1.0, weights: np.ndarray | None = None) -> np.ndarray:
    """Levenberg-Marquardt on the image reprojection error with Huber weights (iteratively
    reweighted) times the per-point ``weights`` (1/σ², optional), in Hartley-normalised
    coordinates. ``H`` maps mat mm → image px."""
    Tm, Ti = _normaliser(mat_pts), _normaliser(img_pts)
    scale = Ti[0, 0]
    Hn = Ti @ H @ np.linalg.inv(Tm)
    Hn = Hn / Hn[2, 2]
    X = apply_homography(Tm, mat_pts)
    x = apply_homography(Ti, img_pts)
    k = huber_px * scale
    lam = 1e-3
    prior = np.ones(len(X)) if weights is None else np.asarray(weights, dtype=np.float64)

    def cost(Hc):
        r = apply_homography(Hc, X) - x
        n = np.linalg.norm(r, axis=1)
        rho = np.where(n <= k, 0.5 * n**2, k * n - 0.5 * k**2)
        return r, n, float(np.sum(prior * rho))

    r, n, c = cost(Hn)
    for _ in range(max(0, iterations)):
        w = prior * np.where(n <= k, 1.0, k / np.maximum(n, 1e-12))
        J = homography_param_jacobian(Hn, X)  # (n, 2, 8)
        JtJ = np.einsum("nai,n,naj->ij", J, w, J)
        Jtr = np.einsum("nai,n,na->i", J, w, r)
        improved = False
        for _ in range(10):
            step = np.linalg.solve(JtJ + lam * np.diag(np.diag(JtJ) + 1e-12), -Jtr)
            Hc = Hn + np.append(step, 0.0).reshape(3, 3)
            rc, nc, cc = cost(Hc)
            if cc < c:
                Hn, r, n, lam, improved = Hc, rc, nc, lam * 0.3, True
                small = np.linalg.norm(step) < 1e-12 or (c - cc) < 1e-14 * max(c, 1e-30)
                c = cc
                break
            lam *= 10.0
        if not improved or small:
            break
    out = np.linalg.inv(Ti) @ Hn @ Tm
    return out / out[2, 2]


def refine_pose(obj: np.ndarray, img: np.ndarray, K: np.ndarray, dist, rvec: np.ndarray, tvec: np.ndarray,
                weights: np.ndarray, iterations: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Weighted Levenberg-Marquardt on the camera pose (rvec, tvec): minimises Σ wᵢ‖proj(Xᵢ) − xᵢ‖²
    over distorted image px (``cv2.solvePnPRefineLM`` cannot weight points)."""
    import cv2

    p = np.concatenate([np.asarray(rvec, float).ravel(), np.asarray(tvec, float).ravel()])
    W = np.repeat(np.asarray(weights, dtype=np.float64), 2)

    def residual(q):
        proj, J = cv2.projectPoints(obj, q[:3], q[3:], K, dist)
        return proj.reshape(-1) - img.reshape(-1), J[:, :6]

    r, J = residual(p)
    c = float(np.sum(W * r**2))
    lam = 1e-3
    for _ in range(iterations):
        A = J.T @ (W[:, None] * J)
        g = J.T @ (W * r)
        accepted = False
        for _ in range(10):
            q = p + np.linalg.solve(A + lam * np.diag(np.diag(A) + 1e-12), -g)
            rq, Jq = residual(q)
            cq = float(np.sum(W * rq**2))
            if cq < c:
                done = c - cq < 1e-12 * max(c, 1e-30)
                p, r, J, c, lam, accepted = q, rq, Jq, cq, lam * 0.3, True
                break
            lam *= 10.0
        if not accepted or done:
            break
    return p[:3].reshape(3, 1), p[3:].reshape(3, 1)


def _correspondences(det: MarkerDetections, board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(mat (m, 2), image (m, 2), marker id per point (m,), edge-refined per point (m,)) for the
    detected markers of the board."""
    known = board.markers.corners_mm()
    mat, img, owner, refined = [], [], [], []
    for mid, corners, ref in zip(det.ids, det.corners, det.edge_refined):
        if int(mid) in known:
            mat.append(known[int(mid)])
            img.append(corners)
            owner.extend([int(mid)] * 4)
            refined.extend([bool(ref)] * 4)
    if not mat:
        return np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, np.int64), np.zeros(0, bool)
    return np.vstack(mat), np.vstack(img), np.asarray(owner), np.asarray(refined)


def _undistort_points(points: np.ndarray, K: np.ndarray, dist) -> np.ndarray:
    import cv2

    if dist is None or not np.any(dist) or len(points) == 0:
        return points
    out = cv2.undistortPoints(points.reshape(-1, 1, 2), K, np.asarray(dist, dtype=np.float64), P=K,
                              criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10))
    return out.reshape(-1, 2)


def register_detections(det: MarkerDetections, board: Board, image_size: tuple[int, int], cfg: RegistrationConfig,
                        intrinsics=None) -> MatTransform:
    """The mat transform from detected markers (see the module docstring). ``intrinsics`` is a
    :class:`~calibration.intrinsics.CameraIntrinsics` (or None: the focal length is estimated from
    the homography). Raises :class:`MarkersNotFoundError`, :class:`UnknownMarkersError`,
    :class:`RegistrationError`."""
    import cv2

    if board.markers is None:
        raise MarkersNotFoundError(f"{board.ref}: the board file has no markers section; add one, or register "
                                   "from the mat's outline (--method outline)")
    expected = [m.id for m in board.markers.items]
    known = set(expected)
    found = sorted({int(i) for i in det.ids if int(i) in known})
    unknown = sorted({int(i) for i in det.ids if int(i) not in known})
    needed = min(cfg.min_markers, len(expected))
    if not found:
        if unknown:
            raise UnknownMarkersError(
                f"found markers {_ids_text(unknown)} ({board.markers.dictionary}) but {board.ref} expects "
                f"{_ids_text(expected)}: is this another mat? choose its board (--board), or fix markers.items "
                f"in {board.path or board.ref}")
        raise MarkersNotFoundError(
            f"no markers of {board.ref} found (expected {_ids_text(expected)}, {board.markers.dictionary}): check "
            f"they are in view, lit and not covered, print them with `tableref markers --board {board.ref}`, "
            f"or register from the mat's outline (--method outline)")
    if len(found) < needed:
        missing = sorted(known - set(found))
        raise MarkersNotFoundError(
            f"only {len(found)} marker(s) of {board.ref} found ({_ids_text(found)}); need at least {needed} of "
            f"{_ids_text(expected)} (missing {_ids_text(missing)}): bring them into view and uncover them")

    if intrinsics is not None:
        intrinsics = intrinsics.scaled_to(image_size)
    mat_pts, img_raw, owner, refined = _correspondences(det, board)
    # prior 1-σ of each corner: edge-fitted corners are good to a few hundredths of a pixel;
    # corners from the corner detector alone are biased by blur by a fair part of a pixel
    prior_px = np.where(refined, cfg.sigma_floor_px, cfg.corner_sigma_px)
    weights = 1.0 / prior_px**2
    K = None if intrinsics is None else np.asarray(intrinsics.K, dtype=np.float64)
    dist = None if intrinsics is None else intrinsics.dist
    img_pts = img_raw if K is None else _undistort_points(img_raw, K, dist)

    H, mask = cv2.findHomography(mat_pts, img_pts, cv2.RANSAC, cfg.ransac_threshold_px, maxIters=5000,
                                 confidence=0.9999)
    if H is None or not np.all(np.isfinite(H)) or abs(np.linalg.det(H)) < 1e-12:
        raise RegistrationError(f"the homography is degenerate (markers {_ids_text(found)} give no usable "
                                "geometry: are their corners collinear, or printed at the wrong size?)")
    inl = mask.ravel().astype(bool)
    H = refine_homography(H, mat_pts[inl], img_pts[inl], cfg.refine_iterations, cfg.huber_px, weights[inl])
    # re-select inliers with the refined model, then refine once more
    err = np.linalg.norm(apply_homography(H, mat_pts) - img_pts, axis=1)
    if np.sum(err <= cfg.ransac_threshold_px) >= 4:
        inl = err <= cfg.ransac_threshold_px
        H = refine_homography(H, mat_pts[inl], img_pts[inl], cfg.refine_iterations, cfg.huber_px, weights[inl])

    reason = homography_is_sane(H, board.corners_mm())
    if reason:
        raise RegistrationError(f"{reason} (markers {_ids_text(found)})")

    # markers whose corners were mostly rejected: moved, or placed unlike the board file says
    outliers = [mid for mid in found if np.mean(~inl[owner == mid]) > cfg.outlier_marker_fraction]
    agreeing = [mid for mid in found if mid not in outliers]
    if len(agreeing) < needed:
        raise RegistrationError(
            f"markers {_ids_text(found)} disagree with each other: only {_ids_text(agreeing)} fit one mat position; "
            f"{_ids_text(outliers)} are not where {board.path or board.ref} says (moved, swapped ids, or a "
            f"different size than markers.size_mm = {board.markers.size_mm:g})")

    n = int(inl.sum())
    w_in = weights[inl]
    if K is not None:
        obj = np.column_stack([mat_pts[inl], np.zeros(n)]).astype(np.float64)
        ok, rvec, tvec = cv2.solvePnP(obj, img_raw[inl].astype(np.float64), K, dist, flags=cv2.SOLVEPNP_IPPE)
        if not ok:
            raise RegistrationError(f"the camera pose cannot be solved from markers {_ids_text(found)}")
        rvec, tvec = refine_pose(obj, img_raw[inl].astype(np.float64), K, dist, rvec, tvec, w_in)
        proj, _ = cv2.projectPoints(obj, rvec, tvec, K, dist)
        resid = np.linalg.norm(proj.reshape(-1, 2) - img_raw[inl], axis=1)
        dof = max(2 * n - 6, 1)
        R, _ = cv2.Rodrigues(rvec)
        H_fit = K @ np.column_stack([R[:, 0], R[:, 1], tvec.reshape(3)])
        H_fit = H_fit / H_fit[2, 2]
    else:
        resid = np.linalg.norm(apply_homography(H, mat_pts[inl]) - img_pts[inl], axis=1)
        dof = max(2 * n - 8, 1)
        H_fit = H
    # covariance: the priors, scaled up (never down) when the residuals say the noise is larger
    chi2 = float(np.sum(w_in * resid**2))
    scale = max(1.0, chi2 / dof)
    cov = homography_covariance(H_fit, mat_pts[inl], np.sqrt(scale), weights=w_in)
    sigma = float(np.sqrt(scale / np.mean(w_in)))
    rms = float(np.sqrt(np.mean(resid**2)))
    if K is not None:
        transform = MatTransform.from_pose(K, dist, rvec, tvec, image_size, residual_px=rms, cov_h=cov, n_points=n,
                                           method="markers+pose", board=board.ref)
        if transform.t[2] <= 0:
            raise RegistrationError("the solved camera is below the mat (z <= 0): check the camera file")
    else:
        transform = MatTransform(H=H, image_size=image_size, residual_px=rms, cov_h=cov, n_points=n,
                                 method="markers", board=board.ref)
    if transform.residual_px > cfg.max_residual_px:
        raise RegistrationError(
            f"the markers do not fit the board file (RMS residual {transform.residual_px:.2f} px > "
            f"{cfg.max_residual_px:g} px): check markers.size_mm and each marker's center in "
            f"{board.path or board.ref}, and that the paper lies flat")
    transform.extra.update({
        "markers_found": found, "markers_missing": sorted(known - set(found)), "unknown_ids": unknown,
        "outlier_ids": outliers, "sigma_px": sigma, "corners_used": n, "corners_total": int(len(mat_pts)),
        "corners_edge_refined": int(refined[inl].sum()),
        "focal_estimated": intrinsics is None,
    })
    return transform


def register_markers(image: np.ndarray, board: Board, detector: DetectorConfig, registration: RegistrationConfig,
                     intrinsics=None) -> MatTransform:
    """Detect the board's markers in ``image`` and register the mat (see :func:`register_detections`).
    A mirrored image (a webcam's mirror setting) is recognised and reported as such."""
    from calibration.capture import check_image

    img = check_image(image)
    if board.markers is None:
        raise MarkersNotFoundError(f"{board.ref}: the board file has no markers section; add one, or register "
                                   "from the mat's outline (--method outline)")
    det = detect_markers(img, board.markers.dictionary, detector)
    known = {m.id for m in board.markers.items}
    if not any(int(i) in known for i in det.ids):
        mirrored = _mirrored_markers(img, board, detector)
        if mirrored:
            raise RegistrationError(
                f"the image is mirrored: markers {_ids_text(mirrored)} read only when it is flipped left-right; "
                "turn off the camera's mirror/flip setting")
    h, w = img.shape[:2]
    return register_detections(det, board, (w, h), registration, intrinsics)


# --------------------------------------------------------------------------------------------
# 3. drift


@dataclass(frozen=True)
class DriftReport:
    """A new registration compared with the current one. ``corner_mm`` (4,): how far each mat
    corner (as the new registration sees it) lies from where the current one puts it, in mm;
    ``max_mm`` their maximum, ``max_px`` the same in image px; ``sigma_mm`` the combined 1-σ of the
    two registrations at the corners (max); ``moved`` when ``max_mm`` exceeds ``threshold_mm``."""

    moved: bool
    max_mm: float
    corner_mm: np.ndarray
    max_px: float
    threshold_mm: float
    sigma_mm: float

    @property
    def message(self) -> str:
        if self.moved:
            return (f"mat moved (or the camera did): a corner is {self.max_mm:.1f} mm from where it was "
                    f"({self.max_px:.1f} px; threshold {self.threshold_mm:g} mm): register again")
        return f"mat in place: largest corner displacement {self.max_mm:.2f} mm (threshold {self.threshold_mm:g} mm)"


def check_drift(current: MatTransform, new: MatTransform, board: Board, cfg: DriftConfig) -> DriftReport:
    """Compare ``new`` with ``current`` at the mat's corners: a mat point where the new registration
    puts a corner, read back through the current one, lands ``d`` mm from that corner."""
    if tuple(current.image_size) != tuple(new.image_size):
        raise RegistrationError(
            f"the two registrations are of different image sizes ({current.image_size[0]}x{current.image_size[1]} "
            f"vs {new.image_size[0]}x{new.image_size[1]}): the camera's resolution changed; register again")
    corners = board.corners_mm()
    px_new = new.mat_to_image(corners)
    seen = current.image_to_mat(px_new)
    d_mm = np.linalg.norm(seen - corners, axis=1)
    d_px = np.linalg.norm(current.mat_to_image(corners) - px_new, axis=1)
    sig = np.sqrt(current.sigma_mm(corners) ** 2 + new.sigma_mm(corners) ** 2)
    max_mm = float(d_mm.max())
    return DriftReport(moved=max_mm > cfg.moved_mm, max_mm=max_mm, corner_mm=d_mm, max_px=float(d_px.max()),
                       threshold_mm=float(cfg.moved_mm), sigma_mm=float(sig.max()))


def sigma_summary(transform: MatTransform, board: Board, step_mm: float = 20.0) -> tuple[float, float]:
    """(median, max) of ``transform.sigma_mm`` over a grid on the mat, in mm."""
    xs = np.arange(0.0, board.length_mm + 1e-9, step_mm)
    ys = np.arange(0.0, board.width_mm + 1e-9, step_mm)
    gx, gy = np.meshgrid(xs, ys)
    s = transform.sigma_mm(np.column_stack([gx.ravel(), gy.ravel()]))
    return float(np.median(s)), float(np.max(s))


def load_registration(path) -> MatTransform:
    """A :class:`MatTransform` saved by ``tableref calibrate mat --out`` (YAML or JSON).
    Raises :class:`RegistrationError` naming the file when it is missing or not a registration."""
    from pathlib import Path

    import yaml

    p = Path(path)
    if not p.is_file():
        raise RegistrationError(f"{p}: no such registration file; make one with `tableref calibrate mat IMAGE --out {p}`")
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise RegistrationError(f"{p}: not valid YAML or JSON ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(data, dict):
        raise RegistrationError(f"{p}: not a saved mat registration")
    return MatTransform.from_dict(data)
