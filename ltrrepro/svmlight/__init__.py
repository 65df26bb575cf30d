"""Fast, strict reader and writer for SVMlight / LETOR ranking files, with a binary cache.

Format, one document per line::

    <label> qid:<query id> <index>:<value> <index>:<value> ... [# comment]

Indices are 1-based (feature ``i`` is column ``i - 1``); absent features are 0 (the
Yahoo! convention) or, with ``missing="nan"``, NaN. LETOR 4.0 comments of the form
``#docid = GX008-86-4444840 inc = 1 ...`` keep the document id. Plain, ``.gz`` and
``.bz2`` files are read in chunks by a numba kernel, in two passes (count rows,
then validate and fill a preallocated array), so peak memory is the final arrays plus one chunk.

Each chunk is cut into line-aligned parts parsed in parallel. Regular lines (single spaces,
rising indices, plain decimals) take a fast path: no end-of-line search, the newline as
sentinel, digit runs read eight bytes at a time (SWAR); every other line, and every error,
goes through the strict line parser, so results and messages do not depend on the path.

Nothing is silently dropped or reordered: a blank or comment-only line is the only line
that is skipped, and every malformed line raises :class:`SVMLightFormatError` naming the
file, the line number, the offending text and what to do.

The package, from the bottom up: :mod:`.bits` (eight digits at a time, LLVM bit intrinsics),
:mod:`.strict` (the strict line grammar, its named error codes ``E_*`` and messages),
:mod:`.fast` (the fast line grammar), :mod:`.parallel` (line counting and cutting, the
parallel drivers), :mod:`.source` (chunks of plain/gz/bz2 files, line text, file signatures),
:mod:`.reader` (the two passes, the cache, the bounds) and :mod:`.writer`.
"""
from .reader import MAX_DOCID_BYTES, MAX_INFERRED_FEATURES, read_svmlight, scan_svmlight, source_signature
from .strict import MAX_LABEL, SVMLightFormatError
from .source import _file_signature as file_signature
from .writer import write_svmlight

__all__ = ["read_svmlight", "source_signature", "write_svmlight", "scan_svmlight", "SVMLightFormatError", "MAX_LABEL",
           "MAX_INFERRED_FEATURES", "MAX_DOCID_BYTES", "file_signature"]
