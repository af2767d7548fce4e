"""``MatTransform``: image px ⇄ mat mm, for the mat plane and for planes at a height above it.

Frames:
- **image px**: OpenCV convention, x right, y down, origin at the centre of the top-left pixel; these
  are the *real* (distorted) pixel coordinates of the camera image.
- **mat mm**: the board frame, origin at the board's top-left corner, x along its length, y along
  its width. In 3-D the mat frame is right-handed with z pointing *into* the table, so a point at
  height ``h`` mm above the mat has z = -h.

A transform always has a homography for the mat plane. When it also knows the camera (intrinsics
``K`` and pose ``rvec``/``tvec`` of the mat frame in the camera frame) it maps planes at any height:
the top face of a 9 mm disc is found with ``height_mm=9``. The pose comes from a calibrated camera,
or, without calibration, from the homography with a focal length estimated from it.

Uncertainty: ``sigma_mm(points)`` is the 1-σ error (mm, per axis, RMS over x and y) of a mat
position computed through this transform, propagated from the covariance of the registration's
homography parameters (estimated from its reprojection residuals).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


class TransformError(ValueError):
    """The transform cannot be built or used (degenerate, mirrored, missing pose)."""


def _as_points(points, name: str = "points") -> np.ndarray:
    arr = np.asarray(points, dtype=np.float64)
    if arr.size == 0:
        return arr.reshape(0, 2)
    if arr.ndim == 1 and arr.shape[0] == 2:
        arr = arr.reshape(1, 2)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise TransformError(f"{name} must be an (n, 2) array, but got shape {arr.shape}")
    return arr


def apply_homography(H: np.ndarray, points) -> np.ndarray:
    """(n, 2) → (n, 2) through a 3x3 homography; empty in, empty out."""
    pts = _as_points(points)
    if len(pts) == 0:
        return pts
    hom = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(H, dtype=np.float64).T
    return hom[:, :2] / hom[:, 2:3]


def homography_is_sane(H: np.ndarray, mat_corners_mm: np.ndarray) -> str | None:
    """None if ``H`` (mat mm → image px) maps the mat to a convex, non-mirrored quadrilateral in
    front of the camera; else the reason, for an error message."""
    if not np.all(np.isfinite(H)) or abs(np.linalg.det(H)) < 1e-12:
        return "the homography is degenerate (the markers found are collinear or too close together)"
    hom = np.hstack([mat_corners_mm, np.ones((4, 1))]) @ H.T
    w = hom[:, 2]
    if np.any(w <= 0) and np.any(w >= 0):
        return "the homography puts part of the mat behind the camera"
    quad = hom[:, :2] / w[:, None]
    cross = []
    for i in range(4):
        a, b, c = quad[i], quad[(i + 1) % 4], quad[(i + 2) % 4]
        cross.append((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]))
    cross = np.array(cross)
    if np.any(cross == 0) or not (np.all(cross > 0) or np.all(cross < 0)):
        return "the homography folds the mat (a non-convex image of its outline)"
    if np.all(cross < 0):
        return "the homography mirrors the mat (is the image flipped, or are marker ids swapped?)"
    return None


def focal_from_homography(H: np.ndarray, image_size: tuple[int, int]) -> float:
    """Focal length in px from a plane homography, assuming square pixels and the principal point at
    the image centre (Zhang's orthogonality constraint). Falls back to the image width for a
    fronto-parallel view, where the focal length is not observable (and does not matter)."""
    w, h = image_size
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    T = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1.0]])
    Hc = T @ H
    h1, h2 = Hc[:, 0], Hc[:, 1]
    # r1 . r2 = 0 with K = diag(f, f, 1):  (h11 h12 + h21 h22) / f^2 + h31 h32 = 0
    #  |r1| = |r2|:  (h11^2 + h21^2 - h12^2 - h22^2) / f^2 + (h31^2 - h32^2) = 0
    estimates = []
    num1 = h1[0] * h2[0] + h1[1] * h2[1]
    if abs(h1[2] * h2[2]) > 1e-12:
        f2 = -num1 / (h1[2] * h2[2])
        if f2 > 0:
            estimates.append(f2)
    num2 = h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2
    den2 = h2[2] ** 2 - h1[2] ** 2
    if abs(den2) > 1e-12:
        f2 = num2 / den2
        if f2 > 0:
            estimates.append(f2)
    if not estimates:
        return float(w)
    f = float(np.sqrt(np.median(estimates)))
    if not (0.2 * w < f < 20 * w):
        return float(w)
    return f


def pose_from_homography(H: np.ndarray, K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotation (3x3) and translation (3,) of the mat frame in the camera frame from a mat-plane
    homography (undistorted px) and intrinsics; the rotation is the nearest true rotation."""
    A = np.linalg.inv(K) @ H
    lam = 2.0 / (np.linalg.norm(A[:, 0]) + np.linalg.norm(A[:, 1]))
    if A[2, 2] * lam < 0:  # the mat must be in front of the camera
        lam = -lam
    r1, r2, t = A[:, 0] * lam, A[:, 1] * lam, A[:, 2] * lam
    R = np.column_stack([r1, r2, np.cross(r1, r2)])
    U, _, Vt = np.linalg.svd(R)
    R = U @ Vt
    if np.linalg.det(R) < 0:
        R = U @ np.diag([1, 1, -1]) @ Vt
    return R, t


@dataclass
class MatTransform:
    """image px ⇄ mat mm. ``H`` maps mat mm (plane z=0) to *undistorted* image px.

    ``K`` (3x3) and ``dist`` (OpenCV distortion coefficients) describe the camera; ``R`` (3x3) and
    ``t`` (3,) the mat frame in the camera frame (x_cam = R x_mat + t). ``residual_px`` is the RMS
    reprojection residual of the registration, ``cov_h`` the (8, 8) covariance of H's parameters
    (H normalised so H[2, 2] = 1), ``n_points`` the correspondences used.
    """

    H: np.ndarray
    image_size: tuple[int, int]
    K: np.ndarray | None = None
    dist: np.ndarray | None = None
    R: np.ndarray | None = None
    t: np.ndarray | None = None
    residual_px: float = 0.0
    cov_h: np.ndarray | None = None
    n_points: int = 0
    method: str = ""
    board: str = ""
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        self.H = np.asarray(self.H, dtype=np.float64).reshape(3, 3)
        self.H = self.H / self.H[2, 2]
        self.image_size = (int(self.image_size[0]), int(self.image_size[1]))
        if self.K is None:
            f = focal_from_homography(self.H, self.image_size)
            w, h = self.image_size
            self.K = np.array([[f, 0, (w - 1) / 2.0], [0, f, (h - 1) / 2.0], [0, 0, 1.0]])
            self.extra.setdefault("focal_estimated", True)
        self.K = np.asarray(self.K, dtype=np.float64)
        self.dist = None if self.dist is None else np.asarray(self.dist, dtype=np.float64).ravel()
        if self.R is None or self.t is None:
            self.R, self.t = pose_from_homography(self.H, self.K)
        self.R = np.asarray(self.R, dtype=np.float64).reshape(3, 3)
        self.t = np.asarray(self.t, dtype=np.float64).reshape(3)
        self._Hinv = np.linalg.inv(self.H)

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def from_pose(cls, K, dist, rvec_or_R, tvec, image_size, **kw) -> "MatTransform":
        """From intrinsics and the mat's pose in the camera frame (rvec or 3x3 R, tvec in mm)."""
        import cv2

        R = np.asarray(rvec_or_R, dtype=np.float64)
        if R.size == 3:
            R, _ = cv2.Rodrigues(R.reshape(3, 1))
        t = np.asarray(tvec, dtype=np.float64).reshape(3)
        K = np.asarray(K, dtype=np.float64)
        H = K @ np.column_stack([R[:, 0], R[:, 1], t])
        return cls(H=H, image_size=image_size, K=K, dist=dist, R=R, t=t, **kw)

    # -- planes ----------------------------------------------------------------------------------
    def homography(self, height_mm: float = 0.0) -> np.ndarray:
        """3x3: mat mm on the plane ``height_mm`` above the mat → undistorted image px."""
        if height_mm == 0.0:
            return self.H
        # a point (x, y) at height h is (x, y, -h) in the mat frame
        Hh = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t - height_mm * self.R[:, 2]])
        return Hh / Hh[2, 2]

    def camera_centre_mm(self) -> np.ndarray:
        """(3,) the camera centre in the mat frame (its z is minus the height above the mat)."""
        return -self.R.T @ self.t

    # -- mapping ---------------------------------------------------------------------------------
    def _distort(self, und_px: np.ndarray) -> np.ndarray:
        if self.dist is None or not np.any(self.dist) or len(und_px) == 0:
            return und_px
        import cv2

        Kinv = np.linalg.inv(self.K)
        norm = np.hstack([und_px, np.ones((len(und_px), 1))]) @ Kinv.T
        obj = np.hstack([norm[:, :2], np.ones((len(und_px), 1))])
        out, _ = cv2.projectPoints(obj.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), self.K, self.dist)
        return out.reshape(-1, 2)

    def _undistort(self, px: np.ndarray) -> np.ndarray:
        if self.dist is None or not np.any(self.dist) or len(px) == 0:
            return px
        import cv2

        out = cv2.undistortPoints(px.reshape(-1, 1, 2), self.K, self.dist, R=None, P=self.K,
                                  criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10))
        return out.reshape(-1, 2)

    def mat_to_image(self, points_mm, height_mm: float = 0.0) -> np.ndarray:
        """(n, 2) mat mm on the plane at ``height_mm`` → (n, 2) image px (distorted, as seen)."""
        pts = _as_points(points_mm, "points_mm")
        return self._distort(apply_homography(self.homography(height_mm), pts))

    def image_to_mat(self, points_px, height_mm: float = 0.0) -> np.ndarray:
        """(n, 2) image px → (n, 2) mat mm, intersecting each ray with the plane at ``height_mm``."""
        pts = _as_points(points_px, "points_px")
        Hh = self.homography(height_mm)
        return apply_homography(np.linalg.inv(Hh) if height_mm else self._Hinv, self._undistort(pts))

    def project_3d(self, points_mm3) -> np.ndarray:
        """(n, 3) mat-frame points (z = -height) → (n, 2) image px."""
        pts = np.asarray(points_mm3, dtype=np.float64).reshape(-1, 3)
        if len(pts) == 0:
            return pts[:, :2]
        cam = pts @ self.R.T + self.t
        if self.dist is not None and np.any(self.dist):
            import cv2

            # the lens straight from the camera frame (not through image px and back, as _distort does)
            out, _ = cv2.projectPoints(cam.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), self.K, self.dist)
            return out.reshape(-1, 2)
        und = cam @ self.K.T
        return und[:, :2] / und[:, 2:3]

    def mm_per_px(self, points_mm, height_mm: float = 0.0) -> np.ndarray:
        """(n,) local scale: mm on the plane per image px (geometric mean of the two axes)."""
        pts = _as_points(points_mm, "points_mm")
        if len(pts) == 0:
            return np.zeros(0)
        J = self._jacobian_mm_to_px(pts, self.homography(height_mm))
        dets = np.abs(np.linalg.det(J))
        return 1.0 / np.sqrt(np.maximum(dets, 1e-18))

    @staticmethod
    def _jacobian_mm_to_px(pts: np.ndarray, H: np.ndarray) -> np.ndarray:
        """(n, 2, 2) d(px)/d(mm) of the homography at each point."""
        x, y = pts[:, 0], pts[:, 1]
        u = H[0, 0] * x + H[0, 1] * y + H[0, 2]
        v = H[1, 0] * x + H[1, 1] * y + H[1, 2]
        w = H[2, 0] * x + H[2, 1] * y + H[2, 2]
        J = np.empty((len(pts), 2, 2))
        J[:, 0, 0] = (H[0, 0] * w - u * H[2, 0]) / w**2
        J[:, 0, 1] = (H[0, 1] * w - u * H[2, 1]) / w**2
        J[:, 1, 0] = (H[1, 0] * w - v * H[2, 0]) / w**2
        J[:, 1, 1] = (H[1, 1] * w - v * H[2, 1]) / w**2
        return J

    # -- uncertainty -----------------------------------------------------------------------------
    def sigma_mm(self, points_mm) -> np.ndarray:
        """(n,) 1-σ error in mm (per axis, RMS of x and y) of the registration at each mat point.

        Propagates ``cov_h`` through the image position of the point and back to mm with the local
        inverse Jacobian. Without a covariance (a synthetic or hand-made transform) the residual
        alone is used: ``residual_px * mm_per_px``."""
        pts = _as_points(points_mm, "points_mm")
        if len(pts) == 0:
            return np.zeros(0)
        Jinv = np.linalg.inv(self._jacobian_mm_to_px(pts, self.H))  # (n, 2, 2) d(mm)/d(px)
        if self.cov_h is None:
            return self.residual_px * self.mm_per_px(pts)
        Jh = homography_param_jacobian(self.H, pts)  # (n, 2, 8) d(px)/d(h)
        cov_px = Jh @ self.cov_h @ np.transpose(Jh, (0, 2, 1))  # (n, 2, 2)
        cov_mm = Jinv @ cov_px @ np.transpose(Jinv, (0, 2, 1))
        return np.sqrt(np.maximum(np.trace(cov_mm, axis1=1, axis2=2) / 2.0, 0.0))

    # -- persistence -----------------------------------------------------------------------------
    def to_dict(self) -> dict:
        def lst(a):
            return None if a is None else np.asarray(a).tolist()

        return {"H": lst(self.H), "image_size": list(self.image_size), "K": lst(self.K), "dist": lst(self.dist),
                "R": lst(self.R), "t": lst(self.t), "residual_px": float(self.residual_px),
                "cov_h": lst(self.cov_h), "n_points": int(self.n_points), "method": self.method,
                "board": self.board, "extra": dict(self.extra)}

    @classmethod
    def from_dict(cls, data: dict) -> "MatTransform":
        try:
            return cls(H=np.array(data["H"]), image_size=tuple(data["image_size"]),
                       K=None if data.get("K") is None else np.array(data["K"]),
                       dist=None if data.get("dist") is None else np.array(data["dist"]),
                       R=None if data.get("R") is None else np.array(data["R"]),
                       t=None if data.get("t") is None else np.array(data["t"]),
                       residual_px=float(data.get("residual_px", 0.0)),
                       cov_h=None if data.get("cov_h") is None else np.array(data["cov_h"]),
                       n_points=int(data.get("n_points", 0)), method=str(data.get("method", "")),
                       board=str(data.get("board", "")), extra=dict(data.get("extra", {})))
        except (KeyError, TypeError, ValueError) as exc:
            raise TransformError(f"not a saved mat registration ({exc})") from None


def homography_param_jacobian(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """(n, 2, 8): derivative of the projected image point with respect to the 8 free parameters
    of H (row-major h11..h32, with h33 = 1), at each mat point."""
    x, y = pts[:, 0], pts[:, 1]
    u = H[0, 0] * x + H[0, 1] * y + H[0, 2]
    v = H[1, 0] * x + H[1, 1] * y + H[1, 2]
    w = H[2, 0] * x + H[2, 1] * y + H[2, 2]
    n = len(pts)
    J = np.zeros((n, 2, 8))
    J[:, 0, 0], J[:, 0, 1], J[:, 0, 2] = x / w, y / w, 1 / w
    J[:, 1, 3], J[:, 1, 4], J[:, 1, 5] = x / w, y / w, 1 / w
    J[:, 0, 6], J[:, 0, 7] = -u * x / w**2, -u * y / w**2
    J[:, 1, 6], J[:, 1, 7] = -v * x / w**2, -v * y / w**2
    return J


def homography_covariance(H: np.ndarray, mat_pts: np.ndarray, sigma_px: float,
                          weights: np.ndarray | None = None) -> np.ndarray:
    """(8, 8) covariance of H's parameters given the correspondences' mat points and an isotropic
    image noise ``sigma_px`` (Gauss-Newton: σ² (JᵀJ)⁻¹). With per-point ``weights`` (n,) (1/σᵢ²
    relative to ``sigma_px``) it is σ² (JᵀWJ)⁻¹: the covariance of a weighted fit."""
    H = np.asarray(H, dtype=np.float64)
    H = H / H[2, 2]  # the parameterisation has h33 = 1
    J = homography_param_jacobian(H, np.asarray(mat_pts, dtype=np.float64))  # (n, 2, 8)
    if weights is None:
        Jf = J.reshape(-1, 8)
        JtJ = Jf.T @ Jf
    else:
        JtJ = np.einsum("nai,n,naj->ij", J, np.asarray(weights, dtype=np.float64), J)
    return (sigma_px ** 2) * np.linalg.pinv(JtJ)
