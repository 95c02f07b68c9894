"""Subjects under test: the reference, an external command, the real upstream scheduler, and
``factory.make_subject`` for a ``--subject`` spec (the protocol is ``conformance.core.subject``)."""
