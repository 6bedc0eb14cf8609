"""Run counters through gyrelint.probe when it is installed; a silent no-op otherwise."""

try:
    from gyrelint import probe
except ImportError:  # gyrelint is optional for running the loop

    class _NoProbe:
        def configure(self, path):
            pass

        def sampled(self, n=1):
            pass

        def consumed(self, n=1):
            pass

        def step(self, n=1):
            pass

        def policy_version(self, version):
            pass

    probe = _NoProbe()

__all__ = ["probe"]
