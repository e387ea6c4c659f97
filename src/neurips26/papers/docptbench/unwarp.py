"""Unwarping a photographed page back to the page's own frame: quadrilateral detection + inverse homography (what a
capture app does), and the oracle that inverts the simulator's true homography."""

from __future__ import annotations

import cv2
import numpy as np

from neurips26.papers.docptbench.camera import homography


def order_corners(points: np.ndarray) -> np.ndarray:
    """Top-left, top-right, bottom-right, bottom-left (by x + y and y - x)."""
    p = np.asarray(points, dtype=np.float32).reshape(-1, 2)
    s, d = p.sum(1), p[:, 1] - p[:, 0]
    return np.float32([p[np.argmin(s)], p[np.argmin(d)], p[np.argmax(s)], p[np.argmax(d)]])


def detect_quad(frame: np.ndarray) -> np.ndarray | None:
    """The page's four corners in the frame: Otsu threshold of the blurred frame (the sheet is brighter than the
    background), the largest outer contour, its polygon approximation (4 vertices) or else its hull's extreme points.
    None when no page-sized region is found."""
    grey = cv2.GaussianBlur(frame, (0, 0), 3)
    _, mask = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    largest = max(contours, key=cv2.contourArea)
    if cv2.contourArea(largest) < 0.2 * frame.shape[0] * frame.shape[1]:
        return None
    hull = cv2.convexHull(largest)
    for eps in (0.01, 0.02, 0.04):
        approx = cv2.approxPolyDP(hull, eps * cv2.arcLength(hull, True), True)
        if len(approx) == 4:
            return order_corners(approx)
    return order_corners(hull)


def warp_to_page(frame: np.ndarray, corners: np.ndarray, page_shape: tuple[int, int]) -> np.ndarray:
    h, w = page_shape
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    H = cv2.getPerspectiveTransform(np.float32(corners), dst)
    return cv2.warpPerspective(frame, H, (w, h), flags=cv2.INTER_LINEAR, borderValue=255)


def unwarp(frame: np.ndarray, page_shape: tuple[int, int]) -> tuple[np.ndarray, bool]:
    """Detected-quad unwarp; (frame resized to the page, False) when no quadrilateral is found."""
    corners = detect_quad(frame)
    if corners is None:
        return cv2.resize(frame, (page_shape[1], page_shape[0]), interpolation=cv2.INTER_AREA), False
    return warp_to_page(frame, corners, page_shape), True


def oracle_unwarp(frame: np.ndarray, params: dict) -> np.ndarray:
    """Inverse of the simulator's true homography (curl, light, blur and noise stay: the oracle knows only geometry)."""
    if params["severity"] == 0:
        return frame.copy()
    H = homography(params)
    return cv2.warpPerspective(frame, np.linalg.inv(H), (params["page_w"], params["page_h"]),
                               flags=cv2.INTER_LINEAR, borderValue=255)


def corner_error(frame: np.ndarray, params: dict) -> float:
    """Mean distance (pixels) between detected and true corners; NaN when detection fails."""
    corners = detect_quad(frame)
    if corners is None:
        return float("nan")
    return float(np.linalg.norm(corners - np.float32(params["corners"]), axis=1).mean())
