"""Solvers: exact or bounded answers about deals (GAMES.md section 9)."""
