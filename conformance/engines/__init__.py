"""Engines: what runs cases against subjects and judges them (properties, golden, diff, mutants).
Each resolves its options into a plan once and reports only through events (``core.events``)."""
