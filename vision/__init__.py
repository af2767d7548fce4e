"""What is on the board? Detection, refinement to base centres in mat mm, attributes, tracking.

The central type is :class:`vision.core.Observation`. Heavy libraries (torch, ultralytics) are
imported inside the functions that need them.
"""

from vision.core import Observation

__all__ = ["Observation"]
