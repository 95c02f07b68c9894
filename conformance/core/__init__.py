"""The harness's core vocabulary: the scenario document, the subject protocol, result documents,
events, errors and exit codes. Imports only ``reference_impl``; everything above imports it."""
