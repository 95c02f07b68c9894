"""Subjects under test: anything that schedules a scenario and returns a SimulationResult."""

from conformance.subjects.base import Subject, SubjectError, SubjectResult

__all__ = ["Subject", "SubjectError", "SubjectResult"]
