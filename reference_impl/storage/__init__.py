"""Storage around the scheduler: the PV matching helpers and the simulated PV controller."""
