"""Typed errors of calibration and registration. Each is a ``ValueError`` (a user can cause it and
fix it), so the CLI prints its message as one line and exits 2; each message says what to do."""

from __future__ import annotations


class CalibrationError(ValueError):
    """Base class: calibration or registration cannot be done with this input."""


class ConfigError(CalibrationError):
    """The calibration configuration file is missing, unreadable or has a bad key."""


class ImageError(CalibrationError):
    """An image cannot be read, is empty, or holds nothing usable."""


class CameraError(CalibrationError):
    """A live camera cannot be opened or stops delivering frames."""


class MarkersNotFoundError(CalibrationError):
    """No markers of the board, or too few of them, were found in the image."""


class UnknownMarkersError(MarkersNotFoundError):
    """Markers were found, but none of them belongs to the board (another mat, or wrong ids)."""


class RegistrationError(CalibrationError):
    """The markers or outline were found but give no usable mat transform (degenerate, mirrored,
    inconsistent with the board file)."""


class OutlineNotFoundError(RegistrationError):
    """The mat's outline could not be found against the table."""


class IntrinsicsError(CalibrationError):
    """Camera intrinsics cannot be estimated (too few usable views) or a camera file is invalid."""
