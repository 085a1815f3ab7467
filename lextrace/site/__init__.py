"""The published site: pages generated from the encoding at build time.

Every page here is made from the parsed statute (and the examples, the tests and the amendment
drafts beside it) each time the site is built, so the site cannot drift from the code. The MkDocs
hook `hooks.py` adds them to the build; nothing generated is committed.
"""
