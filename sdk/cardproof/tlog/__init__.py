"""Transparency logs: the Merkle tree, tiles and signed notes of C2SP, checked offline.

:mod:`.tree` hashes and proves (RFC 6962 and 9162), :mod:`.tiles` names and cuts the
tiles a log serves (C2SP tlog-tiles) and :mod:`.fold` adds entries to them, :mod:`.note`
signs and verifies notes, checkpoints and cosignatures (C2SP signed-note,
tlog-checkpoint, tlog-cosignature), :mod:`.entries` spells cardproof's entries, and
:mod:`.inclusion` checks that the log holds a receipt.
"""
