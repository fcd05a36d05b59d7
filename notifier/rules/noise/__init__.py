"""Noise control between matching and delivery: dedup windows and group digests."""

from notifier.rules.noise.control import Admission, NoiseControl
from notifier.rules.noise.grouping import GroupLabels, Release
from notifier.rules.noise.policy import NoisePolicy

__all__ = ["Admission", "GroupLabels", "NoiseControl", "NoisePolicy", "Release"]
