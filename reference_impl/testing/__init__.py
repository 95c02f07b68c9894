"""Test helpers shared by the test suite (builders of model objects)."""
