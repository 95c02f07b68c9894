"""The one place that names the upstream kube-scheduler release the reference follows.

Everything release-specific (default profile, weights, plugin args defaults, feature gates) is
data in the module of that release (``reference_impl/releases/v1_37_2.py``); the Go upstream
subject reads this file too.
"""

UPSTREAM_RELEASE = "v1.37.2"
