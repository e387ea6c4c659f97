"""The camera simulator: a rendered page (grey uint8) -> a photograph of it, with a severity knob. Every parameter drawn
is returned, so each image's capture can be replayed. Order of the pipeline (page coordinates first, then the frame):
page curl (remap) -> fold shading -> homography into the frame over a textured background -> uneven light and a
soft shadow -> defocus blur -> sensor noise -> JPEG. Severity 0 is the identity (the original condition)."""

from __future__ import annotations

import cv2
import numpy as np

# Ranges at severity 1; each grows linearly with severity (s = 1, 2, 3), chosen so that s = 3 is a hard but legible
# handheld photograph (see the README). Fixed before any OCR run.
BASE = {
    "corner_jitter": 0.025,   # each page corner moves up to this fraction of the frame side (perspective + rotation)
    "rotation_deg": 1.5,      # in-plane rotation of the page in the frame
    "curl": 0.004,            # page curl: peak vertical displacement / page height (a half sine across the page)
    "fold_shading": 0.08,     # darkening at a vertical fold line (multiplicative depth)
    "light_gradient": 0.12,   # uneven light: linear falloff across the frame (fraction of full brightness)
    "shadow": 0.10,           # a soft shadow polygon over one corner: multiplicative depth
    "blur_sigma": 0.3,       # Gaussian defocus, pixels
    "noise_sigma": 2.5,       # Gaussian sensor noise, grey levels
    "jpeg_drop": 10,          # JPEG quality = 95 - jpeg_drop * s
}


def profile(scale: dict | None = None) -> dict:
    """BASE with each range multiplied by scale[key] (missing keys: 1): a capture profile, e.g. the geometric one
    (full perspective, faint light, blur and noise). Unknown keys are an error."""
    scale = dict(scale or {})
    unknown = sorted(set(scale) - set(BASE))
    if unknown:
        raise ValueError(f"unknown camera parameter(s) {unknown}; known: {sorted(BASE)}")
    return {key: value * float(scale.get(key, 1.0)) for key, value in BASE.items()}


def draw_params(severity: int, page_shape: tuple[int, int], rng: np.random.Generator, frame_scale: float,
                scale: dict | None = None) -> dict:
    """One capture's parameters at `severity` (0 = none). page_shape = (H, W) of the rendered page; `scale`
    multiplies the BASE ranges (see profile)."""
    base = profile(scale)
    h, w = page_shape
    fh, fw = int(round(h * frame_scale)), int(round(w * frame_scale))
    s = float(severity)
    u = lambda lo, hi: float(rng.uniform(lo, hi))  # noqa: E731
    # The page fills ~82% of the frame at severity 0 geometry; corners jitter inward/outward, plus a rotation.
    fill = 0.82 - 0.03 * s
    cx, cy, half_w, half_h = fw / 2, fh / 2, fill * fw / 2 * (w / max(w, h * fw / fh)), fill * fh / 2
    half_w = min(half_w, fill * fw / 2)
    corners = np.array([[-half_w, -half_h], [half_w, -half_h], [half_w, half_h], [-half_w, half_h]])
    angle = np.deg2rad(u(-1, 1) * base["rotation_deg"] * s)
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    corners = corners @ rot.T + [cx, cy]
    jitter = rng.uniform(-1, 1, size=(4, 2)) * base["corner_jitter"] * s * np.array([fw, fh])
    corners = corners + jitter
    return {
        "severity": int(severity), "page_h": h, "page_w": w, "frame_h": fh, "frame_w": fw,
        "corners": corners.round(3).tolist(),
        "curl": u(0.5, 1.0) * base["curl"] * s, "curl_phase": u(0.0, 1.0),
        "fold_x": u(0.3, 0.7), "fold_shading": u(0.5, 1.0) * base["fold_shading"] * s, "fold_width": u(0.02, 0.06),
        "light_gradient": u(0.5, 1.0) * base["light_gradient"] * s, "light_angle": u(0, 2 * np.pi),
        "shadow": u(0.5, 1.0) * base["shadow"] * s, "shadow_corner": int(rng.integers(4)), "shadow_extent": u(0.2, 0.45),
        "blur_sigma": u(0.7, 1.0) * base["blur_sigma"] * s, "noise_sigma": u(0.7, 1.0) * base["noise_sigma"] * s,
        "jpeg_quality": int(95 - base["jpeg_drop"] * s), "background": u(0.25, 0.45), "noise_seed": int(rng.integers(2**31)),
    }


def homography(params: dict) -> np.ndarray:
    """The true page -> frame homography (3x3) of a capture."""
    h, w = params["page_h"], params["page_w"]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    return cv2.getPerspectiveTransform(src, np.float32(params["corners"]))


def curl_page(page: np.ndarray, params: dict) -> np.ndarray:
    """Page curl as a vertical displacement dy(x) = curl * H * sin(pi * (x / W + phase)) (bulge), by cv2.remap."""
    h, w = page.shape
    if params["curl"] <= 0:
        return page
    xs = np.arange(w, dtype=np.float32)
    dy = params["curl"] * h * np.sin(np.pi * (xs / w + params["curl_phase"]))
    map_x, map_y = np.meshgrid(xs, np.arange(h, dtype=np.float32))
    return cv2.remap(page, map_x, (map_y - dy[None, :]).astype(np.float32), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=255)


def fold_shading(page: np.ndarray, params: dict) -> np.ndarray:
    h, w = page.shape
    x = np.arange(w) / w
    shade = 1.0 - params["fold_shading"] * np.exp(-((x - params["fold_x"]) ** 2) / (2 * params["fold_width"] ** 2))
    return page.astype(np.float32) * shade[None, :]


def _background(params: dict, rng: np.random.Generator) -> np.ndarray:
    fh, fw = params["frame_h"], params["frame_w"]
    texture = cv2.GaussianBlur(rng.normal(0, 1, (fh, fw)).astype(np.float32), (0, 0), 6)
    texture = texture / (texture.std() + 1e-6)
    return 255.0 * np.clip(params["background"] + 0.04 * texture, 0, 1)


def _lighting(params: dict) -> np.ndarray:
    fh, fw = params["frame_h"], params["frame_w"]
    yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
    t = ((xx / fw - 0.5) * np.cos(params["light_angle"]) + (yy / fh - 0.5) * np.sin(params["light_angle"]))
    light = 1.0 - params["light_gradient"] * (t + 0.5)
    corner = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]][params["shadow_corner"]], dtype=np.float32)
    extent = params["shadow_extent"] * np.hypot(fw, fh)
    dist = np.hypot(xx - corner[0], yy - corner[1])
    mask = 1.0 / (1.0 + np.exp((dist - extent) / (0.03 * extent)))  # soft-edged disc around the corner
    return light * (1.0 - params["shadow"] * mask)


def photograph(page: np.ndarray, params: dict) -> np.ndarray:
    """Simulate the capture described by `params` (from draw_params) of a grey uint8 page; returns the uint8 frame."""
    if params["severity"] == 0:
        return page.copy()
    rng = np.random.default_rng(params["noise_seed"])
    sheet = fold_shading(curl_page(page, params), params)
    fh, fw = params["frame_h"], params["frame_w"]
    H = homography(params)
    warped = cv2.warpPerspective(sheet, H, (fw, fh), flags=cv2.INTER_AREA, borderValue=0)
    inside = cv2.warpPerspective(np.ones_like(sheet), H, (fw, fh), flags=cv2.INTER_LINEAR, borderValue=0)
    frame = inside * warped + (1 - inside) * _background(params, rng)
    frame = frame * _lighting(params)
    if params["blur_sigma"] > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), params["blur_sigma"])
    frame = frame + rng.normal(0, params["noise_sigma"], frame.shape)
    frame = np.clip(frame, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, params["jpeg_quality"]])
    return cv2.imdecode(encoded, cv2.IMREAD_GRAYSCALE)
