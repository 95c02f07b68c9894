"""Reporters: they consume a run's events and render them (console, JUnit XML, JSON report)."""
