"""Subjects under test: anything that schedules a scenario and returns a SimulationResult."""

from conformance.core.subject import Subject, SubjectError, SubjectResult

__all__ = ["Subject", "SubjectError", "SubjectResult"]
