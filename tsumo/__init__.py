"""Tsumo: the command line that fronts the scoring engine, the photo reader, the API and the audit."""
