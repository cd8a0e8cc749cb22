"""Solvers: exact or bounded answers about deals (docs/rules.md section 10)."""
