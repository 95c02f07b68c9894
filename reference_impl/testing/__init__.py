"""Test helpers: builders of manifests and model objects (``reference_impl.testing.wrappers``)."""
