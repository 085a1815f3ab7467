"""The compiled part of the JSON Lines reader (lextrace/json_compiled.py): a line's tokens
read byte by byte into columns. Imported only where numba is installed (the `compiled` extra);
compiled once and kept in numba's cache.
"""

import numba
import numpy as np

_NULL = np.frombuffer(b"null", dtype=np.uint8)
_TRUE = np.frombuffer(b"true", dtype=np.uint8)
_FALSE = np.frombuffer(b"false", dtype=np.uint8)


@numba.njit(nogil=True, cache=True)
def _spelled(data, at, end, word):
    """True when data[at:end] starts with `word`."""
    if at + word.shape[0] > end:
        return False
    for k in range(word.shape[0]):  # noqa: SIM110 - numba compiles loops, not generators
        if data[at + k] != word[k]:
            return False
    return True


@numba.njit(nogil=True, cache=True)
def _space(data, at, end):
    while at < end and (data[at] == 32 or data[at] == 9 or data[at] == 13):
        at += 1
    return at


@numba.njit(nogil=True, cache=True)
def _field(data, start, end, table, names, name_starts):
    """The declared field named by data[start:end], or -1: its FNV-1a hash (as
    json_compiled._hashed computes it) finds its slot in `table`, its bytes confirm it."""
    hashed = np.uint64(14695981039346656037)
    for at in range(start, end):
        hashed = (hashed ^ np.uint64(data[at])) * np.uint64(1099511628211)
    mask = np.int64(table.shape[0] - 1)
    slot = np.int64(hashed & np.uint64(mask))
    while table[slot] >= 0:
        field = table[slot]
        first, last = name_starts[field], name_starts[field + 1]
        if last - first == end - start:
            same = True
            for k in range(end - start):
                if names[first + k] != data[start + k]:
                    same = False
                    break
            if same:
                return field
        slot = np.int64((slot + 1) & mask)
    return -1


@numba.njit(nogil=True, cache=True)
def _text_end(data, at, end):
    """Returns the index of the closing quote of a string starting after `at` and how many
    escaped slashes (`\\/`, as pandas writes every slash) it holds; (-1, 0) for a string
    holding another escape, a control character or a byte that is not ASCII (or not
    closed)."""
    escapes = 0
    while at < end:
        byte = data[at]
        if byte == 34:
            return at, escapes
        if byte == 92:
            if at + 1 < end and data[at + 1] == 47:
                escapes += 1
                at += 2
                continue
            return -1, 0
        if byte < 32 or byte > 127:
            return -1, 0
        at += 1
    return -1, 0


@numba.njit(nogil=True, cache=True)
def read_lines(data, table, names, name_starts, kinds, values, given, spans, starts, ends):
    """Reads each line of a block (ending at a newline or at the block's end) into
    values[field, line] (bools 0/1, counts, amounts scaled by 10**6, text as spans[field,
    line] = (start, end, escaped slashes)), marking given[field, line] (1: a value, 2: null),
    and where it starts and ends. Returns the index of the first line that is not of the plain
    form, or -1 when every line is."""
    follows = np.full(kinds.shape[0] + 1, -1, dtype=np.int64)
    end = data.shape[0]
    at = 0
    for line in range(starts.shape[0]):
        starts[line] = at
        at = _space(data, at, end)
        if at >= end or data[at] != 123:  # {
            return line
        at = _space(data, at + 1, end)
        previous = 0
        closed = at < end and data[at] == 125  # } : an empty object
        if closed:
            at += 1
        while not closed:
            if at >= end or data[at] != 34:
                return line
            # Lines mostly give their fields in the order of the line before: the field that
            # followed this one last time is tried first, by its name's bytes.
            field = follows[previous]
            close = -1
            if field >= 0:
                first, last = name_starts[field], name_starts[field + 1]
                close = at + 1 + last - first
                if close < end and data[close] == 34:
                    for k in range(last - first):
                        if names[first + k] != data[at + 1 + k]:
                            close = -1
                            break
                else:
                    close = -1
            if close < 0:
                close, escapes = _text_end(data, at + 1, end)
                if close < 0 or escapes:  # a name is matched by its bytes: no escape in it
                    return line
                field = _field(data, at + 1, close, table, names, name_starts)
                if field < 0:
                    return line
                follows[previous] = field
            if given[field, line]:
                return line
            previous = field + 1
            at = _space(data, close + 1, end)
            if at >= end or data[at] != 58:  # :
                return line
            at = _space(data, at + 1, end)
            if at >= end:
                return line
            kind = kinds[field]
            byte = data[at]
            if byte == 110:  # null: as if absent, but given (a repeat is still refused)
                if not _spelled(data, at, end, _NULL):
                    return line
                given[field, line] = 2
                at += 4
            elif kind == 0:
                if _spelled(data, at, end, _TRUE):
                    values[field, line] = 1
                    at += 4
                elif _spelled(data, at, end, _FALSE):
                    values[field, line] = 0
                    at += 5
                else:
                    return line
            elif kind == 3:
                if byte != 34:
                    return line
                close, escapes = _text_end(data, at + 1, end)
                if close < 0:
                    return line
                spans[field, line, 0] = at + 1
                spans[field, line, 1] = close
                spans[field, line, 2] = escapes
                at = close + 1
            else:
                quoted = kind == 2 and byte == 34
                if quoted:
                    at += 1
                negative = at < end and data[at] == 45
                if negative:
                    at += 1
                first = at
                number = 0
                while at < end and 48 <= data[at] <= 57:
                    number = number * 10 + (data[at] - 48)
                    at += 1
                digits = at - first
                if digits == 0 or (digits > 1 and data[first] == 48):
                    return line
                if kind == 1:
                    if digits > 18:
                        return line
                else:
                    if digits > 12:
                        return line
                    places = 0
                    if at < end and data[at] == 46:  # .
                        at += 1
                        while at < end and 48 <= data[at] <= 57:
                            number = number * 10 + (data[at] - 48)
                            places += 1
                            at += 1
                        if places == 0 or places > 6:
                            return line
                    for _ in range(6 - places):
                        number *= 10
                    if quoted:
                        if at >= end or data[at] != 34:
                            return line
                        at += 1
                values[field, line] = -number if negative else number
            if given[field, line] == 0:
                given[field, line] = 1
            at = _space(data, at, end)
            if at >= end:
                return line
            if data[at] == 44:  # ,
                at = _space(data, at + 1, end)
                continue
            if data[at] != 125:  # }
                return line
            at += 1
            closed = True
        at = _space(data, at, end)
        if at < end and data[at] != 10:  # \n
            return line
        ends[line] = at
        at += 1
    return -1


@numba.njit(nogil=True, cache=True)
def gather(data, spans, given, offsets, out):
    """Copies each given text span after the one before (offsets[i]..offsets[i + 1]), an
    escaped slash as the slash."""
    at = 0
    for line in range(spans.shape[0]):
        offsets[line] = at
        if given[line] == 1:
            k = spans[line, 0]
            while k < spans[line, 1]:
                if data[k] == 92:  # the backslash of an escaped slash: `_text_end` allows no other
                    k += 1
                out[at] = data[k]
                at += 1
                k += 1
    offsets[spans.shape[0]] = at


@numba.njit(nogil=True, cache=True)
def line_count(data):
    """The number of lines of a block: its newlines, and one more when it does not end with
    one."""
    count = 0
    for at in range(data.shape[0]):
        if data[at] == 10:
            count += 1
    if data.shape[0] and data[data.shape[0] - 1] != 10:
        count += 1
    return count
