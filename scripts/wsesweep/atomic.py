"""Atomic file writes: readers (a resumed sweep, a plot, another array task)
must see either the old file or the complete new one, never a torn write."""
import os
import tempfile


def write_text_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            # Results on a cluster's shared disk should survive a node crash.
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise
