"""Dynamic Resource Allocation: the CEL environment of device selectors (``cel``) and the
structured allocator (``allocator``), restated from k8s.io/dynamic-resource-allocation
v0.37.2. Not on the scheduling path yet: see docs/dra.md."""
