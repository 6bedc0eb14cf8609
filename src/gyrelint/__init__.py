"""gyrelint: find the sampling and training chains of an online RL code base."""

__version__ = "0.1.0"
