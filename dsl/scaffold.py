"""A first encoding of an official text: its whole text, split by the subdivisions it shows.

`scaffold` reads a statute's official text and returns an encoding (`lextrace init`) that
carries every word of it, the section heading first, then one clause per label it recognises,
each clause marked `text_only "not yet encoded"`. `lextrace check` passes on it as written, and
the coverage counts every clause as not yet encoded.

Labels are recognised where the text lays them out as subdivisions:

- at the start of a line, one or several in a row (`c. (1) The amount ...`): a letter and a
  period (`a.`, `A.`, `aa.`) or a parenthesised label (`(1)`, `(a)`, `(A)`, `(i)`, `(I)`,
  `(aa)`, `(1A)`);
- inside a line, a parenthesised label after `:`, `;`, `; and`, `; or`, a dash or the end of a
  sentence (`... as follows: (1) if one ...; and (2) if two ...`) when it continues a level
  or opens a new one (`paragraph (1) of this subsection` is words, not a label).

Nesting is read from the labels themselves: a label that continues the sequence of an open
level (b after a, 2 after 1, ii after i, 1A after 1) is a sibling at that level, the deepest
such level first; any other label starts a deeper level. `(i)` after `(h)` continues the
letters; after `(c)` it opens a level of roman numerals. When a tree read so has a label twice
among one clause's subclauses, the last label before it that opened a deeper level but could
have followed an open level of its kind, labels skipped (`(i)` after `(d)(3)`: the letter after
`(d)`), is read that way instead, and the text read again, a few times at most.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .ast import escape
from .coverage import NOT_YET_ENCODED

WIDTH = 96
SEVERAL_SECTIONS_CITE = "{statute} § {section}{clauses}"

# The heading that opens a section: `§ 132`, `Sec. 5.`, `Section 5.`, `Rule 3`, `cl 4`, `12.`.
_HEADING = re.compile(
    r"(?:§{1,2}\s*[0-9][0-9A-Za-z:.\-]*"
    r"|(?:Sec\.|SEC\.|Section|SECTION|Rule|RULE|Art\.|Article|ARTICLE|cl\.?|Cl\.?)\s*"
    r"[0-9][0-9A-Za-z:.\-]*"
    r"|[0-9]+[A-Za-z]?(?:[:\-][0-9A-Za-z]+)*\.)"
    r"(?=\s|$)"
)
_BARE_SECTION = re.compile(r"[0-9]+[A-Z]?\.")
_DOT_LABEL = re.compile(r"(?:[a-zA-Z]|([a-z])\1|([A-Z])\2)\.(?=\s|$)")
_PAREN_LABEL = re.compile(r"\((?:[0-9]{1,4}[A-Za-z]{0,2}|[a-zA-Z]{1,6})\)(?=\s|$)")
_INLINE_LABEL = re.compile(r"(?<!\S)\((?:[0-9]{1,4}[A-Za-z]{0,2}|[a-zA-Z]{1,6})\)(?=\s|$)")
# What comes right before a label laid out inside a line.
_BEFORE_INLINE = re.compile(r"(?:[:;.\u2014\u2013]|;\s+(?:and|or))$")  # an em or an en dash too
# A label followed by one of these is a reference, not a subdivision: `(1) of this section`.
_REFERENCE_WORDS = frozenset({"of", "and", "or", "through", "is", "are"})
# Words naming a part of a text: a line ending in one goes on with the label it refers to.
_PART_WORDS = frozenset(
    f"{word}{plural}"
    for word in ("section", "subsection", "paragraph", "subparagraph", "clause", "subclause")
    for plural in ("", "s")
)
_ROMAN = re.compile(r"(?=[ivxlcdm])m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


class ScaffoldError(Exception):
    """The official text cannot be scaffolded; `line` and `column` say where (1-based)."""

    def __init__(self, message: str, line: int = 1, column: int = 1, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.hint = hint


# ---- labels ----------------------------------------------------------------------------------
Reading = tuple[str, tuple[int, int]]  # (kind, value): a way of reading a label


def _roman(text: str) -> int | None:
    lower = text.lower()
    if not _ROMAN.fullmatch(lower):
        return None
    total = 0
    for char, following in zip(lower, [*lower[1:], ""], strict=True):
        value = _ROMAN_VALUES[char]
        total += -value if following and _ROMAN_VALUES[following] > value else value
    return total


def readings(label: str) -> list[Reading]:
    """Returns the ways a label can be read, each a (kind, value) pair, the likelier first:
    `(i)` is the letter i or the roman numeral 1, `(1A)` the number 1 with insertion 1."""
    dotted = label.endswith(".")
    inner = label.strip("().")
    style = "dot" if dotted else "paren"
    if inner[:1].isdigit():
        digits = re.match(r"[0-9]+", inner)
        assert digits is not None
        suffix = inner[digits.end() :]
        inserted = sum(ord(c.upper()) - 64 for c in suffix[:1]) + 26 * (len(suffix) - 1)
        return [(f"{style}-number", (int(digits.group()), max(inserted, 0)))]
    case = "lower" if inner.islower() else "upper" if inner.isupper() else "mixed"
    found: list[Reading] = []
    if len(inner) == 1:
        found.append((f"{style}-{case}-letter", (ord(inner.lower()) - 96, 0)))
    elif len(set(inner)) == 1 and len(inner) == 2:
        # `aa` follows `z` in a run of letters, or opens a level of doubled letters.
        found.append((f"{style}-{case}-letter", (26 + ord(inner[0].lower()) - 96, 0)))
        found.append((f"{style}-{case}-double", (ord(inner[0].lower()) - 96, 0)))
    roman = _roman(inner)
    if roman is not None and case != "mixed":
        found.append((f"{style}-{case}-roman", (roman, 0)))
    if not found:
        found.append((f"{style}-{case}-other:{inner}", (0, 0)))
    return found


def _follows(previous: tuple[int, int], value: tuple[int, int]) -> bool:
    """Returns whether `value` comes right after `previous` in a sequence (1A after 1, 2
    after 1A)."""
    number, inserted = previous
    return value in ((number, inserted + 1), (number + 1, 0))


# ---- the tree --------------------------------------------------------------------------------
@dataclass
class Node:
    """A clause of the scaffold: its label, its kind at its level, and its passages and
    subclauses in order."""

    label: str
    reading: Reading | None
    items: list[Node | list[str]] = field(default_factory=list)
    # The column its label stands at when it begins a line of the text (-1 inside a line).
    indent: int = -1
    line: int = 0  # the line of the text its label is on

    @property
    def children(self) -> list[Node]:
        """The subclauses, in order."""
        return [item for item in self.items if isinstance(item, Node)]

    def add_words(self, words: list[str], new_passage: bool) -> None:
        """Appends words to the last passage, or as a new passage."""
        if not words:
            return
        last = self.items[-1] if self.items else None
        if isinstance(last, list) and not new_passage:
            last.extend(words)
        else:
            self.items.append(list(words))


class _Builder:
    def __init__(self, section: Node, forced: frozenset[int] = frozenset()) -> None:
        self.stack: list[Node] = [section]
        self.paragraph_break = False
        self.last_word = ""  # the last word read, across lines
        self.line_number = 0
        # Lines whose first label is read as the next of an open level of its kind, though
        # labels were skipped (a retry after a label read twice: see `build_sections`).
        self.forced = forced
        # Lines whose first label opened a deeper level though it could have been such a
        # sibling: the choices a retry may take back.
        self.ambiguous: list[int] = []

    def _continues_reference(self, text: str, end: int) -> bool:
        """True when a label beginning a line is the rest of a reference the line before
        began ("... under subsection" / "(a) as is determined"): that line ends in a word
        naming a part of a text, and the words after the label go on in lower case."""
        rest = text[end:].split(maxsplit=1)
        return self.last_word.lower() in _PART_WORDS and bool(rest) and rest[0][:1].islower()

    def _item_of_a_list(self, label: str, text: str, end: int) -> bool:
        """True when a label beginning a line and followed by `is` or `are` is the next item
        of an open level ("(1) meets the requirements, and" / "(2) is carrying at least half
        the load"), not a reference the line goes on with."""
        rest = text[end:].split(maxsplit=1)
        if not rest or rest[0] not in ("is", "are"):
            return False
        candidates = readings(label)
        for node in self.stack[1:]:
            level = node.reading
            assert level is not None
            if any(kind == level[0] and _follows(level[1], value) for kind, value in candidates):
                return True
        return False

    @property
    def current(self) -> Node:
        return self.stack[-1]

    def place(self, label: str, at_line_start: bool, indent: int = -1) -> int | None:
        """Returns the depth (in the stack) of the parent a label belongs under, or None when
        the label is words (a label inside a line that neither continues a level nor opens
        a new one). A label beginning a line of an indented text, as far in as an open level
        of its kind, is that level's sibling, though letters were skipped in between ((i)
        after (d) is a letter there, not a numeral under the (B) indented below (d))."""
        candidates = readings(label)
        levels = self.stack[1:]
        indents = {node.indent for node in levels if node.indent >= 0}
        if at_line_start and self.line_number in self.forced:
            skipped = self._after_skipped(candidates, levels)
            if skipped is not None:
                return skipped
        if at_line_start and indent >= 0 and len(indents) > 1 and indent < max(indents):
            skipped = self._after_skipped(candidates, levels, at_indent=indent)
            if skipped is not None:
                return skipped
        for depth in range(len(levels) - 1, -1, -1):
            level = levels[depth].reading
            assert level is not None
            for kind, value in candidates:
                if kind == level[0] and _follows(level[1], value):
                    self._chosen = (kind, value)
                    return depth
        open_kinds = {node.reading[0] for node in levels if node.reading is not None}
        for kind, value in candidates:
            if kind not in open_kinds and value[0] == 1:
                self._chosen = (kind, value)
                skipped = self._after_skipped(candidates, levels, choose=False)
                if at_line_start and skipped is not None:
                    self.ambiguous.append(self.line_number)
                return len(levels)
        if not at_line_start:
            return None
        for depth in range(len(levels) - 1, -1, -1):
            level = levels[depth].reading
            assert level is not None
            for kind, value in candidates:
                if kind == level[0]:
                    self._chosen = (kind, value)
                    return depth
        self._chosen = candidates[0]
        return len(levels)

    def _after_skipped(
        self,
        candidates: list[Reading],
        levels: list[Node],
        choose: bool = True,
        at_indent: int | None = None,
    ) -> int | None:
        """Returns the depth of the deepest open level (of those whose label stands at column
        `at_indent`, when given) a reading of the label comes after, labels skipped in between
        ((i) after (d): a letter), and chooses that reading when `choose`; None when there is
        none."""
        for depth in range(len(levels) - 1, -1, -1):
            level = levels[depth].reading
            assert level is not None
            if at_indent is not None and levels[depth].indent != at_indent:
                continue
            for kind, value in candidates:
                if kind == level[0] and value > level[1]:
                    if choose:
                        self._chosen = (kind, value)
                    return depth
        return None

    def open(self, label: str, depth: int, indent: int = -1) -> None:
        del self.stack[depth + 1 :]
        node = Node(label, self._chosen, indent=indent, line=self.line_number)
        self.current.items.append(node)
        self.stack.append(node)

    def words(self, text: str) -> None:
        words = text.split()
        self.current.add_words(words, self.paragraph_break)
        if words:
            self.paragraph_break = False
            self.last_word = words[-1]

    def line(self, text: str) -> None:
        """Reads one line of the official text: its leading labels, then its words and the
        labels laid out inside it."""
        position = len(text) - len(text.lstrip())
        indent = position
        while True:
            match = _DOT_LABEL.match(text, position) or _PAREN_LABEL.match(text, position)
            if match is None:
                break
            if _is_reference(text, match.end()) and not (
                position == indent and self._item_of_a_list(match.group(), text, match.end())
            ):
                break
            if position == indent and self._continues_reference(text, match.end()):
                break
            depth = self.place(match.group(), True, indent if position == indent else -1)
            assert depth is not None
            self.open(match.group(), depth, indent if position == indent else -1)
            self.paragraph_break = False
            position = match.end()
            position += len(text[position:]) - len(text[position:].lstrip())
        start = position
        for match in _INLINE_LABEL.finditer(text, position):
            before = text[start : match.start()].rstrip()
            if not _BEFORE_INLINE.search(before) or _is_reference(text, match.end()):
                continue
            depth = self.place(match.group(), at_line_start=False)
            if depth is None:
                continue
            self.words(before)
            self.open(match.group(), depth)
            start = match.end()
        self.words(text[start:])


def _is_reference(text: str, end: int) -> bool:
    """Returns whether the label ending at `end` is followed by words that make it a
    reference (`(1) of this section`) or by nothing but punctuation."""
    rest = text[end:].split(maxsplit=1)
    if not rest:
        return False
    following = rest[0]
    return following.lower() in _REFERENCE_WORDS or following[0] in ",;)]"


def split_heading(text: str) -> tuple[str, int]:
    """Returns the section heading's label at the start of `text` (after blank lines), and
    the offset just after it; raises ScaffoldError when there is none."""
    start = len(text) - len(text.lstrip())
    match = _HEADING.match(text, start)
    if match is None:
        line = text.count("\n", 0, start) + 1
        raise ScaffoldError(
            "no section heading (such as “12.”, “§ 132”, “Sec. 5.” or “Rule 3”) where the text "
            "begins",
            line,
            1,
            hint='give the section\'s label with --section "LABEL": the encoding then marks it '
            "unlabelled",
        )
    return match.group(), match.end()


def _heading_form(label: str) -> tuple[str, int]:
    """Returns a heading's words before its number (`§`, `Sec.`, `` for `12.`) and the
    number's leading digits as an integer (0 when it has none)."""
    match = re.search(r"[0-9]", label)
    if match is None:
        return label, 0
    digits = re.match(r"[0-9]+", label[match.start() :])
    assert digits is not None
    return label[: match.start()].strip(), int(digits.group())


def build_sections(official: str, section_label: str | None = None) -> list[Node]:
    """Returns the clause tree of each section of an official text, in order.

    The first section's label is the heading the text begins with, unless `section_label` is
    given (for a text that carries none). A later section begins at a line that follows a
    blank line and opens with a heading of the first one's form (`§ 133` after `§ 132`,
    `2.` after `1.`) whose number is not lower. Raises ScaffoldError when the text is empty or
    has no heading and no label is given.
    """
    if not official.strip():
        raise ScaffoldError("the official text is empty")
    first, ambiguous = _sections(official, section_label, frozenset())
    sections, forced = first, frozenset[int]()
    # A label read twice at one level is most often a letter that is also a roman numeral,
    # read as the first numeral of a deeper level where the text skipped letters ((i) after
    # (d)(3)): each retry reads the last such label before the repeated one as the letter.
    for _ in range(_RETRIES):
        repeated = _first_repeated(sections)
        if repeated is None:
            return sections
        earlier = [line for line in ambiguous if line < repeated and line not in forced]
        if not earlier:
            break
        forced |= {max(earlier)}
        sections, ambiguous = _sections(official, section_label, forced)
    return first


_RETRIES = 8


def _first_repeated(sections: list[Node]) -> int | None:
    """Returns the line of the first label read a second time among one clause's subclauses,
    None when there is none."""
    lines = []
    for section in sections:
        pending = [section]
        while pending:
            node = pending.pop()
            seen: set[str] = set()
            for child in node.children:
                if child.label in seen:
                    lines.append(child.line)
                seen.add(child.label)
                pending.append(child)
    return min(lines, default=None)


def _sections(
    official: str, section_label: str | None, forced: frozenset[int]
) -> tuple[list[Node], list[int]]:
    """Returns the clause trees of `build_sections`, reading the first label of each line in
    `forced` after skipped labels; and the lines whose label could have been so read."""
    if section_label is None:
        label, position = split_heading(official)
    else:
        label, position = section_label, 0
    sections = [Node(" ".join(label.split()), None)]
    form, number = _heading_form(sections[0].label)
    builder = _Builder(sections[0], forced)
    ambiguous: list[int] = []
    after_blank = False
    first_line = official.count("\n", 0, position) + 1
    # The heading's line goes on with its own words, or with labels right after it (`12. a.`).
    for offset, line in enumerate(official[position:].split("\n")):
        builder.line_number = first_line + offset
        if not line.strip():
            builder.paragraph_break = after_blank = True
            continue
        heading = _HEADING.match(line, len(line) - len(line.lstrip()))
        if after_blank and heading is not None and section_label is None:
            next_form, next_number = _heading_form(heading.group())
            labels = {node.label for node in sections}
            if next_form == form and next_number >= number and heading.group() not in labels:
                sections.append(Node(" ".join(heading.group().split()), None))
                ambiguous += builder.ambiguous
                builder = _Builder(sections[-1], forced)
                builder.line_number = first_line + offset
                number = next_number
                line = line[heading.end() :]
        after_blank = False
        if line.strip():
            builder.line(line)
    return sections, ambiguous + builder.ambiguous


# ---- writing the encoding --------------------------------------------------------------------
def _quoted(words: list[str], lead: str, indent: int) -> list[str]:
    """Returns `lead` then the words quoted, wrapped at WIDTH, continuation lines aligned
    after the opening quote."""
    lines: list[str] = []
    current = f'{lead}"'
    align = " " * (len(current) if len(current) < WIDTH // 2 else indent + 2)
    for index, word in enumerate(escape(w) for w in words):
        piece = word if index == 0 else f" {word}"
        if index and len(current) + len(piece) > WIDTH:
            lines.append(current)
            current = align + word
        else:
            current += piece
    lines.append(current + '"')
    return lines


def _passage(words: list[str], lead: str, indent: int, opens: bool) -> list[str]:
    lines = _quoted(words, lead, indent)
    mark = f' text_only "{NOT_YET_ENCODED}"' + (" {" if opens else "")
    if len(lines[-1]) + len(mark) <= WIDTH:
        lines[-1] += mark
    else:
        lines.append(" " * (indent + 2) + mark.lstrip())
    return lines


def _clause_lines(node: Node, lead: str, indent: int) -> list[str]:
    items = node.items
    first_words = items[0] if items and isinstance(items[0], list) else None
    rest = items[1:] if first_words is not None else items
    if first_words is not None and not rest:
        return _passage(first_words, lead, indent, opens=False)
    lines = (
        _passage(first_words, lead, indent, opens=True)
        if first_words is not None
        else [f"{lead}{{"]
    )
    inner = " " * (indent + 2)
    for item in rest:
        if isinstance(item, Node):
            lines += _clause_lines(item, f"{inner}{item.label} ", indent + 2)
        else:
            lines += _passage(item, inner, indent + 2, opens=False)
    lines.append(" " * indent + "}")
    return lines


def render(
    trees: list[Node],
    name: str,
    official: str,
    cite: str | None = None,
    unlabelled: bool = False,
    source_name: str | None = None,
) -> str:
    """Returns the text of an encoding of `tree`: the header (`name`, the `official` file
    relative to the encoding, `cite` when given) and each section, every passage marked
    `text_only "not yet encoded"`. An encoding of several sections cites them by number:
    without `cite`, it gets `{statute} § {section}{clauses}`."""
    header = [
        f"# Written by `lextrace init` from {source_name or official}: the whole official text,"
        " clause by",
        f'# clause, every clause marked text_only "{NOT_YET_ENCODED}". Encode a clause by writing'
        " its",
        "# rules inside it and taking its mark away.",
        "",
        f'statute "{escape(name)}"',
        f'  official "{escape(official)}"',
    ]
    if cite is None and len(trees) > 1:
        cite = SEVERAL_SECTIONS_CITE
    if cite is not None:
        header.append(f'  cite "{escape(cite)}"')
    body: list[str] = []
    for tree in trees:
        label = tree.label if _BARE_SECTION.fullmatch(tree.label) else f'"{escape(tree.label)}"'
        lead = f"section {label} " + ("unlabelled " if unlabelled else "")
        if not tree.items:
            section = [f"{lead}{{", "}"]
        else:
            section = _clause_lines(tree, lead, 0)
            if section[-1] != "}":  # a section of one passage still opens its block
                section[-1] += " {"
                section.append("}")
        body += ["", *section]
    return "\n".join([*header, *body]) + "\n"


def scaffold(
    official_text: str,
    name: str,
    official: str,
    cite: str | None = None,
    section_label: str | None = None,
    source_name: str | None = None,
) -> str:
    """Returns an encoding carrying the whole of `official_text`, clause by clause, none
    encoded (see the module docstring); raises ScaffoldError when the text cannot be split."""
    trees = build_sections(official_text, section_label)
    return render(trees, name, official, cite, section_label is not None, source_name)
